/*
 * conv2d: 2-D convolution as torch.nn.Conv2d defines it, on a per-sample C x H x W input.
 *
 *   Ho = floor((H + 2 ph - dh (kh - 1) - 1) / sh) + 1          (Wo likewise)
 *   macs    = out * Ho * Wo * (C / groups) * kh * kw
 *   flops   = 2 macs + (bias ? out * Ho * Wo : 0)
 *   weights = out * (C / groups) * kh * kw + (bias ? out : 0)
 *   bwd     = 2 flops (input gradient and weight gradient)
 *   kernels = with bias, 2 forward (1 depthwise) and 2 backward: eager PyTorch's bias addition
 *             and bias gradient run apart from cuDNN
 *
 * Its input and output elements count towards ConvMeter's I and O; with groups > 1 it
 * declares its C / groups input channels per group (group_channels).
 */
#include <scalemeter/plugin.h>

#include "conv2d.h"
#include "conv_bias_kernels.h"
#include "view_metrics.h"

#define MAX_CHANNELS ((int64_t)1 << 24)
#define MAX_WINDOW ((int64_t)1 << 16)

static void conv2d_parse(void *params, sm_args *args)
{
    conv2d_params *p = params;
    p->out = sm_arg_int(args, "out", SM_REQUIRED, 1, MAX_CHANNELS);
    sm_arg_pair(args, "kernel", SM_REQUIRED, 1, MAX_WINDOW, p->kernel);
    sm_arg_pair(args, "stride", 1, 1, MAX_WINDOW, p->stride);
    sm_arg_pair(args, "padding", 0, 0, MAX_WINDOW, p->padding);
    sm_arg_pair(args, "dilation", 1, 1, MAX_WINDOW, p->dilation);
    p->groups = sm_arg_int(args, "groups", 1, 1, MAX_CHANNELS);
    p->bias = sm_arg_bool(args, "bias", 1);
    if (p->out >= 1 && p->groups >= 1 && p->out % p->groups != 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "out %lld is not divisible by groups %lld", (long long)p->out,
                 (long long)p->groups);
        sm_arg_fail(args, msg);
    }
}

static int conv2d_valid(const conv2d_params *p)
{
    for (int i = 0; i < 2; i++)
        if (p->kernel[i] < 1 || p->stride[i] < 1 || p->padding[i] < 0 || p->dilation[i] < 1)
            return 0;
    return p->out >= 1 && p->groups >= 1;
}

static const char *pair_str(const int64_t v[2], char *buf, size_t len)
{
    /* Truncation is harmless here; the check keeps -Wformat-truncation quiet at -O3. */
    if (snprintf(buf, len, "%lldx%lld", (long long)v[0], (long long)v[1]) < 0)
        buf[0] = '\0';
    return buf;
}

/* A padding as the network file would write it: "1" when both sides agree, else "1x2". */
static const char *pad_str(const int64_t v[2], char *buf, size_t len)
{
    if (v[0] != v[1])
        return pair_str(v, buf, len);
    if (snprintf(buf, len, "%lld", (long long)v[0]) < 0)
        buf[0] = '\0';
    return buf;
}

static int conv2d_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                        sm_error *err)
{
    (void)n_in;
    const conv2d_params *p = params;
    char s[64];
    if (!conv2d_valid(p)) {
        sm_error_set(err, "conv2d parameters are invalid");
        return -1;
    }
    if (in->ndim != 3) {
        sm_error_set(err, "conv2d needs a CxHxW input, got %s", sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (in->dim[0] % p->groups != 0) {
        sm_error_set(err, "input channels %lld are not divisible by groups %lld (input %s)",
                     (long long)in->dim[0], (long long)p->groups, sm_shape_str(in, s, sizeof s));
        return -1;
    }
    int64_t padded[2], eff[2], o[2];
    for (int i = 0; i < 2; i++) {
        padded[i] = sm_add(in->dim[1 + i], sm_mul(2, p->padding[i]));
        eff[i] = p->dilation[i] * (p->kernel[i] - 1) + 1; /* both <= 2^16: no overflow */
        if (padded[i] == SM_OVERFLOW) {
            sm_error_set(err, "padded input overflows 64 bits (input %s)",
                         sm_shape_str(in, s, sizeof s));
            return -1;
        }
    }
    if (padded[0] < eff[0] || padded[1] < eff[1]) {
        /* kernel, padding and dilation are at most 2^16, so their pairs fit in 16 bytes and the
         * dilated span in 24; padded sizes are any int64. */
        char k[16], dl[16], pd[16], ek[24], pi[40];
        if (p->dilation[0] == 1 && p->dilation[1] == 1)
            sm_error_set(err, "kernel %s larger than padded input %s (input %s, padding %s)",
                         pair_str(p->kernel, k, sizeof k), pair_str(padded, pi, sizeof pi),
                         sm_shape_str(in, s, sizeof s), pad_str(p->padding, pd, sizeof pd));
        else
            sm_error_set(err,
                         "kernel %s dilated %s spans %s, larger than padded input %s "
                         "(input %s, padding %s)",
                         pair_str(p->kernel, k, sizeof k), pair_str(p->dilation, dl, sizeof dl),
                         pair_str(eff, ek, sizeof ek), pair_str(padded, pi, sizeof pi),
                         sm_shape_str(in, s, sizeof s), pad_str(p->padding, pd, sizeof pd));
        return -1;
    }
    for (int i = 0; i < 2; i++)
        o[i] = (padded[i] - eff[i]) / p->stride[i] + 1;
    out->ndim = 3;
    out->dim[0] = p->out;
    out->dim[1] = o[0];
    out->dim[2] = o[1];
    out->dim[3] = 0;
    return 0;
}

static int conv2d_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                          sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    const conv2d_params *p = params;
    if (in->ndim != 3 || out->ndim != 3 || !conv2d_valid(p)) {
        sm_error_set(err, "conv2d metrics called with unexpected shapes");
        return -1;
    }
    int64_t cg = in->dim[0] / p->groups;
    int64_t spatial = sm_mul(out->dim[1], out->dim[2]);
    int64_t kk = sm_mul(p->kernel[0], p->kernel[1]);
    int64_t outs = sm_mul(p->out, spatial); /* output elements */
    m->macs = sm_mul(sm_mul(outs, cg), kk);
    m->flops = sm_add(sm_mul(2, m->macs), p->bias ? outs : 0);
    m->weights = sm_add(sm_mul(sm_mul(p->out, cg), kk), p->bias ? p->out : 0);
    m->param_tensors = 1 + (p->bias ? 1 : 0);
    m->bwd_flops = sm_mul(2, m->flops);
    m->counts_io = 1;
    /* ABI 14: a grouped or depthwise convolution runs in direct kernels, not as products */
    m->group_channels = p->groups > 1 ? cg : 0;
    conv_bias_kernels(p->bias, 0, p->groups, in->dim[0], m);
    if (m->flops == SM_OVERFLOW || m->weights == SM_OVERFLOW) {
        char si[64], so[64], k[16];
        sm_error_set(err, "%s overflows 64 bits (input %s, output %s, kernel %s)",
                     m->flops == SM_OVERFLOW ? "multiply-accumulate count" : "weight count",
                     sm_shape_str(in, si, sizeof si), sm_shape_str(out, so, sizeof so),
                     pair_str(p->kernel, k, sizeof k));
        return -1;
    }
    return 0;
}

/* cuDNN keeps a channels-last input's layout in its output (PyTorch's
 * cudnn_conv_suggest_memory_format): a C x H x W input whose channels are adjacent (ABI 14).
 */
static int conv2d_strides(const void *params, const sm_shape *in, const int64_t *in_strides,
                          const sm_shape *out, int64_t *out_strides)
{
    (void)params;
    if (sm_steps_channels_last(in, in_strides))
        channels_last_strides(out, out_strides);
    return 0;
}

static const sm_layer_type conv2d_type = {
    SM_LAYER_TYPE_INIT,
    .name = "conv2d",
    .summary = "convolution over H and W (nn.Conv2d): out, kernel, stride, padding, dilation, "
               "groups, bias",
    .params_size = sizeof(conv2d_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = conv2d_parse,
    .infer = conv2d_infer,
    .metrics = conv2d_metrics,
    .traits = SM_TRAIT_CONVOLUTION | SM_TRAIT_MATMUL,
    /* the weight gradient needs the input */
    .saved = sm_saved_input,
    .view_strides = conv2d_strides,
};

SM_DEFINE_PLUGIN(conv2d_type)
