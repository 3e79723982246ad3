/*
 * The one place that knows how to time an all-reduce (nccl-tests' common.cu): warm-up runs,
 * timed runs between a barrier and a wait, and a check of one more run against the exact sum.
 *
 * Time: each rank's mean time per timed run, and of those the maximum over ranks (nccl-tests
 * `-a 3`; its default `-a 1` averages the ranks instead). The slowest rank is what a training
 * step waits for, so the maximum is what the communication model must predict.
 */
#include "allreduce.h"

#include <stdint.h>
#include <stdlib.h>

/* A hash of (rank, index) folded to [-30, 30]: depends on both, so a chunk summed twice, lost,
 * or put at the wrong offset changes the result. */
static int input_value(int rank, size_t i)
{
    uint64_t h = (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15) ^
                 ((uint64_t)rank + 1) * UINT64_C(0xC2B2AE3D27D4EB4F);
    h ^= h >> 31;
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    h ^= h >> 29;
    return (int)(h % 61) - 30;
}

float sm_allreduce_input(int rank, size_t i) { return (float)input_value(rank, i); }

float sm_allreduce_expected(int ranks, size_t i)
{
    int64_t sum = 0;
    for (int r = 0; r < ranks; r++)
        sum += input_value(r, i);
    return (float)sum;
}

static int load_input(const sm_allreduce_impl *impl, void *ctx, size_t count, float *host, int rank,
                      sm_status *st)
{
    for (size_t i = 0; i < count; i++)
        host[i] = sm_allreduce_input(rank, i);
    return impl->load(ctx, host, count, st);
}

/* The timed runs reduce their own output again, so values grow n-fold per run and may reach
 * infinity (of one sign, never NaN); floats that large are not slower, unlike denormals. */
static int time_runs(const sm_allreduce_impl *impl, void *ctx, size_t count,
                     const sm_allreduce_config *cfg, MPI_Comm comm, double *worst, sm_status *st)
{
    for (int i = 0; i < cfg->warmup; i++)
        if (impl->run(ctx, count, st))
            return -1;
    if (impl->wait(ctx, st))
        return -1;
    MPI_Barrier(comm);
    double start = MPI_Wtime();
    for (int i = 0; i < cfg->iters; i++)
        if (impl->run(ctx, count, st))
            return -1;
    if (impl->wait(ctx, st))
        return -1;
    double mean = (MPI_Wtime() - start) / cfg->iters;
    if (MPI_Allreduce(&mean, worst, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
        return sm_fail(st, "%s: cannot gather the timings", impl->name);
    return 0;
}

/* Every rank compares its whole result; all ranks then agree on the first wrong element (lowest
 * index, then lowest rank), so every rank returns the same status and message. */
static int check_run(const sm_allreduce_impl *impl, void *ctx, size_t count, float *host,
                     MPI_Comm comm, sm_status *st)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    if (load_input(impl, ctx, count, host, rank, st) || impl->run(ctx, count, st) ||
        impl->wait(ctx, st) || impl->store(ctx, host, count, st))
        return -1;
    double mine[3] = {-1, 0, 0}; /* first wrong index, its value, the exact sum */
    for (size_t i = 0; i < count; i++) {
        float want = sm_allreduce_expected(n, i);
        if (host[i] != want) {
            mine[0] = (double)i;
            mine[1] = host[i];
            mine[2] = want;
            break;
        }
    }
    double *all = malloc((size_t)n * sizeof mine);
    if (!all)
        return sm_fail(st, "%s: out of memory checking the result", impl->name);
    int rc = MPI_Allgather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, comm);
    int bad = -1;
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++)
        if (all[3 * r] >= 0 && (bad < 0 || all[3 * r] < all[3 * bad]))
            bad = r;
    double at[3] = {0, 0, 0};
    if (bad >= 0)
        for (int k = 0; k < 3; k++)
            at[k] = all[3 * bad + k];
    free(all);
    if (rc != MPI_SUCCESS)
        return sm_fail(st, "%s: cannot gather the check", impl->name);
    if (bad >= 0)
        return sm_fail(st, "%s: wrong sum at %zu bytes: element %.0f is %g on rank %d, expected %g",
                       impl->name, count * sizeof(float), at[0], at[1], bad, at[2]);
    return 0;
}

int sm_allreduce_measure(const sm_allreduce_impl *impl, void *ctx, size_t count, float *host,
                         const sm_allreduce_config *cfg, MPI_Comm comm, sm_allreduce_result *out,
                         sm_status *st)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    if (cfg->iters < 1 || cfg->warmup < 0)
        return sm_fail(st, "%s: needs at least one timed run", impl->name);
    double time_s;
    if (load_input(impl, ctx, count, host, rank, st) ||
        time_runs(impl, ctx, count, cfg, comm, &time_s, st))
        return -1;
    if (cfg->check && check_run(impl, ctx, count, host, comm, st))
        return -1;
    out->bytes = count * sizeof(float);
    out->ranks = n;
    out->time_s = time_s;
    out->algbw_gb_s = time_s > 0 ? (double)out->bytes / time_s / 1e9 : 0;
    out->busbw_gb_s = out->algbw_gb_s * 2.0 * (n - 1) / n;
    out->checked = cfg->check != 0;
    return 0;
}
