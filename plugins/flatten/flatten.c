/*
 * flatten: torch.flatten of the per-sample dimensions from `start` to the last into one
 * (start 0 here is torch.flatten(x, 1), the batch being no part of the shape; a negative start
 * counts from the end). A view, 0 FLOPs and no bytes moved, where its input is contiguous
 * over the dimensions it merges; else, as after a permute, torch.flatten copies them into a
 * new tensor (reshape's contiguous() semantics), which view_strides tells the host.
 */
#include <scalemeter/plugin.h>

#include "view_metrics.h"

typedef struct flatten_params {
    int64_t start;
} flatten_params;

static void flatten_parse(void *params, sm_args *args)
{
    flatten_params *p = params;
    p->start = sm_arg_int(args, "start", 0, -SM_MAX_DIMS, SM_MAX_DIMS - 1);
}

static int flatten_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                         sm_error *err)
{
    (void)n_in;
    const flatten_params *p = params;
    char s[64];
    int64_t start = p->start < 0 ? p->start + in->ndim : p->start;
    if (start < 0 || start >= in->ndim) {
        sm_error_set(err, "start %lld out of range for input %s", (long long)p->start,
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    sm_shape r = {.ndim = (int)start + 1};
    for (int i = 0; i < start; i++)
        r.dim[i] = in->dim[i];
    r.dim[start] = 1;
    for (int i = (int)start; i < in->ndim; i++)
        r.dim[start] = sm_mul(r.dim[start], in->dim[i]);
    if (r.dim[start] == SM_OVERFLOW) {
        sm_error_set(err, "flattened size overflows 64 bits (input %s)",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = r;
    return 0;
}

/* torch.flatten returns its input for one dim, a view where the merged dims' steps allow one,
 * else a copy (1). */
static int flatten_strides(const void *params, const sm_shape *in, const int64_t *in_strides,
                           const sm_shape *out, int64_t *out_strides)
{
    const flatten_params *p = params;
    int start = (int)(p->start < 0 ? p->start + in->ndim : p->start);
    for (int k = 0; k < start; k++)
        out_strides[k] = in_strides[k];
    if (start == in->ndim - 1) {
        out_strides[start] = in_strides[start];
        return 0;
    }
    (void)out;
    return view_merge(in, in_strides, start, in->ndim, &out_strides[start]);
}

static const sm_layer_type flatten_type = {
    SM_LAYER_TYPE_INIT,
    .name = "flatten",
    .summary = "flattens the dimensions from start to the last (torch.flatten): start",
    .params_size = sizeof(flatten_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = flatten_parse,
    .infer = flatten_infer,
    .metrics = view_metrics,
    .traits = SM_TRAIT_VIEW,
    .saved = sm_saved_view,
    .view_strides = flatten_strides,
};

SM_DEFINE_PLUGIN(flatten_type)
