/*
 * The CUDA kernels of window_partition (window_partition_gpu.cu): the index shuffle of
 * window_partition.h. C launchers for window_partition_gpu.c; each enqueues its kernel on the
 * stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_WINDOW_PARTITION_GPU_H
#define SCALEMETER_PLUGINS_WINDOW_PARTITION_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* n samples C x H x W into windows of p x p: y = the windows of x (backward = 0), or
 * x += the gradient of the windows y back at their pixels (backward = 1). */
cudaError_t smk_partition(float *x, float *y, int64_t n, int64_t c, int64_t h, int64_t w, int64_t p,
                          int backward, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
