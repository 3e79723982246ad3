/*
 * CPU kernels of window_attention (kernels.h, struct sm_cpu_kernels): torchvision's
 * shifted_window_attention on a batch of H x W x C samples, with OpenBLAS sgemm for every
 * product. Its own code rather than attention_cpu.c's: the windows, the mask and v2's cosine
 * attention and bias MLP sit between every step of it.
 *
 * R = batch nW N rows of C features, h heads of d = C / h; row (b, window, token) is the token
 * of window (wi, wj) at (r, c) inside it, window = wi (Wp / ww) + wj, token = r ww + c, as the
 * partition's view-permute-reshape orders them. Its pixel in the padded map rolled by -shift is
 * (wi wh + r, wj ww + c), which torch.roll takes from the padded map's ((. + shift) mod size):
 * the input pixel there, or zeros where that lies in the padding. Reversing the windows, rolling
 * back and cropping send the row to that same pixel, so one map (source_of) serves both ways.
 *
 *   forward   Xw = the windows of x (gather)
 *             QKV = Xw W_qkv^T + b_qkv    (v2: the key third of b_qkv taken as 0)
 *             v2: q, k = q / max(|q|, 1e-12), k / max(|k|, 1e-12) per row and head, in place
 *             per window and head: S = a q k^T + B + M, P = softmax(S), C = P v
 *               a = d^-1/2 (v1) or exp(min(logit_scale, ln 100)) (v2); M = -100 between
 *               tokens of different regions when shifted, else 0
 *             Yw = C W_proj^T + b_proj, scattered back to y
 *   backward  dYw = the windows of dy; dW_proj = dYw^T C, db_proj = column sums, dC = dYw W_proj
 *             per window and head: dv = P^T dC, dP = dC v^T, dS = P (dP - rowsum(dP P))
 *               dB += dS; dq = a dS k, dk = a dS^T q
 *               v2: dlogit_scale += sum(q (dS k)) exp(.) where not clamped; then through the
 *               normalisation: dq_raw = (dq - q (q . dq)) / |q_raw| (dq / 1e-12 when clamped)
 *             dW_qkv = dQKV^T Xw, db_qkv = column sums (v2: 0 for the key third),
 *             dx += the scatter of dQKV W_qkv
 *
 * B[h][i][j] = table[rel(i, j)][h] (window_attention.h, wa_rel_index). v1: table is the
 * weight relative_position_bias_table. v2: table = 16 sigmoid(relu(coords W0^T + b0) W2^T) on
 * the fixed T x 2 coordinate table (coords_table below), computed once per forward; its
 * backward goes dB -> dtable -> through 16 sigmoid -> through the MLP to dW2, dW0, db0.
 *
 * State (what backward reads): Xw, QKV (v2: q and k normalised), v2's norms |q|, |k| (R x 2h),
 * every head's P, C; v2 also the MLP's hidden activations (T x 512) and the bias table
 * (T x h, after 16 sigmoid). The v1 bias table is the weight itself.
 */
#include <cblas.h>
#include <math.h>
#include <stdint.h>

#include "cpu_util.h"
#include "linear_cpu.h"
#include "window_attention.h"

#define WA_NORM_EPS 1e-12f /* F.normalize's default eps */

typedef struct wa_geom {
    const window_attention_params *p;
    wa_layout lay;
    int64_t n, h_in, w_in, c, heads, d, rows, groups; /* groups: batch nW windows */
    wa_weight_layout wl;
    /* state */
    float *xw, *qkv, *norms, *prob, *ctx, *hidden, *table;
} wa_geom;

static wa_geom geom_of(const sm_layer_io *l)
{
    wa_geom g = {0};
    g.p = l->params;
    const sm_shape *s = &l->in[0].shape;
    g.n = l->in[0].n;
    g.h_in = s->dim[0];
    g.w_in = s->dim[1];
    g.c = g.p->dim;
    g.heads = g.p->heads;
    g.d = g.c / g.heads;
    g.lay = wa_layout_of(g.p, g.h_in, g.w_in);
    g.groups = sm_mul(g.n, g.lay.windows);
    g.rows = sm_mul(g.groups, g.lay.tokens);
    g.wl = wa_weights_of(g.p);
    if (l->state) {
        int64_t r = g.rows, nn = g.lay.tokens * g.lay.tokens;
        g.xw = l->state;
        g.qkv = g.xw + r * g.c;
        g.prob = g.qkv + r * 3 * g.c;
        g.ctx = g.prob + g.groups * g.heads * nn;
        g.norms = g.ctx + r * g.c;
        g.hidden = g.norms + (g.p->v2 ? r * 2 * g.heads : 0);
        g.table = g.hidden + (g.p->v2 ? g.lay.table_rows * WA_CPB_HIDDEN : 0);
    }
    return g;
}

static size_t wa_state_size(const sm_layer_io *l)
{
    wa_geom g = geom_of(l);
    int64_t r = g.rows, nn = sm_mul(g.lay.tokens, g.lay.tokens);
    int64_t floats = sm_add(sm_mul(r, 5 * g.c), sm_mul(sm_mul(g.groups, g.heads), nn));
    if (g.p->v2)
        floats = sm_add(floats, sm_add(sm_mul(r, 2 * g.heads),
                                       sm_mul(g.lay.table_rows, WA_CPB_HIDDEN + g.heads)));
    return cpu_float_bytes(floats);
}

/* Scratch, in this order: Yw, then dYw (reused for dXw) (R x C); dC (R x C); dQKV (R x 3C);
 * one head's dP (N x N); a window's region labels (N); v2's dtable (T x h), coordinate table
 * (T x 2) and dhidden (T x 512). */
typedef struct wa_work {
    float *dyw, *dctx, *dqkv, *dp, *labels, *dtable, *coords, *dhidden;
} wa_work;

static int64_t work_floats(const wa_geom *g, const sm_layer_io *l, wa_work *k)
{
    int64_t n = g->lay.tokens, t = g->lay.table_rows;
    int64_t sizes[8] = {sm_mul(g->rows, g->c),
                        sm_mul(g->rows, g->c),
                        sm_mul(g->rows, 3 * g->c),
                        sm_mul(n, n),
                        n,
                        g->p->v2 ? sm_mul(t, g->heads) : 0,
                        g->p->v2 ? 2 * t : 0,
                        g->p->v2 ? sm_mul(t, WA_CPB_HIDDEN) : 0};
    float **at[8] = {&k->dyw,    &k->dctx,   &k->dqkv,   &k->dp,
                     &k->labels, &k->dtable, &k->coords, &k->dhidden};
    int64_t total = 0;
    for (int i = 0; i < 8; i++) {
        if (l->work)
            *at[i] = (float *)l->work + total;
        total = sm_add(total, sizes[i]);
    }
    return total;
}

static size_t wa_work_size(const sm_layer_io *l)
{
    wa_geom g = geom_of(l);
    wa_work k;
    return cpu_float_bytes(work_floats(&g, l, &k));
}

/* torchvision's initialisation (window_attention.h, shared with the GPU kernels). */
static void wa_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    wa_init_weights(l->params, w);
}

/* The input pixel (y, x) that row `row` of the windows comes from and goes back to; 0 when it
 * lies in the padding (window_attention.h). */
static int source_of(const wa_geom *g, int64_t row, int64_t *b, int64_t *y, int64_t *x)
{
    return wa_source(g->p, &g->lay, g->h_in, g->w_in, row, b, y, x);
}

/* windows (R x C) = the rows of x (batch x H x W x C) they come from, zeros for the padding */
static void gather(const wa_geom *g, const float *x, float *windows)
{
    for (int64_t r = 0; r < g->rows; r++) {
        int64_t b, y, xx;
        float *dst = windows + r * g->c;
        if (source_of(g, r, &b, &y, &xx))
            memcpy(dst, x + ((b * g->h_in + y) * g->w_in + xx) * g->c,
                   (size_t)g->c * sizeof(float));
        else
            memset(dst, 0, (size_t)g->c * sizeof(float));
    }
}

/* The rows of windows (R x C) that are pixels of x: written (add = 0) or added (add = 1). */
static void scatter(const wa_geom *g, const float *windows, float *x, int add)
{
    for (int64_t r = 0; r < g->rows; r++) {
        int64_t b, y, xx;
        if (!source_of(g, r, &b, &y, &xx))
            continue;
        float *dst = x + ((b * g->h_in + y) * g->w_in + xx) * g->c;
        if (add)
            cpu_accumulate(dst, windows + r * g->c, g->c);
        else
            memcpy(dst, windows + r * g->c, (size_t)g->c * sizeof(float));
    }
}

/* The region of torchvision's mask each token of window `win` (of a sample) lies in, as a
 * float (small integers, exact); all equal when not shifted. */
static void window_labels(const wa_geom *g, int64_t win, float *labels)
{
    for (int64_t t = 0; t < g->lay.tokens; t++)
        labels[t] = (float)wa_label(g->p, &g->lay, win, t);
}

/* v2's relative_coords_table (T x 2, window_attention.h). */
static void coords_table(const window_attention_params *p, float *coords)
{
    int64_t t = (2 * p->window[0] - 1) * (2 * p->window[1] - 1);
    for (int64_t i = 0; i < t; i++)
        for (int k = 0; k < 2; k++)
            coords[2 * i + k] = wa_coord(p, i, k);
}

/* v2's bias table (T x h) into g->table: 16 sigmoid(relu(coords W0^T + b0) W2^T); the hidden
 * activations (after the ReLU) stay in g->hidden for backward. coords: T x 2 scratch. */
static void cpb_forward(const wa_geom *g, const float *w, float *coords)
{
    int64_t t = g->lay.table_rows;
    const wa_weight_layout *o = &g->wl;
    coords_table(g->p, coords);
    linear_cpu_forward(t, 2, WA_CPB_HIDDEN, coords, 2, w + o->cpb_w0, w + o->cpb_b0, g->hidden,
                       WA_CPB_HIDDEN);
    for (int64_t i = 0; i < t * WA_CPB_HIDDEN; i++)
        g->hidden[i] = g->hidden[i] > 0 ? g->hidden[i] : 0;
    linear_cpu_forward(t, WA_CPB_HIDDEN, g->heads, g->hidden, WA_CPB_HIDDEN, w + o->cpb_w2, NULL,
                       g->table, g->heads);
    for (int64_t i = 0; i < t * g->heads; i++)
        g->table[i] = 16.0f / (1.0f + expf(-g->table[i]));
}

/* Each head's score factor: d^-1/2 (v1), exp(min(logit_scale, ln 100)) (v2). */
static float head_scale(const wa_geom *g, const float *w, int64_t head)
{
    if (!g->p->v2)
        return 1.0f / sqrtf((float)g->d);
    return expf(fminf(w[g->wl.logit_scale + head], logf(100.0f)));
}

/* q and k of every row and head divided by max(norm, eps), in place; the norms (before the
 * clamp) into g->norms, row by row: q's h then k's h. */
static void normalise_qk(const wa_geom *g)
{
    for (int64_t r = 0; r < g->rows; r++)
        for (int64_t part = 0; part < 2; part++)
            for (int64_t head = 0; head < g->heads; head++) {
                float *v = g->qkv + r * 3 * g->c + part * g->c + head * g->d;
                float norm = sqrtf(cpu_dot(v, v, g->d));
                g->norms[r * 2 * g->heads + part * g->heads + head] = norm;
                float inv = 1.0f / fmaxf(norm, WA_NORM_EPS);
                for (int64_t k = 0; k < g->d; k++)
                    v[k] *= inv;
            }
}

static int wa_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    wa_geom g = geom_of(l);
    const wa_weight_layout *o = &g.wl;
    const float *w = l->w;
    int64_t n = g.lay.tokens, c3 = 3 * g.c;
    wa_work wk;
    work_floats(&g, l, &wk);
    float *yw = wk.dyw, *labels = wk.labels;
    const float *table = o->table >= 0 ? w + o->table : g.table;
    if (g.p->v2)
        cpb_forward(&g, w, wk.coords);

    gather(&g, l->in[0].data, g.xw);
    linear_cpu_forward(g.rows, g.c, c3, g.xw, g.c, w + o->qkv_w, NULL, g.qkv, c3);
    if (o->qkv_b >= 0) /* v2: torchvision zeroes the key third of the bias in every forward */
        for (int64_t r = 0; r < g.rows; r++)
            for (int64_t j = 0; j < c3; j++)
                if (!g.p->v2 || j < g.c || j >= 2 * g.c)
                    g.qkv[r * c3 + j] += w[o->qkv_b + j];
    if (g.p->v2)
        normalise_qk(&g);

    for (int64_t win = 0; win < g.groups; win++) {
        window_labels(&g, win % g.lay.windows, labels);
        for (int64_t head = 0; head < g.heads; head++) {
            const float *q = g.qkv + win * n * c3 + head * g.d, *k = q + g.c, *v = q + 2 * g.c;
            float *p = g.prob + (win * g.heads + head) * n * n;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)g.d,
                        head_scale(&g, w, head), q, (int)c3, k, (int)c3, 0.0f, p, (int)n);
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++)
                    p[i * n + j] += table[wa_rel_index(g.p, i, j) * g.heads + head] +
                                    (labels[i] != labels[j] ? -100.0f : 0.0f);
            cpu_softmax_rows(p, n, n, 0);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)g.d, (int)n, 1.0f,
                        p, (int)n, v, (int)c3, 0.0f, g.ctx + win * n * g.c + head * g.d, (int)g.c);
        }
    }
    linear_cpu_forward(g.rows, g.c, g.c, g.ctx, g.c, w + o->proj_w,
                       o->proj_b >= 0 ? w + o->proj_b : NULL, yw, g.c);
    scatter(&g, yw, l->out->data, 0);
    return 0;
}

/* The gradient of q or k (d values, normalised in place by forward) through F.normalize:
 * (dv - v (v . dv)) / norm, or dv / eps where the norm was clamped (no gradient through it). */
static void normalise_grad(const float *v, float norm, float *dv, int64_t d)
{
    if (norm < WA_NORM_EPS) {
        for (int64_t k = 0; k < d; k++)
            dv[k] /= WA_NORM_EPS;
        return;
    }
    float dot = cpu_dot(v, dv, d);
    for (int64_t k = 0; k < d; k++)
        dv[k] = (dv[k] - v[k] * dot) / norm;
}

/* v2: dtable (T x h, the gradient of the table after 16 sigmoid) back through the sigmoid and
 * the MLP into dW2, dW0 and db0. dhidden, coords: T x 512 and T x 2 scratch. */
static void cpb_backward(const wa_geom *g, const float *w, float *dw, float *dtable, float *dhidden,
                         float *coords)
{
    int64_t t = g->lay.table_rows;
    const wa_weight_layout *o = &g->wl;
    for (int64_t i = 0; i < t * g->heads; i++) { /* table = 16 s(z): d/dz = 16 s (1 - s) */
        float s = g->table[i] / 16.0f;
        dtable[i] *= 16.0f * s * (1.0f - s);
    }
    /* z = hidden W2^T: dW2 (h x 512) = dz^T hidden, dhidden = dz W2, zero where ReLU cut */
    linear_cpu_weight_grad(t, WA_CPB_HIDDEN, g->heads, dtable, g->heads, g->hidden, WA_CPB_HIDDEN,
                           dw + o->cpb_w2, NULL);
    linear_cpu_input_grad(t, WA_CPB_HIDDEN, g->heads, dtable, g->heads, w + o->cpb_w2, 0.0f,
                          dhidden, WA_CPB_HIDDEN);
    for (int64_t i = 0; i < t * WA_CPB_HIDDEN; i++)
        dhidden[i] = g->hidden[i] > 0 ? dhidden[i] : 0;
    /* hidden = relu(coords W0^T + b0): dW0 (512 x 2) = dhidden^T coords, db0 = column sums */
    coords_table(g->p, coords);
    linear_cpu_weight_grad(t, 2, WA_CPB_HIDDEN, dhidden, WA_CPB_HIDDEN, coords, 2, dw + o->cpb_w0,
                           dw + o->cpb_b0);
}

static int wa_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    wa_geom g = geom_of(l);
    const wa_weight_layout *o = &g.wl;
    const float *w = l->w;
    float *dw = l->dw;
    int64_t n = g.lay.tokens, c3 = 3 * g.c, t = g.lay.table_rows;
    wa_work wk;
    work_floats(&g, l, &wk);
    float *dyw = wk.dyw, *dctx = wk.dctx, *dqkv = wk.dqkv, *dp = wk.dp;
    /* v1's table gradient is a weight gradient; v2's goes on through the MLP */
    float *dtab = g.p->v2 ? wk.dtable : dw + o->table;

    /* the windows of dy (the scatter's transpose is the gather); then the projection:
     * dW_proj = dYw^T C, db_proj = column sums, dC = dYw W_proj */
    gather(&g, l->dout->data, dyw);
    linear_cpu_weight_grad(g.rows, g.c, g.c, dyw, g.c, g.ctx, g.c, dw + o->proj_w,
                           o->proj_b >= 0 ? dw + o->proj_b : NULL);
    linear_cpu_input_grad(g.rows, g.c, g.c, dyw, g.c, w + o->proj_w, 0.0f, dctx, g.c);

    memset(dtab, 0, (size_t)(t * g.heads) * sizeof(float));
    if (o->logit_scale >= 0)
        memset(dw + o->logit_scale, 0, (size_t)g.heads * sizeof(float));
    for (int64_t win = 0; win < g.groups; win++)
        for (int64_t head = 0; head < g.heads; head++) {
            int64_t off = win * n * c3 + head * g.d;
            const float *q = g.qkv + off, *k = q + g.c, *v = q + 2 * g.c;
            const float *p = g.prob + (win * g.heads + head) * n * n;
            const float *dc = dctx + win * n * g.c + head * g.d;
            float *dq = dqkv + off, *dk = dq + g.c, *dv = dq + 2 * g.c;
            float scale = head_scale(&g, w, head);
            /* dv = P^T dC, dP = dC v^T */
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)g.d, (int)n, 1.0f, p,
                        (int)n, dc, (int)g.c, 0.0f, dv, (int)c3);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)g.d, 1.0f, dc,
                        (int)g.c, v, (int)c3, 0.0f, dp, (int)n);
            /* through the softmax: dS = P (dP - rowsum(dP P)); the bias takes dS as it is */
            for (int64_t i = 0; i < n; i++) {
                float *row = dp + i * n;
                const float *pr = p + i * n;
                float dot = cpu_dot(row, pr, n);
                for (int64_t j = 0; j < n; j++) {
                    row[j] = pr[j] * (row[j] - dot);
                    dtab[wa_rel_index(g.p, i, j) * g.heads + head] += row[j];
                }
            }
            /* S = a q k^T: dq = a dS k, dk = a dS^T q (q, k normalised in v2) */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)g.d, (int)n, 1.0f,
                        dp, (int)n, k, (int)c3, 0.0f, dq, (int)c3);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)g.d, (int)n, scale,
                        dp, (int)n, q, (int)c3, 0.0f, dk, (int)c3);
            if (g.p->v2 && w[o->logit_scale + head] <= logf(100.0f)) {
                /* a = exp(logit_scale) below the clamp: da/dlogit_scale = a, and
                 * dL/da = sum dS (q k^T) = sum q (dS k) */
                float da = 0;
                for (int64_t i = 0; i < n; i++)
                    da += cpu_dot(q + i * c3, dq + i * c3, g.d);
                dw[o->logit_scale + head] += da * scale;
            }
            for (int64_t i = 0; i < n; i++)
                for (int64_t kk = 0; kk < g.d; kk++)
                    dq[i * c3 + kk] *= scale;
        }
    if (g.p->v2) /* back through F.normalize */
        for (int64_t r = 0; r < g.rows; r++)
            for (int64_t part = 0; part < 2; part++)
                for (int64_t head = 0; head < g.heads; head++) {
                    int64_t off = r * c3 + part * g.c + head * g.d;
                    normalise_grad(g.qkv + off, g.norms[r * 2 * g.heads + part * g.heads + head],
                                   dqkv + off, g.d);
                }

    /* qkv: dW_qkv = dQKV^T Xw, db_qkv, dXw = dQKV W_qkv (into dYw's buffer) */
    linear_cpu_weight_grad(g.rows, g.c, c3, dqkv, c3, g.xw, g.c, dw + o->qkv_w,
                           o->qkv_b >= 0 ? dw + o->qkv_b : NULL);
    if (o->qkv_b >= 0) {
        if (g.p->v2) /* zeroed in every forward: no gradient reaches it */
            memset(dw + o->qkv_b + g.c, 0, (size_t)g.c * sizeof(float));
    }
    if (l->din[0].data) {
        linear_cpu_input_grad(g.rows, g.c, c3, dqkv, c3, w + o->qkv_w, 0.0f, dyw, g.c);
        scatter(&g, dyw, l->din[0].data, 1);
    }
    if (g.p->v2)
        cpb_backward(&g, w, dw, wk.dtable, wk.dhidden, wk.coords);
    return 0;
}

const struct sm_cpu_kernels window_attention_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .work_size = wa_work_size,
    .state_size = wa_state_size,
    .init = wa_init,
    .forward = wa_forward,
    .backward = wa_backward,
};

SM_DEFINE_CPU_KERNELS(window_attention_cpu_kernels)
