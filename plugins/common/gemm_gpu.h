/*
 * The one GPU matrix product of the plugins (darknet's gemm.c): every cuBLAS call of a layer
 * goes through gemm_gpu() or gemm_gpu_batched(), so every product takes the arithmetic and the
 * element type of its precision from one place, gpu_precision.h's table.
 *
 * cuBLAS's conventions, unchanged: column-major operands, C = alpha op(A) op(B) + beta C with C
 * m x n and the inner dimension k. A row-major R x C matrix with row stride ld is the
 * column-major C x R matrix with leading dimension ld, so a row-major Z = X Y is Z^T = Y^T X^T
 * (the callers' comments list their forms). Sizes are int64_t for the callers' arithmetic and
 * cast to cuBLAS's int: each caller checks them against INT_MAX once, in its setup.
 * Header-only and static, as gpu_util.h, so every GPU module stays one self-contained object
 * and no CMake line changes when a plugin starts using it.
 */
#ifndef SCALEMETER_PLUGINS_GEMM_GPU_H
#define SCALEMETER_PLUGINS_GEMM_GPU_H

#include "gpu_precision.h"

/* The arithmetic and element type of every product: gpu_precision.h's row for the layer's
 * precision (checked in setup by gpu_check_precision, so there is one). */
static inline cublasComputeType_t gemm_gpu_compute(const sm_layer_io *l)
{
    return gpu_precision(l)->gemm_compute;
}

static inline cudaDataType_t gemm_gpu_data(const sm_layer_io *l)
{
    return gpu_precision(l)->gemm_data;
}

/* C = alpha op(A) op(B) + beta C for `batch` products whose operands lie sa, sb, sc floats
 * apart (a stride of 0 reuses one matrix), on the layer's stream; -1 with err naming the call. */
static inline int gemm_gpu_batched(const sm_layer_io *l, cublasOperation_t ta, cublasOperation_t tb,
                                   int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                   int64_t lda, int64_t sa, const float *b, int64_t ldb, int64_t sb,
                                   float beta, float *c, int64_t ldc, int64_t sc, int64_t batch,
                                   sm_error *err)
{
    cudaDataType_t t = gemm_gpu_data(l);
    GPU_CUBLAS(err, cublasGemmStridedBatchedEx, gpu_cublas(l), ta, tb, (int)m, (int)n, (int)k,
               &alpha, a, t, (int)lda, (long long)sa, b, t, (int)ldb, (long long)sb, &beta, c, t,
               (int)ldc, (long long)sc, (int)batch, gemm_gpu_compute(l), CUBLAS_GEMM_DEFAULT);
    return 0;
}

/* C = alpha op(A) op(B) + beta C, one product. */
static inline int gemm_gpu(const sm_layer_io *l, cublasOperation_t ta, cublasOperation_t tb,
                           int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                           int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                           int64_t ldc, sm_error *err)
{
    cudaDataType_t t = gemm_gpu_data(l);
    GPU_CUBLAS(err, cublasGemmEx, gpu_cublas(l), ta, tb, (int)m, (int)n, (int)k, &alpha, a, t,
               (int)lda, b, t, (int)ldb, &beta, c, t, (int)ldc, gemm_gpu_compute(l),
               CUBLAS_GEMM_DEFAULT);
    return 0;
}

#endif
