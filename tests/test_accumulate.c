/*
 * test_accumulate: gradient accumulation (sm_layout.accumulate, K micro-batches a step) in
 * sm_predict, the layout's helpers and sm_curve_compute, worked out by hand with the numbers of
 * tests/test_device_sharding.c: two_conv.ini on tests/data/curve/round_device.ini at batch 32
 * on 3 nodes x 4 devices, each conv's forward 4.931838208e-4 s and backward 9.763676416e-4 s;
 * one gather or reduce-scatter of a conv's weights C, of both C2; the sharded update UPDATE.
 *
 * With K micro-batches: t_step = K (t_fwd + t_bwd) + t_grad; DDP's all-reduce and ZeRO-1/-2's
 * collectives once a step, FSDP's full sharding's every micro-batch.
 */
#include "check.h"
#include "scalemeter/curve.h"
#include "scalemeter/device.h"

#define DEVICE "tests/data/curve/round_device.ini"
#define C 1.1233792e-4
#define C2 2.0867584e-4
#define UPDATE (6.718592e-5 / 12)
#define FWD (2 * 4.931838208e-4)
#define BWD (2 * 9.763676416e-4)

static int predict(const sm_network *net, const char *shard, int overlap, const sm_layout *l,
                   sm_prediction *pr)
{
    sm_device_options opt = {.overlap = overlap, .shard = shard};
    sm_predictor *p = NULL;
    sm_status st;
    int rc = sm_predictor_from_device_opts(DEVICE, &opt, &p, &st) || sm_predict(p, net, l, pr, &st);
    if (rc)
        fprintf(stderr, "%s\n", st.msg);
    sm_predictor_free(p);
    return rc ? -1 : 0;
}

static void test_step(const sm_network *two)
{
    sm_layout three = {32, 3, 4, 3};
    sm_prediction pr;
    /* full sharding: 2 C2 exposed every micro-batch (the root unit's gather and
     * reduce-scatter: test_device_sharding), the update once */
    CHECK_EQ(predict(two, "full", 0, &three, &pr), 0);
    CHECK_NEAR(pr.t_fwd, FWD, 1e-9);
    CHECK_NEAR(pr.t_bwd, BWD, 1e-9);
    CHECK_NEAR(pr.t_grad, 3 * 2 * C2 + UPDATE, 1e-9);
    CHECK_NEAR(pr.t_step, 3 * (FWD + BWD) + 3 * 2 * C2 + UPDATE, 1e-9);
    /* ZeRO-2: it keeps its shard of the gradients alone, so it reduce-scatters them with every
     * micro-batch, C2 each, and gathers the weights once, C2 */
    CHECK_EQ(predict(two, "gradients", 0, &three, &pr), 0);
    CHECK_NEAR(pr.t_grad, 3 * C2 + C2 + UPDATE, 1e-9);
    CHECK_NEAR(pr.t_step, 3 * (FWD + BWD) + 4 * C2 + UPDATE, 1e-9);
    /* ZeRO-1: the whole gradients held, one reduce-scatter and one gather a step, as K = 1 */
    CHECK_EQ(predict(two, "optimizer", 0, &three, &pr), 0);
    CHECK_NEAR(pr.t_grad, 2 * C2 + UPDATE, 1e-9);
    /* ZeRO-1 overlapped: behind the last micro-batch's backward pass, as with K = 1 */
    CHECK_EQ(predict(two, "optimizer", 1, &three, &pr), 0);
    CHECK_NEAR(pr.t_grad, C + C2 + UPDATE, 1e-9);
    /* DDP: the all-reduce of test_device_predictor, once */
    CHECK_EQ(predict(two, "none", 0, &three, &pr), 0);
    CHECK_NEAR(pr.t_grad, 4.845376e-4, 1e-9);
    CHECK_NEAR(pr.t_step, 3 * (FWD + BWD) + 4.845376e-4, 1e-9);

    /* 32 x 3 x 12 = 1152 samples a step; 10000 samples: 9 steps (8 full, one partly) */
    CHECK_EQ(sm_layout_global_batch(&three), 1152);
    CHECK_NEAR(sm_images_per_s(&three, pr.t_step), 1152 / pr.t_step, 1e-12);
    CHECK_NEAR(sm_epoch_steps(&three, 10000), 9, 0);
    CHECK_NEAR(sm_epoch_time(&three, pr.t_step, 10000), 9 * pr.t_step, 1e-12);
    /* the largest dataset an int64 holds, 2^63 - 1 samples: ceil((2^63 - 1) / 8) = 2^60 steps
     * of 1 x 8 x 1 (the ceiling wrapped past 2^63); none: not known */
    sm_layout eight = {1, 1, 8, 1};
    CHECK_NEAR(sm_epoch_steps(&eight, INT64_MAX), 1152921504606846976.0, 0);
    CHECK(isnan(sm_epoch_steps(&eight, 0)) && isnan(sm_epoch_steps(&eight, -5)));

    /* 0, as a layout written before the field leaves it, is one micro-batch */
    sm_layout zero = {32, 3, 4, 0}, one = {32, 3, 4, 1};
    sm_prediction a, b;
    CHECK_EQ(predict(two, "full", 0, &zero, &a), 0);
    CHECK_EQ(predict(two, "full", 0, &one, &b), 0);
    CHECK_NEAR(a.t_step, FWD + BWD + 2 * C2 + UPDATE, 1e-9);
    CHECK_NEAR(a.t_step, b.t_step, 0);
    CHECK_EQ(sm_layout_global_batch(&zero), 384);
}

static void test_layout_check(void)
{
    sm_status st;
    sm_layout negative = {32, 1, 1, -1};
    CHECK_EQ(sm_layout_check(&negative, &st), -1);
    CHECK_CONTAINS(st.msg, "accumulate -1");
    /* 2^33 x 2^10 devices x 2^10 micro-batches = 2^53 samples: the most there may be */
    sm_layout most = {INT64_C(1) << 33, 1024, 1, 1024};
    CHECK_EQ(sm_layout_check(&most, &st), 0);
    sm_layout over = {INT64_C(1) << 33, 1024, 1, 1025};
    CHECK_EQ(sm_layout_check(&over, &st), -1);
    CHECK_CONTAINS(st.msg, "x 1025 micro-batches");
    CHECK_CONTAINS(st.msg, "2^53");
    /* devices x K beyond int64 is never formed: 2^31 - 1 micro-batches on 2^20 x 2^12 */
    sm_layout wide = {1, 1 << 20, 1 << 12, 2147483647};
    CHECK_EQ(sm_layout_check(&wide, &st), -1);
    CHECK_CONTAINS(st.msg, "2^53");
}

static void test_curve(const sm_network *two)
{
    sm_predictor *p;
    sm_status st;
    if (sm_predictor_from_device(DEVICE, &p, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        check_failed++;
        return;
    }
    /* global batch 768 in 3 micro-batches of 256: 64 a device on one node of 4, 32 on two */
    const int nodes[] = {1, 2};
    sm_curve_spec strong = {0, 768, 4, nodes, 2, SM_DEFAULT_THRESHOLD, 3};
    sm_curve c;
    CHECK_EQ(sm_curve_compute(p, two, &strong, &c, &st), 0);
    if (c.n_points == 2) {
        CHECK_EQ(c.points[0].layout.batch, 64);
        CHECK_EQ(c.points[1].layout.batch, 32);
        CHECK_EQ(c.points[0].global_batch, 768);
        CHECK_EQ(c.points[1].global_batch, 768);
        CHECK_EQ(c.points[1].layout.accumulate, 3);
        CHECK_NEAR(c.points[1].images_per_s, 768 / c.points[1].pred.t_step, 1e-12);
    }
    sm_curve_free(&c);
    /* weak scaling: batch 32 a micro-batch, 3 of them, 8 devices: 768 a step */
    sm_curve_spec weak = {32, 0, 4, nodes, 2, SM_DEFAULT_THRESHOLD, 3};
    CHECK_EQ(sm_curve_compute(p, two, &weak, &c, &st), 0);
    if (c.n_points == 2)
        CHECK_EQ(c.points[1].global_batch, 768);
    sm_curve_free(&c);
    /* 1000 is no whole number of 3 micro-batches */
    sm_curve_spec uneven = {0, 1000, 4, nodes, 2, SM_DEFAULT_THRESHOLD, 3};
    CHECK_EQ(sm_curve_compute(p, two, &uneven, &c, &st), -1);
    CHECK_CONTAINS(st.msg, "global batch 1000 is not a whole number of 3 micro-batches");
    /* 48 in 3: 16 a micro-batch, fewer than the 32 devices of 8 nodes */
    const int far[] = {1, 8};
    sm_curve_spec small = {0, 48, 4, far, 2, SM_DEFAULT_THRESHOLD, 3};
    CHECK_EQ(sm_curve_compute(p, two, &small, &c, &st), -1);
    CHECK_CONTAINS(st.msg, "global batch 48 (16 per micro-batch) is smaller than the 32 devices");
    sm_curve_spec negative = {32, 0, 4, nodes, 2, SM_DEFAULT_THRESHOLD, -2};
    CHECK_EQ(sm_curve_compute(p, two, &negative, &c, &st), -1);
    CHECK_CONTAINS(st.msg, "accumulate -2");
    sm_predictor_free(p);
}

int main(void)
{
    sm_status st;
    sm_registry *reg;
    sm_network *two;
    if (sm_registry_open(&reg, &st) ||
        sm_network_load(reg, "tests/data/curve/two_conv.ini", NULL, &two, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_step(two);
    test_layout_check();
    test_curve(two);
    sm_network_free(two);
    sm_registry_free(reg);
    return check_summary();
}
