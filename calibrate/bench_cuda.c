/*
 * The GPU step benchmark (bench_cuda.h): bench_cpu.c's measurement on the GPU executor, timed
 * with CUDA events, gradients summed with NCCL.
 *
 * Every rank runs the same batch with the same weights (same seed), so the first warm-up step
 * can check the all-reduce: each sum must be `ranks` times the rank's own gradient.
 */
#include "bench_cuda.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_device.h"

typedef struct gpu_run {
    sm_cuda_executor *ex;
    const sm_bench_config *cfg;
    ncclComm_t nccl;
    MPI_Comm comm;
    cudaStream_t stream;
    int rank, ranks;
} gpu_run;

static int cuda_failed(sm_status *st, const char *call, cudaError_t e)
{
    cudaGetLastError();
    return sm_fail(st, "%s: %s", call, cudaGetErrorString(e));
}

/* All ranks learn whether any failed; the message of a rank that did not fail says which. */
static int agree(const gpu_run *r, int failed, sm_status *st)
{
    int any = failed;
    if (r->ranks > 1)
        MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, r->comm);
    if (any && !failed)
        sm_fail(st, "another rank failed (its message comes from it)");
    return any ? -1 : 0;
}

/* The gradients summed over the ranks bucket by bucket, last layers first, then SGD with
 * their mean. Enqueued, not waited for. */
static int grad_sync(const gpu_run *r, sm_status *st)
{
    if (r->ranks > 1) {
        int64_t n;
        float *g = sm_cuda_executor_weight_grads(r->ex, &n);
        int64_t bucket = (int64_t)r->cfg->bucket_floats;
        for (int64_t end = n; end > 0; end -= bucket) {
            int64_t start = end > bucket ? end - bucket : 0;
            ncclResult_t nr = ncclAllReduce(g + start, g + start, (size_t)(end - start),
                                            ncclFloat, ncclSum, r->nccl, r->stream);
            if (nr != ncclSuccess)
                return sm_nccl_failed(st, "ncclAllReduce of the gradients", nr);
        }
    }
    return sm_cuda_executor_sgd(r->ex, r->cfg->lr / (float)r->ranks, st);
}

/* One training step between events ev[0..3]: forward and loss, backward, gradient sync. */
static int step(const gpu_run *r, cudaEvent_t ev[4], sm_status *st)
{
    cudaError_t e;
    if ((e = cudaEventRecord(ev[0], r->stream)) != cudaSuccess)
        return cuda_failed(st, "cudaEventRecord", e);
    if (sm_cuda_executor_forward(r->ex, 1, st) || sm_cuda_executor_loss(r->ex, NULL, st))
        return -1;
    if ((e = cudaEventRecord(ev[1], r->stream)) != cudaSuccess)
        return cuda_failed(st, "cudaEventRecord", e);
    if (sm_cuda_executor_backward(r->ex, st))
        return -1;
    if ((e = cudaEventRecord(ev[2], r->stream)) != cudaSuccess)
        return cuda_failed(st, "cudaEventRecord", e);
    if (grad_sync(r, st))
        return -1;
    if ((e = cudaEventRecord(ev[3], r->stream)) != cudaSuccess)
        return cuda_failed(st, "cudaEventRecord", e);
    sm_cuda_executor_next_seed(r->ex);
    return 0;
}

/* Up to this many gradient elements, evenly spaced, are compared after the first all-reduce. */
#define CHECK_SAMPLES 4096

/* Every stride-th of the first k gradients, to the host (a strided 2-D copy). */
static int sample_grads(const gpu_run *r, int64_t stride, int k, float *out, sm_status *st)
{
    int64_t n;
    const float *g = sm_cuda_executor_weight_grads(r->ex, &n);
    cudaError_t e = cudaMemcpy2DAsync(out, sizeof(float), g, (size_t)stride * sizeof(float),
                                      sizeof(float), (size_t)k, cudaMemcpyDeviceToHost, r->stream);
    if (e != cudaSuccess)
        return cuda_failed(st, "cudaMemcpy2DAsync of the gradients", e);
    return sm_cuda_executor_sync(r->ex, st);
}

/* The first warm-up step, its all-reduce checked: each sum must be ranks x our own gradient.
 * Every rank computes the same gradients up to the order of floating-point sums (cuDNN's
 * algorithms may use atomics), hence a tolerance scaled by the gradients' size. */
static int checked_step(const gpu_run *r, double *loss, sm_status *st)
{
    int64_t n;
    sm_cuda_executor_weight_grads(r->ex, &n);
    int64_t stride = n > CHECK_SAMPLES ? n / CHECK_SAMPLES : 1;
    int k = (int)((n + stride - 1) / stride < CHECK_SAMPLES ? (n + stride - 1) / stride
                                                             : CHECK_SAMPLES);
    static float own[CHECK_SAMPLES], sum[CHECK_SAMPLES];
    int failed = sm_cuda_executor_forward(r->ex, 1, st) || sm_cuda_executor_loss(r->ex, loss, st) ||
                 sm_cuda_executor_backward(r->ex, st) || (k && sample_grads(r, stride, k, own, st));
    if (agree(r, failed, st))
        return -1;
    failed = grad_sync(r, st) || (k && sample_grads(r, stride, k, sum, st));
    double scale = 0;
    for (int i = 0; i < k; i++)
        scale += (double)own[i] * own[i];
    scale = k ? sqrt(scale / k) : 0;
    for (int i = 0; i < k && !failed; i++) {
        double want = (double)own[i] * r->ranks;
        if (fabs(sum[i] - want) > 1e-4 * r->ranks * (fabs(own[i]) + scale) + 1e-30) {
            sm_fail(st,
                    "the NCCL all-reduce summed gradient %lld to %.9g on rank %d, expected "
                    "%.9g (%d ranks x %.9g)",
                    (long long)(i * stride), (double)sum[i], r->rank, want, r->ranks,
                    (double)own[i]);
            failed = 1;
        }
    }
    if (agree(r, failed, st))
        return -1;
    sm_cuda_executor_next_seed(r->ex);
    return 0;
}

static int warm_up(const gpu_run *r, double *estimate, double *loss, sm_status *st)
{
    cudaEvent_t ev[4];
    int made = 0;
    int failed = 0;
    for (; made < 4 && !failed; made++)
        if (cudaEventCreate(&ev[made]) != cudaSuccess)
            failed = sm_fail(st, "cudaEventCreate failed") != 0;
    double t0 = MPI_Wtime();
    if (agree(r, failed, st) || checked_step(r, loss, st))
        goto fail;
    for (int i = 1; i < r->cfg->warmup; i++) {
        t0 = MPI_Wtime();
        failed = step(r, ev, st) || sm_cuda_executor_sync(r->ex, st);
        if (agree(r, failed, st))
            goto fail;
    }
    failed = sm_cuda_executor_forward(r->ex, 0, st) || sm_cuda_executor_sync(r->ex, st);
    if (agree(r, failed, st))
        goto fail;
    double mine = MPI_Wtime() - t0, slowest = mine;
    if (r->ranks > 1)
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    *estimate = slowest;
    for (int i = 0; i < made; i++)
        cudaEventDestroy(ev[i]);
    return 0;
fail:
    for (int i = 0; i < made; i++)
        cudaEventDestroy(ev[i]);
    return -1;
}

/* The job's joules: every rank's, summed; NAN unless every rank measured. */
static double job_energy(const gpu_run *r, double mine)
{
    double have = isnan(mine) ? 0 : 1, all = have, total = isnan(mine) ? 0 : mine;
    if (r->ranks > 1) {
        MPI_Allreduce(&have, &all, 1, MPI_DOUBLE, MPI_MIN, r->comm);
        MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, r->comm);
    }
    return all > 0 ? total : NAN;
}

/* Waits for the device, then for every rank: the repetitions start together. */
static int line_up(const gpu_run *r, sm_status *st)
{
    if (sm_cuda_executor_sync(r->ex, st))
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
static int untimed(const gpu_run *r, int training, sm_status *st)
{
    if (!training)
        return sm_cuda_executor_forward(r->ex, 0, st);
    if (sm_cuda_executor_forward(r->ex, 1, st) || sm_cuda_executor_loss(r->ex, NULL, st) ||
        sm_cuda_executor_backward(r->ex, st) || grad_sync(r, st))
        return -1;
    sm_cuda_executor_next_seed(r->ex);
    return 0;
}

/* The untimed repetitions that bring the energy window of `reps` repetitions lasting `window`
 * seconds up to ENERGY_MIN_WINDOW_S; the same number on every rank (the steps all-reduce),
 * 0 where no rank measures energy. */
static int extra_repetitions(const gpu_run *r, int measuring, int reps, double window)
{
    double need = 0;
    if (measuring && window < ENERGY_MIN_WINDOW_S)
        need = window > 0 ? ceil((ENERGY_MIN_WINDOW_S - window) / (window / reps))
                          : ENERGY_MAX_EXTRA;
    need = need > ENERGY_MAX_EXTRA ? ENERGY_MAX_EXTRA : need;
    if (r->ranks > 1)
        MPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    return (int)need;
}

/* reps training steps (training = 1, events ev[4 i .. 4 i + 3]) or inference passes (ev[2 i],
 * ev[2 i + 1]), then their times in t (4 or 1 per repetition), and the joules one of them used
 * over an energy window of *window seconds (the timed repetitions and the untimed ones that
 * make it at least ENERGY_MIN_WINDOW_S). */
static int timed(const gpu_run *r, int training, int reps, cudaEvent_t *ev,
                 sm_energy_meter *meter, double *t, double *joules, double *window,
                 sm_status *st)
{
    *joules = *window = NAN;
    if (line_up(r, st))
        return -1;
    if (meter && sm_energy_start(meter, st))
        meter = NULL; /* energy is a bonus: the times still count */
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++) {
        if (i && line_up(r, st))
            return -1;
        if (training) {
            if (step(r, ev + 4 * i, st))
                return -1;
            continue;
        }
        cudaError_t e = cudaEventRecord(ev[2 * i], r->stream);
        if (e != cudaSuccess)
            return cuda_failed(st, "cudaEventRecord", e);
        if (sm_cuda_executor_forward(r->ex, 0, st))
            return -1;
        if ((e = cudaEventRecord(ev[2 * i + 1], r->stream)) != cudaSuccess)
            return cuda_failed(st, "cudaEventRecord", e);
    }
    if (sm_cuda_executor_sync(r->ex, st))
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
        if (sm_cuda_executor_sync(r->ex, st))
            return -1;
        done += extra;
    }
    double j;
    if (meter && sm_energy_stop(meter, &j, st) == 0) {
        *joules = j / done;
        *window = MPI_Wtime() - t0;
    }
    for (int i = 0; i < reps; i++) {
        float ms[3];
        int per = training ? 4 : 2;
        for (int k = 0; k + 1 < per; k++) {
            cudaError_t e = cudaEventElapsedTime(&ms[k], ev[per * i + k], ev[per * i + k + 1]);
            if (e != cudaSuccess)
                return cuda_failed(st, "cudaEventElapsedTime", e);
        }
        if (training) {
            t[4 * i] = ms[0] / 1e3;
            t[4 * i + 1] = ms[1] / 1e3;
            t[4 * i + 2] = ms[2] / 1e3;
            t[4 * i + 3] = ((double)ms[0] + ms[1] + ms[2]) / 1e3;
        } else {
            t[i] = ms[0] / 1e3;
        }
    }
    return 0;
}

int sm_bench_cuda(sm_cuda_executor *ex, const sm_bench_config *cfg, ncclComm_t nccl,
                  sm_energy_meter *meter, MPI_Comm comm, sm_bench_progress_fn progress,
                  void *ctx, sm_bench_cuda_result *out, sm_status *st)
{
    gpu_run r = {ex, cfg, nccl, comm, (cudaStream_t)sm_cuda_executor_stream(ex), 0, 1};
    MPI_Comm_rank(comm, &r.rank);
    MPI_Comm_size(comm, &r.ranks);
    memset(out, 0, sizeof *out);
    out->energy_j = out->energy_infer_j = NAN;
    out->energy_window_s = out->energy_infer_window_s = NAN;
    if (r.ranks > 1 && !nccl)
        return sm_fail(st, "%d ranks but no NCCL communicator", r.ranks);
    double estimate = 0, *t = NULL, m[4], joules, window;
    cudaEvent_t *ev = NULL;
    int made = 0, rc = -1;
    if (progress)
        progress(ctx, "warm-up", cfg->warmup);
    if (warm_up(&r, &estimate, &out->time.loss, st))
        return -1;
    int reps = sm_bench_repetitions(cfg, estimate);
    if (reps > 256)
        reps = 256;
    rc = SM_BENCH_RANK_FAILED; /* from here on the others may wait in a collective */
    t = malloc((size_t)reps * 4 * sizeof *t);
    ev = calloc((size_t)reps * 4, sizeof *ev);
    if (!t || !ev) {
        sm_fail(st, "out of host memory");
        goto done;
    }
    for (; made < reps * 4; made++)
        if (cudaEventCreate(&ev[made]) != cudaSuccess) {
            sm_fail(st, "cudaEventCreate failed");
            goto done;
        }
    if (progress)
        progress(ctx, "training", reps);
    if (timed(&r, 1, reps, ev, meter, t, &joules, &window, st))
        goto done;
    out->energy_j = job_energy(&r, joules);
    out->energy_window_s = window;
    sm_bench_reduce_times(r.comm, r.ranks, t, reps, 4, m);
    out->time.t_fwd = m[0];
    out->time.t_bwd = m[1];
    out->time.t_grad = m[2];
    out->time.t_step = m[3];
    if (progress)
        progress(ctx, "inference", reps);
    if (timed(&r, 0, reps, ev, meter, t, &joules, &window, st))
        goto done;
    out->energy_infer_j = job_energy(&r, joules);
    out->energy_infer_window_s = window;
    sm_bench_reduce_times(r.comm, r.ranks, t, reps, 1, m);
    out->time.t_infer = m[0];
    out->time.reps = reps;
    rc = 0;
done:
    for (int i = 0; i < made; i++)
        cudaEventDestroy(ev[i]);
    free(ev);
    free(t);
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
