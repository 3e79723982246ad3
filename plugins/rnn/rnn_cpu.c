/*
 * CPU kernels of lstm, gru and rnn (kernels.h, struct sm_cpu_kernels), layer by layer and in
 * each layer direction by direction (forward over t = 0 .. S-1, reverse over t = S-1 .. 0), with
 * OpenBLAS sgemm for the products (the input projection: common/linear_cpu.h). R = batch x S
 * rows; the equations are rnn.c's.
 *
 *   forward   P = X_k W_ih^T + b_ih for the whole sequence (one R x G H product), then step by
 *             step Q = h_prev W_hh^T + b_hh (a batch x G H product; b_hh alone at the first
 *             step, h_prev = 0) and the gates from P_t and Q. h goes into the layer's output
 *             at row t, columns dir H .. dir H + H - 1, where the next step reads it back.
 *   backward  backpropagation through time, the steps in reverse order: dh = dY_t + carry;
 *             dA, the gradient of P_t, and dB, of Q (equal but for GRU's n gate, where
 *             dB_n = dA_n r); carry = dB_t W_hh (+ dh z for GRU), and LSTM's cell gradient
 *             carried the same way. Then dW_ih = dA^T X_k, dW_hh = sum over t of
 *             dB_t^T h_prev(t), db_ih and db_hh the column sums of dA and dB, and
 *             dX_k += dA W_ih: the input gradient, or the output gradient of layer k - 1.
 *
 * State, written by every forward: the outputs of layers 0 .. L-2 (the inputs of those above;
 * the last layer's is `out`), and per layer, direction, sample and step RNN_SAVED x H floats:
 * LSTM's i, f, g, o and c, GRU's r, z, n and W_hn h + b_hn (RNN needs only h, in the output).
 * Weights and gradients in PyTorch's order (rnn.h); backward overwrites dw and adds into din,
 * as kernels.h asks.
 */
#include <cblas.h>
#include <limits.h>
#include <math.h>

#include "cpu_util.h"
#include "linear_cpu.h"
#include "rnn.h"
#include "rnn_cell.h"

/* ---- where things live --------------------------------------------------------------------- */

static size_t rnn_state_size(const sm_layer_io *l)
{
    rnn_geom g = rnn_geom_of(l);
    return cpu_float_bytes(rnn_state_floats(&g));
}

static size_t rnn_work_size(const sm_layer_io *l)
{
    rnn_geom g = rnn_geom_of(l);
    if (!rnn_int_fits(&g))
        return SIZE_MAX;
    return cpu_float_bytes(rnn_work_floats(&g, NULL, NULL, 0));
}

/* ---- forward ------------------------------------------------------------------------------- */

/* rows x cols y += b on every row */
static void add_rows(float *y, int64_t rows, int64_t cols, const float *b)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            y[i * cols + j] += b[j];
}

/* Q (batch x G H) = h_prev W_hh^T + b_hh; h_prev NULL at the first step (zero state). h_prev
 * is sample 0's row of the previous step in the layer's output; samples are S D H apart. */
static void hidden_product(const rnn_geom *g, const float *h_prev, const rnn_block *b, float *q)
{
    if (h_prev)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->n, (int)g->gh, (int)g->h, 1.0f,
                    h_prev, (int)(g->s * g->dh), b->w_hh, (int)g->h, 0.0f, q, (int)g->gh);
    else
        memset(q, 0, (size_t)(g->n * g->gh) * sizeof *q);
    if (b->b_hh)
        add_rows(q, g->n, g->gh, b->b_hh);
}

/* The gates of step t of every sample from P and Q; tp is the previous step (first: none). */
static void step_forward(const rnn_geom *g, int64_t t, int64_t tp, int first, int dir,
                         const float *pre, const float *q, float *saved, float *y)
{
    int64_t h = g->h;
    for (int64_t n = 0; n < g->n; n++) {
        int64_t row = n * g->s + t, prev = n * g->s + tp;
        const float *a = pre + row * g->gh, *qn = q + n * g->gh;
        float *out = y + row * g->dh + dir * h;
#if defined(SM_RECURRENT_LSTM)
        float *v = saved + row * RNN_SAVED * h;
        const float *vp = first ? NULL : saved + prev * RNN_SAVED * h;
        for (int64_t j = 0; j < h; j++)
            out[j] =
                rnn_lstm_forward(a[j] + qn[j], a[h + j] + qn[h + j], a[2 * h + j] + qn[2 * h + j],
                                 a[3 * h + j] + qn[3 * h + j], vp, h, j, v);
#elif defined(SM_RECURRENT_GRU)
        float *v = saved + row * RNN_SAVED * h;
        const float *hp = first ? NULL : y + prev * g->dh + dir * h;
        for (int64_t j = 0; j < h; j++) /* qn's n block: W_hn h + b_hn */
            out[j] = rnn_gru_forward(a[j] + qn[j], a[h + j] + qn[h + j], a[2 * h + j],
                                     qn[2 * h + j], hp, h, j, v);
#else
        (void)saved;
        (void)first;
        (void)prev;
        for (int64_t j = 0; j < h; j++)
            out[j] = rnn_simple_forward(a[j] + qn[j], g->relu);
#endif
    }
}

static int rnn_forward(const sm_layer_io *l, sm_error *err)
{
    rnn_geom g = rnn_geom_of(l);
    if (!rnn_int_fits(&g)) {
        sm_error_set(err, RNN_NAME ": a matrix of %lld rows exceeds OpenBLAS's int sizes",
                     (long long)g.rows);
        return -1;
    }
    rnn_work w = {0};
    rnn_work_floats(&g, &w, l->work, 0);
    for (int64_t k = 0; k < g.l; k++) {
        const float *x = rnn_layer_input(l, &g, k);
        float *y = rnn_layer_output(l, &g, k);
        for (int dir = 0; dir < g.d; dir++) {
            rnn_block b = rnn_block_of(l, &g, l->w, k, dir);
            linear_cpu_forward(g.rows, b.e_k, g.gh, x, b.e_k, b.w_ih, b.b_ih, w.pre, g.gh);
            float *saved = rnn_saved_of(l, &g, k, dir);
            for (int64_t i = 0; i < g.s; i++) {
                int64_t t = dir ? g.s - 1 - i : i, tp = dir ? t + 1 : t - 1;
                hidden_product(&g, i ? y + tp * g.dh + dir * g.h : NULL, &b, w.hid);
                step_forward(&g, t, tp, i == 0, dir, w.pre, w.hid, saved, y);
            }
        }
    }
    return 0;
}

/* ---- backward ------------------------------------------------------------------------------ */

/* dA and dB of step t of every sample, from dY_t and the carried gradients (last: the last step
 * of the direction, nothing carried in); leaves in carry (GRU) and dc what flows to step tp
 * besides dB_t W_hh. */
static void step_backward(const rnn_geom *g, int64_t t, int64_t tp, int first, int last, int dir,
                          const float *dy, const float *y, const float *saved, const rnn_work *w)
{
    int64_t h = g->h;
    for (int64_t n = 0; n < g->n; n++) {
        int64_t row = n * g->s + t, prev = n * g->s + tp;
        const float *d_out = dy + row * g->dh + dir * h;
        float *da = w->da + row * g->gh, *carry = w->carry + n * h;
#if defined(SM_RECURRENT_LSTM)
        (void)y;
        const float *v = saved + row * RNN_SAVED * h;
        const float *vp = first ? NULL : saved + prev * RNN_SAVED * h;
        float *dc = w->dc + n * h;
        for (int64_t j = 0; j < h; j++)
            rnn_lstm_backward(v, vp, h, j, d_out[j] + (last ? 0.0f : carry[j]), last, dc + j, da);
#elif defined(SM_RECURRENT_GRU)
        const float *v = saved + row * RNN_SAVED * h;
        const float *hp = first ? NULL : y + prev * g->dh + dir * h;
        float *db = w->db + row * g->gh;
        for (int64_t j = 0; j < h; j++)
            rnn_gru_backward(v, hp, h, j, d_out[j] + (last ? 0.0f : carry[j]), da, db, carry + j);
#else
        (void)saved;
        (void)first;
        (void)prev;
        const float *hv = y + row * g->dh + dir * h;
        for (int64_t j = 0; j < h; j++)
            da[j] = rnn_simple_backward(hv[j], g->relu, d_out[j] + (last ? 0.0f : carry[j]));
#endif
    }
}

/* The gradients of one layer and direction's weights from its dA, dB, input x and output y. */
static void weight_grads(const rnn_geom *g, const rnn_block *gb, int dir, const rnn_work *w,
                         const float *x, const float *y)
{
    linear_cpu_weight_grad(g->rows, gb->e_k, g->gh, w->da, g->gh, x, gb->e_k, gb->w_ih, gb->b_ih);
    memset(gb->w_hh, 0, (size_t)(g->gh * g->h) * sizeof(float));
    /* the S - 1 steps with a previous h: forwards t = 1.. after h(t - 1), reverse t = 0..S-2
     * after h(t + 1) */
    int64_t t0 = dir ? 0 : 1, h0 = dir ? 1 : 0;
    for (int64_t n = 0; g->s > 1 && n < g->n; n++)
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->gh, (int)g->h, (int)(g->s - 1),
                    1.0f, w->db + (n * g->s + t0) * g->gh, (int)g->gh,
                    y + (n * g->s + h0) * g->dh + dir * g->h, (int)g->dh, 1.0f, gb->w_hh,
                    (int)g->h);
    if (gb->b_hh)
        cpu_column_sums(w->db, g->rows, g->gh, g->gh, gb->b_hh);
}

static int rnn_backward(const sm_layer_io *l, sm_error *err)
{
    rnn_geom g = rnn_geom_of(l);
    if (!rnn_int_fits(&g)) {
        sm_error_set(err, RNN_NAME ": a matrix of %lld rows exceeds OpenBLAS's int sizes",
                     (long long)g.rows);
        return -1;
    }
    rnn_work w = {0};
    rnn_work_floats(&g, &w, l->work, 0);
    for (int64_t k = g.l - 1; k >= 0; k--) {
        const float *dy = k == g.l - 1 ? l->dout->data : w.dy[k % 2];
        float *dx = k == 0 ? l->din[0].data : w.dy[(k - 1) % 2];
        if (k > 0) /* both directions add into the gradient of layer k - 1's output */
            memset(dx, 0, (size_t)(g.rows * g.dh) * sizeof *dx);
        const float *x = rnn_layer_input(l, &g, k), *y = rnn_layer_output(l, &g, k);
        for (int dir = 0; dir < g.d; dir++) {
            rnn_block b = rnn_block_of(l, &g, l->w, k, dir);
            const float *saved = rnn_saved_of(l, &g, k, dir);
            for (int64_t i = g.s - 1; i >= 0; i--) {
                int64_t t = dir ? g.s - 1 - i : i, tp = dir ? t + 1 : t - 1;
                step_backward(&g, t, tp, i == 0, i == g.s - 1, dir, dy, y, saved, &w);
                if (i > 0) /* carry (+)= dB_t W_hh, the gradient of h_prev */
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.n, (int)g.h,
                                (int)g.gh, 1.0f, w.db + t * g.gh, (int)(g.s * g.gh), b.w_hh,
                                (int)g.h, RNN_GRU ? 1.0f : 0.0f, w.carry, (int)g.h);
            }
            if (l->dw) {
                rnn_block gb = rnn_block_of(l, &g, l->dw, k, dir);
                weight_grads(&g, &gb, dir, &w, x, y);
            }
            if (dx)
                linear_cpu_input_grad(g.rows, b.e_k, g.gh, w.da, g.gh, b.w_ih, 1.0f, dx, b.e_k);
        }
    }
    return 0;
}

const struct sm_cpu_kernels rnn_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .work_size = rnn_work_size,
    .state_size = rnn_state_size,
    .init = rnn_init,
    .forward = rnn_forward,
    .backward = rnn_backward,
};

SM_DEFINE_CPU_KERNELS(rnn_cpu_kernels)
