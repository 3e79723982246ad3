/*
 * The CUDA kernels of embedding (embedding_gpu.cu): the row gather and its scatter-add. C
 * launchers for embedding_gpu.c; each enqueues its kernel on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_EMBEDDING_GPU_H
#define SCALEMETER_PLUGINS_EMBEDDING_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[i][j] = table[token(x[i])][j] for i < positions, j < dim (embedding.h's token ids). */
cudaError_t smk_embedding_forward(float *y, const float *x, const float *table, int64_t positions,
                                  int64_t vocab, int64_t dim, cudaStream_t s);
/* dtable[token(x[i])][j] += dy[i][j]; the caller zeroes dtable first. */
cudaError_t smk_embedding_backward(float *dtable, const float *dy, const float *x,
                                   int64_t positions, int64_t vocab, int64_t dim, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
