/*
 * swiglu: the SwiGLU feed-forward block of Llama (Hugging Face's LlamaMLP, Meta's
 * FeedForward), three projections without bias on the last dimension:
 *     y = down_proj(silu(gate_proj(x)) * up_proj(x))
 * gate_proj and up_proj E -> F, down_proj F -> E, with E the input's last dimension and
 * F = hidden. The output has the input's shape.
 *
 *   rows          = product of all dimensions but the last (S for a sequence)
 *   macs          = 3 rows E F
 *   flops         = 2 macs + 6 rows F  (silu: 5, as the silu plugin counts; the product: 1)
 *   matmul_flops  = 2 macs
 *   weights       = 3 E F, param_tensors = 3 (gate_proj, up_proj, down_proj weights)
 *   bwd_flops     = 2 flops (each product has an input and a weight gradient)
 *   bytes         = 4 rows (3 E + 8 F): what eager PyTorch's five kernels read and write, each
 *                   tensor once per kernel (weights apart): gate_proj and up_proj read x and
 *                   write F each, silu reads and writes F, the product reads 2 F and writes F,
 *                   down_proj reads F and writes E
 *   serial_bytes  = 4 rows 5 F: silu's and the product's, element-wise kernels between the
 *                   matrix products (plugin.h, ABI 6)
 *   linear products = 3 of matmul_flops, reading rows (E + F) elements (gate_proj and up_proj
 *                   the input, down_proj the product) and writing rows (2 F + E) (ABI 22)
 *   Both measured with tools/torch_eager_bytes.py (torch 1.13's aten ops under a
 *   TorchDispatchMode): LlamaMLP(8, 16) on 4 rows moves 1152 bytes in its three mm and 1280 in
 *   silu and mul, 2432 in all, as cases.ini checks.
 *
 * PyTorch check (torch 1.13, /usr/bin/python3): LlamaMLP(8, 6) as written in
 * tests/test_llama.c has 144 parameters in 3 tensors (48 each), and at x of 3x8 the profiler's
 * aten::mm FLOPs are 864 = 2 x 432 MACs = 2 x 3 x 3 x 8 x 6.
 *
 * What autograd keeps, observed with torch.autograd.graph.saved_tensors_hooks on that module
 * (the grad_fn of each packed tensor printed): x (3x8, by gate_proj and up_proj, one storage),
 * gate_proj's output (3x6, by silu), silu's output and up_proj's output (3x6 each, the product's
 * factors), the product (3x6, by down_proj), and the three weights (parameters): so per
 * sample, the input and 4 F per row of its own (96 elements for 3x8: 24 + 4 x 18).
 */
#include <scalemeter/plugin.h>

#include "swiglu.h"

#define MAX_HIDDEN ((int64_t)1 << 24)

static void swiglu_parse(void *params, sm_args *args)
{
    swiglu_params *p = params;
    p->hidden = sm_arg_int(args, "hidden", SM_REQUIRED, 1, MAX_HIDDEN);
}

static int swiglu_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                        sm_error *err)
{
    (void)n_in;
    (void)params;
    char s[64];
    if (in->ndim < 1 || in->dim[in->ndim - 1] < 1) {
        sm_error_set(err, "swiglu takes one input with a last dimension, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    return 0;
}

static int swiglu_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                          sm_layer_metrics *m, sm_error *err)
{
    const swiglu_params *p = params;
    (void)n_in, (void)out, (void)err;
    int64_t e = in->dim[in->ndim - 1], rows = sm_shape_elems(in) / e;
    int64_t ef = sm_mul(e, p->hidden);
    m->macs = sm_mul(3, sm_mul(rows, ef));
    m->matmul_flops = sm_mul(2, m->macs);
    m->flops = sm_add(m->matmul_flops, sm_mul(6, sm_mul(rows, p->hidden)));
    m->weights = sm_mul(3, ef);
    m->param_tensors = 3;
    m->bwd_flops = sm_mul(2, m->flops);
    int64_t f = sm_mul(rows, p->hidden);
    m->serial_bytes = sm_mul(20, f);
    m->bytes = sm_add(sm_mul(12, sm_mul(rows, e)), sm_mul(32, f));
    m->linear_products = 3;
    m->linear_flops = m->matmul_flops;
    m->linear_input_elems = sm_add(sm_mul(rows, e), f);
    m->linear_output_elems = sm_add(sm_mul(2, f), sm_mul(rows, e));
    return 0;
}

/* The input and 4 F per row: gate_proj's output, silu's, up_proj's, their product. Under
 * torchtitan's selective policy (plugin.h), in Llama's order of matrix products (gate_proj,
 * up_proj, down_proj, after attention's four): gate_proj's output (F per row) and down_proj's,
 * the output, are kept; up_proj (rows E F MACs) is recomputed with the element-wise rest. */
static int swiglu_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                        sm_layer_saved *s, sm_error *err)
{
    const swiglu_params *p = params;
    (void)n_in, (void)out, (void)err;
    int64_t rows = sm_shape_elems(&in[0]) / in[0].dim[in[0].ndim - 1];
    s->inputs = 1;
    s->extra_elems = sm_mul(4, sm_mul(rows, p->hidden));
    s->selective = 1;
    s->selective_output = 1;
    s->selective_elems = sm_mul(rows, p->hidden);
    s->selective_flops = sm_mul(2, sm_mul(rows, sm_mul(in[0].dim[in[0].ndim - 1], p->hidden)));
    return 0;
}

static const sm_layer_type swiglu_type = {
    SM_LAYER_TYPE_INIT,
    .name = "swiglu",
    .summary = "SwiGLU feed-forward, down(silu(gate(x)) * up(x)) without bias (Llama's MLP): "
               "hidden",
    .params_size = sizeof(swiglu_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = swiglu_parse,
    .infer = swiglu_infer,
    .metrics = swiglu_metrics,
    .traits = SM_TRAIT_MATMUL,
    .saved = swiglu_saved,
};

SM_DEFINE_PLUGIN(swiglu_type)
