/*
 * CPU kernels of attention (kernels.h, struct sm_cpu_kernels): multi-head self-attention over
 * each sample's S x E sequence, with OpenBLAS sgemm for every product. R = batch x S rows;
 * h heads of d = E / h features; Q, K, V are column blocks of one R x 3E matrix.
 *
 *   forward    Q, K, V = X W_q^T + b_q, ...              three R x E x E products
 *              for each sample and head: P = softmax(Q K^T / sqrt(d))  (causal: j > i masked)
 *                                        C = P V          (C: the head's columns of R x E)
 *              Y = C W_o^T + b_o
 *   backward   dC = dY W_o,  dW_o = dY^T C,  db_o = column sums of dY
 *              per head: dV = P^T dC,  dP = dC V^T,  dA = P (dP - rowsum(dP P)) / sqrt(d)
 *                        dQ = dA K,  dK = dA^T Q
 *              dX += dQ W_q + dK W_k + dV W_v,  dW_q = dQ^T X, ...
 * State: Q K V, every head's P, and C (what backward reads). Weights in PyTorch's order:
 * packed (nn.MultiheadAttention): in_proj_weight 3E x E, in_proj_bias, out_proj weight and
 * bias; packed=false (BERT): query, key, value, output each weight then bias.
 */
#include <cblas.h>
#include <math.h>

#include "attention.h"
#include "cpu_util.h"

typedef struct attn_geom {
    int64_t n, s, e, h, d, r;
    const float *w[4], *b[4]; /* q, k, v, output; b NULL without bias */
    float *dw[4], *db[4];
    float *qkv, *p, *ctx;     /* state */
    int causal;
} attn_geom;

static attn_geom geom_of(const sm_layer_io *l)
{
    const attention_params *p = l->params;
    attn_geom g = {0};
    g.n = l->in[0].n;
    g.s = l->in[0].shape.dim[0];
    g.e = p->dim;
    g.h = p->heads;
    g.d = g.e / g.h;
    g.r = g.n * g.s;
    g.causal = p->causal;
    int64_t ee = g.e * g.e, at[4], bt[4];
    for (int t = 0; t < 4; t++) {
        if (p->packed) { /* W_q W_k W_v [b_q b_k b_v] W_o [b_o] */
            at[t] = t < 3 ? t * ee : 3 * ee + (p->bias ? 3 * g.e : 0);
            bt[t] = t < 3 ? 3 * ee + t * g.e : at[3] + ee;
        } else { /* W_q [b_q] W_k [b_k] W_v [b_v] W_o [b_o] */
            at[t] = t * (ee + (p->bias ? g.e : 0));
            bt[t] = at[t] + ee;
        }
        if (l->w) {
            g.w[t] = l->w + at[t];
            g.b[t] = p->bias ? l->w + bt[t] : NULL;
        }
        if (l->dw) {
            g.dw[t] = l->dw + at[t];
            g.db[t] = p->bias ? l->dw + bt[t] : NULL;
        }
    }
    if (l->state) {
        g.qkv = l->state;
        g.p = g.qkv + g.r * 3 * g.e;
        g.ctx = g.p + g.n * g.h * g.s * g.s;
    }
    return g;
}

static size_t attn_state_size(const sm_layer_io *l)
{
    attn_geom g = geom_of(l);
    return (size_t)(g.r * 4 * g.e + g.n * g.h * g.s * g.s) * sizeof(float);
}

static size_t attn_work_size(const sm_layer_io *l)
{
    attn_geom g = geom_of(l);
    return (size_t)(g.r * 4 * g.e + g.s * g.s) * sizeof(float);
}

/* Matrices U(-1/sqrt(E), 1/sqrt(E)), biases 0. */
static void attn_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    attn_geom g = geom_of(l);
    cpu_scale(w, l->n_w, 1.0f / sqrtf((float)g.e));
    for (int t = 0; t < 4; t++)
        if (g.b[t])
            memset((float *)g.b[t], 0, (size_t)g.e * sizeof(float));
}

/* y (R x E, row stride ld) = x (R x E) W^T + b */
static void project(const attn_geom *g, const float *x, const float *w, const float *b, float *y,
                    int64_t ld)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->r, (int)g->e, (int)g->e, 1.0f, x,
                (int)g->e, w, (int)g->e, 0.0f, y, (int)ld);
    if (b)
        for (int64_t i = 0; i < g->r; i++)
            for (int64_t j = 0; j < g->e; j++)
                y[i * ld + j] += b[j];
}

/* Row-wise softmax of the S x S scores, the upper triangle masked when causal. */
static void softmax_rows(const attn_geom *g, float *a)
{
    for (int64_t i = 0; i < g->s; i++) {
        float *row = a + i * g->s;
        int64_t len = g->causal ? i + 1 : g->s;
        float mx = row[0];
        for (int64_t j = 1; j < len; j++)
            mx = row[j] > mx ? row[j] : mx;
        float sum = 0;
        for (int64_t j = 0; j < len; j++)
            sum += row[j] = expf(row[j] - mx);
        for (int64_t j = 0; j < len; j++)
            row[j] /= sum;
        for (int64_t j = len; j < g->s; j++)
            row[j] = 0;
    }
}

static int attn_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    attn_geom g = geom_of(l);
    int64_t e3 = 3 * g.e;
    for (int t = 0; t < 3; t++)
        project(&g, l->in[0].data, g.w[t], g.b[t], g.qkv + t * g.e, e3);
    float scale = 1.0f / sqrtf((float)g.d);
    for (int64_t n = 0; n < g.n; n++)
        for (int64_t h = 0; h < g.h; h++) {
            const float *q = g.qkv + n * g.s * e3 + h * g.d;
            float *p = g.p + (n * g.h + h) * g.s * g.s;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g.s, (int)g.s, (int)g.d,
                        scale, q, (int)e3, q + g.e, (int)e3, 0.0f, p, (int)g.s);
            softmax_rows(&g, p);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.s,
                        1.0f, p, (int)g.s, q + 2 * g.e, (int)e3, 0.0f,
                        g.ctx + n * g.s * g.e + h * g.d, (int)g.e);
        }
    project(&g, g.ctx, g.w[3], g.b[3], l->out->data, g.e);
    return 0;
}

static void column_sums(const float *m, int64_t rows, int64_t cols, int64_t ld, float *out)
{
    memset(out, 0, (size_t)cols * sizeof *out);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            out[j] += m[i * ld + j];
}

/* dW (E x E) = dy^T x and db for one projection whose output gradient is dy (row stride ld). */
static void projection_grads(const attn_geom *g, const float *dy, int64_t ld, const float *x,
                             float *dw, float *db)
{
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->e, (int)g->e, (int)g->r, 1.0f, dy,
                (int)ld, x, (int)g->e, 0.0f, dw, (int)g->e);
    if (db)
        column_sums(dy, g->r, g->e, ld, db);
}

static int attn_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    attn_geom g = geom_of(l);
    int64_t e3 = 3 * g.e;
    const float *dy = l->dout->data, *x = l->in[0].data;
    float *dctx = l->work, *dqkv = dctx + g.r * g.e, *dp = dqkv + g.r * e3;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.r, (int)g.e, (int)g.e, 1.0f, dy,
                (int)g.e, g.w[3], (int)g.e, 0.0f, dctx, (int)g.e);
    if (l->dw)
        projection_grads(&g, dy, g.e, g.ctx, g.dw[3], g.db[3]);
    float scale = 1.0f / sqrtf((float)g.d);
    for (int64_t n = 0; n < g.n; n++)
        for (int64_t h = 0; h < g.h; h++) {
            const float *q = g.qkv + n * g.s * e3 + h * g.d, *p = g.p + (n * g.h + h) * g.s * g.s;
            const float *dc = dctx + n * g.s * g.e + h * g.d;
            float *dq = dqkv + n * g.s * e3 + h * g.d;
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.s,
                        1.0f, p, (int)g.s, dc, (int)g.e, 0.0f, dq + 2 * g.e, (int)e3);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g.s, (int)g.s, (int)g.d,
                        1.0f, dc, (int)g.e, q + 2 * g.e, (int)e3, 0.0f, dp, (int)g.s);
            for (int64_t i = 0; i < g.s; i++) { /* through the softmax and the scaling */
                float *row = dp + i * g.s;
                const float *pr = p + i * g.s;
                float dot = 0;
                for (int64_t j = 0; j < g.s; j++)
                    dot += row[j] * pr[j];
                for (int64_t j = 0; j < g.s; j++)
                    row[j] = pr[j] * (row[j] - dot) * scale;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.s,
                        1.0f, dp, (int)g.s, q + g.e, (int)e3, 0.0f, dq, (int)e3);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.s,
                        1.0f, dp, (int)g.s, q, (int)e3, 0.0f, dq + g.e, (int)e3);
        }
    for (int t = 0; t < 3; t++) {
        if (l->din[0].data)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.r, (int)g.e, (int)g.e,
                        1.0f, dqkv + t * g.e, (int)e3, g.w[t], (int)g.e, 1.0f, l->din[0].data,
                        (int)g.e);
        if (l->dw)
            projection_grads(&g, dqkv + t * g.e, e3, x, g.dw[t], g.db[t]);
    }
    return 0;
}

const struct sm_cpu_kernels attention_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .work_size = attn_work_size,
    .state_size = attn_state_size,
    .init = attn_init,
    .forward = attn_forward,
    .backward = attn_backward,
};
