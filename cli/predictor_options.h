/* The options predict and curve share, in one table: what chooses the predictor and what
 * sets the layout and the data, parsed, checked and documented once (predict is curve's
 * one-point case, so the same options must give the same numbers). */
#ifndef SCALEMETER_CLI_PREDICTOR_OPTIONS_H
#define SCALEMETER_CLI_PREDICTOR_OPTIONS_H

#include <stdint.h>

#include "option_table.h"
#include "predictor_choice.h"

typedef struct predictor_options {
    predictor_choice choice; /* --coeffs, --device, --precision, --framework, ... */
    int64_t gpus_per_node;   /* -g; 0: the description's, else 1 */
    int64_t accumulate;      /* --accumulate K: micro-batches per step (default 1) */
    int64_t image, seq;      /* 0: the network file's */
    int64_t dataset;         /* samples per epoch; 0: not given (dataset_samples) */
    int64_t tokens;          /* a sequence network's epoch in tokens; 0: not given */
    int64_t epochs;          /* 0: not given */
} predictor_options;

/* The two groups of the table, "predictor" and "layout and data", over o. */
#define PREDICTOR_OPTION_GROUPS 2
void predictor_option_groups(predictor_options *o, opt_group out[PREDICTOR_OPTION_GROUPS]);
/* After parsing: why the options do not go together (a usage error's text), or NULL; then
 * the defaults filled in (--accumulate 1). */
const char *predictor_options_problem(predictor_options *o);

#endif
