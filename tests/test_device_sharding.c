/*
 * test_device_sharding: sharded data parallelism and activation checkpointing in the device
 * predictor's step (predictor_device.c), worked out by hand on tests/data/curve/round_device.ini
 * (5e12 FLOP/s, 5e11 bytes/s, 10 us launches; nodes of 4, 100 GB/s and 2 us inside, two ports
 * of 10 GB/s and 5 us between: 5 GB/s for each of the four rings) at fp32, batch 32, on 3 nodes
 * x 4 devices, with the numbers of tests/test_device_predictor.c for two_conv.ini: each conv's
 * forward 2,415,919,104 / 5e12 + 10 us = 4.931838208e-4 s, backward 9.763676416e-4 s, 589,824
 * weights (2,359,296 bytes); the update 20 x 1,179,648 / 5e11 + 2 x 10 us = 6.718592e-5 s.
 *
 * An all-gather or reduce-scatter of one conv's 2,359,296 bytes on the ring:
 *   3/4 x 2,359,296 / 100e9 + 3 x 2 us + 2/3 x 589,824 / 5e9 + 2 x 5 us = 1.1233792e-4 s (c)
 * and of both convs' 4,718,592 bytes: 3.538944e-5 + 6e-6 + 1.572864e-4 + 1e-5 = 2.0867584e-4
 * (c2). Sharded, each device updates a twelfth: 5.598826667e-6 s.
 */
#include "check.h"
#include "net_file.h"
#include "scalemeter/device.h"

#define DEVICE "tests/data/curve/round_device.ini"
#define C 1.1233792e-4
#define C2 2.0867584e-4
#define UPDATE (6.718592e-5 / 12)

static double grad_of(const sm_network *net, const char *shard, const char *checkpoint, int overlap,
                      const sm_layout *l, sm_prediction *pr)
{
    sm_device_options opt = {.overlap = overlap, .shard = shard, .checkpoint = checkpoint};
    sm_predictor *p = NULL;
    sm_status st;
    if (sm_predictor_from_device_opts(DEVICE, &opt, &p, &st) || sm_predict(p, net, l, pr, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        sm_predictor_free(p);
        return -1;
    }
    sm_predictor_free(p);
    return pr->t_grad;
}

/* Two convs, each a layer of its own. */
static void test_shard(const sm_network *two)
{
    sm_layout cluster = {32, 3, 4, 1};
    sm_prediction pr;
    /* full: layers outside blocks are FSDP's root unit, gathered once before the forward
     * pass and kept through the backward pass, and reduce-scattered after it: c2 + c2 */
    CHECK_NEAR(grad_of(two, "full", NULL, 0, &cluster, &pr), 2 * C2 + UPDATE, 1e-9);
    CHECK_NEAR(pr.t_bwd, 2 * 9.763676416e-4, 1e-9);
    /* ZeRO-2, not overlapped: one 25 MiB bucket reduce-scattered, then the weights gathered */
    CHECK_NEAR(grad_of(two, "gradients", NULL, 0, &cluster, &pr), 2 * C2 + UPDATE, 1e-9);
    /* ZeRO-1, overlapped: conv2's gradient is reduced during conv1's backward, conv1's shows
     * (c), and the gather after the step (c2) */
    CHECK_NEAR(grad_of(two, "optimizer", NULL, 1, &cluster, &pr), C + C2 + UPDATE, 1e-9);
    /* none is DDP's all-reduce, as in test_device_predictor: 4.845376e-4 s */
    CHECK_NEAR(grad_of(two, "none", NULL, 0, &cluster, &pr), 4.845376e-4, 1e-9);
    /* one device: every sharding refused, there is no rank to shard across (ZeRO-1 and -2
     * were taken and divided nothing); DDP's none runs (update 6.718592e-5) */
    sm_layout one = {32, 1, 1, 1};
    CHECK(grad_of(two, "full", NULL, 0, &one, &pr) == -1);
    CHECK(grad_of(two, "gradients", NULL, 0, &one, &pr) == -1);
    CHECK(grad_of(two, "optimizer", NULL, 0, &one, &pr) == -1);
    CHECK_NEAR(grad_of(two, "none", NULL, 0, &one, &pr), 6.718592e-5, 1e-9);
}

/*
 * The same convs in one block with a ReLU between: a checkpointed unit. The ReLU moves
 * 4 x 2 x 524,288 bytes: forward 8.388608e-6 + 10 us = 1.8388608e-5 s, backward 1.5 times
 * the bytes (the output's gradient and the kept output read, the input's written) + 10 us =
 * 2.2582912e-5 s. Full recomputes the three forwards in the backward pass; so does selective, whose
 * policy (torchtitan's) keeps matrix products and attention, and a convolution is neither to it.
 */
static void test_checkpoint(const sm_network *blocked)
{
    sm_layout cluster = {32, 3, 4, 1};
    sm_prediction pr;
    double bwd = 2 * 9.763676416e-4 + 2.2582912e-5;
    grad_of(blocked, NULL, "none", 0, &cluster, &pr);
    CHECK_NEAR(pr.t_bwd, bwd, 1e-9);
    grad_of(blocked, NULL, "selective", 0, &cluster, &pr);
    CHECK_NEAR(pr.t_bwd, bwd + 2 * 4.931838208e-4 + 1.8388608e-5, 1e-9);
    CHECK_NEAR(pr.t_fwd, 2 * 4.931838208e-4 + 1.8388608e-5, 1e-9);
    grad_of(blocked, NULL, "full", 0, &cluster, &pr);
    CHECK_NEAR(pr.t_bwd, bwd + 2 * 4.931838208e-4 + 1.8388608e-5, 1e-9);
    /* fully sharded, the block is one FSDP unit (torchtitan wraps each transformer block):
     * its two convs' weights gathered before its forward pass (c2) and again before its
     * backward pass (c2), its gradients reduce-scattered after it (c2); nothing computes
     * beside any of them */
    CHECK_NEAR(grad_of(blocked, "full", NULL, 0, &cluster, &pr), 3 * C2 + UPDATE, 1e-9);
}

/*
 * FSDP units at batch 1, where compute no longer covers a collective: conv0 outside blocks
 * (the root), then two blocks of a conv and a ReLU. At batch 1 a conv's forward is
 * 75,497,472 / 5e12 + 10 us = 2.50994944e-5 s (f), its backward 4.01989888e-5 (b); the ReLU's
 * 2.62144e-7 + 10 us = 1.0262144e-5 (r) and 1.5 x 2.62144e-7 + 10 us = 1.0393216e-5 (rb). Each
 * unit's collective is c. Forward: the root's gather (c), block 0's beside conv0 (c - f), block 1's
 * beside block 0 (c - f - r). Backward: block 1's gather at its start (c), block 0's beside block 1
 * (c - b - rb), block 1's reduce-scatter beside block 0 (c - b - rb), block 0's beside conv0
 * (c - b), the root's after (c). The update: 3 convs' weights, sharded.
 */
static void test_units(const sm_network *units)
{
    sm_layout cluster = {1, 3, 4, 1};
    sm_prediction pr;
    double f = 2.50994944e-5, b = 4.01989888e-5, r = 1.0262144e-5, rb = 1.0393216e-5;
    double update = (20 * 3 * 589824 / 5e11 + 3 * 1e-5) / 12;
    CHECK_NEAR(grad_of(units, "full", NULL, 0, &cluster, &pr),
               8 * C - 2 * f - r - 3 * b - 2 * rb + update, 1e-9);
    CHECK_NEAR(pr.t_fwd, 3 * f + 2 * r, 1e-12);
    CHECK_NEAR(pr.t_bwd, 3 * b + 2 * rb, 1e-12);
}

/*
 * Selective checkpointing recomputes, of a layer it keeps in part, the matrix products the
 * plugin names and its element-wise kernels. A block (a unit: more than one layer, the second
 * a view that takes no time) of swiglu E 8, F 16 on 4 rows, batch 32: the
 * products it recomputes are 2 rows E F = 1,024 FLOPs a sample (swiglu.c's selective_flops:
 * one of its three), 32,768 / 5e12 = 6.5536e-9 s; silu's and the product's kernels move
 * 4 rows 5 F = 1,280 bytes a sample (its serial_bytes: what tools/torch_eager_bytes.py
 * measures of them), 40,960 / 5e11 = 8.192e-8 s after them.
 */
static void test_selective_elementwise(const sm_network *mlp)
{
    sm_layout one = {32, 1, 1, 1};
    sm_prediction pr;
    grad_of(mlp, NULL, "none", 0, &one, &pr);
    double bwd = pr.t_bwd;
    grad_of(mlp, NULL, "selective", 0, &one, &pr);
    CHECK_NEAR(pr.t_bwd - bwd, 6.5536e-9 + 8.192e-8, 1e-12);
}

static void test_bad_names(void)
{
    sm_predictor *p;
    sm_status st;
    sm_device_options opt = {.shard = "zero3"};
    CHECK(sm_predictor_from_device_opts(DEVICE, &opt, &p, &st) == -1);
    CHECK_CONTAINS(st.msg, "shard zero3: expected none, optimizer, gradients or full");
    opt = (sm_device_options){.checkpoint = "some"};
    CHECK(sm_predictor_from_device_opts(DEVICE, &opt, &p, &st) == -1);
    CHECK_CONTAINS(st.msg, "checkpoint some: expected none, selective or full");
}

int main(void)
{
    sm_status st;
    sm_registry *reg;
    sm_network *two, *blocked = NULL, *mlp = NULL, *units = NULL;
    if (sm_registry_open(&reg, &st) ||
        sm_network_load(reg, "tests/data/curve/two_conv.ini", NULL, &two, &st) ||
        !(blocked = net_load(reg,
                             "[network]\nname = blocked\ninput = 256x8x8\n[block b]\n"
                             "conv1 = conv2d out=256 kernel=3 padding=1 bias=false\n"
                             "relu = relu\n"
                             "conv2 = conv2d out=256 kernel=3 padding=1 bias=false\n",
                             0, &st)) ||
        !(units = net_load(reg,
                           "[network]\nname = units\ninput = 256x8x8\n[layers]\n"
                           "conv0 = conv2d out=256 kernel=3 padding=1 bias=false\n"
                           "[template unit]\n"
                           "conv = conv2d out=256 kernel=3 padding=1 bias=false\nrelu = relu\n"
                           "[block b.{0..1}]\nuse = unit\n",
                           0, &st)) ||
        !(mlp = net_load(reg,
                         "[network]\nname = mlp\ninput = 4x8\n[block b]\n"
                         "m = swiglu hidden=16\nv = identity\n",
                         0, &st))) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_shard(two);
    test_checkpoint(blocked);
    test_units(units);
    test_selective_elementwise(mlp);
    test_bad_names();
    sm_network_free(mlp);
    sm_network_free(two);
    sm_network_free(blocked);
    sm_network_free(units);
    sm_registry_free(reg);
    return check_summary();
}
