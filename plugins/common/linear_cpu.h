/*
 * The CPU linear map of the plugins (darknet's gemm.c): y = x W^T + b over rows, with W stored
 * as nn.Linear stores it (out x in, row stride in), and its two backward products, on OpenBLAS's
 * sgemm. linear, lm_head, swiglu and the projections of attention, gqa_attention,
 * window_attention and the recurrent layers' inputs are this triple:
 *   forward   Y (rows x out)  = X (rows x in) W^T (+ b)
 *   input     dX (rows x in)  = beta dX + dY W     (beta 1 adds, as kernels.h asks of dX)
 *   weights   dW (out x in)   = dY^T X,  db = column sums of dY
 * Each matrix has its own row stride (a projection may write a column block of a wider one).
 * Header-only and static, as cpu_util.h: only the companions (NAME_cpu.so) include it, and
 * they link OpenBLAS already. Sizes are cast to OpenBLAS's int: callers check them once.
 */
#ifndef SCALEMETER_PLUGINS_LINEAR_CPU_H
#define SCALEMETER_PLUGINS_LINEAR_CPU_H

#include <cblas.h>
#include <stdint.h>

#include "cpu_util.h"

/* y (rows x out, row stride ldy) = x (rows x in, row stride ldx) W^T, plus b where given. */
static inline void linear_cpu_forward(int64_t rows, int64_t in, int64_t out, const float *x,
                                      int64_t ldx, const float *w, const float *b, float *y,
                                      int64_t ldy)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)out, (int)in, 1.0f, x,
                (int)ldx, w, (int)in, 0.0f, y, (int)ldy);
    if (b)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < out; j++)
                y[i * ldy + j] += b[j];
}

/* dx (rows x in, row stride ldx) = beta dx + dy (rows x out, row stride ldy) W. */
static inline void linear_cpu_input_grad(int64_t rows, int64_t in, int64_t out, const float *dy,
                                         int64_t ldy, const float *w, float beta, float *dx,
                                         int64_t ldx)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)in, (int)out, 1.0f, dy,
                (int)ldy, w, (int)in, beta, dx, (int)ldx);
}

/* dw (out x in) = dy^T x, overwritten (kernels.h); db = the column sums of dy where given. */
static inline void linear_cpu_weight_grad(int64_t rows, int64_t in, int64_t out, const float *dy,
                                          int64_t ldy, const float *x, int64_t ldx, float *dw,
                                          float *db)
{
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)out, (int)in, (int)rows, 1.0f, dy,
                (int)ldy, x, (int)ldx, 0.0f, dw, (int)in);
    if (db)
        cpu_column_sums(dy, rows, out, ldy, db);
}

#endif
