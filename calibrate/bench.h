/*
 * Timing a training step, the one place that knows how (nccl-tests' common.cu for networks):
 * warm-up steps, then timed repetitions between barriers, each phase's time the maximum over
 * the ranks (what a data-parallel step waits for), and the median over the repetitions.
 *
 *   t_infer  forward pass at inference
 *   t_fwd    forward pass in training mode, with the loss
 *   t_bwd    backward pass through every layer
 *   t_grad   gradient synchronisation (all-reduce over the ranks, bucket by bucket, as
 *            PyTorch's DistributedDataParallel does) and the SGD update
 *   t_step   the three together, timed as one
 *
 * The backend is the CPU executor (executor.h); every rank runs its own batch.
 */
#ifndef SCALEMETER_BENCH_H
#define SCALEMETER_BENCH_H

#include <stddef.h>

#include <mpi.h>

#include "executor.h"

typedef enum sm_bench_allreduce {
    SM_BENCH_RING, /* our ring (allreduce_ring.h) */
    SM_BENCH_MPI   /* MPI_Allreduce */
} sm_bench_allreduce;

typedef struct sm_bench_config {
    int warmup;              /* untimed steps first, >= 1 (the first also checks the sums) */
    int max_reps;            /* timed repetitions at most, >= 1 */
    double min_time;         /* seconds of timed steps to aim for: the repetitions are
                                min_time / (one step), within [min(3, max_reps), max_reps] */
    size_t bucket_floats;    /* gradients all-reduced per message, > 0 */
    sm_bench_allreduce allreduce;
    float lr;                /* SGD learning rate */
} sm_bench_config;

typedef struct sm_bench_result {
    double t_infer, t_fwd, t_bwd, t_grad, t_step; /* seconds */
    int reps;
    double loss; /* of the last step on rank 0 */
} sm_bench_result;

/* Called on every rank as the measurement moves on: phase "warm-up", "training" or
 * "inference", and the repetitions of the timed phases. */
typedef void (*sm_bench_progress_fn)(void *ctx, const char *phase, int reps);

/* Returned by sm_bench_cpu when this rank alone failed, after a warm-up that worked on all: the
 * others are waiting in a collective, so the caller must abort the job (MPI_Abort). */
#define SM_BENCH_RANK_FAILED (-2)

/* Measures one configuration. Collective over comm. Returns 0; -1 when the measurement failed
 * on some rank during the warm-up (the ranks agree first, so all return -1 together; the ranks
 * that failed have the message, the others an empty one); or SM_BENCH_RANK_FAILED. */
int sm_bench_cpu(sm_executor *ex, const sm_bench_config *cfg, MPI_Comm comm,
                 sm_bench_progress_fn progress, void *ctx, sm_bench_result *out, sm_status *st);

/* The median of n values (sorted in place). */
double sm_median(double *v, int n);

/* Repetitions at most, what sm_bench_config.max_reps may be. */
#define SM_BENCH_MAX_REPS 256
/* Enough timed repetitions for cfg->min_time at estimate seconds each, within
 * [min(3, max_reps), max_reps]. */
int sm_bench_repetitions(const sm_bench_config *cfg, double estimate);
/* t: reps rows of cols times on this rank. Each repetition's times become the maximum over the
 * ranks (what a data-parallel step waits for), then each column its median. Collective. */
void sm_bench_reduce_times(MPI_Comm comm, int ranks, double *t, int reps, int cols,
                           double *median);

#endif
