/*
 * The CUDA kernels of rmsnorm (rmsnorm_gpu.cu). C launchers for rmsnorm_gpu.c; each enqueues
 * its kernel on the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_RMSNORM_GPU_H
#define SCALEMETER_PLUGINS_RMSNORM_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y = x r w for rows rows of len values, r = rsqrt(mean(x^2) + eps); rstd (NULL at inference)
 * gets each row's r. */
cudaError_t smk_rmsnorm_forward(float *y, float *rstd, const float *x, const float *w, int64_t rows,
                                int64_t len, float eps, cudaStream_t s);
/* dx += r (dy w - xhat mean(dy w xhat)), xhat = x r. */
cudaError_t smk_rmsnorm_backward(float *dx, const float *dy, const float *x, const float *rstd,
                                 const float *w, int64_t rows, int64_t len, cudaStream_t s);
/* dw = sum over rows of dy xhat (overwritten). */
cudaError_t smk_rmsnorm_weight_grad(float *dw, const float *dy, const float *x, const float *rstd,
                                    int64_t rows, int64_t len, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
