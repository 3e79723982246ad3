/*
 * The CPU step benchmark (bench.h): warm-up, timed training steps, timed inference passes.
 *
 * Every rank runs the same batch with the same weights (same seed): the cost is that of any
 * other data, and it lets the first warm-up step check the all-reduce, whose sums must then be
 * exactly `ranks` times each rank's own gradient (up to the rounding of the additions).
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce_ring.h"

typedef struct bench_run {
    sm_executor *ex;
    const sm_bench_config *cfg;
    MPI_Comm comm;
    int rank, ranks;
    float *scratch; /* the ring's, for the largest bucket */
} bench_run;

static int mpi_failed(int rc, const char *what, sm_status *st)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return sm_fail(st, "%s failed: %s", what, msg);
}

/* All ranks learn whether any failed; a rank that did not fail gets an empty message. */
static int agree(const bench_run *r, int failed, sm_status *st)
{
    int any = failed;
    if (r->ranks > 1)
        MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, r->comm);
    if (any && !failed)
        st->msg[0] = '\0';
    return any ? -1 : 0;
}

/* Sums the gradients over the ranks bucket by bucket, last layers first (the order in which
 * PyTorch's DistributedDataParallel finds them ready), then the SGD step with their mean. */
static int grad_sync(const bench_run *r, sm_status *st)
{
    if (r->ranks > 1) {
        int64_t n;
        float *g = sm_executor_weight_grads(r->ex, &n);
        int64_t bucket = (int64_t)r->cfg->bucket_floats;
        for (int64_t end = n; end > 0; end -= bucket) {
            int64_t start = end > bucket ? end - bucket : 0;
            size_t count = (size_t)(end - start);
            int rc = r->cfg->allreduce == SM_BENCH_RING
                         ? sm_ring_allreduce_scratch(g + start, count, r->comm, 0, r->scratch)
                         : MPI_Allreduce(MPI_IN_PLACE, g + start, (int)count, MPI_FLOAT,
                                         MPI_SUM, r->comm);
            if (rc != MPI_SUCCESS)
                return mpi_failed(rc, "gradient all-reduce", st);
        }
    }
    sm_executor_sgd(r->ex, r->cfg->lr / (float)r->ranks);
    return 0;
}

/* One training step; t[0..3] = forward, backward, gradient sync + update, whole step. */
static int step(const bench_run *r, double t[4], double *loss, sm_status *st)
{
    double t0 = MPI_Wtime();
    if (sm_executor_forward(r->ex, 1, st) || sm_executor_loss(r->ex, loss, st))
        return -1;
    double t1 = MPI_Wtime();
    if (sm_executor_backward(r->ex, st))
        return -1;
    double t2 = MPI_Wtime();
    if (grad_sync(r, st))
        return -1;
    double t3 = MPI_Wtime();
    sm_executor_next_seed(r->ex);
    t[0] = t1 - t0;
    t[1] = t2 - t1;
    t[2] = t3 - t2;
    t[3] = t3 - t0;
    return 0;
}

/* Up to this many gradient elements, evenly spaced, are compared after the first all-reduce. */
#define CHECK_SAMPLES 4096

/* The first warm-up step, with its all-reduce checked: each sum must be ranks x our own. */
static int checked_step(const bench_run *r, double t[4], double *loss, sm_status *st)
{
    int64_t n;
    const float *g = sm_executor_weight_grads(r->ex, &n);
    double t0 = MPI_Wtime();
    int failed = sm_executor_forward(r->ex, 1, st) || sm_executor_loss(r->ex, loss, st) ||
                 sm_executor_backward(r->ex, st);
    if (agree(r, failed, st))
        return -1;
    double t1 = MPI_Wtime();
    int64_t stride = n > CHECK_SAMPLES ? n / CHECK_SAMPLES : 1;
    float own[CHECK_SAMPLES];
    int k = 0;
    for (int64_t i = 0; i < n && k < CHECK_SAMPLES; i += stride)
        own[k++] = g[i];
    failed = grad_sync(r, st) != 0;
    if (!failed) {
        /* the sums stay in the gradient buffer (the update changes only the weights) */
        k = 0;
        for (int64_t i = 0; i < n && k < CHECK_SAMPLES && !failed; i += stride, k++) {
            double want = (double)own[k] * r->ranks;
            if (fabs(g[i] - want) > 1e-5 * fabs(want) + 1e-30) {
                sm_fail(st,
                        "the %s all-reduce summed gradient %lld to %.9g on rank %d, expected "
                        "%.9g (%d ranks x %.9g)",
                        r->cfg->allreduce == SM_BENCH_RING ? "ring" : "MPI", (long long)i,
                        (double)g[i], r->rank, want, r->ranks, (double)own[k]);
                failed = 1;
            }
        }
    }
    if (agree(r, failed, st))
        return -1;
    sm_executor_next_seed(r->ex);
    /* rough, the check included: warm-up times only size the repetitions */
    t[0] = t1 - t0;
    t[1] = 0;
    t[2] = t[3] = MPI_Wtime() - t0;
    return 0;
}

static int warm_up(const bench_run *r, double *estimate, sm_status *st)
{
    double t[4], loss;
    if (checked_step(r, t, &loss, st))
        return -1;
    for (int i = 1; i < r->cfg->warmup; i++) {
        int failed = step(r, t, &loss, st) != 0;
        if (agree(r, failed, st))
            return -1;
    }
    double t0 = MPI_Wtime();
    int failed = sm_executor_forward(r->ex, 0, st) != 0;
    if (agree(r, failed, st))
        return -1;
    double mine = t[3] + (MPI_Wtime() - t0), slowest = mine;
    if (r->ranks > 1)
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    *estimate = slowest;
    return 0;
}

int sm_bench_cpu(sm_executor *ex, const sm_bench_config *cfg, MPI_Comm comm,
                 sm_bench_progress_fn progress, void *ctx, sm_bench_result *out, sm_status *st)
{
    bench_run r = {ex, cfg, comm, 0, 1, NULL};
    MPI_Comm_rank(comm, &r.rank);
    MPI_Comm_size(comm, &r.ranks);
    memset(out, 0, sizeof *out);
    size_t scratch = sm_ring_scratch_elems(cfg->bucket_floats, r.ranks, 0);
    int failed = scratch && !(r.scratch = malloc(scratch * sizeof(float)));
    if (failed)
        sm_fail(st, "out of memory for the all-reduce's scratch");
    if (agree(&r, failed, st))
        return -1;
    double estimate = 0, *t = NULL, m[4];
    int rc = -1;
    if (progress)
        progress(ctx, "warm-up", cfg->warmup);
    if (warm_up(&r, &estimate, st))
        goto done;
    int reps = sm_bench_repetitions(cfg, estimate);
    if (reps > 256)
        reps = 256;
    if (!(t = malloc((size_t)reps * 4 * sizeof *t))) {
        sm_fail(st, "out of memory");
        goto done;
    }
    if (progress)
        progress(ctx, "training", reps);
    for (int i = 0; i < reps; i++) {
        if (r.ranks > 1)
            MPI_Barrier(comm);
        if (step(&r, t + 4 * i, &out->loss, st)) {
            rc = SM_BENCH_RANK_FAILED;
            goto done;
        }
    }
    sm_bench_reduce_times(r.comm, r.ranks, t, reps, 4, m);
    out->t_fwd = m[0];
    out->t_bwd = m[1];
    out->t_grad = m[2];
    out->t_step = m[3];
    if (progress)
        progress(ctx, "inference", reps);
    for (int i = 0; i < reps; i++) {
        if (r.ranks > 1)
            MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        if (sm_executor_forward(ex, 0, st)) {
            rc = SM_BENCH_RANK_FAILED;
            goto done;
        }
        t[i] = MPI_Wtime() - t0;
    }
    sm_bench_reduce_times(r.comm, r.ranks, t, reps, 1, m);
    out->t_infer = m[0];
    out->reps = reps;
    rc = 0;
done:
    free(t);
    free(r.scratch);
    return rc;
}
