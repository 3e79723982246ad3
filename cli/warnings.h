/* The warnings of one command, each said once with what it applies to: a curve of 20 models x
 * 12 batches says "t_grad is the local update alone" once, naming the batches and node counts,
 * not once a point. predict and curve share it (predict is curve's one-row case). */
#ifndef SCALEMETER_CLI_WARNINGS_H
#define SCALEMETER_CLI_WARNINGS_H

#include <stdio.h>

#include "json_writer.h"
#include "predictor_choice.h"
#include "scalemeter/predict.h"

typedef struct warnings warnings;

/* NULL when out of memory. */
warnings *warnings_new(void);
void warnings_free(warnings *w);
/* What p warns about net (named model) and about layout, and what the layout asks of net
 * that cannot run (a batch norm over one value per channel in training) or is priced
 * roughly (a global batch above dataset samples; 0: no dataset known); -1 when out of
 * memory. */
int warnings_add(warnings *w, const sm_predictor *p, const char *model, const sm_network *net,
                 const sm_layout *layout, int64_t dataset);
/* What the prediction t of model at layout by p says that physics does not allow: an
 * inference pass that costs more energy than a training step of the same batch, which runs a
 * forward pass and more (a calibration's energy rows from counters read over too short a
 * window); a pass whose average power on a device (e_infer / t_infer, e_step / t_step) is more
 * than 10% above the power limit of the description behind p (sm_predictor_power_limit), said
 * once a pass with the highest such power of the points added; -1 when out of memory. */
int warnings_energy(warnings *w, const sm_predictor *p, const char *model, const sm_layout *layout,
                    const sm_prediction *t);
/* The options of c that change nothing at any point added so far, each said once as the
 * command's warning (say_warning): --overlap, --bucket-mib, --collective, --algorithm and
 * --protocol where every point is one device (no gradients to all-reduce), --attention where
 * no network has an attention layer, --fp8 where none has linear products but its output
 * projection. Accepted, not refused: a script may give them to every configuration it
 * sweeps. */
void warnings_idle_options(const warnings *w, const predictor_choice *c);
/* Each warning in one line, "SUBJECT: TEXT": SUBJECT names the models, or the per-device
 * batches and the node counts (with the devices per node), that it applies to. NULL past the
 * last. */
const char *warnings_line(warnings *w, int i);
/* The lines on stderr, "scalemeter CMD: warning: LINE". */
void warnings_print(warnings *w, const char *cmd);
/* The member "warning": "LINE; LINE" (null when there is none) of the open JSON object. */
void warnings_json(warnings *w, json_writer *out);

#endif
