/*
 * GPU kernels of linear (kernels.h, struct sm_gpu_kernels), on the last dimension of the input
 * seen as R rows of F features, with cublasGemmEx (column-major, so each row-major product of
 * linear_cpu.c appears transposed):
 *   forward   Y (R x O)  = X W^T      Y^T = W X^T:  gemm(T, N, O, R, F, W, X) into Y
 *   input     dX        += dY W       dX^T = W^T dY^T:  gemm(N, N, F, R, O, W, dY), beta 1
 *   weights   dW (O x F) = dY^T X     dW^T = X^T dY:  gemm(N, T, F, O, R, X, dY), beta 0
 * and the bias by the kernels of common/rows_gpu.cu. The products are common/gemm_gpu.h's, in its
 * precision.
 */
#include <math.h>

#include "gemm_gpu.h"
#include "gpu_ops.h"
#include "gpu_util.h"
#include "linear.h"

static void linear_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    float bound = 1.0f / sqrtf((float)linear_geom_of(l).in);
    for (int64_t i = 0; i < l->n_w; i++)
        w[i] *= bound;
}

/* cuBLAS counts in int; checked once, so the calls below may cast. */
static int linear_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    *plan = NULL;
    linear_geom g = linear_geom_of(l);
    if (gpu_check_precision(l, "linear", err))
        return -1;
    if (g.rows > INT_MAX || g.in > INT_MAX || g.out > INT_MAX) {
        sm_error_set(err, "a %lld x %lld by %lld x %lld product exceeds cuBLAS's int sizes",
                     (long long)g.rows, (long long)g.in, (long long)g.in, (long long)g.out);
        return -1;
    }
    return 0;
}

static int linear_forward(const sm_layer_io *l, sm_error *err)
{
    linear_geom g = linear_geom_of(l);
    if (gemm_gpu(l, CUBLAS_OP_T, CUBLAS_OP_N, g.out, g.rows, g.in, 1.0f, l->w, g.in, l->in[0].data,
                 g.in, 0.0f, l->out->data, g.out, err))
        return -1;
    if (g.bias)
        GPU_CUDA(err, smk_bias_rows, l->out->data, g.out, l->w + g.out * g.in, g.rows, g.out,
                 gpu_stream(l));
    return 0;
}

static int linear_backward(const sm_layer_io *l, sm_error *err)
{
    linear_geom g = linear_geom_of(l);
    if (l->din[0].data && gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_N, g.in, g.rows, g.out, 1.0f, l->w,
                                   g.in, l->dout->data, g.out, 1.0f, l->din[0].data, g.in, err))
        return -1;
    if (gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_T, g.in, g.out, g.rows, 1.0f, l->in[0].data, g.in,
                 l->dout->data, g.out, 0.0f, l->dw, g.in, err))
        return -1;
    if (g.bias)
        GPU_CUDA(err, smk_column_sums, l->dw + g.out * g.in, l->dout->data, g.out, g.rows, g.out,
                 gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels linear_gpu_kernels = {
    SM_GPU_KERNELS_INIT,       .init = linear_init,         .setup = linear_setup,
    .forward = linear_forward, .backward = linear_backward,
};

SM_DEFINE_GPU_KERNELS(linear_gpu_kernels)
