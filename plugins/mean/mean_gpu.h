/*
 * The CUDA kernels of mean (mean_gpu.cu), with C launchers for mean_gpu.c; each enqueues its
 * kernel on the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it. The
 * input is outer x len x inner (mean.h's mean_split, the batch folded into outer).
 */
#ifndef SCALEMETER_PLUGINS_MEAN_GPU_H
#define SCALEMETER_PLUGINS_MEAN_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[o, i] = (sum over a of x[o, a, i]) / len: one thread per output element. */
cudaError_t smk_mean_forward(float *y, const float *x, int64_t outer, int64_t len, int64_t inner,
                             cudaStream_t s);
/* dx[o, a, i] += dy[o, i] / len: one thread per input element. */
cudaError_t smk_mean_backward(float *dx, const float *dy, int64_t outer, int64_t len, int64_t inner,
                              cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
