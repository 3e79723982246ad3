/*
 * test_llama: the Llama-style layer types rmsnorm, swiglu and gqa_attention (counts, what they
 * keep for backward, CPU backward against finite differences, refusals) and the zoo's
 * llama3_8b and llama3_70b against Llama 3.1's published parameter counts.
 *
 * Where the expected numbers come from (none of them from the code under test):
 * - Meta's published sizes: Llama 3.1 8B has 8,030,261,248 parameters and 70B 70,553,706,496
 *   (Hugging Face's model cards; sum(p.numel()) of LlamaForCausalLM); the tensors are
 *   nn.Module.parameters() of LlamaForCausalLM: embed_tokens, 9 per decoder layer (4
 *   projections, 3 MLP weights, 2 norms), norm, lm_head: 1 + 9 L + 2.
 * - PyTorch (torch 1.13, /usr/bin/python3), the modules as Llama's reference code and Hugging
 *   Face write them:
 *       class MLP(nn.Module):   # LlamaMLP
 *           def __init__(s, e, f):
 *               super().__init__()
 *               s.gate_proj = nn.Linear(e, f, bias=False); s.up_proj = nn.Linear(e, f, bias=False)
 *               s.down_proj = nn.Linear(f, e, bias=False)
 *           def forward(s, x): return s.down_proj(F.silu(s.gate_proj(x)) * s.up_proj(x))
 *       m = MLP(8, 6); x = torch.randn(3, 8)
 *       sum(p.numel() for p in m.parameters()), len(list(m.parameters()))   -> 144 3
 *       profiler (with_flops=True) aten::mm FLOPs / 2 on m(x)                -> 432
 *       E, H, KV, S = 8, 4, 2, 5; q, o = nn.Linear(E, E, bias=False) twice;
 *       k, v = nn.Linear(E, KV * 2, bias=False) twice                        -> 192 in 4
 *       Q = q(x).view(1,S,H,2).transpose(1,2); K, V likewise with KV heads, repeat_interleave
 *       to H; A = softmax(Q @ K^T / sqrt(2)); o((A @ V).transpose(1,2).reshape(1,S,E)):
 *       profiler mm + bmm FLOPs / 2                                          -> 1360
 *   and torch.autograd.graph.saved_tensors_hooks on Llama's RMSNorm(8) and the MLP at x 3x8:
 *   75 and 96 saved activation elements, input included (plugins/rmsnorm/rmsnorm.c and
 *   plugins/swiglu/swiglu.c list them); the RMSNorm with its casts, x.float() ... .type_as(x),
 *   in bfloat16: 252 bytes.
 * - backward: central finite differences of the forward pass (tests/gradient_check.h).
 */
#include "gradient_check.h"

#define ROPE_LAYER "g = gqa_attention dim=8 heads=4 kv_heads=2 rope_theta=500000"

/* The layer g's metrics and saved() of a network text. */
static int layer_of(const char *text, sm_layer_metrics *m, sm_layer_saved *s)
{
    sm_status st;
    sm_network *net = net_load(reg, text, 0, &st);
    if (!net) {
        fprintf(stderr, "network: %s\n", st.msg);
        CHECK(0);
        return -1;
    }
    const sm_layer *l = sm_network_layer(net, "g");
    CHECK(l != NULL);
    if (l) {
        *m = l->m;
        *s = l->saved;
    }
    sm_network_free(net);
    return l ? 0 : -1;
}

static void test_counts(void)
{
    sm_layer_metrics m;
    sm_layer_saved s;
    /* rmsnorm over 3 rows of 8: 8 weights in 1 tensor; 4 FLOPs per element and 3 per row:
     * 96 + 9 = 105; keeps the input and 2 x 24 + 3 of its own (PyTorch: 75 with the input) */
    if (layer_of(NET("3x8", "g = rmsnorm eps=1e-6\n"), &m, &s) == 0) {
        CHECK_EQ(m.weights, 8);
        CHECK_EQ(m.param_tensors, 1);
        CHECK_EQ(m.flops, 105);
        CHECK_EQ(m.macs, 0);
        CHECK_EQ(s.inputs, 1u);
        CHECK_EQ(24 + s.extra_elems, 75);
        /* in bf16, with its casts: x.float() and a second 3x8 fp32 tensor, the fp32 rsqrt and
         * the normalised x cast down, 4 x 48 + 4 x 3 + 2 x 24 = 252 bytes (the same hooks on
         * the module in bfloat16; plugins/rmsnorm/rmsnorm.c) */
        CHECK_EQ(2 * (24 + s.extra_elems) + s.upcast_bytes, 252);
    }
    /* without the casts the bytes follow the activations */
    if (layer_of(NET("3x8", "g = rmsnorm upcast=false\n"), &m, &s) == 0) {
        CHECK_EQ(m.upcast_bytes, 0);
        CHECK_EQ(s.upcast_bytes, 0);
        CHECK_EQ(24 + s.extra_elems, 75);
    }
    /* swiglu E 8, F 6 on 3 rows: PyTorch 144 weights in 3, 432 MACs; FLOPs 2 x 432 + 6 x 18
     * (silu 5 and the product 1 per gate element) = 972, of which 864 in products; keeps the
     * input and 4 x 18 (PyTorch: 96 with the input) */
    if (layer_of(NET("3x8", "g = swiglu hidden=6\n"), &m, &s) == 0) {
        CHECK_EQ(m.weights, 144);
        CHECK_EQ(m.param_tensors, 3);
        CHECK_EQ(m.macs, 432);
        CHECK_EQ(m.flops, 972);
        CHECK_EQ(m.matmul_flops, 864);
        CHECK_EQ(m.bwd_flops, 2 * 972);
        CHECK_EQ(s.inputs, 1u);
        CHECK_EQ(24 + s.extra_elems, 96);
    }
    /* gqa_attention E 8, 4 heads, 2 KV heads (d 2, kvE 4), S 5: PyTorch 192 weights in 4,
     * 1360 MACs. FLOPs, as Hugging Face's eager code and Meta's write the layer (the scores
     * scaled and masked): 2 x 1360 + scaling h S^2 100 + mask h S^2 100 + softmax 3 h S^2 300 +
     * rotary 3 S (E + kvE) 180 = 3400; without rotation 3220, without the mask (causal=false)
     * 3120. Kept, with rotation or without, as
     * tools/torch_rope_bytes.py --saved records Hugging Face's eager LlamaAttention at fp32:
     * 1288 and 1208 bytes, that is the input (S E = 40 elements), the rotated Q, K and V
     * repeated, the context (S E each), the probabilities (h S^2 = 100), a float64 scalar (the
     * scaling's, 8 bytes) and with rotation cos and sin (S d each, computed once for all
     * layers, not counted): 4 S E + h S^2 = 260 of the layer's own. */
    sm_layer_metrics none;
    if (layer_of(NET("5x8", "g = gqa_attention dim=8 heads=4 kv_heads=2 rope_theta=0\n"), &none,
                 &s) == 0) {
        CHECK_EQ(none.flops, 3220);
        CHECK_EQ(none.serial_bytes, 0);
        CHECK_EQ(none.scores_passes_fwd, 2);
        CHECK_EQ(none.scores_passes_bwd, 1);
        CHECK_EQ(none.scores_broadcast_passes, 1); /* the S x S mask over batch and heads */
        CHECK_EQ(none.scores_bytes, 4 * (4 + 2 * 2) * 100);
        CHECK_EQ(s.extra_elems, 260);
    }
    if (layer_of(NET("5x8", "g = gqa_attention dim=8 heads=4 kv_heads=2 rope_theta=0 "
                            "causal=false\n"),
                 &m, &s) == 0) {
        CHECK_EQ(m.flops, 3120);
        CHECK_EQ(m.scores_passes_fwd, 1);
        CHECK_EQ(m.scores_passes_bwd, 1);
        CHECK_EQ(m.scores_broadcast_passes, 0);
        /* the mask's read and write of every score, and its read of the S x S mask */
        CHECK_EQ(none.bytes - m.bytes, 4 * (2 * 100 + 25));
    }
    /* The rotation's bytes, per sequence with N = S (E + kvE) = 60 rotated elements and S d =
     * 10, from tools/torch_rope_bytes.py (PyTorch's ops on q and k): rotate_half 40 N + 16 S d
     * at fp32, half at bf16 (no upcast); complex 8 N + 8 S d at fp32, 20 N + 8 S d at bf16, an
     * upcast of 16 N + 4 S d. */
    if (layer_of(NET("5x8", ROPE_LAYER "\n"), &m, &s) == 0) {
        CHECK_EQ(m.weights, 192);
        CHECK_EQ(m.param_tensors, 4);
        CHECK_EQ(m.macs, 1360);
        CHECK_EQ(m.flops, 3400);
        CHECK_EQ(m.matmul_flops, 2720);
        CHECK_EQ(m.bytes - none.bytes, 40 * 60 + 16 * 10);
        CHECK_EQ(m.serial_bytes, 40 * 60 + 16 * 10);
        CHECK_EQ(m.upcast_bytes, 0);
        CHECK_EQ(s.extra_elems, 260);
    }
    if (layer_of(NET("5x8", ROPE_LAYER " rope_form=complex\n"), &m, &s) == 0) {
        CHECK_EQ(m.flops, 3400);
        CHECK_EQ(m.bytes - none.bytes, 8 * 60 + 8 * 10);
        CHECK_EQ(m.serial_bytes, 8 * 60 + 8 * 10);
        CHECK_EQ(m.upcast_bytes, 16 * 60 + 4 * 10);
        CHECK_EQ(s.extra_elems, 260);
    }
    /* kv_heads = heads: multi-head attention, 4 E^2 weights as nn.MultiheadAttention's 256 */
    if (layer_of(NET("5x8", "g = gqa_attention dim=8 heads=4\n"), &m, &s) == 0)
        CHECK_EQ(m.weights, 256);
}

/* Meta's complex form pairs features (2i, 2i + 1) of a head where Hugging Face's rotate_half
 * pairs (i, i + d/2); Hugging Face's convert_llama_weights_to_hf.py turns one into the other by
 * permuting the rows of q_proj and k_proj in each head, w.view(heads, d / 2, 2, E).transpose(1,
 * 2): Hugging Face's row j d/2 + i is Meta's 2i + j. With the weights so permuted the two forms
 * must compute the same attention. */
static void permute_heads(float *dst, const float *src, int64_t rows, int64_t d, int64_t e)
{
    for (int64_t r = 0; r < rows; r++) {
        int64_t head = r / d, i = r % d % (d / 2), j = r % d / (d / 2);
        memcpy(dst + r * e, src + (head * d + 2 * i + j) * e, (size_t)e * sizeof *dst);
    }
}

static void test_rope_forms(void)
{
    const int64_t e = 8, kve = 4, d = 4; /* 2 heads of 4, 1 key/value head */
    fixture meta, hf;
    if (setup(&meta,
              NET("5x8", "g = gqa_attention dim=8 heads=2 kv_heads=1 rope_theta=10 "
                         "rope_form=complex\n"),
              2) ||
        setup(&hf, NET("5x8", "g = gqa_attention dim=8 heads=2 kv_heads=1 rope_theta=10\n"), 2)) {
        CHECK(0);
        return;
    }
    int64_t nw, nw2;
    float *w = sm_executor_weights(meta.ex, &nw), *w2 = sm_executor_weights(hf.ex, &nw2);
    CHECK_EQ(nw, nw2);
    memcpy(w2, w, (size_t)nw * sizeof *w);
    permute_heads(w2, w, e, d, e);                   /* q_proj */
    permute_heads(w2 + e * e, w + e * e, kve, d, e); /* k_proj */
    sm_tensor x = sm_executor_input(meta.ex), x2 = sm_executor_input(hf.ex);
    memcpy(x2.data, x.data, (size_t)elems(&x) * sizeof *x.data);
    objective(&meta);
    objective(&hf);
    sm_tensor y = sm_executor_output(meta.ex), y2 = sm_executor_output(hf.ex);
    double moved = 0;
    for (int64_t i = 0; i < elems(&y); i++)
        moved = fmax(moved, fabs((double)y.data[i]));
    CHECK(moved > 1e-3);
    CHECK(max_diff(y.data, y2.data, elems(&y)) < 1e-5 * fmax(1, moved));
    /* unpermuted, the two pairings differ: the test can fail */
    memcpy(w2, w, (size_t)nw * sizeof *w);
    objective(&hf);
    CHECK(max_diff(y.data, y2.data, elems(&y)) > 1e-4);
    teardown(&meta);
    teardown(&hf);
}

static void test_zoo(void)
{
    static const struct {
        const char *model;
        int64_t weights, tensors;
    } zoo[] = {{"llama3_8b", INT64_C(8030261248), 1 + 9 * 32 + 2},
               {"llama3_70b", INT64_C(70553706496), 1 + 9 * 80 + 2}};
    for (size_t i = 0; i < sizeof zoo / sizeof zoo[0]; i++) {
        sm_status st;
        sm_network *net = NULL;
        sm_metrics m;
        if (sm_network_load(reg, zoo[i].model, NULL, &net, &st)) {
            fprintf(stderr, "%s: %s\n", zoo[i].model, st.msg);
            CHECK(0);
            continue;
        }
        CHECK_EQ(net->input.dim[0], 8192); /* the default sequence */
        if (sm_network_metrics(net, 1, &m, &st) == 0) {
            CHECK_EQ(m.weights, zoo[i].weights);
            CHECK_EQ(m.param_tensors, zoo[i].tensors);
        } else {
            fprintf(stderr, "%s: %s\n", zoo[i].model, st.msg);
            CHECK(0);
        }
        sm_network_free(net);
    }
}

static void test_gradients(void)
{
    const double eps = 1e-3, tol = 1e-2;
    random_weights = 1; /* rmsnorm's weights start at 1: move them off it */
    check_gradients("rmsnorm 2 rows of 6", NET("2x6", "g = rmsnorm\n"), 2, eps, tol);
    random_weights = 0;
    check_gradients("swiglu 3x4 hidden 5", NET("3x4", "g = swiglu hidden=5\n"), 2, eps, tol);
    check_gradients("gqa 5x8, 4 heads, 2 kv, rope",
                    NET("5x8", "g = gqa_attention dim=8 heads=4 kv_heads=2 rope_theta=10\n"), 2,
                    eps, tol);
    check_gradients("gqa 5x8, 4 heads, 2 kv, complex rope",
                    NET("5x8", "g = gqa_attention dim=8 heads=4 kv_heads=2 rope_theta=10 "
                               "rope_form=complex\n"),
                    2, eps, tol);
    check_gradients("gqa 4x8, 2 heads, 1 kv, no rope, not causal",
                    NET("4x8", "g = gqa_attention dim=8 heads=2 kv_heads=1 rope_theta=0 "
                               "causal=false\n"),
                    2, eps, tol);
    check_gradients("llama block 4x8",
                    NET("4x8", "n1 = rmsnorm\n"
                               "a = gqa_attention dim=8 heads=4 kv_heads=2 rope_theta=100\n"
                               "r1 = add from=a,@input\n"
                               "n2 = rmsnorm\n"
                               "m = swiglu hidden=12\n"
                               "g = add from=m,r1\n"),
                    2, eps, tol);
}

static void test_refusals(void)
{
    expect_refusal_at(NET("9x8", "g = gqa_attention dim=8 heads=4 kv_heads=2 max_len=8\n"),
                      ":5: layer g (gqa_attention)",
                      "sequence of 9 positions is longer than max_len 8");
    expect_refusal_at(NET("5x8", "g = gqa_attention dim=8 heads=4 rope_form=polar\n"),
                      ":5:", "rope_form");
    expect_refusal_at(NET("5x8", "g = gqa_attention dim=8 heads=4 softmax=fp32\n"),
                      ":5:", "softmax");
    expect_refusal_at(NET("5x8", "g = gqa_attention dim=8 heads=4 kv_heads=3\n"),
                      ":5:", "heads 4 is not divisible by kv_heads 3");
    expect_refusal_at(NET("5x6", "g = gqa_attention dim=6 heads=2\n"),
                      ":5:", "rotary embeddings need an even head size, got 3");
    expect_refusal_at(NET("5x6", "g = gqa_attention dim=8 heads=2\n"),
                      ":5:", "gqa_attention needs a sequence S x 8, got 5x6");
    expect_refusal_at(NET("5x6", "g = swiglu\n"), ":5:", "hidden");
}

int main(void)
{
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "registry: %s\n", st.msg);
        return 1;
    }
    test_counts();
    test_rope_forms();
    test_zoo();
    test_gradients();
    test_refusals();
    sm_registry_free(reg);
    return check_summary();
}
