/*
 * layer_scale: a learnable scale per channel, as ConvNeXt's CNBlock applies it
 * (self.layer_scale * x, with layer_scale an nn.Parameter of shape C x 1 x 1 and x of C x H x W).
 * `axis` names the scaled dimension of the per-sample shape: 0, the channels of C x H x W, by
 * default; -1 scales the last dimension (the E of a sequence S x E, CaiT's layer scale).
 *
 *   weights       = size of that dimension (one scale each), in one tensor
 *   flops         = one multiply per element; no multiply-accumulates
 *   bwd           = 2 per element (input gradient, and the weight gradient's products)
 */
#include <scalemeter/plugin.h>

#include "view_metrics.h"

#include "layer_scale.h"

static void layer_scale_parse(void *params, sm_args *args)
{
    layer_scale_params *p = params;
    p->axis = sm_arg_int(args, "axis", 0, -SM_MAX_DIMS, SM_MAX_DIMS - 1);
}

static int layer_scale_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                             sm_error *err)
{
    (void)n_in;
    const layer_scale_params *p = params;
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

static int layer_scale_metrics(const void *params, const sm_shape *in, int n_in,
                               const sm_shape *out, sm_layer_metrics *m, sm_error *err)
{
    const layer_scale_params *p = params;
    (void)n_in;
    (void)err;
    int64_t axis = p->axis < 0 ? p->axis + in->ndim : p->axis;
    m->flops = sm_shape_elems(out);
    m->weights = in->dim[axis];
    m->param_tensors = 1;
    m->bwd_flops = sm_mul(2, m->flops);
    /* the backward pass multiplies for the input's gradient, and multiplies and sums over the
     * batch for the scale's (autograd's MulBackward0 and sum_to_size) */
    m->kernels_bwd = 3;
    return 0;
}

static const sm_layer_type layer_scale_type = {
    SM_LAYER_TYPE_INIT,
    .name = "layer_scale",
    .summary = "learnable scale per channel (ConvNeXt's layer_scale parameter): axis",
    .params_size = sizeof(layer_scale_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = layer_scale_parse,
    .infer = layer_scale_infer,
    .metrics = layer_scale_metrics,
    .traits = 0,
    /* gamma * x: gamma's gradient needs x */
    .saved = sm_saved_input,
    /* an element-wise product writes its output in its input's layout (ABI 14) */
    .view_strides = view_same_strides,
};

SM_DEFINE_PLUGIN(layer_scale_type)
