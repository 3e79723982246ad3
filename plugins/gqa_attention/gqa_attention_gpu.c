/*
 * GPU kernels of gqa_attention (kernels.h, struct sm_gpu_kernels): gqa_attention_cpu.c's
 * computation, with its layouts, weights and state (gqa_attention.h), on cuBLAS and the kernels
 * of gqa_attention_gpu.cu. cuBLAS is column-major, so each row-major product Z = X Y is
 * Z^T = Y^T X^T (attention_gpu.c lists the forms); the per-head products are batched over the
 * sequences with cublasGemmStridedBatchedEx, query head j reading key/value head j / (h / kv),
 * and the heads of one group adding their dK and dV into the same columns (beta 1, in order on
 * the stream). State: rotated Q, rotated K and V, every head's P, C. Work (backward only): dC,
 * dQ, dK dV, and dP of every head.
 */
#include <limits.h>

#include "gemm_gpu.h"
#include "gpu_util.h"
#include "gqa_attention.h"
#include "gqa_attention_gpu.h"

static size_t float_bytes(int64_t floats)
{
    int64_t bytes = sm_mul(floats, (int64_t)sizeof(float));
    return bytes == SM_OVERFLOW || (uint64_t)bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

static size_t gqa_gpu_state_size(const sm_layer_io *l)
{
    gqa_geom g = gqa_geom_of(l);
    return float_bytes(gqa_state_floats(&g));
}

static size_t gqa_gpu_work_size(const sm_layer_io *l)
{
    gqa_geom g = gqa_geom_of(l);
    int64_t scores = sm_mul(sm_mul(g.n, g.h), sm_mul(g.s, g.s));
    return float_bytes(sm_add(sm_add(sm_mul(2 * g.e, g.r), sm_mul(2 * g.ekv, g.r)), scores));
}

/* cuBLAS counts in int: rows, features and the batch of sequences checked once here. */
static int gqa_gpu_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    *plan = NULL;
    if (gpu_check_precision(l, "gqa_attention", err))
        return -1;
    gqa_geom g = gqa_geom_of(l);
    if (g.r > INT_MAX || 2 * g.e > INT_MAX || g.s * g.s > INT_MAX) {
        sm_error_set(err,
                     "gqa_attention of %lld rows and %lld features exceeds cuBLAS's int "
                     "sizes",
                     (long long)g.r, (long long)g.e);
        return -1;
    }
    return 0;
}

/* y (R x out, row stride ld) = x (R x E) W^T */
static int project(const sm_layer_io *l, const gqa_geom *g, int64_t out, const float *x,
                   const float *w, float *y, int64_t ld, sm_error *err)
{
    return gemm_gpu_batched(l, CUBLAS_OP_T, CUBLAS_OP_N, out, g->r, g->e, 1.0f, w, g->e, 0, x, g->e,
                            0, 0.0f, y, ld, 0, 1, err);
}

static int gqa_gpu_forward(const sm_layer_io *l, sm_error *err)
{
    gqa_geom g = gqa_geom_of(l);
    int64_t k2 = 2 * g.ekv, group = g.h / g.kv, sq = g.s * g.e, sk = g.s * k2;
    int64_t sp = g.h * g.s * g.s;
    const float *x = l->in[0].data;
    if (project(l, &g, g.e, x, g.wq, g.q, g.e, err) ||
        project(l, &g, g.ekv, x, g.wk, g.kvm, k2, err) ||
        project(l, &g, g.ekv, x, g.wv, g.kvm + g.ekv, k2, err))
        return -1;
    GPU_CUDA(err, smk_gqa_rotate, g.q, g.r, g.e, g.e, g.s, g.d, g.theta, g.rope_form, 1,
             gpu_stream(l));
    GPU_CUDA(err, smk_gqa_rotate, g.kvm, g.r, g.ekv, k2, g.s, g.d, g.theta, g.rope_form, 1,
             gpu_stream(l));
    for (int64_t h = 0; h < g.h; h++) /* P = c Q K^T of head h, every sequence */
        if (gemm_gpu_batched(l, CUBLAS_OP_T, CUBLAS_OP_N, g.s, g.s, g.d, g.scale,
                             g.kvm + (h / group) * g.d, k2, sk, g.q + h * g.d, g.e, sq, 0.0f,
                             g.p + h * g.s * g.s, g.s, sp, g.n, err))
            return -1;
    GPU_CUDA(err, smk_gqa_softmax, g.p, g.n * g.h * g.s, g.s, g.causal, gpu_stream(l));
    for (int64_t h = 0; h < g.h; h++) /* C = P V */
        if (gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_N, g.d, g.s, g.s, 1.0f,
                             g.kvm + g.ekv + (h / group) * g.d, k2, sk, g.p + h * g.s * g.s, g.s,
                             sp, 0.0f, g.ctx + h * g.d, g.e, sq, g.n, err))
            return -1;
    return project(l, &g, g.e, g.ctx, g.wo, l->out->data, g.e, err);
}

/* in (R x E) += dy (R x out, row stride ld) W;  dW (out x E) = dy^T x */
static int grads(const sm_layer_io *l, const gqa_geom *g, int64_t out, const float *dy, int64_t ld,
                 const float *w, float *dw, float *in, sm_error *err)
{
    if (in && gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_N, g->e, g->r, out, 1.0f, w, g->e, 0, dy,
                               ld, 0, 1.0f, in, g->e, 0, 1, err))
        return -1;
    if (dw && gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_T, g->e, out, g->r, 1.0f, l->in[0].data,
                               g->e, 0, dy, ld, 0, 0.0f, dw, g->e, 0, 1, err))
        return -1;
    return 0;
}

static int gqa_gpu_backward(const sm_layer_io *l, sm_error *err)
{
    gqa_geom g = gqa_geom_of(l);
    int64_t k2 = 2 * g.ekv, group = g.h / g.kv, sq = g.s * g.e, sk = g.s * k2;
    int64_t sp = g.h * g.s * g.s;
    const float *dy = l->dout->data;
    float *dctx = l->work, *dq = dctx + g.r * g.e, *dkv = dq + g.r * g.e, *dp = dkv + g.r * k2;
    if (gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_N, g.e, g.r, g.e, 1.0f, g.wo, g.e, 0, dy, g.e, 0,
                         0.0f, dctx, g.e, 0, 1, err))
        return -1;
    if (l->dw && gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_T, g.e, g.e, g.r, 1.0f, g.ctx, g.e, 0,
                                  dy, g.e, 0, 0.0f, g.dwo, g.e, 0, 1, err))
        return -1;
    GPU_CUDA(err, cudaMemsetAsync, dkv, 0, (size_t)(g.r * k2) * sizeof(float), gpu_stream(l));
    for (int64_t h = 0; h < g.h; h++) {
        int64_t t = (h / group) * g.d;
        const float *p = g.p + h * g.s * g.s, *dc = dctx + h * g.d;
        /* dV_t += P^T dC_h, dP = dC_h V_t^T */
        if (gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_T, g.d, g.s, g.s, 1.0f, dc, g.e, sq, p, g.s,
                             sp, 1.0f, dkv + g.ekv + t, k2, sk, g.n, err) ||
            gemm_gpu_batched(l, CUBLAS_OP_T, CUBLAS_OP_N, g.s, g.s, g.d, 1.0f, g.kvm + g.ekv + t,
                             k2, sk, dc, g.e, sq, 0.0f, dp + h * g.s * g.s, g.s, sp, g.n, err))
            return -1;
    }
    GPU_CUDA(err, smk_gqa_softmax_backward, dp, g.p, g.n * g.h * g.s, g.s, gpu_stream(l));
    for (int64_t h = 0; h < g.h; h++) {
        int64_t t = (h / group) * g.d;
        const float *ds = dp + h * g.s * g.s;
        /* dQ_h = c dS K_t, dK_t += c dS^T Q_h */
        if (gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_N, g.d, g.s, g.s, g.scale, g.kvm + t, k2, sk,
                             ds, g.s, sp, 0.0f, dq + h * g.d, g.e, sq, g.n, err) ||
            gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_T, g.d, g.s, g.s, g.scale, g.q + h * g.d,
                             g.e, sq, ds, g.s, sp, 1.0f, dkv + t, k2, sk, g.n, err))
            return -1;
    }
    GPU_CUDA(err, smk_gqa_rotate, dq, g.r, g.e, g.e, g.s, g.d, g.theta, g.rope_form, -1,
             gpu_stream(l));
    GPU_CUDA(err, smk_gqa_rotate, dkv, g.r, g.ekv, k2, g.s, g.d, g.theta, g.rope_form, -1,
             gpu_stream(l));
    float *dx = l->din[0].data;
    if (grads(l, &g, g.e, dq, g.e, g.wq, g.dwq, dx, err) ||
        grads(l, &g, g.ekv, dkv, k2, g.wk, g.dwk, dx, err) ||
        grads(l, &g, g.ekv, dkv + g.ekv, k2, g.wv, g.dwv, dx, err))
        return -1;
    return 0;
}

static const struct sm_gpu_kernels gqa_attention_gpu_kernels = {
    SM_GPU_KERNELS_INIT,          .state_size = gqa_gpu_state_size, .init = gqa_init,
    .setup = gqa_gpu_setup,       .work_size = gqa_gpu_work_size,   .forward = gqa_gpu_forward,
    .backward = gqa_gpu_backward,
};

SM_DEFINE_GPU_KERNELS(gqa_attention_gpu_kernels)
