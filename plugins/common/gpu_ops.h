/*
 * The GPU operations neither cuDNN nor cuBLAS has that several types share, as CUDA kernels
 * (the .cu files of plugins/common/) with C launchers for the plugins' host code. Each launcher
 * enqueues its kernel on the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h)
 * checks it.
 * Tensors are fp32, contiguous, batch first; counts are int64 (kernels loop grid-stride over
 * any size). A type's own CUDA kernels are declared in its folder (plugins/NAME/NAME_gpu.h).
 *
 *   gpu_copy.cu            accumulate (dx += dy), 2-D strided accumulate (concat), permute
 *                          (permute, channel_shuffle)
 *   elementwise_gpu.cu     add and mul with broadcasting, and their reductions back to a
 *                          broadcast input (add, mul, layer_scale)
 *   rows_gpu.cu            a bias over the rows of a matrix and its gradient (linear, lm_head,
 *                          attention, window_attention, the recurrent types)
 *   norm_rows_gpu.cu       row normalisation and its gradients (layernorm, groupnorm, rmsnorm;
 *                          the rows are norm_rows.h's)
 *   half_cast_gpu.cu       fp32 to fp16 or bf16 copies and back (conv2d at fp16 and bf16)
 */
#ifndef SCALEMETER_PLUGINS_GPU_OPS_H
#define SCALEMETER_PLUGINS_GPU_OPS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "norm_rows.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A walk over an output of up to 5 dimensions (the batch, then 4 of a sample; leading sizes 1)
 * with, for each dimension, the stride of one tensor read along it: 0 where that tensor is
 * broadcast, a permuted stride for a permutation. */
#define SMK_DIMS 5
typedef struct smk_walk {
    int64_t size[SMK_DIMS];
    int64_t stride[SMK_DIMS];
} smk_walk;

/* ---- gpu_copy.cu ---- */
/* dst[i] += src[i], i < n. */
cudaError_t smk_accumulate(float *dst, const float *src, int64_t n, cudaStream_t s);
/* dst[r * dst_pitch + c] += src[r * src_pitch + c] for r < rows, c < cols (pitches in floats). */
cudaError_t smk_accumulate_2d(float *dst, int64_t dst_pitch, const float *src, int64_t src_pitch,
                              int64_t rows, int64_t cols, cudaStream_t s);
/* Output element o (in walk order) is x[offset(o)]: y[o] = x[offset(o)]. */
cudaError_t smk_gather(float *y, const float *x, smk_walk w, cudaStream_t s);
/* The adjoint of a gather that is a permutation: dx[offset(o)] += dy[o]. */
cudaError_t smk_scatter_add(float *dx, const float *dy, smk_walk w, cudaStream_t s);

/* ---- elementwise_gpu.cu ---- */
/* y[o] = x[offset(o)] (add = 0) or y[o] += x[offset(o)] (add = 1); y walks in order. */
cudaError_t smk_broadcast_add(float *y, const float *x, smk_walk wx, int add, cudaStream_t s);
/* y[o] = a[offset_a(o)] * b[offset_b(o)]. */
cudaError_t smk_broadcast_mul(float *y, const float *a, smk_walk wa, const float *b, smk_walk wb,
                              cudaStream_t s);
/* dx[o] += dy[o] * other[offset(o)] for an input dx as large as the output (no broadcast). */
cudaError_t smk_mul_accumulate(float *dx, const float *dy, const float *other, smk_walk wo,
                               cudaStream_t s);
/* The gradient of an input broadcast over the output (its walk wx has stride 0 along the
 * dimensions it is broadcast on): dx[j] += sum over the outputs o read from j of dy[o], times
 * other[offset_o(o)] when other is not NULL (mul). One block per element of dx. */
cudaError_t smk_reduce_to_input(float *dx, const float *dy, smk_walk wx, const float *other,
                                smk_walk wo, cudaStream_t s);

/* ---- rows_gpu.cu ---- */
/* y[r ld + c] += b[c] for r < rows, c < cols. */
cudaError_t smk_bias_rows(float *y, int64_t ld, const float *b, int64_t rows, int64_t cols,
                          cudaStream_t s);
/* db[c] = sum over r < rows of dy[r ld + c], c < cols (overwritten). */
cudaError_t smk_column_sums(float *db, const float *dy, int64_t ld, int64_t rows, int64_t cols,
                            cudaStream_t s);

/* ---- norm_rows_gpu.cu ---- */
/* y = xhat gamma + beta per row, xhat = (x - mean) rstd, or x rstd when not centred (gamma
 * NULL: y = xhat; beta NULL: no shift); stats (NULL at inference) gets each row's
 * norm_rows_stats floats: mean and rstd, or rstd. */
cudaError_t smk_norm_rows_forward(float *y, float *stats, const float *x, const float *gamma,
                                  const float *beta, norm_rows g, float eps, cudaStream_t s);
/* dx += rstd (g - mean(g) - xhat mean(g xhat)) over each row, g = dy gamma (no mean(g) when
 * not centred). */
cudaError_t smk_norm_rows_backward(float *dx, const float *dy, const float *x, const float *stats,
                                   const float *gamma, norm_rows g, cudaStream_t s);
/* dgamma = sum of dy xhat, dbeta = sum of dy (NULL: none) over the values of each gamma
 * (overwritten). */
cudaError_t smk_norm_rows_params(float *dgamma, float *dbeta, const float *dy, const float *x,
                                 const float *stats, norm_rows g, cudaStream_t s);

/* ---- half_cast_gpu.cu ---- */
/* dst[i] = src[i] rounded to bf16 (bf16 = 1) or fp16 (0), nearest even; dst holds n halves. */
cudaError_t smk_to_half(void *dst, const float *src, int64_t n, int bf16, cudaStream_t s);
/* dst[i] = (accumulate ? dst[i] : 0) + src[i], src n bf16 or fp16 values. */
cudaError_t smk_from_half(float *dst, const void *src, int64_t n, int bf16, int accumulate,
                          cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
