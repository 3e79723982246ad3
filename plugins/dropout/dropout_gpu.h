/*
 * The CUDA kernels of dropout (dropout_gpu.cu): dropout with the CPU kernel's counter-based mask.
 * C launchers for dropout_gpu.c; each enqueues its kernel on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_DROPOUT_GPU_H
#define SCALEMETER_PLUGINS_DROPOUT_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* keep[i] = hash(seed, i) >> 11 >= threshold (the CPU kernel's mask); y = keep ? x scale : 0. */
cudaError_t smk_dropout_forward(float *y, uint8_t *keep, const float *x, int64_t n, uint64_t seed,
                                uint64_t threshold, float scale, cudaStream_t s);
/* dx += keep ? dy scale : 0. */
cudaError_t smk_dropout_backward(float *dx, const float *dy, const uint8_t *keep, int64_t n,
                                 float scale, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
