/*
 * GPU kernels of window_attention (kernels.h, struct sm_gpu_kernels): window_attention_cpu.c's
 * computation, step by step and with its layouts, its products on cuBLAS (strided-batched over
 * the windows, one call per head), the biases on common/rows_gpu.cu and the rest on the kernels
 * of window_attention_gpu.cu.
 * cuBLAS is column-major: gemm() below computes a row-major product as its transpose, on
 * common/gemm_gpu.h (which owns the precision).
 *
 * The per-head score factor (d^-1/2, or v2's exp(min(logit_scale, ln 100)), a weight on the
 * device) is applied by the softmax kernel, not by the product, and in backward by the kernel
 * that finishes dq and dk.
 *
 * State, as the CPU's: Xw, QKV (v2: q and k normalised), every head's P, C; v2 also the norms
 * of q and k, the MLP's hidden activations and the bias table. Inference writes it too (it is
 * where the intermediate results live).
 */
#include <math.h>

#include "gemm_gpu.h"
#include "gpu_ops.h"
#include "gpu_util.h"
#include "window_attention.h"
#include "window_attention_gpu.h"

typedef struct wa_geom {
    smk_wa k;         /* what the CUDA kernels see */
    int64_t n, nn, t; /* tokens N, N^2, table rows T */
    wa_weight_layout wl;
    /* state */
    float *xw, *qkv, *prob, *ctx, *norms, *hidden, *table;
} wa_geom;

static wa_geom geom_of(const sm_layer_io *l)
{
    wa_geom g = {0};
    const window_attention_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    g.k.p = *p;
    g.k.h = s->dim[0];
    g.k.w = s->dim[1];
    g.k.c = p->dim;
    g.k.heads = p->heads;
    g.k.d = p->dim / p->heads;
    g.k.lay = wa_layout_of(p, g.k.h, g.k.w);
    g.k.groups = sm_mul(l->in[0].n, g.k.lay.windows);
    g.k.rows = sm_mul(g.k.groups, g.k.lay.tokens);
    g.n = g.k.lay.tokens;
    g.nn = sm_mul(g.n, g.n);
    g.t = g.k.lay.table_rows;
    g.wl = wa_weights_of(p);
    if (l->state) {
        int64_t r = g.k.rows, c = g.k.c;
        g.xw = l->state;
        g.qkv = g.xw + r * c;
        g.prob = g.qkv + r * 3 * c;
        g.ctx = g.prob + g.k.groups * g.k.heads * g.nn;
        g.norms = g.ctx + r * c;
        g.hidden = g.norms + (p->v2 ? r * 2 * g.k.heads : 0);
        g.table = g.hidden + (p->v2 ? g.t * WA_CPB_HIDDEN : 0);
    }
    return g;
}

/* Bytes of a count of floats: SIZE_MAX when it overflowed (kernels.h: more than addressable). */
static size_t float_bytes(int64_t floats)
{
    int64_t bytes = sm_mul(floats, (int64_t)sizeof(float));
    return bytes == SM_OVERFLOW || (uint64_t)bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

static size_t wa_state_size(const sm_layer_io *l)
{
    wa_geom g = geom_of(l);
    int64_t r = g.k.rows;
    int64_t floats = sm_add(sm_mul(r, 5 * g.k.c), sm_mul(sm_mul(g.k.groups, g.k.heads), g.nn));
    if (g.k.p.v2)
        floats = sm_add(floats,
                        sm_add(sm_mul(r, 2 * g.k.heads), sm_mul(g.t, WA_CPB_HIDDEN + g.k.heads)));
    return float_bytes(floats);
}

/* Scratch, each part 256-byte aligned: Yw, then dYw (reused for dXw) (R x C); dC (R x C); dQKV
 * (R x 3C); dS of every window and head (batch nW h N^2); v2's dtable (T x h), coordinate
 * table (T x 2) and dhidden (T x 512). */
typedef struct wa_work {
    float *dyw, *dctx, *dqkv, *ds, *dtable, *coords, *dhidden;
} wa_work;

#define WORK_PARTS 7
#define WORK_ALIGN 64 /* floats */

static int64_t work_floats(const wa_geom *g, const sm_layer_io *l, wa_work *k)
{
    int64_t r = g->k.rows, c = g->k.c, v2 = g->k.p.v2;
    int64_t sizes[WORK_PARTS] = {sm_mul(r, c),
                                 sm_mul(r, c),
                                 sm_mul(r, 3 * c),
                                 sm_mul(sm_mul(g->k.groups, g->k.heads), g->nn),
                                 v2 ? sm_mul(g->t, g->k.heads) : 0,
                                 v2 ? 2 * g->t : 0,
                                 v2 ? sm_mul(g->t, WA_CPB_HIDDEN) : 0};
    float **at[WORK_PARTS] = {&k->dyw,    &k->dctx,   &k->dqkv,   &k->ds,
                              &k->dtable, &k->coords, &k->dhidden};
    int64_t total = 0;
    for (int i = 0; i < WORK_PARTS; i++) {
        if (l->work)
            *at[i] = (float *)l->work + total;
        int64_t size = sm_add(sizes[i], WORK_ALIGN - 1);
        total = sm_add(total, size == SM_OVERFLOW ? size : size / WORK_ALIGN * WORK_ALIGN);
    }
    return total;
}

static size_t wa_work_size(const sm_layer_io *l)
{
    wa_geom g = geom_of(l);
    wa_work k;
    return float_bytes(work_floats(&g, l, &k));
}

static void wa_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    wa_init_weights(l->params, w);
}

/* cuBLAS counts rows, columns and the batch in int; checked once, so gemm() may cast. */
static int wa_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    *plan = NULL;
    if (gpu_check_precision(l, "window_attention", err))
        return -1;
    wa_geom g = geom_of(l);
    int64_t counts[5] = {g.k.rows, 3 * g.k.c, g.k.groups, g.nn, g.t};
    for (int i = 0; i < 5; i++)
        if (counts[i] > INT_MAX) {
            sm_error_set(err,
                         "window_attention: %lld rows of %lld features in %lld windows of "
                         "%lld tokens exceed cuBLAS's int sizes",
                         (long long)g.k.rows, (long long)g.k.c, (long long)g.k.groups,
                         (long long)g.n);
            return -1;
        }
    return 0;
}

/* A row-major operand: data, leading dimension, stride between batch entries, transposed. */
typedef struct mat {
    const float *p;
    int64_t ld, stride;
    int trans;
} mat;

/* Row-major C (m x n) = alpha op(A) op(B) + beta C, batch times at the operands' strides. In
 * column-major terms C^T = op(B)^T op(A)^T: the operands swap, their transpose flags stay. */
static int gemm(const sm_layer_io *l, int64_t m, int64_t n, int64_t k, float alpha, mat a, mat b,
                float beta, float *c, int64_t ldc, int64_t stride_c, int64_t batch, sm_error *err)
{
    return gemm_gpu_batched(l, b.trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                            a.trans ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, alpha, b.p, b.ld,
                            b.stride, a.p, a.ld, a.stride, beta, c, ldc, stride_c, batch, err);
}

/* One matrix, no batch. */
static mat one(const float *p, int64_t ld, int trans) { return (mat){p, ld, 0, trans}; }

static smk_wa_scale scale_of(const wa_geom *g, const float *w)
{
    smk_wa_scale a = {1.0f / sqrtf((float)g->k.d), NULL, logf(100.0f)};
    if (g->k.p.v2)
        a.logit_scale = w + g->wl.logit_scale;
    return a;
}

/* v2's bias table (T x h) into g->table: 16 sigmoid(relu(coords W0^T + b0) W2^T); the hidden
 * activations stay in g->hidden for backward. */
static int cpb_forward(const sm_layer_io *l, const wa_geom *g, float *coords, sm_error *err)
{
    const wa_weight_layout *o = &g->wl;
    cudaStream_t s = gpu_stream(l);
    GPU_CUDA(err, smk_wa_coords, coords, g->k, s);
    GPU_CUDA(err, smk_wa_cpb_hidden, g->hidden, coords, l->w + o->cpb_w0, l->w + o->cpb_b0, g->t,
             s);
    if (gemm(l, g->t, g->k.heads, WA_CPB_HIDDEN, 1.0f, one(g->hidden, WA_CPB_HIDDEN, 0),
             one(l->w + o->cpb_w2, WA_CPB_HIDDEN, 1), 0.0f, g->table, g->k.heads, 0, 1, err))
        return -1;
    GPU_CUDA(err, smk_wa_sigmoid16, g->table, g->t * g->k.heads, s);
    return 0;
}

static int wa_forward(const sm_layer_io *l, sm_error *err)
{
    wa_geom g = geom_of(l);
    const wa_weight_layout *o = &g.wl;
    const float *w = l->w;
    int64_t n = g.n, nn = g.nn, c = g.k.c, c3 = 3 * c, d = g.k.d, h = g.k.heads, r = g.k.rows;
    cudaStream_t s = gpu_stream(l);
    wa_work wk;
    work_floats(&g, l, &wk);
    float *yw = wk.dyw;
    if (g.k.p.v2 && cpb_forward(l, &g, wk.coords, err))
        return -1;
    const float *table = o->table >= 0 ? w + o->table : g.table;

    GPU_CUDA(err, smk_wa_gather, g.xw, l->in[0].data, g.k, s);
    if (gemm(l, r, c3, c, 1.0f, one(g.xw, c, 0), one(w + o->qkv_w, c, 1), 0.0f, g.qkv, c3, 0, 1,
             err))
        return -1;
    if (o->qkv_b >= 0) { /* v2: torchvision zeroes the key third of the bias in every forward */
        GPU_CUDA(err, smk_bias_rows, g.qkv, c3, w + o->qkv_b, r, g.k.p.v2 ? c : c3, s);
        if (g.k.p.v2)
            GPU_CUDA(err, smk_bias_rows, g.qkv + 2 * c, c3, w + o->qkv_b + 2 * c, r, c, s);
    }
    if (g.k.p.v2)
        GPU_CUDA(err, smk_wa_normalise, g.qkv, g.norms, g.k, s);

    /* per head over every window: P = q k^T, then the softmax with scale, bias and mask */
    for (int64_t hd = 0; hd < h; hd++) {
        mat q = {g.qkv + hd * d, c3, n * c3, 0}, k = {g.qkv + c + hd * d, c3, n * c3, 1};
        if (gemm(l, n, n, d, 1.0f, q, k, 0.0f, g.prob + hd * nn, n, h * nn, g.k.groups, err))
            return -1;
    }
    GPU_CUDA(err, smk_wa_softmax, g.prob, table, scale_of(&g, w), g.k, s);
    /* C = P v per head */
    for (int64_t hd = 0; hd < h; hd++) {
        mat p = {g.prob + hd * nn, n, h * nn, 0}, v = {g.qkv + 2 * c + hd * d, c3, n * c3, 0};
        if (gemm(l, n, d, n, 1.0f, p, v, 0.0f, g.ctx + hd * d, c, n * c, g.k.groups, err))
            return -1;
    }
    if (gemm(l, r, c, c, 1.0f, one(g.ctx, c, 0), one(w + o->proj_w, c, 1), 0.0f, yw, c, 0, 1, err))
        return -1;
    if (o->proj_b >= 0)
        GPU_CUDA(err, smk_bias_rows, yw, c, w + o->proj_b, r, c, s);
    GPU_CUDA(err, smk_wa_scatter, l->out->data, yw, g.k, 0, s);
    return 0;
}

/* v2: dtable (T x h) back through the 16 sigmoid and the MLP into dW2, dW0 and db0. */
static int cpb_backward(const sm_layer_io *l, const wa_geom *g, const wa_work *wk, sm_error *err)
{
    const wa_weight_layout *o = &g->wl;
    cudaStream_t s = gpu_stream(l);
    int64_t t = g->t, h = g->k.heads;
    GPU_CUDA(err, smk_wa_sigmoid16_backward, wk->dtable, g->table, t * h, s);
    /* z = hidden W2^T: dW2 (h x 512) = dz^T hidden, dhidden = dz W2, zero where ReLU cut */
    if (gemm(l, h, WA_CPB_HIDDEN, t, 1.0f, one(wk->dtable, h, 1), one(g->hidden, WA_CPB_HIDDEN, 0),
             0.0f, l->dw + o->cpb_w2, WA_CPB_HIDDEN, 0, 1, err))
        return -1;
    if (gemm(l, t, WA_CPB_HIDDEN, h, 1.0f, one(wk->dtable, h, 0),
             one(l->w + o->cpb_w2, WA_CPB_HIDDEN, 0), 0.0f, wk->dhidden, WA_CPB_HIDDEN, 0, 1, err))
        return -1;
    GPU_CUDA(err, smk_wa_relu_backward, wk->dhidden, g->hidden, t * WA_CPB_HIDDEN, s);
    /* hidden = relu(coords W0^T + b0): dW0 (512 x 2) = dhidden^T coords, db0 = column sums */
    GPU_CUDA(err, smk_wa_coords, wk->coords, g->k, s);
    if (gemm(l, WA_CPB_HIDDEN, 2, t, 1.0f, one(wk->dhidden, WA_CPB_HIDDEN, 1),
             one(wk->coords, 2, 0), 0.0f, l->dw + o->cpb_w0, 2, 0, 1, err))
        return -1;
    GPU_CUDA(err, smk_column_sums, l->dw + o->cpb_b0, wk->dhidden, WA_CPB_HIDDEN, t, WA_CPB_HIDDEN,
             s);
    return 0;
}

static int wa_backward(const sm_layer_io *l, sm_error *err)
{
    wa_geom g = geom_of(l);
    const wa_weight_layout *o = &g.wl;
    const float *w = l->w;
    float *dw = l->dw;
    int64_t n = g.n, nn = g.nn, c = g.k.c, c3 = 3 * c, d = g.k.d, h = g.k.heads, r = g.k.rows;
    int64_t groups = g.k.groups;
    cudaStream_t s = gpu_stream(l);
    wa_work wk;
    work_floats(&g, l, &wk);
    /* v1's table gradient is a weight gradient; v2's goes on through the MLP */
    float *dtab = g.k.p.v2 ? wk.dtable : dw + o->table;

    /* the windows of dy (the scatter's transpose is the gather); then the projection:
     * dW_proj = dYw^T C, db_proj = column sums, dC = dYw W_proj */
    GPU_CUDA(err, smk_wa_gather, wk.dyw, l->dout->data, g.k, s);
    if (gemm(l, c, c, r, 1.0f, one(wk.dyw, c, 1), one(g.ctx, c, 0), 0.0f, dw + o->proj_w, c, 0, 1,
             err))
        return -1;
    if (o->proj_b >= 0)
        GPU_CUDA(err, smk_column_sums, dw + o->proj_b, wk.dyw, c, r, c, s);
    if (gemm(l, r, c, c, 1.0f, one(wk.dyw, c, 0), one(w + o->proj_w, c, 0), 0.0f, wk.dctx, c, 0, 1,
             err))
        return -1;

    /* per head over every window: dv = P^T dC, dP = dC v^T (into dS) */
    for (int64_t hd = 0; hd < h; hd++) {
        mat pt = {g.prob + hd * nn, n, h * nn, 1}, dc = {wk.dctx + hd * d, c, n * c, 0};
        mat vt = {g.qkv + 2 * c + hd * d, c3, n * c3, 1};
        if (gemm(l, n, d, n, 1.0f, pt, dc, 0.0f, wk.dqkv + 2 * c + hd * d, c3, n * c3, groups,
                 err) ||
            gemm(l, n, n, d, 1.0f, dc, vt, 0.0f, wk.ds + hd * nn, n, h * nn, groups, err))
            return -1;
    }
    /* through the softmax: dS = P (dP - rowsum(dP P)); the bias takes dS as it is */
    GPU_CUDA(err, cudaMemsetAsync, dtab, 0, (size_t)(g.t * h) * sizeof(float), s);
    GPU_CUDA(err, smk_wa_softmax_backward, wk.ds, g.prob, dtab, g.k, s);
    /* S = a q k^T: dq = dS k, dk = dS^T q here; the kernel below scales them by a (and v2's
     * logit_scale gradient, and the normalisation's) */
    for (int64_t hd = 0; hd < h; hd++) {
        mat ds = {wk.ds + hd * nn, n, h * nn, 0}, dst = {wk.ds + hd * nn, n, h * nn, 1};
        mat q = {g.qkv + hd * d, c3, n * c3, 0}, k = {g.qkv + c + hd * d, c3, n * c3, 0};
        if (gemm(l, n, d, n, 1.0f, ds, k, 0.0f, wk.dqkv + hd * d, c3, n * c3, groups, err) ||
            gemm(l, n, d, n, 1.0f, dst, q, 0.0f, wk.dqkv + c + hd * d, c3, n * c3, groups, err))
            return -1;
    }
    if (o->logit_scale >= 0)
        GPU_CUDA(err, cudaMemsetAsync, dw + o->logit_scale, 0, (size_t)h * sizeof(float), s);
    GPU_CUDA(err, smk_wa_qk_grad, wk.dqkv, g.qkv, g.norms,
             o->logit_scale >= 0 ? dw + o->logit_scale : NULL, scale_of(&g, w), g.k, s);

    /* qkv: dW_qkv = dQKV^T Xw, db_qkv, dXw = dQKV W_qkv (into dYw's buffer) */
    if (gemm(l, c3, c, r, 1.0f, one(wk.dqkv, c3, 1), one(g.xw, c, 0), 0.0f, dw + o->qkv_w, c, 0, 1,
             err))
        return -1;
    if (o->qkv_b >= 0) {
        GPU_CUDA(err, smk_column_sums, dw + o->qkv_b, wk.dqkv, c3, r, c3, s);
        if (g.k.p.v2) /* zeroed in every forward: no gradient reaches it */
            GPU_CUDA(err, cudaMemsetAsync, dw + o->qkv_b + c, 0, (size_t)c * sizeof(float), s);
    }
    if (l->din[0].data) {
        if (gemm(l, r, c, c3, 1.0f, one(wk.dqkv, c3, 0), one(w + o->qkv_w, c, 0), 0.0f, wk.dyw, c,
                 0, 1, err))
            return -1;
        GPU_CUDA(err, smk_wa_scatter, l->din[0].data, wk.dyw, g.k, 1, s);
    }
    if (g.k.p.v2 && cpb_backward(l, &g, &wk, err))
        return -1;
    return 0;
}

static const struct sm_gpu_kernels window_attention_gpu_kernels = {
    SM_GPU_KERNELS_INIT,     .state_size = wa_state_size, .init = wa_init,
    .setup = wa_setup,       .work_size = wa_work_size,   .forward = wa_forward,
    .backward = wa_backward,
};

SM_DEFINE_GPU_KERNELS(window_attention_gpu_kernels)
