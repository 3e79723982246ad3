/*
 * CUDA devices for the calibration backends: what this process sees, which device each MPI
 * rank takes, and the NCCL communicator of a job, bootstrapped over MPI.
 *
 * Functions return 0, or -1 with a one-line message in an sm_status; the collective ones fail
 * on every rank together, and a rank that did not fail says that another one did.
 */
#ifndef SCALEMETER_CUDA_DEVICE_H
#define SCALEMETER_CUDA_DEVICE_H

#include <stddef.h>

#include <mpi.h>
#include <nccl.h>

#include "scalemeter/scalemeter.h"

typedef struct sm_cuda_info {
    int count;           /* devices visible to this process */
    char name[256];      /* of device 0 */
    int major, minor;    /* its compute capability */
    double memory_gb;    /* its memory, 1e9 bytes */
    int driver, runtime; /* versions, as 12080 for 12.8 */
} sm_cuda_info;

/* Devices visible now; 0 where there is no driver or no device. */
int sm_cuda_device_count(void);

/* The devices visible now: 0 with info filled, or -1 saying why there are none (no driver, no
 * device, CUDA_VISIBLE_DEVICES empty). Starts no MPI. */
int sm_cuda_probe(sm_cuda_info *info, sm_status *st);

/* One line for `scalemeter backends`: "1 device: NVIDIA H100 80GB HBM3 (sm_90, 85.0 GB); CUDA
 * 13.0 (driver 13.0), cuDNN 9.19.0, NCCL 2.28.3", or -1 saying why no device is usable. */
int sm_cuda_describe(char *buf, size_t len, sm_status *st);

/* The device of this rank (gpu_choice.h): device 0 where each rank of its host sees devices of
 * its own (srun --gpus-per-task=1), else its rank among the ranks of its host; more ranks on a
 * host than devices is an error. Made current with cudaSetDevice. Collective over comm. */
int sm_cuda_select_device(MPI_Comm comm, int *device, sm_status *st);

/* The PCI bus id of a device ("0000:3b:00.0"), by which NVML finds the same device whatever
 * CUDA_VISIBLE_DEVICES renumbers. */
int sm_cuda_pci_bus_id(int device, char *buf, size_t len, sm_status *st);

/* One NCCL communicator over comm's ranks, each on its current device: rank 0 makes the
 * unique id (ncclGetUniqueId), MPI_Bcast hands it to the others, every rank joins
 * (ncclCommInitRank). Collective over comm. */
int sm_nccl_open(MPI_Comm comm, ncclComm_t *out, sm_status *st);
void sm_nccl_close(ncclComm_t comm);

/* "ncclAllReduce: unhandled cuda error (...)": a failed NCCL call as one message. */
int sm_nccl_failed(sm_status *st, const char *call, ncclResult_t r);

#endif
