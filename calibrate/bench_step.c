/*
 * The step benchmark's driver (bench.h): warm-up with the all-reduce checked, timed training
 * steps and inference passes that start together on every rank, the energy window, and the
 * reduction of every rank's times to one median per phase. What runs and how it is timed is
 * the backend's table (sm_bench_ops).
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double sm_median(double *v, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: n is a few dozen at most */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int sm_bench_repetitions(const sm_bench_config *cfg, double estimate)
{
    int lo = cfg->max_reps < 3 ? cfg->max_reps : 3;
    double want = estimate > 0 ? ceil(cfg->min_time / estimate) : cfg->max_reps;
    if (want > cfg->max_reps)
        want = cfg->max_reps;
    return want < lo ? lo : (int)want;
}

void sm_bench_reduce_times(MPI_Comm comm, int ranks, double *t, int reps, int cols, double *median)
{
    if (ranks > 1)
        MPI_Allreduce(MPI_IN_PLACE, t, reps * cols, MPI_DOUBLE, MPI_MAX, comm);
    double column[SM_BENCH_MAX_REPS];
    for (int c = 0; c < cols; c++) {
        for (int i = 0; i < reps; i++)
            column[i] = t[i * cols + c];
        median[c] = sm_median(column, reps);
    }
}

/* ---- the driver ----------------------------------------------------------------------------- */

typedef struct run {
    const sm_bench_ops *b;
    void *self;
    const sm_bench_config *cfg;
    MPI_Comm comm;
    int rank, ranks;
} run;

/* All ranks learn whether any failed; a rank that did not fail gets an empty message. */
static int agree(const run *r, int failed, sm_status *st)
{
    int any = failed;
    if (r->ranks > 1)
        MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, r->comm);
    if (any && !failed)
        st->msg[0] = '\0';
    return any ? -1 : 0;
}

/* The gradients summed over the ranks bucket by bucket, last layers first, then SGD with
 * their mean. */
static int grad_sync(const run *r, sm_status *st)
{
    if (r->ranks > 1) {
        int64_t n;
        float *g = r->b->grads(r->self, &n);
        int64_t bucket = (int64_t)r->cfg->bucket_floats;
        for (int64_t end = n; end > 0; end -= bucket) {
            int64_t start = end > bucket ? end - bucket : 0;
            if (r->b->allreduce(r->self, g + start, (size_t)(end - start), st))
                return -1;
        }
    }
    return r->b->sgd(r->self, r->cfg->lr / (float)r->ranks, st);
}

/* One training step between timestamps m .. m + 3: forward and loss, backward, gradients. */
static int step(const run *r, int m, sm_status *st)
{
    const sm_bench_ops *b = r->b;
    if (b->mark(r->self, m, st) || b->forward(r->self, 1, st) || b->loss(r->self, NULL, st) ||
        b->mark(r->self, m + 1, st) || b->backward(r->self, st) || b->mark(r->self, m + 2, st) ||
        grad_sync(r, st) || b->mark(r->self, m + 3, st))
        return -1;
    b->next_seed(r->self);
    return 0;
}

/* Up to this many gradient elements, evenly spaced, are compared after the first all-reduce. */
#define CHECK_SAMPLES 4096

/* The first warm-up step, its all-reduce checked: each sum must be ranks x our own gradient.
 * Every rank computes the same gradients up to the order of floating-point sums (cuDNN's
 * algorithms may use atomics), hence a tolerance scaled by the gradients' size. */
static int checked_step(const run *r, double *loss, sm_status *st)
{
    const sm_bench_ops *b = r->b;
    int64_t n;
    const float *g = b->grads(r->self, &n);
    int64_t stride = n > CHECK_SAMPLES ? n / CHECK_SAMPLES : 1;
    int k = (int)((n + stride - 1) / stride < CHECK_SAMPLES ? (n + stride - 1) / stride
                                                            : CHECK_SAMPLES);
    static float own[CHECK_SAMPLES], sum[CHECK_SAMPLES];
    int failed = b->forward(r->self, 1, st) || b->loss(r->self, loss, st) ||
                 b->backward(r->self, st) || (k && b->sample(r->self, g, stride, k, own, st));
    if (agree(r, failed, st))
        return -1;
    failed = grad_sync(r, st) || (k && b->sample(r->self, g, stride, k, sum, st));
    double scale = 0;
    for (int i = 0; i < k; i++)
        scale += (double)own[i] * own[i];
    scale = k ? sqrt(scale / k) : 0;
    for (int i = 0; i < k && !failed && r->ranks > 1; i++) {
        double want = (double)own[i] * r->ranks;
        double tol = b->check_tolerance * r->ranks * (fabs(own[i]) + scale) + 1e-30;
        if (fabs(sum[i] - want) > tol) {
            sm_fail(st,
                    "the %s all-reduce summed gradient %lld to %.9g on rank %d, expected "
                    "%.9g (%d ranks x %.9g)",
                    b->collective, (long long)(i * stride), (double)sum[i], r->rank, want, r->ranks,
                    (double)own[i]);
            failed = 1;
        }
    }
    if (agree(r, failed, st))
        return -1;
    b->next_seed(r->self);
    return 0;
}

/* The warm-up; *estimate the slowest rank's last training step and inference pass. */
static int warm_up(const run *r, double *estimate, double *loss, sm_status *st)
{
    const sm_bench_ops *b = r->b;
    int failed = b->clocks(r->self, 4, st) != 0;
    double t0 = MPI_Wtime();
    if (agree(r, failed, st) || checked_step(r, loss, st))
        return -1;
    for (int i = 1; i < r->cfg->warmup; i++) {
        t0 = MPI_Wtime();
        failed = step(r, 0, st) || b->sync(r->self, st);
        if (agree(r, failed, st))
            return -1;
    }
    failed = b->forward(r->self, 0, st) || b->sync(r->self, st);
    if (agree(r, failed, st))
        return -1;
    double mine = MPI_Wtime() - t0, slowest = mine;
    if (r->ranks > 1)
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    *estimate = slowest;
    return 0;
}

/* The job's joules: every rank's, summed; NAN unless every rank measured. */
static double job_energy(const run *r, double mine)
{
    double have = isnan(mine) ? 0 : 1, all = have, total = isnan(mine) ? 0 : mine;
    if (r->ranks > 1) {
        MPI_Allreduce(&have, &all, 1, MPI_DOUBLE, MPI_MIN, r->comm);
        MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, r->comm);
    }
    return all > 0 ? total : NAN;
}

/* Waits for the device, then for every rank: the repetitions start together. */
static int line_up(const run *r, sm_status *st)
{
    if (r->b->sync(r->self, st))
        return -1;
    if (r->ranks > 1)
        MPI_Barrier(r->comm);
    return 0;
}

/* NVML's energy counter and power readings advance every 20 to 100 ms, and the H100's counter
 * did not advance at all over a few milliseconds of steps: energy is taken over at least this
 * long, the timed repetitions followed by untimed ones where they are shorter. */
#define ENERGY_MIN_WINDOW_S 1.0
#define ENERGY_MAX_EXTRA 1000000

/* One untimed training step or inference pass, to lengthen the energy window. */
static int untimed(const run *r, int training, sm_status *st)
{
    const sm_bench_ops *b = r->b;
    if (!training)
        return b->forward(r->self, 0, st);
    if (b->forward(r->self, 1, st) || b->loss(r->self, NULL, st) || b->backward(r->self, st) ||
        grad_sync(r, st))
        return -1;
    b->next_seed(r->self);
    return 0;
}

/* The untimed repetitions that bring the energy window of `reps` repetitions lasting `window`
 * seconds up to ENERGY_MIN_WINDOW_S; the same number on every rank (the steps all-reduce),
 * 0 where no rank measures energy. */
static int extra_repetitions(const run *r, int measuring, int reps, double window)
{
    double need = 0;
    if (measuring && window < ENERGY_MIN_WINDOW_S)
        need =
            window > 0 ? ceil((ENERGY_MIN_WINDOW_S - window) / (window / reps)) : ENERGY_MAX_EXTRA;
    need = need > ENERGY_MAX_EXTRA ? ENERGY_MAX_EXTRA : need;
    if (r->ranks > 1)
        MPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    return (int)need;
}

/* reps training steps (training = 1, timestamps 4 i .. 4 i + 3) or inference passes (2 i,
 * 2 i + 1), then their times in t (4 or 1 per repetition), and the joules one of them used
 * over an energy window of *window seconds (the timed repetitions and the untimed ones that
 * make it at least ENERGY_MIN_WINDOW_S). */
static int timed(const run *r, int training, int reps, sm_energy_meter *meter, double *t,
                 double *joules, double *window, sm_status *st)
{
    const sm_bench_ops *b = r->b;
    *joules = *window = NAN;
    if (line_up(r, st))
        return -1;
    if (meter && sm_energy_start(meter, st))
        meter = NULL; /* energy is a bonus: the times still count */
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++) {
        if (i && line_up(r, st))
            return -1;
        if (training ? step(r, 4 * i, st)
                     : b->mark(r->self, 2 * i, st) || b->forward(r->self, 0, st) ||
                           b->mark(r->self, 2 * i + 1, st))
            return -1;
    }
    if (b->sync(r->self, st))
        return -1;
    /* rounds, since the estimate per repetition is the timed ones'; the same on every rank */
    int done = reps;
    for (int round = 0; round < 4; round++) {
        int extra = extra_repetitions(r, meter != NULL, done, MPI_Wtime() - t0);
        if (!extra)
            break;
        for (int i = 0; i < extra; i++)
            if (untimed(r, training, st))
                return -1;
        if (b->sync(r->self, st))
            return -1;
        done += extra;
    }
    double j;
    if (meter && sm_energy_stop(meter, &j, st) == 0) {
        *joules = j / done;
        *window = MPI_Wtime() - t0;
    }
    for (int i = 0; i < reps; i++) {
        int per = training ? 4 : 2;
        double s[3];
        for (int k = 0; k + 1 < per; k++)
            if (b->seconds(r->self, per * i + k, per * i + k + 1, &s[k], st))
                return -1;
        if (training) {
            t[4 * i] = s[0];
            t[4 * i + 1] = s[1];
            t[4 * i + 2] = s[2];
            t[4 * i + 3] = s[0] + s[1] + s[2];
        } else {
            t[i] = s[0];
        }
    }
    return 0;
}

int sm_bench_run(const sm_bench_ops *ops, void *self, const sm_bench_config *cfg,
                 sm_energy_meter *meter, MPI_Comm comm, sm_bench_progress_fn progress, void *ctx,
                 sm_bench_result *out, sm_status *st)
{
    run r = {ops, self, cfg, comm, 0, 1};
    MPI_Comm_rank(comm, &r.rank);
    MPI_Comm_size(comm, &r.ranks);
    memset(out, 0, sizeof *out);
    out->energy_j = out->energy_infer_j = NAN;
    out->energy_window_s = out->energy_infer_window_s = NAN;
    double estimate = 0, m[4], joules, window;
    if (progress)
        progress(ctx, "warm-up", cfg->warmup);
    if (warm_up(&r, &estimate, &out->loss, st))
        return -1;
    int reps = sm_bench_repetitions(cfg, estimate);
    reps = reps > SM_BENCH_MAX_REPS ? SM_BENCH_MAX_REPS : reps;
    /* from here on the others may wait in a collective */
    double *t = malloc((size_t)reps * 4 * sizeof *t);
    if (!t) {
        sm_fail(st, "out of host memory");
        return SM_BENCH_RANK_FAILED;
    }
    int rc = SM_BENCH_RANK_FAILED;
    if (ops->clocks(self, reps * 4, st))
        goto done;
    if (progress)
        progress(ctx, "training", reps);
    if (timed(&r, 1, reps, meter, t, &joules, &window, st))
        goto done;
    out->energy_j = job_energy(&r, joules);
    out->energy_window_s = window;
    sm_bench_reduce_times(r.comm, r.ranks, t, reps, 4, m);
    out->t_fwd = m[0];
    out->t_bwd = m[1];
    out->t_grad = m[2];
    out->t_step = m[3];
    if (progress)
        progress(ctx, "inference", reps);
    if (timed(&r, 0, reps, meter, t, &joules, &window, st))
        goto done;
    out->energy_infer_j = job_energy(&r, joules);
    out->energy_infer_window_s = window;
    sm_bench_reduce_times(r.comm, r.ranks, t, reps, 1, m);
    out->t_infer = m[0];
    out->reps = reps;
    rc = 0;
done:
    free(t);
    return rc;
}
