/*
 * The transformer part of the zoo: the plugins embedding, pos_embedding, cls_token, tokens,
 * select, attention and lm_head on cases counted by hand, and the networks vit_b_16, bert_base
 * and gpt2 against published parameter counts and PyTorch-computed MACs.
 *
 * Where the references come from (none of them from scalemeter):
 *
 * - torchvision 0.14.1 (Debian's /usr/bin/python3): vit_b_16() per-module output shapes
 *   (forward hooks) and parameter counts (sum of p.numel() over module.parameters()); the
 *   whole model has 86,567,656 parameters in 152 tensors, and torchvision's own
 *   ViT_B_16_Weights meta says num_params = 86567656.
 * - torch 1.13 profiler (with_flops=True, grad enabled so that nn.MultiheadAttention takes its
 *   composite path): the FLOPs of aten::conv2d, aten::addmm and aten::bmm, halved, are the MACs.
 *   ViT-B/16 at 224: conv2d 231,211,008 + addmm 33,465,790,464 + bmm 1,430,654,976 FLOPs
 *   = 17,563,828,224 MACs.
 * - BERT-base and GPT-2 small (no HF transformers here): plain-PyTorch stand-ins of the same
 *   tensor shapes (nn.Embedding tables, nn.TransformerEncoderLayer(768, 12, 3072), the pooler as
 *   nn.Linear(768, 768), GPT-2's head as F.linear(x, wte.weight)); the script is in
 *   docs/transformers.md. They give 109,482,240 and 124,439,808 parameters, equal to the
 *   published counts, and the profiler's matmul MACs quoted below.
 * - The hand derivations in the comments.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scalemeter/scalemeter.h"

static sm_registry *reg;

#define EQ(what, got, want)                                                                        \
    CHECK_MSG((int64_t)(got) == (int64_t)(want), "%s: got %" PRId64 ", want %" PRId64, what,       \
              (int64_t)(got), (int64_t)(want))

static sm_network *load(const char *model, int64_t image)
{
    sm_status st;
    sm_network *net = NULL;
    sm_network_options opt = {.image = image};
    if (sm_network_load(reg, model, &opt, &net, &st)) {
        check_failed++;
        fprintf(stderr, "cannot load %s (image %lld): %s\n", model, (long long)image, st.msg);
        return NULL;
    }
    return net;
}

/* Loading must fail with a message holding every one of the given pieces. */
static void load_fails(const char *model, int64_t image, const char *piece1, const char *piece2)
{
    sm_status st;
    sm_network *net = NULL;
    sm_network_options opt = {.image = image};
    if (sm_network_load(reg, model, &opt, &net, &st) == 0) {
        check_failed++;
        fprintf(stderr, "%s (image %lld) loaded but should have been refused\n", model,
                (long long)image);
        sm_network_free(net);
        return;
    }
    CHECK_MSG(strchr(st.msg, '\n') == NULL, "%s: message is not one line: %s", model, st.msg);
    CHECK_MSG(strstr(st.msg, piece1), "%s: message lacks '%s': %s", model, piece1, st.msg);
    CHECK_MSG(!piece2 || strstr(st.msg, piece2), "%s: message lacks '%s': %s", model, piece2,
              st.msg);
}

static const sm_layer *find_layer(const sm_network *net, const char *name)
{
    const sm_layer *l = sm_network_layer(net, name);
    if (l)
        return l;
    check_failed++;
    fprintf(stderr, "%s: no layer %s\n", net->name, name);
    return NULL;
}

static int find_block(const sm_network *net, const char *name)
{
    for (int b = 0; b < net->n_blocks; b++)
        if (strcmp(net->blocks[b], name) == 0)
            return b;
    check_failed++;
    fprintf(stderr, "%s: no block %s\n", net->name, name);
    return -1;
}

static void check_shape(const char *what, const sm_shape *s, const char *want)
{
    char buf[96];
    sm_shape_str(s, buf, sizeof buf);
    CHECK_MSG(strcmp(buf, want) == 0, "%s: shape %s, want %s", what, buf, want);
}

/* A layer's shape and per-sample counts; a want of -1 is not checked. */
typedef struct expect {
    const char *shape;
    int64_t flops, macs, weights, tensors, bytes, bwd;
} expect;

static void check_layer(const sm_network *net, const char *name, expect e)
{
    const sm_layer *l = find_layer(net, name);
    if (!l)
        return;
    char what[160];
    snprintf(what, sizeof what, "%s %s", net->name, name);
    check_shape(what, &l->out, e.shape);
    const int64_t got[] = {l->m.flops,         l->m.macs,  l->m.weights,
                           l->m.param_tensors, l->m.bytes, l->m.bwd_flops};
    const int64_t want[] = {e.flops, e.macs, e.weights, e.tensors, e.bytes, e.bwd};
    static const char *const field[] = {"flops",         "macs",  "weights",
                                        "param_tensors", "bytes", "bwd_flops"};
    for (int k = 0; k < 6; k++)
        if (want[k] >= 0)
            CHECK_MSG(got[k] == want[k], "%s: %s %" PRId64 ", want %" PRId64, what, field[k],
                      got[k], want[k]);
}

static sm_metrics totals(const sm_network *net, int64_t batch)
{
    sm_metrics m;
    sm_status st;
    memset(&m, 0, sizeof m);
    if (sm_network_metrics(net, batch, &m, &st)) {
        check_failed++;
        fprintf(stderr, "%s: %s\n", net->name, st.msg);
    }
    return m;
}

static sm_metrics block_totals(const sm_network *net, const char *name)
{
    sm_metrics m;
    sm_status st;
    memset(&m, 0, sizeof m);
    int b = find_block(net, name);
    if (b >= 0 && sm_block_metrics(net, b, 1, &m, &st)) {
        check_failed++;
        fprintf(stderr, "%s: %s\n", net->name, st.msg);
    }
    return m;
}

/* ---- the plugins, one small case each ---------------------------------------------------- */

/*
 * tests/data/transformers/small.ini: 6 token ids, E = 8.
 *
 * embedding vocab=10 dim=8:      6x8, weights 10*8 = 80 (1 tensor), 0 FLOPs,
 *                                bytes 4 (48 rows read + 48 written) = 384, bwd 48 (scatter-add).
 * pos_embedding max_len=7:       6x8, weights 7*8 = 56, FLOPs 6*8 = 48,
 *                                bytes 4 (48 input + 48 table + 48 output) = 576, bwd 48.
 * cls_token:                     7x8, weights 8, 0 FLOPs, bytes 4 (48 + 56) = 416, bwd 8.
 * attention dim=8 heads=2 (S = 7, E = 8, h = 2, d = 4):
 *   MACs   Q,K,V 3*7*64 = 1344, scores 2*7*7*4 = 392, context 392, output 7*64 = 448: 2576
 *          (torch profiler on nn.MultiheadAttention(8, 2) at S = 7: addmm + bmm = 2576 MACs)
 *   FLOPs  2*2576 = 5152, + scaling S E = 56, + softmax 3 h S^2 = 294, + bias 4 S E = 224: 5726
 *   weights 4*64 + 4*8 = 288 in 4 tensors (nn.MultiheadAttention(8, 2): 288 in 4 tensors)
 *   bytes  4 (20 S E + 4 h S^2) = 4 (1120 + 392) = 6048, bwd 2*5726 = 11452
 * attention heads=4 bias=false causal=true: MACs 2576 (heads and the mask change no product),
 *   FLOPs 5152 + 56 + 3*4*49 = 5796, weights 256 in 2 tensors (nn.MultiheadAttention(8, 4,
 *   bias=False): 256 in 2), bytes 4 (1120 + 4*4*49) = 7616, bwd 11592.
 * attention packed=false: as the first, in 8 tensors (query, key, value, output, each w + b),
 *   x read by each of the three projections: bytes 4 (22 S E + 4 h S^2) = 4 (1232 + 392) = 6496
 *   (Hugging Face's BertSelfAttention under tools/torch_eager_bytes.py reads it three times).
 * select (index 0 and -1):       8, nothing counted (a view).
 * lm_head vocab=10:              7x10, MACs 7*8*10 = 560, FLOPs 1120, no weights, bwd 2240.
 * lm_head vocab=10 bias=true:    FLOPs 1120 + 70 = 1190, weights 10 in 1 tensor, bwd 2380.
 */
static void test_small(void)
{
    sm_network *net = load("tests/data/transformers/small.ini", 0);
    if (!net)
        return;
    check_layer(net, "emb", (expect){"6x8", 0, 0, 80, 1, 384, 48});
    check_layer(net, "pos", (expect){"6x8", 48, 0, 56, 1, 576, 48});
    check_layer(net, "cls", (expect){"7x8", 0, 0, 8, 1, 416, 8});
    check_layer(net, "attn", (expect){"7x8", 5726, 2576, 288, 4, 6048, 11452});
    check_layer(net, "attn_causal", (expect){"7x8", 5796, 2576, 256, 2, 7616, 11592});
    check_layer(net, "attn_sep", (expect){"7x8", 5726, 2576, 288, 8, 6496, 11452});
    check_layer(net, "first", (expect){"8", 0, 0, 0, 0, 0, 0});
    check_layer(net, "last", (expect){"8", 0, 0, 0, 0, 0, 0});
    check_layer(net, "head", (expect){"7x10", 1120, 560, 0, 0, -1, 2240});
    check_layer(net, "head_bias", (expect){"7x10", 1190, 560, 10, 1, -1, 2380});

    /* A layer with weights is one of ConvMeter's L; lm_head without bias is not. Weights:
     * 80 + 56 + 8 + 288 + 256 + 288 + 10 = 986. At batch 3 every per-sample count triples and
     * the weights do not. */
    sm_metrics m1 = totals(net, 1), m3 = totals(net, 3);
    EQ("small weights", m1.weights, 986);
    EQ("small layers", m1.layers, 7);
    EQ("small macs", m1.macs, 2576 * 3 + 560 * 2);
    EQ("small macs at batch 3", m3.macs, 3 * m1.macs);
    EQ("small weights at batch 3", m3.weights, 986);
    sm_network_free(net);

    /* tokens: 4x3x5 -> 15 tokens of 4 (a view, nothing counted); cls_token -> 16x4; a position
     * table of exactly 16 rows fits (S = max_len is allowed). */
    net = load("tests/data/transformers/tokens.ini", 0);
    if (!net)
        return;
    check_layer(net, "tokens", (expect){"15x4", 0, 0, 0, 0, 0, 0});
    check_layer(net, "cls", (expect){"16x4", 0, 0, 4, 1, 4 * (60 + 64), 4});
    check_layer(net, "pos", (expect){"16x4", 64, 0, 64, 1, 12 * 64, 64});
    sm_network_free(net);
}

/* Every refusal names the file and the line of the layer. */
static void test_errors(void)
{
    load_fails("tests/data/transformers/bad_heads.ini", 0,
               "tests/data/transformers/bad_heads.ini:7:", "dim 12 is not divisible by heads 5");
    load_fails("tests/data/transformers/bad_max_len.ini", 0,
               "tests/data/transformers/bad_max_len.ini:8:", "longer than max_len 5");
    load_fails("tests/data/transformers/bad_attention_dim.ini", 0,
               "tests/data/transformers/bad_attention_dim.ini:8:", "attention has dim 16");
    load_fails("tests/data/transformers/bad_embedding_input.ini", 0,
               "tests/data/transformers/bad_embedding_input.ini:7:", "token ids");
    load_fails("tests/data/transformers/bad_select.ini", 0,
               "tests/data/transformers/bad_select.ini:8:", "index 6 out of range");
    /* --image sets the number of token ids: 7 fills the position table of 7 rows exactly
     * (allowed), 8 is one too many and names pos_embedding's line. */
    sm_network *net = load("tests/data/transformers/small.ini", 7);
    sm_network_free(net);
    load_fails("tests/data/transformers/small.ini", 8, "tests/data/transformers/small.ini:8:",
               "sequence of 8 positions is longer than "
               "max_len 7");

    /* BERT at 1024 tokens: its position table has 512 rows. The message names the line of
     * embeddings.position_embeddings, found here by reading the file. */
    FILE *f = fopen("models/bert_base.ini", "r");
    char line[256], want[64] = "models/bert_base.ini:?";
    for (int n = 1; f && fgets(line, sizeof line, f); n++)
        if (strncmp(line, "position_embeddings", 19) == 0)
            snprintf(want, sizeof want, "models/bert_base.ini:%d ", n);
    if (f)
        fclose(f);
    load_fails("models/bert_base.ini", 1024, want, "longer than max_len 512");
    load_fails("models/gpt2.ini", 1025, "models/gpt2.ini:", "longer than max_len 1024");
    /* ViT at 384: (384/16)^2 + 1 = 577 tokens against a table of 197. */
    load_fails("models/vit_b_16.ini", 384, "models/vit_b_16.ini:", "longer than max_len 197");
}

/* ---- ViT-B/16 ----------------------------------------------------------------------------- */

/*
 * Output shapes (batch dropped) and parameter counts from torchvision 0.14.1, by
 *   m = torchvision.models.vit_b_16(); forward hooks on the named modules at 1x3x224x224;
 *   sum(p.numel() for p in module.parameters()), len(list(module.parameters())):
 *
 *   conv_proj                                     (768, 14, 14)   590,592   2
 *   encoder.dropout                               (197, 768)            0   0
 *   encoder.layers.encoder_layer_0.ln_1           (197, 768)        1,536   2
 *   encoder.layers.encoder_layer_0.self_attention (197, 768)    2,362,368   4
 *   encoder.layers.encoder_layer_0.mlp.0          (197, 3072)   2,362,368   2
 *   encoder.layers.encoder_layer_0.mlp.3          (197, 768)    2,360,064   2
 *   encoder.layers.encoder_layer_5                (197, 768)    7,087,872  12
 *   encoder.layers.encoder_layer_11               (197, 768)    7,087,872  12
 *   encoder.ln                                    (197, 768)        1,536   2
 *   heads.head                                    (1000,)         769,000   2
 *   class_token 768 elements, encoder.pos_embedding 151,296 (1 x 197 x 768)
 *   whole model: 86,567,656 parameters in 152 tensors
 *
 * MACs: torch profiler 17,563,828,224 (see the top of this file). By hand, S = 197, E = 768:
 *   conv_proj 768*196*3*16*16 = 115,605,504
 *   per layer: attention 4 S E^2 + 2 S^2 E = 464,781,312 + 59,610,624 = 524,391,936,
 *              mlp 2 S E 3072 = 929,562,624; total 1,453,954,560; 12 layers 17,447,454,720
 *   head 768,000
 *   total 17,563,828,224; torchvision's documentation gives 17.56 "GFLOPS", which agrees to
 *   every digit with this count of multiply-accumulates of the convolution and matrix products.
 */
static void test_vit(void)
{
    sm_network *net = load("models/vit_b_16.ini", 0);
    if (!net)
        return;
    check_layer(net, "conv_proj", (expect){"768x14x14", -1, 115605504, 590592, 2, -1, -1});
    check_layer(net, "tokens", (expect){"196x768", 0, 0, 0, 0, 0, 0});
    check_layer(net, "class_token", (expect){"197x768", 0, 0, 768, 1, -1, -1});
    check_layer(net, "encoder.pos_embedding", (expect){"197x768", -1, 0, 151296, 1, -1, -1});
    check_layer(net, "encoder.dropout", (expect){"197x768", 0, 0, 0, 0, -1, -1});
    check_layer(net, "encoder.layers.encoder_layer_0.ln_1",
                (expect){"197x768", -1, 0, 1536, 2, -1, -1});
    check_layer(net, "encoder.layers.encoder_layer_0.self_attention",
                (expect){"197x768", -1, 524391936, 2362368, 4, -1, -1});
    check_layer(net, "encoder.layers.encoder_layer_0.mlp.0",
                (expect){"197x3072", -1, 464781312, 2362368, 2, -1, -1});
    check_layer(net, "encoder.layers.encoder_layer_0.mlp.3",
                (expect){"197x768", -1, 464781312, 2360064, 2, -1, -1});
    check_layer(net, "encoder.layers.encoder_layer_11.add_1",
                (expect){"197x768", -1, 0, 0, 0, -1, -1});
    check_layer(net, "encoder.ln", (expect){"197x768", -1, 0, 1536, 2, -1, -1});
    check_layer(net, "select", (expect){"768", 0, 0, 0, 0, 0, 0});
    check_layer(net, "heads.head", (expect){"1000", -1, 768000, 769000, 2, -1, -1});

    sm_metrics b5 = block_totals(net, "encoder.layers.encoder_layer_5");
    EQ("vit encoder_layer_5 weights", b5.weights, 7087872);
    EQ("vit encoder_layer_5 tensors", b5.param_tensors, 12);
    EQ("vit encoder_layer_5 macs", b5.macs, 1453954560);

    sm_metrics m = totals(net, 1);
    EQ("vit_b_16 weights", m.weights, 86567656);
    EQ("vit_b_16 param tensors", m.param_tensors, 152);
    EQ("vit_b_16 macs", m.macs, INT64_C(17563828224));
    /* torchvision's 17.56, to the same two decimals */
    EQ("vit_b_16 GMACs * 100, rounded", (m.macs + 5000000) / 10000000, 1756);
    /* ConvMeter's I and O: the patch embedding is the one convolution, 3x224x224 -> 768x14x14 */
    EQ("vit_b_16 conv inputs", m.inputs, 3 * 224 * 224);
    EQ("vit_b_16 conv outputs", m.outputs, 768 * 14 * 14);
    sm_network_free(net);

    /* --image 112: 7x7 = 49 patches + the class token = 50 tokens, which torchvision's ViT
     * refuses (it asserts the image size it was built for) and its position table, added
     * whole (1 x 197 x 768), cannot meet: refused, where it was priced at 50 tokens */
    load_fails("models/vit_b_16.ini", 112, "vit_b_16.ini:19: layer encoder.pos_embedding",
               "sequence of 50 positions, but the table is added whole and holds exactly 197");
}

/* ---- BERT-base ---------------------------------------------------------------------------- */

/*
 * Parameters of bert-base-uncased (published: 109,482,240, pooler included), by hand:
 *   embeddings: word 30522*768 = 23,440,896, position 512*768 = 393,216,
 *               token type 2*768 = 1,536, LayerNorm 2*768 = 1,536          23,837,184
 *   one layer:  query, key, value, output 4*(768*768 + 768) = 2,362,368,
 *               attention LayerNorm 1,536, intermediate 768*3072 + 3072 = 2,362,368,
 *               output 3072*768 + 768 = 2,360,064, LayerNorm 1,536           7,087,872
 *   12 layers                                                                 85,054,464
 *   pooler dense 768*768 + 768                                                   590,592
 *   total                                                                    109,482,240
 * Tensors: embeddings 3 + 2, each layer 8 + 2 + 2 + 2 + 2 = 16, pooler 2: 5 + 192 + 2 = 199.
 *
 * MACs per sample at S tokens, E = 768, F = 3072 (the embeddings are gathers: 0):
 *   one layer: Q,K,V,O 4 S E^2 + scores and context 2 S^2 E + FFN 2 S E F = 12 S E^2 + 2 S^2 E
 *   pooler (on the first token only): E^2 = 589,824
 *   S = 128: 12*128*589,824 = 905,969,664 + 2*16,384*768 = 25,165,824 -> 931,135,488 a layer,
 *            11,173,625,856 for 12, + 589,824 = 11,174,215,680
 *   (PyTorch stand-in, profiler: 5,511,905,280 at S = 64, 11,174,215,680 at 128,
 *    22,951,821,312 at 256.)
 * FLOPs at S = 128 (docs/transformers.md has the sum written out):
 *   embeddings: add S E + position add S E + LayerNorm 5 S E = 688,128
 *   one layer: attention 2*327,155,712 + 12 S^2 (scores / sqrt(d)) + 12 S^2 (+ mask)
 *              + 3*12*S^2 + 4 S E = 655,687,680; adds 2*98,304;
 *              LayerNorms 2*491,520; intermediate 2*301,989,888 + S F = 604,372,992;
 *              GELU 8 S F = 3,145,728; output 2*301,989,888 + S E = 604,078,080
 *              -> 1,868,464,128; 12 layers 22,421,569,536
 *   pooler 2*589,824 + 768 + tanh 5*768 = 1,184,256
 *   total 22,423,441,920
 */
static void test_bert(void)
{
    sm_network *net = load("models/bert_base.ini", 0);
    if (!net)
        return;
    CHECK_MSG(net->input.ndim == 1 && net->input.dim[0] == 128, "bert_base input is not 128");
    check_layer(net, "embeddings.word_embeddings", (expect){"128x768", 0, 0, 23440896, 1, -1, -1});
    check_layer(net, "embeddings.token_type_embeddings",
                (expect){"128x768", 0, 0, 1536, 1, -1, -1});
    check_layer(net, "embeddings.position_embeddings",
                (expect){"128x768", 98304, 0, 393216, 1, -1, -1});
    check_layer(net, "encoder.layer.5.attention",
                (expect){"128x768", 655687680, 327155712, 2362368, 8, -1, -1});
    check_layer(net, "encoder.layer.5.intermediate.dense",
                (expect){"128x3072", 604372992, 301989888, 2362368, 2, -1, -1});
    /* its scaling and its additive mask, one row a sequence broadcast over the scores (ABI 18) */
    const sm_layer *att = find_layer(net, "encoder.layer.5.attention");
    if (att) {
        EQ("bert attention passes forward", att->m.scores_passes_fwd, 2);
        EQ("bert attention broadcast passes", att->m.scores_broadcast_passes, 1);
        /* Hugging Face's BertSelfAttention written out (ABI 19): context_layer.permute(0, 2,
         * 1, 3).contiguous() copies the 128 x 768 context forward; backward the views of its
         * query, key and value layers (view, then permute) copy three 128 x 768 gradients back */
        EQ("bert attention copies forward", att->m.copy_elems_fwd, 128 * 768);
        EQ("bert attention copies backward", att->m.copy_elems_bwd, 3 * 128 * 768);
        /* the query's, key's, value's and output's biases (nn.Linear each): their gradients
         * are the four 128 x 768 output gradients summed over the 128 rows (ABI 20) */
        EQ("bert attention bias gradients", att->m.bias_grad_elems, 4 * 128 * 768);
        EQ("bert attention bias sums", att->m.bias_grad_sums, 4);
    }
    const sm_layer *ffn = find_layer(net, "encoder.layer.5.intermediate.dense");
    if (ffn) { /* nn.Linear(768, 3072): its 128 x 3072 output gradient summed over the rows */
        EQ("bert intermediate bias gradient", ffn->m.bias_grad_elems, 128 * 3072);
        EQ("bert intermediate bias sums", ffn->m.bias_grad_sums, 1);
    }
    check_layer(net, "encoder.layer.5.output.LayerNorm",
                (expect){"128x768", 491520, 0, 1536, 2, -1, -1});
    check_layer(net, "pooler.dense", (expect){"768", 1180416, 589824, 590592, 2, -1, -1});
    check_layer(net, "pooler.activation", (expect){"768", 3840, 0, 0, 0, -1, -1});

    sm_metrics e = block_totals(net, "embeddings");
    EQ("bert embeddings weights", e.weights, 23837184);
    EQ("bert embeddings flops", e.flops, 688128);
    sm_metrics l5 = block_totals(net, "encoder.layer.5");
    EQ("bert encoder.layer.5 weights", l5.weights, 7087872);
    EQ("bert encoder.layer.5 tensors", l5.param_tensors, 16);
    EQ("bert encoder.layer.5 macs", l5.macs, 931135488);
    EQ("bert encoder.layer.5 flops", l5.flops, 1868464128);

    sm_metrics m = totals(net, 1);
    EQ("bert_base weights", m.weights, 109482240);
    EQ("bert_base param tensors", m.param_tensors, 199);
    EQ("bert_base macs at 128", m.macs, INT64_C(11174215680));
    EQ("bert_base flops at 128", m.flops, INT64_C(22423441920));
    EQ("bert_base conv inputs", m.inputs, 0);
    sm_network_free(net);

    /* --image 128 is the default; it must give the same numbers as docs/transformers.md. */
    net = load("bert_base", 128);
    if (net) {
        EQ("bert_base by name, --image 128", totals(net, 1).macs, INT64_C(11174215680));
        sm_network_free(net);
    }
}

/* ---- GPT-2 small -------------------------------------------------------------------------- */

/*
 * Parameters of GPT-2 small (published: 124,439,808, the tied head counted once), by hand:
 *   wte 50257*768 = 38,597,376, wpe 1024*768 = 786,432
 *   one block: ln_1 1,536, c_attn 768*2304 + 2304 = 1,771,776, c_proj 768*768 + 768 = 590,592,
 *              ln_2 1,536, c_fc 768*3072 + 3072 = 2,362,368, mlp.c_proj 3072*768 + 768
 *              = 2,360,064 -> 7,087,872; 12 blocks 85,054,464
 *   ln_f 1,536; lm_head 0 (tied to wte)
 *   total 124,439,808
 * Tensors: 2 + 12*12 + 2 = 148 (named_parameters() lists the tied matrix once).
 *
 * MACs at S tokens: 12 blocks of 12 S E^2 + 2 S^2 E (the causal mask halves nothing: PyTorch
 * computes the full S x S scores), + lm_head S E V with V = 50257:
 *   S = 1024: 12*1024*589,824 = 7,247,757,312 + 2*1,048,576*768 = 1,610,612,736
 *             -> 8,858,370,048 a block, 106,300,440,576 for 12;
 *             lm_head 1024*768*50257 = 39,523,713,024; total 145,824,153,600
 *   S = 512:  3,623,878,656 + 402,653,184 = 4,026,531,840 a block, 48,318,382,080 for 12;
 *             lm_head 19,761,856,512; total 68,080,238,592
 *   (PyTorch stand-in, profiler: 68,080,238,592 at 512, 145,824,153,600 at 1024.)
 */
static void test_gpt2(void)
{
    sm_network *net = load("models/gpt2.ini", 0);
    if (!net)
        return;
    CHECK_MSG(net->input.ndim == 1 && net->input.dim[0] == 1024, "gpt2 input is not 1024");
    check_layer(net, "wte", (expect){"1024x768", 0, 0, 38597376, 1, -1, -1});
    check_layer(net, "wpe", (expect){"1024x768", 786432, 0, 786432, 1, -1, -1});
    /* 4*1024*589,824 + 2*1024^2*768 = 2,415,919,104 + 1,610,612,736 */
    check_layer(net, "h.5.attn", (expect){"1024x768", -1, INT64_C(4026531840), 2362368, 4, -1, -1});
    check_layer(net, "lm_head", (expect){"1024x50257", -1, INT64_C(39523713024), 0, 0, -1, -1});
    /* GPT2Attention's _merge_heads (permute, contiguous) copies the 1024 x 768 context; the
     * views of _split_heads copy the query's, key's and value's gradients back (ABI 19) */
    const sm_layer *attn = find_layer(net, "h.5.attn");
    if (attn) {
        EQ("gpt2 attention copies forward", attn->m.copy_elems_fwd, 1024 * 768);
        EQ("gpt2 attention copies backward", attn->m.copy_elems_bwd, 3 * 1024 * 768);
        /* c_attn's bias (2,304 = Q, K, V) and c_proj's (768), each summed over 1024 rows */
        EQ("gpt2 attention bias gradients", attn->m.bias_grad_elems, 4 * 1024 * 768);
        EQ("gpt2 attention bias sums", attn->m.bias_grad_sums, 2); /* c_attn's, c_proj's */
    }
    /* the tied head has no bias: nothing summed */
    const sm_layer *head = find_layer(net, "lm_head");
    if (head)
        EQ("gpt2 lm_head bias gradient", head->m.bias_grad_elems + head->m.bias_grad_sums, 0);
    sm_metrics h5 = block_totals(net, "h.5");
    EQ("gpt2 h.5 weights", h5.weights, 7087872);
    EQ("gpt2 h.5 macs", h5.macs, INT64_C(8858370048));

    sm_metrics m = totals(net, 1);
    EQ("gpt2 weights", m.weights, 124439808);
    EQ("gpt2 param tensors", m.param_tensors, 148);
    EQ("gpt2 macs at 1024", m.macs, INT64_C(145824153600));
    sm_network_free(net);

    net = load("models/gpt2.ini", 512);
    if (net) {
        EQ("gpt2 macs at 512", totals(net, 1).macs, INT64_C(68080238592));
        EQ("gpt2 weights at 512", totals(net, 1).weights, 124439808);
        sm_network_free(net);
    }
}

/* ---- sequence length: scores grow with S^2, projections with S ------------------------- */

/*
 * One attention layer of E = 768 at S tokens: projections P(S) = 4 S E^2, scores and context
 * Q(S) = 2 S^2 E. Doubling S doubles P and quadruples Q, so with m(S) = P(S) + Q(S),
 *   m(2S) - 2 m(S) = 2 Q(S)   and   4 m(S) - m(2S) = 2 P(S).
 *   S = 64:  P = 150,994,944, Q = 6,291,456, m = 157,286,400
 *   S = 128: P = 301,989,888, Q = 25,165,824, m = 327,155,712
 *   S = 256: P = 603,979,776, Q = 100,663,296, m = 704,643,072
 * The whole of BERT-base: 12 (12 E^2 S + 2 E S^2) + E^2 = 84,934,656 S + 18,432 S^2 + 589,824.
 */
static void test_sequence_length(void)
{
    static const int64_t seq[] = {64, 128, 256};
    static const int64_t proj[] = {150994944, 301989888, 603979776};
    static const int64_t scores[] = {6291456, 25165824, 100663296};
    static const int64_t bert[] = {INT64_C(5511905280), INT64_C(11174215680), INT64_C(22951821312)};
    int64_t attn[3] = {0, 0, 0}, mlp[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        sm_network *net = load("models/bert_base.ini", seq[k]);
        if (!net)
            return;
        const sm_layer *a = find_layer(net, "encoder.layer.0.attention");
        const sm_layer *f = find_layer(net, "encoder.layer.0.intermediate.dense");
        attn[k] = a ? a->m.macs : 0;
        mlp[k] = f ? f->m.macs : 0;
        EQ("bert attention macs", attn[k], proj[k] + scores[k]);
        EQ("bert macs", totals(net, 1).macs,
           INT64_C(84934656) * seq[k] + INT64_C(18432) * seq[k] * seq[k] + 589824);
        EQ("bert macs (PyTorch)", totals(net, 1).macs, bert[k]);
        sm_network_free(net);
    }
    for (int k = 0; k < 2; k++) {
        EQ("scores: m(2S) - 2 m(S) = 2 Q(S)", attn[k + 1] - 2 * attn[k], 2 * scores[k]);
        EQ("projections: 4 m(S) - m(2S) = 2 P(S)", 4 * attn[k] - attn[k + 1], 2 * proj[k]);
        EQ("scores quadruple", scores[k + 1], 4 * scores[k]);
        EQ("projections double", proj[k + 1], 2 * proj[k]);
        EQ("the MLP is linear in S", mlp[k + 1], 2 * mlp[k]);
    }
}

int main(void)
{
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "cannot open plugins: %s\n", st.msg);
        return 1;
    }
    static const char *const needed[] = {"embedding", "pos_embedding", "cls_token", "tokens",
                                         "select",    "attention",     "lm_head"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        CHECK_MSG(sm_registry_find(reg, needed[i]), "plugin %s is not loaded", needed[i]);
    test_small();
    test_errors();
    test_vit();
    test_bert();
    test_gpt2();
    test_sequence_length();
    sm_registry_free(reg);
    return check_summary();
}
