/*
 * upsample: nn.Upsample and F.interpolate on a per-sample C x H x W input, mode nearest or
 * bilinear, by a scale (Ho = floor(H scale), as PyTorch) or to a size.
 *
 *   nearest   copies one input value per output value: no FLOPs
 *   bilinear  four weighted input values per output value: 4 products and 3 sums, 7 FLOPs
 *             per output element; no multiply-accumulates of a matrix product (macs 0)
 *   bwd       the same operations in reverse
 */
#include <math.h>

#include <scalemeter/plugin.h>

#include "upsample.h"

#define MAX_SIZE ((int64_t)1 << 20)
#define MAX_SCALE 4096.0

static void upsample_parse(void *params, sm_args *args)
{
    static const char *const modes[] = {"nearest", "bilinear", NULL};
    upsample_params *p = params;
    p->mode = sm_arg_choice(args, "mode", modes, UPSAMPLE_NEAREST);
    p->scale = sm_arg_real(args, "scale", 0, 1e-6, MAX_SCALE);
    sm_arg_pair(args, "size", 0, 1, MAX_SIZE, p->size);
    p->align_corners = sm_arg_bool(args, "align_corners", 0);
    if ((p->scale > 0) == (p->size[0] > 0))
        sm_arg_fail(args, "give one of scale (a factor) and size (HxW)");
    else if (p->align_corners && p->mode != UPSAMPLE_BILINEAR)
        sm_arg_fail(args, "align_corners applies to mode=bilinear only");
}

static int upsample_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                          sm_error *err)
{
    (void)n_in;
    const upsample_params *p = params;
    char s[64];
    if (in->ndim != 3) {
        sm_error_set(err, "upsample needs one CxHxW input, got %s", sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    for (int i = 0; i < 2; i++) {
        /* PyTorch: floor(double(size) * scale) */
        double o = p->scale > 0 ? floor((double)in->dim[1 + i] * p->scale) : (double)p->size[i];
        if (o < 1 || o > (double)MAX_SIZE) {
            sm_error_set(err, "upsample by %g gives %s size %.0f from %lld (input %s)", p->scale,
                         i ? "a width" : "a height", o, (long long)in->dim[1 + i],
                         sm_shape_str(in, s, sizeof s));
            return -1;
        }
        out->dim[1 + i] = (int64_t)o;
    }
    return 0;
}

static int upsample_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                            sm_layer_metrics *m, sm_error *err)
{
    const upsample_params *p = params;
    (void)in, (void)n_in, (void)err;
    if (p->mode == UPSAMPLE_BILINEAR)
        m->flops = sm_mul(7, sm_shape_elems(out));
    m->bwd_flops = m->flops;
    return 0;
}

static const sm_layer_type upsample_type = {
    SM_LAYER_TYPE_INIT,
    .name = "upsample",
    .summary = "resize over H and W (nn.Upsample, F.interpolate): mode nearest|bilinear, "
               "scale or size, align_corners",
    .params_size = sizeof(upsample_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = upsample_parse,
    .infer = upsample_infer,
    .metrics = upsample_metrics,
    /* both modes' backward needs the sizes only (torch 1.13 saves no tensor for either) */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(upsample_type)
