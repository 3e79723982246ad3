/*
 * softmax: nn.Softmax along `axis` of the per-sample shape (-1, the last, by default; a negative
 * axis counts from the end). flops = 3 per element (exponential, sum, division).
 */
#include <scalemeter/plugin.h>

#include "softmax.h"

static void softmax_parse(void *params, sm_args *args)
{
    softmax_params *p = params;
    p->axis = sm_arg_int(args, "axis", -1, -SM_MAX_DIMS, SM_MAX_DIMS - 1);
}

static int softmax_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                         sm_error *err)
{
    (void)n_in;
    const softmax_params *p = params;
    char s[64];
    int64_t axis = p->axis < 0 ? p->axis + in->ndim : p->axis;
    if (axis < 0 || axis >= in->ndim) {
        sm_error_set(err, "axis %lld out of range for input %s", (long long)p->axis,
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    return 0;
}

static int softmax_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                           sm_layer_metrics *m, sm_error *err)
{
    (void)params;
    (void)in;
    (void)n_in;
    (void)err;
    m->flops = sm_mul(3, sm_shape_elems(out));
    m->bwd_flops = m->flops;
    return 0;
}

/* Its gradient is computed from its result. */
static int softmax_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                         sm_layer_saved *s, sm_error *err)
{
    (void)params;
    (void)in;
    (void)n_in;
    (void)out;
    (void)err;
    s->output = 1;
    return 0;
}

static const sm_layer_type softmax_type = {
    SM_LAYER_TYPE_INIT,
    .name = "softmax",
    .summary = "softmax along an axis (nn.Softmax): axis",
    .params_size = sizeof(softmax_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = softmax_parse,
    .infer = softmax_infer,
    .metrics = softmax_metrics,
    /* CUDA autocast runs softmax in fp32 (autocast_mode.cpp's fp32 list): at fp16 and bf16 it
     * keeps an fp32 result, as docs/memory.md says of every softmax */
    .traits = SM_TRAIT_AUTOCAST_FP32,
    .saved = softmax_saved,
};

SM_DEFINE_PLUGIN(softmax_type)
