/*
 * test_executor: the CPU kernels of the plugins, run by the executor (calibrate/executor_cpu.c) on
 * tiny networks.
 *
 * Backward passes are checked against central finite differences of the forward pass: with a
 * fixed random r, R = sum(y * r) has dR/dy = r, so after backward from r the gradient of every
 * input element and every weight must equal (R(v + e) - R(v - e)) / 2e. Inputs that reach a
 * kink (relu, max) directly are spread values, distinct and 1/N apart, so that no difference
 * crosses one. Forward passes are checked against direct loops written here from PyTorch's
 * definitions (convolution, linear, pooling) or against properties (batch norm's per-channel
 * mean 0 and variance 1, softmax's sums of 1). A whole network's training step must lower the
 * loss on a fixed batch, from ln(classes) at initialisation. The gradient kit is
 * tests/gradient_check.h, shared with the other kernel tests.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradient_check.h"

static void test_gradients(void)
{
    const double eps = 1e-3, tol = 1e-2;
    /* convolutions: plain, strided/padded/dilated, grouped, depthwise, 1x1 both paths */
    check_gradients("conv2d 3x3 pad 1 bias", NET("3x6x7", "c = conv2d out=4 kernel=3 padding=1\n"),
                    2, eps, tol);
    check_gradients("conv2d stride 2 pad 1x2 dilation 2",
                    NET("2x9x8", "c = conv2d out=3 kernel=3 stride=2 padding=1x2 dilation=2 "
                                 "bias=false\n"),
                    2, eps, tol);
    check_gradients("conv2d groups 2 kernel 3x2",
                    NET("4x5x6", "c = conv2d out=6 kernel=3x2 groups=2 stride=1x2\n"), 3, eps, tol);
    check_gradients("conv2d depthwise x2 stride 2",
                    NET("4x7x7", "c = conv2d out=8 kernel=3 groups=4 stride=2 padding=1\n"), 2, eps,
                    tol);
    check_gradients("conv2d depthwise stride 1 (padded planes)",
                    NET("3x6x5", "c = conv2d out=3 kernel=3 groups=3 padding=1\n"), 2, eps, tol);
    check_gradients("conv2d depthwise x2 kernel 3x5 dilation 2 pad 2x1 no bias",
                    NET("2x7x8", "c = conv2d out=4 kernel=3x5 groups=2 dilation=2 padding=2x1 "
                                 "bias=false\n"),
                    2, eps, tol);
    check_gradients("conv2d 1x1 one sample (no im2col)",
                    NET("5x17x16", "c = conv2d out=3 kernel=1\n"), 1, eps, tol);
    check_gradients("conv2d 1x1 batched GEMM", NET("5x3x3", "c = conv2d out=4 kernel=1\n"), 3, eps,
                    tol);
    check_gradients("conv2d 3x3 batched GEMM pad 1",
                    NET("3x4x4", "c = conv2d out=5 kernel=3 padding=1\n"), 4, eps, tol);
    check_gradients("linear vector", NET("10", "fc = linear out=7\n"), 3, eps, tol);
    check_gradients("linear sequence no bias", NET("5x6", "fc = linear out=4 bias=false\n"), 2, eps,
                    tol);
    /* pooling */
    check_gradients("maxpool2d 3 stride 2 pad 1",
                    NET("2x7x7", "p = maxpool2d kernel=3 stride=2 padding=1\n"), 2, eps, tol);
    check_gradients("maxpool2d 2 ceil_mode dilation 2",
                    NET("2x9x8", "p = maxpool2d kernel=2 stride=2 dilation=2 ceil_mode=true\n"), 2,
                    eps, tol);
    check_gradients("avgpool2d 3 stride 2 pad 1 ceil_mode",
                    NET("2x8x7", "p = avgpool2d kernel=3 stride=2 padding=1 ceil_mode=true\n"), 2,
                    eps, tol);
    check_gradients("adaptive_avgpool2d 2x3 of 5x7",
                    NET("3x5x7", "p = adaptive_avgpool2d size=2x3\n"), 2, eps, tol);
    /* normalisation: a conv before gives batch norm weights and inputs off its identity */
    check_gradients("batchnorm2d training", NET("3x4x5", "bn = batchnorm2d\n"), 3, eps, tol);
    check_gradients("conv2d + batchnorm2d",
                    NET("2x5x5", "c = conv2d out=3 kernel=3\nbn = batchnorm2d\n"), 2, eps, tol);
    check_gradients("batchnorm2d no affine (1d use)", NET("6", "bn = batchnorm2d affine=false\n"),
                    4, eps, tol);
    check_gradients("layernorm last dim", NET("4x6", "ln = layernorm\n"), 2, eps, tol);
    check_gradients("linear + layernorm dims 2",
                    NET("3x5", "fc = linear out=4\nln = layernorm dims=2\n"), 2, eps, tol);
    check_gradients("layernorm channels", NET("4x3x2", "ln = layernorm channels=true\n"), 2, eps,
                    tol);
    /* activations, on spread inputs wide enough to reach every piece (relu6 above 6) */
    static const char *const acts[] = {"relu",    "relu6", "hardsigmoid", "hardswish",
                                       "sigmoid", "silu",  "tanh",        "gelu"};
    spread_scale = 8; /* [-8, 8) in steps of 0.2, odd tenths: every piece, no kink within eps */
    for (int i = 0; i < 8; i++) {
        char text[128];
        snprintf(text, sizeof text, NET("40", "a = %s\n"), acts[i]);
        check_gradients(acts[i], text, 2, eps, tol);
    }
    spread_scale = 1;
    /* element-wise with broadcasting, squeeze-and-excitation, concatenation */
    check_gradients("add residual + broadcast C x 1 x 1",
                    NET("3x4x4", "a = conv2d out=3 kernel=3 padding=1\n"
                                 "p = adaptive_avgpool2d size=1 from=@input\n"
                                 "s = add from=a,@input,p\n"),
                    2, eps, tol);
    check_gradients("mul squeeze-excitation (C vector)",
                    NET("4x3x3", "p = adaptive_avgpool2d size=1\nf = flatten\nfc = linear out=4\n"
                                 "g = sigmoid\ns = mul from=@input,g\n"),
                    2, eps, tol);
    check_gradients("mul broadcast last dim",
                    NET("3x5", "fc = linear out=5 from=@input\n"
                               "p = linear out=1 from=@input\n"
                               "m = mul from=fc,p\n"),
                    2, eps, tol);
    check_gradients("concat channels of two branches",
                    NET("2x4x4", "a = conv2d out=3 kernel=3 padding=1\n"
                                 "b = conv2d out=2 kernel=1 from=@input\n"
                                 "c = concat from=a,b,@input\n"),
                    2, eps, tol);
    check_gradients("concat last axis",
                    NET("3x4", "a = linear out=2\nc = concat axis=-1 "
                               "from=a,@input\n"),
                    2, eps, tol);
    /* softmax, shapes, dropout */
    check_gradients("softmax last axis", NET("3x5", "s = softmax\n"), 2, eps, tol);
    check_gradients("softmax channel axis", NET("4x2x3", "s = softmax axis=0\n"), 2, eps, tol);
    check_gradients("channel_shuffle 3 groups", NET("6x2x2", "s = channel_shuffle groups=3\n"), 2,
                    eps, tol);
    check_gradients("permute 1,2,0", NET("2x3x4", "p = permute order=1,2,0\n"), 2, eps, tol);
    check_gradients("flatten + identity", NET("2x3x4", "f = flatten\ni = identity\n"), 2, eps, tol);
    check_gradients("chunk pieces 0 and 2 of 3, re-joined",
                    NET("5x2x2", "a = chunk chunks=3 index=0\nb = chunk chunks=3 index=2 "
                                 "from=@input\nc = concat from=b,a\n"),
                    2, eps, tol);
    check_gradients("chunk last axis", NET("3x7", "a = chunk chunks=2 index=1 axis=-1\n"), 2, eps,
                    tol);
    random_weights = 1;
    check_gradients("layer_scale channels after conv",
                    NET("3x4x4", "c = conv2d out=4 kernel=3\ns = layer_scale\n"), 2, eps, tol);
    check_gradients("layer_scale last axis", NET("3x6", "s = layer_scale axis=-1\n"), 2, eps, tol);
    random_weights = 0;
    /* transformers */
    check_gradients("attention 2 heads packed bias", NET("5x8", "a = attention dim=8 heads=2\n"), 2,
                    eps, tol);
    check_gradients("attention causal 4 heads",
                    NET("6x8", "a = attention dim=8 heads=4 causal=true\n"), 2, eps, tol);
    check_gradients("attention unpacked without bias",
                    NET("4x6", "a = attention dim=6 heads=3 packed=false bias=false\n"), 2, eps,
                    tol);
    check_gradients("tokens + linear", NET("3x2x2", "t = tokens\nfc = linear out=2\n"), 2, eps,
                    tol);
    random_weights = 1; /* both start at or near 0 */
    check_gradients("cls_token + pos_embedding + select",
                    NET("4x3", "c = cls_token\np = pos_embedding max_len=7\ns = select index=-2\n"),
                    2, eps, tol);
    random_weights = 0;
    check_gradients("embedding (ids from the input) + linear",
                    NET("4", "e = embedding vocab=5 dim=3\nfc = linear out=2\n"), 2, eps, tol);
    check_gradients("lm_head with bias", NET("3x4", "h = lm_head vocab=6 bias=true\n"), 2, eps,
                    tol);
    check_gradients("dropout p 0.3 (training mask)", NET("50", "d = dropout p=0.3\n"), 2, eps, tol);
    check_gradients("residual block: conv bn add pool fc",
                    NET("2x6x6", "c1 = conv2d out=2 kernel=3 padding=1 bias=false\n"
                                 "b1 = batchnorm2d\nc2 = conv2d out=2 kernel=3 padding=1\n"
                                 "s = add from=c2,@input\np = adaptive_avgpool2d size=1\n"
                                 "f = flatten\nfc = linear out=3\n"),
                    2, eps, tol);
}

/* ---- forward passes against direct loops and properties --------------------------------- */

/* nn.Conv2d written out: y[n][o][i][j] = b[o] + sum over c, a, e of
 * w[o][c][a][e] x[n][g cg + c][i sh - ph + a dh][j sw - pw + e dw], zero outside the input. */
static void conv_reference(const float *x, const float *w, int has_bias, float *y, int n, int c,
                           int h, int wd, int out, int kh, int kw, int sh, int sw, int ph, int pw,
                           int dh, int dw, int groups, int ho, int wo)
{
    int cg = c / groups, og = out / groups;
    for (int b = 0; b < n; b++)
        for (int o = 0; o < out; o++)
            for (int i = 0; i < ho; i++)
                for (int j = 0; j < wo; j++) {
                    double s = has_bias ? w[out * cg * kh * kw + o] : 0;
                    int g = o / og;
                    for (int ci = 0; ci < cg; ci++)
                        for (int a = 0; a < kh; a++)
                            for (int e = 0; e < kw; e++) {
                                int ih = i * sh - ph + a * dh, iw = j * sw - pw + e * dw;
                                if (ih < 0 || ih >= h || iw < 0 || iw >= wd)
                                    continue;
                                s += (double)w[((o * cg + ci) * kh + a) * kw + e] *
                                     x[((b * c + g * cg + ci) * h + ih) * wd + iw];
                            }
                    y[((b * out + o) * ho + i) * wo + j] = (float)s;
                }
}

static void check_conv_forward(const char *text, int n, int out, int kh, int kw, int sh, int sw,
                               int ph, int pw, int dh, int dw, int groups, int bias)
{
    fixture f;
    if (setup(&f, text, n)) {
        CHECK(0);
        return;
    }
    sm_status st;
    CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
    sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
    int64_t nw;
    const float *w = sm_executor_weights(f.ex, &nw);
    float *ref = malloc((size_t)elems(&y) * sizeof *ref);
    conv_reference(x.data, w, bias, ref, n, (int)x.shape.dim[0], (int)x.shape.dim[1],
                   (int)x.shape.dim[2], out, kh, kw, sh, sw, ph, pw, dh, dw, groups,
                   (int)y.shape.dim[1], (int)y.shape.dim[2]);
    double d = max_diff(y.data, ref, elems(&y));
    if (d > 1e-5)
        fprintf(stderr, "conv forward differs by %g: %s", d, text);
    CHECK(d <= 1e-5);
    /* PyTorch's initialisation: every weight within 1/sqrt(fan_in) */
    double bound = 1 / sqrt((double)(x.shape.dim[0] / groups * kh * kw)), wmax = 0;
    for (int64_t i = 0; i < nw; i++)
        wmax = fabs(w[i]) > wmax ? fabs(w[i]) : wmax;
    CHECK(wmax <= bound && wmax > 0.5 * bound);
    free(ref);
    teardown(&f);
}

static void test_conv_forward(void)
{
    check_conv_forward(NET("3x6x7", "c = conv2d out=4 kernel=3 padding=1\n"), 2, 4, 3, 3, 1, 1, 1,
                       1, 1, 1, 1, 1);
    check_conv_forward(NET("2x9x8", "c = conv2d out=3 kernel=3 stride=2 padding=1x2 dilation=2 "
                                    "bias=false\n"),
                       2, 3, 3, 3, 2, 2, 1, 2, 2, 2, 1, 0);
    check_conv_forward(NET("4x5x6", "c = conv2d out=6 kernel=3x2 groups=2 stride=1x2\n"), 3, 6, 3,
                       2, 1, 2, 0, 0, 1, 1, 2, 1);
    check_conv_forward(NET("4x7x7", "c = conv2d out=8 kernel=3 groups=4 stride=2 padding=1\n"), 2,
                       8, 3, 3, 2, 2, 1, 1, 1, 1, 4, 1);
    check_conv_forward(NET("3x6x5", "c = conv2d out=3 kernel=3 groups=3 padding=1\n"), 2, 3, 3, 3,
                       1, 1, 1, 1, 1, 1, 3, 1);
    check_conv_forward(NET("2x7x8", "c = conv2d out=4 kernel=3x5 groups=2 dilation=2 padding=2x1 "
                                    "bias=false\n"),
                       2, 4, 3, 5, 1, 1, 2, 1, 2, 2, 2, 0);
    check_conv_forward(NET("5x3x3", "c = conv2d out=4 kernel=1\n"), 5, 4, 1, 1, 1, 1, 0, 0, 1, 1, 1,
                       1);
    check_conv_forward(NET("8x20x20", "c = conv2d out=16 kernel=3 padding=1\n"), 2, 16, 3, 3, 1, 1,
                       1, 1, 1, 1, 1, 1);
}

static void test_linear_and_pool_forward(void)
{
    fixture f;
    sm_status st;
    /* linear: y = x W^T + b, W out x in then b */
    if (setup(&f, NET("2x5", "fc = linear out=3\n"), 2) == 0) {
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
        int64_t nw;
        const float *w = sm_executor_weights(f.ex, &nw);
        CHECK_EQ(nw, 3 * 5 + 3);
        double d = 0;
        for (int r = 0; r < 4; r++)
            for (int o = 0; o < 3; o++) {
                double s = w[15 + o];
                for (int k = 0; k < 5; k++)
                    s += (double)x.data[r * 5 + k] * w[o * 5 + k];
                d = fabs(s - y.data[r * 3 + o]) > d ? fabs(s - y.data[r * 3 + o]) : d;
            }
        CHECK(d < 1e-5);
        teardown(&f);
    }
    /* maxpool 3x3 stride 2 padding 1 of 1x5x5 holding 0..24 row by row: windows centred on
     * even rows and columns; the max is the window's bottom-right element inside the input */
    if (setup(&f, NET("1x5x5", "p = maxpool2d kernel=3 stride=2 padding=1\n"), 1) == 0) {
        sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
        for (int i = 0; i < 25; i++)
            x.data[i] = (float)i;
        CHECK(sm_executor_forward(f.ex, 1, &st) == 0);
        static const float want[9] = {6, 8, 9, 16, 18, 19, 21, 23, 24};
        CHECK(max_diff(y.data, want, 9) == 0);
        teardown(&f);
    }
    /* avgpool 2x2 stride 2 ceil_mode of 1x3x3 ones with padding 0: windows clipped at the
     * edge divide by the clipped size (count_include_pad counts padding, and there is none) */
    if (setup(&f, NET("1x3x3", "p = avgpool2d kernel=2 stride=2 ceil_mode=true\n"), 1) == 0) {
        sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
        for (int i = 0; i < 9; i++)
            x.data[i] = (float)i;
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        /* (0+1+3+4)/4, (2+5)/2, (6+7)/2, 8/1 */
        static const float want[4] = {2, 3.5f, 6.5f, 8};
        CHECK(max_diff(y.data, want, 4) < 1e-6);
        teardown(&f);
    }
    /* avgpool 3x3 stride 1 padding 1 of 1x3x3 ones: padding counts, so a corner is 4/9 */
    if (setup(&f, NET("1x3x3", "p = avgpool2d kernel=3 stride=1 padding=1\n"), 1) == 0) {
        sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
        for (int i = 0; i < 9; i++)
            x.data[i] = 1;
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        static const float want[9] = {4 / 9.f, 6 / 9.f, 4 / 9.f, 6 / 9.f, 1,
                                      6 / 9.f, 4 / 9.f, 6 / 9.f, 4 / 9.f};
        CHECK(max_diff(y.data, want, 9) < 1e-6);
        teardown(&f);
    }
    /* adaptive 2 of 5: rows [0, 3) and [2, 5) overlap at row 2 */
    if (setup(&f, NET("1x5x1", "p = adaptive_avgpool2d size=2x1\n"), 1) == 0) {
        sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
        for (int i = 0; i < 5; i++)
            x.data[i] = (float)i;
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        static const float want[2] = {1, 3};
        CHECK(max_diff(y.data, want, 2) < 1e-6);
        teardown(&f);
    }
}

/* nn.MultiheadAttention written out for one sample and head at a time, in double. */
static void test_attention_forward(void)
{
    fixture f;
    sm_status st;
    enum { S = 5, E = 8, H = 2, D = E / H, N = 2 };
    random_weights = 1;
    int rc = setup(&f, NET("5x8", "a = attention dim=8 heads=2 causal=true\n"), N);
    random_weights = 0;
    if (rc) {
        CHECK(0);
        return;
    }
    CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
    sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
    int64_t nw;
    const float *w = sm_executor_weights(f.ex, &nw);
    CHECK_EQ(nw, 4 * E * E + 4 * E);
    /* in_proj_weight (3E x E), in_proj_bias (3E), out_proj.weight (E x E), out_proj.bias */
    const float *win = w, *bin = w + 3 * E * E, *wout = bin + 3 * E, *bout = wout + E * E;
    double worst = 0;
    for (int n = 0; n < N; n++) {
        const float *xs = x.data + n * S * E;
        double qkv[S][3 * E], ctx[S][E];
        for (int i = 0; i < S; i++)
            for (int j = 0; j < 3 * E; j++) {
                qkv[i][j] = bin[j];
                for (int k = 0; k < E; k++)
                    qkv[i][j] += (double)win[j * E + k] * xs[i * E + k];
            }
        for (int h = 0; h < H; h++)
            for (int i = 0; i < S; i++) {
                double a[S], mx = -1e300, sum = 0;
                for (int j = 0; j <= i; j++) { /* causal: keys up to the query's position */
                    a[j] = 0;
                    for (int k = 0; k < D; k++)
                        a[j] += qkv[i][h * D + k] * qkv[j][E + h * D + k];
                    a[j] /= sqrt((double)D);
                    mx = a[j] > mx ? a[j] : mx;
                }
                for (int j = 0; j <= i; j++)
                    sum += a[j] = exp(a[j] - mx);
                for (int k = 0; k < D; k++) {
                    ctx[i][h * D + k] = 0;
                    for (int j = 0; j <= i; j++)
                        ctx[i][h * D + k] += a[j] / sum * qkv[j][2 * E + h * D + k];
                }
            }
        for (int i = 0; i < S; i++)
            for (int j = 0; j < E; j++) {
                double v = bout[j];
                for (int k = 0; k < E; k++)
                    v += (double)wout[j * E + k] * ctx[i][k];
                double d = fabs(v - y.data[(n * S + i) * E + j]);
                worst = d > worst ? d : worst;
            }
    }
    CHECK(worst < 1e-5);
    teardown(&f);
}

static void test_norm_softmax_dropout_forward(void)
{
    fixture f;
    sm_status st;
    /* batch norm in training: every channel has mean 0 and biased variance 1 over N, H, W */
    if (setup(&f, NET("3x4x5", "bn = batchnorm2d\n"), 4) == 0) {
        sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
        for (int64_t i = 0; i < elems(&x); i++)
            x.data[i] = (float)(3 + 2 * rnd()); /* mean 3, far from the output's */
        CHECK(sm_executor_forward(f.ex, 1, &st) == 0);
        for (int c = 0; c < 3; c++) {
            double s = 0, q = 0;
            for (int n = 0; n < 4; n++)
                for (int i = 0; i < 20; i++) {
                    double v = y.data[(n * 3 + c) * 20 + i];
                    s += v;
                    q += v * v;
                }
            CHECK(fabs(s / 80) < 1e-5);
            CHECK(fabs(q / 80 - 1) < 1e-3); /* eps 1e-5 against a variance near 4/3 */
        }
        /* inference after one step: running mean 0.1 * batch mean and running variance
         * 0.9 + 0.1 * unbiased variance, so the output is (x - rm) / sqrt(rv + eps) */
        double mean0 = 0, sq0 = 0;
        for (int n = 0; n < 4; n++)
            for (int i = 0; i < 20; i++)
                mean0 += x.data[n * 60 + i];
        mean0 /= 80;
        for (int n = 0; n < 4; n++)
            for (int i = 0; i < 20; i++)
                sq0 += (x.data[n * 60 + i] - mean0) * (x.data[n * 60 + i] - mean0);
        double rm = 0.1 * mean0, rv = 0.9 + 0.1 * sq0 / 79;
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        CHECK(fabs(y.data[7] - (x.data[7] - rm) / sqrt(rv + 1e-5)) < 1e-4);
        teardown(&f);
    }
    /* layer norm: every row of the last dim has mean 0, variance 1 */
    if (setup(&f, NET("3x8", "ln = layernorm\n"), 2) == 0) {
        sm_tensor y = sm_executor_output(f.ex);
        CHECK(sm_executor_forward(f.ex, 1, &st) == 0);
        for (int r = 0; r < 6; r++) {
            double s = 0, q = 0;
            for (int i = 0; i < 8; i++) {
                s += y.data[r * 8 + i];
                q += y.data[r * 8 + i] * y.data[r * 8 + i];
            }
            CHECK(fabs(s / 8) < 1e-5 && fabs(q / 8 - 1) < 1e-3);
        }
        teardown(&f);
    }
    /* softmax over channels: sums of 1 at every pixel, ratios exp(x_a - x_b) */
    if (setup(&f, NET("4x2x3", "s = softmax axis=0\n"), 2) == 0) {
        sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        for (int n = 0; n < 2; n++)
            for (int p = 0; p < 6; p++) {
                double s = 0;
                for (int c = 0; c < 4; c++)
                    s += y.data[(n * 4 + c) * 6 + p];
                CHECK(fabs(s - 1) < 1e-6);
            }
        CHECK(fabs(y.data[0] / y.data[6] - exp(x.data[0] - x.data[6])) < 1e-5);
        teardown(&f);
    }
    /* dropout: about p of the elements zeroed, the others scaled by 1/(1-p); none at inference */
    if (setup(&f, NET("10000", "d = dropout p=0.25\n"), 2) == 0) {
        sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
        CHECK(sm_executor_forward(f.ex, 1, &st) == 0);
        int64_t zeros = 0, scaled = 0;
        for (int64_t i = 0; i < 20000; i++) {
            zeros += y.data[i] == 0;
            scaled += fabsf(y.data[i] - x.data[i] / 0.75f) < 1e-6f;
        }
        CHECK_EQ(zeros + scaled, 20000);
        CHECK(zeros > 4700 && zeros < 5300); /* 5000 expected, sd 61 */
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        CHECK(max_diff(x.data, y.data, 20000) == 0);
        teardown(&f);
    }
}

/* ---- the loss, a whole step, refusals --------------------------------------------------- */

static void test_loss(void)
{
    fixture f;
    sm_status st;
    /* softmax cross-entropy through an identity: its gradient against differences of the loss
     * itself, and its value for logits all equal: ln(classes) */
    if (setup(&f, NET("7", "i = identity\n"), 3) == 0) {
        sm_tensor x = sm_executor_input(f.ex), dx = sm_executor_input_grad(f.ex);
        double loss;
        CHECK(sm_executor_forward(f.ex, 1, &st) == 0 && sm_executor_loss(f.ex, &loss, &st) == 0);
        CHECK(sm_executor_backward(f.ex, &st) == 0);
        double worst = 0;
        for (int64_t i = 0; i < 21; i++) {
            float keep = x.data[i];
            double up, down;
            x.data[i] = keep + 1e-3f;
            sm_executor_forward(f.ex, 1, &st);
            sm_executor_loss(f.ex, &up, &st);
            x.data[i] = keep - 1e-3f;
            sm_executor_forward(f.ex, 1, &st);
            sm_executor_loss(f.ex, &down, &st);
            x.data[i] = keep;
            double d = fabs((up - down) / 2e-3 - dx.data[i]);
            worst = d > worst ? d : worst;
        }
        CHECK(worst < 1e-4);
        for (int64_t i = 0; i < 21; i++)
            x.data[i] = 0.5f;
        CHECK(sm_executor_forward(f.ex, 1, &st) == 0 && sm_executor_loss(f.ex, &loss, &st) == 0);
        CHECK(fabs(loss - log(7.0)) < 1e-6);
        int64_t rows, classes;
        const int32_t *labels = sm_executor_labels(f.ex, &rows, &classes);
        CHECK_EQ(rows, 3);
        CHECK_EQ(classes, 7);
        CHECK(labels[0] >= 0 && labels[0] < 7 && labels[2] >= 0 && labels[2] < 7);
        teardown(&f);
    }
}

/* Trains net and, from the same seed, the same network without its last loss layer (plain):
 * a step is the same floating-point work on the same weights, input and labels, so every loss
 * is the same to the last bit. Returns the first loss and writes the last in *last. */
static double same_steps(const char *with_loss, const char *plain, int64_t batch, float lr,
                         double *last)
{
    sm_status st;
    sm_network *net[2] = {net_load(reg, with_loss, 0, &st), NULL};
    CHECK_MSG(net[0] != NULL, "%s", st.msg);
    net[1] = net_load(reg, plain, 0, &st);
    CHECK_MSG(net[1] != NULL, "%s", st.msg);
    sm_executor *ex[2] = {NULL, NULL};
    sm_executor_options opt = {.batch = batch, .seed = 11};
    int ok = net[0] && net[1];
    for (int k = 0; ok && k < 2; k++) {
        ok = sm_executor_check(net[k], &st) == 0 && sm_executor_new(net[k], &opt, &ex[k], &st) == 0;
        CHECK_MSG(ok, "%s", st.msg);
    }
    double first = NAN;
    *last = NAN;
    if (ok) {
        /* the loss's input is the output, whose rows and classes draw the same labels */
        int64_t rows[2], classes[2];
        const int32_t *labels[2];
        for (int k = 0; k < 2; k++)
            labels[k] = sm_executor_labels(ex[k], &rows[k], &classes[k]);
        CHECK_EQ(rows[0], rows[1]);
        CHECK_EQ(classes[0], classes[1]);
        CHECK(memcmp(labels[0], labels[1], (size_t)rows[0] * sizeof *labels[0]) == 0);
        sm_tensor y = sm_executor_output(ex[0]);
        CHECK_EQ(y.shape.ndim, net[0]->layers[net[0]->n_layers - 2].out.ndim);
        CHECK_EQ(y.shape.dim[y.shape.ndim - 1], classes[0]);
        int64_t bytes[2];
        for (int k = 0; k < 2; k++)
            CHECK(sm_executor_bytes(net[k], batch, 0, &bytes[k], &st) == 0);
        CHECK_EQ(bytes[0], bytes[1]);
    }
    for (int step = 0; ok && step < 6; step++) {
        double loss[2];
        for (int k = 0; ok && k < 2; k++) {
            ok = sm_executor_step(ex[k], lr, &loss[k], &st) == 0;
            CHECK_MSG(ok, "%s", st.msg);
        }
        if (!ok)
            break;
        CHECK_MSG(memcmp(&loss[0], &loss[1], sizeof loss[0]) == 0,
                  "step %d: loss %.17g with the loss layer, %.17g without", step, loss[0], loss[1]);
        if (step == 0)
            first = loss[0];
        *last = loss[0];
    }
    for (int k = 0; k < 2; k++) {
        sm_executor_free(ex[k]);
        sm_network_free(net[k]);
    }
    return first;
}

/* A network file that ends in cross_entropy (SM_TRAIT_LOSS) runs without kernels for it: the
 * executor stops before it and its own loss, F.cross_entropy over the logits, is that layer. */
static void test_loss_layer(void)
{
    sm_status st;
    /* by hand: 7 equal logits a row give each row ln 7 (log-sum-exp ln 7 + x, less x), and
     * the mean of 2 rows of ln 7 is ln 7, exactly */
    sm_network *net = net_load(reg, NET("7", "i = identity\nloss = cross_entropy\n"), 0, &st);
    CHECK_MSG(net != NULL, "%s", st.msg);
    sm_executor *ex = NULL;
    sm_executor_options opt = {.batch = 2, .seed = 5};
    if (net && sm_executor_new(net, &opt, &ex, &st) == 0) {
        sm_tensor x = sm_executor_input(ex);
        for (int64_t i = 0; i < 14; i++)
            x.data[i] = 0.375f;
        double loss = 0;
        CHECK(sm_executor_forward(ex, 1, &st) == 0 && sm_executor_loss(ex, &loss, &st) == 0);
        double want = log(7.0);
        CHECK_MSG(memcmp(&loss, &want, sizeof loss) == 0, "loss %.17g, ln 7 %.17g", loss, want);
        /* the gradient of each logit: (1/7 - [its label]) / 2 rows */
        int64_t rows, classes;
        const int32_t *labels = sm_executor_labels(ex, &rows, &classes);
        CHECK_EQ(rows, 2);
        CHECK_EQ(classes, 7);
        const float *dy = sm_executor_output_grad(ex).data;
        double worst = 0;
        for (int64_t i = 0; i < 14; i++) {
            double d = fabs(dy[i] - (1.0 / 7 - (labels[i / 7] == i % 7)) / 2);
            worst = d > worst ? d : worst;
        }
        CHECK(worst < 1e-7);
        sm_executor_free(ex);
    } else if (net) {
        fprintf(stderr, "executor: %s\n", st.msg);
        CHECK(0);
    }
    sm_network_free(net);
    /* the same network without the layer: the same losses, to the last bit, as it trains
     * (dropout's masks are seeded by the layer's index, the same in both) */
    double last, first = same_steps(NET("3x8", "fc = linear out=6\na = gelu\nd = dropout p=0.25\n"
                                               "head = linear out=5\nloss = cross_entropy\n"),
                                    NET("3x8", "fc = linear out=6\na = gelu\nd = dropout p=0.25\n"
                                               "head = linear out=5\n"),
                                    4, 0.5f, &last);
    printf("linear-gelu-dropout-linear-cross_entropy batch 4: loss %.4f at step 0, %.4f after 5 "
           "SGD steps\n",
           first, last);
    CHECK(fabs(first - log(5.0)) < 0.5);
    CHECK(last < first);
    /* one row a sample (V logits to 1 loss), as nn.CrossEntropyLoss over a batch of vectors */
    first = same_steps(NET("6", "fc = linear out=4\nloss = cross_entropy upcast=false\n"),
                       NET("6", "fc = linear out=4\n"), 3, 0.5f, &last);
    CHECK(last < first);
}

/* A loss the executors cannot take as theirs is refused before anything is allocated, naming
 * the file and line: want in the message of both sm_executor_check and sm_executor_new. */
static void refused_loss(const char *text, const char *want)
{
    sm_status st;
    sm_network *net = net_load(reg, text, 0, &st);
    CHECK_MSG(net != NULL, "%s", st.msg);
    if (!net)
        return;
    char where[128];
    snprintf(where, sizeof where, "%s:", net_file_path);
    CHECK(sm_executor_check(net, &st) == -1);
    CHECK_CONTAINS(st.msg, where);
    CHECK_CONTAINS(st.msg, want);
    sm_executor *ex = NULL;
    sm_executor_options opt = {.batch = 2};
    CHECK(sm_executor_new(net, &opt, &ex, &st) == -1);
    CHECK(ex == NULL);
    CHECK_CONTAINS(st.msg, where);
    CHECK_CONTAINS(st.msg, want);
    int64_t bytes;
    CHECK(sm_executor_bytes(net, 2, 0, &bytes, &st) == -1);
    CHECK_CONTAINS(st.msg, want);
    sm_network_free(net);
}

static void test_loss_refusals(void)
{
    refused_loss(NET("3x5", "fc = linear out=4\nloss = cross_entropy\nafter = linear out=2\n"),
                 ":6: layer 'loss' of type 'cross_entropy' is a loss (SM_TRAIT_LOSS), which the "
                 "executors compute themselves only as the network's last layer");
    refused_loss(NET("3x5", "fc = linear out=4\nother = linear out=4 from=@input\n"
                            "loss = cross_entropy from=fc\n"),
                 ":7: layer 'loss' of type 'cross_entropy' is a loss (SM_TRAIT_LOSS), which the "
                 "executors compute on the layer before it ('other'), but it reads layer 'fc'");
    refused_loss(NET("3x5", "fc = linear out=4\nloss = cross_entropy from=@input\n"),
                 ":6: layer 'loss' of type 'cross_entropy' is a loss (SM_TRAIT_LOSS), which the "
                 "executors compute on the layer before it ('fc'), but it reads the network's "
                 "input");
    refused_loss(NET("3x5", "loss = cross_entropy\n"),
                 ":5: layer 'loss' of type 'cross_entropy' is a loss (SM_TRAIT_LOSS), which the "
                 "executors compute on the layer before it, and it is the only layer");
}

static void test_training_step(void)
{
    sm_status st;
    sm_network *net = NULL;
    sm_network_options nopt = {.image = 16};
    if (sm_network_load(reg, "examples/tiny_resnet.ini", &nopt, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        CHECK(0);
        return;
    }
    sm_executor *ex;
    sm_executor_options opt = {.batch = 4, .seed = 3};
    CHECK(sm_executor_new(net, &opt, &ex, &st) == 0);
    double first = 0, loss = 0;
    for (int step = 0; step < 8; step++) {
        CHECK(sm_executor_step(ex, 0.1f, &loss, &st) == 0);
        if (step == 0)
            first = loss;
    }
    printf("tiny_resnet batch 4: loss %.4f at step 0, %.4f after 8 SGD steps\n", first, loss);
    /* PyTorch's initialisation gives small logits: the first loss is near ln(10) */
    CHECK(fabs(first - log(10.0)) < 0.5);
    CHECK(loss < 0.5 * first);
    /* on the same batch (with its batch statistics, as in training; the running ones lag
     * behind after 8 steps), the labels it fitted are now the likeliest classes */
    CHECK(sm_executor_forward(ex, 1, &st) == 0);
    sm_tensor y = sm_executor_output(ex);
    int64_t rows, classes, hits = 0;
    const int32_t *labels = sm_executor_labels(ex, &rows, &classes);
    for (int64_t r = 0; r < rows; r++) {
        int64_t best = 0;
        for (int64_t c = 1; c < classes; c++)
            best = y.data[r * classes + c] > y.data[r * classes + best] ? c : best;
        hits += best == labels[r];
    }
    CHECK_EQ(hits, rows);
    sm_executor_free(ex);
    sm_network_free(net);
}

static void test_refusals(const char *fake_plugin)
{
    sm_status st;
    /* a layer type without CPU kernels: refused, naming the layer, the type and the line */
    sm_registry *r2 = NULL;
    if (sm_registry_open(&r2, &st) == 0 && sm_registry_load_file(r2, fake_plugin, &st) == 0) {
        sm_network *net = net_load(r2,
                                   NET("3x4x4", "c = conv2d out=2 kernel=1\n"
                                                "odd = test_identity\n"),
                                   0, &st);
        CHECK(net != NULL);
        if (net) {
            sm_executor *ex = NULL;
            sm_executor_options opt = {.batch = 1};
            CHECK(sm_executor_new(net, &opt, &ex, &st) == -1);
            CHECK(ex == NULL);
            CHECK_CONTAINS(st.msg, "layer 'odd' of type 'test_identity' has no CPU kernel");
            CHECK_CONTAINS(st.msg, ":6:");
            /* and where kernels were looked for: the descriptor, and its companion beside it */
            char want[4200];
            size_t n = strlen(fake_plugin);
            snprintf(
                want, sizeof want,
                "(its descriptor, %s, sets no cpu table, and there is no %.*s_cpu.so beside it",
                fake_plugin, (int)(n - 3), fake_plugin);
            CHECK_CONTAINS(st.msg, want);
            sm_network_free(net);
        }
    } else {
        fprintf(stderr, "fake plugin: %s\n", st.msg);
        CHECK(0);
    }
    sm_registry_free(r2);
    /* a plan beyond max_bytes is "out of memory", not an error */
    sm_network *net = net_load(reg, NET("3x64x64", "c = conv2d out=64 kernel=3\n"), 0, &st);
    CHECK(net != NULL);
    if (net) {
        int64_t bytes = 0;
        CHECK(sm_executor_bytes(net, 8, 0, &bytes, &st) == 0);
        /* input 8x3x64x64, output and its gradient 2 x 8x64x62x62, weights and gradients
         * 2 x 1792, labels 8 x 64 x 62, and the scratch of im2col (whatever it is: > 0) */
        int64_t known = 4 * (8 * 3 * 64 * 64 + 2 * 8 * 64 * 62 * 62 + 2 * 1792 + 8 * 64 * 62);
        CHECK(bytes > known);
        sm_executor *ex = NULL;
        sm_executor_options opt = {.batch = 8, .max_bytes = known};
        CHECK(sm_executor_new(net, &opt, &ex, &st) == SM_EXECUTOR_NOMEM);
        CHECK_CONTAINS(st.msg, "more than the");
        opt.batch = 0;
        CHECK(sm_executor_new(net, &opt, &ex, &st) == -1);
        sm_network_free(net);
    }
}

int main(int argc, char **argv)
{
    sm_status st;
    if (argc < 2) {
        fprintf(stderr, "usage: test_executor FAKE_PLUGIN.so\n");
        return 2;
    }
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    sm_cpu_set_threads(1);
    test_gradients();
    test_conv_forward();
    test_linear_and_pool_forward();
    test_norm_softmax_dropout_forward();
    test_attention_forward();
    test_loss();
    test_loss_layer();
    test_loss_refusals();
    test_training_step();
    test_refusals(argv[1]);
    sm_registry_free(reg);
    return check_summary();
}
