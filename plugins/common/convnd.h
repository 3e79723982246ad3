/*
 * Shapes and counts of the convolutions conv1d, conv3d and conv_transpose2d, as nn.Conv1d,
 * nn.Conv3d and nn.ConvTranspose2d define them; their descriptors call these. Per spatial axis:
 *
 *   convolution   o = floor((i + 2 p - d (k - 1) - 1) / s) + 1
 *   transposed    o = (i - 1) s - 2 p + d (k - 1) + output_padding + 1
 *
 *   macs    = (narrow side's elements) x (wide side's channels / groups) x taps
 *             (a convolution's narrow side is its output, a transposed one's its input: each
 *             of its elements meets every tap of its group's channels, as fvcore counts)
 *   flops   = 2 macs + (bias ? output elements : 0)
 *   weights = C_in x C_out / groups x taps + (bias ? C_out : 0)
 *   bwd     = 2 flops (input and weight gradients)
 */
#ifndef SCALEMETER_PLUGINS_CONVND_H
#define SCALEMETER_PLUGINS_CONVND_H

#include <scalemeter/plugin.h>

#include "conv_bias_kernels.h"
#include "conv_direct.h"

#define CONVND_MAX_CHANNELS ((int64_t)1 << 24)
#define CONVND_MAX_WINDOW ((int64_t)1 << 16)

/* Sets the unused leading axes (3 - nd of them) to a unit kernel. */
static inline void convnd_unit_axes(convnd_params *p, int nd)
{
    for (int i = 0; i < 3 - nd; i++) {
        p->kernel[i] = p->stride[i] = p->dilation[i] = 1;
        p->padding[i] = p->output_padding[i] = 0;
    }
}

/* The checks every parse ends with: out divisible by groups, and for a transposed convolution
 * an output padding below the stride or the dilation (PyTorch's rule). */
static inline void convnd_check(convnd_params *p, sm_args *args, int transposed)
{
    char msg[128];
    if (p->out >= 1 && p->groups >= 1 && p->out % p->groups != 0) {
        snprintf(msg, sizeof msg, "out %lld is not divisible by groups %lld", (long long)p->out,
                 (long long)p->groups);
        sm_arg_fail(args, msg);
        return;
    }
    for (int i = 0; transposed && i < 3; i++)
        if (p->output_padding[i] >= p->stride[i] && p->output_padding[i] >= p->dilation[i]) {
            snprintf(msg, sizeof msg,
                     "output_padding %lld must be smaller than the stride %lld or the "
                     "dilation %lld",
                     (long long)p->output_padding[i], (long long)p->stride[i],
                     (long long)p->dilation[i]);
            sm_arg_fail(args, msg);
            return;
        }
}

static inline int convnd_infer(const char *name, const convnd_params *p, int nd, int transposed,
                               const sm_shape *in, int n_in, sm_shape *out, sm_error *err)
{
    (void)n_in;
    char s[64];
    if (in->ndim != nd + 1) {
        sm_error_set(err, "%s needs a %s input, got %s", name,
                     nd == 1   ? "CxL"
                     : nd == 2 ? "CxHxW"
                               : "CxDxHxW",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (p->groups < 1 || p->out < 1 || in->dim[0] % p->groups != 0) {
        sm_error_set(err, "input channels %lld are not divisible by groups %lld (input %s)",
                     (long long)in->dim[0], (long long)p->groups, sm_shape_str(in, s, sizeof s));
        return -1;
    }
    out->ndim = nd + 1;
    out->dim[0] = p->out;
    for (int a = 0; a < nd; a++) {
        int i = 3 - nd + a;
        int64_t len = in->dim[1 + a], span = p->dilation[i] * (p->kernel[i] - 1) + 1, o;
        if (transposed) {
            o = sm_add(sm_add(sm_mul(len - 1, p->stride[i]), span + p->output_padding[i]),
                       -2 * p->padding[i]);
        } else {
            int64_t padded = sm_add(len, 2 * p->padding[i]);
            o = padded == SM_OVERFLOW || padded < span ? 0 : (padded - span) / p->stride[i] + 1;
        }
        if (o == SM_OVERFLOW || o < 1) {
            sm_error_set(err,
                         "%s: kernel %lld (dilation %lld, padding %lld) leaves no output along "
                         "axis %d of input %s",
                         name, (long long)p->kernel[i], (long long)p->dilation[i],
                         (long long)p->padding[i], a + 1, sm_shape_str(in, s, sizeof s));
            return -1;
        }
        out->dim[1 + a] = o;
    }
    for (int a = nd + 1; a < SM_MAX_DIMS; a++)
        out->dim[a] = 0;
    return 0;
}

static inline int convnd_metrics(const char *name, const convnd_params *p, int transposed,
                                 const sm_shape *in, const sm_shape *out, sm_layer_metrics *m,
                                 sm_error *err)
{
    int64_t taps = sm_mul(sm_mul(p->kernel[0], p->kernel[1]), p->kernel[2]);
    int64_t cin = in->dim[0], cout = out->dim[0];
    int64_t outs = sm_shape_elems(out);
    const sm_shape *narrow = transposed ? in : out;
    int64_t wide_per_group = (transposed ? cout : cin) / p->groups;
    m->macs = sm_mul(sm_mul(sm_shape_elems(narrow), wide_per_group), taps);
    m->flops = sm_add(sm_mul(2, m->macs), p->bias ? outs : 0);
    m->weights = sm_add(sm_mul(sm_mul(cin, cout / p->groups), taps), p->bias ? cout : 0);
    m->param_tensors = 1 + (p->bias ? 1 : 0);
    m->bwd_flops = sm_mul(2, m->flops);
    m->counts_io = 1;
    /* ABI 14: a grouped or depthwise convolution runs in direct kernels, not as products */
    m->group_channels = p->groups > 1 ? cin / p->groups : 0;
    conv_bias_kernels(p->bias, transposed, p->groups, cin, m);
    if (m->flops == SM_OVERFLOW || m->weights == SM_OVERFLOW) {
        char si[64];
        sm_error_set(err, "%s: %s overflows 64 bits (input %s)", name,
                     m->flops == SM_OVERFLOW ? "multiply-accumulate count" : "weight count",
                     sm_shape_str(in, si, sizeof si));
        return -1;
    }
    return 0;
}

#endif /* SCALEMETER_PLUGINS_CONVND_H */
