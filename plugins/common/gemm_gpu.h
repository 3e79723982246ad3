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
 * At fp16 and bf16 A and B are cast to half-type copies first, as autocast casts them, and the
 * product reads those and writes C in fp32 (cuBLAS's FAST_16F/16BF compute types on fp32
 * operands would leave the choice to cuBLAS, which on an H200 took TF32 kernels). The copies
 * live in stream-ordered allocations (cudaMallocAsync, freed after the product on the same
 * stream), served from the device's memory pool, which the executor keeps from shrinking.
 * Header-only and static, as gpu_util.h, so every GPU module stays one self-contained object;
 * a plugin using it also builds common/half_cast_gpu.cu (the casts).
 */
#ifndef SCALEMETER_PLUGINS_GEMM_GPU_H
#define SCALEMETER_PLUGINS_GEMM_GPU_H

#include "gpu_ops.h"
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

/* Elements from an operand's first to its last, for `batch` matrices `stride` apart, each
 * `rows` x `cols` as stored (column-major, leading dimension ld). */
static inline int64_t gemm_gpu_extent(cublasOperation_t t, int64_t rows, int64_t cols, int64_t ld,
                                      int64_t stride, int64_t batch)
{
    if (t != CUBLAS_OP_N) { /* op(X) is rows x cols: X is stored transposed */
        int64_t r = rows;
        rows = cols;
        cols = r;
    }
    return (batch - 1) * stride + (cols - 1) * ld + rows;
}

/* *copy = a stream-ordered allocation holding the n floats of x cast to the operands' half
 * type; NULL and -1 with err set on failure. */
static inline int gemm_gpu_cast(const sm_layer_io *l, const float *x, int64_t n, void **copy,
                                sm_error *err)
{
    *copy = NULL;
    int bf16 = gpu_precision(l)->gemm_operands == CUDA_R_16BF;
    GPU_CUDA(err, cudaMallocAsync, copy, (size_t)n * 2, gpu_stream(l));
    GPU_CUDA(err, smk_to_half, *copy, x, n, bf16, gpu_stream(l));
    return 0;
}

/* C = alpha op(A) op(B) + beta C for `batch` products whose operands lie sa, sb, sc floats
 * apart (a stride of 0 reuses one matrix), on the layer's stream; -1 with err naming the call.
 * batch 0 asks for one product by cublasGemmEx. */
static inline int gemm_gpu_any(const sm_layer_io *l, cublasOperation_t ta, cublasOperation_t tb,
                               int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                               int64_t lda, int64_t sa, const float *b, int64_t ldb, int64_t sb,
                               float beta, float *c, int64_t ldc, int64_t sc, int64_t batch,
                               sm_error *err)
{
    const gpu_precision_policy *p = gpu_precision(l);
    const void *ga = a, *gb = b;
    void *ha = NULL, *hb = NULL;
    int64_t count = batch > 0 ? batch : 1;
    int rc = 0;
    if (p->gemm_operands != CUDA_R_32F && m > 0 && n > 0 && k > 0) {
        rc = gemm_gpu_cast(l, a, gemm_gpu_extent(ta, m, k, lda, sa, count), &ha, err) ||
             gemm_gpu_cast(l, b, gemm_gpu_extent(tb, k, n, ldb, sb, count), &hb, err);
        ga = ha;
        gb = hb;
    }
    cudaDataType_t at = p->gemm_operands, ct = p->gemm_data;
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    if (rc == 0 && batch > 0)
        s = cublasGemmStridedBatchedEx(gpu_cublas(l), ta, tb, (int)m, (int)n, (int)k, &alpha, ga,
                                       at, (int)lda, (long long)sa, gb, at, (int)ldb, (long long)sb,
                                       &beta, c, ct, (int)ldc, (long long)sc, (int)batch,
                                       p->gemm_compute, CUBLAS_GEMM_DEFAULT);
    else if (rc == 0)
        s = cublasGemmEx(gpu_cublas(l), ta, tb, (int)m, (int)n, (int)k, &alpha, ga, at, (int)lda,
                         gb, at, (int)ldb, &beta, c, ct, (int)ldc, p->gemm_compute,
                         CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS) {
        sm_error_set(err, "%s: %s", batch > 0 ? "cublasGemmStridedBatchedEx" : "cublasGemmEx",
                     cublasGetStatusString(s));
        rc = -1;
    }
    /* freed in stream order: the product has read them by the time the memory is reused */
    if (ha)
        cudaFreeAsync(ha, gpu_stream(l));
    if (hb)
        cudaFreeAsync(hb, gpu_stream(l));
    return rc ? -1 : 0;
}

/* C = alpha op(A) op(B) + beta C for `batch` products whose operands lie sa, sb, sc floats
 * apart (a stride of 0 reuses one matrix), on the layer's stream; -1 with err naming the call. */
static inline int gemm_gpu_batched(const sm_layer_io *l, cublasOperation_t ta, cublasOperation_t tb,
                                   int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                   int64_t lda, int64_t sa, const float *b, int64_t ldb, int64_t sb,
                                   float beta, float *c, int64_t ldc, int64_t sc, int64_t batch,
                                   sm_error *err)
{
    if (batch <= 0)
        return 0;
    return gemm_gpu_any(l, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch,
                        err);
}

/* C = alpha op(A) op(B) + beta C, one product. */
static inline int gemm_gpu(const sm_layer_io *l, cublasOperation_t ta, cublasOperation_t tb,
                           int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                           int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                           int64_t ldc, sm_error *err)
{
    return gemm_gpu_any(l, ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 0, err);
}

#endif
