/*
 * The GPU backend of the step benchmark (bench_cuda.h, bench.h): the GPU executor's phases
 * enqueued on its stream, gradients summed with NCCL on the same stream, timestamps as CUDA
 * events. And the job around it, and the cuda row of bench's backend table.
 */
#include "bench_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench_backend.h"
#include "cuda_device.h"
#include "scalemeter/fit.h"

typedef struct cuda_bench {
    sm_cuda_executor *ex;
    ncclComm_t nccl;
    cudaStream_t stream;
    cudaEvent_t *events;
    int n_events;
} cuda_bench;

static int cuda_failed(sm_status *st, const char *call, cudaError_t e)
{
    cudaGetLastError();
    return sm_fail(st, "%s: %s", call, cudaGetErrorString(e));
}

static int forward(void *self, int training, sm_status *st)
{
    return sm_cuda_executor_forward(((cuda_bench *)self)->ex, training, st);
}

static int loss(void *self, double *value, sm_status *st)
{
    return sm_cuda_executor_loss(((cuda_bench *)self)->ex, value, st);
}

static int backward(void *self, sm_status *st)
{
    return sm_cuda_executor_backward(((cuda_bench *)self)->ex, st);
}

static void next_seed(void *self) { sm_cuda_executor_next_seed(((cuda_bench *)self)->ex); }

static float *grads(void *self, int64_t *n)
{
    return sm_cuda_executor_weight_grads(((cuda_bench *)self)->ex, n);
}

static int allreduce(void *self, float *g, size_t n, sm_status *st)
{
    cuda_bench *b = self;
    ncclResult_t nr = ncclAllReduce(g, g, n, ncclFloat, ncclSum, b->nccl, b->stream);
    return nr == ncclSuccess ? 0 : sm_nccl_failed(st, "ncclAllReduce of the gradients", nr);
}

static int sgd(void *self, float lr, sm_status *st)
{
    return sm_cuda_executor_sgd(((cuda_bench *)self)->ex, lr, st);
}

/* Every stride-th of k gradients to the host (one strided 2-D copy), then waits. */
static int sample(void *self, const float *g, int64_t stride, int k, float *out, sm_status *st)
{
    cuda_bench *b = self;
    cudaError_t e = cudaMemcpy2DAsync(out, sizeof(float), g, (size_t)stride * sizeof(float),
                                      sizeof(float), (size_t)k, cudaMemcpyDeviceToHost, b->stream);
    if (e != cudaSuccess)
        return cuda_failed(st, "cudaMemcpy2DAsync of the gradients", e);
    return sm_cuda_executor_sync(b->ex, st);
}

static int sync_stream(void *self, sm_status *st)
{
    return sm_cuda_executor_sync(((cuda_bench *)self)->ex, st);
}

static int clocks(void *self, int n, sm_status *st)
{
    cuda_bench *b = self;
    if (n <= b->n_events)
        return 0;
    cudaEvent_t *ev = realloc(b->events, (size_t)n * sizeof *ev);
    if (!ev)
        return sm_fail(st, "out of host memory");
    b->events = ev;
    for (; b->n_events < n; b->n_events++) {
        cudaError_t e = cudaEventCreate(&b->events[b->n_events]);
        if (e != cudaSuccess)
            return cuda_failed(st, "cudaEventCreate", e);
    }
    return 0;
}

static int mark(void *self, int i, sm_status *st)
{
    cuda_bench *b = self;
    cudaError_t e = cudaEventRecord(b->events[i], b->stream);
    return e == cudaSuccess ? 0 : cuda_failed(st, "cudaEventRecord", e);
}

static int seconds(void *self, int a, int b, double *s, sm_status *st)
{
    const cuda_bench *c = self;
    float ms;
    cudaError_t e = cudaEventElapsedTime(&ms, c->events[a], c->events[b]);
    if (e != cudaSuccess)
        return cuda_failed(st, "cudaEventElapsedTime", e);
    *s = ms / 1e3;
    return 0;
}

static const sm_bench_ops cuda_ops = {
    .collective = "NCCL",
    .check_tolerance = 1e-4,
    .forward = forward,
    .loss = loss,
    .backward = backward,
    .next_seed = next_seed,
    .grads = grads,
    .allreduce = allreduce,
    .sgd = sgd,
    .sample = sample,
    .sync = sync_stream,
    .clocks = clocks,
    .mark = mark,
    .seconds = seconds,
};

int sm_bench_cuda(sm_cuda_executor *ex, const sm_bench_config *cfg, ncclComm_t nccl,
                  sm_energy_meter *meter, MPI_Comm comm, sm_bench_progress_fn progress, void *ctx,
                  sm_bench_result *out, sm_status *st)
{
    int ranks;
    MPI_Comm_size(comm, &ranks);
    if (ranks > 1 && !nccl)
        return sm_fail(st, "%d ranks but no NCCL communicator", ranks);
    cuda_bench b = {ex, nccl, (cudaStream_t)sm_cuda_executor_stream(ex), NULL, 0};
    int rc = sm_bench_run(&cuda_ops, &b, cfg, meter, comm, progress, ctx, out, st);
    for (int i = 0; i < b.n_events; i++)
        cudaEventDestroy(b.events[i]);
    free(b.events);
    return rc;
}

int sm_cuda_job_open(MPI_Comm comm, sm_cuda_job *job, sm_status *st)
{
    int ranks;
    MPI_Comm_size(comm, &ranks);
    memset(job, 0, sizeof *job);
    if (sm_cuda_select_device(comm, &job->device, st))
        return -1;
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, job->device) == cudaSuccess)
        snprintf(job->device_name, sizeof job->device_name, "%s", p.name);
    else
        snprintf(job->device_name, sizeof job->device_name, "CUDA device %d", job->device);
    if (ranks > 1 && sm_nccl_open(comm, &job->nccl, st))
        return -1;
    char pci[64];
    sm_status why = {""};
    if (sm_cuda_pci_bus_id(job->device, pci, sizeof pci, &why) ||
        sm_energy_open(pci, &job->meter, &why))
        snprintf(job->energy_note, sizeof job->energy_note, "%s", why.msg);
    return 0;
}

void sm_cuda_job_close(sm_cuda_job *job)
{
    sm_nccl_close(job->nccl);
    sm_energy_close(job->meter);
    memset(job, 0, sizeof *job);
}

/* ---- the cuda row of bench's backend table (bench_backend.h) ------------------------------ */

static int cuda_open(MPI_Comm comm, void **job, char *note, size_t note_len, sm_status *st)
{
    *job = NULL;
    if (note_len)
        note[0] = '\0';
    sm_cuda_job *j = calloc(1, sizeof *j);
    int failed = !j, any = failed;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
        free(j);
        return failed ? sm_fail(st, "out of host memory") : (st->msg[0] = '\0', -1);
    }
    if (sm_cuda_job_open(comm, j, st)) {
        free(j);
        if (strstr(st->msg, "another rank failed")) /* the contract: empty on those ranks */
            st->msg[0] = '\0';
        return -1;
    }
    if (!j->meter)
        snprintf(note, note_len, "%s: energy_j stays empty", j->energy_note);
    *job = j;
    return 0;
}

static void cuda_close(void *job)
{
    if (job)
        sm_cuda_job_close(job);
    free(job);
}

static const char *cuda_device_name(const void *job)
{
    return ((const sm_cuda_job *)job)->device_name;
}

/* The executor refuses what exceeds the GPU's free memory itself. */
static int cuda_executor_new(void *job, const sm_network *net, const sm_bench_options *o, void **ex,
                             sm_status *st)
{
    const sm_cuda_job *j = job;
    sm_cuda_executor_options opt = {
        .batch = o->batch,
        .seed = 1,
        .device = j->device,
        .max_bytes = o->max_bytes,
        .name_faults = 1,
        .precision = sm_gpu_precision_parse(o->precision ? o->precision : "fp32"),
        .algo_search = o->conv_algo && !strcmp(o->conv_algo, "heuristic") ? SM_GPU_ALGO_HEURISTIC
                                                                          : SM_GPU_ALGO_MEASURE,
    };
    return sm_cuda_executor_new(net, &opt, (sm_cuda_executor **)ex, st);
}

static void cuda_executor_free(void *ex) { sm_cuda_executor_free(ex); }

/* bench refuses --allreduce with this backend: NCCL sums the gradients */
static const char *cuda_collective(const sm_bench_config *cfg)
{
    (void)cfg;
    return "nccl";
}

static int cuda_run(void *job, void *ex, const sm_bench_config *cfg, MPI_Comm comm,
                    sm_bench_progress_fn progress, void *ctx, sm_bench_result *out, sm_status *st)
{
    const sm_cuda_job *j = job;
    return sm_bench_cuda(ex, cfg, j->nccl, j->meter, comm, progress, ctx, out, st);
}

const sm_bench_backend sm_bench_backend_cuda = {
    .name = "cuda",
    .n_columns = SM_N_RUN_COLS,
    .open = cuda_open,
    .close = cuda_close,
    .device = cuda_device_name,
    .collective = cuda_collective,
    .check = sm_cuda_executor_check,
    .executor_new = cuda_executor_new,
    .executor_free = cuda_executor_free,
    .run = cuda_run,
};
