/*
 * attention: multi-head attention as torch.nn.MultiheadAttention computes it, input projection
 * and output projection included: self-attention (query = key = value = the input), or
 * cross-attention when a second input, the memory, is given (query from the input, key and
 * value from the memory: nn.TransformerDecoderLayer's multihead_attn). The per-sample input is
 * a sequence S x E with E = dim, or G x S x E: G independent sequences (MaxViT's windows) that
 * share the weights; the memory is M x E (M = S without one). The output has the input's shape.
 * With h heads of d = E / h features, per sequence:
 *
 *   projections   Q = x W_q^T + b_q                  S E^2 MACs    (+ S E bias adds)
 *                 K, V = mem W_k^T + b_k, ...        2 M E^2 MACs  (+ 2 M E bias adds)
 *   scaling       Q / sqrt(d) (scale=dim: sqrt(E))   S E FLOPs
 *   scores        Q_i K_i^T for each head i          h S M d = S M E MACs
 *   rel_pos       + B_i (a table entry per i, j)     h S^2 FLOPs   (self-attention, S = W^2)
 *   softmax       over each row of h S x M scores    3 h S M FLOPs (exp, sum, divide, as the
 *                                                    softmax plugin counts)
 *   context       A_i V_i for each head i            h S M d = S M E MACs
 *   output        y = ctx W_out^T + b_out            S E^2 MACs    (+ S E bias adds)
 *
 *   macs          = G (2 S E^2 + 2 M E^2 + 2 S M E)          (= G (4 S E^2 + 2 S^2 E) at M = S)
 *   flops         = 2 macs + G (S E + 3 h S M + (bias ? 2 S E + 2 M E : 0) + (rel_pos ? h S^2 : 0))
 *   weights       = 4 E^2 + (bias ? 4 E : 0) + (rel_pos ? (2W - 1)^2 h : 0)
 *   param_tensors = packed: in_proj_weight, out_proj.weight (+ in_proj_bias, out_proj.bias)
 *                   = 2 (4 with bias), as nn.MultiheadAttention and GPT-2's c_attn/c_proj;
 *                   packed=false: query, key, value, output weights (+ 4 biases) = 4 (8), as
 *                   BERT's separate nn.Linear layers. The counts above are the same either way.
 *                   rel_pos adds one, relative_position_bias_table, which comes first: MaxViT's
 *                   named_parameters() lists it before to_qkv.weight, to_qkv.bias, merge.weight
 *                   and merge.bias (a parameter of the module itself, before its submodules').
 *   bwd_flops     = 2 flops (each product has two gradients: of the input and of the weight,
 *                   or of both activation operands for the scores and the context)
 *   bytes         = 4 G (12 S E + 8 M E + (memory ? M E : 0) + 4 h S M + (rel_pos ? 2 h S^2 : 0)):
 *                   the activations PyTorch 1.13's composite path writes and reads, each once,
 *                   split by the side each belongs to. Query side (S E each): x read, Q written,
 *                   Q made contiguous per head (2), Q scaled (2), Q read by the scores, context
 *                   written, context made contiguous (2), output projection (2): 12 S E. Key
 *                   and value side (M E each): K, V written (2), made contiguous per head (4), K
 *                   read by the scores, V read by the context: 8 M E. A memory is a second input,
 *                   read once more by the K, V projection (M E); self-attention's x is read once
 *                   by the packed projection, already counted. Scores: written, the softmax's
 *                   read and write, read by the context (4 h S M); the bias addition reads and
 *                   writes them once more (2 h S^2). Self-attention (M = S, no memory) gives
 *                   4 G (20 S E + 4 h S^2), the count before cross-attention existed.
 *
 * causal=true (GPT-2's mask) changes no count: PyTorch and HF compute all S x S scores densely
 * and then mask the upper triangle (an additive -inf mask fused into the score product, or a
 * torch.where), so nothing is halved. A memory with causal=true is refused: a decoder's
 * cross-attention is unmasked.
 *
 * Eager code that scales or masks the scores in kernels of their own says so (the counts
 * only; the kernels compute the same function):
 *   scale_on=scores  (Q K^T) / sqrt(d), as Hugging Face's BERT and GPT-2 write it, in place
 *                    of nn.MultiheadAttention's scaled Q: h S M FLOPs for S E, and 2 h S M
 *                    bytes (a read and a write of every score) for 2 S E; one pass over the
 *                    scores forward and one backward (its gradient is scaled too)
 *   mask=additive    scores + mask, BERT's extended attention mask (B x 1 x 1 M, read once
 *                    per sequence): h S M FLOPs, 2 h S M + M bytes; one pass forward, none
 *                    backward (the sum's gradient is the scores'), and a broadcast one
 *                    (scores_broadcast_passes): PyTorch runs it in its non-vectorized loop
 *   mask=where       torch.where(causal, scores, min), GPT-2's (causal=true): 2 h S M bytes,
 *                    one pass each way (the gradient is zeroed where masked)
 *   mask=additive_clamp  Hugging Face's eager OPTAttention (causal=true): scores + its causal
 *                    mask (B x 1 x S x M, read once per sequence: S M bytes; broadcast over
 *                    the heads alone, a vectorised pass, NeuSight's profile: 1.33 times the
 *                    maximum's time for 1.5 times its bytes), then torch.max(scores,
 *                    finfo.min): 2 h S M FLOPs and 4 h S M + S M bytes, two passes forward;
 *                    backward the maximum's
 *                    gradient is five kernels over the scores (div, eq, where, lt,
 *                    masked_fill_: 40 bytes a score at fp32, tools/torch_eager_bytes.py on
 *                    torch.max(x, torch.tensor(min))), five passes; the maximum keeps its
 *                    input, the scores before it (h S M more kept). NeuSight's per-op profile
 *                    of OPT-1.3B on an H100 (docs/accuracy-neusight.md) times that maximum at
 *                    0.87 ms forward and 3.90 ms backward a layer at batch 2, beside the
 *                    softmax's 0.83 and 2.22.
 * Code that scales the scores so is Hugging Face's (BERT's and GPT-2's self-attention), which
 * views its Q, K and V as heads and merges the context back with permute(...).contiguous():
 * one copy of the context forward (S E, among its bytes), and backward the views' gradients
 * copied back to the projections' rows (S E + 2 M E), each in PyTorch's strided copy kernel,
 * which the SMs bound (copy_elems_fwd and _bwd, plugin.h's ABI 19; an H200's profiles of
 * BERT, docs/ops-bert-h200.md).
 * Each pass is one more read and write of every score in scores_bytes, and counted in
 * scores_passes_fwd and _bwd (plugin.h, ABI 7), so that a fused kernel drops them and an
 * eager one runs each as a kernel of its own. packed=false (separate query, key and value
 * projections, as BERT's nn.Linear layers) reads x three times where the packed projection
 * reads it once (2 S E more), or the memory twice (M E more). tests/test_conformance_torch.py
 * checks the bytes against Hugging Face's BertSelfAttention written out (its BertSelf).
 *
 * impl=sdpa: the code calls scaled_dot_product_attention, a fused kernel, where impl=eager (the
 * default) multiplies, softmaxes and multiplies in kernels of their own: since PyTorch 2.0
 * nn.MultiheadAttention does so when called with need_weights=False (torchvision's ViT; its
 * default, need_weights=True, returns the weights and stays eager), and Hugging Face's models
 * do by default where they have it ("sdpa" on PyTorch 2.1.1 and later: transformers 4.36,
 * huggingface/transformers#28005; BERT since #28802, GPT-2 since #31172). No count changes: the
 * host drops the score fields below wherever the framework does not run attention of its own
 * (plugin.h's scores_fused, ABI 10).
 *
 * rel_pos=W (torchvision's maxvit RelativePositionalMultiHeadAttention): a learnable table of
 * (2W - 1)^2 x h, whose entry for query position i and key position j of the W x W window
 * (attention.h, attention_rel_index) is added to head h's score; S must be W^2. scale=dim
 * divides the scores by sqrt(E) instead of sqrt(d), as MaxViT does (k * feat_dim**-0.5), and
 * changes no count: the scaling stays S E FLOPs.
 */
#include <scalemeter/plugin.h>

#include "attention.h"

#define MAX_DIM ((int64_t)1 << 24)
#define MAX_WINDOW ((int64_t)1 << 16)

static void attention_parse(void *params, sm_args *args)
{
    static const char *const scales[] = {"head", "dim", NULL};
    static const char *const scale_on[] = {"queries", "scores", NULL};
    static const char *const masks[] = {"none", "additive", "where", "additive_clamp", NULL};
    attention_params *p = params;
    p->dim = sm_arg_int(args, "dim", SM_REQUIRED, 1, MAX_DIM);
    p->heads = sm_arg_int(args, "heads", SM_REQUIRED, 1, MAX_DIM);
    p->bias = sm_arg_bool(args, "bias", 1);
    p->causal = sm_arg_bool(args, "causal", 0);
    p->packed = sm_arg_bool(args, "packed", 1);
    p->rel_pos = sm_arg_int(args, "rel_pos", 0, 0, MAX_WINDOW);
    p->scale = sm_arg_choice(args, "scale", scales, ATTENTION_SCALE_HEAD);
    p->dropout = sm_arg_real(args, "dropout", 0, 0, 1);
    p->scale_on = sm_arg_choice(args, "scale_on", scale_on, ATTENTION_SCALE_QUERIES);
    p->mask = sm_arg_choice(args, "mask", masks, ATTENTION_MASK_NONE);
    static const char *const impls[] = {"eager", "sdpa", NULL};
    p->sdpa = sm_arg_choice(args, "impl", impls, 0);
    p->kv_cache = sm_arg_bool(args, "kv_cache", 0);
    if (p->mask == ATTENTION_MASK_WHERE && !p->causal) {
        sm_arg_fail(args, "mask=where applies the causal mask: give causal=true");
        return;
    }
    if (p->mask == ATTENTION_MASK_ADDITIVE_CLAMP && !p->causal) {
        sm_arg_fail(args, "mask=additive_clamp adds OPT's causal mask: give causal=true");
        return;
    }
    if (p->dim >= 1 && p->heads >= 1 && p->dim % p->heads != 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "dim %lld is not divisible by heads %lld", (long long)p->dim,
                 (long long)p->heads);
        sm_arg_fail(args, msg);
    }
}

/* Checks the memory (second input) against the query and the parameters. */
static int check_memory(const attention_params *p, const sm_shape *query, const sm_shape *mem,
                        sm_error *err)
{
    char s[64];
    if (p->causal) {
        sm_error_set(err, "causal=true with a memory input: cross-attention (a decoder's "
                          "multihead_attn) has no causal mask");
        return -1;
    }
    if (p->rel_pos) {
        sm_error_set(err,
                     "rel_pos=%lld with a memory input: the relative position bias is for "
                     "self-attention within a window",
                     (long long)p->rel_pos);
        return -1;
    }
    if (query->ndim != 2) {
        sm_error_set(err, "cross-attention takes a query S x E, got groups %s",
                     sm_shape_str(query, s, sizeof s));
        return -1;
    }
    if (mem->ndim != 2) {
        sm_error_set(err, "the memory (second input) must be a sequence M x E, got %s",
                     sm_shape_str(mem, s, sizeof s));
        return -1;
    }
    if (mem->dim[1] != p->dim) {
        sm_error_set(err, "memory %s has %lld features, attention has dim %lld",
                     sm_shape_str(mem, s, sizeof s), (long long)mem->dim[1], (long long)p->dim);
        return -1;
    }
    return 0;
}

static int attention_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                           sm_error *err)
{
    const attention_params *p = params;
    char s[64];
    if (p->dim < 1 || p->heads < 1 || p->dim % p->heads != 0) {
        sm_error_set(err, "attention needs dim >= 1 and heads dividing dim");
        return -1;
    }
    if (in[0].ndim != 2 && in[0].ndim != 3) {
        sm_error_set(err,
                     "attention needs a sequence S x E or groups of sequences G x S x E, "
                     "got %s",
                     sm_shape_str(&in[0], s, sizeof s));
        return -1;
    }
    int64_t features = in[0].dim[in[0].ndim - 1], len = in[0].dim[in[0].ndim - 2];
    if (features != p->dim) {
        sm_error_set(err, "input %s has %lld features, attention has dim %lld",
                     sm_shape_str(&in[0], s, sizeof s), (long long)features, (long long)p->dim);
        return -1;
    }
    if (n_in == 2 && check_memory(p, &in[0], &in[1], err))
        return -1;
    if (p->rel_pos && len != p->rel_pos * p->rel_pos) {
        sm_error_set(err,
                     "rel_pos=%lld needs S = %lld x %lld = %lld positions (one window), got "
                     "S = %lld in %s",
                     (long long)p->rel_pos, (long long)p->rel_pos, (long long)p->rel_pos,
                     (long long)(p->rel_pos * p->rel_pos), (long long)len,
                     sm_shape_str(&in[0], s, sizeof s));
        return -1;
    }
    *out = in[0];
    return 0;
}

static int attention_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                             sm_layer_metrics *m, sm_error *err)
{
    const attention_params *p = params;
    sm_shape checked;
    (void)out;
    if (attention_infer(params, in, n_in, &checked, err))
        return -1;
    int has_memory = n_in == 2;
    int64_t g = in[0].ndim == 3 ? in[0].dim[0] : 1, s = in[0].dim[in[0].ndim - 2];
    int64_t mlen = has_memory ? in[1].dim[0] : s, e = p->dim, h = p->heads;
    int64_t se = sm_mul(s, e), me = sm_mul(mlen, e);
    int64_t hsm = sm_mul(h, sm_mul(s, mlen));            /* scores of one sequence */
    int64_t proj = sm_mul(2, sm_mul(sm_add(se, me), e)); /* Q and output; K and V */
    int64_t mix = sm_mul(2, sm_mul(sm_mul(s, mlen), e)); /* scores and context */
    int64_t macs = sm_add(proj, mix);
    int64_t flops = sm_add(sm_add(sm_mul(2, macs), se), sm_mul(3, hsm));
    int64_t bytes = sm_add(sm_add(sm_mul(12, se), sm_mul(8, me)), sm_mul(4, hsm));
    if (p->bias)
        flops = sm_add(flops, sm_mul(2, sm_add(se, me)));
    if (has_memory)
        bytes = sm_add(bytes, me);
    if (p->rel_pos) { /* self-attention only: h S M = h S^2 */
        flops = sm_add(flops, hsm);
        bytes = sm_add(bytes, sm_mul(2, hsm));
    }
    if (!p->packed)
        bytes = sm_add(bytes, has_memory ? me : sm_mul(2, se));
    int passes_fwd = 0, passes_bwd = 0;
    if (p->scale_on == ATTENTION_SCALE_SCORES) {
        flops = sm_add(flops, hsm - se);
        bytes = sm_add(bytes, sm_mul(2, hsm - se));
        passes_fwd++, passes_bwd++;
    }
    if (p->mask == ATTENTION_MASK_ADDITIVE) {
        flops = sm_add(flops, hsm);
        bytes = sm_add(bytes, sm_add(sm_mul(2, hsm), mlen));
        passes_fwd++;
    } else if (p->mask == ATTENTION_MASK_WHERE) {
        bytes = sm_add(bytes, sm_mul(2, hsm));
        passes_fwd++, passes_bwd++;
    } else if (p->mask == ATTENTION_MASK_ADDITIVE_CLAMP) {
        flops = sm_add(flops, sm_mul(2, hsm));
        bytes = sm_add(bytes, sm_add(sm_mul(4, hsm), sm_mul(s, mlen)));
        passes_fwd += 2, passes_bwd += 5;
    }
    m->macs = sm_mul(g, macs);
    m->flops = sm_mul(g, flops);
    m->matmul_flops = sm_mul(2, m->macs); /* projections, scores, context; the rest vector */
    m->bytes = sm_mul(4, sm_mul(g, bytes));
    m->bwd_flops = sm_mul(2, m->flops);
    /* written, softmaxed (2), read: 4 h S M; a read and a write more per pass */
    m->scores_bytes = sm_mul(4 * (4 + 2 * passes_fwd), sm_mul(g, hsm));
    m->scores_passes_fwd = passes_fwd;
    m->scores_passes_bwd = passes_bwd;
    /* the additive mask, one row a sequence, is read broadcast over every score (ABI 18) */
    m->scores_broadcast_passes = p->mask == ATTENTION_MASK_ADDITIVE;
    /* Hugging Face's eager code (its scores scaled in a kernel of their own): the context made
     * contiguous once its heads are merged, forward; the gradients of Q, K and V copied back
     * from the heads' layout by their views' backward (ABI 19) */
    if (p->scale_on == ATTENTION_SCALE_SCORES) {
        m->copy_elems_fwd = sm_mul(g, se);
        m->copy_elems_bwd = sm_mul(g, sm_add(se, sm_mul(2, me)));
    }
    m->scores_fused = p->sdpa;
    m->scores_flops = sm_mul(g, sm_mul(2, sm_mul(sm_mul(s, mlen), e))); /* Q K^T */
    m->weights = sm_add(sm_mul(4, sm_mul(e, e)), p->bias ? sm_mul(4, e) : 0);
    /* the projections' bias gradients, each its output's gradient summed over the rows in a
     * reduction kernel of its own (plugin ABI 20): Q and the output over S rows, K and V over
     * M */
    m->bias_grad_elems = p->bias ? sm_mul(g, sm_mul(2, sm_add(se, me))) : 0;
    m->bias_grad_sums = p->bias ? (p->packed ? 2 : 4) : 0; /* one a bias tensor */
    /* the projections as products (plugin ABI 22), 2 proj FLOPs of the matrix ones: packed, one
     * of the input to Q, K and V (with a memory, one of the input to Q and one of the memory to
     * K and V), else one each; and the output's. They read the input, the memory (a second
     * input) and the context, and write Q, K, V and the output */
    m->linear_products = p->packed ? (has_memory ? 3 : 2) : 4;
    m->linear_flops = sm_mul(g, sm_mul(2, proj));
    m->linear_input_elems = sm_mul(g, sm_add(sm_mul(2, se), has_memory ? me : 0));
    m->linear_output_elems = sm_mul(g, sm_mul(2, sm_add(se, me)));
    m->param_tensors = (p->packed ? 2 : 4) * (p->bias ? 2 : 1);
    if (p->rel_pos) {
        int64_t side = 2 * p->rel_pos - 1;
        m->weights = sm_add(m->weights, sm_mul(sm_mul(side, side), h));
        m->param_tensors += 1;
    }
    return 0;
}

/* What training keeps, per sequence, as PyTorch 1.13's nn.MultiheadAttention and Hugging Face's
 * eager BERT and GPT-2 attention keep it (tools/torch_saved_tensors.py): the query side's input
 * (or MHA's copy of it), the projected Q, K and V (S E + 2 M E: Q scaled, K, V; GPT-2's packed
 * c_attn output is the same bytes), the softmax's result (h S M) and the context before the
 * output projection (S E); with dropout on the weights, its mask and its output (h S M more).
 * A memory input is kept as the key and value projection's input. A fused kernel (PyTorch's
 * scaled_dot_product_attention) keeps Q, K, V and its output, the context, as eager does, and
 * the fp32 log-sum-exp of each of the h S rows instead of the probabilities and their mask.
 * Under torchtitan's selective policy (plugin.h) self-attention keeps the outputs of the odd
 * matrix products and the attention kernel's: packed, the in_proj's Q, K and V (the first; the
 * output projection, the second, is recomputed), and with separate projections Q and V (the
 * first and third; K's and the output's recomputed), then the context and the log-sum-exp.
 * Eager attention's score products (bmm) are not on the policy's list: its scores and context
 * are recomputed, and are counted as a fused kernel's. Cross-attention, three products, keeps
 * all it keeps. With kv_cache an inference pass keeps its keys and values to its end, as
 * Hugging Face's GPT-2 and OPT return them (transformers 4.38): GPT-2's present is (key, value),
 * views of the packed c_attn output, which so stays whole, 3 S E; OPT's are copies
 * (_shape's .contiguous()), 2 M E. */
static int attention_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                           sm_layer_saved *s, sm_error *err)
{
    const attention_params *p = params;
    (void)out, (void)err;
    int64_t g = in[0].ndim == 3 ? in[0].dim[0] : 1, len = in[0].dim[in[0].ndim - 2];
    int64_t mlen = n_in == 2 ? in[1].dim[0] : len, e = p->dim;
    int64_t hsm = sm_mul(p->heads, sm_mul(len, mlen));
    int64_t own = sm_add(sm_mul(2, sm_mul(len, e)), sm_mul(2, sm_mul(mlen, e)));
    /* the softmax's result, its dropout's, and OPT's maximum's input */
    int kept = 1 + (p->dropout > 0) + (p->mask == ATTENTION_MASK_ADDITIVE_CLAMP);
    s->inputs = n_in == 2 ? 3u : 1u;
    s->extra_elems = sm_mul(g, sm_add(own, sm_mul(kept, hsm)));
    s->mask_elems = p->dropout > 0 ? sm_mul(g, hsm) : 0;
    s->scores_elems = sm_mul(g, sm_mul(kept, hsm));
    s->scores_mask_elems = s->mask_elems;
    s->fused_bytes = sm_mul(4, sm_mul(g, sm_mul(p->heads, len)));
    if (p->kv_cache)
        s->infer_kept_elems = sm_mul(g, p->packed && n_in == 1 ? sm_mul(3, sm_mul(len, e))
                                                               : sm_mul(2, sm_mul(mlen, e)));
    if (n_in == 1) {
        int64_t se = sm_mul(g, sm_mul(len, e)), see = sm_mul(2, sm_mul(se, e));
        s->selective = 1;
        s->selective_elems = sm_mul(p->packed ? 4 : 3, se);
        s->selective_bytes = s->fused_bytes;
        s->selective_flops = p->packed ? see : sm_mul(2, see);
    }
    return 0;
}

static const sm_layer_type attention_type = {
    SM_LAYER_TYPE_INIT,
    .name = "attention",
    .summary = "multi-head self- or cross-attention with its projections (nn.MultiheadAttention, "
               "MaxViT's windows): dim, heads, bias, causal, packed, rel_pos, scale, dropout, "
               "scale_on, mask, impl, kv_cache",
    .params_size = sizeof(attention_params),
    .min_inputs = 1,
    .max_inputs = 2,
    .parse = attention_parse,
    .infer = attention_infer,
    .metrics = attention_metrics,
    .traits = SM_TRAIT_ATTENTION,
    .saved = attention_saved,
};

SM_DEFINE_PLUGIN(attention_type)
