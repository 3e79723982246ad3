/*
 * CUDA devices and the NCCL bootstrap (cuda_device.h). A rank's device follows from what the
 * ranks that share its host (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED) see (gpu_choice.h):
 * its own device 0 where the launcher gave each rank its own, else its rank among them; more
 * ranks than GPUs on a host are refused, since NCCL refuses two ranks on one GPU and their
 * timings would mix.
 */
#include "cuda_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "gpu_choice.h"

static int cuda_failed(sm_status *st, const char *call, cudaError_t e)
{
    return sm_fail(st, "%s: %s", call, cudaGetErrorString(e));
}

int sm_nccl_failed(sm_status *st, const char *call, ncclResult_t r)
{
    const char *last = ncclGetLastError(NULL);
    return sm_fail(st, "%s: %s%s%s", call, ncclGetErrorString(r), last && *last ? ": " : "",
                   last ? last : "");
}

int sm_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        n = 0;
    }
    return n;
}

int sm_cuda_probe(sm_cuda_info *info, sm_status *st)
{
    memset(info, 0, sizeof *info);
    cudaDriverGetVersion(&info->driver);
    cudaRuntimeGetVersion(&info->runtime);
    cudaError_t e = cudaGetDeviceCount(&info->count);
    if (e != cudaSuccess) {
        info->count = 0;
        cudaGetLastError(); /* clear it: a later call must not see it */
        return sm_fail(st, "no CUDA device: cudaGetDeviceCount: %s", cudaGetErrorString(e));
    }
    if (info->count < 1)
        return sm_fail(st, "no CUDA device: cudaGetDeviceCount found none");
    struct cudaDeviceProp p;
    if ((e = cudaGetDeviceProperties(&p, 0)) != cudaSuccess)
        return cuda_failed(st, "cudaGetDeviceProperties", e);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->major = p.major;
    info->minor = p.minor;
    info->memory_gb = (double)p.totalGlobalMem / 1e9;
    return 0;
}

int sm_cuda_describe(char *buf, size_t len, sm_status *st)
{
    sm_cuda_info info;
    if (sm_cuda_probe(&info, st))
        return -1;
    size_t cudnn = cudnnGetVersion();
    int nccl = 0;
    ncclGetVersion(&nccl);
    /* cuDNN 9 writes 9.19.0 as 91900; NCCL 2.19 and later 2.28.3 as 22803 */
    snprintf(buf, len,
             "%d device%s: %s (sm_%d%d, %.1f GB); CUDA %d.%d (driver %d.%d), cuDNN %zu.%zu.%zu, "
             "NCCL %d.%d.%d",
             info.count, info.count == 1 ? "" : "s", info.name, info.major, info.minor,
             info.memory_gb, info.runtime / 1000, info.runtime % 1000 / 10, info.driver / 1000,
             info.driver % 1000 / 10, cudnn / 10000, cudnn % 10000 / 100, cudnn % 100, nccl / 10000,
             nccl % 10000 / 100, nccl % 100);
    return 0;
}

/* All ranks learn whether any failed; one that did not says so. */
static int agree(MPI_Comm comm, int failed, sm_status *st)
{
    int any = failed;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any && !failed)
        sm_fail(st, "another rank failed (its message comes from it)");
    return any ? -1 : 0;
}

int sm_cuda_select_device(MPI_Comm comm, int *device, sm_status *st)
{
    MPI_Comm local = MPI_COMM_NULL;
    int local_rank = 0, local_size = 1, failed = 0;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) != MPI_SUCCESS)
        local = MPI_COMM_NULL;
    if (local != MPI_COMM_NULL) {
        MPI_Comm_rank(local, &local_rank);
        MPI_Comm_size(local, &local_size);
    }
    /* what this rank sees, by PCI bus id, and then what every rank of the host sees */
    sm_gpu_view mine;
    memset(&mine, 0, sizeof mine);
    cudaError_t e = cudaGetDeviceCount(&mine.count);
    if (e != cudaSuccess) {
        failed = 1;
        sm_fail(st, "no CUDA device: cudaGetDeviceCount: %s", cudaGetErrorString(e));
        cudaGetLastError();
        mine.count = 0;
    }
    for (int i = 0; i < mine.count && i < SM_GPU_VIEW_MAX && !failed; i++)
        if ((e = cudaDeviceGetPCIBusId(mine.ids[i], (int)sizeof mine.ids[i], i)) != cudaSuccess)
            failed = cuda_failed(st, "cudaDeviceGetPCIBusId", e) != 0;
    sm_gpu_view *views = calloc((size_t)local_size, sizeof *views);
    if (!views) {
        failed = 1;
        sm_fail(st, "out of memory");
    } else if (local == MPI_COMM_NULL) {
        views[0] = mine;
    } else if (MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, views, (int)sizeof mine, MPI_BYTE,
                             local) != MPI_SUCCESS) {
        failed = 1;
        sm_fail(st, "MPI_Allgather of the ranks' GPUs failed");
    }
    if (local != MPI_COMM_NULL)
        MPI_Comm_free(&local);
    if (!failed)
        failed = sm_gpu_choose(views, local_size, local_rank, device, st) != 0;
    free(views);
    if (!failed && (e = cudaSetDevice(*device)) != cudaSuccess)
        failed = cuda_failed(st, "cudaSetDevice", e) != 0;
    return agree(comm, failed, st);
}

int sm_cuda_pci_bus_id(int device, char *buf, size_t len, sm_status *st)
{
    cudaError_t e = cudaDeviceGetPCIBusId(buf, (int)len, device);
    return e == cudaSuccess ? 0 : cuda_failed(st, "cudaDeviceGetPCIBusId", e);
}

int sm_nccl_open(MPI_Comm comm, ncclComm_t *out, sm_status *st)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    *out = NULL;
    /* rank 0's id and whether it made one, in one broadcast */
    struct {
        int ok;
        ncclUniqueId id;
    } boot = {1, {{0}}};
    ncclResult_t r = ncclSuccess;
    if (rank == 0 && (r = ncclGetUniqueId(&boot.id)) != ncclSuccess)
        boot.ok = 0;
    if (MPI_Bcast(&boot, (int)sizeof boot, MPI_BYTE, 0, comm) != MPI_SUCCESS)
        return sm_fail(st, "MPI_Bcast of the NCCL unique id failed");
    if (!boot.ok)
        return rank == 0 ? sm_nccl_failed(st, "ncclGetUniqueId", r)
                         : sm_fail(st, "rank 0 could not make the NCCL unique id");
    r = ncclCommInitRank(out, ranks, boot.id, rank);
    int failed = r != ncclSuccess;
    if (failed) {
        sm_nccl_failed(st, "ncclCommInitRank", r);
        *out = NULL;
    }
    if (agree(comm, failed, st)) {
        if (*out)
            ncclCommAbort(*out); /* Destroy would wait for the ranks that failed */
        *out = NULL;
        return -1;
    }
    return 0;
}

void sm_nccl_close(ncclComm_t comm)
{
    if (comm)
        ncclCommDestroy(comm);
}
