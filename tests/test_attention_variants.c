/*
 * test_attention_variants: the extensions of the layer type attention beyond self-attention on
 * one sequence: cross-attention (a second input, the memory), groups of sequences (G x S x E,
 * MaxViT's windows), the relative position bias table (rel_pos=W) and scale=dim. Counts, CPU
 * forward, CPU backward and refusals.
 *
 * Where the expected numbers come from (none of them from the code under test):
 * - weights and parameter tensors of MaxViT's attention: PyTorch 1.13 / torchvision 0.14, by
 *     /usr/bin/python3 -c 'from torchvision.models.maxvit import \
 *         RelativePositionalMultiHeadAttention as R; m = R(64, 32, 49)
 *     print([n for n, _ in m.named_parameters()], sum(p.numel() for p in m.parameters()),
 *           len(list(m.parameters())))'
 *   which prints ['relative_position_bias_table', 'to_qkv.weight', 'to_qkv.bias',
 *   'merge.weight', 'merge.bias'] 16978 5 (the table comes first);
 * - MACs, FLOPs and bytes: hand-derived in the comments beside them; the two MAC counts also
 *   agree with PyTorch's profiler (torch.profiler.profile(with_flops=True), aten::mm/addmm +
 *   aten::bmm FLOPs / 2) on R(64, 32, 49) with a 1x4x49x64 input (3,211,264 + 1,229,312) and
 *   on nn.MultiheadAttention(8, 2)(x, mem, mem) with x 5x1x8, mem 7x1x8 (1,536 + 560);
 * - forward: the outputs PyTorch itself printed (the snippet is beside the numbers), and a
 *   direct loop in doubles written here from the definitions of nn.MultiheadAttention and
 *   torchvision's RelativePositionalMultiHeadAttention;
 * - backward: central finite differences of the forward pass (tests/gradient_check.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradient_check.h"

/* ---- counts -------------------------------------------------------------------------------- */

/* The metrics of layer "a" of a network text. */
static int attention_metrics(const char *text, sm_layer_metrics *m)
{
    return layer_metrics(text, "a", m);
}

static void test_counts(void)
{
    sm_layer_metrics m;
    /* MaxViT's block attention: RelativePositionalMultiHeadAttention(64, 32, 49) on 4 windows
     * of 7x7 = 49 tokens, E = 64, h = 64 / 32 = 2 heads. */
    if (attention_metrics(NET("4x49x64", "a = attention dim=64 heads=2 rel_pos=7 scale=dim\n"),
                          &m) == 0) {
        CHECK_EQ(m.weights, 16978);   /* PyTorch: sum(p.numel()) */
        CHECK_EQ(m.param_tensors, 5); /* PyTorch: to_qkv w, b, merge w, b, the table */
        /* per window (S = M = 49): 4 S E^2 + 2 S^2 E = 4*49*4096 + 2*2401*64
         * = 802,816 + 307,328 = 1,110,144; G = 4 windows: 4,440,576 */
        CHECK_EQ(m.macs, 4440576);
        /* per window: S E = 3,136; softmax 3 h S^2 = 3*2*2401 = 14,406; biases 4 S E = 12,544;
         * the position bias h S^2 = 4,802: 34,888; 2 macs + 4 * 34,888 = 8,881,152 + 139,552 */
        CHECK_EQ(m.flops, 9020704);
        CHECK_EQ(m.bwd_flops, 2 * 9020704);
        /* 4 G (20 S E + 4 h S^2 + 2 h S^2) = 16 (62,720 + 19,208 + 9,604) = 16 * 91,532 */
        CHECK_EQ(m.bytes, 1464512);
        CHECK_EQ(m.output_elems, 4 * 49 * 64);
    }
    /* one window: a quarter of the products, the same weights */
    if (attention_metrics(NET("49x64", "a = attention dim=64 heads=2 rel_pos=7 scale=dim\n"), &m) ==
        0) {
        CHECK_EQ(m.macs, 1110144);
        CHECK_EQ(m.weights, 16978);
    }
    /* scale=dim changes no count: nn.MultiheadAttention(8, 2) on 5x8, S = 5, E = 8, h = 2:
     * macs 4 S E^2 + 2 S^2 E = 1280 + 400 = 1680; flops 2 * 1680 + S E 40 + 3 h S^2 150 +
     * 4 S E 160 = 3710; bytes 4 (20 S E + 4 h S^2) = 4 (800 + 200) */
    static const char *const scales[2] = {NET("5x8", "a = attention dim=8 heads=2\n"),
                                          NET("5x8", "a = attention dim=8 heads=2 scale=dim\n")};
    for (int k = 0; k < 2; k++)
        if (attention_metrics(scales[k], &m) == 0) {
            CHECK_EQ(m.macs, 1680);
            CHECK_EQ(m.flops, 3710);
            CHECK_EQ(m.bytes, 4000);
            CHECK_EQ(m.weights, 288); /* 4 E^2 + 4 E */
            CHECK_EQ(m.param_tensors, 4);
        }
    /* Cross-attention, S = 5 queries, M = 7 memory rows (the input and its first 2 rows), E = 8,
     * h = 2. macs = 2 S E^2 + 2 M E^2 + 2 S M E = 640 + 896 + 560 = 2096.
     * flops = 2 macs 4192 + S E 40 + 3 h S M 210 + biases 2 S E + 2 M E = 80 + 112: 4634.
     * bytes = 4 (12 S E + 8 M E + M E (the memory read) + 4 h S M) = 4 (480 + 448 + 56 + 280) */
    if (attention_metrics(NET("5x8", "c = chunk chunks=3 index=0 axis=0\n"
                                     "mem = concat axis=0 from=@input,c\n"
                                     "a = attention dim=8 heads=2 from=@input,mem\n"),
                          &m) == 0) {
        CHECK_EQ(m.macs, 2096);
        CHECK_EQ(m.flops, 4634);
        CHECK_EQ(m.bwd_flops, 9268);
        CHECK_EQ(m.bytes, 5056);
        CHECK_EQ(m.weights, 288);     /* the same weights as self-attention */
        CHECK_EQ(m.param_tensors, 4); /* PyTorch's in_proj_weight, in_proj_bias, out_proj w, b */
        CHECK_EQ(m.input_elems, 40 + 56);
        CHECK_EQ(m.output_elems, 40);
    }
    /* a memory as long as the query: the MACs and FLOPs of self-attention (1680, 3710 above) */
    if (attention_metrics(
            NET("5x8", "mem = linear out=8\na = attention dim=8 heads=2 from=@input,mem\n"), &m) ==
        0) {
        CHECK_EQ(m.macs, 1680);
        CHECK_EQ(m.flops, 3710);
        CHECK_EQ(m.bytes, 4000 + 4 * 40); /* and the memory's S E read */
    }
}

/* ---- forward ------------------------------------------------------------------------------- */

/* The input of layer l's k-th input and the output of layer l, in the executor. */
static sm_tensor input_of(const sm_executor *ex, const sm_layer *l, int k)
{
    return l->inputs[k] == SM_NETWORK_INPUT ? sm_executor_input(ex)
                                            : sm_executor_activation(ex, l->inputs[k]);
}

/* Largest |y - reference| over seqs sequences of one attention layer, the reference in doubles
 * from the definitions (PyTorch's packed layout with biases): per sequence, with x (S x E) and
 * mem (M x E; x itself for self-attention),
 *   Q = x W_q^T + b_q,  K = mem W_k^T + b_k,  V = mem W_v^T + b_v  (W_q, W_k, W_v: rows 0..E-1,
 *   E..2E-1, 2E..3E-1 of in_proj_weight), for each head h of d features:
 *   A = softmax_j(Q_h K_h^T / sqrt(d) [scale=dim: sqrt(E)] + B_h) (causal: j <= i only),
 *   ctx_h = A V_h,  y = ctx W_o^T + b_o,
 * and with rel_pos = W (torchvision's maxvit): position i of the window at row i / W, column
 * i % W; B_h[i][j] = table[(ri - rj + W - 1) (2W - 1) + (ci - cj + W - 1)][h], the table
 * (2W - 1)^2 x heads before the projections' weights. */
typedef struct ref_case {
    int64_t s, m, e, heads, win;
    int scale_dim, causal;
} ref_case;

static double worst_vs_reference(const ref_case *c, const float *w, const float *x,
                                 const float *mem, const float *y, int64_t seqs)
{
    int64_t s = c->s, m = c->m, e = c->e, d = e / c->heads;
    int64_t table = c->win ? (2 * c->win - 1) * (2 * c->win - 1) * c->heads : 0;
    const float *win = w + table, *bin = win + 3 * e * e, *wout = bin + 3 * e, *bout = wout + e * e;
    double *q = malloc((size_t)(s * e) * sizeof *q), *k = malloc((size_t)(m * e) * sizeof *k);
    double *v = malloc((size_t)(m * e) * sizeof *v), *ctx = malloc((size_t)(s * e) * sizeof *ctx);
    double *a = malloc((size_t)m * sizeof *a);
    double div = sqrt((double)(c->scale_dim ? e : d)), worst = 0;
    for (int64_t t = 0; t < seqs; t++) {
        const float *xs = x + t * s * e, *ms = mem + t * m * e;
        for (int64_t r = 0; r < s; r++)
            for (int64_t j = 0; j < e; j++) {
                q[r * e + j] = bin[j];
                for (int64_t i = 0; i < e; i++)
                    q[r * e + j] += (double)win[j * e + i] * xs[r * e + i];
            }
        for (int64_t r = 0; r < m; r++)
            for (int64_t j = 0; j < e; j++) {
                k[r * e + j] = bin[e + j];
                v[r * e + j] = bin[2 * e + j];
                for (int64_t i = 0; i < e; i++) {
                    k[r * e + j] += (double)win[(e + j) * e + i] * ms[r * e + i];
                    v[r * e + j] += (double)win[(2 * e + j) * e + i] * ms[r * e + i];
                }
            }
        for (int64_t h = 0; h < c->heads; h++)
            for (int64_t i = 0; i < s; i++) {
                int64_t keys = c->causal ? i + 1 : m;
                double mx = -1e300, sum = 0;
                for (int64_t j = 0; j < keys; j++) {
                    a[j] = 0;
                    for (int64_t f = 0; f < d; f++)
                        a[j] += q[i * e + h * d + f] * k[j * e + h * d + f];
                    a[j] /= div;
                    if (c->win) {
                        int64_t dr = i / c->win - j / c->win, dc = i % c->win - j % c->win;
                        a[j] +=
                            w[((dr + c->win - 1) * (2 * c->win - 1) + dc + c->win - 1) * c->heads +
                              h];
                    }
                    mx = a[j] > mx ? a[j] : mx;
                }
                for (int64_t j = 0; j < keys; j++)
                    sum += a[j] = exp(a[j] - mx);
                for (int64_t f = 0; f < d; f++) {
                    ctx[i * e + h * d + f] = 0;
                    for (int64_t j = 0; j < keys; j++)
                        ctx[i * e + h * d + f] += a[j] / sum * v[j * e + h * d + f];
                }
            }
        for (int64_t i = 0; i < s; i++)
            for (int64_t j = 0; j < e; j++) {
                double out = bout[j];
                for (int64_t f = 0; f < e; f++)
                    out += (double)wout[j * e + f] * ctx[i * e + f];
                double diff = fabs(out - y[(t * s + i) * e + j]);
                worst = diff > worst ? diff : worst;
            }
    }
    free(q);
    free(k);
    free(v);
    free(ctx);
    free(a);
    return worst;
}

/* One forward (inference and training) of text at the batch, weights uniform in [-1, 1),
 * inputs spread, against the reference loop for layer "a". */
static void forward_case(const char *what, const char *text, const ref_case *c, int64_t batch)
{
    fixture f;
    sm_status st;
    random_weights = 1;
    int rc = setup(&f, text, batch);
    random_weights = 0;
    if (rc) {
        CHECK(!what);
        return;
    }
    const sm_layer *l = sm_network_layer(f.net, "a");
    int idx = (int)(l - f.net->layers);
    int64_t nw;
    const float *w = sm_executor_weights(f.ex, &nw) + sm_executor_weight_offset(f.ex, idx);
    for (int training = 0; training <= 1; training++) {
        CHECK(sm_executor_forward(f.ex, training, &st) == 0);
        sm_tensor x = input_of(f.ex, l, 0), y = sm_executor_activation(f.ex, idx);
        const float *mem = l->n_inputs == 2 ? input_of(f.ex, l, 1).data : x.data;
        int64_t seqs = sm_tensor_elems(&x) / (c->s * c->e);
        double worst = worst_vs_reference(c, w, x.data, mem, y.data, seqs);
        printf("%-44s %s: worst |y - reference| %.2e\n", what, training ? "training" : "inference",
               worst);
        CHECK(worst < 1e-5);
    }
    teardown(&f);
}

/* Two cases against the outputs PyTorch 1.13 printed for
 *     import torch; from torch import nn
 *     from torchvision.models.maxvit import RelativePositionalMultiHeadAttention as RelMHA
 *     f32 = lambda t: t.float().double()  # the values the fp32 test holds
 *     def fill(m):  # 0.1 sin(k + 1), k over the parameters in named_parameters() order
 *         n = sum(p.numel() for p in m.parameters())
 *         w = f32(0.1 * torch.sin(torch.arange(1, n + 1, dtype=torch.float64)))
 *         nn.utils.vector_to_parameters(w, m.parameters())
 *         return m.double()
 *     v = f32(0.1 * torch.cos(torch.arange(64, dtype=torch.float64)))  # the input, 0.1 cos(i)
 *     mem = v[24:].view(5, 1, 8)
 *     y1 = fill(nn.MultiheadAttention(8, 2))(v[:24].view(3, 1, 8), mem, mem)[0]
 *     y2 = fill(RelMHA(8, 4, 4))(v.view(1, 2, 4, 8))
 *     for y in y1, y2:
 *         print(",\n".join(", ".join("%.9f" % t for t in r) for r in y.view(-1, 4).tolist()))
 * (i) cross-attention, x = the input's first 3 rows (S = 3), mem = the other 5 (M = 5);
 * (ii) MaxViT's attention, 2 windows (G = 2) of 2x2 (W = 2), E = 8, 2 heads, sqrt(E) scaling.
 * The weights are one array in named_parameters() order, so (ii) also checks that the table
 * comes first. */
static void test_forward_pytorch(void)
{
    static const double cross[24] = {
        -0.109961446, -0.107659521, 0.048467056,  0.128374127,  0.044624444,  -0.035215257,
        -0.050124843, -0.073360408, -0.109957166, -0.107663547, 0.048463947,  0.128379058,
        0.044626118,  -0.035220674, -0.050124940, -0.073354962, -0.109958972, -0.107660225,
        0.048464786,  0.128375492,  0.044626316,  -0.035217166, -0.050126159, -0.073358115,
    };
    static const double windows[64] = {
        -0.054723228, -0.143376033, -0.040681316, 0.078573959,  0.072125363,  0.035764527,
        0.009393032,  -0.074489351, -0.054590442, -0.143421080, -0.040800993, 0.078653832,
        0.072221797,  0.035656592,  0.009328007,  -0.074362494, -0.054740842, -0.143386705,
        -0.040660597, 0.078578602,  0.072103293,  0.035766307,  0.009414584,  -0.074497403,
        -0.054603891, -0.143407205, -0.040791582, 0.078637219,  0.072217220,  0.035674537,
        0.009327362,  -0.074380251, -0.054572660, -0.143356130, -0.040837676, 0.078599557,
        0.072274274,  0.035695596,  0.009264180,  -0.074382924, -0.054488886, -0.143480324,
        -0.040885310, 0.078737612,  0.072281733,  0.035555370,  0.009297526,  -0.074252403,
        -0.054598525, -0.143357851, -0.040811310, 0.078593605,  0.072249640,  0.035708717,
        0.009284996,  -0.074402102, -0.054487733, -0.143461470, -0.040891949, 0.078720690,
        0.072293297,  0.035568927,  0.009282017,  -0.074261446,
    };
    /* 8 rows: chunks of 3, 3 and 2; the query the first, the memory the other two joined */
    static const char *const nets[2] = {
        NET("8x8", "q = chunk chunks=3 index=0 axis=0\n"
                   "m1 = chunk chunks=3 index=1 axis=0 from=@input\n"
                   "m2 = chunk chunks=3 index=2 axis=0 from=@input\n"
                   "mem = concat axis=0 from=m1,m2\n"
                   "a = attention dim=8 heads=2 from=q,mem\n"),
        NET("2x4x8", "a = attention dim=8 heads=2 rel_pos=2 scale=dim\n"),
    };
    static const char *const what[2] = {"MultiheadAttention(8, 2)(x, mem, mem) vs PyTorch",
                                        "RelPosMHA(8, 4, 4) on 1x2x4x8 vs PyTorch"};
    static const double *const want[2] = {cross, windows};
    static const int64_t n_out[2] = {24, 64}, n_w[2] = {288, 306}; /* + the table's 9 x 2 */
    static const ref_case cases[2] = {{3, 5, 8, 2, 0, 0, 0}, {4, 4, 8, 2, 2, 1, 0}};
    for (int k = 0; k < 2; k++) {
        fixture f;
        sm_status st;
        if (setup(&f, nets[k], 1)) {
            CHECK(0);
            continue;
        }
        sm_tensor in = sm_executor_input(f.ex);
        for (int64_t i = 0; i < 64; i++)
            in.data[i] = (float)(0.1 * cos((double)i));
        int64_t nw;
        float *w = sm_executor_weights(f.ex, &nw);
        CHECK_EQ(nw, n_w[k]);
        for (int64_t i = 0; i < nw; i++)
            w[i] = (float)(0.1 * sin((double)(i + 1)));
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        sm_tensor y = sm_executor_output(f.ex);
        CHECK_EQ(sm_tensor_elems(&y), n_out[k]);
        double worst = 0;
        for (int64_t i = 0; i < n_out[k]; i++) {
            double d = fabs(y.data[i] - want[k][i]);
            worst = d > worst ? d : worst;
        }
        /* the outputs are near 0.1 and fp32 rounding near 1e-8: 1e-6 tells scale=head
         * (off by 5e-6 here) from scale=dim */
        printf("%-44s worst |y - PyTorch| %.2e\n", what[k], worst);
        CHECK(worst < 1e-6);
        /* the reference loop agrees with PyTorch too */
        const float *x = in.data, *mem = k == 0 ? in.data + 24 : in.data;
        double ref = worst_vs_reference(&cases[k], w, x, mem, y.data, k == 0 ? 1 : 2);
        CHECK(ref < 1e-6);
        teardown(&f);
    }
}

static void test_forward(void)
{
    /* cross-attention with M > S and M < S, batch 3: each sample attends to its own memory */
    forward_case("cross S 3 M 5 (chunks of the input)",
                 NET("8x8", "q = chunk chunks=3 index=0 axis=0\n"
                            "m1 = chunk chunks=3 index=1 axis=0 from=@input\n"
                            "m2 = chunk chunks=3 index=2 axis=0 from=@input\n"
                            "mem = concat axis=0 from=m1,m2\n"
                            "a = attention dim=8 heads=2 from=q,mem\n"),
                 &(ref_case){3, 5, 8, 2, 0, 0, 0}, 3);
    forward_case("cross S 6 M 2, 3 heads, scale=dim",
                 NET("6x6", "m = chunk chunks=3 index=1 axis=0\n"
                            "a = attention dim=6 heads=3 scale=dim from=@input,m\n"),
                 &(ref_case){6, 2, 6, 3, 0, 1, 0}, 2);
    /* groups: G windows, each its own sequence */
    forward_case("groups 3x5x8, 4 heads", NET("3x5x8", "a = attention dim=8 heads=4\n"),
                 &(ref_case){5, 5, 8, 4, 0, 0, 0}, 2);
    forward_case("groups 2x9x6 rel_pos 3 scale=dim",
                 NET("2x9x6", "a = attention dim=6 heads=2 rel_pos=3 scale=dim\n"),
                 &(ref_case){9, 9, 6, 2, 3, 1, 0}, 2);
    forward_case("groups 3x4x8 rel_pos 2 causal",
                 NET("3x4x8", "a = attention dim=8 heads=2 rel_pos=2 causal=true\n"),
                 &(ref_case){4, 4, 8, 2, 2, 0, 1}, 2);
    forward_case("one sequence 9x4 rel_pos 3, 1 head",
                 NET("9x4", "a = attention dim=4 heads=1 rel_pos=3\n"),
                 &(ref_case){9, 9, 4, 1, 3, 0, 0}, 2);
    test_forward_pytorch();
}

/* ---- backward ------------------------------------------------------------------------------ */

static void test_gradients(void)
{
    const double eps = 1e-3, tol = 1e-2;
    /* cross-attention: the memory is a linear layer of the input and the query a chunk of it,
     * so the input's gradient sums what flows back through both attention inputs */
    check_gradients("cross S 3 M 8, memory a linear layer",
                    NET("8x8", "q = chunk chunks=3 index=0 axis=0\n"
                               "m = linear out=8 from=@input\n"
                               "a = attention dim=8 heads=2 from=q,m\n"),
                    2, eps, tol);
    check_gradients("cross S 6 M 2 unpacked no bias scale=dim",
                    NET("6x6", "m = chunk chunks=3 index=1 axis=0\n"
                               "a = attention dim=6 heads=3 packed=false bias=false scale=dim "
                               "from=@input,m\n"),
                    2, eps, tol);
    /* groups with the relative position bias: every table entry is shared by several score
     * entries, over the windows and the batch */
    check_gradients("groups 3x4x8 rel_pos 2 scale=dim",
                    NET("3x4x8", "a = attention dim=8 heads=2 rel_pos=2 scale=dim\n"), 2, eps, tol);
    check_gradients("groups 2x9x6 rel_pos 3 causal",
                    NET("2x9x6", "a = attention dim=6 heads=3 rel_pos=3 causal=true\n"), 2, eps,
                    tol);
    check_gradients("groups 3x5x8, 4 heads", NET("3x5x8", "a = attention dim=8 heads=4\n"), 2, eps,
                    tol);
    /* a table of larger values than its initialisation's, so that its gradient is checked
     * where the bias moves the softmax */
    random_weights = 1;
    check_gradients("rel_pos 2 one sequence, random weights",
                    NET("4x4", "a = attention dim=4 heads=2 rel_pos=2\n"), 2, eps, tol);
    random_weights = 0;
}

/* ---- refusals ------------------------------------------------------------------------------ */

/* Loading text must fail with a message holding the phrase and naming the attention layer a
 * and its line. */
static void expect_refusal(const char *text, int line, const char *phrase)
{
    char where[64];
    snprintf(where, sizeof where, ":%d: layer a (attention)", line);
    expect_refusal_at(text, where, phrase);
}

static void test_refusals(void)
{
    /* rel_pos=W needs one W x W window of S = W^2 tokens */
    expect_refusal(NET("5x8", "a = attention dim=8 heads=2 rel_pos=2\n"), 5,
                   "rel_pos=2 needs S = 2 x 2 = 4 positions (one window), got S = 5 in 5x8");
    expect_refusal(NET("3x50x8", "a = attention dim=8 heads=2 rel_pos=7\n"), 5,
                   "rel_pos=7 needs S = 7 x 7 = 49 positions");
    /* a decoder's cross-attention has no causal mask */
    expect_refusal(NET("5x8", "m = linear out=8\n"
                              "a = attention dim=8 heads=2 causal=true from=@input,m\n"),
                   6, "causal=true with a memory input");
    /* the memory's features must be dim */
    expect_refusal(NET("5x8", "m = linear out=6\na = attention dim=8 heads=2 from=@input,m\n"), 6,
                   "memory 5x6 has 6 features, attention has dim 8");
    /* what is not supported says so */
    expect_refusal(NET("4x8", "m = linear out=8\n"
                              "a = attention dim=8 heads=2 rel_pos=2 from=@input,m\n"),
                   6, "rel_pos=2 with a memory input");
    expect_refusal(NET("2x5x8", "m = linear out=8\na = attention dim=8 heads=2 from=@input,m\n"), 6,
                   "cross-attention takes a query S x E, got groups 2x5x8");
    expect_refusal(NET("5x8", "a = attention dim=8 heads=2 from=@input,@input,@input\n"), 5,
                   "takes 1 to 2 inputs, got 3");
    expect_refusal(NET("2x2x5x8", "a = attention dim=8 heads=2\n"), 5,
                   "needs a sequence S x E or groups of sequences G x S x E, got 2x2x5x8");
    expect_refusal(NET("5x8", "a = attention dim=8 heads=2 scale=sqrt\n"), 5,
                   "parameter scale=sqrt is not one of head dim");
    expect_refusal(NET("5x8", "a = attention dim=8 heads=2 rel_pos=-1\n"), 5,
                   "rel_pos=-1 out of range");
}

int main(void)
{
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_counts();
    test_forward();
    test_gradients();
    test_refusals();
    sm_registry_free(reg);
    return check_summary();
}
