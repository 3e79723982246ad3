/*
 * GPU kernels of swiglu (kernels.h, struct sm_gpu_kernels): swiglu_cpu.c's computation, with
 * its layouts, weights and state (swiglu.h), on cuBLAS and the gate kernels of swiglu_gpu.cu.
 * cuBLAS is column-major: a row-major R x C matrix is its transpose, so (as attention_gpu.c)
 *   projection   Y = X W^T       gemm(T, N, out, rows, in, W, X)
 *   input grad   dX += dY W      gemm(N, N, in, rows, out, W, dY), beta 1
 *   weight grad  dW = dY^T X     gemm(N, T, in, out, rows, X, dY)
 * The products are common/gemm_gpu.h's, in its precision.
 * State: G, U, H; work (backward only): dH, dG, dU.
 */
#include <limits.h>

#include "gemm_gpu.h"
#include "gpu_util.h"
#include "swiglu.h"
#include "swiglu_gpu.h"

static size_t swiglu_gpu_rows_size(const sm_layer_io *l)
{
    swiglu_geom g = swiglu_geom_of(l);
    int64_t bytes = sm_mul(swiglu_rows_floats(&g), (int64_t)sizeof(float));
    return bytes == SM_OVERFLOW || (uint64_t)bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

/* cuBLAS counts in int: rows, E and F checked once here so the calls may cast. */
static int swiglu_gpu_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    *plan = NULL;
    if (gpu_check_precision(l, "swiglu", err))
        return -1;
    swiglu_geom g = swiglu_geom_of(l);
    if (g.rows > INT_MAX || g.e > INT_MAX || g.f > INT_MAX) {
        sm_error_set(err,
                     "swiglu of %lld rows, %lld features and hidden %lld exceeds cuBLAS's "
                     "int sizes",
                     (long long)g.rows, (long long)g.e, (long long)g.f);
        return -1;
    }
    return 0;
}

static int swiglu_gpu_forward(const sm_layer_io *l, sm_error *err)
{
    swiglu_geom g = swiglu_geom_of(l);
    const float *x = l->in[0].data;
    if (gemm_gpu(l, CUBLAS_OP_T, CUBLAS_OP_N, g.f, g.rows, g.e, 1.0f, g.wg, g.e, x, g.e, 0.0f, g.g,
                 g.f, err) ||
        gemm_gpu(l, CUBLAS_OP_T, CUBLAS_OP_N, g.f, g.rows, g.e, 1.0f, g.wu, g.e, x, g.e, 0.0f, g.u,
                 g.f, err))
        return -1;
    GPU_CUDA(err, smk_swiglu_gate, g.h, g.g, g.u, g.rows * g.f, gpu_stream(l));
    return gemm_gpu(l, CUBLAS_OP_T, CUBLAS_OP_N, g.e, g.rows, g.f, 1.0f, g.wd, g.f, g.h, g.f, 0.0f,
                    l->out->data, g.e, err);
}

static int swiglu_gpu_backward(const sm_layer_io *l, sm_error *err)
{
    swiglu_geom g = swiglu_geom_of(l);
    const float *x = l->in[0].data, *dy = l->dout->data;
    float *dh = l->work, *dg = dh + g.rows * g.f, *du = dg + g.rows * g.f;
    if (gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_N, g.f, g.rows, g.e, 1.0f, g.wd, g.f, dy, g.e, 0.0f, dh,
                 g.f, err))
        return -1;
    GPU_CUDA(err, smk_swiglu_gate_backward, dg, du, dh, g.g, g.u, g.rows * g.f, gpu_stream(l));
    float *dx = l->din[0].data;
    if (dx && (gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_N, g.e, g.rows, g.f, 1.0f, g.wg, g.e, dg, g.f,
                        1.0f, dx, g.e, err) ||
               gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_N, g.e, g.rows, g.f, 1.0f, g.wu, g.e, du, g.f,
                        1.0f, dx, g.e, err)))
        return -1;
    if (l->dw && (gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_T, g.f, g.e, g.rows, 1.0f, g.h, g.f, dy, g.e,
                           0.0f, g.dwd, g.f, err) ||
                  gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_T, g.e, g.f, g.rows, 1.0f, x, g.e, dg, g.f,
                           0.0f, g.dwg, g.e, err) ||
                  gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_T, g.e, g.f, g.rows, 1.0f, x, g.e, du, g.f,
                           0.0f, g.dwu, g.e, err)))
        return -1;
    return 0;
}

static const struct sm_gpu_kernels swiglu_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .state_size = swiglu_gpu_rows_size,
    .init = swiglu_init,
    .setup = swiglu_gpu_setup,
    .work_size = swiglu_gpu_rows_size,
    .forward = swiglu_gpu_forward,
    .backward = swiglu_gpu_backward,
};

SM_DEFINE_GPU_KERNELS(swiglu_gpu_kernels)
