/*
 * The CUDA kernels of gqa_attention (gqa_attention_gpu.cu): the rotary embedding and the causal
 * softmax around cuBLAS's products. C launchers for gqa_attention_gpu.c; each enqueues its
 * kernel on the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_GQA_ATTENTION_GPU_H
#define SCALEMETER_PLUGINS_GQA_ATTENTION_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* In place, the heads of d features in the first width columns of rows rows (row stride ld),
 * row r at position r % s: each pair (gqa_pair_first, + gqa_pair_gap of rope_form) rotated by
 * sign * gqa_angle(theta, d, i, .). */
cudaError_t smk_gqa_rotate(float *m, int64_t rows, int64_t width, int64_t ld, int64_t s, int64_t d,
                           double theta, int rope_form, int sign, cudaStream_t st);
/* In place, rows rows of n scores: softmax, columns j > i (i = row % n) 0 when causal. */
cudaError_t smk_gqa_softmax(float *p, int64_t rows, int64_t n, int causal, cudaStream_t st);
/* In place, dp into dS = P (dP - rowsum(dP P)). */
cudaError_t smk_gqa_softmax_backward(float *dp, const float *p, int64_t rows, int64_t n,
                                     cudaStream_t st);

#ifdef __cplusplus
}
#endif
#endif
