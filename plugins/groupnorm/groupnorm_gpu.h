/*
 * The CUDA kernels of groupnorm (groupnorm_gpu.cu): group normalisation, which no legacy cuDNN
 * call has. C launchers for groupnorm_gpu.c; each enqueues its kernels on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_GROUPNORM_GPU_H
#define SCALEMETER_PLUGINS_GROUPNORM_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rows = batch x groups contiguous rows of len = cpg x spatial values; row r holds the
 * channels (r % groups) cpg .. + cpg - 1 of sample r / groups, spatial values each. */
typedef struct smk_groups {
    int64_t rows, groups, cpg, spatial, len;
} smk_groups;

/* y = (x - mean) rstd gamma[c] + beta[c] (gamma, beta NULL: no affine); stats (NULL at
 * inference) gets each row's mean and rstd. */
cudaError_t smk_groupnorm_forward(float *y, float *stats, const float *x, const float *gamma,
                                  const float *beta, smk_groups g, float eps, cudaStream_t s);
/* dx += rstd (gamma dy - mean(gamma dy) - xhat mean(gamma dy xhat)) over each row. */
cudaError_t smk_groupnorm_backward(float *dx, const float *dy, const float *x, const float *stats,
                                   const float *gamma, smk_groups g, cudaStream_t s);
/* dgamma[c] = sum over samples and spatial of dy xhat, dbeta[c] = sum of dy (overwritten). */
cudaError_t smk_groupnorm_params(float *dgamma, float *dbeta, const float *dy, const float *x,
                                 const float *stats, smk_groups g, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
