/*
 * test_lm_memory: what a language model's training keeps under a fused attention kernel and
 * torchtitan's selective checkpointing (plugin.h's ABI 4 fields), on a network small enough
 * to count by hand, at fp32, per sample (S 16, E 8, two heads of d 4, one key/value head:
 * kvE 4, SwiGLU hidden F 12, 50 classes):
 *
 *   input 16x8 -> [block b.0: attn = gqa_attention, mlp = swiglu] -> head = linear 50
 *   -> loss = cross_entropy (fp32)
 *
 * Eager, no checkpointing. Storages kept: the input (attn's), attn's output (mlp's) and
 * mlp's (head's), 3 x 128 elements = 1536 B. Of their own: attn without rotation 4 S E +
 * h S^2 = 512 + 512 elements = 4096 B; mlp 4 S F = 768 elements = 3072 B; the loss its fp32
 * log-probabilities 4 x 16 x 50 = 3200 B, and the network's output, the loss's 16 values a
 * sample, lives until it is read, 64 B: 11968 B kept. The backward pass's peak is the loss's:
 * beside all that, its output's gradient (64 B) and its fp32 scratch, 8 x 800 = 6400 B, more
 * than the logits' new gradient (3200 B): 11968 + 64 + 6400 = 18432 B, what the count below
 * (activations and backward) is. The head's backward pass, the next, holds 8704 + 3200 + 512.
 * Fused attention: attn keeps no S x S probabilities (-512 elements, -2048 B) and the fp32
 * log-sum-exp of its h S rows (+128 B): 18432 - 1920 = 16512 B.
 * Fused and selective: in the block, attn keeps what the policy keeps, q_proj's and
 * v_proj's outputs and the kernel's (S E + S kvE + S E = 320 elements, 1280 B, and the
 * 128 B log-sum-exp); mlp gate_proj's output (S F = 192 elements, 768 B) and its own
 * output; the block keeps its input. Storages: the input and mlp's output, 1024 B. Kept:
 * 1408 + 768 + 1024 + 3200 + 64 = 6464 B. The block's backward pass recomputes the rest, attn
 * 2176 - 1408 = 768 B and mlp 3072 - 768 = 2304 B and attn's output (512 B): 3584 B beside
 * 2688 still kept and two gradients of 512 B, 7296 B, less than the loss's backward pass:
 * 6464 + 64 + 6400 = 12928 B.
 *
 * At fp16 and bf16, Llama's eager softmax in fp32 (gqa_attention's softmax=dtype_float32, the
 * default, Hugging Face's; softmax=float, Meta's) keeps its fp32 output beside the 16-bit
 * probabilities: 4 bytes per score, h S^2 = 512 scores a sample, 2048 B more than
 * softmax=native (saved_tensors_hooks on Hugging Face's eager LlamaAttention in bfloat16:
 * tools/torch_rope_bytes.py --saved lists a float32 tensor of h S^2 beside the bf16 one). At
 * inference it holds fp32 bytes while it runs: at bf16 the input's fp32 copy and the
 * softmax's output (PyTorch's SoftMax.cpp converts first but for fp16 under dtype=float32,
 * which it runs in one kernel, half_to_float): 8 bytes a score, 4096 B; at fp16, 4 with
 * dtype_float32 and 8 with float. A fused kernel, and fp32, keep and hold none of it.
 *
 * Under autocast every softmax is Hugging Face's form whatever the plugin says, since CUDA
 * autocast runs softmax with dtype=float32 (ATen's autocast_mode.cpp, fp32_set_opt_dtype):
 * GPT-2's `attention` (h 2, S 16: 512 scores a sample) keeps 2048 B more without dropout on the
 * probabilities, as Llama's does, and 1024 B with it, where the 16-bit result the count
 * already holds becomes the fp32 one (PyTorch's saved tensors, `tools/torch_rope_bytes.py
 * --softmax`: 6 bytes a score kept beside 2, and beside 4 with dropout). At inference it holds
 * 4096 B at bf16 and 2048 B at fp16, as above; a cast model (autocast 0) nothing.
 *
 * Where the code calls scaled_dot_product_attention (impl=sdpa, plugin.h's scores_fused), the
 * layer keeps the fused kernel's tensors under a framework that says nothing of attention
 * (SM_ATTENTION_AS_WRITTEN): 16512 B, as fused above, and 18432 B, eager, where the framework
 * runs attention of its own eagerly (SM_ATTENTION_EAGER). At bf16 under autocast the fused
 * kernel has no softmax of its own to run in fp32: nothing more than a cast model keeps.
 * Where fused kernels take no dropout (PyTorch's CPU path: no_fused_dropout), GPT-2's
 * `attention` with dropout on its probabilities runs eagerly in training, keeping what
 * impl=eager keeps; without dropout, and at inference, it is fused all the same.
 */
#include <stdio.h>

#include "check.h"
#include "net_file.h"
#include "scalemeter/memory.h"

static const char *const lm =
    "[network]\nname = tiny_lm\ninput = 16x8\n"
    "[template blk]\n"
    "attn = gqa_attention dim=8 heads=2 kv_heads=1 rope_theta=0 max_len=64\n"
    "mlp = swiglu hidden=12\n"
    "[block b.{0..0}]\nuse = blk\n"
    "[layers]\nhead = linear out=50 bias=false\nloss = cross_entropy\n";

/* The activations' peak in training: what is kept, and what the backward pass holds beside it. */
static double activations_at(const sm_network *net, int64_t batch, const sm_memory_config *c,
                             int training)
{
    sm_memory m;
    sm_status st;
    if (sm_network_memory(net, batch, 1, training, c, &m, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return -1;
    }
    return m.activations + m.backward;
}

static double activations(const sm_network *net, int64_t batch, int fused, sm_checkpoint ck)
{
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    c.fused_attention = fused;
    c.checkpoint = ck;
    return activations_at(net, batch, &c, 1);
}

/* The tiny model with gqa_attention's softmax as given ("" for its default). */
static sm_network *lm_with(sm_registry *reg, const char *softmax)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[network]\nname = tiny_lm\ninput = 16x8\n[template blk]\n"
             "attn = gqa_attention dim=8 heads=2 kv_heads=1 rope_theta=0 max_len=64 %s\n"
             "mlp = swiglu hidden=12\n[block b.{0..0}]\nuse = blk\n"
             "[layers]\nhead = linear out=50 bias=false\nloss = cross_entropy\n",
             softmax);
    sm_network *net = NULL;
    sm_status st;
    if (sm_network_load(reg, net_file(text), NULL, &net, &st))
        fprintf(stderr, "%s\n", st.msg);
    return net;
}

/* What each softmax form keeps (training) or holds (inference) more than softmax=native, per
 * sample at batch 2, at fp16 (fp16 = 1), bf16 or fp32 (half = 0), eager or fused. */
static double softmax_more(sm_registry *reg, const char *form, int half, int fp16, int fused,
                           int training)
{
    sm_memory_config c = {.half = half,
                          .fp16 = fp16,
                          .optimizer = SM_OPTIMIZER_SGD,
                          .mask_bytes = 1,
                          .fused_attention = fused};
    sm_network *with = lm_with(reg, form), *native = lm_with(reg, "softmax=native");
    double more =
        with && native
            ? (activations_at(with, 2, &c, training) - activations_at(native, 2, &c, training)) / 2
            : -1;
    sm_network_free(with);
    sm_network_free(native);
    return more;
}

static void test_softmax_fp32(sm_registry *reg)
{
    CHECK_EQ(softmax_more(reg, "", 1, 0, 0, 1), 2048);
    CHECK_EQ(softmax_more(reg, "softmax=float", 1, 0, 0, 1), 2048);
    CHECK_EQ(softmax_more(reg, "", 1, 1, 0, 1), 2048);
    CHECK_EQ(softmax_more(reg, "", 1, 0, 0, 0), 4096);
    CHECK_EQ(softmax_more(reg, "", 1, 1, 0, 0), 2048);
    CHECK_EQ(softmax_more(reg, "softmax=float", 1, 1, 0, 0), 4096);
    CHECK_EQ(softmax_more(reg, "", 1, 0, 1, 1), 0);
    CHECK_EQ(softmax_more(reg, "", 1, 0, 1, 0), 0);
    CHECK_EQ(softmax_more(reg, "", 0, 0, 0, 1), 0);
    CHECK_EQ(softmax_more(reg, "softmax=float", 0, 0, 0, 0), 0);
}

/* What `attention` (dropout on the probabilities or not) keeps or holds more per sample at batch
 * 2 under autocast than in a cast model, at fp16 or bf16, eager. */
static double autocast_more(sm_registry *reg, double dropout, int fp16, int training)
{
    char text[512];
    snprintf(text, sizeof text,
             "[network]\nname = tiny_gpt\ninput = 16x8\n[layers]\n"
             "attn = attention dim=8 heads=2 dropout=%g scale_on=scores\n",
             dropout);
    sm_network *net = NULL;
    sm_status st;
    if (sm_network_load(reg, net_file(text), NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return -1;
    }
    sm_memory_config cast = {
        .half = 1, .fp16 = fp16, .optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory_config amp = cast;
    amp.autocast = 1;
    double more =
        (activations_at(net, 2, &amp, training) - activations_at(net, 2, &cast, training)) / 2;
    sm_network_free(net);
    return more;
}

static void test_autocast_softmax(sm_registry *reg)
{
    CHECK_EQ(autocast_more(reg, 0, 0, 1), 2048);
    CHECK_EQ(autocast_more(reg, 0.1, 0, 1), 1024);
    CHECK_EQ(autocast_more(reg, 0.1, 1, 1), 1024);
    CHECK_EQ(autocast_more(reg, 0.1, 0, 0), 4096);
    CHECK_EQ(autocast_more(reg, 0.1, 1, 0), 2048);
    /* Llama's own fp32 softmax is the same under autocast; softmax=native becomes it */
    sm_memory_config amp = {
        .half = 1, .autocast = 1, .optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_network *dflt = lm_with(reg, ""), *native = lm_with(reg, "softmax=native");
    if (dflt && native)
        CHECK_EQ(activations_at(native, 2, &amp, 1), activations_at(dflt, 2, &amp, 1));
    else
        CHECK(0);
    sm_network_free(dflt);
    sm_network_free(native);
}

static void test_impl_sdpa(sm_registry *reg)
{
    sm_network *sdpa = lm_with(reg, "impl=sdpa"), *eager = lm_with(reg, "impl=eager");
    if (!sdpa || !eager) {
        CHECK(0);
        sm_network_free(sdpa);
        sm_network_free(eager);
        return;
    }
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    CHECK_EQ(activations_at(sdpa, 1, &c, 1), 16512);
    CHECK_EQ(activations_at(eager, 1, &c, 1), 18432);
    c.fused_attention = SM_ATTENTION_EAGER;
    CHECK_EQ(activations_at(sdpa, 1, &c, 1), 18432);
    c.fused_attention = SM_ATTENTION_FUSED;
    CHECK_EQ(activations_at(eager, 1, &c, 1), 16512);
    sm_memory_config amp = {
        .half = 1, .autocast = 1, .optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory_config cast = {.half = 1, .optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    CHECK_EQ(activations_at(sdpa, 2, &amp, 1), activations_at(sdpa, 2, &cast, 1));
    sm_network_free(sdpa);
    sm_network_free(eager);
    sm_memory_config cpu = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 4, .no_fused_dropout = 1};
    sm_memory_config cuda = cpu;
    cuda.no_fused_dropout = 0;
    for (int dropout = 0; dropout <= 1; dropout++) {
        char text[512], text_eager[512];
#define TINY_GPT                                                                                   \
    "[network]\nname = tiny_gpt\ninput = 16x8\n[layers]\n"                                         \
    "attn = attention dim=8 heads=2 dropout=%g impl=%s\n"
        snprintf(text, sizeof text, TINY_GPT, dropout * 0.1, "sdpa");
        snprintf(text_eager, sizeof text_eager, TINY_GPT, dropout * 0.1, "eager");
        sm_network *s = NULL, *e = NULL;
        sm_status st;
        if (sm_network_load(reg, net_file(text), NULL, &s, &st) ||
            sm_network_load(reg, net_file(text_eager), NULL, &e, &st)) {
            fprintf(stderr, "%s\n", st.msg);
            CHECK(0);
        } else {
            CHECK_EQ(activations_at(s, 2, &cpu, 1) == activations_at(e, 2, &cpu, 1), dropout);
            CHECK(activations_at(s, 2, &cuda, 1) < activations_at(e, 2, &cuda, 1));
            /* at inference the dropout is the identity: the fused kernel runs on the CPU too
             * (it was priced eager there, dropout or not: the hostile round of 2026-11-26) */
            CHECK(activations_at(s, 2, &cpu, 0) < activations_at(e, 2, &cpu, 0));
        }
        sm_network_free(s);
        sm_network_free(e);
    }
}

int main(void)
{
    sm_registry *reg;
    sm_network *net;
    sm_status st;
    if (sm_registry_open(&reg, &st) || sm_network_load(reg, net_file(lm), NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    CHECK_EQ(activations(net, 1, 0, SM_CHECKPOINT_NONE), 18432);
    CHECK_EQ(activations(net, 1, 1, SM_CHECKPOINT_NONE), 16512);
    CHECK_EQ(activations(net, 1, 1, SM_CHECKPOINT_SELECTIVE), 12928);
    CHECK_EQ(activations(net, 3, 1, SM_CHECKPOINT_SELECTIVE), 3 * 12928);
    sm_network_free(net);
    test_softmax_fp32(reg);
    test_autocast_softmax(reg);
    test_impl_sdpa(reg);
    sm_registry_free(reg);
    return check_summary();
}
