/* Scaling curves (curve.c): the turning point of curves made by hand, weak scaling that never
 * gets faster per step nor more than perfectly efficient over the zoo and the shipped devices,
 * strong scaling's per-device batch, and the specs a curve refuses. */
#include "check.h"
#include "scalemeter/curve.h"
#include "scalemeter/device.h"

static void turning_points(void)
{
    /* gains per doubling: 190/100 = +90%, 350/190 = +84%, 370/350 = +5.7%, 380/370 = +2.7% */
    const int nodes[] = {1, 2, 4, 8, 16};
    const double ips[] = {100, 190, 350, 370, 380};
    CHECK_EQ(sm_curve_turning_point(nodes, ips, 5, 0.10), 2); /* past 4 nodes */
    CHECK_EQ(sm_curve_turning_point(nodes, ips, 5, 0.05), 3); /* past 8 nodes */
    CHECK_EQ(sm_curve_turning_point(nodes, ips, 5, 0.01), -1);
    /* falling throughput turns at once */
    const double falling[] = {100, 90, 80, 70, 60};
    CHECK_EQ(sm_curve_turning_point(nodes, falling, 5, 0.10), 0);
    /* steps of two doublings count per doubling: 1 -> 4 nodes at x1.44 is +20% per doubling,
     * at x1.16 only +7.7% */
    const int wide[] = {1, 4};
    const double fast[] = {100, 144}, slow[] = {100, 116};
    CHECK_EQ(sm_curve_turning_point(wide, fast, 2, 0.10), -1);
    CHECK_EQ(sm_curve_turning_point(wide, slow, 2, 0.10), 0);
    /* one point has no doubling to judge */
    CHECK_EQ(sm_curve_turning_point(nodes, ips, 1, 0.10), -1);
}

/* Weak scaling over every model and device: t_step never falls, efficiency never exceeds 1. */
static void weak_scaling(const sm_registry *reg)
{
    static const char *const models[] = {"resnet18", "resnet50", "vgg16", "mobilenet_v2"};
    static const char *const devices[] = {"a100", "h100", "h200", "cpu"};
    static const int64_t batches[] = {1, 32, 256};
    int nodes[64];
    for (int i = 0; i < 64; i++)
        nodes[i] = i + 1;
    sm_status st;
    for (int m = 0; m < 4; m++) {
        sm_network *net;
        if (sm_network_load(reg, models[m], NULL, &net, &st)) {
            fprintf(stderr, "%s\n", st.msg);
            check_failed++;
            continue;
        }
        for (int d = 0; d < 4; d++)
            for (int overlap = 0; overlap <= 1; overlap++) {
                sm_device_options opt = {.overlap = overlap};
                sm_predictor *p;
                CHECK_EQ(sm_predictor_from_device_opts(devices[d], &opt, &p, &st), 0);
                for (int b = 0; b < 3; b++) {
                    sm_curve_spec spec = {batches[b], 0,  sm_predictor_devices_per_node(p),
                                          nodes,      64, SM_DEFAULT_THRESHOLD,
                                          1};
                    sm_curve c;
                    if (sm_curve_compute(p, net, &spec, &c, &st)) {
                        fprintf(stderr, "%s\n", st.msg);
                        check_failed++;
                        continue;
                    }
                    int rising = 1, efficient = 1;
                    for (int i = 1; i < c.n_points; i++) {
                        rising &= c.points[i].pred.t_step >= c.points[i - 1].pred.t_step;
                        efficient &= c.points[i].efficiency <= 1 + 1e-12;
                    }
                    if (!rising || !efficient)
                        fprintf(stderr,
                                "%s on %s, batch %lld, overlap %d: step falls or "
                                "efficiency above 1\n",
                                models[m], devices[d], (long long)batches[b], overlap);
                    CHECK(rising);
                    CHECK(efficient);
                    CHECK_NEAR(c.points[0].efficiency, 1, 1e-12);
                    CHECK_EQ(c.points[63].global_batch,
                             batches[b] * 64 * sm_predictor_devices_per_node(p));
                    sm_curve_free(&c);
                }
                sm_predictor_free(p);
            }
        sm_network_free(net);
    }
}

static void strong_scaling(const sm_registry *reg)
{
    sm_status st;
    sm_network *net;
    sm_predictor *p;
    if (sm_network_load(reg, "resnet50", NULL, &net, &st) ||
        sm_predictor_from_device("h100", &p, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        check_failed++;
        return;
    }
    /* global batch 1024 over 8 devices a node: 1024/8 = 128, /16 = 64, /32 = 32, /64 = 16,
     * /128 = 8 per device */
    const int nodes[] = {1, 2, 4, 8, 16};
    sm_curve_spec spec = {0, 1024, 8, nodes, 5, SM_DEFAULT_THRESHOLD, 1};
    sm_curve c;
    CHECK_EQ(sm_curve_compute(p, net, &spec, &c, &st), 0);
    static const int64_t per_device[] = {128, 64, 32, 16, 8};
    for (int i = 0; i < c.n_points; i++) {
        CHECK_EQ(c.points[i].layout.batch, per_device[i]);
        CHECK_EQ(c.points[i].global_batch, 1024);
        /* images/s is the global batch over the step time */
        CHECK_NEAR(c.points[i].images_per_s, 1024 / c.points[i].pred.t_step, 1e-12);
    }
    sm_curve_free(&c);

    /* 1000 over 8 devices = 125; over 3 x 8 = 24 devices: 41 each (rounded down), 984 */
    const int odd[] = {1, 3};
    sm_curve_spec round_down = {0, 1000, 8, odd, 2, SM_DEFAULT_THRESHOLD, 1};
    CHECK_EQ(sm_curve_compute(p, net, &round_down, &c, &st), 0);
    CHECK_EQ(c.points[0].layout.batch, 125);
    CHECK_EQ(c.points[1].layout.batch, 41);
    CHECK_EQ(c.points[1].global_batch, 984);
    sm_curve_free(&c);

    /* a global batch smaller than the devices */
    sm_curve_spec too_small = {0, 64, 8, nodes, 5, SM_DEFAULT_THRESHOLD, 1};
    CHECK_EQ(sm_curve_compute(p, net, &too_small, &c, &st), -1);
    CHECK_CONTAINS(st.msg, "global batch 64 is smaller than the 128 devices of 16 nodes x 8");
    CHECK(c.points == NULL);

    /* specs a curve refuses */
    const int backwards[] = {4, 2}, zero[] = {0, 2};
    sm_curve_spec bad[] = {{64, 0, 8, backwards, 2, 0.1, 1}, {64, 0, 8, zero, 2, 0.1, 1},
                           {64, 0, 8, nodes, 5, 0, 1},       {64, 1024, 8, nodes, 5, 0.1, 1},
                           {64, 0, 0, nodes, 5, 0.1, 1},     {64, 0, 8, nodes, 0, 0.1, 1}};
    static const char *const why[] = {"expected ascending", "node count 0",
                                      "threshold 0",        "either a per-device batch",
                                      "devices per node 0", "at least one node count"};
    for (int i = 0; i < 6; i++) {
        CHECK_EQ(sm_curve_compute(p, net, &bad[i], &c, &st), -1);
        CHECK_CONTAINS(st.msg, why[i]);
    }
    sm_predictor_free(p);
    sm_network_free(net);
}

int main(void)
{
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    turning_points();
    weak_scaling(reg);
    strong_scaling(reg);
    sm_registry_free(reg);
    return check_summary();
}
