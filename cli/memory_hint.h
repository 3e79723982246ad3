/* What a planner can change when training does not fit one device: the part of its memory that
 * is most of it, and the options that shrink that part (predict's table, curve's notes). */
#ifndef SCALEMETER_CLI_MEMORY_HINT_H
#define SCALEMETER_CLI_MEMORY_HINT_H

#include <stddef.h>
#include <stdint.h>

#include "predictor_choice.h"
#include "scalemeter/memory.h"
#include "scalemeter/scalemeter.h"

typedef struct memory_hint_context {
    const predictor_choice *choice; /* the options given */
    const sm_predictor *pred;       /* for its precision and the precisions it has */
    const sm_network *net;
    int devices;       /* in all, at this point */
    int64_t batch;     /* per device, one micro-batch */
    int has_max_batch; /* the command takes --max-batch (predict) */
    int strong;        /* curve's strong scaling: the batch is --global-batch's share */
} memory_hint_context;

/* "activations are most of it (108 GiB of 236 GiB): try ..." into buf; the empty string where
 * m fits or its fit is not known. */
void memory_hint(char *buf, size_t len, const sm_memory *m, const memory_hint_context *c);

#endif
