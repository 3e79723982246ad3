/*
 * conv1d: convolution along a sequence as torch.nn.Conv1d defines it, on a per-sample C x L
 * input: out, kernel, stride, padding, dilation, groups, bias. Shapes and counts:
 * common/convnd.h (macs = out x Lo x C/groups x kernel). Its input and output elements count
 * towards ConvMeter's I and O, as a conv2d's do.
 */
#include "convnd.h"

static void conv1d_parse(void *params, sm_args *args)
{
    convnd_params *p = params;
    convnd_unit_axes(p, 1);
    p->out = sm_arg_int(args, "out", SM_REQUIRED, 1, CONVND_MAX_CHANNELS);
    p->kernel[2] = sm_arg_int(args, "kernel", SM_REQUIRED, 1, CONVND_MAX_WINDOW);
    p->stride[2] = sm_arg_int(args, "stride", 1, 1, CONVND_MAX_WINDOW);
    p->padding[2] = sm_arg_int(args, "padding", 0, 0, CONVND_MAX_WINDOW);
    p->dilation[2] = sm_arg_int(args, "dilation", 1, 1, CONVND_MAX_WINDOW);
    p->groups = sm_arg_int(args, "groups", 1, 1, CONVND_MAX_CHANNELS);
    p->bias = sm_arg_bool(args, "bias", 1);
    convnd_check(p, args, 0);
}

static int conv1d_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                        sm_error *err)
{
    return convnd_infer("conv1d", params, 1, 0, in, n_in, out, err);
}

static int conv1d_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                          sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    return convnd_metrics("conv1d", params, 0, in, out, m, err);
}

static const sm_layer_type conv1d_type = {
    SM_LAYER_TYPE_INIT,
    .name = "conv1d",
    .summary = "convolution along a sequence (nn.Conv1d, C x L): out, kernel, stride, padding, "
               "dilation, groups, bias",
    .params_size = sizeof(convnd_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = conv1d_parse,
    .infer = conv1d_infer,
    .metrics = conv1d_metrics,
    .traits = SM_TRAIT_CONVOLUTION | SM_TRAIT_MATMUL,
    /* the weight gradient needs the input (torch 1.13's saved tensors: input and weight) */
    .saved = sm_saved_input,
};

SM_DEFINE_PLUGIN(conv1d_type)
