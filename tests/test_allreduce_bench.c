/*
 * The all-reduce driver (calibrate/allreduce_bench.c) under mpirun: the table of
 * implementations, the result's sizes and bandwidths, and the check, which must catch a wrong
 * element on one rank and name the size, the element, the rank and both values on every rank.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "allreduce.h"
#include "check.h"

static int rank, ranks;

/* An implementation that is right except for element 5 on the last rank, off by one. */
static int run_broken(void *ctx, size_t count, sm_status *st)
{
    const sm_allreduce_impl *mpi = sm_allreduce_impl_find("mpi");
    if (mpi->run(ctx, count, st))
        return -1;
    if (rank == ranks - 1 && count > 5) {
        float host[64];
        mpi->store(ctx, host, count, st);
        host[5] += 1;
        mpi->load(ctx, host, count, st);
    }
    return 0;
}

static void test_table(void)
{
    CHECK(sm_allreduce_impl_count() >= 2);
    CHECK(sm_allreduce_impl_find("ring") && !strcmp(sm_allreduce_impl_find("ring")->name, "ring"));
    CHECK(sm_allreduce_impl_find("mpi") != NULL);
    CHECK(sm_allreduce_impl_find("nope") == NULL);
    CHECK(sm_allreduce_impl_at(sm_allreduce_impl_count()) == NULL);
}

static void test_measure(const char *name, size_t count)
{
    const sm_allreduce_impl *impl = sm_allreduce_impl_find(name);
    sm_allreduce_options opt = {7};
    sm_allreduce_config cfg = {1, 3, 1};
    float host[4096];
    void *ctx;
    sm_status st = {""};
    sm_allreduce_result r;
    CHECK_EQ(impl->open(&ctx, count, MPI_COMM_WORLD, &opt, &st), 0);
    CHECK_EQ(sm_allreduce_measure(impl, ctx, count, host, &cfg, MPI_COMM_WORLD, &r, &st), 0);
    if (st.msg[0])
        fprintf(stderr, "rank %d: %s\n", rank, st.msg);
    CHECK_EQ(r.bytes, count * 4);
    CHECK_EQ(r.ranks, ranks);
    CHECK_EQ(r.checked, 1);
    CHECK(r.time_s > 0 || ranks == 1); /* one rank runs nothing: the clock may not move */
    if (r.time_s > 0) {
        CHECK(fabs(r.algbw_gb_s - (double)r.bytes / r.time_s / 1e9) <= 1e-9 * r.algbw_gb_s);
        CHECK(fabs(r.busbw_gb_s - r.algbw_gb_s * 2 * (ranks - 1) / ranks) <= 1e-9 * r.algbw_gb_s);
    }
    /* After the check run the buffer holds the exact sums. */
    impl->store(ctx, host, count, &st);
    int exact = 1;
    for (size_t i = 0; i < count; i++)
        exact &= host[i] == sm_allreduce_expected(ranks, i);
    CHECK(exact);
    impl->close(ctx);
}

static void test_check_catches(void)
{
    sm_allreduce_impl broken = *sm_allreduce_impl_find("mpi");
    broken.name = "broken";
    broken.run = run_broken;
    sm_allreduce_config cfg = {0, 1, 1};
    float host[64];
    void *ctx;
    sm_status st = {""};
    sm_allreduce_result r;
    CHECK_EQ(broken.open(&ctx, 16, MPI_COMM_WORLD, NULL, &st), 0);
    CHECK_EQ(sm_allreduce_measure(&broken, ctx, 16, host, &cfg, MPI_COMM_WORLD, &r, &st), -1);
    char want[200];
    snprintf(want, sizeof want,
             "broken: wrong sum at 64 bytes: element 5 is %g on rank %d, "
             "expected %g",
             sm_allreduce_expected(ranks, 5) + 1, ranks - 1, sm_allreduce_expected(ranks, 5));
    CHECK_CONTAINS(st.msg, want);
    /* Without the check the same runs pass: the check is what caught it. */
    cfg.check = 0;
    CHECK_EQ(sm_allreduce_measure(&broken, ctx, 16, host, &cfg, MPI_COMM_WORLD, &r, &st), 0);
    CHECK_EQ(r.checked, 0);
    broken.close(ctx);
}

/* Inputs are small integers that depend on the rank, so a lost rank changes the sum. */
static void test_inputs(void)
{
    int differ = 0, small = 1;
    for (size_t i = 0; i < 1000; i++) {
        differ += sm_allreduce_input(0, i) != sm_allreduce_input(1, i);
        small &= fabsf(sm_allreduce_input(3, i)) <= 30 &&
                 sm_allreduce_input(3, i) == (float)(int)sm_allreduce_input(3, i);
    }
    CHECK(differ > 900);
    CHECK(small);
    CHECK(sm_allreduce_expected(2, 17) == sm_allreduce_input(0, 17) + sm_allreduce_input(1, 17));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    test_table();
    test_inputs();
    test_measure("ring", 4096);
    test_measure("mpi", 4096);
    test_measure("ring", 3);
    test_check_catches();
    int failed = 0, passed = 0;
    MPI_Allreduce(&check_failed, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&check_passed, &passed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks: %d passed, %d failed\n", ranks, passed, failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
