/*
 * The metrics of a view layer (flatten, chunk, select, tokens, permute): its output is its input's
 * storage, so it costs nothing, not even the bytes the host counts by default
 * (4 (input + output) elements). Header-only, for descriptors (NAME.c), which link nothing.
 */
#ifndef SCALEMETER_PLUGINS_VIEW_METRICS_H
#define SCALEMETER_PLUGINS_VIEW_METRICS_H

#include <scalemeter/plugin.h>

/* 0 FLOPs, 0 weights (as the host zeroed them) and 0 bytes moved. */
static inline int view_metrics(const void *params, const sm_shape *in, int n_in,
                               const sm_shape *out, sm_layer_metrics *m, sm_error *err)
{
    (void)params;
    (void)in;
    (void)n_in;
    (void)out;
    (void)err;
    m->bytes = 0;
    return 0;
}

#endif
