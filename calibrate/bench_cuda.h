/*
 * Timing a training step on the GPU (bench.h's measurement, the GPU executor's steps): warm-up
 * steps, then timed repetitions that start together on every rank (a barrier after the
 * device is idle), each phase timed by CUDA events on the executor's stream, each phase's time
 * the maximum over the ranks and the median over the repetitions, as sm_bench_cpu does.
 *
 *   t_infer  forward pass at inference
 *   t_fwd    forward pass in training mode, with the loss
 *   t_bwd    backward pass through every layer
 *   t_grad   gradients all-reduced with NCCL bucket by bucket (last layers first, as PyTorch's
 *            DistributedDataParallel finds them ready), then the SGD update; the update alone
 *            with one rank
 *   t_step   the three together
 *
 * Energy (nvml_energy.h), when every rank has a meter: the joules of the timed training steps
 * and of the timed inference passes, each divided by the repetitions and summed over the
 * ranks' GPUs: the job's energy per step. The window they are measured over is at least a
 * second (untimed repetitions follow the timed ones where these are shorter), since NVML's
 * counter advances in steps of tens of milliseconds; the window is reported.
 */
#ifndef SCALEMETER_BENCH_CUDA_H
#define SCALEMETER_BENCH_CUDA_H

#include <mpi.h>
#include <nccl.h>

#include "bench.h"
#include "executor_cuda.h"
#include "nvml_energy.h"

typedef struct sm_bench_cuda_result {
    sm_bench_result time;  /* as the CPU benchmark's (loss: of the first warm-up step) */
    double energy_j;       /* per training step, all ranks' GPUs together; NAN: not measured */
    double energy_infer_j; /* per inference pass, likewise */
    double energy_window_s, energy_infer_window_s; /* seconds the joules were taken over (this
                                                      rank's); NAN: not measured */
} sm_bench_cuda_result;

/* What a GPU benchmark holds for its whole run on each rank: the rank's device, the NCCL
 * communicator of all ranks (none with one rank) and the energy meter of the device (none
 * where NVML is unavailable: the energy columns stay empty). */
typedef struct sm_cuda_job {
    int device;
    char device_name[256];
    ncclComm_t nccl;
    sm_energy_meter *meter;
    char energy_note[SM_STATUS_LEN]; /* why there is no meter, for a one-line note */
} sm_cuda_job;

/* Collective over comm: every rank takes its device (cuda_device.h), then the communicator;
 * all ranks fail together, with the message of the rank that failed. */
int sm_cuda_job_open(MPI_Comm comm, sm_cuda_job *job, sm_status *st);
void sm_cuda_job_close(sm_cuda_job *job);

/* Measures one configuration. Collective over comm; nccl joins the same ranks, each on its
 * executor's device (NULL with one rank: nothing to all-reduce); meter may be NULL (no energy).
 * cfg->allreduce is ignored: gradients go through NCCL. Returns 0; -1 with a message when the
 * measurement failed on some rank during the warm-up (all ranks return -1 together); or
 * SM_BENCH_RANK_FAILED when this rank alone failed later (the caller must MPI_Abort). */
int sm_bench_cuda(sm_cuda_executor *ex, const sm_bench_config *cfg, ncclComm_t nccl,
                  sm_energy_meter *meter, MPI_Comm comm, sm_bench_progress_fn progress,
                  void *ctx, sm_bench_cuda_result *out, sm_status *st);

#endif
