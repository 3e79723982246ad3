/*
 * scalemeter/comm.h: the all-reduce's alpha-beta terms per level, fitted to what operators
 * already run: nccl-tests' all_reduce_perf output and `scalemeter allreduce --format csv`
 * (`scalemeter fit-comm`; docs/scaling.md, "Calibrating communication").
 *
 * The model is the hierarchical ring of the device model, per message of s bytes over N nodes
 * of G devices each, with P network ports per node:
 *   t(s) = 2(G-1)/G s / B_intra + 2(G-1) l_intra + 2(N-1)/N s / (min(P,G) B_port)
 *          + 2(N-1) l_inter
 * It is linear in 1/B_intra, l_intra, 1/B_port and l_inter. The intra-node terms are fitted to
 * the runs inside one node, then the inter-node terms to what the runs across nodes take beyond
 * them, each by non-negative least squares relative to each time.
 *
 * Where the description's collective is NCCL's, the terms are those of NCCL's ring on the
 * Simple protocol instead (nccl-tests run with NCCL_ALGO=Ring NCCL_PROTO=Simple), one ring over
 * all n = N G devices, pipelined through NVLink and the network:
 *   t(s) = 8.4 us + (2(n-1) - 2(N-1)) l_intra + 2(N-1) l_inter + 2(n-1)/n s / bus,
 * bus = B_intra on one node, min(B_intra, min(P,G) B_port) across nodes (B_port alone with one
 * device a node, which has no link inside it); NCCL's model then adds
 * its other algorithms and protocols from NCCL's own constants.
 */
#ifndef SCALEMETER_COMM_H
#define SCALEMETER_COMM_H

#include "scalemeter/scalemeter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One timed all-reduce of `bytes` over nodes x gpus_per_node ranks. */
typedef struct sm_comm_sample {
    double bytes;
    double time_s;
    int nodes, gpus_per_node;
    int source; /* index into sm_comm_runs.sources */
    int line;   /* of that file */
    int half;   /* 1: an all-gather or a reduce-scatter (nccl-tests' all_gather_perf and
                   reduce_scatter_perf, whose size is the gathered buffer's): on a ring, half
                   an all-reduce's traffic and steps */
} sm_comm_sample;

typedef struct sm_comm_runs {
    sm_comm_sample *samples;
    int n, cap;
    char **sources; /* file names, as given */
    int n_sources;
} sm_comm_runs;

/* Appends the samples of one file: nccl-tests output (out-of-place times; ranks and nodes from
 * its "# Rank ... on HOST" lines) or a `scalemeter allreduce` CSV (nodes from its `nodes`
 * column, else 1). nodes > 0 overrides the file's node count (ranks / nodes per node). A CSV
 * with several implementations needs impl (e.g. "nccl"); NULL takes a file of one. */
int sm_comm_runs_read(sm_comm_runs *runs, const char *path, int nodes, const char *impl,
                      sm_status *st);
void sm_comm_runs_free(sm_comm_runs *runs);

typedef struct sm_comm_fit_result {
    double intra_bandwidth, intra_latency; /* bytes/s, seconds per ring step */
    double inter_bandwidth, inter_latency; /* per network port, seconds per ring step */
    int inter_ports;                       /* P the fit assumed */
    int intra_fitted, inter_fitted;        /* 0: no run spans that level; the base's values */
    int nccl;                              /* 1: NCCL's ring (above), 0: the hierarchical ring */
    int inter_bandwidth_hidden; /* NCCL's form: the runs across nodes went at NVLink's pace, so
                                   the network is at least that fast; the base's value kept */
    int used;                   /* samples at or above min_bytes */
    double mape;                /* of the fitted model on those samples */
} sm_comm_fit_result;

/* Fits the terms to the samples of at least min_bytes (smaller messages use NCCL's
 * low-latency protocols, which a gradient bucket never does). base (a device name or path, or
 * NULL) gives the network ports per node and the values of a level no run identifies; without
 * it P = G and runs across nodes need runs inside one node beside them. collective: "ring" or
 * "nccl", the form fitted; NULL: the base's collective (ring without a base). */
int sm_comm_fit(const sm_comm_runs *runs, double min_bytes, const char *base,
                const char *collective, sm_comm_fit_result *out, sm_status *st);

/* The fitted model's time for one all-reduce (fit required). */
double sm_comm_time(const sm_comm_fit_result *fit, double bytes, int nodes, int gpus_per_node);

/* Writes the device description base (a name or path) at path with the fitted [node] keys
 * replaced, its comments kept; a level the fit did not identify keeps the base's values. */
int sm_comm_fit_write_device(const sm_comm_fit_result *fit, const char *base, const char *sources,
                             const char *path, sm_status *st);

/* The all-reduce a device description predicts (the calibration-free model's, as `curve
 * --device` uses it for one bucket): for checking a description against nccl-tests on the
 * cluster it describes (`scalemeter allreduce --device`). */
typedef struct sm_allreduce_estimate {
    double seconds;
    char algorithm[16]; /* the ring collective: "ring"; NCCL's: "ring", "tree", "nvls", ... */
    char protocol[16];  /* NCCL's LL, LL128 or Simple; "-" for the ring collective */
} sm_allreduce_estimate;

/* Where the all-reduce runs. collective: "ring" or "nccl", as `curve --collective`; NULL takes
 * the description's and gpus_per_node 0 its devices per node, and the call says which.
 * algorithms, protocols: NCCL_ALGO's and NCCL_PROTO's lists ("Ring", "Simple"), restricting
 * NCCL's choice as those variables restrict NCCL; NULL: all. Either makes the collective nccl,
 * and with collective "ring" it is an error. */
typedef struct sm_allreduce_layout {
    const char *collective;
    int nodes, gpus_per_node;
    const char *algorithms, *protocols;
    const char *op; /* "all_reduce" (and NULL), "all_gather" or "reduce_scatter": nccl-tests'
                       all_reduce_perf, all_gather_perf, reduce_scatter_perf */
    /* set by the call: what restricts or leaves out part of NCCL's model, as `curve`'s
     * description line says it (" (NCCL_ALGO=..., ...)", " without NCCL's per-generation
     * caps ..."); "" where nothing does */
    char restriction[256];
} sm_allreduce_layout;

/* Predicts an all-reduce (or the layout's op) of each of bytes[0..n) on the layout's devices of
 * the description device (a name or path); bytes are nccl-tests' size (all-gather: the gathered
 * buffer; reduce-scatter: the input); bytes and out may be NULL only where n is 0. */
int sm_device_allreduce(const char *device, sm_allreduce_layout *layout, const double *bytes, int n,
                        sm_allreduce_estimate *out, sm_status *st);

#ifdef __cplusplus
}
#endif
#endif
