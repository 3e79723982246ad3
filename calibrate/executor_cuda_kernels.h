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
/* fp16's loss scale on the device (torch.amp.GradScaler's state): the scale, the clean steps
 * since it last changed, and whether this step's gradients overflowed. */
typedef struct smx_scaler {
    float scale;
    int32_t clean_steps;
    int32_t overflowed;
} smx_scaler;

/* v *= scale over n floats. */
cudaError_t smx_scale(float *v, int64_t n, const smx_scaler *sc, cudaStream_t s);
/* v /= scale over n floats. */
cudaError_t smx_unscale(float *v, int64_t n, const smx_scaler *sc, cudaStream_t s);
/* overflowed = 1 where any of the n floats of v is not finite. */
cudaError_t smx_check_finite(const float *v, int64_t n, smx_scaler *sc, cudaStream_t s);
/* w -= lr * g over n floats (torch.optim.SGD without momentum); nothing where sc is not NULL
 * and its step overflowed. */
cudaError_t smx_sgd(float *w, const float *g, int64_t n, float lr, const smx_scaler *sc,
                    cudaStream_t s);
/* GradScaler's update: an overflowed step halves the scale, `interval` clean ones in a row
 * double it; the next step starts unmarked. */
cudaError_t smx_scaler_update(smx_scaler *sc, int interval, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
