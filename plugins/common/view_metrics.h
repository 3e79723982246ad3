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

/* view_strides (ABI 12) of a view whose output lies over its input as the input does, dim
 * for dim (identity, chunk: a narrowed piece keeps its steps). */
static inline int view_same_strides(const void *params, const sm_shape *in,
                                    const int64_t *in_strides, const sm_shape *out,
                                    int64_t *out_strides)
{
    (void)params;
    for (int k = 0; k < out->ndim && k < in->ndim; k++)
        out_strides[k] = in_strides[k];
    return 0;
}

/* view_strides (ABI 14) of a layer writing a new C x H x W tensor channels-last (NHWC): the
 * channels adjacent, then the width, then the height. */
static inline void channels_last_strides(const sm_shape *out, int64_t *out_strides)
{
    if (out->ndim != 3)
        return;
    out_strides[0] = 1;
    out_strides[2] = out->dim[0];
    out_strides[1] = sm_mul(out->dim[0], out->dim[2]);
}

/* Merges dims [start, end) of a shape with the given steps into one, as a view (PyTorch's
 * computeStride for torch.flatten): possible where each dim's step is the next one's times
 * its size, dims of size 1 aside. 0 with *stride the merged dim's step, 1 where no view
 * exists and the merge must copy. */
static inline int view_merge(const sm_shape *in, const int64_t *strides, int start, int end,
                             int64_t *stride)
{
    int last = -1; /* the innermost dim of more than one element seen so far */
    *stride = 1;
    for (int k = end - 1; k >= start; k--) {
        if (in->dim[k] == 1)
            continue;
        if (last >= 0 && strides[k] != strides[last] * in->dim[last])
            return 1;
        if (last < 0)
            *stride = strides[k];
        last = k;
    }
    return 0;
}

#endif
