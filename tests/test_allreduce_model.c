/* The ring all-reduce model against numbers worked out by hand. */
#include <math.h>
#include <string.h>

#include "../core/src/device/allreduce_model.h"
#include "check.h"

#define MIB 1048576.0
/* NCCL's system where the ring collective ignores it: no NVLS, no generation, no host */
#define NO_NCCL                                                                                    \
    {                                                                                              \
        0, SM_GPU_UNKNOWN, SM_HOST_OTHER, 0                                                        \
    }

int main(void)
{
    /* ResNet-50: W = 25,557,032 weights, fp32 gradients: S = 4 W = 102,228,128 bytes.
     * 25 MiB buckets = 26,214,400 bytes: S / bucket = 3.8997 -> 4 buckets. */
    const double S = 4.0 * 25557032;

    /* Flat ring over 8 nodes of one device, 50 GB/s, 5 us per step:
     *   bandwidth 2 x 7/8 x 102,228,128 / 50e9 = 178,899,224 / 50e9 = 3.57798448e-3 s
     *   latency   4 buckets x 2 x 7 steps x 5 us                      = 2.8e-4 s
     *   total                                                          = 3.85798448e-3 s */
    sm_ring_config flat = {
        S, 25 * MIB, 8, 1, {450e9, 3.4e-6}, {50e9, 5e-6}, SM_COLLECTIVE_RING, NO_NCCL, 0, 0, 0};
    sm_ring_time t = sm_ring_allreduce_time(&flat);
    CHECK_EQ(t.buckets, 4);
    CHECK_NEAR(t.bandwidth, 3.57798448e-3, 1e-9);
    CHECK_NEAR(t.latency, 2.8e-4, 1e-9);
    CHECK_NEAR(t.total, 3.85798448e-3, 1e-9);

    /* A bucket smaller than the parameters: PyTorch DDP never splits a parameter, so the
     * gradient goes in at most one bucket per parameter tensor. The same ring at a 1 KiB
     * bucket and 161 tensors (ResNet-50's): 161 buckets, not ceil(S / 1024) = 99,833,
     *   latency 161 x 2 x 7 x 5 us = 1.127e-2 s; the bandwidth term unchanged */
    sm_ring_config tiny = flat;
    tiny.bucket_bytes = 1024;
    tiny.max_buckets = 161;
    t = sm_ring_allreduce_time(&tiny);
    CHECK_EQ(t.buckets, 161);
    CHECK_NEAR(t.latency, 1.127e-2, 1e-9);
    CHECK_NEAR(t.bandwidth, 3.57798448e-3, 1e-9);
    tiny.max_buckets = 0; /* no bound: the equal buckets of the bucket size */
    CHECK_EQ(sm_ring_allreduce_time(&tiny).buckets, 99833);
    CHECK(sm_bucket_count(S, 25 * MIB, 161) == 4); /* the bound only where it binds */
    CHECK(sm_bucket_count(0, 25 * MIB, 161) == 0);

    /* Hierarchical, 4 nodes x 8 devices; NVLink 450 GB/s and 3.4 us inside, 50 GB/s and 9.6 us
     * per ring between nodes:
     *   inside   2 x 7/8 x 102,228,128 / 450e9       = 178,899,224 / 450e9 = 3.975538311e-4 s
     *   between  2 x 3/4 x (102,228,128 / 8) / 50e9 = 19,167,774 / 50e9   = 3.8335548e-4 s
     *   latency  4 x (2 x 7 x 3.4 us + 2 x 3 x 9.6 us) = 4 x 105.2 us        = 4.208e-4 s
     *   total                                                                = 1.2017093111e-3 s */
    sm_ring_config hier = {
        S, 25 * MIB, 4, 8, {450e9, 3.4e-6}, {50e9, 9.6e-6}, SM_COLLECTIVE_RING, NO_NCCL, 0, 0, 0};
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
    sm_ring_config pair = {0,       4e6, 1, 2, {1e9, 1e-6}, {1e9, 1e-6}, SM_COLLECTIVE_RING,
                           NO_NCCL, 0,   0, 0};
    const sm_grad_layer six[] = {{0.5e6, 1e-3}, {1e6, 1e-3}, {3e6, 0.5e-3},
                                 {2e6, 0.5e-3}, {0, 1e-3},   {1e6, 2e-3}};
    CHECK_NEAR(sm_ring_allreduce_overlapped(&pair, six, 6, 1e6), 3.506e-3, 1e-12);
    /* a link 1000x faster: only the last bucket shows, 1e6 x 1e-12 + 2e-6 = 3e-6 s */
    /* more buckets than int64_t holds (1e20 bytes in 4-byte buckets: 2.5e19 > 2^63): the count
     * saturates, the latency stays 2.5e19 buckets x 2 steps x 1 us = 5e13 s (the cast once
     * overflowed, undefined behaviour, and gave a time near 0 or negative) */
    sm_ring_config huge = pair;
    huge.bytes = 1e20;
    huge.bucket_bytes = 4;
    sm_ring_time th = sm_ring_allreduce_time(&huge);
    CHECK(th.buckets == INT64_C(1) << 62);
    CHECK_NEAR(th.latency, 5e13, 1e-12);
    CHECK_NEAR(th.bandwidth, 1e20 / 1e9, 1e-12); /* 2 (G-1)/G x bytes / bandwidth, G = 2 */
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
    /* NCCL's choice (nccl_model.c), by hand from NCCL's constants (us: base latency ring
     * LL 6.6, LL128 14, Simple 8.4; tree 6.8, 14, 8.4; NVLink step ring 0.6, 1.9, 3.4, tree
     * 0.6, 1.25, 4.0; network step ring 2.7, 4.0, 14, tree 5.0, 8.5, 14), the device's link
     * latencies standing for the Simple ring's step.
     * One node of 8 (450 GB/s, 3.4 us), 1,000 bytes: ring LL, 6.6 + 14 x 0.6 = 15 us of
     * latency (tree LL 6.8 + 2 x 7 x 0.6 = 15.2 us, LL128 and Simple more), bandwidth
     * 450e9 x 0.5 x 8/14: 15e-6 + 1e3 x 14 / 1.8e12 = 1.50077778e-5 s. */
    sm_link nvlink = {450e9, 3.4e-6}, net = {50e9, 9.6e-6};
    /* no NVLS, generation unknown: no caps */
    const sm_nccl_system none = NO_NCCL;
    sm_nccl_choice c = sm_nccl_allreduce(1e3, 1, 8, &nvlink, &net, &none);
    CHECK_NEAR(c.seconds, 1.5e-5 + 1e3 * 14 / 1.8e12, 1e-9);
    CHECK(!strcmp(c.algorithm, "ring") && !strcmp(c.protocol, "LL"));
    /* 1e9 bytes: ring Simple, 8.4 + 14 x 3.4 = 56 us + 1e9 x 14 / (8 x 450e9) s
     * = 3.94488889e-3 s (LL128: 40.6 us + that / 0.92 = 4.2677e-3 s) */
    c = sm_nccl_allreduce(1e9, 1, 8, &nvlink, &net, &none);
    CHECK_NEAR(c.seconds, 56e-6 + 1e9 * 14 / 3.6e12, 1e-9);
    CHECK(!strcmp(c.algorithm, "ring") && !strcmp(c.protocol, "Simple"));
    /* 16 nodes of 1 (50 GB/s, 9.6 us between nodes), 1,000 bytes: the tree on LL, 6.8 +
     * 2 x log2(16) x 9.6 x 5/14 = 34.2285714 us, bandwidth 50e9 x 0.92 / 3.8 x 0.5 (the
     * tree's all-reduce 0.92 of the bus, then LL's 1/3.8, as tuning.cc applies them):
     * + 1e3 x 3.8 / (50e9 x 0.92 x 0.5) = 1.65217e-7 s (ring LL: 6.6 + 30 x 9.6 x 2.7/14
     * = 62.14 us; 109.5 us with the tree's network latency,
     * which NCCL takes for the ring with one device a node) */
    c = sm_nccl_allreduce(1e3, 16, 1, &nvlink, &net, &none);
    CHECK_NEAR(c.seconds, 6.8e-6 + 8 * 9.6e-6 * 5 / 14 + 1e3 * 3.8 / (50e9 * 0.92 * 0.5), 1e-12);
    CHECK(!strcmp(c.algorithm, "tree") && !strcmp(c.protocol, "LL"));
    c = sm_nccl_allreduce(1e3, 1, 1, &nvlink, &net, &none);
    CHECK(c.seconds == 0 && !strcmp(c.algorithm, "none"));
    /* NVLS (NVLink SHARP, efficiency e = 0.85), one node of 8 at B = 370.8 GB/s and 3.4 us:
     * bus bandwidth 2 e B (G-1)/(G+1) = 2 x 0.85 x 370.8e9 x 7/9 = 4.9028e11 B/s, latency
     * 3.4 x 25/3.4 = 25 us; 1e9 bytes: 25e-6 + 1e9 x 14/8 / 4.9028e11 = 3.59434e-3 s, where
     * the ring on Simple takes 56e-6 + 1e9 x 14/8 / 370.8e9 = 4.77545e-3 s */
    sm_link hopper = {370.8e9, 3.4e-6};
    /* a DGX H100: Hopper, Intel hosts, NVLS at NCCL's 0.85, a channel per GPU */
    const sm_nccl_system hopper_nvls = {0.85, SM_GPU_HOPPER, SM_HOST_INTEL, 0};
    double nvls_bus = 2 * 0.85 * 370.8e9 * 7 / 9;
    c = sm_nccl_allreduce(1e9, 1, 8, &hopper, &net, &hopper_nvls);
    CHECK_NEAR(c.seconds, 25e-6 + 1e9 * 1.75 / nvls_bus, 1e-9);
    CHECK(!strcmp(c.algorithm, "nvls") && !strcmp(c.protocol, "Simple"));
    /* 1,000 bytes: NVLS's 25 us lose to the ring's LL (15 us + 1e3 x 14 / (8 x 370.8e9 x 0.5)) */
    c = sm_nccl_allreduce(1e3, 1, 8, &hopper, &net, &hopper_nvls);
    CHECK(!strcmp(c.algorithm, "ring") && !strcmp(c.protocol, "LL"));
    /* two devices: 2 x 0.85 x B x 1/3 = 0.567 B, below the ring's B: the ring */
    c = sm_nccl_allreduce(1e9, 1, 2, &hopper, &net, &hopper_nvls);
    CHECK(!strcmp(c.algorithm, "ring"));
    CHECK_NEAR(c.seconds, 8.4e-6 + 2 * 3.4e-6 + 1e9 / 370.8e9, 1e-9);
    /* 2 nodes of 8, network 8 x 50 GB/s (each ring's share 50e9): the NVLS tree, bus
     * min(4.9028e11, 2 x 8 x 50e9, 8 x 57.7e9 = 4.616e11) = 4.616e11, latency 25 us +
     * 2 x log2(2) x 14 x 20.9/14 us = 66.8 us; 1e9 bytes: 66.8e-6 + 1e9 x 30/16 / 4.616e11 */
    sm_link port = {50e9, 14e-6};
    c = sm_nccl_allreduce(1e9, 2, 8, &hopper, &port, &hopper_nvls);
    CHECK(!strcmp(c.algorithm, "nvls_tree"));
    CHECK_NEAR(c.seconds, 66.8e-6 + 1e9 * 1.875 / 4.616e11, 1e-9);
    /* 4 nodes: the network no longer doubles, the NVLS tree's bus is min(4.9028e11, 4e11,
     * 8 x 45.5e9 = 3.64e11) = 3.64e11, below the ring's min(370.8e9, 4e11), but its latency,
     * 25 + 2 x log2(4) x 20.9 = 108.6 us, is below the ring's 8.4 + 2 x 3 x 14 + (62 - 6) x
     * 3.4 = 282.8 us. 1e9 bytes: the NVLS tree, 108.6e-6 + 1e9 x 62/32 / 3.64e11 s; 1e10
     * bytes: the ring on Simple, 282.8e-6 + 1e10 x 62/32 / 370.8e9 s */
    c = sm_nccl_allreduce(1e9, 4, 8, &hopper, &port, &hopper_nvls);
    CHECK(!strcmp(c.algorithm, "nvls_tree"));
    CHECK_NEAR(c.seconds, 108.6e-6 + 1e9 * 62 / 32 / 3.64e11, 1e-9);
    c = sm_nccl_allreduce(1e10, 4, 8, &hopper, &port, &hopper_nvls);
    CHECK(!strcmp(c.algorithm, "ring") && !strcmp(c.protocol, "Simple"));
    CHECK_NEAR(c.seconds, 282.8e-6 + 1e10 * 62 / 32 / 370.8e9, 1e-9);
    /* without NVLS (e = 0) the same 2 nodes run the ring */
    c = sm_nccl_allreduce(1e9, 2, 8, &hopper, &port, &none);
    CHECK(!strcmp(c.algorithm, "ring"));

    /* NCCL_ALGO=Ring NCCL_PROTO=Simple (sm_nccl_allreduce_only): the 1e9 bytes on one Hopper
     * node that NVLS would take run the ring on Simple, 56e-6 + 1e9 x 1.75 / 370.8e9 s; 1,000
     * bytes too (the ring's LL is left out): 56e-6 + 1e3 x 1.75 / 370.8e9 s */
    c = sm_nccl_allreduce_only(1e9, 1, 8, &hopper, &net, &hopper_nvls, SM_NCCL_RING,
                               SM_NCCL_SIMPLE);
    CHECK(!strcmp(c.algorithm, "ring") && !strcmp(c.protocol, "Simple"));
    CHECK_NEAR(c.seconds, 56e-6 + 1e9 * 1.75 / 370.8e9, 1e-9);
    c = sm_nccl_allreduce_only(1e3, 1, 8, &hopper, &net, &hopper_nvls, SM_NCCL_RING,
                               SM_NCCL_SIMPLE);
    CHECK_NEAR(c.seconds, 56e-6 + 1e3 * 1.75 / 370.8e9, 1e-12);
    /* NCCL_ALGO=Tree on 16 nodes of 1, LL128 and Simple only: 1,000 bytes go to the tree's
     * LL128, 14 + 2 x 4 x 9.6 x 8.5/14 = 60.6286 us + 1e3 / (50e9 x 0.92 x 120/128 x 0.5) s,
     * where Simple takes 8.4 + 8 x 9.6 = 85.2 us */
    c = sm_nccl_allreduce_only(1e3, 16, 1, &nvlink, &net, &none, SM_NCCL_TREE,
                               SM_NCCL_LL128 | SM_NCCL_SIMPLE);
    CHECK(!strcmp(c.algorithm, "tree") && !strcmp(c.protocol, "LL128"));
    CHECK_NEAR(c.seconds, 14e-6 + 8 * 9.6e-6 * 8.5 / 14 + 1e3 / (50e9 * 0.92 * 120 / 128 * 0.5),
               1e-12);
    /* NCCL's caps (tuning.cc, per generation and node count; GB/s). One Hopper node: LL's
     * bus is capped at 141 (llMaxBws), below 370.8 x 0.5; 1,000 bytes still go to the ring's
     * LL: 15 us + 1e3 x 14/8 / 141e9 */
    c = sm_nccl_allreduce(1e3, 1, 8, &hopper, &net, &hopper_nvls);
    CHECK(!strcmp(c.algorithm, "ring") && !strcmp(c.protocol, "LL"));
    CHECK_NEAR(c.seconds, 15e-6 + 1e3 * 1.75 / 141e9, 1e-12);
    /* 64 nodes of 8 H200 (370.8 GB/s, 3.4 us; a port of 50 GB/s a GPU, 14 us), a channel per
     * port. NVIDIA/nccl#1752 logs NCCL on such a cluster: Tree/LL128 at 16 MiB, NVLSTree/Simple
     * from 32 MiB. 16 MiB: the tree on LL128, latency 14 + 2 x (7 x 1.25 + 6 x 8.5) = 133.5
     * us; bus min(370.8, 8 x 50) = 370.8, the tree's all-reduce min(0.92 x 370.8, 8 x 36)
     * = 288, LL128 min(288 x 120/128, 8 x 29) = 232 GB/s, half of it per direction, and the
     * correction for 2^24 bytes (2^18 x 64: 0.9): 133.5e-6 + 2^24 / (232e9 x 0.5 x 0.9) s =
     * 294.2 us. The NVLS tree takes 25 + 2 x 6 x 20.9 = 275.8 us of latency alone, the tree on
     * Simple 232.4 us of latency and 0.7 of 288/2 GB/s. */
    sm_link h200_port = {50e9, 14e-6};
    c = sm_nccl_allreduce(16 * MIB, 64, 8, &hopper, &h200_port, &hopper_nvls);
    CHECK(!strcmp(c.algorithm, "tree") && !strcmp(c.protocol, "LL128"));
    CHECK_NEAR(c.seconds, 133.5e-6 + 16 * MIB / (232e9 * 0.5 * 0.9), 1e-9);
    /* 64 MiB: the NVLS tree, bus min(2 x 0.85 x 370.8 x 7/9, 8 x 50, 8 x 45.5) = 364 GB/s:
     * 275.8e-6 + 2^26 x 1022/512 / 364e9 = 643.8 us, where the tree on LL128 takes 133.5 +
     * 2^26 / (232e9 x 0.5 x 0.9) = 776.3 us. (At 32 MiB the model's tree, 454.9 us, beats the
     * NVLS tree's 459.8 by 1%: NCCL chose the NVLS tree there, one size earlier.) */
    c = sm_nccl_allreduce(64 * MIB, 64, 8, &hopper, &h200_port, &hopper_nvls);
    CHECK(!strcmp(c.algorithm, "nvls_tree") && !strcmp(c.protocol, "Simple"));
    CHECK_NEAR(c.seconds, 275.8e-6 + 64 * MIB * 1022 / 512 / 364e9, 1e-9);
    /* the generation unknown, the tree's caps are left out: LL128's bus is 0.92 x 370.8 x
     * 120/128 GB/s */
    sm_nccl_system unknown = hopper_nvls;
    unknown.generation = SM_GPU_UNKNOWN;
    c = sm_nccl_allreduce_only(16 * MIB, 64, 8, &hopper, &h200_port, &unknown, SM_NCCL_TREE,
                               SM_NCCL_LL128);
    CHECK_NEAR(c.seconds, 133.5e-6 + 16 * MIB / (370.8e9 * 0.92 * 120 / 128 * 0.5 * 0.9), 1e-9);
    /* LL across nodes is capped by the host CPU: 2 nodes, 39 GB/s behind Intel, 22.5 behind
     * AMD, both below 370.8 x 0.5; the ring's latency is the same, so 1e6 bytes differ by
     * 1e6 x 30/16 x (1/22.5e9 - 1/39e9) s */
    sm_nccl_system amd = hopper_nvls;
    amd.host = SM_HOST_AMD;
    double intel_ll = sm_nccl_allreduce_only(1e6, 2, 8, &hopper, &h200_port, &hopper_nvls,
                                             SM_NCCL_RING, SM_NCCL_LL)
                          .seconds;
    double amd_ll =
        sm_nccl_allreduce_only(1e6, 2, 8, &hopper, &h200_port, &amd, SM_NCCL_RING, SM_NCCL_LL)
            .seconds;
    CHECK_NEAR(amd_ll - intel_ll, 1e6 * 30 / 16 * (1 / 22.5e9 - 1 / 39e9), 1e-12);
    /* One device a node exposes the network's latency, and NCCL takes the tree's for the
     * ring: 16 nodes of 1 on the ring's LL, 6.6 + 30 x 9.6 x 5.0/14 us, and LL's bus
     * min(50 x 0.5, 20.4) GB/s behind a host not AMD's */
    c = sm_nccl_allreduce_only(1e3, 16, 1, &nvlink, &net, &none, SM_NCCL_RING, SM_NCCL_LL);
    CHECK_NEAR(c.seconds, 6.6e-6 + 30 * 9.6e-6 * 5 / 14 + 1e3 * 30 / 16 / 20.4e9, 1e-12);
    /* A node of one device has no link inside it: its ring goes from the GPU to its port
     * (NCCL's search starts bwIntra at bwInter, and no GPU-to-GPU path lowers it), so NCCL's
     * bus is the one port's 50 GB/s, whatever the intra-node figure says (it was
     * min(intra, 50 GB/s): 0.001 GB/s made a step of 150 s). Ring on Simple, 4 nodes of 1,
     * 1e8 bytes, 10 us a step across the network (the tree's, 14/14 of it on Simple):
     * 8.4 + 6 x 10 = 68.4 us + 1e8 x 2 x 3/4 / 50e9 = 3e-3 s; all-gather: 8.4 + 3 x 10 =
     * 38.4 us + 1e8 x 3/4 / 50e9 = 1.5e-3 s. */
    const sm_link crawl = {1e6, 3e-6}, port10 = {50e9, 10e-6};
    c = sm_nccl_allreduce_only(1e8, 4, 1, &crawl, &port10, &none, SM_NCCL_RING, SM_NCCL_SIMPLE);
    CHECK_NEAR(c.seconds, 68.4e-6 + 3e-3, 1e-12);
    c = sm_nccl_gather_scatter_only(1e8, 4, 1, &crawl, &port10, &none, SM_NCCL_RING,
                                    SM_NCCL_SIMPLE);
    CHECK_NEAR(c.seconds, 38.4e-6 + 1.5e-3, 1e-12);
    /* the hierarchical ring of such nodes, whose description gave no intra-node link (0 GB/s):
     * the flat ring across nodes alone, 2 x 3/4 x 1e8 / 50e9 = 3e-3 s + 2 x 3 x 10 us, not
     * 0/0 */
    sm_ring_config lone = {1e8, 1e8, 4, 1, {0, 0}, port10, SM_COLLECTIVE_RING, NO_NCCL, 0, 0, 0};
    t = sm_ring_allreduce_time(&lone);
    CHECK_NEAR(t.bandwidth, 3e-3, 1e-12);
    CHECK_NEAR(t.total, 3e-3 + 60e-6, 1e-12);
    /* NVLS alone where it cannot run (one device a node, or LL only): nothing, INFINITY */
    c = sm_nccl_allreduce_only(1e9, 2, 1, &hopper, &port, &hopper_nvls, SM_NCCL_NVLS_TREE,
                               SM_NCCL_SIMPLE);
    CHECK(isinf(c.seconds));
    c = sm_nccl_allreduce_only(1e9, 1, 8, &hopper, &net, &hopper_nvls, SM_NCCL_NVLS, SM_NCCL_LL);
    CHECK(isinf(c.seconds));
    /* NCCL_ALGO's and NCCL_PROTO's spellings */
    sm_status st;
    unsigned mask = 0;
    CHECK(sm_nccl_parse_algorithms("Ring,NVLSTree", &mask, &st) == 0 &&
          mask == (SM_NCCL_RING | SM_NCCL_NVLS_TREE));
    CHECK(sm_nccl_parse_protocols("simple", &mask, &st) == 0 && mask == SM_NCCL_SIMPLE);
    CHECK(sm_nccl_parse_protocols("LL,LL128", &mask, &st) == 0 &&
          mask == (SM_NCCL_LL | SM_NCCL_LL128));
    CHECK(sm_nccl_parse_algorithms("Ring,", &mask, &st) == -1 &&
          strstr(st.msg, "algorithm Ring,: expected a comma list of Ring, Tree, NVLS"));
    CHECK(sm_nccl_parse_protocols("LL12", &mask, &st) == -1 && strstr(st.msg, "protocol LL12"));

    /* sm_ring_allreduce_time with the NCCL collective: 2 equal buckets of 5e8 bytes on the
     * node of 8, each 56 us + 5e8 x 14 / 3.6e12 s */
    sm_ring_config nccl = {1e9, 5e8, 1, 8, nvlink, net, SM_COLLECTIVE_NCCL, NO_NCCL, 0, 0, 0};
    CHECK_NEAR(sm_ring_allreduce_time(&nccl).total, 2 * (56e-6 + 5e8 * 14 / 3.6e12), 1e-9);

    /* all-gather and reduce-scatter, NCCL's ring: 7 steps on the node of 8; Simple at 5e8
     * bytes, 8.4 + 7 x 3.4 = 32.2 us + 7/8 of the bytes at 450 GB/s, beats LL128 (14 + 7 x 1.9
     * us, 0.92 of the bus) and LL (half the bus) */
    sm_nccl_choice ag = sm_collective_choice(&nccl, SM_OP_ALL_GATHER, 5e8);
    CHECK(!strcmp(ag.algorithm, "ring") && !strcmp(ag.protocol, "Simple"));
    CHECK_NEAR(ag.seconds, 32.2e-6 + 5e8 * 7 / 8 / 450e9, 1e-9);
    CHECK_NEAR(sm_collective_choice(&nccl, SM_OP_REDUCE_SCATTER, 5e8).seconds, ag.seconds, 1e-12);
    /* the all-reduce is still the all-reduce: 56 us + 5e8 x 14 / 3.6e12 s */
    CHECK_NEAR(sm_collective_choice(&nccl, SM_OP_ALL_REDUCE, 5e8).seconds,
               56e-6 + 5e8 * 14 / 3.6e12, 1e-9);
    sm_ring_config tree_only = nccl;
    tree_only.algorithms = SM_NCCL_TREE; /* the tree runs no all-gather */
    CHECK(sm_collective_choice(&tree_only, SM_OP_ALL_GATHER, 5e8).seconds == INFINITY);
    /* the ring form over 8 nodes of one device (50 GB/s, 5 us): 7/8 x S / 50e9 = 1.78899224e-3
     * s and 7 x 5 us: 1.82399224e-3 s, in one message whatever the buckets */
    CHECK_NEAR(sm_collective_choice(&flat, SM_OP_REDUCE_SCATTER, S).seconds, 1.82399224e-3, 1e-9);

    /* one device sends nothing */
    sm_ring_config single = pair;
    single.gpus_per_node = 1;
    CHECK(sm_ring_allreduce_overlapped(&single, six, 6, 1e6) == 0);
    return check_summary();
}
