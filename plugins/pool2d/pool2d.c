/*
 * maxpool2d and avgpool2d (nn.MaxPool2d, nn.AvgPool2d) on a per-sample C x H x W input; one
 * source, built twice: with SM_POOL_MAX for maxpool2d and SM_POOL_AVG for avgpool2d.
 *
 * Output size, as PyTorch computes it (aten/src/ATen/native/Pool.h, pooling_output_shape):
 *   Ho = floor((H + 2 ph - dh (kh - 1) - 1 + (ceil_mode ? sh - 1 : 0)) / sh) + 1
 *   and, in ceil_mode, Ho -= 1 when (Ho - 1) sh >= H + ph (the last window must start inside
 *   the input or its left padding).
 * padding must be at most half the kernel, undilated, as PyTorch requires (ATen's
 * pool2d_shape_check: kW/2 >= padW, whatever the dilation).
 *
 *   maxpool2d flops = (kh kw - 1) comparisons per output element
 *   avgpool2d flops = kh kw per output element (kh kw - 1 additions and one division)
 * avgpool2d has no dilation: it does not read the key, so the host reports it as unknown.
 */
#include <scalemeter/plugin.h>

#include "pool2d.h"

#if defined(SM_POOL_MAX) == defined(SM_POOL_AVG)
#error "build pool2d.c with exactly one of SM_POOL_MAX and SM_POOL_AVG"
#endif

#ifdef SM_POOL_MAX
#define POOL_NAME "maxpool2d"
#define POOL_SUMMARY                                                                               \
    "max pooling over H and W (nn.MaxPool2d): kernel, stride, padding, dilation, ceil_mode"
#else
#define POOL_NAME "avgpool2d"
#define POOL_SUMMARY                                                                               \
    "average pooling over H and W (nn.AvgPool2d): kernel, stride, padding, ceil_mode"
#endif

#define MAX_WINDOW ((int64_t)1 << 16)

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

static void pool2d_parse(void *params, sm_args *args)
{
    pool2d_params *p = params;
    sm_arg_pair(args, "kernel", SM_REQUIRED, 1, MAX_WINDOW, p->kernel);
    /* 0 stands for "absent": the stride then defaults to the kernel, as in PyTorch. */
    sm_arg_pair(args, "stride", 0, 1, MAX_WINDOW, p->stride);
    sm_arg_pair(args, "padding", 0, 0, MAX_WINDOW, p->padding);
#ifdef SM_POOL_MAX
    sm_arg_pair(args, "dilation", 1, 1, MAX_WINDOW, p->dilation);
#else
    p->dilation[0] = p->dilation[1] = 1;
#endif
    p->ceil_mode = sm_arg_bool(args, "ceil_mode", 0);
    for (int i = 0; i < 2; i++) {
        if (p->stride[i] == 0)
            p->stride[i] = p->kernel[i];
    }
    for (int i = 0; i < 2; i++) {
        if (p->kernel[i] < 1 || p->dilation[i] < 1 || p->padding[i] < 0)
            continue; /* already reported by the range check */
        /* the kernel as given, not its dilated span: maxpool2d kernel=3 padding=2 dilation=2
         * was taken, which nn.MaxPool2d refuses */
        if (p->padding[i] > p->kernel[i] / 2) {
            char msg[128], k[16], pd[16]; /* pairs of values <= 2^16 */
            snprintf(msg, sizeof msg,
                     "padding %s must be at most half the kernel %s%s (PyTorch's rule)",
                     pad_str(p->padding, pd, sizeof pd), pair_str(p->kernel, k, sizeof k),
                     (p->dilation[0] > 1 || p->dilation[1] > 1) ? ", whatever the dilation" : "");
            sm_arg_fail(args, msg);
            return;
        }
    }
}

static int pool2d_valid(const pool2d_params *p)
{
    for (int i = 0; i < 2; i++)
        if (p->kernel[i] < 1 || p->stride[i] < 1 || p->padding[i] < 0 || p->dilation[i] < 1)
            return 0;
    return 1;
}

/* Division rounding towards negative infinity (PyTorch's div_rtn); b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int pool2d_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                        sm_error *err)
{
    (void)n_in;
    const pool2d_params *p = params;
    char s[64];
    if (!pool2d_valid(p)) {
        sm_error_set(err, POOL_NAME " needs valid parameters");
        return -1;
    }
    if (in->ndim != 3) {
        sm_error_set(err, POOL_NAME " needs a CxHxW input, got %s", sm_shape_str(in, s, sizeof s));
        return -1;
    }
    int64_t padded[2], eff[2], o[2];
    for (int i = 0; i < 2; i++) {
        int64_t n = in->dim[1 + i];
        padded[i] = sm_add(n, sm_mul(2, p->padding[i]));
        eff[i] = p->dilation[i] * (p->kernel[i] - 1) + 1;
        int64_t num = sm_add(padded[i], p->ceil_mode ? p->stride[i] - 1 : 0);
        if (num == SM_OVERFLOW) {
            sm_error_set(err, "padded input overflows 64 bits (input %s)",
                         sm_shape_str(in, s, sizeof s));
            return -1;
        }
        o[i] = floor_div(num - eff[i], p->stride[i]) + 1;
        if (p->ceil_mode && (o[i] - 1) * p->stride[i] >= n + p->padding[i])
            o[i]--;
    }
    if (o[0] < 1 || o[1] < 1) {
        char k[24], pi[40], pd[16];
        sm_error_set(err, "%skernel %s larger than padded input %s (input %s, padding %s)",
                     (p->dilation[0] > 1 || p->dilation[1] > 1) ? "dilated " : "",
                     pair_str(eff, k, sizeof k), pair_str(padded, pi, sizeof pi),
                     sm_shape_str(in, s, sizeof s), pad_str(p->padding, pd, sizeof pd));
        return -1;
    }
    out->ndim = 3;
    out->dim[0] = in->dim[0];
    out->dim[1] = o[0];
    out->dim[2] = o[1];
    out->dim[3] = 0;
    return 0;
}

static int pool2d_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                          sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    const pool2d_params *p = params;
    (void)in;
    if (!pool2d_valid(p)) {
        sm_error_set(err, POOL_NAME " metrics called with unexpected parameters");
        return -1;
    }
    int64_t window = sm_mul(p->kernel[0], p->kernel[1]);
#ifdef SM_POOL_MAX
    int64_t per_output = window - 1; /* comparisons */
#else
    int64_t per_output = window; /* additions and the division */
#endif
    m->flops = sm_mul(sm_shape_elems(out), per_output);
    m->bwd_flops = m->flops;
    return 0;
}

/* Both keep the input (average pooling for its shape); max pooling its int64 indices too. */
static int pool2d_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                        sm_layer_saved *s, sm_error *err)
{
    (void)params;
    (void)in;
    (void)n_in;
    (void)err;
    s->inputs = 1;
#ifdef SM_POOL_MAX
    s->extra_bytes = sm_mul(8, sm_shape_elems(out));
#else
    (void)out;
#endif
    return 0;
}

static const sm_layer_type pool2d_type = {
    SM_LAYER_TYPE_INIT,        .name = POOL_NAME,
    .summary = POOL_SUMMARY,   .params_size = sizeof(pool2d_params),
    .min_inputs = 1,           .max_inputs = 1,
    .parse = pool2d_parse,     .infer = pool2d_infer,
    .metrics = pool2d_metrics, .traits = SM_TRAIT_POOLING,
    .saved = pool2d_saved,
};

SM_DEFINE_PLUGIN(pool2d_type)
