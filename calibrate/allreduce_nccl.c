/*
 * The NCCL all-reduce of the benchmark (allreduce_nccl.h): a device buffer per rank, the
 * communicator bootstrapped over MPI (cuda_device.c), ncclAllReduce in place on a stream of the
 * rank's own.
 */
#include "allreduce_nccl.h"

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "cuda_device.h"

typedef struct nccl_ctx {
    MPI_Comm comm;
    ncclComm_t nccl;
    cudaStream_t stream;
    float *buf; /* device */
    size_t max_count;
} nccl_ctx;

static int cuda_failed(sm_status *st, const char *call, cudaError_t e)
{
    cudaGetLastError();
    return sm_fail(st, "nccl: %s: %s", call, cudaGetErrorString(e));
}

void sm_nccl_impl_close(void *ctx)
{
    nccl_ctx *c = ctx;
    if (!c)
        return;
    if (c->stream)
        cudaStreamSynchronize(c->stream);
    sm_nccl_close(c->nccl);
    cudaFree(c->buf);
    if (c->stream)
        cudaStreamDestroy(c->stream);
    free(c);
}

int sm_nccl_impl_open(void **ctx, size_t max_count, MPI_Comm comm, const sm_allreduce_options *opt,
                      sm_status *st)
{
    (void)opt;
    *ctx = NULL;
    int device, failed = 0;
    if (sm_cuda_select_device(comm, &device, st)) {
        char why[sizeof st->msg];
        snprintf(why, sizeof why, "%s", st->msg);
        return sm_fail(st, "nccl: %s", why);
    }
    nccl_ctx *c = calloc(1, sizeof *c);
    cudaError_t e = cudaSuccess;
    if (!c)
        failed = sm_fail(st, "nccl: out of host memory") != 0;
    else if ((e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking)) != cudaSuccess)
        failed = cuda_failed(st, "cudaStreamCreateWithFlags", e) != 0;
    else if ((e = cudaMalloc((void **)&c->buf, (max_count ? max_count : 1) * sizeof(float))) !=
             cudaSuccess)
        failed = cuda_failed(st, "cudaMalloc of the all-reduce buffer", e) != 0;
    int any = failed;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
        if (!failed)
            sm_fail(st, "nccl: another rank failed (its message comes from it)");
        sm_nccl_impl_close(c);
        return -1;
    }
    c->comm = comm;
    c->max_count = max_count;
    if (sm_nccl_open(comm, &c->nccl, st)) {
        sm_nccl_impl_close(c);
        return -1;
    }
    *ctx = c;
    return 0;
}

static int in_range(const nccl_ctx *c, size_t count, sm_status *st)
{
    if (count <= c->max_count)
        return 0;
    return sm_fail(st, "nccl: %zu floats exceed the %zu the buffer was opened for", count,
                   c->max_count);
}

int sm_nccl_impl_load(void *ctx, const float *host, size_t count, sm_status *st)
{
    nccl_ctx *c = ctx;
    if (in_range(c, count, st))
        return -1;
    cudaError_t e =
        cudaMemcpyAsync(c->buf, host, count * sizeof(float), cudaMemcpyHostToDevice, c->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(c->stream);
    return e == cudaSuccess ? 0 : cuda_failed(st, "cudaMemcpyAsync to the device", e);
}

int sm_nccl_impl_store(void *ctx, float *host, size_t count, sm_status *st)
{
    nccl_ctx *c = ctx;
    if (in_range(c, count, st))
        return -1;
    cudaError_t e =
        cudaMemcpyAsync(host, c->buf, count * sizeof(float), cudaMemcpyDeviceToHost, c->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(c->stream);
    return e == cudaSuccess ? 0 : cuda_failed(st, "cudaMemcpyAsync to the host", e);
}

int sm_nccl_impl_run(void *ctx, size_t count, sm_status *st)
{
    nccl_ctx *c = ctx;
    if (in_range(c, count, st))
        return -1;
    ncclResult_t r = ncclAllReduce(c->buf, c->buf, count, ncclFloat, ncclSum, c->nccl, c->stream);
    return r == ncclSuccess ? 0 : sm_nccl_failed(st, "nccl: ncclAllReduce", r);
}

int sm_nccl_impl_wait(void *ctx, sm_status *st)
{
    nccl_ctx *c = ctx;
    cudaError_t e = cudaStreamSynchronize(c->stream);
    return e == cudaSuccess ? 0 : cuda_failed(st, "cudaStreamSynchronize", e);
}
