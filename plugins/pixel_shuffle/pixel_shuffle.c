/*
 * pixel_shuffle: nn.PixelShuffle(r) / F.pixel_shuffle on a per-sample C r^2 x H x W input,
 * giving C x H r x W r: output (c, h r + i, w r + j) is input (c r^2 + i r + j, h, w). It moves
 * values only: no FLOPs, and PyTorch copies them into a new tensor (a view, then a copy), so
 * its output is storage of its own and it keeps nothing for backward.
 */
#include <scalemeter/plugin.h>

#include "pixel_shuffle.h"

static void pixel_shuffle_parse(void *params, sm_args *args)
{
    pixel_shuffle_params *p = params;
    p->factor = sm_arg_int(args, "factor", SM_REQUIRED, 1, 1 << 12);
}

static int pixel_shuffle_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                               sm_error *err)
{
    (void)n_in;
    const pixel_shuffle_params *p = params;
    int64_t r = p->factor;
    char s[64];
    if (in->ndim != 3) {
        sm_error_set(err, "pixel_shuffle needs one CxHxW input, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (r < 1 || in->dim[0] % (r * r) != 0) {
        sm_error_set(err,
                     "pixel_shuffle: channels %lld are not divisible by factor^2 = %lld "
                     "(input %s)",
                     (long long)in->dim[0], (long long)(r * r), sm_shape_str(in, s, sizeof s));
        return -1;
    }
    out->ndim = 3;
    out->dim[0] = in->dim[0] / (r * r);
    out->dim[1] = sm_mul(in->dim[1], r);
    out->dim[2] = sm_mul(in->dim[2], r);
    out->dim[3] = 0;
    if (out->dim[1] == SM_OVERFLOW || out->dim[2] == SM_OVERFLOW) {
        sm_error_set(err, "pixel_shuffle: output size overflows (input %s)",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    return 0;
}

static const sm_layer_type pixel_shuffle_type = {
    SM_LAYER_TYPE_INIT,
    .name = "pixel_shuffle",
    .summary = "C r^2 x H x W -> C x H r x W r (nn.PixelShuffle): factor",
    .params_size = sizeof(pixel_shuffle_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = pixel_shuffle_parse,
    .infer = pixel_shuffle_infer,
    .metrics = NULL, /* no FLOPs, no weights; reads and writes every value once */
    /* torch 1.13 saves no tensor for it */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(pixel_shuffle_type)
