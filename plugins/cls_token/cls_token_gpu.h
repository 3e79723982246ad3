/*
 * The CUDA kernels of cls_token (cls_token_gpu.cu): the prepend and the token's gradient. C
 * launchers for cls_token_gpu.c; each enqueues its kernel on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_CLS_TOKEN_GPU_H
#define SCALEMETER_PLUGINS_CLS_TOKEN_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each of n samples of y is the e values of token, then the sample's in values of x. */
cudaError_t smk_cls_token_forward(float *y, const float *x, const float *token, int64_t n,
                                  int64_t in, int64_t e, cudaStream_t s);
/* dtoken[c] = sum over the n samples of dy's value c (overwritten), c < e; samples in + e
 * apart. */
cudaError_t smk_cls_token_grad(float *dtoken, const float *dy, int64_t n, int64_t in, int64_t e,
                               cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
