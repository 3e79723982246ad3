/*
 * test_window_attention: the layer type window_attention (torchvision 0.14's Swin
 * ShiftedWindowAttention, and ShiftedWindowAttentionV2 with v2=true), its counts and its CPU
 * kernels run by the executor on tiny networks.
 *
 * Where the expected numbers come from (none of them from the code under test):
 * - parameter counts: PyTorch 1.13 / torchvision 0.14, by
 *     /usr/bin/python3 -c 'from torchvision.models.swin_transformer import \
 *         ShiftedWindowAttention as A, ShiftedWindowAttentionV2 as B
 *     for m in A(96,[7,7],[3,3],3), B(96,[7,7],[3,3],3), A(8,[3,2],[1,1],2,qkv_bias=False,
 *               proj_bias=False), B(8,[3,2],[1,1],2,qkv_bias=False,proj_bias=False):
 *         print([n for n, p in m.named_parameters()], sum(p.numel() for p in m.parameters()),
 *               len(list(m.parameters())))'
 *   which prints 37755 5, 40323 8, 286 3, 2818 6 (and the names: v1 relative_position_bias_table,
 *   qkv.weight, qkv.bias, proj.weight, proj.bias; v2 logit_scale, qkv.*, proj.*,
 *   cpb_mlp.0.weight, cpb_mlp.0.bias, cpb_mlp.2.weight);
 * - MACs, FLOPs, bytes: hand-derived in the comments from the formulas of docs/plugins.md's
 *   section (torchvision's own count for Swin is the same 4 N C^2 + 2 N^2 C per window);
 * - forward: the outputs PyTorch itself computed (in float64) for the same weights and inputs
 *   (the snippet is above the numbers);
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
    /* swin_t's first stage: ShiftedWindowAttention(96, [7, 7], [3, 3], 3) on 56x56x96:
     * 8 x 8 = 64 windows of N = 49 tokens, C = 96 */
    if (metrics_of(NET("56x56x96", "g = window_attention dim=96 heads=3 window=7 shift=3\n"), &m) ==
        0) {
        CHECK_EQ(m.weights, 37755);   /* PyTorch: 37755 */
        CHECK_EQ(m.param_tensors, 5); /* PyTorch: 5 tensors */
        /* 64 (4 49 96^2 + 2 49^2 96) = 64 (1806336 + 460992) = 64 x 2267328 */
        CHECK_EQ(m.macs, 145108992);
        CHECK_EQ(m.output_elems, 56 * 56 * 96);
        /* qkv's bias (3 x 96) and proj's (96), their gradients summed over the 3,136 tokens
         * (plugin ABI 20): 3136 x 384 */
        CHECK_EQ(m.bias_grad_elems, 1204224);
        CHECK_EQ(m.bias_grad_sums, 2);
    }
    /* ShiftedWindowAttentionV2(96, [7, 7], [3, 3], 3): the same plus the cpb MLP on its
     * T = 13 x 13 = 169 rows: 169 (2 512 + 512 3) = 169 x 2560 = 432640 */
    if (metrics_of(
            NET("56x56x96", "g = window_attention dim=96 heads=3 window=7 shift=3 v2=true\n"),
            &m) == 0) {
        CHECK_EQ(m.weights, 40323);   /* PyTorch: 40323 */
        CHECK_EQ(m.param_tensors, 8); /* PyTorch: 8 tensors */
        CHECK_EQ(m.macs, 145108992 + 432640);
    }
    /* 9x10 padded to 14x14 by window 7: 2 x 2 = 4 windows, 4 x 2267328 */
    if (metrics_of(NET("9x10x96", "g = window_attention dim=96 heads=3 window=7 shift=3\n"), &m) ==
        0) {
        CHECK_EQ(m.macs, 9069312);
        CHECK_EQ(m.output_elems, 9 * 10 * 96); /* cropped back */
        /* the projections run over the padded 14 x 14 tokens: 196 x 384 */
        CHECK_EQ(m.bias_grad_elems, 75264);
    }
    /* without biases, window 3x2: PyTorch 286 (v1) and 2818 (v2), 3 and 6 tensors */
    if (metrics_of(NET("4x4x8", "g = window_attention dim=8 heads=2 window=3x2 shift=1 "
                                "qkv_bias=false proj_bias=false\n"),
                   &m) == 0) {
        CHECK_EQ(m.weights, 286);
        CHECK_EQ(m.param_tensors, 3);
        CHECK_EQ(m.bias_grad_elems, 0);
        CHECK_EQ(m.bias_grad_sums, 0);
    }
    if (metrics_of(NET("4x4x8", "g = window_attention dim=8 heads=2 window=3x2 shift=1 "
                                "qkv_bias=false proj_bias=false v2=true\n"),
                   &m) == 0) {
        CHECK_EQ(m.weights, 2818);
        CHECK_EQ(m.param_tensors, 6);
    }
    /* Every count of a small shifted, padded v1 case: 5x7x8, heads 2 (d 4), window 3, shift 1:
     * padded 6x9, nW = 2 x 3 = 6 windows of N = 9, C = 8, h = 2, s = 1 (shifted).
     *   macs  = 6 (4 9 64 + 2 81 8) = 6 (2304 + 1296) = 21600
     *   flops = 2 macs + 6 ((3 + 1) N C + (4 + s) h N^2 + N C)
     *         = 43200 + 6 (288 + 810 + 72) = 43200 + 7020 = 50220;  bwd = 2 flops = 100440
     *   bytes = 4 (6 (20 N C + (6 + 2 s) h N^2) + X + P + (4 + 4 s) P + 2 X), X = 280, P = 432
     *         = 4 (6 (1440 + 1296) + 280 + 432 + 3456 + 560) = 4 (16416 + 4728) = 84576 */
    if (metrics_of(NET("5x7x8", "g = window_attention dim=8 heads=2 window=3 shift=1\n"), &m) ==
        0) {
        CHECK_EQ(m.macs, 21600);
        CHECK_EQ(m.flops, 50220);
        CHECK_EQ(m.bwd_flops, 100440);
        CHECK_EQ(m.bytes, 84576);
        CHECK_EQ(m.weights, 338); /* PyTorch ShiftedWindowAttention(8, [3,3], [1,1], 2): 338 */
    }
    /* The same as v2 (T = 25): PyTorch ShiftedWindowAttentionV2(8, [3,3], [1,1], 2): 2850.
     *   macs  = 21600 + 25 (1024 + 1024) = 72800
     *   flops = 2 macs + 6 (288 + 810 + 6 N C + 2 h N + h N^2)
     *             + 1024 T + 5 h N^2 + 2 h
     *         = 145600 + 6 (288 + 810 + 432 + 36 + 162) + 25600 + 810 + 4
     *         = 145600 + 10368 + 26414 = 182382
     *   bytes = 4 (84576 / 4 + 6 (2 N C + 2 h N^2) + T (2 + 2048 + h) + 4 h N^2)
     *         = 4 (21144 + 6 (144 + 324) + 51300 + 648) = 4 (21144 + 2808 + 51948) = 303600 */
    if (metrics_of(NET("5x7x8", "g = window_attention dim=8 heads=2 window=3 shift=1 v2=true\n"),
                   &m) == 0) {
        CHECK_EQ(m.macs, 72800);
        CHECK_EQ(m.flops, 182382);
        CHECK_EQ(m.bytes, 303600);
        CHECK_EQ(m.weights, 2850);
    }
    /* A window covering the padded map drops the shift (torchvision: "no need to shift"):
     * 2x2x8 with window 3 shift 1 is one window of 9 with s = 0, X = 32, P = 72:
     *   flops = 2 (4 9 64 + 2 81 8) + (4 72 + 4 162 + 72) = 7200 + 1008 = 8208
     *   bytes = 4 (1440 + 6 162 + 32 + 72 + 4 72 + 2 32) = 4 (1440 + 972 + 456) = 11472 */
    if (metrics_of(NET("2x2x8", "g = window_attention dim=8 heads=2 window=3 shift=1\n"), &m) ==
        0) {
        CHECK_EQ(m.flops, 8208);
        CHECK_EQ(m.bytes, 11472);
    }
}

/* ---- forward against PyTorch ---------------------------------------------------------------- */

/* What PyTorch printed for one case: the sum, the sum of squares, sum y[i] sin(0.1 i) (which
 * sees where each value lies) of the flat output, and y[i n / 32] for i < 32. */
typedef struct torch_case {
    const char *what, *net;
    int64_t batch;
    double sum, sumsq, wsum;
    double values[32];
} torch_case;

/* Made by /usr/bin/python3 (PyTorch 1.13, torchvision 0.14), in float64:
 *   import math, torch
 *   from torchvision.models.swin_transformer import (ShiftedWindowAttention as V1,
 *                                                    ShiftedWindowAttentionV2 as V2)
 *   torch.set_default_dtype(torch.float64)
 *   def run(cls, b, h, w, c, heads, win, shift, **kw):
 *       m = cls(c, win, shift, heads, **kw).double()
 *       k = 0
 *       with torch.no_grad():
 *           for _, p in m.named_parameters():
 *               p.copy_(torch.tensor([0.3 * math.sin(k + 1 + i) for i in range(p.numel())])
 *                       .view_as(p))
 *               k += p.numel()
 *       x = torch.tensor([math.cos(i) for i in range(b * h * w * c)]).view(b, h, w, c)
 *       y = m(x).detach().flatten()
 *       n = y.numel()
 *       print("%d values, sum %.9f, sumsq %.9f, wsum %.9f" % (n, y.sum(), (y * y).sum(),
 *             sum(y[i].item() * math.sin(0.1 * i) for i in range(n))))
 *       print(", ".join("%.8f" % y[i * n // 32].item() for i in range(32)))
 *   run(V1, 2, 5, 7, 8, 2, [3, 3], [1, 1])
 *   run(V2, 2, 5, 7, 8, 2, [3, 3], [1, 1])
 *   run(V1, 2, 4, 5, 8, 2, [3, 2], [1, 1], qkv_bias=False)
 *   run(V2, 2, 2, 7, 6, 3, [2, 3], [1, 1], proj_bias=False)
 *   run(V1, 1, 2, 2, 8, 2, [3, 3], [1, 1])
 * Weight k of the concatenated parameters (named_parameters() order) is 0.3 sin(k + 1), input
 * element i (over the whole batch) cos(i). v2's key third of qkv.bias is non-zero here, so the
 * zeroing in every forward is tested too. */
static const torch_case torch_cases[] = {
    {"v1 5x7x8 window 3 shift 1 (pad, roll, mask)",
     NET("5x7x8", "g = window_attention dim=8 heads=2 window=3 shift=1\n"),
     2,
     -33.382645893,
     70.389436781,
     -0.101291549,
     {-0.68215007, -0.40051534, 0.65107009,  0.06211961,  0.07030481,  -0.36796092, -0.36770555,
      0.16094403,  -0.01998286, -0.35589322, -0.44096670, -0.29043323, 0.15012544,  0.61356805,
      -0.28190298, 0.15125172,  -0.08475147, -0.67665452, 0.37143405,  -0.10448248, 0.19605719,
      -0.09977398, -0.68764260, 0.33702381,  0.01353930,  0.07584660,  0.17133286,  -0.38942694,
      0.32407054,  0.55050577,  -0.05001876, 0.05928341}},
    {"v2 5x7x8 window 3 shift 1",
     NET("5x7x8", "g = window_attention dim=8 heads=2 window=3 shift=1 v2=true\n"),
     2,
     22.574171150,
     70.241978156,
     0.837360918,
     {-0.03177584, -0.09776549, 0.28995100,  -0.61807060, 0.12149477,  0.33874746,  -0.09456037,
      0.17420362,  -0.64841757, -0.54507972, 0.31403936,  -0.00391497, 0.18022482,  0.26943718,
      -0.53566252, 0.39458648,  0.07746014,  -0.03250488, 0.34964919,  -0.44528478, 0.43472180,
      0.31652241,  -0.05782398, 0.58187307,  -0.40386200, -0.46366268, 0.51110071,  0.18758817,
      0.58682791,  0.26848105,  -0.50107014, 0.20783708}},
    {"v1 4x5x8 window 3x2 shift 1, no qkv bias",
     NET("4x5x8", "g = window_attention dim=8 heads=2 window=3x2 shift=1 qkv_bias=false\n"),
     2,
     -18.831692341,
     19.684968019,
     0.339276640,
     {-0.33895706, -0.08028097, 0.32997457,  -0.22544542, -0.19507287, 0.17627666,  0.18262378,
      -0.30515347, -0.33885381, -0.09057205, 0.39742460,  -0.15972056, -0.05388415, 0.02072859,
      0.15061444,  -0.20233456, -0.14124646, 0.11737107,  0.19808927,  -0.22983365, -0.34095155,
      -0.19045581, 0.40074602,  -0.12500508, -0.17954718, 0.03979658,  0.16426991,  -0.25174265,
      -0.46692315, -0.01427953, 0.40487383,  -0.24645971}},
    {"v2 2x7x6 heads 3 window 2x3, shift along W only",
     NET("2x7x6",
         "g = window_attention dim=6 heads=3 window=2x3 shift=1 proj_bias=false v2=true\n"),
     2,
     7.558022025,
     11.389396658,
     5.241903732,
     {0.04277712, -0.19257063, -0.07355360, 0.33342906,  0.33080777,  0.32057758,  0.34089395,
      0.32831847, 0.25442374,  -0.34441906, 0.19951761,  0.32389086,  0.09463145,  0.22715992,
      0.34709428, 0.47705364,  -0.05960738, -0.17194131, -0.12397101, -0.06349455, -0.07657239,
      0.07432848, -0.05697070, -0.14233087, 0.34394833,  -0.10308539, -0.11608510, 0.09326517,
      0.03616494, -0.45259537, -0.38562747, -0.29175810}},
    {"v1 2x2x8 in one window: no shift",
     NET("2x2x8", "g = window_attention dim=8 heads=2 window=3 shift=1\n"),
     1,
     -1.952566498,
     3.682815345,
     -1.028618647,
     {-0.44703014, -0.59965215, 0.27333161,  0.51648288,  -0.07935313, -0.11773619, 0.17527379,
      -0.24229398, -0.27216318, -0.63985112, 0.11016255,  0.60416407,  0.05830069,  -0.24547464,
      0.07479186,  -0.08531527, -0.30595845, -0.51160376, 0.10663783,  0.47694240,  0.09884693,
      -0.13005193, 0.00065761,  -0.17916491, -0.53792896, -0.54744177, 0.34903720,  0.44224218,
      -0.13345467, -0.02775193, 0.20318990,  -0.34040183}},
};

static void test_forward_pytorch(void)
{
    for (size_t k = 0; k < sizeof torch_cases / sizeof *torch_cases; k++) {
        const torch_case *tc = &torch_cases[k];
        fixture f;
        sm_status st;
        if (setup(&f, tc->net, tc->batch)) {
            CHECK(0);
            continue;
        }
        sm_tensor x = sm_executor_input(f.ex);
        for (int64_t i = 0; i < elems(&x); i++)
            x.data[i] = (float)cos((double)i);
        int64_t nw;
        float *w = sm_executor_weights(f.ex, &nw);
        for (int64_t i = 0; i < nw; i++)
            w[i] = (float)(0.3 * sin((double)(i + 1)));
        /* inference, then a training step (which keeps the state for backward): the same */
        for (int training = 0; training <= 1; training++) {
            CHECK(sm_executor_forward(f.ex, training, &st) == 0);
            sm_tensor y = sm_executor_output(f.ex);
            int64_t n = elems(&y);
            double sum = 0, sumsq = 0, wsum = 0, worst = 0;
            for (int64_t i = 0; i < n; i++) {
                sum += y.data[i];
                sumsq += (double)y.data[i] * y.data[i];
                wsum += y.data[i] * sin(0.1 * (double)i);
            }
            for (int64_t i = 0; i < 32; i++) {
                double d = fabs(y.data[i * n / 32] - tc->values[i]);
                worst = d > worst ? d : worst;
            }
            printf("%-50s worst |y - PyTorch| %.2e, sums off by %.1e %.1e %.1e\n", tc->what, worst,
                   fabs(sum - tc->sum), fabs(sumsq - tc->sumsq), fabs(wsum - tc->wsum));
            CHECK(worst < 1e-5);
            CHECK(fabs(sum - tc->sum) < 1e-5);
            CHECK(fabs(sumsq - tc->sumsq) < 1e-5);
            CHECK(fabs(wsum - tc->wsum) < 1e-5);
        }
        teardown(&f);
    }
}

/* ---- backward ------------------------------------------------------------------------------ */

static void test_gradients(void)
{
    const double eps = 1e-3, tol = 1e-2;
    random_weights = 1; /* every weight away from 0 and from the initial scale */
    check_gradients("v1 5x5x4 window 3 shift 1 (pad, mask)",
                    NET("5x5x4", "g = window_attention dim=4 heads=2 window=3 shift=1\n"), 2, eps,
                    tol);
    check_gradients("v1 6x6x4 window 3, not shifted",
                    NET("6x6x4", "g = window_attention dim=4 heads=2 window=3\n"), 2, eps, tol);
    check_gradients("v1 4x5x4 window 3x2 no biases",
                    NET("4x5x4", "g = window_attention dim=4 heads=1 window=3x2 shift=1x1 "
                                 "qkv_bias=false proj_bias=false\n"),
                    1, eps, tol);
    /* the input also feeds the add: backward must add to its gradient, not overwrite it */
    check_gradients("v1 + residual add",
                    NET("4x4x4", "g = window_attention dim=4 heads=2 window=3 shift=1\n"
                                 "s = add from=g,@input\n"),
                    1, eps, tol);
    random_weights = 0;
}

/* v2 through the executor's own initialisation (logit_scale log 10, the MLP at nn.Linear's
 * scale): uniform [-1, 1) weights would saturate the sigmoid of the bias MLP's 512 sums. */
static void test_gradients_v2(void)
{
    const double eps = 1e-3, tol = 1e-2;
    check_gradients("v2 5x5x4 window 3 shift 1",
                    NET("5x5x4", "g = window_attention dim=4 heads=2 window=3 shift=1 v2=true\n"),
                    2, eps, tol);
    check_gradients("v2 2x5x4 window 2x3, shift along W only",
                    NET("2x5x4", "g = window_attention dim=4 heads=2 window=2x3 shift=1 "
                                 "proj_bias=false v2=true\n"),
                    1, eps, tol);
}

/* ---- refusals ------------------------------------------------------------------------------ */

/* Loading text must fail with a message holding the phrase, and naming the layer and its line
 * (5 in NET). */
static void expect_refusal(const char *text, const char *phrase)
{
    expect_refusal_at(text, ":5: layer g (window_attention)", phrase);
}

static void test_refusals(void)
{
    expect_refusal(NET("49x96", "g = window_attention dim=96 heads=3\n"),
                   "needs a channels-last H x W x C input");
    expect_refusal(NET("8x8x64", "g = window_attention dim=96 heads=3\n"),
                   "input 8x8x64 has 64 channels (its last dim), window_attention has dim 96");
    expect_refusal(NET("8x8x96", "g = window_attention dim=96 heads=5\n"),
                   "dim 96 is not divisible by heads 5");
    expect_refusal(NET("8x8x96", "g = window_attention dim=96 heads=3 window=0\n"),
                   "window=0 out of range");
    expect_refusal(NET("8x8x96", "g = window_attention dim=96 heads=3 window=7 shift=7\n"),
                   "shift 7x7 must be smaller than window 7x7");
    expect_refusal(NET("8x8x96", "g = window_attention dim=96 heads=3 window=4x3 shift=1x3\n"),
                   "shift 1x3 must be smaller than window 4x3");
    expect_refusal(NET("8x8x96", "g = window_attention dim=96 heads=3 window=1x4 v2=true\n"),
                   "v2=true needs a window of at least 2 on each side");
    expect_refusal(NET("8x8x96", "g = window_attention heads=3\n"), "missing parameter dim");
}

int main(void)
{
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_counts();
    test_forward_pytorch();
    test_gradients();
    test_gradients_v2();
    test_refusals();
    sm_registry_free(reg);
    return check_summary();
}
