/* One step's prediction as predict and compare make it (compare's row of a part is predict's
 * for that part by construction): the layout from the options, the memory (after --max-batch's
 * search), the times and the totals' bounds. */
#ifndef SCALEMETER_CLI_STEP_POINT_H
#define SCALEMETER_CLI_STEP_POINT_H

#include <stdint.h>

#include "predictor_options.h"
#include "scalemeter/curve.h"
#include "scalemeter/memory.h"
#include "scalemeter/predict.h"

#define STEP_MAX_BATCH (INT64_C(1) << 32) /* --batch's limit, and --max-batch's */

/* One device's memory while training and at inference, and the largest batch when asked. */
typedef struct step_memory {
    sm_memory train, infer;
    int64_t max_batch;    /* --max-batch: the largest per-device batch that fits; -1: not asked */
    int max_of_inference; /* 1: max_batch is the largest whose inference fits (STEP_MAX_INFER) */
} step_memory;

/* step_predict's max_batch: none (--batch), the largest batch whose training memory fits
 * (--max-batch), or whose inference memory does (--max-infer-batch) */
#define STEP_MAX_TRAIN 1
#define STEP_MAX_INFER 2

/* The step of net at --batch batch (or, with max_batch, the largest per-device batch whose
 * training or inference memory fits: batch 1 where none does, to show what it needs) on nodes nodes
 * of -g devices (the description's devices per node where -g is not given, else 1): its layout,
 * memory and times, within the bounds of an epoch and a run (sm_check_totals). 0, or -1 with
 * st. */
int step_predict(const predictor_options *o, int64_t batch, int64_t nodes, int max_batch,
                 const sm_network *net, const sm_predictor *p, sm_layout *l, step_memory *mem,
                 sm_prediction *t, sm_status *st);

/* What shrinks training's memory m at the step's layout l where it does not fit, into buf
 * (cli/memory_hint.c, with --max-batch among the remedies): the empty string where it fits. */
void step_fit_hint(char *buf, size_t len, const predictor_choice *c, const sm_network *net,
                   const sm_predictor *p, const sm_layout *l, const sm_memory *m);

/* The step as a curve's point is: efficiency 1, no turning point. */
sm_curve_point step_curve_point(const sm_layout *l, const sm_prediction *t, const step_memory *mem);

#endif
