/*
 * The few GPU operations neither cuDNN nor cuBLAS has, as CUDA kernels (plugins/NAME/NAME_gpu.cu)
 * with C launchers for the plugins' host code (plugins/NAME/NAME_gpu.c). Each launcher enqueues its
 * kernel on the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 * Tensors are fp32, contiguous, batch first; counts are int64 (kernels loop grid-stride over
 * any size).
 *
 *   gpu_copy.cu            accumulate (dx += dy), 2-D strided accumulate (concat), permute
 *                          (permute, channel_shuffle)
 *   activation_gpu.cu      silu, gelu, hardswish, hardsigmoid (cuDNN has relu, relu6 as clipped
 *                          relu, sigmoid, tanh)
 *   elementwise_gpu.cu     add and mul with broadcasting, and their reductions back to a
 *                          broadcast input
 *   dropout_gpu.cu         dropout with the CPU kernel's counter-based mask
 *   pool2d_gpu.cu          max and average pooling where cuDNN's windows do not fit (ceil_mode,
 *                          dilation)
 *   adaptive_avgpool2d_gpu.cu  adaptive average pooling where the sizes do not divide
 *   layernorm_gpu.cu       layer normalisation (no legacy cuDNN call has it)
 *   linear_gpu.cu          bias rows and column sums around cuBLAS's GEMMs
 */
#ifndef SCALEMETER_PLUGINS_GPU_OPS_H
#define SCALEMETER_PLUGINS_GPU_OPS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

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

/* ---- activation_gpu.cu (built once per activation, with its SM_ACTIVATION_<TYPE>) ---- */
/* y = f(x); dx += dy f'(x). */
cudaError_t smk_activation_forward(float *y, const float *x, int64_t n, cudaStream_t s);
cudaError_t smk_activation_backward(float *dx, const float *dy, const float *x, int64_t n,
                                    cudaStream_t s);

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

/* ---- dropout_gpu.cu ---- */
/* keep[i] = hash(seed, i) >> 11 >= threshold (the CPU kernel's mask); y = keep ? x scale : 0. */
cudaError_t smk_dropout_forward(float *y, uint8_t *keep, const float *x, int64_t n, uint64_t seed,
                                uint64_t threshold, float scale, cudaStream_t s);
/* dx += keep ? dy scale : 0. */
cudaError_t smk_dropout_backward(float *dx, const float *dy, const uint8_t *keep, int64_t n,
                                 float scale, cudaStream_t s);

/* ---- pool2d_gpu.cu ---- */
typedef struct smk_pool_geom {
    int64_t planes, h, w, ho, wo;  /* planes = batch x channels */
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
} smk_pool_geom;
/* Max pooling, padding as -infinity; arg (NULL at inference) gets each output's argmax, the
 * index in its input plane. */
cudaError_t smk_maxpool_forward(float *y, int32_t *arg, const float *x, smk_pool_geom g,
                                cudaStream_t s);
cudaError_t smk_maxpool_backward(float *dx, const float *dy, const int32_t *arg, smk_pool_geom g,
                                 cudaStream_t s);
/* Average pooling with count_include_pad: divisor the window clipped to the padded input. */
cudaError_t smk_avgpool_forward(float *y, const float *x, smk_pool_geom g, cudaStream_t s);
cudaError_t smk_avgpool_backward(float *dx, const float *dy, smk_pool_geom g, cudaStream_t s);

/* ---- adaptive_avgpool2d_gpu.cu ---- */
/* Output (oh, ow) averages rows [floor(oh H / Ho), ceil((oh + 1) H / Ho)), columns likewise. */
cudaError_t smk_adaptive_avgpool_forward(float *y, const float *x, int64_t planes, int64_t h,
                                         int64_t w, int64_t ho, int64_t wo, cudaStream_t s);
cudaError_t smk_adaptive_avgpool_backward(float *dx, const float *dy, int64_t planes, int64_t h,
                                          int64_t w, int64_t ho, int64_t wo, cudaStream_t s);

/* ---- layernorm_gpu.cu ---- */
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

/* ---- linear_gpu.cu ---- */
/* y[r][c] += b[c]; db[c] = sum over r of dy[r][c] (overwritten). */
cudaError_t smk_bias_rows(float *y, const float *b, int64_t rows, int64_t cols, cudaStream_t s);
cudaError_t smk_column_sums(float *db, const float *dy, int64_t rows, int64_t cols,
                            cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
