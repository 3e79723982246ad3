/*
 * attention: multi-head self-attention as torch.nn.MultiheadAttention computes it (query = key
 * = value = the input), input projection and output projection included. The per-sample input
 * is a sequence S x E with E = dim; the output is S x E. With h heads of d = E / h features:
 *
 *   projections   Q, K, V = x W_in^T + b_in          3 S E^2 MACs  (+ 3 S E bias adds)
 *   scaling       Q / sqrt(d)                        S E FLOPs
 *   scores        Q_i K_i^T for each head i          h S S d = S^2 E MACs
 *   softmax       over each row of h S x S scores    3 h S^2 FLOPs (exp, sum, divide, as the
 *                                                    softmax plugin counts)
 *   context       A_i V_i for each head i            h S S d = S^2 E MACs
 *   output        y = ctx W_out^T + b_out            S E^2 MACs    (+ S E bias adds)
 *
 *   macs          = 4 S E^2 + 2 S^2 E
 *   flops         = 2 macs + S E + 3 h S^2 + (bias ? 4 S E : 0)
 *   weights       = 4 E^2 + (bias ? 4 E : 0)
 *   param_tensors = packed: in_proj_weight, out_proj.weight (+ in_proj_bias, out_proj.bias)
 *                   = 2 (4 with bias), as nn.MultiheadAttention and GPT-2's c_attn/c_proj;
 *                   packed=false: query, key, value, output weights (+ 4 biases) = 4 (8), as
 *                   BERT's separate nn.Linear layers. The counts above are the same either way.
 *   bwd_flops     = 2 flops (each product has two gradients: of the input and of the weight,
 *                   or of both activation operands for the scores and the context)
 *   bytes         = 4 (20 S E + 4 h S^2): the activations PyTorch 1.13's composite path
 *                   writes and reads, each once: x read and Q,K,V written (4 S E), Q,K,V made
 *                   contiguous per head (6 S E), Q scaled (2 S E), Q and K read and scores
 *                   written (2 S E + h S^2), softmax (2 h S^2), scores and V read and context
 *                   written (h S^2 + 2 S E), context made contiguous (2 S E), output
 *                   projection (2 S E).
 *
 * causal=true (GPT-2's mask) changes no count: PyTorch and HF compute all S x S scores densely
 * and then mask the upper triangle (an additive -inf mask fused into the score product, or a
 * torch.where), so nothing is halved. The mask application itself (h S^2 selects) is left out,
 * as the dropout on the attention weights is. The key is read so network files can say what
 * the model does.
 */
#include <scalemeter/plugin.h>

#include "attention.h"

#define MAX_DIM ((int64_t)1 << 24)

static void attention_parse(void *params, sm_args *args)
{
    attention_params *p = params;
    p->dim = sm_arg_int(args, "dim", SM_REQUIRED, 1, MAX_DIM);
    p->heads = sm_arg_int(args, "heads", SM_REQUIRED, 1, MAX_DIM);
    p->bias = sm_arg_bool(args, "bias", 1);
    p->causal = sm_arg_bool(args, "causal", 0);
    p->packed = sm_arg_bool(args, "packed", 1);
    if (p->dim >= 1 && p->heads >= 1 && p->dim % p->heads != 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "dim %lld is not divisible by heads %lld", (long long)p->dim,
                 (long long)p->heads);
        sm_arg_fail(args, msg);
    }
}

static int attention_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                           sm_error *err)
{
    const attention_params *p = params;
    char s[64];
    if (n_in != 1 || p->dim < 1 || p->heads < 1 || p->dim % p->heads != 0) {
        sm_error_set(err, "attention takes one input, dim >= 1 and heads dividing dim");
        return -1;
    }
    if (in->ndim != 2) {
        sm_error_set(err, "attention needs a sequence S x E, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (in->dim[1] != p->dim) {
        sm_error_set(err, "input %s has %lld features, attention has dim %lld",
                     sm_shape_str(in, s, sizeof s), (long long)in->dim[1], (long long)p->dim);
        return -1;
    }
    *out = *in;
    return 0;
}

static int attention_metrics(const void *params, const sm_shape *in, int n_in,
                             const sm_shape *out, sm_layer_metrics *m, sm_error *err)
{
    const attention_params *p = params;
    (void)out;
    if (n_in != 1 || in->ndim != 2 || in->dim[1] != p->dim) {
        sm_error_set(err, "attention metrics called with unexpected shapes");
        return -1;
    }
    int64_t s = in->dim[0], e = p->dim, h = p->heads;
    int64_t se = sm_mul(s, e);
    int64_t hss = sm_mul(h, sm_mul(s, s));
    int64_t proj = sm_mul(4, sm_mul(se, e));       /* Q, K, V and output projections */
    int64_t mix = sm_mul(2, sm_mul(sm_mul(s, s), e)); /* scores and context */
    m->macs = sm_add(proj, mix);
    m->flops = sm_add(sm_add(sm_mul(2, m->macs), se), sm_mul(3, hss));
    if (p->bias)
        m->flops = sm_add(m->flops, sm_mul(4, se));
    m->weights = sm_add(sm_mul(4, sm_mul(e, e)), p->bias ? sm_mul(4, e) : 0);
    m->param_tensors = (p->packed ? 2 : 4) * (p->bias ? 2 : 1);
    m->bytes = sm_mul(4, sm_add(sm_mul(20, se), sm_mul(4, hss)));
    m->bwd_flops = sm_mul(2, m->flops);
    return 0;
}

/* CPU kernels: attention_cpu.c. */
extern const struct sm_cpu_kernels attention_cpu_kernels;

static const sm_layer_type attention_type = {
    SM_LAYER_TYPE_INIT,
    .name = "attention",
    .summary = "multi-head self-attention with its projections (nn.MultiheadAttention): dim, "
               "heads, bias, causal, packed",
    .params_size = sizeof(attention_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = attention_parse,
    .infer = attention_infer,
    .metrics = attention_metrics,
    .cpu = &attention_cpu_kernels,
};

SM_DEFINE_PLUGIN(attention_type)
