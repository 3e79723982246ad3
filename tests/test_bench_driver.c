/*
 * The step benchmark's driver (calibrate/bench_step.c, sm_bench_run) under mpirun, over a fake
 * backend whose phases advance a virtual clock by fixed amounts: the medians it reports must be
 * those amounts (the slowest rank's), the gradients must go bucket by bucket, the all-reduce
 * check must catch a collective that does not sum, and a failure during the warm-up on one rank
 * must end the measurement on every rank with the message on that rank only.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "bench.h"
#include "check.h"

#define N_GRADS 10

/* Virtual seconds each phase takes on rank r: the forward pass is slower on higher ranks. */
#define T_FWD(r) (0.003 * (1 + (r)))
#define T_INFER 0.001
#define T_BWD 0.005
#define T_BUCKET 0.0005
#define T_SGD 0.00025

typedef struct fake {
    int rank;
    double now, marks[4 * SM_BENCH_MAX_REPS];
    float g[N_GRADS];
    int buckets;      /* all-reduce calls */
    int no_sum;       /* 1: the collective leaves the gradients as they are */
    int fail_warm_up; /* 1: the training forward fails on this rank */
    int forwards;
} fake;

static int forward(void *self, int training, sm_status *st)
{
    fake *f = self;
    f->forwards++;
    if (training && f->fail_warm_up)
        return sm_fail(st, "fake forward failed on rank %d", f->rank);
    f->now += training ? T_FWD(f->rank) : T_INFER;
    return 0;
}

static int loss(void *self, double *value, sm_status *st)
{
    (void)self;
    (void)st;
    if (value)
        *value = 2.5;
    return 0;
}

/* Gradients the same on every rank: 1, 2, ..., N_GRADS. */
static int backward(void *self, sm_status *st)
{
    (void)st;
    fake *f = self;
    for (int i = 0; i < N_GRADS; i++)
        f->g[i] = (float)(i + 1);
    f->now += T_BWD;
    return 0;
}

static void next_seed(void *self) { (void)self; }

static float *grads(void *self, int64_t *n)
{
    *n = N_GRADS;
    return ((fake *)self)->g;
}

static int allreduce(void *self, float *g, size_t n, sm_status *st)
{
    (void)st;
    fake *f = self;
    f->buckets++;
    f->now += T_BUCKET;
    if (!f->no_sum)
        MPI_Allreduce(MPI_IN_PLACE, g, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    return 0;
}

static int sgd(void *self, float lr, sm_status *st)
{
    (void)lr;
    (void)st;
    ((fake *)self)->now += T_SGD;
    return 0;
}

static int sample(void *self, const float *g, int64_t stride, int k, float *out, sm_status *st)
{
    (void)self;
    (void)st;
    for (int i = 0; i < k; i++)
        out[i] = g[i * stride];
    return 0;
}

static int nothing(void *self, sm_status *st)
{
    (void)self;
    (void)st;
    return 0;
}

static int clocks(void *self, int n, sm_status *st)
{
    (void)self;
    return n <= 4 * SM_BENCH_MAX_REPS ? 0 : sm_fail(st, "%d clocks asked for", n);
}

static int mark(void *self, int i, sm_status *st)
{
    (void)st;
    fake *f = self;
    f->marks[i] = f->now;
    return 0;
}

static int seconds(void *self, int a, int b, double *s, sm_status *st)
{
    (void)st;
    const fake *f = self;
    *s = f->marks[b] - f->marks[a];
    return 0;
}

static const sm_bench_ops fake_ops = {
    .collective = "fake",
    .check_tolerance = 1e-6,
    .forward = forward,
    .loss = loss,
    .backward = backward,
    .next_seed = next_seed,
    .grads = grads,
    .allreduce = allreduce,
    .sgd = sgd,
    .sample = sample,
    .sync = nothing,
    .clocks = clocks,
    .mark = mark,
    .seconds = seconds,
};

static int rank, ranks;
static int progress_calls;

static void progress(void *ctx, const char *phase, int reps)
{
    (void)ctx;
    (void)phase;
    (void)reps;
    progress_calls++;
}

/* 4 gradients per bucket: 10 gradients go in 3 buckets. */
static const sm_bench_config config = {
    .warmup = 2, .max_reps = 5, .min_time = 10.0, .bucket_floats = 4, .lr = 0.1f};

static void test_times(void)
{
    fake f = {.rank = rank};
    sm_bench_result out;
    sm_status st = {""};
    int rc = sm_bench_run(&fake_ops, &f, &config, NULL, MPI_COMM_WORLD, progress, NULL, &out, &st);
    CHECK_MSG(rc == 0, "sm_bench_run: %d %s", rc, st.msg);
    CHECK_EQ(out.reps, 5); /* a virtual step takes no real time: max_reps */
    double buckets = ranks > 1 ? 3 : 0, slowest_fwd = T_FWD(ranks - 1);
    CHECK_NEAR(out.t_fwd, slowest_fwd, 1e-12);
    CHECK_NEAR(out.t_bwd, T_BWD, 1e-12);
    CHECK_NEAR(out.t_grad, buckets * T_BUCKET + T_SGD, 1e-12);
    /* each repetition's step is the sum of its phases on the slowest rank */
    CHECK_NEAR(out.t_step, slowest_fwd + T_BWD + buckets * T_BUCKET + T_SGD, 1e-12);
    CHECK_NEAR(out.t_infer, T_INFER, 1e-12);
    CHECK_NEAR(out.loss, 2.5, 0);
    CHECK(isnan(out.energy_j) && isnan(out.energy_infer_j) && isnan(out.energy_window_s));
    /* 2 warm-up steps and 5 timed ones, each all-reducing 3 buckets */
    CHECK_EQ(f.buckets, ranks > 1 ? 3 * 7 : 0);
    /* 2 warm-up, 1 inference in the warm-up, 5 training, 5 inference */
    CHECK_EQ(f.forwards, 13);
    CHECK_EQ(progress_calls, 3); /* warm-up, training, inference */
}

static void test_check_catches_no_sum(void)
{
    if (ranks < 2)
        return; /* one rank: nothing to sum, the check holds trivially */
    fake f = {.rank = rank, .no_sum = 1};
    sm_bench_result out;
    sm_status st = {""};
    int rc = sm_bench_run(&fake_ops, &f, &config, NULL, MPI_COMM_WORLD, NULL, NULL, &out, &st);
    CHECK_EQ(rc, -1);
    char want[200];
    snprintf(want, sizeof want,
             "the fake all-reduce summed gradient 0 to 1 on rank %d, expected %d (%d ranks x 1)",
             rank, ranks, ranks);
    CHECK_STR_EQ(st.msg, want);
}

static void test_warm_up_failure_on_one_rank(void)
{
    fake f = {.rank = rank, .fail_warm_up = rank == ranks - 1};
    sm_bench_result out;
    sm_status st = {""};
    int rc = sm_bench_run(&fake_ops, &f, &config, NULL, MPI_COMM_WORLD, NULL, NULL, &out, &st);
    CHECK_EQ(rc, -1); /* on every rank, together */
    if (rank == ranks - 1) {
        char want[64];
        snprintf(want, sizeof want, "fake forward failed on rank %d", rank);
        CHECK_STR_EQ(st.msg, want);
    } else {
        CHECK_STR_EQ(st.msg, ""); /* the rank that failed has the message */
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    test_times();
    test_check_catches_no_sum();
    test_warm_up_failure_on_one_rank();
    int rc = check_summary();
    MPI_Finalize();
    return rc;
}
