/*
 * lib/scalemeter/backends/cuda.so (backend_module.h): the GPU backend of bench (bench_cuda.c:
 * the GPU executor over cuDNN and cuBLAS, NCCL, NVML's energy), NCCL's all-reduce for
 * allreduce --impl nccl, and what `backends` and calibrate ask about the devices. The only
 * object that links the CUDA libraries besides the plugins' NAME_gpu.so; cpu.so loads it when
 * a command asks for the GPU.
 */
#include <stdio.h>

#include "allreduce_nccl.h"
#include "backend_module.h"
#include "bench_backend.h"
#include "bench_cuda.h"
#include "cuda_device.h"

static const sm_allreduce_impl nccl = {
    "nccl",
    "ncclAllReduce of NVIDIA's NCCL on each rank's GPU, bootstrapped over MPI",
    sm_nccl_impl_open,
    sm_nccl_impl_load,
    sm_nccl_impl_run,
    sm_nccl_impl_wait,
    sm_nccl_impl_store,
    sm_nccl_impl_close};

static int describe(sm_backend_row *rows, int max)
{
    if (max < 2)
        return 0;
    rows[0] = (sm_backend_row){"cuda", "compute", 1, 0, ""};
    rows[1] = (sm_backend_row){"nccl", "collective", 1, 0, ""};
    char what[400];
    sm_status st = {""};
    if (sm_cuda_describe(what, sizeof what, &st) == 0) {
        rows[0].usable = rows[1].usable = 1;
        snprintf(rows[0].detail, sizeof rows[0].detail, "cuDNN, cuBLAS; %s", what);
        snprintf(rows[1].detail, sizeof rows[1].detail, "ncclAllReduce, one GPU per rank");
    } else {
        snprintf(rows[0].detail, sizeof rows[0].detail, "%.400s", st.msg);
        snprintf(rows[1].detail, sizeof rows[1].detail, "needs a CUDA device");
    }
    return 2;
}

static int device_name(char *buf, size_t len, sm_status *st)
{
    sm_cuda_info info;
    if (sm_cuda_probe(&info, st))
        return -1;
    snprintf(buf, len, "%s", info.name);
    return 0;
}

const sm_backend_module sm_backend_table_cuda = {
    .abi_version = SM_BACKEND_MODULE_ABI,
    .struct_size = sizeof(sm_backend_module),
    .name = "cuda",
    .describe = describe,
    .bench = &sm_bench_backend_cuda,
    .allreduce = &nccl,
    .device_count = sm_cuda_device_count,
    .device_name = device_name,
};
