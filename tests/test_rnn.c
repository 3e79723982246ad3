/*
 * test_rnn: the recurrent layer types lstm, gru and rnn (nn.LSTM, nn.GRU, nn.RNN with
 * batch_first=True and a zero initial state), their counts and their CPU kernels run by the
 * executor on tiny networks.
 *
 * Where the expected numbers come from (none of them from the code under test):
 * - parameter counts: PyTorch 1.13, sum(p.numel()) and len(list(m.parameters())), by
 *     /usr/bin/python3 -c 'from torch import nn
 *     for m in nn.LSTM(10, 20, num_layers=2, bidirectional=True), nn.GRU(8, 16),
 *              nn.RNN(5, 7, num_layers=3, nonlinearity="relu", bias=False), nn.RNN(5, 7),
 *              nn.LSTM(2, 3, bias=False):
 *         print(sum(p.numel() for p in m.parameters()), len(list(m.parameters())))'
 *   which prints "15040 16", "1248 4", "280 6", "98 4", "60 2"; and the same by hand beside each;
 * - MACs, FLOPs and bytes: hand-derived in the comments from the formulas of docs/plugins.md
 *   (per-unit element-wise FLOPs c_gate: LSTM 26, GRU 19, RNN tanh 5, relu 1);
 * - forward: a direct loop in doubles written from PyTorch's equations and parameter order
 *   (reference() below), and the outputs PyTorch itself printed for tiny cases (the snippet is
 *   beside the numbers), which also pins the order of the weights;
 * - backward: central finite differences of the forward pass (tests/gradient_check.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradient_check.h"

/* ---- counts -------------------------------------------------------------------------------- */

static void test_counts(void)
{
    sm_layer_metrics m;
    /* nn.LSTM(10, 20, num_layers=2, bidirectional=True) over S = 5 steps: G H = 80, D = 2,
     * E_0 = 10, E_1 = D H = 40 */
    if (metrics_of(NET("5x10", "g = lstm hidden=20 layers=2 bidirectional=true\n"), &m) == 0) {
        /* per direction: layer 0 80 (10 + 20) + 2 * 80 = 2560, layer 1 80 (40 + 20) + 160 =
         * 4960; 2 (2560 + 4960) = 15040, PyTorch's 15040 */
        CHECK_EQ(m.weights, 15040);
        CHECK_EQ(m.param_tensors, 16); /* 2 layers x 2 directions x 4; PyTorch: 16 */
        /* 5 steps x 2 directions x (80 (10 + 20) + 80 (40 + 20)) = 5 x 2 x 7200 */
        CHECK_EQ(m.macs, 72000);
        /* 2 x 72000 + biases 5 x 4 x 2 x 80 = 3200 + units 5 x 2 x 2 x 20 x 26 = 10400 */
        CHECK_EQ(m.flops, 157600);
        CHECK_EQ(m.bwd_flops, 315200); /* 2 x flops */
        /* 4 x 5 x (2 (10 + 2 x 80 + 20) + 2 (40 + 2 x 80 + 20)) = 20 x (380 + 440) */
        CHECK_EQ(m.bytes, 16400);
        CHECK_EQ(m.input_elems, 50);   /* 5 x 10 */
        CHECK_EQ(m.output_elems, 200); /* 5 x D H = 5 x 40 */
        CHECK_EQ(m.counts_io, 0);      /* only conv2d counts towards I and O */
    }
    /* nn.GRU(8, 16) over S = 6: G H = 48 */
    if (metrics_of(NET("6x8", "g = gru hidden=16\n"), &m) == 0) {
        CHECK_EQ(m.weights, 1248);    /* 48 (8 + 16) + 2 x 48 = 1152 + 96; PyTorch: 1248 */
        CHECK_EQ(m.param_tensors, 4); /* PyTorch: 4 */
        CHECK_EQ(m.macs, 6912);       /* 6 x 1152 */
        /* 2 x 6912 + biases 6 x 2 x 48 = 576 + units 6 x 16 x 19 = 1824 */
        CHECK_EQ(m.flops, 16224);
        CHECK_EQ(m.bytes, 2880);      /* 4 x 6 x (8 + 2 x 48 + 16) */
        CHECK_EQ(m.output_elems, 96); /* 6 x 16 */
    }
    /* nn.RNN(5, 7, num_layers=3, nonlinearity="relu", bias=False) over S = 4 */
    if (metrics_of(NET("4x5", "g = rnn hidden=7 layers=3 nonlinearity=relu bias=false\n"), &m) ==
        0) {
        CHECK_EQ(m.weights, 280);     /* 7 (5 + 7) + 2 x 7 (7 + 7) = 84 + 196; PyTorch: 280 */
        CHECK_EQ(m.param_tensors, 6); /* PyTorch: 6 */
        CHECK_EQ(m.macs, 1120);       /* 4 x 280 */
        CHECK_EQ(m.flops, 2324);      /* 2 x 1120 + units 4 x 3 x 7 x 1 (relu) = 84 */
    }
    /* nn.RNN(5, 7): tanh and bias by default */
    if (metrics_of(NET("4x5", "g = rnn hidden=7\n"), &m) == 0) {
        CHECK_EQ(m.weights, 98);      /* 7 (5 + 7) + 2 x 7; PyTorch: 98 */
        CHECK_EQ(m.param_tensors, 4); /* PyTorch: 4 */
        CHECK_EQ(m.macs, 336);        /* 4 x 84 */
        CHECK_EQ(m.flops, 868);       /* 2 x 336 + biases 4 x 2 x 7 = 56 + 4 x 7 x 5 (tanh) */
    }
    /* nn.LSTM(2, 3, bias=False), one step */
    if (metrics_of(NET("1x2", "g = lstm hidden=3 bias=false\n"), &m) == 0) {
        CHECK_EQ(m.weights, 60);      /* 12 (2 + 3); PyTorch: 60 */
        CHECK_EQ(m.param_tensors, 2); /* PyTorch: 2 */
        CHECK_EQ(m.flops, 198);       /* 2 x 60 + 3 units x 26 */
    }
}

/* ---- the reference --------------------------------------------------------------------------- */

enum kind { LSTM, GRU, RNN };

typedef struct rnn_case {
    enum kind kind;
    int64_t e, h, layers, dirs;
    int bias, relu;
} rnn_case;

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* y (batch x s x dirs h) of PyTorch's module on x (batch x s x e), from its documented
 * equations, in doubles. The weights are read in the order of m.parameters(): per layer, per
 * direction (forward, then reverse), weight_ih (G H x E_k), weight_hh (G H x H), then with bias
 * bias_ih and bias_hh (G H each); gate blocks i, f, g, o (LSTM) or r, z, n (GRU). Returns the
 * number of weights read. */
static int64_t reference(const rnn_case *c, const float *w, const float *x, int64_t batch,
                         int64_t s, double *y)
{
    int64_t h = c->h, dh = c->dirs * h, g = c->kind == LSTM ? 4 : c->kind == GRU ? 3 : 1;
    int64_t gh = g * h, e_k = c->e;
    double *in = malloc((size_t)(batch * s * (c->e > dh ? c->e : dh)) * sizeof *in);
    double *out = malloc((size_t)(batch * s * dh) * sizeof *out);
    double *hs = malloc((size_t)h * sizeof *hs), *cs = malloc((size_t)h * sizeof *cs);
    double *hn = malloc((size_t)h * sizeof *hn), *cn = malloc((size_t)h * sizeof *cn);
    double *ai = malloc((size_t)gh * sizeof *ai), *ah = malloc((size_t)gh * sizeof *ah);
    for (int64_t i = 0; i < batch * s * c->e; i++)
        in[i] = x[i];
    const float *wp = w;
    for (int64_t k = 0; k < c->layers; k++) {
        for (int64_t dir = 0; dir < c->dirs; dir++) {
            const float *w_ih = wp, *w_hh = w_ih + gh * e_k;
            const float *b_ih = c->bias ? w_hh + gh * h : NULL, *b_hh = b_ih ? b_ih + gh : NULL;
            wp = w_hh + gh * h + (c->bias ? 2 * gh : 0);
            for (int64_t n = 0; n < batch; n++) {
                for (int64_t j = 0; j < h; j++)
                    hs[j] = cs[j] = 0; /* no h0, c0 */
                for (int64_t step = 0; step < s; step++) {
                    int64_t t = dir ? s - 1 - step : step;
                    const double *xt = in + (n * s + t) * e_k;
                    for (int64_t r = 0; r < gh; r++) { /* W_i* x + b_i*, W_h* h + b_h* */
                        ai[r] = b_ih ? b_ih[r] : 0;
                        ah[r] = b_hh ? b_hh[r] : 0;
                        for (int64_t q = 0; q < e_k; q++)
                            ai[r] += (double)w_ih[r * e_k + q] * xt[q];
                        for (int64_t q = 0; q < h; q++)
                            ah[r] += (double)w_hh[r * h + q] * hs[q];
                    }
                    for (int64_t j = 0; j < h; j++) {
                        if (c->kind == LSTM) {
                            double ig = sigmoid(ai[j] + ah[j]);
                            double fg = sigmoid(ai[h + j] + ah[h + j]);
                            double gg = tanh(ai[2 * h + j] + ah[2 * h + j]);
                            double og = sigmoid(ai[3 * h + j] + ah[3 * h + j]);
                            cn[j] = fg * cs[j] + ig * gg;
                            hn[j] = og * tanh(cn[j]);
                        } else if (c->kind == GRU) {
                            double r = sigmoid(ai[j] + ah[j]);
                            double z = sigmoid(ai[h + j] + ah[h + j]);
                            double nn = tanh(ai[2 * h + j] + r * ah[2 * h + j]);
                            hn[j] = (1 - z) * nn + z * hs[j];
                        } else {
                            double a = ai[j] + ah[j];
                            hn[j] = c->relu ? (a > 0 ? a : 0) : tanh(a);
                        }
                    }
                    for (int64_t j = 0; j < h; j++) {
                        hs[j] = hn[j];
                        cs[j] = cn[j];
                        out[(n * s + t) * dh + dir * h + j] = hn[j];
                    }
                }
            }
        }
        memcpy(in, out, (size_t)(batch * s * dh) * sizeof *in); /* the next layer's input */
        e_k = dh;
    }
    memcpy(y, out, (size_t)(batch * s * dh) * sizeof *y);
    free(in);
    free(out);
    free(hs);
    free(cs);
    free(hn);
    free(cn);
    free(ai);
    free(ah);
    return wp - w;
}

/* ---- forward ------------------------------------------------------------------------------- */

/* One executor forward of text at batch n, at inference and in a training step, against
 * reference() with weights uniform in [-1, 1) (random_weights) and spread inputs. */
static void forward_case(const char *what, const char *text, rnn_case c, int64_t batch)
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
    sm_tensor x = sm_executor_input(f.ex);
    int64_t nw, s = x.shape.dim[0];
    const float *w = sm_executor_weights(f.ex, &nw);
    double *ref = malloc((size_t)(batch * s * c.dirs * c.h) * sizeof *ref);
    CHECK_EQ(reference(&c, w, x.data, batch, s, ref), nw);
    for (int training = 0; training <= 1; training++) {
        CHECK(sm_executor_forward(f.ex, training, &st) == 0);
        sm_tensor y = sm_executor_output(f.ex);
        CHECK_EQ(y.shape.dim[1], c.dirs * c.h);
        double worst = 0;
        for (int64_t i = 0; i < elems(&y); i++) {
            double d = fabs(ref[i] - y.data[i]);
            worst = d > worst ? d : worst;
        }
        printf("%-44s %s: worst |y - reference| %.2e\n", what, training ? "training" : "inference",
               worst);
        CHECK(worst < 1e-5);
    }
    free(ref);
    teardown(&f);
}

/* Batch 2 of 4 steps of 3 features, x[i] = cos(i) over the flat input, the weights
 * w[i] = 0.5 cos(i + 1) over the module's parameters in order, against what PyTorch 1.13
 * printed for
 *     import math, torch; from torch import nn
 *     for m in (nn.LSTM(3, 2, num_layers=2, bidirectional=True, batch_first=True),
 *               nn.GRU(3, 2, bidirectional=True, batch_first=True),
 *               nn.RNN(3, 2, bidirectional=True, nonlinearity="relu", batch_first=True)):
 *         m = m.double()
 *         n = sum(p.numel() for p in m.parameters())
 *         flat = torch.tensor([0.5 * math.cos(i + 1) for i in range(n)], dtype=torch.float64)
 *         nn.utils.vector_to_parameters(flat, m.parameters())
 *         x = torch.tensor([math.cos(i) for i in range(24)], dtype=torch.float64).view(2, 4, 3)
 *         print(n, ", ".join("%.8f" % v for v in m(x)[0].flatten().tolist()))
 * Weights in the executor's order must be PyTorch's for these to match. */
static void test_forward_pytorch(void)
{
    static const double lstm[32] = {
        -0.11779336, -0.20467535, -0.28365753, -0.06526533, -0.12608753, -0.31557250, -0.29406188,
        0.00353292,  -0.13739134, -0.37218454, -0.26959052, 0.00832817,  -0.11018307, -0.40542009,
        -0.21617787, 0.05996090,  -0.10973269, -0.20608513, -0.29345632, -0.03849321, -0.12456206,
        -0.30528178, -0.30949559, 0.02335434,  -0.13175171, -0.36300190, -0.28090092, 0.03124415,
        -0.11384238, -0.38848749, -0.22611617, 0.06186318,
    };
    static const double gru[32] = {
        -0.06186428, -0.55975046, -0.07411932, -0.34971824, -0.52645922, 0.01704980,  -0.10243535,
        -0.31459395, -0.41272077, -0.47653004, -0.06460485, -0.26833470, -0.61089217, 0.11525931,
        -0.14559538, -0.07581511, -0.16041650, -0.44144352, -0.19291389, -0.45370584, -0.44898360,
        0.00232960,  -0.29655487, -0.29155664, -0.45321292, -0.28676321, -0.14983258, -0.34220406,
        -0.53610728, 0.01739880,  -0.27889003, -0.00964030,
    };
    static const double rnn_relu[32] = {
        0.81965597, 0.04031953, 0.00000000, 0.11618047, 0.49011976, 0.46699958, 0.89455144,
        0.00000000, 0.78125927, 0.00000000, 0.00000000, 0.20996926, 0.67668769, 0.31527663,
        1.09678283, 0.00000000, 0.42740440, 0.40885539, 0.00000000, 0.33983924, 0.71754031,
        0.10441045, 0.96623644, 0.00000000, 0.48948109, 0.23994262, 0.00000000, 0.33655658,
        0.94683678, 0.00000000, 1.10970269, 0.00000000,
    };
    static const char *const nets[3] = {
        NET("4x3", "g = lstm hidden=2 layers=2 bidirectional=true\n"),
        NET("4x3", "g = gru hidden=2 bidirectional=true\n"),
        NET("4x3", "g = rnn hidden=2 bidirectional=true nonlinearity=relu\n"),
    };
    static const char *const names[3] = {"LSTM(3, 2, 2 layers, bidirectional) vs PyTorch",
                                         "GRU(3, 2, bidirectional) vs PyTorch",
                                         "RNN(3, 2, bidirectional, relu) vs PyTorch"};
    static const double *const want[3] = {lstm, gru, rnn_relu};
    static const int64_t weights[3] = {240, 84, 28}; /* the n PyTorch printed */
    for (int k = 0; k < 3; k++) {
        fixture f;
        sm_status st;
        if (setup(&f, nets[k], 2)) {
            CHECK(0);
            continue;
        }
        sm_tensor x = sm_executor_input(f.ex);
        for (int i = 0; i < 24; i++)
            x.data[i] = (float)cos(i);
        int64_t nw;
        float *w = sm_executor_weights(f.ex, &nw);
        CHECK_EQ(nw, weights[k]);
        for (int64_t i = 0; i < nw; i++)
            w[i] = (float)(0.5 * cos((double)(i + 1)));
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        sm_tensor y = sm_executor_output(f.ex);
        CHECK_EQ(elems(&y), 32);
        double worst = 0;
        for (int i = 0; i < 32 && elems(&y) == 32; i++) {
            double d = fabs(y.data[i] - want[k][i]);
            worst = d > worst ? d : worst;
        }
        printf("%-52s worst |y - PyTorch| %.2e\n", names[k], worst);
        CHECK(worst < 1e-5);
        teardown(&f);
    }
}

static void test_forward(void)
{
    forward_case("lstm 2 layers bidirectional, 6x4 -> 6x10",
                 NET("6x4", "g = lstm hidden=5 layers=2 bidirectional=true\n"),
                 (rnn_case){LSTM, 4, 5, 2, 2, 1, 0}, 3);
    forward_case("lstm no bias, 5x3 -> 5x4", NET("5x3", "g = lstm hidden=4 bias=false\n"),
                 (rnn_case){LSTM, 3, 4, 1, 1, 0, 0}, 2);
    forward_case("lstm one step, 1x4 -> 1x6", NET("1x4", "g = lstm hidden=3 bidirectional=true\n"),
                 (rnn_case){LSTM, 4, 3, 1, 2, 1, 0}, 2);
    forward_case("gru, 6x4 -> 6x5", NET("6x4", "g = gru hidden=5\n"),
                 (rnn_case){GRU, 4, 5, 1, 1, 1, 0}, 2);
    forward_case("gru 2 layers bidirectional no bias, 6x4",
                 NET("6x4", "g = gru hidden=5 layers=2 bidirectional=true bias=false\n"),
                 (rnn_case){GRU, 4, 5, 2, 2, 0, 0}, 3);
    forward_case("rnn relu 2 layers bidirectional, 6x4",
                 NET("6x4", "g = rnn hidden=5 layers=2 bidirectional=true nonlinearity=relu\n"),
                 (rnn_case){RNN, 4, 5, 2, 2, 1, 1}, 2);
    forward_case("rnn tanh 3 layers, 6x4 -> 6x5", NET("6x4", "g = rnn hidden=5 layers=3\n"),
                 (rnn_case){RNN, 4, 5, 3, 1, 1, 0}, 2);
    test_forward_pytorch();
}

/* ---- backward ------------------------------------------------------------------------------ */

static void test_gradients(void)
{
    const double eps = 1e-3, tol = 1e-2;
    random_weights = 1;
    check_gradients("lstm 2 layers bidirectional",
                    NET("4x3", "g = lstm hidden=3 layers=2 bidirectional=true\n"), 2, eps, tol);
    check_gradients("gru no bias, 2 layers bidirectional",
                    NET("4x3", "g = gru hidden=3 layers=2 bidirectional=true bias=false\n"), 2, eps,
                    tol);
    check_gradients("gru with bias", NET("4x3", "g = gru hidden=3\n"), 3, eps, tol);
    check_gradients("rnn tanh 2 layers bidirectional",
                    NET("4x3", "g = rnn hidden=3 layers=2 bidirectional=true\n"), 2, eps, tol);
    /* spread inputs (gradient_check.h) keep the pre-activations off relu's kink here */
    check_gradients("rnn relu bidirectional",
                    NET("4x3", "g = rnn hidden=3 bidirectional=true nonlinearity=relu\n"), 2, eps,
                    tol);
    check_gradients("lstm one step", NET("1x3", "g = lstm hidden=2\n"), 2, eps, tol);
    /* the input also feeds the add: backward must add to its gradient, not overwrite it */
    check_gradients("lstm + residual add",
                    NET("4x4", "g = lstm hidden=2 bidirectional=true\ns = add from=g,@input\n"), 2,
                    eps, tol);
    random_weights = 0;
}

/* ---- refusals ------------------------------------------------------------------------------ */

/* Loading text must fail with a message holding the phrase, and naming the layer g of the type
 * and its line (5 in NET). */
static void expect_refusal(const char *text, const char *type, const char *phrase)
{
    char where[64];
    snprintf(where, sizeof where, ":5: layer g (%s)", type);
    expect_refusal_at(text, where, phrase);
}

static void test_refusals(void)
{
    expect_refusal(NET("3x4x5", "g = lstm hidden=4\n"), "lstm",
                   "lstm needs a sequence S x E, got 3x4x5");
    expect_refusal(NET("12", "g = gru hidden=4\n"), "gru", "gru needs a sequence S x E, got 12");
    expect_refusal(NET("5x3", "g = gru hidden=0\n"), "gru", "hidden=0 out of range");
    expect_refusal(NET("5x3", "g = lstm\n"), "lstm", "missing parameter hidden");
    expect_refusal(NET("5x3", "g = rnn hidden=4 layers=0\n"), "rnn", "layers=0 out of range");
    expect_refusal(NET("5x3", "g = rnn hidden=4 nonlinearity=sigmoid\n"), "rnn",
                   "nonlinearity=sigmoid is not one of tanh relu");
    expect_refusal(NET("5x3", "g = lstm hidden=4 nonlinearity=tanh\n"), "lstm",
                   "unknown parameter nonlinearity");
    expect_refusal(NET("5x3", "g = gru hidden=4 nonlinearity=relu\n"), "gru",
                   "unknown parameter nonlinearity");
    expect_refusal(NET("5x3", "g = lstm hidden=4 dropout=0.1\n"), "lstm",
                   "unknown parameter dropout");
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
