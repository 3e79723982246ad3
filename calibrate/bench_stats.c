/* What every step benchmark (bench_cpu.c, bench_cuda.c) decides alike: how many repetitions
 * to time, and how the ranks' times of each repetition become one number (bench.h). */
#include "bench.h"

#include <math.h>

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

void sm_bench_reduce_times(MPI_Comm comm, int ranks, double *t, int reps, int cols,
                           double *median)
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
