/*
 * GPU kernels of lm_head (kernels.h, struct sm_gpu_kernels), as lm_head_cpu.c: linear's
 * products with a vocab x E stand-in M for the matrix tied to the token embedding, kept in the
 * layer's state and initialised as on the CPU (lm_head.h). cublasGemmEx, column-major, so each
 * row-major product appears transposed (as linear_gpu.c):
 *   forward   Y (R x V)  = X M^T      Y^T = M X^T:  gemm(T, N, V, R, E, M, X) into Y
 *   input     dX        += dY M       dX^T = M^T dY^T:  gemm(N, N, E, R, V, M, dY), beta 1
 *   matrix    dM (V x E) = dY^T X     dM^T = X^T dY:  gemm(N, T, E, V, R, X, dY) into scratch
 * dM is computed for its cost and dropped, as on the CPU. The bias (bias=true) is added to every
 * row and its gradient summed over them by the kernels of common/rows_gpu.cu. The products
 * are common/gemm_gpu.h's, in its precision.
 */
#include "gemm_gpu.h"
#include "gpu_ops.h"
#include "gpu_util.h"
#include "lm_head.h"

/* cuBLAS counts in int; checked once, so the calls below may cast. */
static int head_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    *plan = NULL;
    lm_head_geom g = lm_head_geom_of(l);
    if (gpu_check_precision(l, "lm_head", err))
        return -1;
    if (g.rows > INT_MAX || g.e > INT_MAX || g.vocab > INT_MAX) {
        sm_error_set(err, "a %lld x %lld by %lld x %lld product exceeds cuBLAS's int sizes",
                     (long long)g.rows, (long long)g.e, (long long)g.e, (long long)g.vocab);
        return -1;
    }
    return 0;
}

static int head_forward(const sm_layer_io *l, sm_error *err)
{
    lm_head_geom g = lm_head_geom_of(l);
    if (gemm_gpu(l, CUBLAS_OP_T, CUBLAS_OP_N, g.vocab, g.rows, g.e, 1.0f, l->state, g.e,
                 l->in[0].data, g.e, 0.0f, l->out->data, g.vocab, err))
        return -1;
    if (l->w)
        GPU_CUDA(err, smk_bias_rows, l->out->data, g.vocab, l->w, g.rows, g.vocab, gpu_stream(l));
    return 0;
}

static int head_backward(const sm_layer_io *l, sm_error *err)
{
    lm_head_geom g = lm_head_geom_of(l);
    if (l->din[0].data &&
        gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_N, g.e, g.rows, g.vocab, 1.0f, l->state, g.e,
                 l->dout->data, g.vocab, 1.0f, l->din[0].data, g.e, err))
        return -1;
    if (gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_T, g.e, g.vocab, g.rows, 1.0f, l->in[0].data, g.e,
                 l->dout->data, g.vocab, 0.0f, l->work, g.e, err))
        return -1;
    if (l->dw) /* the bias: n_w = vocab */
        GPU_CUDA(err, smk_column_sums, l->dw, l->dout->data, g.vocab, g.rows, g.vocab,
                 gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels lm_head_gpu_kernels = {
    SM_GPU_KERNELS_INIT,       .state_size = lm_head_matrix_size, .init = lm_head_init,
    .setup = head_setup,       .work_size = lm_head_matrix_size,  .forward = head_forward,
    .backward = head_backward,
};

SM_DEFINE_GPU_KERNELS(lm_head_gpu_kernels)
