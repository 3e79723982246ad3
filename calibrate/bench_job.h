/*
 * bench_job.h: one `scalemeter bench` job on every rank. The ranks' layout; every configuration
 * (model x image x batch) with its network loaded and checked on the backend; which of them the
 * measurement CSV already holds; then each other one measured (sm_bench_measure) and its row
 * stored by rank 0 before the next starts, so that an interrupted job keeps every row and the
 * same command resumes. The command only parses options and shows what happens.
 *
 *   sm_bench_layout_of    nodes and ranks per node, from the ranks that share memory
 *   sm_bench_default_threads  the CPUs of a rank, from the masks of its host's ranks
 *   sm_bench_job_open     networks, the backend's job, the configurations, the CSV
 *   sm_bench_job_measure  one configuration measured
 *   sm_bench_job_store    its row appended (rank 0)
 *
 * Collective calls fail on every rank together: the lowest rank that failed has the message,
 * the others an empty one, so that a job prints one line.
 */
#ifndef SCALEMETER_BENCH_JOB_H
#define SCALEMETER_BENCH_JOB_H

#include <stdint.h>

#include <mpi.h>

#include "bench_backend.h"

typedef struct sm_bench_layout {
    int rank, ranks;
    int nodes, per_node; /* hosts, and ranks on each (the same on every host) */
} sm_bench_layout;

/* Collective over comm: 0, or -1 when hosts run different numbers of ranks. */
int sm_bench_layout_of(MPI_Comm comm, sm_bench_layout *l, sm_status *st);

/* Collective over comm: bench's default OpenBLAS threads for this rank, from the affinity
 * masks of the ranks of its host and the cgroup's CPU quota (cpu_budget.h). */
int sm_bench_default_threads(MPI_Comm comm);

typedef struct sm_bench_spec {
    const sm_bench_backend *backend;
    const char *output;  /* the measurement CSV, appended to and resumed */
    char *const *models; /* zoo names or network files */
    int n_models;
    const int64_t *images; /* image sizes (sequence lengths) to load each model at */
    int n_images;          /* 0: each network's own */
    const int64_t *batches;
    int n_batches;
    sm_bench_config cfg;
    sm_bench_options opt; /* batch and per_node are set per configuration */
    int64_t threads;      /* the CSV's threads column */
    sm_bench_layout layout;
} sm_bench_spec;

/* One configuration. */
typedef struct sm_bench_item {
    const char *model;
    int64_t image, batch;
    double work; /* FLOPs and weight updates of one step, for time estimates */
    int stored;  /* the CSV holds its row: from before (skipped), or measured in this job */
} sm_bench_item;

typedef struct sm_bench_job sm_bench_job;

/* Collective over comm: loads and checks every network, opens the backend's job, lists the
 * configurations, opens the CSV (rank 0) and learns which rows it holds. 0, or -1 (see the top
 * of this file). s's arrays must outlive the job. */
int sm_bench_job_open(const sm_bench_spec *s, MPI_Comm comm, sm_bench_job **out, sm_status *st);
void sm_bench_job_close(sm_bench_job *j);

/* Lines for rank 0 to show, as they came (why no energy is measured, what the CSV held); NULL
 * after the last. */
const char *sm_bench_job_note(const sm_bench_job *j, int k);
int sm_bench_job_count(const sm_bench_job *j);
const sm_bench_item *sm_bench_job_item(const sm_bench_job *j, int i);
/* The CSV columns this job's rows fill, and their names (rank 0): the first of
 * scalemeter/fit.h's sm_run_columns, then allreduce and bucket_mib, which a file written before
 * them lacks (its rows keep neither: sm_bench_job_records_allreduce is 0). */
int sm_bench_job_columns(const sm_bench_job *j);
const char *const *sm_bench_job_header(const sm_bench_job *j);
int sm_bench_job_records_allreduce(const sm_bench_job *j);

/* Measures configuration i on every rank: status ok, or oom with empty times when it does not
 * fit. 0 with *oom; -1 on every rank (see the top of this file); or SM_BENCH_RANK_FAILED: this
 * rank alone failed while the others wait in a collective, so the caller must MPI_Abort. */
int sm_bench_job_measure(sm_bench_job *j, int i, sm_bench_progress_fn progress, void *ctx, int *oom,
                         sm_status *st);
/* Collective: appends the row sm_bench_job_measure made for configuration i (rank 0) and marks
 * it stored. A step of its own, so that the command can store the row and count it with its
 * interrupting signals held. 0 with *row (on rank 0: its fields, sm_bench_job_columns of them,
 * valid until the next call), or -1 on every rank. */
int sm_bench_job_store(sm_bench_job *j, int i, const char *const **row, sm_status *st);

#endif
