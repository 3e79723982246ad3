/*
 * conv3d: convolution over depth, height and width as torch.nn.Conv3d defines it, on a
 * per-sample C x D x H x W input. kernel, stride, padding and dilation are given for H and W
 * ("3" or "3x5"); kernel_d, stride_d, padding_d and dilation_d for D default to the H value, so
 * that kernel=3 is a 3x3x3 cube. Shapes and counts: common/convnd.h (macs = out x Do x Ho x Wo x
 * C/groups x kd x kh x kw). Its input and output elements count towards ConvMeter's I and O.
 */
#include "convnd.h"

/* The depth value of key: key_d, or the height value when absent. */
static int64_t depth_of(sm_args *args, const char *key, int64_t height, int64_t lo)
{
    char k[32];
    snprintf(k, sizeof k, "%s_d", key);
    return sm_arg_int(args, k, height, lo, CONVND_MAX_WINDOW);
}

static void conv3d_parse(void *params, sm_args *args)
{
    convnd_params *p = params;
    int64_t v[2];
    p->out = sm_arg_int(args, "out", SM_REQUIRED, 1, CONVND_MAX_CHANNELS);
    sm_arg_pair(args, "kernel", SM_REQUIRED, 1, CONVND_MAX_WINDOW, v);
    p->kernel[1] = v[0], p->kernel[2] = v[1];
    p->kernel[0] = depth_of(args, "kernel", v[0], 1);
    sm_arg_pair(args, "stride", 1, 1, CONVND_MAX_WINDOW, v);
    p->stride[1] = v[0], p->stride[2] = v[1];
    p->stride[0] = depth_of(args, "stride", v[0], 1);
    sm_arg_pair(args, "padding", 0, 0, CONVND_MAX_WINDOW, v);
    p->padding[1] = v[0], p->padding[2] = v[1];
    p->padding[0] = depth_of(args, "padding", v[0], 0);
    sm_arg_pair(args, "dilation", 1, 1, CONVND_MAX_WINDOW, v);
    p->dilation[1] = v[0], p->dilation[2] = v[1];
    p->dilation[0] = depth_of(args, "dilation", v[0], 1);
    p->groups = sm_arg_int(args, "groups", 1, 1, CONVND_MAX_CHANNELS);
    p->bias = sm_arg_bool(args, "bias", 1);
    convnd_check(p, args, 0);
}

static int conv3d_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                        sm_error *err)
{
    return convnd_infer("conv3d", params, 3, 0, in, n_in, out, err);
}

static int conv3d_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                          sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    return convnd_metrics("conv3d", params, 0, in, out, m, err);
}

static const sm_layer_type conv3d_type = {
    SM_LAYER_TYPE_INIT,
    .name = "conv3d",
    .summary = "convolution over D, H and W (nn.Conv3d, C x D x H x W): out, kernel, stride, "
               "padding, dilation (HxW; *_d for D), groups, bias",
    .params_size = sizeof(convnd_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = conv3d_parse,
    .infer = conv3d_infer,
    .metrics = conv3d_metrics,
    .traits = SM_TRAIT_CONVOLUTION | SM_TRAIT_MATMUL,
    /* the weight gradient needs the input (torch 1.13's saved tensors: input and weight) */
    .saved = sm_saved_input,
};

SM_DEFINE_PLUGIN(conv3d_type)
