/*
 * window_partition: torchvision 0.14's MaxViT WindowPartition()(x, p): one sample C x H x W
 * cut into G = (H/P)(W/P) windows of P x P pixels, G x (P P) x C, window (hp, wp) at row
 * hp (W/P) + wp, its pixel (ph, pw) at column ph P + pw (reshape to C, H/P, P, W/P, P, permute
 * to H/P, W/P, P, P, C). H and W must be multiples of P. No weights, 0 FLOPs; a copy, so
 * bytes = 4 (input + output) (the host's default).
 */
#include <scalemeter/plugin.h>

#include "window_partition.h"

#define MAX_P ((int64_t)1 << 16)

static void partition_parse(void *params, sm_args *args)
{
    partition_params *p = params;
    p->p = sm_arg_int(args, "p", SM_REQUIRED, 1, MAX_P);
}

static int partition_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                           sm_error *err)
{
    const partition_params *p = params;
    (void)n_in;
    char s[64];
    if (in->ndim != 3) {
        sm_error_set(err, "window_partition needs a C x H x W input, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (in->dim[1] % p->p || in->dim[2] % p->p) {
        sm_error_set(err, "H %lld and W %lld of input %s must be multiples of p = %lld",
                     (long long)in->dim[1], (long long)in->dim[2], sm_shape_str(in, s, sizeof s),
                     (long long)p->p);
        return -1;
    }
    *out = *in;
    out->dim[0] = (in->dim[1] / p->p) * (in->dim[2] / p->p);
    out->dim[1] = p->p * p->p;
    out->dim[2] = in->dim[0];
    return 0;
}

static const sm_layer_type partition_type = {
    SM_LAYER_TYPE_INIT,
    .name = "window_partition",
    .summary = "a C x H x W map cut into windows of p x p pixels, G x p^2 x C (MaxViT's "
               "WindowPartition): p",
    .params_size = sizeof(partition_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = partition_parse,
    .infer = partition_infer,
    .traits = 0,
    /* a contiguous copy of a permuted view: a new tensor, nothing kept */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(partition_type)
