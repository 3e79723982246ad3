/*
 * gqa_attention: Llama's self-attention (Hugging Face's LlamaAttention, Meta's Attention):
 * grouped-query attention, where kv_heads key/value heads serve heads query heads (heads /
 * kv_heads each; kv_heads = heads is multi-head attention, 1 multi-query), with rotary position
 * embeddings (RoPE, as rope_form writes them) on the queries and keys, a causal mask, and four
 * projections without bias. The per-sample input is a sequence S x E, E = dim; the output has
 * its shape. With h = heads, kv = kv_heads, d = E / h and kvE = kv d, per sequence:
 *
 *   projections   Q = x W_q^T                        S E^2 MACs
 *                 K, V = x W_k^T, x W_v^T            2 S E kvE MACs
 *   rotary        q cos + rotate_half(q) sin         3 S (E + kvE) FLOPs (on Q and K)
 *   scores        Q_j K_{j/(h/kv)}^T for each head   h S^2 d = S^2 E MACs
 *   scaling       scores * d^-1/2                    h S^2 FLOPs
 *   mask          scores + causal mask (causal)      h S^2 FLOPs
 *   softmax       over each row of h S x S scores    3 h S^2 FLOPs (as attention counts it)
 *   context       A_j V_{j/(h/kv)}                   S^2 E MACs
 *   output        y = ctx W_o^T                      S E^2 MACs
 *
 *   macs          = 2 S E^2 + 2 S E kvE + 2 S^2 E
 *   flops         = 2 macs + (causal ? 5 : 4) h S^2 + (rope_theta ? 3 S (E + kvE) : 0)
 *   matmul_flops  = 2 macs
 *   weights       = 2 E^2 + 2 E kvE, param_tensors = 4 (q_proj, k_proj, v_proj, o_proj)
 *   bwd_flops     = 2 flops
 *   bytes         = 4 (10 S E + 8 S kvE + 6 h S^2 + (causal ? 2 h S^2 + S^2 : 0)): attention's
 *                   count with scale_on=scores mask=additive, the key and value side at kvE
 *                   features, + rope below
 *
 * Hugging Face's eager_attention_forward and Meta's reference code both scale the scores, not
 * the queries, and add the causal mask to them: element-wise kernels over every score
 * (scores_passes_fwd 2, or 1 without the mask; backward 1, the scaling's: the addition's
 * gradient is the scores'), which a fused kernel does on chip. The mask's addition reads an S x
 * S mask broadcast over the batch and the heads (scores_broadcast_passes 1, ABI 18). Both compute
 * the softmax in fp32 and cast the probabilities back, as softmax says: dtype_float32 (the
 * default), Hugging Face's softmax(scores, dtype=torch.float32).to(q.dtype); float, Meta's
 * softmax(scores.float()).type_as(xq); native, at the activations' precision. At bf16 either
 * fp32 form moves 16 bytes more per score forward and 18 backward and keeps its fp32 result
 * beside the bf16 one (4 bytes; tools/torch_rope_bytes.py --softmax), which the host prices
 * from scores_softmax (plugin.h, ABI 8) and drops under a fused kernel.
 *
 * impl=sdpa: the code calls scaled_dot_product_attention on the rotated, repeated Q, K and V
 * (Hugging Face's default attention, "sdpa", on PyTorch 2.1.1 and later since transformers
 * 4.36, huggingface/transformers#28005): the layer is a fused kernel's wherever the framework does
 * not run attention of its own (plugin.h's scores_fused). impl=eager (the default):
 * eager_attention_forward, above.
 *
 * The rotation is element-wise kernels of its own between the projections and the scores
 * (serial_bytes), as eager PyTorch writes it. Per sequence, with N = S (E + kvE) rotated
 * elements, forward, at fp32 (tools/torch_rope_bytes.py: PyTorch's ops on q and k):
 *   rope_form=rotate_half  q cos, rotate_half (neg, cat), its sin product, the sum:
 *                          40 N + 16 S d bytes; at bf16 exactly half (cos and sin at bf16)
 *   rope_form=complex      one complex product by freqs_cis (complex64): 8 N + 8 S d bytes;
 *                          at bf16 x.float() and .type_as(x) around it in fp32, 20 N + 8 S d:
 *                          upcast_bytes 16 N + 4 S d
 * The backward pass moves 56 N + 16 S d (rotate_half) and about its forward's bytes (complex)
 * where the host's doubling gives twice the forward's: the convention of every plugin.
 *
 * PyTorch check (torch 1.13, /usr/bin/python3): nn.Linear(8, 8), nn.Linear(8, 4) twice and
 * nn.Linear(8, 8), bias=False (E 8, 4 heads, 2 KV heads, d 2: LlamaAttention's projections)
 * hold 64 + 32 + 32 + 64 = 192 parameters in 4 tensors, what tests/test_llama.c asserts.
 *
 * causal=true (the default) computes every score and adds the mask, as Hugging Face does;
 * causal=false adds none. rope_theta = 0 leaves positions out (no rotation). rope_form says
 * how the rotation is written (gqa_attention.h: rotate_half, Hugging Face's, the default;
 * complex, Meta's reference code's and torchtitan's); it pairs the features differently and
 * moves different bytes, the FLOPs are the same. max_len is the longest sequence the rotary
 * table is built for (Llama 3.1's max_position_embeddings, 131072): a longer input is
 * refused, as pos_embedding refuses one longer than its table. rope_theta is read as a number
 * for the kernels; no count depends on its value.
 */
#include <scalemeter/plugin.h>

#include "gqa_attention.h"

#define MAX_DIM ((int64_t)1 << 24)

static void gqa_parse(void *params, sm_args *args)
{
    gqa_params *p = params;
    p->dim = sm_arg_int(args, "dim", SM_REQUIRED, 1, MAX_DIM);
    p->heads = sm_arg_int(args, "heads", SM_REQUIRED, 1, MAX_DIM);
    p->kv_heads = sm_arg_int(args, "kv_heads", p->heads, 1, MAX_DIM);
    p->rope_theta = sm_arg_real(args, "rope_theta", 10000, 0, 1e12);
    p->max_len = sm_arg_int(args, "max_len", 0, 0, (int64_t)1 << 40);
    p->causal = sm_arg_bool(args, "causal", 1);
    static const char *const forms[] = {"rotate_half", "complex", NULL};
    p->rope_form = sm_arg_choice(args, "rope_form", forms, GQA_ROPE_ROTATE_HALF);
    static const char *const softmaxes[] = {"native", "float", "dtype_float32", NULL};
    p->softmax = sm_arg_choice(args, "softmax", softmaxes, SM_SOFTMAX_DTYPE);
    static const char *const impls[] = {"eager", "sdpa", NULL};
    p->sdpa = sm_arg_choice(args, "impl", impls, 0);
    p->kv_cache = sm_arg_bool(args, "kv_cache", 0);
    char msg[128];
    if (p->dim >= 1 && p->heads >= 1 && p->dim % p->heads != 0) {
        snprintf(msg, sizeof msg, "dim %lld is not divisible by heads %lld", (long long)p->dim,
                 (long long)p->heads);
        sm_arg_fail(args, msg);
    } else if (p->heads >= 1 && p->kv_heads >= 1 && p->heads % p->kv_heads != 0) {
        snprintf(msg, sizeof msg, "heads %lld is not divisible by kv_heads %lld",
                 (long long)p->heads, (long long)p->kv_heads);
        sm_arg_fail(args, msg);
    } else if (p->rope_theta > 0 && p->dim >= 1 && p->heads >= 1 && (p->dim / p->heads) % 2) {
        snprintf(msg, sizeof msg, "rotary embeddings need an even head size, got %lld",
                 (long long)(p->dim / p->heads));
        sm_arg_fail(args, msg);
    }
}

static int gqa_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err)
{
    (void)n_in;
    const gqa_params *p = params;
    char s[64];
    if (p->dim < 1 || p->heads < 1 || p->kv_heads < 1 || p->dim % p->heads ||
        p->heads % p->kv_heads) {
        sm_error_set(err, "gqa_attention needs heads dividing dim, kv_heads heads");
        return -1;
    }
    if (in->ndim != 2 || in->dim[1] != p->dim) {
        sm_error_set(err, "gqa_attention needs a sequence S x %lld, got %s", (long long)p->dim,
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (p->max_len && in->dim[0] > p->max_len) {
        sm_error_set(err, "sequence of %lld positions is longer than max_len %lld (input %s)",
                     (long long)in->dim[0], (long long)p->max_len, sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    return 0;
}

static int gqa_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                       sm_layer_metrics *m, sm_error *err)
{
    const gqa_params *p = params;
    sm_shape checked;
    (void)out;
    if (gqa_infer(params, in, n_in, &checked, err))
        return -1;
    int64_t s = in->dim[0], e = p->dim, h = p->heads, ekv = p->kv_heads * (e / h);
    int64_t se = sm_mul(s, e), skv = sm_mul(s, ekv), hss = sm_mul(h, sm_mul(s, s));
    int64_t macs = sm_add(sm_add(sm_mul(2, sm_mul(se, e)), sm_mul(2, sm_mul(se, ekv))),
                          sm_mul(2, sm_mul(se, s)));
    int64_t flops = sm_add(sm_mul(2, macs), sm_mul(4, hss));
    int64_t elems = sm_add(sm_add(sm_mul(10, se), sm_mul(8, skv)), sm_mul(6, hss));
    int passes_fwd = 1;
    if (p->causal) {
        flops = sm_add(flops, hss);
        elems = sm_add(elems, sm_add(sm_mul(2, hss), sm_mul(s, s)));
        passes_fwd++;
    }
    if (p->rope_theta > 0)
        flops = sm_add(flops, sm_mul(3, sm_add(se, skv)));
    m->macs = macs;
    m->flops = flops;
    m->matmul_flops = sm_mul(2, macs);
    m->bwd_flops = sm_mul(2, flops);
    m->bytes = sm_mul(4, elems);
    if (p->rope_theta > 0) {
        int64_t n = sm_add(se, skv), sd = sm_mul(s, e / h);
        int cplx = p->rope_form == GQA_ROPE_COMPLEX;
        m->serial_bytes =
            cplx ? sm_add(sm_mul(8, n), sm_mul(8, sd)) : sm_add(sm_mul(40, n), sm_mul(16, sd));
        m->upcast_bytes = cplx ? sm_add(sm_mul(16, n), sm_mul(4, sd)) : 0;
        m->bytes = sm_add(m->bytes, m->serial_bytes);
    }
    /* written, softmaxed (2), read, and a read and a write per pass */
    m->scores_bytes = sm_mul(4 * (4 + 2 * passes_fwd), hss);
    m->scores_passes_fwd = passes_fwd;
    /* the causal mask, S x S, is read broadcast over the batch and the heads (ABI 18) */
    m->scores_broadcast_passes = p->causal;
    m->scores_passes_bwd = 1;
    m->scores_softmax = p->softmax;
    m->scores_fused = p->sdpa;
    m->scores_flops = sm_mul(2, sm_mul(se, s)); /* Q K^T: S^2 E MACs */
    m->weights = sm_add(sm_mul(2, sm_mul(e, e)), sm_mul(2, sm_mul(e, ekv)));
    m->param_tensors = 4;
    /* q_proj, k_proj and v_proj read the input, o_proj the context (2 S E), in 2 (2 S E^2 + 2 S
     * E kvE) FLOPs; they write Q (S E), K and V (S kvE each) and the output (plugin ABI 22) */
    m->linear_products = 4;
    m->linear_flops = sm_mul(2, sm_add(sm_mul(2, sm_mul(se, e)), sm_mul(2, sm_mul(se, ekv))));
    m->linear_input_elems = sm_mul(2, se);
    m->linear_output_elems = sm_mul(2, sm_add(se, skv));
    return 0;
}

/* What training keeps per sequence in Hugging Face's eager LlamaAttention, as
 * torch.autograd.graph.saved_tensors_hooks records it (tools/torch_rope_bytes.py --saved): the
 * input (shared by the three projections), the rotated Q (the score product's operand), K and V
 * repeated to h heads by repeat_kv (S E each: the score and context products), the softmax's
 * result (h S^2) and the context made contiguous for o_proj (S E): 4 S E + h S^2, with
 * rotary embeddings or without. The rotation keeps only its tables (a product by a tensor that
 * needs no gradient keeps that tensor alone): cos and sin, which Hugging Face computes once per
 * forward pass for every layer, and freqs_cis, a buffer of the model; neither is counted here
 * (4 S d bytes at bf16 for the whole network); the fp32 probabilities of the softmax at
 * fp16 and bf16 are the host's (scores_softmax, above). A fused kernel
 * (scaled_dot_product_attention, as torchtitan and Hugging Face's sdpa attention call it) keeps the
 * same operands and output and the fp32 log-sum-exp of each of the h S rows instead of the
 * probabilities. With kv_cache an inference pass keeps the rotated keys and the values to its
 * end, before repeat_kv, as Hugging Face's LlamaAttention returns them: 2 S E_kv. */
static int gqa_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                     sm_layer_saved *s, sm_error *err)
{
    const gqa_params *p = params;
    (void)n_in, (void)out, (void)err;
    int64_t len = in[0].dim[0], e = p->dim, d = e / p->heads, ekv = p->kv_heads * d;
    int64_t own = sm_mul(4, sm_mul(len, e));
    s->inputs = 1;
    s->extra_elems = sm_add(own, sm_mul(p->heads, sm_mul(len, len)));
    s->scores_elems = sm_mul(p->heads, sm_mul(len, len));
    s->fused_bytes = sm_mul(4, sm_mul(p->heads, len));
    s->infer_kept_elems = p->kv_cache ? sm_mul(2, sm_mul(len, ekv)) : 0;
    /* torchtitan's selective policy (plugin.h) keeps the outputs of q_proj and v_proj (the
     * first and third matrix products) and the attention kernel's (its output and log-sum-exp)
     * and recomputes k_proj, o_proj and the rotations; with eager attention its softmax is
     * recomputed as well, so the same is kept */
    s->selective = 1;
    s->selective_elems = sm_add(sm_mul(2, sm_mul(len, e)), sm_mul(len, ekv));
    s->selective_bytes = s->fused_bytes;
    s->selective_flops =
        sm_add(sm_mul(2, sm_mul(len, sm_mul(e, ekv))), sm_mul(2, sm_mul(len, sm_mul(e, e))));
    return 0;
}

static const sm_layer_type gqa_attention_type = {
    SM_LAYER_TYPE_INIT,
    .name = "gqa_attention",
    .summary = "grouped-query causal self-attention with rotary positions, no bias (Llama's): "
               "dim, heads, kv_heads, rope_theta, rope_form, max_len, causal, softmax, impl, "
               "kv_cache",
    .params_size = sizeof(gqa_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = gqa_parse,
    .infer = gqa_infer,
    .metrics = gqa_metrics,
    .traits = SM_TRAIT_ATTENTION,
    .saved = gqa_saved,
};

SM_DEFINE_PLUGIN(gqa_attention_type)
