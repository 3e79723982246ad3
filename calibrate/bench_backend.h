/*
 * The compute backends of `scalemeter bench`, one row each (as allreduce_impls.c keeps the
 * all-reduces): what the command asks of a backend for a whole job and for one configuration,
 * so that the command knows none of them. The rows: cpu (bench_cpu.c) and, from the cuda
 * module (backend_module.h) where it was built and its libraries load, cuda (bench_cuda.c).
 *
 *   sm_bench_backend_find  the row of a name
 *   sm_bench_measure       one configuration on every rank: executor, agreement, sm_bench_run
 */
#ifndef SCALEMETER_BENCH_BACKEND_H
#define SCALEMETER_BENCH_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "bench.h"

typedef struct sm_bench_options {
    int64_t batch;         /* samples per step on each rank */
    int64_t max_bytes;     /* > 0: refuse larger plans; 0: the backend's own limit */
    int per_node;          /* ranks sharing this host's memory */
    const char *precision; /* the GPU's: fp32 or tf32 */
    const char *conv_algo; /* the GPU's: measure or heuristic */
} sm_bench_options;

typedef struct sm_bench_backend {
    const char *name; /* what --backend names */
    int n_columns;    /* of the measurement CSV (scalemeter/fit.h) its rows fill */
    /* Collective: what the backend holds for the whole job (devices, communicators, energy
     * meter). 0, or -1 on every rank together (the message on the ranks that failed, the
     * others an empty one). note: a line for rank 0 to print, empty for none. */
    int (*open)(MPI_Comm comm, void **job, char *note, size_t note_len, sm_status *st);
    void (*close)(void *job);
    const char *(*device)(const void *job); /* the CSV's device column; NULL: none */
    /* the CSV's allreduce column: what sums the gradients of several ranks under cfg */
    const char *(*collective)(const sm_bench_config *cfg);
    /* 0 when every layer of net has kernels on this backend; else -1 naming the first. */
    int (*check)(const sm_network *net, sm_status *st);
    /* The executor of one configuration: 0, -1 with a message, or SM_EXECUTOR_NOMEM. */
    int (*executor_new)(void *job, const sm_network *net, const sm_bench_options *o, void **ex,
                        sm_status *st);
    void (*executor_free)(void *ex);
    /* sm_bench_run on that executor, with its return values. */
    int (*run)(void *job, void *ex, const sm_bench_config *cfg, MPI_Comm comm,
               sm_bench_progress_fn progress, void *ctx, sm_bench_result *out, sm_status *st);
} sm_bench_backend;

extern const sm_bench_backend sm_bench_backend_cpu;

/* The row named name, or NULL with a message: the backends this build has, or why the cuda
 * module does not load. */
const sm_bench_backend *sm_bench_backend_find(const char *name, sm_status *st);

/* What sm_bench_measure returns when a configuration does not fit (SM_EXECUTOR_NOMEM of the
 * executors is SM_BENCH_RANK_FAILED's value). */
#define SM_BENCH_NOMEM (-3)

/* One configuration, collective over comm: every rank builds its executor, the ranks agree,
 * then sm_bench_run. Returns 0; SM_BENCH_NOMEM on every rank when it does not fit on some
 * (a GPU library's "out of memory" message counts); -1 on every rank, the message on the ranks
 * that failed and an empty one on the others; or SM_BENCH_RANK_FAILED (this rank alone failed
 * while the others wait in a collective: the caller must MPI_Abort). */
int sm_bench_measure(const sm_bench_backend *b, void *job, const sm_network *net,
                     const sm_bench_options *o, const sm_bench_config *cfg, MPI_Comm comm,
                     sm_bench_progress_fn progress, void *ctx, sm_bench_result *out, sm_status *st);

#endif
