/*
 * test_export_layers: the layer types the PyTorch exporter needed for ordinary models (issue
 * 35): conv1d, conv3d, conv_transpose2d, upsample (nearest, bilinear), pixel_shuffle and mean;
 * their counts, their CPU kernels' forward against PyTorch and backward against finite
 * differences, and their refusals of bad parameters.
 *
 * Where the expected numbers come from (none of them from the code under test):
 * - shapes, parameter counts and forward outputs: PyTorch 1.13 in float64, x[i] = sin(i) over
 *   the flat batched input, the parameters (weight then bias, flat) p[i] = cos(i), printing the
 *   output's shape, sum(p.numel()), len(parameters()), y.sum() and sum(y[i] cos(i / 2)):
 *     import math, torch, torch.nn as nn, torch.nn.functional as F
 *     torch.set_default_dtype(torch.float64)
 *     def run(m, shape):
 *         x = torch.tensor([math.sin(i) for i in range(math.prod(shape))]).view(shape)
 *         k = 0
 *         with torch.no_grad():
 *             for p in m.parameters():
 *                 p.copy_(torch.tensor([math.cos(k + i) for i in range(p.numel())]).view_as(p))
 *                 k += p.numel()
 *         y = m(x)
 *         print(tuple(y.shape), sum(p.numel() for p in m.parameters()), y.sum().item(),
 *               sum(v * math.cos(0.5 * i) for i, v in enumerate(y.flatten().tolist())))
 *     run(nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 9))   # and the rest below
 * - MACs: hand-derived in the comments (output elements x C_in/groups x taps for a
 *   convolution, input elements x C_out/groups x taps for a transposed one, as fvcore);
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
    /* nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2) on 4x9: (2, 6, 5), 42 parameters */
    if (metrics_of(NET("4x9", "g = conv1d out=6 kernel=3 stride=2 padding=1 groups=2\n"), &m) ==
        0) {
        CHECK_EQ(m.output_elems, 30); /* 6 x 5 */
        CHECK_EQ(m.macs, 180);        /* 30 outputs x 4/2 channels x 3 taps */
        CHECK_EQ(m.flops, 390);       /* 2 x 180 + 30 (bias) */
        CHECK_EQ(m.weights, 42);      /* PyTorch: 42 */
        CHECK_EQ(m.param_tensors, 2); /* weight, bias */
        CHECK_EQ(m.bwd_flops, 780);   /* 2 x flops */
        CHECK_EQ(m.counts_io, 1);
    }
    /* nn.Conv1d(3, 2, 2, dilation=3, bias=False) on 3x10: (1, 2, 7), 12 parameters */
    if (metrics_of(NET("3x10", "g = conv1d out=2 kernel=2 dilation=3 bias=false\n"), &m) == 0) {
        CHECK_EQ(m.output_elems, 14); /* 10 - 3 (2 - 1) = 7 positions x 2 */
        CHECK_EQ(m.macs, 84);         /* 14 x 3 x 2 */
        CHECK_EQ(m.weights, 12);      /* PyTorch: 12 */
        CHECK_EQ(m.param_tensors, 1);
    }
    /* nn.Conv3d(2, 4, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)) on 2x3x5x4:
     * (2, 4, 2, 3, 2), 148 parameters */
    if (metrics_of(NET("2x3x5x4", "g = conv3d out=4 kernel=3 kernel_d=2 stride=2 stride_d=1 "
                                  "padding=1 padding_d=0\n"),
                   &m) == 0) {
        CHECK_EQ(m.output_elems, 48); /* 4 x 2 x 3 x 2 */
        CHECK_EQ(m.macs, 1728);       /* 48 x 2 channels x 18 taps */
        CHECK_EQ(m.weights, 148);     /* PyTorch: 148 = 4 x 2 x 18 + 4 */
        CHECK_EQ(m.param_tensors, 2);
    }
    /* nn.Conv3d(3, 8, 3) on 3x4x4x4: kernel=3 is a cube; out 8 x 2 x 2 x 2; 656 parameters */
    if (metrics_of(NET("3x4x4x4", "g = conv3d out=8 kernel=3\n"), &m) == 0) {
        CHECK_EQ(m.macs, 5184);   /* 64 outputs x 3 x 27 */
        CHECK_EQ(m.weights, 656); /* 8 x 3 x 27 + 8 */
    }
    /* nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2) on 4x3x4:
     * (2, 6, 6, 8), 114 parameters */
    if (metrics_of(NET("4x3x4", "g = conv_transpose2d out=6 kernel=3 stride=2 padding=1 "
                                "output_padding=1 groups=2\n"),
                   &m) == 0) {
        CHECK_EQ(m.output_elems, 288); /* 6 x 6 x 8 */
        CHECK_EQ(m.macs, 1296);        /* 48 inputs x 6/2 channels x 9 taps */
        CHECK_EQ(m.flops, 2880);       /* 2 x 1296 + 288 (bias) */
        CHECK_EQ(m.weights, 114);      /* PyTorch: 114 = 4 x 3 x 9 + 6 */
        CHECK_EQ(m.counts_io, 1);
    }
    /* nn.ConvTranspose2d(2, 3, (2, 3), stride=(1, 2), dilation=2, bias=False) on 2x3x3:
     * (1, 3, 5, 9), 36 parameters */
    if (metrics_of(NET("2x3x3", "g = conv_transpose2d out=3 kernel=2x3 stride=1x2 dilation=2 "
                                "bias=false\n"),
                   &m) == 0) {
        CHECK_EQ(m.output_elems, 135); /* 3 x 5 x 9 */
        CHECK_EQ(m.macs, 324);         /* 18 inputs x 3 x 6 taps */
        CHECK_EQ(m.weights, 36);       /* PyTorch: 36 */
    }
    /* F.interpolate(x, scale_factor=2) and bilinear on 3x3x4: (.., 3, 6, 8) */
    if (metrics_of(NET("3x3x4", "g = upsample scale=2\n"), &m) == 0) {
        CHECK_EQ(m.output_elems, 144);
        CHECK_EQ(m.flops, 0); /* a copy */
        CHECK_EQ(m.macs, 0);
    }
    if (metrics_of(NET("3x3x4", "g = upsample mode=bilinear scale=2\n"), &m) == 0)
        CHECK_EQ(m.flops, 1008); /* 7 x 144 */
    /* a fractional scale: floor(5 x 1.5) = 7, floor(4 x 1.5) = 6, as PyTorch's (1, 2, 7, 6) */
    if (metrics_of(NET("2x5x4", "g = upsample scale=1.5\n"), &m) == 0)
        CHECK_EQ(m.output_elems, 84);
    if (metrics_of(NET("2x3x4", "g = upsample size=5x7\n"), &m) == 0)
        CHECK_EQ(m.output_elems, 70); /* 2 x 5 x 7 */
    /* nn.PixelShuffle(2) on 8x3x2: (2, 2, 6, 4) */
    if (metrics_of(NET("8x3x2", "g = pixel_shuffle factor=2\n"), &m) == 0) {
        CHECK_EQ(m.output_elems, 48);
        CHECK_EQ(m.flops, 0);
        CHECK_EQ(m.weights, 0);
    }
    /* x.mean(1) on N x 5 x 4: (2, 4); x.mean(2, keepdim=True) on 3x4x5: (2, 3, 1, 5) */
    if (metrics_of(NET("5x4", "g = mean axis=0\n"), &m) == 0) {
        CHECK_EQ(m.output_elems, 4);
        CHECK_EQ(m.flops, 24); /* 20 additions + 4 divisions */
    }
    if (metrics_of(NET("3x4x5", "g = mean axis=1 keepdim=true\n"), &m) == 0)
        CHECK_EQ(m.output_elems, 15);
}

/* ---- forward against PyTorch --------------------------------------------------------------- */

/* One inference forward of text at batch n with x[i] = sin(i), w[i] = cos(i): the output's
 * elements, sum and sum(y[i] cos(i / 2)) against what PyTorch printed. */
static void forward_case(const char *what, const char *text, int64_t batch, int64_t out_elems,
                         double sum, double chk)
{
    fixture f;
    sm_status st;
    if (setup(&f, text, batch)) {
        CHECK(!what);
        return;
    }
    sm_tensor x = sm_executor_input(f.ex);
    for (int64_t i = 0; i < elems(&x); i++)
        x.data[i] = (float)sin((double)i);
    int64_t nw;
    float *w = sm_executor_weights(f.ex, &nw);
    for (int64_t i = 0; i < nw; i++)
        w[i] = (float)cos((double)i);
    CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
    sm_tensor y = sm_executor_output(f.ex);
    double s = 0, c = 0;
    for (int64_t i = 0; i < elems(&y); i++) {
        s += y.data[i];
        c += y.data[i] * cos(0.5 * (double)i);
    }
    printf("%-36s sum %.6f (PyTorch %.6f)  checksum %.6f (PyTorch %.6f)\n", what, s, sum, c, chk);
    CHECK_EQ(elems(&y), out_elems);
    CHECK(fabs(s - sum) < 1e-4);
    CHECK(fabs(c - chk) < 1e-4);
    teardown(&f);
}

static void test_forward(void)
{
    forward_case("conv1d groups 2 stride 2",
                 NET("4x9", "g = conv1d out=6 kernel=3 stride=2 padding=1 groups=2\n"), 2, 60,
                 -14.14794187, 2.25108388);
    forward_case("conv1d dilation 3 no bias",
                 NET("3x10", "g = conv1d out=2 kernel=2 dilation=3 bias=false\n"), 1, 14,
                 -1.25057901, 1.17893809);
    forward_case("conv3d 2x3x3 stride 1x2x2",
                 NET("2x3x5x4", "g = conv3d out=4 kernel=3 kernel_d=2 stride=2 stride_d=1 "
                                "padding=1 padding_d=0\n"),
                 2, 96, 20.86785105, 8.79979894);
    forward_case("conv_transpose2d groups 2 stride 2",
                 NET("4x3x4", "g = conv_transpose2d out=6 kernel=3 stride=2 padding=1 "
                              "output_padding=1 groups=2\n"),
                 2, 576, -23.83306904, -9.56328802);
    forward_case("conv_transpose2d dilation 2",
                 NET("2x3x3", "g = conv_transpose2d out=3 kernel=2x3 stride=1x2 dilation=2 "
                              "bias=false\n"),
                 1, 135, -0.94740011, -2.14981506);
    forward_case("upsample nearest x2", NET("3x3x4", "g = upsample scale=2\n"), 2, 288, 6.69440937,
                 2.47660350);
    forward_case("upsample nearest to 5x7", NET("2x3x4", "g = upsample size=5x7\n"), 1, 70,
                 1.06490136, 3.18209166);
    forward_case("upsample bilinear x2", NET("3x3x4", "g = upsample mode=bilinear scale=2\n"), 2,
                 288, 6.69440937, 12.00586020);
    forward_case("upsample bilinear align_corners 5x7",
                 NET("2x3x4", "g = upsample mode=bilinear size=5x7 align_corners=true\n"), 1, 70,
                 -0.24450295, 3.15415555);
    forward_case("pixel_shuffle 2", NET("8x3x2", "g = pixel_shuffle factor=2\n"), 2, 96, 0.58858785,
                 1.91100521);
    forward_case("mean axis 0 of 5x4", NET("5x4", "g = mean axis=0\n"), 2, 8, 0.23061965,
                 -0.33046890);
    forward_case("mean axis 1 keepdim of 3x4x5", NET("3x4x5", "g = mean axis=1 keepdim=true\n"), 2,
                 30, -0.03005897, -0.57211471);
}

/* ---- backward ------------------------------------------------------------------------------ */

static void test_gradients(void)
{
    const double eps = 1e-3, tol = 1e-2;
    random_weights = 1;
    check_gradients("conv1d groups 2 stride 2",
                    NET("4x9", "g = conv1d out=6 kernel=3 stride=2 padding=1 groups=2\n"), 2, eps,
                    tol);
    check_gradients("conv1d dilation 3", NET("3x10", "g = conv1d out=2 kernel=2 dilation=3\n"), 2,
                    eps, tol);
    check_gradients("conv3d",
                    NET("2x3x5x4", "g = conv3d out=4 kernel=3 kernel_d=2 stride=2 "
                                   "stride_d=1 padding=1 padding_d=0\n"),
                    2, eps, tol);
    check_gradients("conv_transpose2d",
                    NET("4x3x4", "g = conv_transpose2d out=6 kernel=3 stride=2 padding=1 "
                                 "output_padding=1 groups=2\n"),
                    2, eps, tol);
    check_gradients("upsample nearest x2", NET("2x3x4", "g = upsample scale=2\n"), 2, eps, tol);
    check_gradients("upsample bilinear x2", NET("2x3x4", "g = upsample mode=bilinear scale=2\n"), 2,
                    eps, tol);
    check_gradients("upsample bilinear align_corners 5x7",
                    NET("2x3x4", "g = upsample mode=bilinear size=5x7 align_corners=true\n"), 2,
                    eps, tol);
    check_gradients("pixel_shuffle 2", NET("8x3x2", "g = pixel_shuffle factor=2\n"), 2, eps, tol);
    check_gradients("mean axis 0", NET("5x4", "g = mean axis=0\n"), 2, eps, tol);
    /* the input also feeds the add: backward must add to its gradient, not overwrite it */
    check_gradients("mean keepdim + residual add",
                    NET("3x1x5", "g = mean axis=1 keepdim=true\ns = add from=g,@input\n"), 2, eps,
                    tol);
    check_gradients("pixel_shuffle + conv_transpose2d + upsample",
                    NET("8x3x2", "g = pixel_shuffle factor=2\nc = conv_transpose2d out=2 "
                                 "kernel=2 stride=2\nu = upsample mode=bilinear scale=0.5\n"),
                    2, eps, tol);
    random_weights = 0;
}

/* ---- refusals ------------------------------------------------------------------------------ */

static void expect_refusal(const char *text, const char *type, const char *phrase)
{
    char where[64];
    snprintf(where, sizeof where, ":5: layer g (%s)", type);
    expect_refusal_at(text, where, phrase);
}

static void test_refusals(void)
{
    expect_refusal(NET("4x9", "g = conv1d out=6 kernel=3 groups=4\n"), "conv1d",
                   "out 6 is not divisible by groups 4");
    expect_refusal(NET("4x2", "g = conv1d out=6 kernel=3\n"), "conv1d", "leaves no output");
    expect_refusal(NET("4x9x9", "g = conv1d out=6 kernel=3\n"), "conv1d", "needs a CxL input");
    expect_refusal(NET("4x9x9", "g = conv3d out=6 kernel=3\n"), "conv3d", "needs a CxDxHxW input");
    expect_refusal(NET("4x3x4", "g = conv_transpose2d out=6 kernel=3 stride=2 "
                                "output_padding=2\n"),
                   "conv_transpose2d", "output_padding 2 must be smaller than the stride 2");
    expect_refusal(NET("3x4x4", "g = upsample\n"), "upsample", "give one of scale");
    expect_refusal(NET("3x4x4", "g = upsample scale=2 size=8\n"), "upsample", "give one of scale");
    expect_refusal(NET("3x4x4", "g = upsample scale=2 align_corners=true\n"), "upsample",
                   "align_corners applies to mode=bilinear only");
    expect_refusal(NET("3x4x4", "g = upsample mode=bicubic scale=2\n"), "upsample", "bicubic");
    expect_refusal(NET("6x4x4", "g = pixel_shuffle factor=2\n"), "pixel_shuffle",
                   "channels 6 are not divisible by factor^2 = 4");
    expect_refusal(NET("6x4", "g = mean axis=2\n"), "mean", "needs one input with that axis");
    expect_refusal(NET("6", "g = mean axis=0\n"), "mean", "use keepdim=true");
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
