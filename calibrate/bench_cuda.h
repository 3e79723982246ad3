/*
 * The GPU backend of the step benchmark: bench.h's measurement on the GPU executor, phases
 * timed by CUDA events on the executor's stream, gradients all-reduced with NCCL bucket by
 * bucket (the update alone with one rank), energy from NVML (nvml_energy.h) when every rank
 * has a meter. And the job around it: each rank's device, the NCCL communicator, the meter.
 */
#ifndef SCALEMETER_BENCH_CUDA_H
#define SCALEMETER_BENCH_CUDA_H

#include <mpi.h>
#include <nccl.h>

#include "bench.h"
#include "executor_cuda.h"
#include "nvml_energy.h"

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

/* Measures one configuration: sm_bench_run over the GPU executor. Collective over comm; nccl
 * joins the same ranks, each on its executor's device (NULL with one rank: nothing to
 * all-reduce); meter may be NULL (no energy). cfg->allreduce is ignored: gradients go through
 * NCCL. Returns as sm_bench_run. */
/* bench's row of this backend (bench_backend.h), which the cuda module hands out. */
extern const struct sm_bench_backend sm_bench_backend_cuda;

int sm_bench_cuda(sm_cuda_executor *ex, const sm_bench_config *cfg, ncclComm_t nccl,
                  sm_energy_meter *meter, MPI_Comm comm, sm_bench_progress_fn progress, void *ctx,
                  sm_bench_result *out, sm_status *st);

#endif
