/*
 * The all-reduce benchmark, split the way nccl-tests splits it: each implementation fills a
 * small table of functions (where its buffer lives, how to run one all-reduce), and one driver
 * (sm_allreduce_measure) owns warm-up, timing and the correctness check for all of them.
 *
 *   ring   our ring all-reduce over MPI point-to-point (allreduce_ring.h)
 *   mpi    MPI_Allreduce, the reference
 *   nccl   ncclAllReduce on the GPU, from the cuda module (allreduce_nccl.c): its buffer
 *          lives on the device, its run is asynchronous and its wait syncs a stream
 */
#ifndef SCALEMETER_ALLREDUCE_H
#define SCALEMETER_ALLREDUCE_H

#include <stddef.h>

#include <mpi.h>

#include "scalemeter/scalemeter.h"

typedef struct sm_allreduce_options {
    size_t chunk_elems; /* ring: floats per pipelined chunk, 0 for the default */
} sm_allreduce_options;

/* One implementation. Every function is collective over comm and returns 0, or -1 with a
 * message in st. `ctx` is what open made; a run sums the first count floats of the buffer over
 * the ranks, in place. */
typedef struct sm_allreduce_impl {
    const char *name;
    const char *summary;
    /* Buffers for up to max_count floats, wherever this implementation reduces them. */
    int (*open)(void **ctx, size_t max_count, MPI_Comm comm, const sm_allreduce_options *opt,
                sm_status *st);
    int (*load)(void *ctx, const float *host, size_t count, sm_status *st);
    /* Starts one all-reduce; it may still be running when this returns (device streams). */
    int (*run)(void *ctx, size_t count, sm_status *st);
    /* Waits until every run started has finished. */
    int (*wait)(void *ctx, sm_status *st);
    int (*store)(void *ctx, float *host, size_t count, sm_status *st);
    void (*close)(void *ctx);
} sm_allreduce_impl;

/* The implementations built into this binary, and one by name (NULL when unknown). */
int sm_allreduce_impl_count(void);
const sm_allreduce_impl *sm_allreduce_impl_at(int i);
const sm_allreduce_impl *sm_allreduce_impl_find(const char *name);
/* Why nccl is not among them ("" when it is): not built, the cuda module's load error, or
 * fewer GPUs than ranks on this host. */
const char *sm_allreduce_nccl_why(void);

typedef struct sm_allreduce_config {
    int warmup, iters; /* untimed runs, then timed runs */
    int check;         /* compare one more run with the exact sum */
} sm_allreduce_config;

typedef struct sm_allreduce_result {
    size_t bytes;
    int ranks;
    double time_s;     /* max over ranks of each rank's mean time per timed run */
    double algbw_gb_s; /* bytes / time_s / 1e9 */
    double busbw_gb_s; /* algbw * 2(n-1)/n: what each link carries (nccl-tests) */
    int checked;
} sm_allreduce_result;

/* Element i of rank r's input: a small integer, so that any summation order gives the exact
 * sum (sm_allreduce_expected) for up to 2^18 ranks. */
float sm_allreduce_input(int rank, size_t i);
float sm_allreduce_expected(int ranks, size_t i);

/* Times count floats on an opened implementation. Collective; on a wrong sum it fails with a
 * message naming the size, the first wrong element, the rank, the value and the expected one.
 * host holds count floats of scratch for loading and checking. */
int sm_allreduce_measure(const sm_allreduce_impl *impl, void *ctx, size_t count, float *host,
                         const sm_allreduce_config *cfg, MPI_Comm comm, sm_allreduce_result *out,
                         sm_status *st);

#endif
