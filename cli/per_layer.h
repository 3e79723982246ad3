/* predict --per-layer: where a step's passes go, layer by layer, on a device description:
 * each layer's forward and backward time, the host's dispatch of them and what limits them. */
#ifndef SCALEMETER_CLI_PER_LAYER_H
#define SCALEMETER_CLI_PER_LAYER_H

#include <stdio.h>

#include "output.h"
#include "warnings.h"
#include "scalemeter/predict.h"
#include "scalemeter/scalemeter.h"

/* Prints net's layers at layout (table, csv or json) with the step's totals t; with
 * infer_only (training does not fit the device, inference does), the inference pass alone:
 * the training columns empty (csv) or null (json). model: the model as predict's other outputs
 * name it (its JSON's "model"; the table's heading where net was read from "-"); warn: the
 * command's warnings, its JSON's "warning". 0, or -1 with st set (a calibration, which prices
 * whole passes). */
int per_layer_print(FILE *out, output_format format, const char *model, const sm_network *net,
                    const sm_predictor *p, const sm_layout *layout, const sm_prediction *t,
                    int infer_only, warnings *warn, sm_status *st);

#endif
