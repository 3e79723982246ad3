/*
 * CPU kernels of attention (kernels.h, struct sm_cpu_kernels): multi-head attention over each
 * sequence, with OpenBLAS sgemm for every product (the projections: common/linear_cpu.h). A sample
 * is one sequence S x E or G of them (G x S x E); the key and value rows come from the sequence
 * itself (self-attention) or from the memory, the second input (M x E, cross-attention; G = 1). Rq
 * = batch x G x S query rows, Rk = batch x G x M key rows; h heads of d = E / h features; Q is Rq x
 * E, K and V the column blocks of one Rk x 2E matrix.
 *
 *   forward    Q = X W_q^T + b_q,  K, V = Mem W_k^T + b_k, ...   (Mem = X without a memory)
 *              for each sequence and head: P = softmax(c Q K^T + B)  (causal: j > i masked)
 *                                          C = P V       (C: the head's columns of Rq x E)
 *              Y = C W_o^T + b_o
 *   backward   dC = dY W_o,  dW_o = dY^T C,  db_o = column sums of dY
 *              per sequence and head: dV = P^T dC,  dP = dC V^T,
 *                        dS = P (dP - rowsum(dP P))  (the gradient of c Q K^T + B)
 *                        dB += dS,  dQ = c dS K,  dK = c dS^T Q
 *              dX += dQ W_q,  dMem += dK W_k + dV W_v,  dW_q = dQ^T X,  dW_k = dK^T Mem, ...
 * c = 1 / sqrt(d), or 1 / sqrt(E) with scale=dim. B (rel_pos=W): B[i][j] = table[idx(i, j)][head]
 * (attention.h); one table entry serves several (i, j), so dB sums into it over every pair,
 * sequence and sample. State: Q, K V, every head's P, and C (what backward reads). Weights in
 * PyTorch's order: with rel_pos, the table (2W - 1)^2 x h first (MaxViT's
 * relative_position_bias_table, a parameter of the module itself, which named_parameters()
 * lists before those of its to_qkv and merge); then packed (nn.MultiheadAttention):
 * in_proj_weight 3E x E, in_proj_bias, out_proj weight and bias; packed=false (BERT): query,
 * key, value, output each weight then bias. The geometry and the initial weights are
 * attention.h's, shared with the GPU kernels (attention_gpu.c).
 */
#include <cblas.h>
#include <math.h>
#include <stdint.h>

#include "attention.h"
#include "cpu_util.h"
#include "linear_cpu.h"

/* Q, K V, the scores of every head, the context. */
static size_t attn_state_size(const sm_layer_io *l)
{
    attention_geom g = attention_geom_of(l);
    return cpu_float_bytes(attention_state_floats(&g));
}

/* dC and dQ (Rq x E each), dK dV (Rk x 2E), one head's dP (S x M). */
static size_t attn_work_size(const sm_layer_io *l)
{
    attention_geom g = attention_geom_of(l);
    int64_t rows = sm_add(sm_mul(2 * g.e, g.rq), sm_mul(2 * g.e, g.rk));
    return cpu_float_bytes(sm_add(rows, sm_mul(g.s, g.m)));
}

/* The relative position bias of one head added to its S x M scores (S = M = W^2). */
static void add_rel_bias(const attention_geom *g, int64_t head, float *a)
{
    for (int64_t i = 0; i < g->s; i++)
        for (int64_t j = 0; j < g->m; j++)
            a[i * g->m + j] += g->table[attention_rel_index(g->win, i, j) * g->h + head];
}

static int attn_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    attention_geom g = attention_geom_of(l);
    int64_t e2 = 2 * g.e;
    linear_cpu_forward(g.rq, g.e, g.e, g.x, g.e, g.w[0], g.b[0], g.q, g.e);
    for (int t = 1; t < 3; t++)
        linear_cpu_forward(g.rk, g.e, g.e, g.mem, g.e, g.w[t], g.b[t], g.kv + (t - 1) * g.e, e2);
    for (int64_t t = 0; t < g.seqs; t++)
        for (int64_t h = 0; h < g.h; h++) {
            const float *q = g.q + t * g.s * g.e + h * g.d, *k = g.kv + t * g.m * e2 + h * g.d;
            float *p = g.p + (t * g.h + h) * g.s * g.m;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g.s, (int)g.m, (int)g.d,
                        g.scale, q, (int)g.e, k, (int)e2, 0.0f, p, (int)g.m);
            if (g.table)
                add_rel_bias(&g, h, p);
            cpu_softmax_rows(p, g.s, g.m, g.causal);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.m,
                        1.0f, p, (int)g.m, k + g.e, (int)e2, 0.0f, g.ctx + t * g.s * g.e + h * g.d,
                        (int)g.e);
        }
    linear_cpu_forward(g.rq, g.e, g.e, g.ctx, g.e, g.w[3], g.b[3], l->out->data, g.e);
    return 0;
}

/* dP of one head (S x M) in place into dS, through the softmax; dB summed into the table's
 * gradient. */
static void scores_grad(const attention_geom *g, int64_t head, const float *p, float *dp)
{
    for (int64_t i = 0; i < g->s; i++) {
        float *row = dp + i * g->m;
        const float *pr = p + i * g->m;
        float dot = 0;
        for (int64_t j = 0; j < g->m; j++)
            dot += row[j] * pr[j];
        for (int64_t j = 0; j < g->m; j++)
            row[j] = pr[j] * (row[j] - dot);
        if (g->dtable)
            for (int64_t j = 0; j < g->m; j++)
                g->dtable[attention_rel_index(g->win, i, j) * g->h + head] += row[j];
    }
}

static int attn_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    attention_geom g = attention_geom_of(l);
    int64_t e2 = 2 * g.e;
    const float *dy = l->dout->data;
    float *dctx = l->work, *dq = dctx + g.rq * g.e, *dkv = dq + g.rq * g.e, *dp = dkv + g.rk * e2;
    linear_cpu_input_grad(g.rq, g.e, g.e, dy, g.e, g.w[3], 0.0f, dctx, g.e);
    if (l->dw)
        linear_cpu_weight_grad(g.rq, g.e, g.e, dy, g.e, g.ctx, g.e, g.dw[3], g.db[3]);
    if (g.dtable) /* summed into below */
        memset(g.dtable, 0, (size_t)attention_table_elems(l->params) * sizeof(float));
    for (int64_t t = 0; t < g.seqs; t++)
        for (int64_t h = 0; h < g.h; h++) {
            int64_t qo = t * g.s * g.e + h * g.d, ko = t * g.m * e2 + h * g.d;
            const float *p = g.p + (t * g.h + h) * g.s * g.m, *dc = dctx + qo;
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g.m, (int)g.d, (int)g.s, 1.0f,
                        p, (int)g.m, dc, (int)g.e, 0.0f, dkv + ko + g.e, (int)e2);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g.s, (int)g.m, (int)g.d, 1.0f,
                        dc, (int)g.e, g.kv + ko + g.e, (int)e2, 0.0f, dp, (int)g.m);
            scores_grad(&g, h, p, dp);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.m,
                        g.scale, dp, (int)g.m, g.kv + ko, (int)e2, 0.0f, dq + qo, (int)g.e);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g.m, (int)g.d, (int)g.s,
                        g.scale, dp, (int)g.m, g.q + qo, (int)g.e, 0.0f, dkv + ko, (int)e2);
        }
    float *dx = l->din[0].data, *dmem = l->n_in == 2 ? l->din[1].data : dx;
    if (dx)
        linear_cpu_input_grad(g.rq, g.e, g.e, dq, g.e, g.w[0], 1.0f, dx, g.e);
    for (int t = 1; t < 3 && dmem; t++)
        linear_cpu_input_grad(g.rk, g.e, g.e, dkv + (t - 1) * g.e, e2, g.w[t], 1.0f, dmem, g.e);
    if (l->dw) {
        linear_cpu_weight_grad(g.rq, g.e, g.e, dq, g.e, g.x, g.e, g.dw[0], g.db[0]);
        for (int t = 1; t < 3; t++)
            linear_cpu_weight_grad(g.rk, g.e, g.e, dkv + (t - 1) * g.e, e2, g.mem, g.e, g.dw[t],
                                   g.db[t]);
    }
    return 0;
}

const struct sm_cpu_kernels attention_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .work_size = attn_work_size,
    .state_size = attn_state_size,
    .init = attention_init,
    .forward = attn_forward,
    .backward = attn_backward,
};

SM_DEFINE_CPU_KERNELS(attention_cpu_kernels)
