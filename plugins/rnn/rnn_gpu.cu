/*
 * The element-wise parts of lstm, gru and rnn (rnn_gpu.c) around cuBLAS's products: the gates
 * of one step and their gradients, one thread per sample and hidden unit, each running the unit
 * arithmetic of rnn_cell.h that rnn_cpu.c's loops run; and the previous hidden state of every
 * row (for dW_hh as one product). The bias gradients are common/rows_gpu.cu's column sums.
 * SM_RECURRENT_LSTM, _GRU or _RNN (one build per type) selects the cell.
 */
#include "gpu_launch.cuh"
#include "rnn_cell.h"
#include "rnn_gpu.h"

#if defined(SM_RECURRENT_LSTM) + defined(SM_RECURRENT_GRU) + defined(SM_RECURRENT_RNN) != 1
#error "build the rnn plugin with exactly one of SM_RECURRENT_LSTM, _GRU and _RNN"
#endif

__global__ void rnn_step_forward_kernel(float *y, float *saved, const float *pre, const float *q,
                                        const float *b_ih, const float *b_hh, smk_rnn_step st)
{
    int64_t h = st.h;
    SMK_FOR(i, st.n * h)
    {
        int64_t n = i / h, j = i % h;
        int64_t row = n * st.s + st.t;
        const float *a = pre + row * st.gh, *qn = q ? q + n * st.gh : NULL;
        float *out = y + row * st.dh + st.dir * h;
        /* gate k's input part (P + b_ih) and hidden part (Q + b_hh), summed apart as the CPU */
#define GATE_IN(k) (a[(k)*h + j] + (b_ih ? b_ih[(k)*h + j] : 0.0f))
#define GATE_HID(k) ((qn ? qn[(k)*h + j] : 0.0f) + (b_hh ? b_hh[(k)*h + j] : 0.0f))
#if defined(SM_RECURRENT_LSTM)
        int64_t prev = n * st.s + st.tp;
        float *v = saved + row * st.saved_row;
        const float *vp = st.first ? NULL : saved + prev * st.saved_row;
        out[j] = rnn_lstm_forward(GATE_IN(0) + GATE_HID(0), GATE_IN(1) + GATE_HID(1),
                                  GATE_IN(2) + GATE_HID(2), GATE_IN(3) + GATE_HID(3), vp, h, j, v);
#elif defined(SM_RECURRENT_GRU)
        int64_t prev = n * st.s + st.tp;
        float *v = saved + row * st.saved_row;
        const float *hp = st.first ? NULL : y + prev * st.dh + st.dir * h;
        /* GATE_HID(2): W_hn h + b_hn, which r scales */
        out[j] = rnn_gru_forward(GATE_IN(0) + GATE_HID(0), GATE_IN(1) + GATE_HID(1), GATE_IN(2),
                                 GATE_HID(2), hp, h, j, v);
#else
        (void)saved;
        out[j] = rnn_simple_forward(GATE_IN(0) + GATE_HID(0), st.relu);
#endif
#undef GATE_IN
#undef GATE_HID
    }
}

__global__ void rnn_step_backward_kernel(float *da, float *db, float *carry, float *dc,
                                         const float *dy, const float *y, const float *saved,
                                         smk_rnn_step st)
{
    int64_t h = st.h;
    SMK_FOR(i, st.n * h)
    {
        int64_t n = i / h, j = i % h;
        int64_t row = n * st.s + st.t;
        float d_out = dy[row * st.dh + st.dir * h + j];
        float dh = d_out + (st.last ? 0.0f : carry[n * h + j]);
        float *a = da + row * st.gh;
#if defined(SM_RECURRENT_LSTM)
        (void)db;
        (void)y;
        int64_t prev = n * st.s + st.tp;
        const float *v = saved + row * st.saved_row;
        const float *vp = st.first ? NULL : saved + prev * st.saved_row;
        rnn_lstm_backward(v, vp, h, j, dh, st.last, dc + n * h + j, a);
#elif defined(SM_RECURRENT_GRU)
        (void)dc;
        int64_t prev = n * st.s + st.tp;
        const float *v = saved + row * st.saved_row;
        const float *hp = st.first ? NULL : y + prev * st.dh + st.dir * h;
        rnn_gru_backward(v, hp, h, j, dh, a, db + row * st.gh, carry + n * h + j);
#else
        (void)db;
        (void)dc;
        (void)saved;
        a[j] = rnn_simple_backward(y[row * st.dh + st.dir * h + j], st.relu, dh);
#endif
    }
}

__global__ void rnn_prev_hidden_kernel(float *hp, const float *y, int64_t n, int64_t steps,
                                       int64_t h, int64_t dh, int dir)
{
    SMK_FOR(i, n * steps * h)
    {
        int64_t row = i / h, j = i % h, t = row % steps;
        int has_prev = dir ? t < steps - 1 : t > 0;
        int64_t prev = dir ? row + 1 : row - 1;
        hp[i] = has_prev ? y[prev * dh + dir * h + j] : 0.0f;
    }
}

extern "C" cudaError_t smk_rnn_step_forward(float *y, float *saved, const float *pre,
                                            const float *q, const float *b_ih, const float *b_hh,
                                            smk_rnn_step st, cudaStream_t s)
{
    if (st.n > 0 && st.h > 0)
        rnn_step_forward_kernel<<<smk_blocks(st.n * st.h), SMK_THREADS, 0, s>>>(y, saved, pre, q,
                                                                                b_ih, b_hh, st);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_rnn_step_backward(float *da, float *db, float *carry, float *dc,
                                             const float *dy, const float *y, const float *saved,
                                             smk_rnn_step st, cudaStream_t s)
{
    if (st.n > 0 && st.h > 0)
        rnn_step_backward_kernel<<<smk_blocks(st.n * st.h), SMK_THREADS, 0, s>>>(da, db, carry, dc,
                                                                                 dy, y, saved, st);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_rnn_prev_hidden(float *hp, const float *y, int64_t n, int64_t steps,
                                           int64_t h, int64_t dh, int dir, cudaStream_t s)
{
    int64_t total = n * steps * h;
    if (total > 0)
        rnn_prev_hidden_kernel<<<smk_blocks(total), SMK_THREADS, 0, s>>>(hp, y, n, steps, h, dh,
                                                                         dir);
    return cudaGetLastError();
}
