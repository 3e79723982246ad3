/*
 * linear: fully connected layer as torch.nn.Linear defines it. It applies to the last dimension:
 * [..., in] -> [..., out] (a vector of 768, or a sequence of 197x768).
 *
 *   rows    = product of all dimensions but the last
 *   macs    = rows * in * out
 *   flops   = 2 macs + (bias ? rows * out : 0)
 *   weights = in * out + (bias ? out : 0)
 *   bwd     = 2 flops (input gradient and weight gradient)
 *   bias_grad_elems = bias ? rows * out : 0 (the bias's gradient, the output's gradient summed
 *                     over the rows in a reduction kernel of its own: one sum)
 *   linear products = 1 of 2 macs FLOPs (the bias's additions apart), reading rows * in and
 *                     writing rows * out elements (what a float8 recipe runs in fp8 and casts:
 *                     plugin ABI 22)
 */
#include <scalemeter/plugin.h>

#include "linear.h"

#define MAX_FEATURES ((int64_t)1 << 24)

static void linear_parse(void *params, sm_args *args)
{
    linear_params *p = params;
    p->out = sm_arg_int(args, "out", SM_REQUIRED, 1, MAX_FEATURES);
    p->bias = sm_arg_bool(args, "bias", 1);
}

static int linear_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                        sm_error *err)
{
    (void)n_in;
    const linear_params *p = params;
    char s[64];
    if (p->out < 1) {
        sm_error_set(err, "linear needs out >= 1");
        return -1;
    }
    if (in->ndim < 1 || in->ndim > SM_MAX_DIMS) {
        sm_error_set(err, "linear needs an input of 1 to %d dimensions, got %s", SM_MAX_DIMS,
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    out->dim[in->ndim - 1] = p->out;
    return 0;
}

static int linear_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                          sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    const linear_params *p = params;
    (void)out;
    if (in->ndim < 1 || in->ndim > SM_MAX_DIMS) {
        sm_error_set(err, "linear metrics called with unexpected shapes");
        return -1;
    }
    int64_t features = in->dim[in->ndim - 1];
    int64_t rows = 1;
    for (int i = 0; i < in->ndim - 1; i++)
        rows = sm_mul(rows, in->dim[i]);
    m->macs = sm_mul(sm_mul(rows, features), p->out);
    m->flops = sm_add(sm_mul(2, m->macs), p->bias ? sm_mul(rows, p->out) : 0);
    m->weights = sm_add(sm_mul(features, p->out), p->bias ? p->out : 0);
    m->param_tensors = 1 + (p->bias ? 1 : 0);
    m->bwd_flops = sm_mul(2, m->flops);
    /* the bias's gradient: the output's gradient summed over the rows, a kernel of its own
     * (plugin ABI 20) */
    m->bias_grad_elems = p->bias ? sm_mul(rows, p->out) : 0;
    m->bias_grad_sums = p->bias ? 1 : 0;
    m->linear_products = 1;
    m->linear_flops = sm_mul(2, m->macs);
    m->linear_input_elems = sm_mul(rows, features);
    m->linear_output_elems = sm_mul(rows, p->out);
    if (m->flops == SM_OVERFLOW || m->weights == SM_OVERFLOW) {
        char si[64];
        sm_error_set(err, "%s overflows 64 bits (input %s, out %lld)",
                     m->flops == SM_OVERFLOW ? "multiply-accumulate count" : "weight count",
                     sm_shape_str(in, si, sizeof si), (long long)p->out);
        return -1;
    }
    return 0;
}

static const sm_layer_type linear_type = {
    SM_LAYER_TYPE_INIT,
    .name = "linear",
    .summary = "fully connected layer on the last dimension (nn.Linear): out, bias",
    .params_size = sizeof(linear_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = linear_parse,
    .infer = linear_infer,
    .metrics = linear_metrics,
    .traits = SM_TRAIT_MATMUL,
    /* the weight gradient needs the input */
    .saved = sm_saved_input,
};

SM_DEFINE_PLUGIN(linear_type)
