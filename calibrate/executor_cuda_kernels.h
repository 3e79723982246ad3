/*
 * The GPU executor's own kernels (executor_cuda_kernels.cu): the loss and the optimiser, which
 * belong to the training step rather than to any layer. Launchers enqueue on the stream and
 * return cudaGetLastError().
 */
#ifndef SCALEMETER_EXECUTOR_CUDA_KERNELS_H
#define SCALEMETER_EXECUTOR_CUDA_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Softmax cross-entropy of y (rows x classes) against labels: row_loss[r] = log sum exp y_r -
 * y_r[label_r], and dy = (softmax(y_r) - onehot(label_r)) / rows, as sm_executor_loss. */
cudaError_t smx_softmax_cross_entropy(float *dy, float *row_loss, const float *y,
                                      const int32_t *labels, int64_t rows, int64_t classes,
                                      cudaStream_t s);
/* *total = sum of v[0..n) / n, in double. */
cudaError_t smx_mean(double *total, const float *v, int64_t n, cudaStream_t s);
/* w -= lr * g over n floats (torch.optim.SGD without momentum). */
cudaError_t smx_sgd(float *w, const float *g, int64_t n, float lr, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
