/*
 * window_departition: torchvision 0.14's MaxViT WindowDepartition()(x, p, h, w), the inverse of
 * window_partition: one sample of G = h w windows of P x P pixels, G x (P P) x C, put back
 * into C x (h P) x (w P): window g = hp w + wp, pixel k = ph P + pw goes to row hp P + ph,
 * column wp P + pw (reshape to h, w, P, P, C, permute to C, h, P, w, P). No weights, 0 FLOPs;
 * a copy, so bytes = 4 (input + output) (the host's default).
 */
#include <scalemeter/plugin.h>

#include "window_departition.h"

#define MAX_P ((int64_t)1 << 16)

static void departition_parse(void *params, sm_args *args)
{
    departition_params *p = params;
    p->p = sm_arg_int(args, "p", SM_REQUIRED, 1, MAX_P);
    p->hp = sm_arg_int(args, "h", SM_REQUIRED, 1, MAX_P);
    p->wp = sm_arg_int(args, "w", SM_REQUIRED, 1, MAX_P);
}

static int departition_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                             sm_error *err)
{
    const departition_params *p = params;
    (void)n_in;
    char s[64];
    if (in->ndim != 3) {
        sm_error_set(err, "window_departition needs a G x P^2 x C input of windows, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (in->dim[0] != p->hp * p->wp || in->dim[1] != p->p * p->p) {
        sm_error_set(err,
                     "input %s is not h x w = %lld x %lld windows of p x p = %lld x %lld "
                     "pixels (expected %lldx%lldxC)",
                     sm_shape_str(in, s, sizeof s), (long long)p->hp, (long long)p->wp,
                     (long long)p->p, (long long)p->p, (long long)(p->hp * p->wp),
                     (long long)(p->p * p->p));
        return -1;
    }
    *out = *in;
    out->dim[0] = in->dim[2];
    out->dim[1] = p->hp * p->p;
    out->dim[2] = p->wp * p->p;
    return 0;
}

static const sm_layer_type departition_type = {
    SM_LAYER_TYPE_INIT,
    .name = "window_departition",
    .summary = "G x p^2 x C windows put back into a C x (h p) x (w p) map (MaxViT's "
               "WindowDepartition): p, h, w",
    .params_size = sizeof(departition_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = departition_parse,
    .infer = departition_infer,
    .traits = 0,
    /* a contiguous copy of a permuted view: a new tensor, nothing kept */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(departition_type)
