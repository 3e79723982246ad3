/*
 * conv_transpose2d: transposed convolution over H and W as torch.nn.ConvTranspose2d defines
 * it, on a per-sample C x H x W input: out, kernel, stride, padding, output_padding, dilation,
 * groups, bias ("3" or "3x5" each). Ho = (H - 1) sh - 2 ph + dh (kh - 1) + output_padding + 1.
 * Each input element meets every tap of its group's out/groups channels:
 * macs = C x H x W x out/groups x kh x kw (common/convnd.h). Its input and output elements
 * count towards ConvMeter's I and O.
 */
#include "convnd.h"

static void conv_transpose2d_parse(void *params, sm_args *args)
{
    convnd_params *p = params;
    convnd_unit_axes(p, 2);
    p->out = sm_arg_int(args, "out", SM_REQUIRED, 1, CONVND_MAX_CHANNELS);
    sm_arg_pair(args, "kernel", SM_REQUIRED, 1, CONVND_MAX_WINDOW, p->kernel + 1);
    sm_arg_pair(args, "stride", 1, 1, CONVND_MAX_WINDOW, p->stride + 1);
    sm_arg_pair(args, "padding", 0, 0, CONVND_MAX_WINDOW, p->padding + 1);
    sm_arg_pair(args, "output_padding", 0, 0, CONVND_MAX_WINDOW, p->output_padding + 1);
    sm_arg_pair(args, "dilation", 1, 1, CONVND_MAX_WINDOW, p->dilation + 1);
    p->groups = sm_arg_int(args, "groups", 1, 1, CONVND_MAX_CHANNELS);
    p->bias = sm_arg_bool(args, "bias", 1);
    convnd_check(p, args, 1);
}

static int conv_transpose2d_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                                  sm_error *err)
{
    return convnd_infer("conv_transpose2d", params, 2, 1, in, n_in, out, err);
}

static int conv_transpose2d_metrics(const void *params, const sm_shape *in, int n_in,
                                    const sm_shape *out, sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    return convnd_metrics("conv_transpose2d", params, 1, in, out, m, err);
}

static const sm_layer_type conv_transpose2d_type = {
    SM_LAYER_TYPE_INIT,
    .name = "conv_transpose2d",
    .summary = "transposed convolution over H and W (nn.ConvTranspose2d): out, kernel, stride, "
               "padding, output_padding, dilation, groups, bias",
    .params_size = sizeof(convnd_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = conv_transpose2d_parse,
    .infer = conv_transpose2d_infer,
    .metrics = conv_transpose2d_metrics,
    .traits = SM_TRAIT_CONVOLUTION | SM_TRAIT_MATMUL,
    /* the weight gradient needs the input (torch 1.13's saved tensors: input and weight) */
    .saved = sm_saved_input,
};

SM_DEFINE_PLUGIN(conv_transpose2d_type)
