/*
 * The element-wise parts of lstm, gru and rnn (rnn_gpu.c) around cuBLAS's products: the gates
 * of one step and their gradients, one thread per sample and hidden unit, with the formulas and
 * the order of operations of rnn_cpu.c's step_forward and step_backward; the previous hidden
 * state of every row (for dW_hh as one product); and the bias gradients, column sums with one
 * thread per column (no atomics: the same sums every run). SM_RECURRENT_LSTM, _GRU or _RNN
 * (one build per type) selects the cell.
 */
#include "gpu_launch.cuh"
#include "rnn_gpu.h"

#if defined(SM_RECURRENT_LSTM) + defined(SM_RECURRENT_GRU) + defined(SM_RECURRENT_RNN) != 1
#error "build the rnn plugin with exactly one of SM_RECURRENT_LSTM, _GRU and _RNN"
#endif

__device__ inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

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
#define GATE_IN(k) (a[(k) * h + j] + (b_ih ? b_ih[(k) * h + j] : 0.0f))
#define GATE_HID(k) ((qn ? qn[(k) * h + j] : 0.0f) + (b_hh ? b_hh[(k) * h + j] : 0.0f))
#if defined(SM_RECURRENT_LSTM)
        int64_t prev = n * st.s + st.tp;
        float *v = saved + row * st.saved_row;
        const float *vp = st.first ? NULL : saved + prev * st.saved_row;
        float ig = sigmoid(GATE_IN(0) + GATE_HID(0));
        float f = sigmoid(GATE_IN(1) + GATE_HID(1));
        float gg = tanhf(GATE_IN(2) + GATE_HID(2));
        float o = sigmoid(GATE_IN(3) + GATE_HID(3));
        float c = ig * gg + (vp ? f * vp[4 * h + j] : 0.0f);
        v[j] = ig;
        v[h + j] = f;
        v[2 * h + j] = gg;
        v[3 * h + j] = o;
        v[4 * h + j] = c;
        out[j] = o * tanhf(c);
#elif defined(SM_RECURRENT_GRU)
        int64_t prev = n * st.s + st.tp;
        float *v = saved + row * st.saved_row;
        const float *hp = st.first ? NULL : y + prev * st.dh + st.dir * h;
        float r = sigmoid(GATE_IN(0) + GATE_HID(0));
        float z = sigmoid(GATE_IN(1) + GATE_HID(1));
        float hn = GATE_HID(2); /* W_hn h + b_hn, which r scales */
        float nn = tanhf(GATE_IN(2) + r * hn);
        v[j] = r;
        v[h + j] = z;
        v[2 * h + j] = nn;
        v[3 * h + j] = hn;
        out[j] = (1.0f - z) * nn + (hp ? z * hp[j] : 0.0f);
#else
        (void)saved;
        float x = GATE_IN(0) + GATE_HID(0);
        out[j] = st.relu ? (x > 0.0f ? x : 0.0f) : tanhf(x);
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
        float ig = v[j], f = v[h + j], gg = v[2 * h + j], o = v[3 * h + j];
        float tc = tanhf(v[4 * h + j]), c_prev = vp ? vp[4 * h + j] : 0.0f;
        float dcell = (st.last ? 0.0f : dc[n * h + j]) + dh * o * (1.0f - tc * tc);
        a[j] = dcell * gg * ig * (1.0f - ig);
        a[h + j] = dcell * c_prev * f * (1.0f - f);
        a[2 * h + j] = dcell * ig * (1.0f - gg * gg);
        a[3 * h + j] = dh * tc * o * (1.0f - o);
        dc[n * h + j] = dcell * f;
#elif defined(SM_RECURRENT_GRU)
        (void)dc;
        int64_t prev = n * st.s + st.tp;
        const float *v = saved + row * st.saved_row;
        const float *hp = st.first ? NULL : y + prev * st.dh + st.dir * h;
        float *b = db + row * st.gh;
        float r = v[j], z = v[h + j], nn = v[2 * h + j], hn = v[3 * h + j];
        float h_prev = hp ? hp[j] : 0.0f;
        float dn = dh * (1.0f - z) * (1.0f - nn * nn); /* of n's pre-activation */
        float dr = dn * hn * r * (1.0f - r);
        float dz = dh * (h_prev - nn) * z * (1.0f - z);
        a[j] = b[j] = dr;
        a[h + j] = b[h + j] = dz;
        a[2 * h + j] = dn;
        b[2 * h + j] = dn * r;
        carry[n * h + j] = dh * z; /* h' = ... + z h: the direct path to h_prev */
#else
        (void)db;
        (void)dc;
        (void)saved;
        float hv = y[row * st.dh + st.dir * h + j];
        a[j] = st.relu ? (hv > 0.0f ? dh : 0.0f) : dh * (1.0f - hv * hv);
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

__global__ void rnn_column_sums_kernel(float *out, const float *m, int64_t rows, int64_t cols)
{
    SMK_FOR(c, cols)
    {
        float s = 0;
        for (int64_t r = 0; r < rows; r++)
            s += m[r * cols + c];
        out[c] = s;
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
        rnn_step_backward_kernel<<<smk_blocks(st.n * st.h), SMK_THREADS, 0, s>>>(
            da, db, carry, dc, dy, y, saved, st);
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

extern "C" cudaError_t smk_rnn_column_sums(float *out, const float *m, int64_t rows, int64_t cols,
                                           cudaStream_t s)
{
    if (cols > 0)
        rnn_column_sums_kernel<<<smk_blocks(cols), SMK_THREADS, 0, s>>>(out, m, rows, cols);
    return cudaGetLastError();
}
