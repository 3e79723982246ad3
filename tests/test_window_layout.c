/*
 * test_window_layout: the data-movement types of torchvision's Swin and MaxViT: patch_merge
 * (_patch_merging_pad), window_partition (WindowPartition) and window_departition
 * (WindowDepartition). Their shapes, their CPU kernels against PyTorch's outputs, their
 * gradients against finite differences, and their refusals.
 *
 * Where the expected numbers come from (none of them from the code under test):
 * - shapes: derived by hand in the comments;
 * - forward: the outputs PyTorch 1.13 / torchvision 0.14 printed for arange inputs, by
 *     /usr/bin/python3 -c 'import torch
 *     from torchvision.models.swin_transformer import _patch_merging_pad
 *     from torchvision.models.maxvit import WindowPartition, WindowDepartition
 *     a = lambda *s: torch.arange(torch.Size(s).numel(), dtype=torch.float32).reshape(1, *s)
 *     print(_patch_merging_pad(a(5, 7, 3)).flatten().int().tolist())
 *     print(WindowPartition()(a(2, 4, 6), 2).flatten().int().tolist())
 *     print(WindowDepartition()(a(6, 4, 2), 2, 2, 3).flatten().int().tolist())'
 * - backward: central finite differences of the forward pass (tests/gradient_check.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradient_check.h"

/* ---- shapes -------------------------------------------------------------------------------- */

/* The output shape of layer "g" of a one-layer network, as text ("" when it did not load),
 * and its bytes per sample. */
static int64_t out_shape(const char *text, char *buf, size_t len)
{
    sm_status st;
    buf[0] = '\0';
    sm_network *net = net_load(reg, text, 0, &st);
    if (!net) {
        fprintf(stderr, "network: %s\n", st.msg);
        return -1;
    }
    const sm_layer *l = sm_network_layer(net, "g");
    int64_t bytes = -1;
    if (l) {
        sm_shape_str(&l->out, buf, len);
        CHECK_EQ(l->m.weights, 0);
        CHECK_EQ(l->m.flops, 0);
        bytes = l->m.bytes;
    }
    sm_network_free(net);
    return bytes;
}

#define SHAPE_IS(s, want)                                                                          \
    do {                                                                                           \
        if (strcmp(s, want) != 0)                                                                  \
            fprintf(stderr, "shape %s, expected %s\n", s, want);                                   \
        CHECK(strcmp(s, want) == 0);                                                               \
    } while (0)

/* Bytes are a copy's: every element read once and written once, 4 bytes each. */
static void test_shapes(void)
{
    char s[64];
    /* Swin-T's first merge: 56x56x96 -> 28x28x(4 x 96); 301,056 elements in and out */
    CHECK_EQ(out_shape(NET("56x56x96", "g = patch_merge\n"), s, sizeof s), 4 * 2 * 301056);
    SHAPE_IS(s, "28x28x384");
    /* odd 5x7x3 pads to 6x8: 3x4x12; 105 in, 144 out */
    CHECK_EQ(out_shape(NET("5x7x3", "g = patch_merge\n"), s, sizeof s), 4 * (105 + 144));
    SHAPE_IS(s, "3x4x12");
    /* MaxViT-T's first stage: 64x56x56 in windows of 7: (56/7)^2 = 64 windows of 49 pixels;
     * 200,704 elements */
    CHECK_EQ(out_shape(NET("64x56x56", "g = window_partition p=7\n"), s, sizeof s), 4 * 2 * 200704);
    SHAPE_IS(s, "64x49x64");
    CHECK_EQ(out_shape(NET("64x49x64", "g = window_departition p=7 h=8 w=8\n"), s, sizeof s),
             4 * 2 * 200704);
    SHAPE_IS(s, "64x56x56");
    /* not square: 3x4x6 with p=2 is 2x3 = 6 windows of 4; 72 elements */
    CHECK_EQ(out_shape(NET("3x4x6", "g = window_partition p=2\n"), s, sizeof s), 4 * 2 * 72);
    SHAPE_IS(s, "6x4x3");
}

/* ---- forward against PyTorch --------------------------------------------------------------- */

/* Runs the network on one sample 0, 1, 2, ... and compares every output with want. */
static void forward_case(const char *what, const char *text, const int *want, int64_t n)
{
    fixture f;
    if (setup(&f, text, 1)) {
        CHECK(!what);
        return;
    }
    sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
    for (int64_t i = 0; i < elems(&x); i++)
        x.data[i] = (float)i;
    sm_status st;
    CHECK_EQ(sm_executor_forward(f.ex, 0, &st), 0);
    CHECK_EQ(elems(&y), n);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n && i < elems(&y); i++)
        wrong += y.data[i] != (float)want[i];
    if (wrong)
        fprintf(stderr, "%s: %lld of %lld outputs differ from PyTorch's\n", what, (long long)wrong,
                (long long)n);
    CHECK_EQ(wrong, 0);
    teardown(&f);
}

static void test_forward_pytorch(void)
{
    /* _patch_merging_pad of 5x7x3 arange: 3x4x12, zeros where the patch is padding */
    static const int merge[] = {
        0,  1,   2,   21, 22, 23, 3,   4,   5,   24, 25, 26, 6,  7,  8,  27, 28, 29, 9,  10, 11,
        30, 31,  32,  12, 13, 14, 33,  34,  35,  15, 16, 17, 36, 37, 38, 18, 19, 20, 39, 40, 41,
        0,  0,   0,   0,  0,  0,  42,  43,  44,  63, 64, 65, 45, 46, 47, 66, 67, 68, 48, 49, 50,
        69, 70,  71,  51, 52, 53, 72,  73,  74,  54, 55, 56, 75, 76, 77, 57, 58, 59, 78, 79, 80,
        60, 61,  62,  81, 82, 83, 0,   0,   0,   0,  0,  0,  84, 85, 86, 0,  0,  0,  87, 88, 89,
        0,  0,   0,   90, 91, 92, 0,   0,   0,   93, 94, 95, 0,  0,  0,  96, 97, 98, 0,  0,  0,
        99, 100, 101, 0,  0,  0,  102, 103, 104, 0,  0,  0,  0,  0,  0,  0,  0,  0};
    forward_case("patch_merge 5x7x3", NET("5x7x3", "g = patch_merge\n"), merge,
                 (int64_t)(sizeof merge / sizeof merge[0]));
    /* WindowPartition()(x, 2) of 2x4x6 arange: 6x4x2 */
    static const int part[] = {0,  24, 1,  25, 6,  30, 7,  31, 2,  26, 3,  27, 8,  32, 9,  33,
                               4,  28, 5,  29, 10, 34, 11, 35, 12, 36, 13, 37, 18, 42, 19, 43,
                               14, 38, 15, 39, 20, 44, 21, 45, 16, 40, 17, 41, 22, 46, 23, 47};
    forward_case("window_partition 2x4x6, p 2", NET("2x4x6", "g = window_partition p=2\n"), part,
                 48);
    /* WindowDepartition()(x, 2, 2, 3) of 6x4x2 arange: 2x4x6 */
    static const int depart[] = {0,  2,  8,  10, 16, 18, 4,  6,  12, 14, 20, 22, 24, 26, 32, 34,
                                 40, 42, 28, 30, 36, 38, 44, 46, 1,  3,  9,  11, 17, 19, 5,  7,
                                 13, 15, 21, 23, 25, 27, 33, 35, 41, 43, 29, 31, 37, 39, 45, 47};
    forward_case("window_departition 6x4x2, p 2, 2x3",
                 NET("6x4x2", "g = window_departition p=2 h=2 w=3\n"), depart, 48);
}

/* A partition then its departition gives the input back, element for element. */
static void test_round_trip(void)
{
    fixture f;
    if (setup(&f,
              NET("5x6x9", "a = window_partition p=3\n"
                           "g = window_departition p=3 h=2 w=3\n"),
              2)) {
        CHECK(0);
        return;
    }
    sm_status st;
    CHECK_EQ(sm_executor_forward(f.ex, 0, &st), 0);
    sm_tensor x = sm_executor_input(f.ex), y = sm_executor_output(f.ex);
    CHECK_EQ(elems(&x), elems(&y));
    CHECK(elems(&x) == elems(&y) && memcmp(x.data, y.data, (size_t)elems(&x) * sizeof(float)) == 0);
    teardown(&f);
}

/* ---- backward ------------------------------------------------------------------------------ */

static void test_gradients(void)
{
    const double eps = 1e-3, tol = 1e-2;
    /* a linear layer after the move, so that a misplaced gradient changes R */
    check_gradients("patch_merge 5x7x3 (padded)",
                    NET("5x7x3", "g = patch_merge\nf = flatten\nl = linear out=3\n"), 2, eps, tol);
    check_gradients("window_partition 2x4x6, p 2", NET("2x4x6", "g = window_partition p=2\n"), 2,
                    eps, tol);
    check_gradients("window_departition 6x4x2, p 2, 2x3",
                    NET("6x4x2", "g = window_departition p=2 h=2 w=3\n"), 2, eps, tol);
    /* the input also feeds the add: backward must add to its gradient, not overwrite it */
    check_gradients("partition, departition + residual",
                    NET("3x4x4", "a = window_partition p=2\n"
                                 "g = window_departition p=2 h=2 w=2\n"
                                 "s = add from=g,@input\n"),
                    2, eps, tol);
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
    expect_refusal(NET("8x8", "g = patch_merge\n"), "patch_merge",
                   "needs a channels-last H x W x C input, got 8x8");
    expect_refusal(NET("3x8x6", "g = window_partition p=4\n"), "window_partition",
                   "H 8 and W 6 of input 3x8x6 must be multiples of p = 4");
    expect_refusal(NET("3x8x8", "g = window_partition\n"), "window_partition",
                   "missing parameter p");
    expect_refusal(NET("6x4x2", "g = window_departition p=2 h=2 w=2\n"), "window_departition",
                   "input 6x4x2 is not h x w = 2 x 2 windows of p x p = 2 x 2 pixels");
    expect_refusal(NET("6x9x2", "g = window_departition p=2 h=2 w=3\n"), "window_departition",
                   "(expected 6x4xC)");
    expect_refusal(NET("24x2", "g = window_departition p=2 h=2 w=3\n"), "window_departition",
                   "needs a G x P^2 x C input of windows, got 24x2");
}

int main(void)
{
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_shapes();
    test_forward_pytorch();
    test_round_trip();
    test_gradients();
    test_refusals();
    sm_registry_free(reg);
    return check_summary();
}
