/*
 * GPU kernels of lstm, gru and rnn (kernels.h, struct sm_gpu_kernels), as rnn_cpu.c: layer by
 * layer, and in each layer direction by direction, with cublasGemmEx for the products and the
 * kernels of rnn_gpu.cu for the gates. One source built once per type (SM_RECURRENT_LSTM, _GRU,
 * _RNN). R = batch x S rows; cuBLAS is column-major, so each row-major product of rnn_cpu.c
 * appears transposed (a row-major M is the column-major M^T):
 *   forward   P = X_k W_ih^T for the whole sequence       gemm(T, N, GH, R, E_k, W_ih, X)
 *             per step Q = h_prev W_hh^T (not at the first step, h_prev = 0)
 *                                                         gemm(T, N, GH, batch, H, W_hh, h_prev)
 *             then the gates from P_t + b_ih and Q + b_hh (rnn_gpu.cu)
 *   backward  through time, the steps in reverse: dA and dB of the step (rnn_gpu.cu), then
 *             carry (+)= dB_t W_hh                        gemm(N, N, H, batch, GH, W_hh, dB_t)
 *             dW_ih = dA^T X_k                            gemm(N, T, E_k, GH, R, X, dA)
 *             dW_hh = dB^T Hp, Hp every row's h_prev (0 at the first step)
 *                                                         gemm(N, T, H, GH, R, Hp, dB)
 *             db_ih, db_hh the column sums of dA and dB, and
 *             dX_k += dA W_ih                             gemm(N, N, E_k, R, GH, W_ih, dA)
 * The products are common/gemm_gpu.h's, in its precision. State (rnn.h):
 * the inner layers' outputs and the saved activations, written by every forward.
 */
#include "gemm_gpu.h"
#include "gpu_ops.h"
#include "gpu_util.h"
#include "rnn.h"
#include "rnn_gpu.h"

/* Bytes of a count of floats; SIZE_MAX when the count overflowed (sm_mul saturates). */
static size_t float_bytes(int64_t floats)
{
    int64_t bytes = sm_mul(floats, (int64_t)sizeof(float));
    return bytes == SM_OVERFLOW || (uint64_t)bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

static size_t rnn_gpu_state_size(const sm_layer_io *l)
{
    rnn_geom g = rnn_geom_of(l);
    return float_bytes(rnn_state_floats(&g));
}

static size_t rnn_gpu_work_size(const sm_layer_io *l)
{
    rnn_geom g = rnn_geom_of(l);
    if (!rnn_int_fits(&g))
        return SIZE_MAX;
    return float_bytes(rnn_work_floats(&g, NULL, NULL, 1));
}

/* cuBLAS counts in int; checked once, so the calls below may cast. */
static int rnn_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    *plan = NULL;
    if (gpu_check_precision(l, RNN_NAME, err))
        return -1;
    rnn_geom g = rnn_geom_of(l);
    if (!rnn_int_fits(&g)) {
        sm_error_set(err, RNN_NAME ": a matrix of %lld rows exceeds cuBLAS's int sizes",
                     (long long)g.rows);
        return -1;
    }
    return 0;
}

/* Step i of direction dir: t = i forwards, S-1-i in reverse; tp the step before it. */
static smk_rnn_step step_of(const rnn_geom *g, int64_t i, int dir)
{
    smk_rnn_step st = {0};
    st.n = g->n;
    st.s = g->s;
    st.h = g->h;
    st.dh = g->dh;
    st.gh = g->gh;
    st.saved_row = RNN_SAVED * g->h;
    st.t = dir ? g->s - 1 - i : i;
    st.tp = dir ? st.t + 1 : st.t - 1;
    st.first = i == 0;
    st.last = i == g->s - 1;
    st.dir = dir;
    st.relu = g->relu;
    return st;
}

static int rnn_forward(const sm_layer_io *l, sm_error *err)
{
    rnn_geom g = rnn_geom_of(l);
    rnn_work w = {0};
    rnn_work_floats(&g, &w, l->work, 1);
    for (int64_t k = 0; k < g.l; k++) {
        const float *x = rnn_layer_input(l, &g, k);
        float *y = rnn_layer_output(l, &g, k);
        for (int dir = 0; dir < g.d; dir++) {
            rnn_block b = rnn_block_of(l, &g, l->w, k, dir);
            if (gemm_gpu(l, CUBLAS_OP_T, CUBLAS_OP_N, g.gh, g.rows, b.e_k, 1.0f, b.w_ih, b.e_k, x,
                         b.e_k, 0.0f, w.pre, g.gh, err))
                return -1;
            float *saved = rnn_saved_of(l, &g, k, dir);
            for (int64_t i = 0; i < g.s; i++) {
                smk_rnn_step st = step_of(&g, i, dir);
                /* h_prev: sample 0's row tp of this direction's columns, samples S D H apart */
                if (i > 0 &&
                    gemm_gpu(l, CUBLAS_OP_T, CUBLAS_OP_N, g.gh, g.n, g.h, 1.0f, b.w_hh, g.h,
                             y + st.tp * g.dh + dir * g.h, g.s * g.dh, 0.0f, w.hid, g.gh, err))
                    return -1;
                GPU_CUDA(err, smk_rnn_step_forward, y, saved, w.pre, i > 0 ? w.hid : NULL, b.b_ih,
                         b.b_hh, st, gpu_stream(l));
            }
        }
    }
    return 0;
}

/* The gradients of one layer and direction's weights from its dA, dB, input x and output y. */
static int weight_grads(const sm_layer_io *l, const rnn_geom *g, const rnn_block *gb, int dir,
                        const rnn_work *w, const float *x, const float *y, sm_error *err)
{
    if (gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_T, gb->e_k, g->gh, g->rows, 1.0f, x, gb->e_k, w->da,
                 g->gh, 0.0f, gb->w_ih, gb->e_k, err))
        return -1;
    GPU_CUDA(err, smk_rnn_prev_hidden, w->hp, y, g->n, g->s, g->h, g->dh, dir, gpu_stream(l));
    if (gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_T, g->h, g->gh, g->rows, 1.0f, w->hp, g->h, w->db, g->gh,
                 0.0f, gb->w_hh, g->h, err))
        return -1;
    if (gb->b_ih) {
        GPU_CUDA(err, smk_column_sums, gb->b_ih, w->da, g->gh, g->rows, g->gh, gpu_stream(l));
        GPU_CUDA(err, smk_column_sums, gb->b_hh, w->db, g->gh, g->rows, g->gh, gpu_stream(l));
    }
    return 0;
}

static int rnn_backward(const sm_layer_io *l, sm_error *err)
{
    rnn_geom g = rnn_geom_of(l);
    rnn_work w = {0};
    rnn_work_floats(&g, &w, l->work, 1);
    for (int64_t k = g.l - 1; k >= 0; k--) {
        const float *dy = k == g.l - 1 ? l->dout->data : w.dy[k % 2];
        float *dx = k == 0 ? l->din[0].data : w.dy[(k - 1) % 2];
        if (k > 0) /* both directions add into the gradient of layer k - 1's output */
            GPU_CUDA(err, cudaMemsetAsync, dx, 0, (size_t)(g.rows * g.dh) * sizeof(float),
                     gpu_stream(l));
        const float *x = rnn_layer_input(l, &g, k), *y = rnn_layer_output(l, &g, k);
        for (int dir = 0; dir < g.d; dir++) {
            rnn_block b = rnn_block_of(l, &g, l->w, k, dir);
            const float *saved = rnn_saved_of(l, &g, k, dir);
            for (int64_t i = g.s - 1; i >= 0; i--) {
                smk_rnn_step st = step_of(&g, i, dir);
                GPU_CUDA(err, smk_rnn_step_backward, w.da, RNN_GRU ? w.db : NULL, w.carry, w.dc, dy,
                         y, saved, st, gpu_stream(l));
                /* carry (+)= dB_t W_hh, the gradient of h_prev; dB_t samples S G H apart */
                if (i > 0 && gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_N, g.h, g.n, g.gh, 1.0f, b.w_hh,
                                      g.h, w.db + st.t * g.gh, g.s * g.gh, RNN_GRU ? 1.0f : 0.0f,
                                      w.carry, g.h, err))
                    return -1;
            }
            if (l->dw) {
                rnn_block gb = rnn_block_of(l, &g, l->dw, k, dir);
                if (weight_grads(l, &g, &gb, dir, &w, x, y, err))
                    return -1;
            }
            if (dx && gemm_gpu(l, CUBLAS_OP_N, CUBLAS_OP_N, b.e_k, g.rows, g.gh, 1.0f, b.w_ih,
                               b.e_k, w.da, g.gh, 1.0f, dx, b.e_k, err))
                return -1;
        }
    }
    return 0;
}

static const struct sm_gpu_kernels rnn_gpu_kernels = {
    SM_GPU_KERNELS_INIT,      .state_size = rnn_gpu_state_size, .init = rnn_init,
    .setup = rnn_setup,       .work_size = rnn_gpu_work_size,   .forward = rnn_forward,
    .backward = rnn_backward,
};

SM_DEFINE_GPU_KERNELS(rnn_gpu_kernels)
