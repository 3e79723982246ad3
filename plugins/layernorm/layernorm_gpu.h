/*
 * The CUDA kernels of layernorm (layernorm_gpu.cu): layer normalisation (no legacy cuDNN call has
 * it). C launchers for layernorm_gpu.c; each enqueues its kernel on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_LAYERNORM_GPU_H
#define SCALEMETER_PLUGINS_LAYERNORM_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rows rows of len values, stride apart; row r of sample n = r / per_sample starts at
 * n * sample + r % per_sample when stride > 1, at r * len when stride == 1. */
typedef struct smk_rows {
    int64_t rows, len, stride, per_sample, sample;
} smk_rows;
/* y = (x - mean) rstd * gamma + beta (gamma NULL: no affine); stats (NULL at inference) gets
 * each row's mean and rstd. */
cudaError_t smk_layernorm_forward(float *y, float *stats, const float *x, const float *gamma,
                                  const float *beta, smk_rows r, float eps, cudaStream_t s);
/* dx += rstd (g - mean(g) - xhat mean(g xhat)), g = dy gamma. */
cudaError_t smk_layernorm_backward(float *dx, const float *dy, const float *x, const float *stats,
                                   const float *gamma, smk_rows r, cudaStream_t s);
/* dgamma = sum over rows of dy xhat, dbeta = sum of dy (overwritten). */
cudaError_t smk_layernorm_params(float *dgamma, float *dbeta, const float *dy, const float *x,
                                 const float *stats, smk_rows r, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
