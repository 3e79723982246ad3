/*
 * Timing a training step, the one place that knows how (nccl-tests' common.cu for networks):
 * warm-up steps, the first with its all-reduce checked, then timed repetitions that start
 * together on every rank, each phase's time the maximum over the ranks (what a data-parallel
 * step waits for), and the median over the repetitions.
 *
 *   t_infer  forward pass at inference
 *   t_fwd    forward pass in training mode, with the loss
 *   t_bwd    backward pass through every layer
 *   t_grad   gradient synchronisation (all-reduce over the ranks, bucket by bucket, last layers
 *            first, as PyTorch's DistributedDataParallel finds them ready) and the SGD update
 *   t_step   the three together
 *
 * The driver (sm_bench_run, bench_step.c) knows no device: each backend is a table of what it
 * runs and how it timestamps (sm_bench_ops; bench_cpu.c, bench_cuda.c), as nccl-tests keeps one
 * driver and a table per collective. Energy, where a meter is given, is the joules of the
 * timed repetitions over a window of at least a second (untimed repetitions follow where they
 * are shorter), divided by the repetitions and summed over the ranks; the window is reported.
 * Every rank runs the same batch with the same weights, so the first warm-up step can check
 * the all-reduce: each sum must be `ranks` times the rank's own gradient.
 */
#ifndef SCALEMETER_BENCH_H
#define SCALEMETER_BENCH_H

#include <stddef.h>

#include <mpi.h>

#include "executor.h"
#include "nvml_energy.h"
#include "scalemeter/scalemeter.h"

typedef enum sm_bench_allreduce {
    SM_BENCH_RING, /* our ring (allreduce_ring.h) */
    SM_BENCH_MPI   /* MPI_Allreduce */
} sm_bench_allreduce;

typedef struct sm_bench_config {
    int warmup;           /* untimed steps first, >= 1 (the first also checks the sums) */
    int max_reps;         /* timed repetitions at most, >= 1 */
    double min_time;      /* seconds of timed steps to aim for: the repetitions are
                             min_time / (one step), within [min(3, max_reps), max_reps] */
    size_t bucket_floats; /* gradients all-reduced per message, > 0 */
    sm_bench_allreduce allreduce;
    float lr; /* SGD learning rate */
} sm_bench_config;

typedef struct sm_bench_result {
    double t_infer, t_fwd, t_bwd, t_grad, t_step; /* seconds */
    int reps;
    double loss;                  /* of the first warm-up step */
    double energy_j;              /* per training step, all ranks together; NAN: not measured */
    double energy_infer_j;        /* per inference pass, likewise */
    double energy_window_s;       /* seconds the training joules were taken over; NAN: none */
    double energy_infer_window_s; /* likewise for inference */
} sm_bench_result;

/* Called on every rank as the measurement moves on: phase "warm-up", "training" or
 * "inference", and the repetitions of the timed phases. */
typedef void (*sm_bench_progress_fn)(void *ctx, const char *phase, int reps);

/* One backend's part of a step: its executor's phases, its gradient exchange and its clock.
 * self is the backend's state for one configuration. Functions that can fail return 0 or -1
 * with a message. Work may be enqueued (a GPU stream) rather than done: sync waits for it. */
typedef struct sm_bench_ops {
    const char *collective; /* what all-reduces the gradients, for messages: "ring", "NCCL" */
    double check_tolerance; /* of the all-reduce check, relative to the gradients' size */
    int (*forward)(void *self, int training, sm_status *st);
    int (*loss)(void *self, double *loss, sm_status *st); /* loss NULL: need not wait */
    int (*backward)(void *self, sm_status *st);
    void (*next_seed)(void *self);
    float *(*grads)(void *self, int64_t *n);                         /* all weight gradients */
    int (*allreduce)(void *self, float *g, size_t n, sm_status *st); /* in place, summed */
    int (*sgd)(void *self, float lr, sm_status *st);
    /* k gradients g[0], g[stride], ... copied to the host after the work before (waits) */
    int (*sample)(void *self, const float *g, int64_t stride, int k, float *out, sm_status *st);
    int (*sync)(void *self, sm_status *st);          /* waits for what is enqueued */
    int (*clocks)(void *self, int n, sm_status *st); /* room for n timestamps */
    int (*mark)(void *self, int i, sm_status *st);   /* timestamp i, enqueued */
    /* seconds from timestamp a to b, after a sync */
    int (*seconds)(void *self, int a, int b, double *s, sm_status *st);
} sm_bench_ops;

/* Returned when this rank alone failed, after a warm-up that worked on all: the others are
 * waiting in a collective, so the caller must abort the job (MPI_Abort). */
#define SM_BENCH_RANK_FAILED (-2)

/* Measures one configuration on the backend ops over self. Collective over comm; meter may be
 * NULL (no energy). Returns 0; -1 when the measurement failed on some rank during the warm-up
 * (the ranks agree first, so all return -1 together; the ranks that failed have the message,
 * the others an empty one); or SM_BENCH_RANK_FAILED. */
int sm_bench_run(const sm_bench_ops *ops, void *self, const sm_bench_config *cfg,
                 sm_energy_meter *meter, MPI_Comm comm, sm_bench_progress_fn progress, void *ctx,
                 sm_bench_result *out, sm_status *st);

/* The CPU backend (bench_cpu.c): sm_bench_run over the CPU executor, the gradients all-reduced
 * by our ring or MPI_Allreduce (cfg->allreduce). */
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
void sm_bench_reduce_times(MPI_Comm comm, int ranks, double *t, int reps, int cols, double *median);

#endif
