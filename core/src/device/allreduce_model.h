/* Time of the gradient all-reduce of data-parallel training: a ring, hierarchical over the
 * devices of a node and the nodes, sent in buckets as PyTorch DDP and Horovod send it
 * (allreduce_model.c; the equations are in docs/scaling.md). Internal to the core. */
#ifndef SCALEMETER_ALLREDUCE_MODEL_H
#define SCALEMETER_ALLREDUCE_MODEL_H

#include <stdint.h>

#include "scalemeter/scalemeter.h"

/* One kind of link: bytes per second in one direction (a ring sends one way on each link) and
 * seconds of latency per ring step. */
typedef struct sm_link {
    double bandwidth;
    double latency;
} sm_link;

typedef enum { SM_COLLECTIVE_RING, SM_COLLECTIVE_NCCL } sm_collective;

/* What NCCL's tuning constants depend on besides the links (src/graph/tuning.cc): the GPU's
 * generation picks the per-channel bandwidth caps across nodes and LL's cap inside one node,
 * the host CPU LL's caps across nodes. UNKNOWN leaves the generation's caps out; OTHER (Arm,
 * POWER, a CPU not named) takes NCCL's values for every host that is not AMD's. */
typedef enum {
    SM_GPU_UNKNOWN,
    SM_GPU_VOLTA,
    SM_GPU_AMPERE,
    SM_GPU_HOPPER,
    SM_GPU_BLACKWELL
} sm_gpu_generation;
typedef enum { SM_HOST_OTHER, SM_HOST_INTEL, SM_HOST_AMD } sm_host_cpu;

typedef struct sm_nccl_system {
    double nvls_efficiency; /* NVLink SHARP in the node's switches at this share of the
                               link (NCCL: 0.85 on Hopper); 0: none */
    sm_gpu_generation generation;
    sm_host_cpu host;
    int channels; /* NCCL's channels across nodes: one per network port that the node's
                     devices use, min(P, G); 0: G */
} sm_nccl_system;

/* "volta", "ampere", "hopper", "blackwell"; "intel", "amd", "arm", "other" (arm is other). */
int sm_gpu_generation_parse(const char *name, sm_gpu_generation *out);
int sm_host_cpu_parse(const char *name, sm_host_cpu *out);

typedef struct sm_ring_config {
    double bytes;             /* gradient bytes each device holds */
    double bucket_bytes;      /* bytes per bucket (PyTorch DDP: 25 MiB) */
    int nodes;                /* N */
    int gpus_per_node;        /* G */
    sm_link intra;            /* between the devices of a node */
    sm_link inter;            /* between nodes, per ring: each of the G rings gets this much */
    sm_collective collective; /* the hierarchical ring below, or NCCL's choice (nccl_model.c) */
    sm_nccl_system system;    /* NCCL's only: what its constants depend on */
    unsigned algorithms, protocols; /* NCCL's only: its choice among these (SM_NCCL_* masks,
                                       as NCCL_ALGO and NCCL_PROTO); 0: all. A restriction
                                       that leaves nothing runs forever (INFINITY) */
    double max_buckets; /* at most this many buckets: the parameter tensors, which DDP never
                           splits across buckets; 0: no bound */
} sm_ring_config;

/* The equal buckets `bytes` go in at most `bucket_bytes` each and, where max_buckets > 0,
 * at most max_buckets of them (a bucket smaller than a parameter holds that one parameter:
 * PyTorch DDP never splits one, so a tiny --bucket-mib makes a bucket per tensor, not
 * millions); 0 for no bytes. */
double sm_bucket_count(double bytes, double bucket_bytes, double max_buckets);

/* "ring" (and NULL) or "nccl", as `--collective` takes them. */
int sm_collective_parse(const char *name, sm_collective *out, sm_status *st);

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
 * One node of one device sends nothing. With collective = SM_COLLECTIVE_NCCL every bucket
 * takes sm_nccl_allreduce's time instead, and bandwidth and latency are NaN. */
sm_ring_time sm_ring_allreduce_time(const sm_ring_config *a);

/* What NCCL runs for an all-reduce of `bytes` on N nodes of G devices, and how long it takes
 * by NCCL's cost model (nccl_model.c): the fastest algorithm and protocol. `inter` is one
 * ring's share of the node's network, as in sm_ring_config. With sys->nvls_efficiency > 0
 * the node's switches reduce (NVLS inside a node, NVLS tree across nodes). */
typedef struct sm_nccl_choice {
    const char *algorithm; /* "ring", "tree", "nvls", "nvls_tree"; "none" when nothing is sent */
    const char *protocol;  /* "LL", "LL128", "Simple" */
    double seconds;
} sm_nccl_choice;
sm_nccl_choice sm_nccl_allreduce(double bytes, int nodes, int gpus_per_node, const sm_link *intra,
                                 const sm_link *inter, const sm_nccl_system *sys);

/* What each of the equal buckets of sm_ring_allreduce_time runs: NCCL's choice for the
 * bucket's size, or "ring" and "-" for the ring collective; "none" when nothing is sent.
 * seconds: one bucket's time. */
sm_nccl_choice sm_ring_allreduce_choice(const sm_ring_config *a);

/* The same among the algorithms and protocols of the masks only, as NCCL_ALGO and NCCL_PROTO
 * restrict NCCL (operators force NCCL_ALGO=Ring NCCL_PROTO=Simple for fit-comm's runs). A mask
 * that leaves nothing for the layout (NVLS on one GPU a node) gives seconds = INFINITY. */
enum {
    SM_NCCL_RING = 1u,
    SM_NCCL_TREE = 2u,
    SM_NCCL_NVLS = 4u,      /* inside one node */
    SM_NCCL_NVLS_TREE = 8u, /* across nodes */
    SM_NCCL_ALL_ALGORITHMS = 15u
};
enum { SM_NCCL_LL = 1u, SM_NCCL_LL128 = 2u, SM_NCCL_SIMPLE = 4u, SM_NCCL_ALL_PROTOCOLS = 7u };
sm_nccl_choice sm_nccl_allreduce_only(double bytes, int nodes, int gpus_per_node,
                                      const sm_link *intra, const sm_link *inter,
                                      const sm_nccl_system *sys, unsigned algorithms,
                                      unsigned protocols);
/* An all-gather or a reduce-scatter of `bytes` (the gathered buffer, the scattered input:
 * nccl-tests' size) by NCCL's model: the ring on its fastest protocol, n-1 steps moving
 * (n-1)/n of the bytes; INFINITY where the masks leave out the ring. */
sm_nccl_choice sm_nccl_gather_scatter_only(double bytes, int nodes, int gpus_per_node,
                                           const sm_link *intra, const sm_link *inter,
                                           const sm_nccl_system *sys, unsigned algorithms,
                                           unsigned protocols);

/* The collectives of sharded data parallelism beside the all-reduce. */
typedef enum { SM_OP_ALL_REDUCE, SM_OP_ALL_GATHER, SM_OP_REDUCE_SCATTER } sm_collective_op;

/* One collective of `bytes` on a's layout by a's collective (a->bytes and a->bucket_bytes are
 * not read): the hierarchical ring, where an all-gather and a reduce-scatter are each half of
 * the all-reduce's ring, (G-1)/G s / B_intra + (G-1) l_intra + (N-1)/N (s/G) / B_inter +
 * (N-1) l_inter; or NCCL's choice. "none" and 0 s where nothing is sent. */
sm_nccl_choice sm_collective_choice(const sm_ring_config *a, sm_collective_op op, double bytes);

/* NCCL_ALGO's and NCCL_PROTO's comma lists, any case ("Ring,Tree", "simple"), into masks. */
int sm_nccl_parse_algorithms(const char *text, unsigned *out, sm_status *st);
int sm_nccl_parse_protocols(const char *text, unsigned *out, sm_status *st);

/* NCCL's ring on the Simple protocol as a line in the links' terms:
 *   t = base + intra_steps x l_intra + inter_steps x l_inter + bus_bytes / bus,
 * bus the node's NVLink bandwidth on one node, else the lesser of it and the node's network;
 * what `fit-comm` fits to nccl-tests runs made with NCCL_ALGO=Ring NCCL_PROTO=Simple. */
typedef struct sm_nccl_ring_terms {
    double base;        /* seconds */
    double intra_steps; /* 2(n-1) - 2(N-1) for n = N x G devices */
    double inter_steps; /* 2(N-1) */
    double bus_bytes;   /* 2(n-1)/n x bytes */
} sm_nccl_ring_terms;
sm_nccl_ring_terms sm_nccl_ring_simple_terms(double bytes, int nodes, int gpus_per_node);

/* One layer's part in the backward pass, which runs the layers last to first. */
typedef struct sm_grad_layer {
    double bytes; /* gradient bytes of its weights (0: nothing to all-reduce) */
    double t_bwd; /* seconds of its backward kernels */
} sm_grad_layer;

/* PyTorch DDP's first bucket in the order gradients become ready (1 MiB, torch.distributed's
 * _DEFAULT_FIRST_BUCKET_BYTES): communication starts after the last layers' small gradients. */
#define SM_DDP_FIRST_BUCKET_BYTES 1048576.0

/* What the step still waits for after the backward pass when DDP all-reduces its buckets while
 * the pass runs. layers[] are in backward order (the network's last layer first). They fill
 * buckets in that order, a layer never split: a bucket closes once it holds first_bucket_bytes
 * (the first) or a->bucket_bytes (the others), and the rest of the gradient is the last bucket.
 * A bucket is ready when its last layer's backward ends and is sent once it is ready and the
 * one before it is sent, each a ring all-reduce of its own bytes (one bucket's latency). The
 * exposed time is when the last bucket is sent minus the backward time; 0 when nothing is
 * sent. */
double sm_ring_allreduce_overlapped(const sm_ring_config *a, const sm_grad_layer *layers, int n,
                                    double first_bucket_bytes);

/* The same schedule with any cost of one bucket's all-reduce (a fitted model's, say): buckets
 * after the first hold bucket_bytes. */
typedef double (*sm_bucket_cost)(const void *ctx, double bytes);
double sm_allreduce_overlapped(const sm_grad_layer *layers, int n, double first_bucket_bytes,
                               double bucket_bytes, sm_bucket_cost cost, const void *ctx);

#endif
