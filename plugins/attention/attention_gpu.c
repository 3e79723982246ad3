/*
 * GPU kernels of attention (kernels.h, struct sm_gpu_kernels): attention_cpu.c's computation,
 * with its layouts, weights and state (attention.h), on cuBLAS and the kernels of
 * attention_gpu.cu (masked softmax with the relative position bias, its backward pass) and
 * common/rows_gpu.cu (the projections' bias and its gradient).
 * cuBLAS is column-major: a row-major matrix R x C with row stride ld is its transpose, C x R
 * with leading dimension ld, so each row-major product Z = X Y appears as Z^T = Y^T X^T:
 *   projection   Y = X W^T + b       gemm(T, N, E, rows, E, W, X) into Y, then the bias
 *   input grad   dX += dY W          gemm(N, N, E, rows, E, W, dY), beta 1
 *   weight grad  dW = dY^T X         gemm(N, T, E, E, rows, X, dY), db = column sums of dY
 * and per head, each batched over the sequences with cublasGemmStridedBatchedEx (one stride per
 * operand: a head's columns of Q, K, V and C lie at the same offset in every sequence):
 *   scores   P = c Q K^T        gemm(T, N, M, S, d, K, Q)
 *   context  C = P V            gemm(N, N, d, S, M, V, P)
 *   dV = P^T dC                 gemm(N, T, d, M, S, dC, P)
 *   dP = dC V^T                 gemm(T, N, M, S, d, V, dC)
 *   dQ = c dS K                 gemm(N, N, d, S, M, K, dS)
 *   dK = c dS^T Q               gemm(N, T, d, M, S, Q, dS)
 * The products are common/gemm_gpu.h's, in its precision.
 * State: Q, K V, every head's P, C, as on the CPU (also written at inference, where they are
 * the forward's intermediates). Work (backward only): dC, dQ (Rq x E each), dK dV (Rk x 2E),
 * and dP of every head (the layout of P).
 */
#include "attention.h"
#include "attention_gpu.h"
#include "gpu_ops.h"
#include "gemm_gpu.h"
#include "gpu_util.h"

static smk_attn_rows rows_of(const attention_geom *g)
{
    smk_attn_rows r = {g->seqs * g->h * g->s, g->s, g->m, g->h, g->win, g->causal};
    return r;
}

/* Bytes of a count of floats; SIZE_MAX when the count overflowed (sm_mul saturates). */
static size_t float_bytes(int64_t floats)
{
    int64_t bytes = sm_mul(floats, (int64_t)sizeof(float));
    return bytes == SM_OVERFLOW || (uint64_t)bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

static size_t attn_gpu_state_size(const sm_layer_io *l)
{
    attention_geom g = attention_geom_of(l);
    return float_bytes(attention_state_floats(&g));
}

/* cuBLAS counts in int: every size, leading dimension and batch count below is at most one of
 * Rq, Rk, 2E, checked once here so the calls may cast. */
static int attn_gpu_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    *plan = NULL;
    if (gpu_check_precision(l, "attention", err))
        return -1;
    attention_geom g = attention_geom_of(l);
    if (g.rq > INT_MAX || g.rk > INT_MAX || 2 * g.e > INT_MAX) {
        sm_error_set(err,
                     "attention of %lld query rows, %lld key rows and %lld features exceeds "
                     "cuBLAS's int sizes",
                     (long long)g.rq, (long long)g.rk, (long long)g.e);
        return -1;
    }
    return 0;
}

static size_t attn_gpu_work_size(const sm_layer_io *l)
{
    attention_geom g = attention_geom_of(l);
    int64_t scores = sm_mul(sm_mul(g.seqs, g.h), sm_mul(g.s, g.m));
    return float_bytes(sm_add(sm_add(sm_mul(2 * g.e, g.rq), sm_mul(2 * g.e, g.rk)), scores));
}

/* y (rows x E, row stride ld) = x (rows x E) W^T + b */
static int project(const sm_layer_io *l, const attention_geom *g, int64_t rows, const float *x,
                   const float *w, const float *b, float *y, int64_t ld, sm_error *err)
{
    if (gemm_gpu_batched(l, CUBLAS_OP_T, CUBLAS_OP_N, g->e, rows, g->e, 1.0f, w, g->e, 0, x, g->e,
                         0, 0.0f, y, ld, 0, 1, err))
        return -1;
    if (b)
        GPU_CUDA(err, smk_bias_rows, y, ld, b, rows, g->e, gpu_stream(l));
    return 0;
}

/* in (rows x E) += dy (rows x E, row stride ld) W: the input gradient of one projection. */
static int add_input_grad(const sm_layer_io *l, const attention_geom *g, int64_t rows,
                          const float *dy, int64_t ld, const float *w, float *in, sm_error *err)
{
    return gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_N, g->e, rows, g->e, 1.0f, w, g->e, 0, dy, ld,
                            0, 1.0f, in, g->e, 0, 1, err);
}

/* dW (E x E) = dy^T x and db (NULL: no bias) for one projection of rows inputs x whose output
 * gradient is dy (row stride ld); both overwritten. */
static int projection_grads(const sm_layer_io *l, const attention_geom *g, int64_t rows,
                            const float *dy, int64_t ld, const float *x, float *dw, float *db,
                            sm_error *err)
{
    if (gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_T, g->e, g->e, rows, 1.0f, x, g->e, 0, dy, ld, 0,
                         0.0f, dw, g->e, 0, 1, err))
        return -1;
    if (db)
        GPU_CUDA(err, smk_column_sums, db, dy, ld, rows, g->e, gpu_stream(l));
    return 0;
}

static int attn_gpu_forward(const sm_layer_io *l, sm_error *err)
{
    attention_geom g = attention_geom_of(l);
    int64_t e2 = 2 * g.e, sq = g.s * g.e, sk = g.m * e2, sp = g.h * g.s * g.m;
    if (project(l, &g, g.rq, g.x, g.w[0], g.b[0], g.q, g.e, err))
        return -1;
    for (int t = 1; t < 3; t++)
        if (project(l, &g, g.rk, g.mem, g.w[t], g.b[t], g.kv + (t - 1) * g.e, e2, err))
            return -1;
    for (int64_t h = 0; h < g.h; h++) /* P = c Q K^T of head h, every sequence */
        if (gemm_gpu_batched(l, CUBLAS_OP_T, CUBLAS_OP_N, g.m, g.s, g.d, g.scale, g.kv + h * g.d,
                             e2, sk, g.q + h * g.d, g.e, sq, 0.0f, g.p + h * g.s * g.m, g.m, sp,
                             g.seqs, err))
            return -1;
    GPU_CUDA(err, smk_attn_softmax, g.p, g.table, rows_of(&g), gpu_stream(l));
    for (int64_t h = 0; h < g.h; h++) /* C = P V */
        if (gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_N, g.d, g.s, g.m, 1.0f, g.kv + g.e + h * g.d,
                             e2, sk, g.p + h * g.s * g.m, g.m, sp, 0.0f, g.ctx + h * g.d, g.e, sq,
                             g.seqs, err))
            return -1;
    return project(l, &g, g.rq, g.ctx, g.w[3], g.b[3], l->out->data, g.e, err);
}

static int attn_gpu_backward(const sm_layer_io *l, sm_error *err)
{
    attention_geom g = attention_geom_of(l);
    int64_t e2 = 2 * g.e, sq = g.s * g.e, sk = g.m * e2, sp = g.h * g.s * g.m;
    const float *dy = l->dout->data;
    float *dctx = l->work, *dq = dctx + g.rq * g.e, *dkv = dq + g.rq * g.e, *dp = dkv + g.rk * e2;
    /* dC = dY W_o */
    if (gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_N, g.e, g.rq, g.e, 1.0f, g.w[3], g.e, 0, dy, g.e,
                         0, 0.0f, dctx, g.e, 0, 1, err))
        return -1;
    if (l->dw && projection_grads(l, &g, g.rq, dy, g.e, g.ctx, g.dw[3], g.db[3], err))
        return -1;
    for (int64_t h = 0; h < g.h; h++) {
        const float *p = g.p + h * g.s * g.m, *dc = dctx + h * g.d, *v = g.kv + g.e + h * g.d;
        /* dV = P^T dC, dP = dC V^T */
        if (gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_T, g.d, g.m, g.s, 1.0f, dc, g.e, sq, p, g.m,
                             sp, 0.0f, dkv + g.e + h * g.d, e2, sk, g.seqs, err) ||
            gemm_gpu_batched(l, CUBLAS_OP_T, CUBLAS_OP_N, g.m, g.s, g.d, 1.0f, v, e2, sk, dc, g.e,
                             sq, 0.0f, dp + h * g.s * g.m, g.m, sp, g.seqs, err))
            return -1;
    }
    if (g.dtable) /* summed into by the softmax's backward pass */
        GPU_CUDA(err, cudaMemsetAsync, g.dtable, 0,
                 (size_t)attention_table_elems(l->params) * sizeof(float), gpu_stream(l));
    GPU_CUDA(err, smk_attn_softmax_backward, dp, g.p, g.dtable, rows_of(&g), gpu_stream(l));
    for (int64_t h = 0; h < g.h; h++) {
        const float *ds = dp + h * g.s * g.m;
        /* dQ = c dS K, dK = c dS^T Q */
        if (gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_N, g.d, g.s, g.m, g.scale, g.kv + h * g.d,
                             e2, sk, ds, g.m, sp, 0.0f, dq + h * g.d, g.e, sq, g.seqs, err) ||
            gemm_gpu_batched(l, CUBLAS_OP_N, CUBLAS_OP_T, g.d, g.m, g.s, g.scale, g.q + h * g.d,
                             g.e, sq, ds, g.m, sp, 0.0f, dkv + h * g.d, e2, sk, g.seqs, err))
            return -1;
    }
    float *dx = l->din[0].data, *dmem = l->n_in == 2 ? l->din[1].data : dx;
    if (dx && add_input_grad(l, &g, g.rq, dq, g.e, g.w[0], dx, err))
        return -1;
    for (int t = 1; t < 3 && dmem; t++)
        if (add_input_grad(l, &g, g.rk, dkv + (t - 1) * g.e, e2, g.w[t], dmem, err))
            return -1;
    if (l->dw) {
        if (projection_grads(l, &g, g.rq, dq, g.e, g.x, g.dw[0], g.db[0], err))
            return -1;
        for (int t = 1; t < 3; t++)
            if (projection_grads(l, &g, g.rk, dkv + (t - 1) * g.e, e2, g.mem, g.dw[t], g.db[t],
                                 err))
                return -1;
    }
    return 0;
}

static const struct sm_gpu_kernels attention_gpu_kernels = {
    SM_GPU_KERNELS_INIT,           .state_size = attn_gpu_state_size, .init = attention_init,
    .setup = attn_gpu_setup,       .work_size = attn_gpu_work_size,   .forward = attn_gpu_forward,
    .backward = attn_gpu_backward,
};

SM_DEFINE_GPU_KERNELS(attention_gpu_kernels)
