/* Time of the gradient all-reduce of data-parallel training: a ring, hierarchical over the
 * devices of a node and the nodes, sent in buckets as PyTorch DDP and Horovod send it
 * (allreduce_model.c; the equations are in docs/scaling.md). Internal to the core. */
#ifndef SCALEMETER_ALLREDUCE_MODEL_H
#define SCALEMETER_ALLREDUCE_MODEL_H

#include <stdint.h>

/* One kind of link: bytes per second in one direction (a ring sends one way on each link) and
 * seconds of latency per ring step. */
typedef struct sm_link {
    double bandwidth;
    double latency;
} sm_link;

typedef struct sm_ring_config {
    double bytes;        /* gradient bytes each device holds */
    double bucket_bytes; /* bytes per bucket (PyTorch DDP: 25 MiB) */
    int nodes;           /* N */
    int gpus_per_node;   /* G */
    sm_link intra;       /* between the devices of a node */
    sm_link inter;       /* between nodes, per ring: each of the G rings gets this much */
} sm_ring_config;

/* The parts of one all-reduce. */
typedef struct sm_ring_time {
    int64_t buckets;  /* ceil(bytes / bucket_bytes); 0 when nothing is sent */
    double bandwidth; /* seconds moving data */
    double latency;   /* seconds of step latencies */
    double total;     /* bandwidth + latency */
} sm_ring_time;

/* Reduce-scatter inside the node over `intra`, a ring across nodes over `inter` on 1/G of the
 * data, an all-gather inside the node. Per bucket of s bytes:
 *   2(G-1)/G s / B_intra + 2(G-1) l_intra + 2(N-1)/N (s/G) / B_inter + 2(N-1) l_inter.
 * One node of one device sends nothing. */
sm_ring_time sm_ring_allreduce_time(const sm_ring_config *a);

/* What the step still waits for when the buckets are all-reduced while the backward pass runs:
 * buckets become ready one by one during t_bwd and are sent in that order, a two-stage
 * pipeline of `buckets` stages. The last bucket is ready only when t_bwd ends, so the exposed
 * time is max(t_sync / k, t_sync - (k-1)/k t_bwd) for k buckets; 0 when nothing is sent. */
double sm_ring_allreduce_exposed(double t_sync, int64_t buckets, double t_bwd);

#endif
