/*
 * test_groupnorm: the layer type groupnorm (nn.GroupNorm; nn.InstanceNorm1d/2d as groups = C,
 * affine=false), its counts and its CPU kernels run by the executor on tiny networks.
 *
 * Where the expected numbers come from (none of them from the code under test):
 * - parameter counts: PyTorch 1.13, sum(p.numel()) and len(list(m.parameters())), by
 *     /usr/bin/python3 -c 'from torch import nn
 *     for m in nn.GroupNorm(4, 12), nn.InstanceNorm2d(6), nn.InstanceNorm2d(6, affine=True):
 *         print(sum(p.numel() for p in m.parameters()), len(list(m.parameters())))'
 *   which prints "24 2", "0 0", "12 2";
 * - FLOPs: hand-derived in the comments from docs/plugins.md's 5 per element (as layernorm);
 * - forward: a direct loop in doubles written from PyTorch's definition of GroupNorm, and the
 *   outputs PyTorch itself printed for a tiny case (the snippet is beside the numbers);
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
    /* nn.GroupNorm(4, 12) on 12x5x5 */
    if (metrics_of(NET("12x5x5", "g = groupnorm groups=4\n"), &m) == 0) {
        CHECK_EQ(m.weights, 24);      /* PyTorch: 24 (gamma 12 + beta 12) */
        CHECK_EQ(m.param_tensors, 2); /* PyTorch: 2 tensors */
        CHECK_EQ(m.flops, 1500);      /* 5 per element x 12*5*5 = 300 elements */
        CHECK_EQ(m.bwd_flops, 1500);  /* = flops, as layernorm */
        CHECK_EQ(m.macs, 0);          /* not a convolution or linear layer */
        CHECK_EQ(m.bytes, 2400);      /* 4 x (300 in + 300 out) */
        CHECK_EQ(m.output_elems, 300);
    }
    /* nn.InstanceNorm2d(6): groupnorm groups=6 affine=false, as the exporter writes it */
    if (metrics_of(NET("6x4x4", "g = groupnorm groups=6 affine=false\n"), &m) == 0) {
        CHECK_EQ(m.weights, 0);       /* PyTorch: 0 */
        CHECK_EQ(m.param_tensors, 0); /* PyTorch: 0 tensors */
        CHECK_EQ(m.flops, 480);       /* 5 x 6*4*4 = 96 elements */
    }
    /* nn.InstanceNorm2d(6, affine=True) */
    if (metrics_of(NET("6x4x4", "g = groupnorm groups=6\n"), &m) == 0) {
        CHECK_EQ(m.weights, 12);      /* PyTorch: 12 */
        CHECK_EQ(m.param_tensors, 2); /* PyTorch: 2 tensors */
    }
    /* shapes of every allowed rank pass through unchanged: C, C x L, C x D x H x W */
    if (metrics_of(NET("8", "g = groupnorm groups=2\n"), &m) == 0)
        CHECK_EQ(m.flops, 40); /* 5 x 8 */
    if (metrics_of(NET("4x2x3x5", "g = groupnorm groups=2\n"), &m) == 0) {
        CHECK_EQ(m.flops, 600); /* 5 x 4*2*3*5 = 120 elements */
        CHECK_EQ(m.weights, 8); /* 2 x 4 channels */
    }
}

/* ---- forward ------------------------------------------------------------------------------- */

/* The output of one executor forward of text at batch n against PyTorch's definition, in
 * doubles: per sample and group of C / groups channels, mean and biased variance over the
 * group's channels and spatial values, y = (x - mean) / sqrt(var + 1e-5) * gamma[c] + beta[c].
 * Weights uniform in [-1, 1) (random_weights), inputs around 2 so that the mean matters. */
static void forward_case(const char *what, const char *text, int64_t groups, int affine,
                         int64_t batch)
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
    for (int64_t i = 0; i < elems(&x); i++)
        x.data[i] = (float)(2 + rnd());
    int64_t nw;
    const float *w = sm_executor_weights(f.ex, &nw);
    int64_t c = x.shape.dim[0], spatial = sm_shape_elems(&x.shape) / c, cpg = c / groups;
    CHECK_EQ(nw, affine ? 2 * c : 0);
    /* inference, then a training step (which also writes the state): the same output */
    for (int training = 0; training <= 1; training++) {
        CHECK(sm_executor_forward(f.ex, training, &st) == 0);
        sm_tensor y = sm_executor_output(f.ex);
        double worst = 0;
        for (int64_t n = 0; n < batch; n++)
            for (int64_t g = 0; g < groups; g++) {
                int64_t base = (n * c + g * cpg) * spatial, len = cpg * spatial;
                double mean = 0, var = 0;
                for (int64_t i = 0; i < len; i++)
                    mean += x.data[base + i];
                mean /= (double)len;
                for (int64_t i = 0; i < len; i++)
                    var += (x.data[base + i] - mean) * (x.data[base + i] - mean);
                var /= (double)len;
                for (int64_t i = 0; i < len; i++) {
                    int64_t ch = g * cpg + i / spatial;
                    double ref = (x.data[base + i] - mean) / sqrt(var + 1e-5);
                    if (affine)
                        ref = ref * w[ch] + w[c + ch];
                    double d = fabs(ref - y.data[base + i]);
                    worst = d > worst ? d : worst;
                }
            }
        printf("%-40s %s: worst |y - reference| %.2e\n", what, training ? "training" : "inference",
               worst);
        CHECK(worst < 1e-5);
    }
    teardown(&f);
}

/* Batch 2 of 4 x 3 (N x C x L = 2 x 4 x 3), x[i] = sin(i) of the flat index, against what
 * PyTorch 1.13 printed for
 *     import math, torch; from torch import nn
 *     x = torch.tensor([math.sin(i) for i in range(24)], dtype=torch.float64).view(2, 4, 3)
 *     g = nn.GroupNorm(2, 4).double()
 *     with torch.no_grad():
 *         g.weight.copy_(torch.tensor([math.cos(c) for c in range(4)]))
 *         g.bias.copy_(torch.tensor([math.sin(c) for c in range(4)]))
 *     print(", ".join("%.8f" % v for v in g(x).flatten().tolist()))
 *     print(", ".join("%.8f" % v for v in nn.InstanceNorm1d(4)(x).flatten().tolist()))
 * (gamma[c] = cos(c), beta[c] = sin(c); InstanceNorm1d(4) is groups=4 affine=false.) */
static void test_forward_pytorch(void)
{
    static const double groupnorm_2[24] = {
        -0.04123417, 1.14054499, 1.23580184, 0.92627554,  0.24492150, 0.09154914,
        1.09853043,  0.54233226, 0.34491226, -0.38586484, 0.96519251, 1.60949215,
        -0.84313322, 0.54183771, 1.36760363, 1.31421339,  0.58041817, 0.05365260,
        1.39468736,  0.84802430, 0.38497893, -0.99607604, 0.22449415, 1.43331656,
    };
    static const double instancenorm[24] = {
        -1.41099922, 0.62350442, 0.78749480, 1.39296074, -0.48510471, -0.90785603,
        -1.36832988, 0.37480590, 0.99352398, 1.34156268, -0.28333603, -1.05822664,
        -1.31405534, 0.20436208, 1.10969326, 1.28601078, -0.13349791, -1.15251287,
        -1.25710375, 0.06753922, 1.18956453, 1.22670126, -0.00394826, -1.22275299,
    };
    static const char *const nets[2] = {NET("4x3", "g = groupnorm groups=2\n"),
                                        NET("4x3", "g = groupnorm groups=4 affine=false\n")};
    static const double *const want[2] = {groupnorm_2, instancenorm};
    for (int k = 0; k < 2; k++) {
        fixture f;
        sm_status st;
        if (setup(&f, nets[k], 2)) {
            CHECK(0);
            continue;
        }
        sm_tensor x = sm_executor_input(f.ex);
        for (int i = 0; i < 24; i++)
            x.data[i] = (float)sin(i);
        int64_t nw;
        float *w = sm_executor_weights(f.ex, &nw);
        CHECK_EQ(nw, k == 0 ? 8 : 0);
        for (int c = 0; c < 4 && nw == 8; c++) {
            w[c] = (float)cos(c);
            w[4 + c] = (float)sin(c);
        }
        CHECK(sm_executor_forward(f.ex, 0, &st) == 0);
        sm_tensor y = sm_executor_output(f.ex);
        double worst = 0;
        for (int i = 0; i < 24; i++) {
            double d = fabs(y.data[i] - want[k][i]);
            worst = d > worst ? d : worst;
        }
        printf("%-40s worst |y - PyTorch| %.2e\n",
               k == 0 ? "GroupNorm(2, 4) vs PyTorch" : "InstanceNorm1d(4) vs PyTorch", worst);
        CHECK(worst < 1e-5);
        teardown(&f);
    }
}

static void test_forward(void)
{
    /* 3-D input, groups 1 (all channels one group), 3, and C (instance norm, with affine) */
    forward_case("6x4x5 groups 1", NET("6x4x5", "g = groupnorm groups=1\n"), 1, 1, 2);
    forward_case("6x4x5 groups 3", NET("6x4x5", "g = groupnorm groups=3\n"), 3, 1, 2);
    forward_case("6x4x5 groups C", NET("6x4x5", "g = groupnorm groups=6\n"), 6, 1, 3);
    /* 2-D input (InstanceNorm1d's C x L), the same three */
    forward_case("6x7 groups 1", NET("6x7", "g = groupnorm groups=1\n"), 1, 1, 2);
    forward_case("6x7 groups 3", NET("6x7", "g = groupnorm groups=3\n"), 3, 1, 2);
    forward_case("6x7 groups C no affine (InstanceNorm1d)",
                 NET("6x7", "g = groupnorm groups=6 affine=false\n"), 6, 0, 3);
    /* the other ranks: C x D x H x W and C alone */
    forward_case("6x2x3x2 groups 2", NET("6x2x3x2", "g = groupnorm groups=2\n"), 2, 1, 2);
    forward_case("6 groups 3", NET("6", "g = groupnorm groups=3\n"), 3, 1, 4);
    test_forward_pytorch();
}

/* ---- backward ------------------------------------------------------------------------------ */

static void test_gradients(void)
{
    const double eps = 1e-3, tol = 1e-2;
    random_weights = 1; /* gamma and beta away from 1 and 0, so that both matter */
    check_gradients("groupnorm groups 2 of 4x3x3", NET("4x3x3", "g = groupnorm groups=2\n"), 2, eps,
                    tol);
    check_gradients("groupnorm groups C, no affine (instance)",
                    NET("4x3x3", "g = groupnorm groups=4 affine=false\n"), 2, eps, tol);
    check_gradients("groupnorm 1-D input 8, groups 2", NET("8", "g = groupnorm groups=2\n"), 3, eps,
                    tol);
    /* the input also feeds the add: backward must add to its gradient, not overwrite it */
    check_gradients("groupnorm + residual add",
                    NET("4x2x3", "g = groupnorm groups=2\ns = add from=g,@input\n"), 2, eps, tol);
    random_weights = 0;
}

/* ---- refusals ------------------------------------------------------------------------------ */

/* Loading text must fail with a message holding the phrase, and naming the layer and its line
 * (5 in NET). */
static void expect_refusal(const char *text, const char *phrase)
{
    expect_refusal_at(text, ":5: layer g (groupnorm)", phrase);
}

static void test_refusals(void)
{
    expect_refusal(NET("6x4x4", "g = groupnorm groups=4\n"),
                   "channels C=6 are not divisible by groups 4");
    expect_refusal(NET("6x4x4", "g = groupnorm groups=0\n"), "groups=0 out of range");
    expect_refusal(NET("6x4x4", "g = groupnorm\n"), "missing parameter groups");
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
