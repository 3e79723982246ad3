/* The ring all-reduce model against numbers worked out by hand. */
#include "../core/src/allreduce_model.h"
#include "check_near.h"

#define MIB 1048576.0

int main(void)
{
    /* ResNet-50: W = 25,557,032 weights, fp32 gradients: S = 4 W = 102,228,128 bytes.
     * 25 MiB buckets = 26,214,400 bytes: S / bucket = 3.8997 -> 4 buckets. */
    const double S = 4.0 * 25557032;

    /* Flat ring over 8 nodes of one device, 50 GB/s, 5 us per step:
     *   bandwidth 2 x 7/8 x 102,228,128 / 50e9 = 178,899,224 / 50e9 = 3.57798448e-3 s
     *   latency   4 buckets x 2 x 7 steps x 5 us                      = 2.8e-4 s
     *   total                                                          = 3.85798448e-3 s */
    sm_ring_config flat = {S, 25 * MIB, 8, 1, {450e9, 3.4e-6}, {50e9, 5e-6}};
    sm_ring_time t = sm_ring_allreduce_time(&flat);
    CHECK_EQ(t.buckets, 4);
    CHECK_NEAR(t.bandwidth, 3.57798448e-3, 1e-9);
    CHECK_NEAR(t.latency, 2.8e-4, 1e-9);
    CHECK_NEAR(t.total, 3.85798448e-3, 1e-9);

    /* Hierarchical, 4 nodes x 8 devices; NVLink 450 GB/s and 3.4 us inside, 50 GB/s and 9.6 us
     * per ring between nodes:
     *   inside   2 x 7/8 x 102,228,128 / 450e9       = 178,899,224 / 450e9 = 3.975538311e-4 s
     *   between  2 x 3/4 x (102,228,128 / 8) / 50e9 = 19,167,774 / 50e9   = 3.8335548e-4 s
     *   latency  4 x (2 x 7 x 3.4 us + 2 x 3 x 9.6 us) = 4 x 105.2 us        = 4.208e-4 s
     *   total                                                                = 1.2017093111e-3 s */
    sm_ring_config hier = {S, 25 * MIB, 4, 8, {450e9, 3.4e-6}, {50e9, 9.6e-6}};
    t = sm_ring_allreduce_time(&hier);
    CHECK_EQ(t.buckets, 4);
    CHECK_NEAR(t.bandwidth, 3.975538311e-4 + 3.8335548e-4, 1e-9);
    CHECK_NEAR(t.latency, 4.208e-4, 1e-9);
    CHECK_NEAR(t.total, 1.2017093111e-3, 1e-9);

    /* One node of 8: the inside terms alone, 3.975538311e-4 + 4 x 47.6 us = 5.879538311e-4 s. */
    sm_ring_config one_node = hier;
    one_node.nodes = 1;
    CHECK_NEAR(sm_ring_allreduce_time(&one_node).total, 5.879538311e-4, 1e-9);

    /* One device: nothing to synchronise. */
    sm_ring_config alone = hier;
    alone.nodes = 1;
    alone.gpus_per_node = 1;
    t = sm_ring_allreduce_time(&alone);
    CHECK_EQ(t.buckets, 0);
    CHECK(t.total == 0);

    /* Exactly two buckets' worth: 2 buckets, not 3. */
    sm_ring_config exact = flat;
    exact.bytes = 2 * 25 * MIB;
    CHECK_EQ(sm_ring_allreduce_time(&exact).buckets, 2);
    /* Smaller buckets pay the steps more often: 1 MiB -> ceil(97.49) = 98 buckets, latency
     * 98 x 14 x 5 us = 6.86e-3 s. */
    sm_ring_config small = flat;
    small.bucket_bytes = MIB;
    t = sm_ring_allreduce_time(&small);
    CHECK_EQ(t.buckets, 98);
    CHECK_NEAR(t.latency, 6.86e-3, 1e-9);

    /* The step time of a weak-scaling sweep never falls as nodes grow. */
    double last = 0;
    for (int n = 1; n <= 1024; n++) {
        sm_ring_config c = hier;
        c.nodes = n;
        double now = sm_ring_allreduce_time(&c).total;
        CHECK(now >= last);
        last = now;
    }

    /* Overlap with DDP's buckets, on 2 devices of one node (1 GB/s, 1 us a step): a bucket of
     * s bytes takes 2 x 1/2 x s / 1e9 + 2 x 1 us = s x 1e-9 + 2e-6 s. First bucket 1e6 bytes,
     * the others 4e6. Layers in backward order (bytes, backward seconds):
     *   (0.5e6, 1 ms) (1e6, 1 ms): 1.5e6 >= 1e6 ready at 2 ms, sent 2 -> 3.502 ms
     *   (3e6, 0.5 ms) (2e6, 0.5 ms): 5e6 >= 4e6 ready at 3 ms, sent 3.502 -> 8.504 ms
     *   (0, 1 ms) (1e6, 2 ms): the rest, ready at 6 ms, sent 8.504 -> 9.506 ms
     * exposed 9.506 - 6 = 3.506 ms. */
    sm_ring_config pair = {0, 4e6, 1, 2, {1e9, 1e-6}, {1e9, 1e-6}};
    const sm_grad_layer six[] = {{0.5e6, 1e-3}, {1e6, 1e-3},   {3e6, 0.5e-3},
                                 {2e6, 0.5e-3}, {0, 1e-3},     {1e6, 2e-3}};
    CHECK_NEAR(sm_ring_allreduce_overlapped(&pair, six, 6, 1e6), 3.506e-3, 1e-12);
    /* a link 1000x faster: only the last bucket shows, 1e6 x 1e-12 + 2e-6 = 3e-6 s */
    sm_ring_config fast = pair;
    fast.intra.bandwidth = 1e12;
    CHECK_NEAR(sm_ring_allreduce_overlapped(&fast, six, 6, 1e6), 3e-6, 1e-9);
    /* one layer: its gradient is ready when the backward pass ends, nothing hides:
     * 5e6 x 1e-9 + 2e-6 s */
    const sm_grad_layer one[] = {{5e6, 1e-3}};
    CHECK_NEAR(sm_ring_allreduce_overlapped(&pair, one, 1, 1e6), 5.002e-3, 1e-12);
    /* layers without weights after the last bucket still run: the 1e6 bytes ready at 1 ms are
     * sent by 2.002 ms, the backward pass ends at 6 ms: nothing exposed */
    const sm_grad_layer tail[] = {{1e6, 1e-3}, {0, 5e-3}};
    CHECK(sm_ring_allreduce_overlapped(&pair, tail, 2, 1e6) == 0);
    /* one device sends nothing */
    sm_ring_config single = pair;
    single.gpus_per_node = 1;
    CHECK(sm_ring_allreduce_overlapped(&single, six, 6, 1e6) == 0);
    return check_summary();
}
