/*
 * test_memory: one device's memory (memory.h) on a small network whose every byte is derived
 * by hand below from what PyTorch's autograd keeps (derivatives.yaml, and the per-module record
 * of tools/torch_saved_tensors.py): a convolution keeps its input, batch norm its input and two
 * fp32 statistics per channel, ReLU its output, max pooling its input and int64 indices, a view
 * nothing, linear its input, dropout its mask. The zoo against PyTorch itself is
 * tests/test_memory_zoo.py.
 *
 *   input 3x8x8 (192) -> conv 4 3x3 pad 1, no bias (256) -> batch norm (256) -> ReLU (256)
 *   -> max pool 2 (64) -> flatten (64, a view) -> linear 10 (10) -> dropout 0.5 (10)
 *
 * Kept at fp32, per sample: the input 768 B (conv), conv's output 1024 B (batch norm), ReLU's
 * output 1024 B (ReLU; max pooling keeps the same storage), the indices 8 x 64 = 512 B, the
 * pooled output 256 B (linear, through the view), the mask 10 x 1 B: 3594 B, and batch norm's
 * 2 x 4 channels x 4 B = 32 B whatever the batch. Weights: 108 + 8 + 650 = 766. Beside what
 * autograd keeps, the network's output (dropout's 10 values, 40 B), which the loss reads:
 * 3634 B a sample and 32.
 *
 * The backward pass, layer by layer from the last, holds what the layers up to the one
 * running keep, the gradients made and not yet used up, and the gradients the layer makes
 * for its inputs (the network's input needs none; the view passes its gradient on). Per
 * sample: dropout 3634 + 40 (output's) + 40 (fc's output's); fc 3584 (less the mask and the
 * output) + 40 + 256; flatten 3328 + 256; max pool 3328 + 256 + 1024; ReLU 2816 (less the
 * indices) + 1024 + 1024 = 4864, the most; batch norm 1792 + 1024 + 1024; conv 768 + 1024.
 * The backward pass's part is 4864 - 3634 = 1230 B a sample.
 *
 * Autocast runs layer norm in fp32 (ATen's autocast_mode.cpp, its fp32 list; plugin.h's
 * SM_TRAIT_AUTOCAST_FP32), and `tools/torch_autocast_norm.py` measures what PyTorch keeps then:
 * its input in fp32, 4 bytes an element where a bf16 layer norm keeps 2. On input 16x8 (128)
 * -> layer norm -> linear 8 at bf16, training under autocast keeps 2 x 128 = 256 B a sample
 * more than a cast model. Inference: the norm's output is fp32 too, so the peak, while the
 * linear layer runs (the 16-bit input, which the caller holds, the norm's output and its own, 8
 * x 16 at 16 bits), is 2 x 128 + 4 x 128 + 2 x 128 = 1024 B where a cast model's is 768 B.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "net_file.h"
#include "scalemeter/memory.h"

static const char *const tiny = "[network]\nname = tiny\ninput = 3x8x8\n[layers]\n"
                                "conv = conv2d out=4 kernel=3 padding=1 bias=false\n"
                                "bn = batchnorm2d\nrelu = relu\npool = maxpool2d kernel=2\n"
                                "flat = flatten\nfc = linear out=10\ndrop = dropout p=0.5\n";

static void test_training(const sm_network *net)
{
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_ADAM, .mask_bytes = 1};
    sm_memory m;
    sm_status st;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 3634 + 32);
    CHECK_EQ(m.backward, 1230);
    CHECK_EQ(m.weights, 4 * 766);
    CHECK_EQ(m.gradients, 4 * 766);
    CHECK_EQ(m.optimizer, 8 * 766); /* Adam: two fp32 moments */
    CHECK_EQ(m.fits, -1);           /* no capacity given */
    CHECK(sm_network_memory(net, 4, 2, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 4 * 3634 + 32);
    CHECK_EQ(m.backward, 4 * 1230);
    CHECK_EQ(m.gradients, 2 * 4 * 766); /* DDP's bucket copy beside the gradients */
    CHECK_EQ(m.peak, 4 * 766 + 8 * 766 + 8 * 766 + 4 * 4864 + 32);
    /* bf16 autocast: activations of 2 bytes (768 elements), indices and mask as stored, the
     * half copies of the convolution's and the linear layer's weights (108 + 650), and the
     * output at 2 bytes. The backward pass's peak moves to fc, whose weights' copy is still
     * held: 3626 less the mask and the output (30), its output's gradient 20, its input's 128:
     * 3744, 118 more than kept (ReLU's: 1656 + 512 + 512, pool's: 2168 + 128 + 512) */
    c.half = 1;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 2 * 768 + 512 + 10 + 32 + 2 * 758 + 20);
    CHECK_EQ(m.backward, 118);
    /* batch 2^32 stays finite and exact */
    c.half = 0;
    CHECK(sm_network_memory(net, INT64_C(1) << 32, 1, 1, &c, &m, &st) == 0);
    CHECK(m.activations == 3634.0 * 4294967296.0 + 32);
    CHECK(m.backward == 1230.0 * 4294967296.0);
}

/* Inference: the live tensors, layer by layer: the input (768), which the caller holds to the
 * end, and beside it conv's output (1024), then each output beside the one it reads, 768 + 2048
 * at most; the view allocates nothing. */
static void test_inference(const sm_network *net)
{
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory m;
    sm_status st;
    CHECK(sm_network_memory(net, 1, 1, 0, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, 2816);
    CHECK_EQ(m.gradients, 0);
    CHECK_EQ(m.optimizer, 0);
    CHECK_EQ(m.peak, 4 * 766 + 2816);
}

/* The largest batch: SGD, 100,000 bytes: 2 x 3064 + 32 + 4864 b fits up to b = 19. */
static void test_max_batch(const sm_network *net)
{
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1, .capacity_bytes = 100000};
    sm_memory m;
    sm_status st;
    int64_t b = -1;
    CHECK(sm_network_max_batch(net, 1, 1, &c, &b, &st) == 0);
    CHECK_EQ(b, 19);
    CHECK(sm_network_memory(net, 19, 1, 1, &c, &m, &st) == 0 && m.fits == 1);
    CHECK(sm_network_memory(net, 20, 1, 1, &c, &m, &st) == 0 && m.fits == 0);
    /* the context outside the allocator counts against the capacity */
    c.context_bytes = 3594;
    CHECK(sm_network_max_batch(net, 1, 1, &c, &b, &st) == 0);
    CHECK_EQ(b, 18);
    c.capacity_bytes = 1000; /* not even one sample */
    CHECK(sm_network_max_batch(net, 1, 1, &c, &b, &st) == 0);
    CHECK_EQ(b, 0);
    /* every batch fits (1 EB: 3634 B a sample is 2^38 samples, far past the 2^40 search at
     * 2 x 3064 + 4864 B): said apart from a largest batch, where the search's cap came back
     * as if it were one */
    c.capacity_bytes = 1e22;
    b = -1;
    CHECK(sm_network_max_batch(net, 1, 1, &c, &b, &st) == SM_MAX_BATCH_UNBOUNDED);
    CHECK_EQ(b, SM_MAX_BATCH_SEARCHED);
    CHECK_CONTAINS(st.msg, "every per-device batch up to 1099511627776 fits");
    c.capacity_bytes = 0;
    CHECK(sm_network_max_batch(net, 1, 1, &c, &b, &st) == -1);
    CHECK_CONTAINS(st.msg, "memory_gib");
    /* a capacity or a workspace that is no size: a NaN capacity was "not known" to memory
     * (fits -1) and a largest batch of 0 with success to max_batch; a NaN workspace made every
     * batch not fit; a negative one made room */
    c.capacity_bytes = NAN;
    b = -1;
    CHECK(sm_network_max_batch(net, 1, 1, &c, &b, &st) == -1 && b == 0);
    CHECK_CONTAINS(st.msg, "memory configuration: capacity_bytes = nan: expected a finite size");
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == -1);
    c.capacity_bytes = 1e9;
    c.workspace_bytes = NAN;
    CHECK(sm_network_max_batch(net, 1, 1, &c, &b, &st) == -1);
    CHECK_CONTAINS(st.msg, "workspace_bytes = nan");
    c.workspace_bytes = -1e12;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == -1);
    CHECK_CONTAINS(st.msg, "workspace_bytes = -1e+12");
    c.workspace_bytes = 0;
    c.context_bytes = INFINITY;
    CHECK(sm_network_memory(net, 1, 1, 0, &c, &m, &st) == -1);
    CHECK_CONTAINS(st.msg, "context_bytes = inf");
    c.context_bytes = 0;
    /* the C API's enums as ints, and no devices: refused, where an optimizer of 7 read past its
     * table and 0 devices gave numbers */
    sm_memory_config bad = {.optimizer = (sm_optimizer)7};
    CHECK(sm_network_memory(net, 1, 1, 1, &bad, &m, &st) == -1);
    CHECK_CONTAINS(st.msg, "optimizer 7");
    bad = (sm_memory_config){.shard = (sm_shard)9};
    CHECK(sm_network_memory(net, 1, 2, 1, &bad, &m, &st) == -1);
    bad = (sm_memory_config){.checkpoint = (sm_checkpoint)-1};
    CHECK(sm_network_memory(net, 1, 1, 1, &bad, &m, &st) == -1);
    c = (sm_memory_config){.mask_bytes = 1};
    CHECK(sm_network_memory(net, 1, 0, 1, &c, &m, &st) == -1);
    CHECK_CONTAINS(st.msg, "0 devices");
}

/* Activations per sample at batch 2, bf16, under autocast or in a cast model. */
static double norm_activations(const sm_network *net, int autocast, int training)
{
    sm_memory_config c = {
        .half = 1, .autocast = autocast, .optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory m;
    sm_status st;
    if (sm_network_memory(net, 2, 1, training, &c, &m, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return -1;
    }
    return m.activations / 2;
}

/* The network of text, or NULL after a failed check naming why. */
static sm_network *load_text(sm_registry *reg, const char *text)
{
    sm_network *net = NULL;
    sm_status st;
    if (sm_network_load(reg, net_file(text), NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        CHECK(0);
        return NULL;
    }
    return net;
}

static void test_autocast_norm(sm_registry *reg)
{
    const char *text = "[network]\nname = ln\ninput = 16x8\n[layers]\n"
                       "ln = layernorm\nfc = linear out=8\n";
    sm_network *net = load_text(reg, text);
    if (!net)
        return;
    CHECK_EQ(norm_activations(net, 1, 1) - norm_activations(net, 0, 1), 256);
    CHECK_EQ(norm_activations(net, 0, 0), 768);
    CHECK_EQ(norm_activations(net, 1, 0), 1024);
    sm_network_free(net);
}

/* A softmax under autocast keeps its fp32 result (CUDA autocast's fp32 list): it was kept at
 * 2 bytes an element. One sample at bf16, input 16 -> fc linear 32 (no bias) -> softmax:
 *   both         fc keeps its input 16 x 2 = 32 and its weight's 16-bit copy (512 x 2 = 1024,
 *                not per sample: 512 a sample at batch 2)
 *   cast model   the softmax runs at 16 bits, its output 32 x 2 = 64: 608
 *   autocast     the softmax keeps its fp32 output, 32 x 4 = 128: 672 */
static void test_autocast_softmax(sm_registry *reg)
{
    const char *text = "[network]\nname = sm\ninput = 16\n[layers]\n"
                       "fc = linear out=32 bias=false\nsm = softmax\n";
    sm_network *net = load_text(reg, text);
    if (!net)
        return;
    CHECK_EQ(norm_activations(net, 0, 1), 608);
    CHECK_EQ(norm_activations(net, 1, 1), 672);
    sm_network_free(net);
}

/* A tied output layer multiplies by the embedding's matrix, which autocast casts to 16 bits
 * and keeps as any other layer's weight: GPT-2's 50257 x 768 at bf16, 77 MB at every batch,
 * was left out (its lm_head declares no weights). Tokens 4 -> wte embedding 50 x 8 -> head
 * lm_head 50: the batch-independent part of the training activations at bf16 under autocast
 * is the head's 16-bit copy, 50 x 8 x 2 = 800 B; an untied linear 8 -> 50 keeps the same. */
static void test_tied_head_copy(sm_registry *reg)
{
    const char *tied = "[network]\nname = tied\ninput = 4\n[layers]\n"
                       "wte = embedding vocab=50 dim=8\nhead = lm_head vocab=50\n";
    const char *untied = "[network]\nname = untied\ninput = 4\n[layers]\n"
                         "wte = embedding vocab=50 dim=8\nhead = linear out=50 bias=false\n";
    const char *texts[] = {tied, untied};
    for (int k = 0; k < 2; k++) {
        sm_network *net = load_text(reg, texts[k]);
        if (!net)
            return;
        sm_memory_config c = {
            .half = 1, .autocast = 1, .optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
        sm_memory one, two;
        sm_status st;
        CHECK(sm_network_memory(net, 1, 1, 1, &c, &one, &st) == 0);
        CHECK(sm_network_memory(net, 2, 1, 1, &c, &two, &st) == 0);
        CHECK_EQ(2 * one.activations - two.activations, 800);
        sm_network_free(net);
    }
}

/* One sample's training memory of the network in text at fp32 with SGD: what autograd keeps
 * (activations) and what the backward pass holds beside it (backward), in bytes. */
static void check_kept(sm_registry *reg, const char *text, int64_t activations, int64_t backward)
{
    sm_network *net = load_text(reg, text);
    if (!net)
        return;
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory m;
    sm_status st;
    CHECK(sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_EQ(m.activations, activations);
    CHECK_EQ(m.backward, backward);
    sm_network_free(net);
}

/* The identity passes its gradient on. PyTorch returns a dropout of p = 0's input itself
 * (ATen's _dropout_impl), so no autograd node stands there and the gradient the residual sum
 * hands on is the one tensor both branches hold. At fp32, one sample:
 *
 *   input 16 -> a linear 16 -> b linear 64 -> c linear 16 -> d dropout 0 -> r add d, a
 *
 * Kept: the input 64 B (a), a's output 64 (b), b's 256 (c), r's 64 (the output): 448. The
 * backward pass: r hands its output's gradient G (64) to d and a; d hands G to c; c holds the
 * 384 that a, b and c keep, G, and its input's new gradient 256: 704, the peak, 256 above what
 * is kept. Were d to make a gradient of its own, it would sit beside G at c: 768. */
static void test_identity(sm_registry *reg)
{
    check_kept(reg,
               "[network]\nname = id\ninput = 16\n[layers]\n"
               "a = linear out=16\nb = linear out=64\nc = linear out=16\n"
               "d = dropout p=0.0\nr = add from=d,a\n",
               448, 256);
}

/* A view or identity after the last layer returns the output itself (nn.Identity in place of
 * a head): nothing changes. At fp32, one sample:
 *
 *   input 16 -> a linear 16 -> b linear 64 [-> id identity, or z dropout 0]
 *
 * Kept: the input 64 B (a), a's output 64 (b), b's output 256 (the loss reads it): 384. The
 * backward pass: b holds the 384, its output's gradient 256 and a's new one 64: 704, the peak,
 * 320 above what is kept. The identity freed the output before b's backward pass: 640, 256. */
static void test_trailing_identity(sm_registry *reg)
{
    static const char *const tails[] = {"", "id = identity\n", "z = dropout p=0\n",
                                        "flat = flatten\n"};
    for (size_t k = 0; k < sizeof tails / sizeof *tails; k++) {
        char text[256];
        snprintf(text, sizeof text,
                 "[network]\nname = tail\ninput = 16\n[layers]\n"
                 "a = linear out=16\nb = linear out=64\n%s",
                 tails[k]);
        check_kept(reg, text, 384, 320);
    }
}

int main(void)
{
    sm_registry *reg;
    sm_network *net;
    sm_status st;
    if (sm_registry_open(&reg, &st) || sm_network_load(reg, net_file(tiny), NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_training(net);
    test_inference(net);
    test_max_batch(net);
    test_autocast_norm(reg);
    test_autocast_softmax(reg);
    test_tied_head_copy(reg);
    test_identity(reg);
    test_trailing_identity(reg);
    sm_network_free(net);
    sm_registry_free(reg);
    return check_summary();
}
