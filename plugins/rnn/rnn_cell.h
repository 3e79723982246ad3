/* One hidden unit j of one step of lstm, gru or rnn, forward and backward: the arithmetic that
 * rnn_cpu.c's loops and rnn_gpu.cu's threads both run, so that the GPU computes what the CPU
 * kernels (checked against finite differences) compute. Host code in C, host and device code
 * under nvcc; no scalemeter type, so that CUDA C++ includes it as it is.
 *
 * x_k is gate k's pre-activation (input and hidden parts, each with its bias, summed). The saved
 * activations v of a step (RNN_SAVED x H, rnn.h): LSTM i f g o c; GRU r z n and W_hn h + b_hn. */
#ifndef SCALEMETER_PLUGINS_RNN_CELL_H
#define SCALEMETER_PLUGINS_RNN_CELL_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define RNN_CELL static inline __host__ __device__
#else
#define RNN_CELL static inline
#endif

RNN_CELL float rnn_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* LSTM: the gates from their pre-activations and c_prev (vp: the previous step's saved values,
 * NULL at the first); saves i f g o c in v, returns h = o tanh(c). */
RNN_CELL float rnn_lstm_forward(float xi, float xf, float xg, float xo, const float *vp, int64_t h,
                                int64_t j, float *v)
{
    float i = rnn_sigmoid(xi), f = rnn_sigmoid(xf), gg = tanhf(xg), o = rnn_sigmoid(xo);
    float c = i * gg + (vp ? f * vp[4 * h + j] : 0.0f);
    v[j] = i;
    v[h + j] = f;
    v[2 * h + j] = gg;
    v[3 * h + j] = o;
    v[4 * h + j] = c;
    return o * tanhf(c);
}

/* GRU: r and z from their pre-activations, n from its input part xn and hn = W_hn h + b_hn
 * (which r scales); hp the unit's previous output (NULL at the first step). Saves r z n hn in
 * v, returns h = (1 - z) n + z h_prev. */
RNN_CELL float rnn_gru_forward(float xr, float xz, float xn, float hn, const float *hp, int64_t h,
                               int64_t j, float *v)
{
    float r = rnn_sigmoid(xr), z = rnn_sigmoid(xz);
    float nn = tanhf(xn + r * hn);
    v[j] = r;
    v[h + j] = z;
    v[2 * h + j] = nn;
    v[3 * h + j] = hn;
    return (1.0f - z) * nn + (hp ? z * hp[j] : 0.0f);
}

/* RNN: tanh or relu of the pre-activation. */
RNN_CELL float rnn_simple_forward(float x, int relu)
{
    return relu ? (x > 0.0f ? x : 0.0f) : tanhf(x);
}

/* LSTM backward: dh, the gradient of the unit's output; *dc in, the gradient carried to c from
 * the next step (ignored at the last step), out, the one carried to the previous step. Writes
 * the four gates' pre-activation gradients into da (a row of G H). */
RNN_CELL void rnn_lstm_backward(const float *v, const float *vp, int64_t h, int64_t j, float dh,
                                int last, float *dc, float *da)
{
    float i = v[j], f = v[h + j], gg = v[2 * h + j], o = v[3 * h + j];
    float tc = tanhf(v[4 * h + j]), c_prev = vp ? vp[4 * h + j] : 0.0f;
    float dcell = (last ? 0.0f : *dc) + dh * o * (1.0f - tc * tc);
    da[j] = dcell * gg * i * (1.0f - i);
    da[h + j] = dcell * c_prev * f * (1.0f - f);
    da[2 * h + j] = dcell * i * (1.0f - gg * gg);
    da[3 * h + j] = dh * tc * o * (1.0f - o);
    *dc = dcell * f;
}

/* GRU backward: dA (the gates' pre-activations, input parts) and dB (their hidden parts: r
 * scales n's) into rows of G H, and in *carry what flows straight to h_prev (h' = ... + z h). */
RNN_CELL void rnn_gru_backward(const float *v, const float *hp, int64_t h, int64_t j, float dh,
                               float *da, float *db, float *carry)
{
    float r = v[j], z = v[h + j], nn = v[2 * h + j], hn = v[3 * h + j];
    float h_prev = hp ? hp[j] : 0.0f;
    float dn = dh * (1.0f - z) * (1.0f - nn * nn); /* of n's pre-activation */
    float dr = dn * hn * r * (1.0f - r);
    float dz = dh * (h_prev - nn) * z * (1.0f - z);
    da[j] = db[j] = dr;
    da[h + j] = db[h + j] = dz;
    da[2 * h + j] = dn;
    db[2 * h + j] = dn * r;
    *carry = dh * z;
}

/* RNN backward: the pre-activation's gradient from the output hv and its gradient dh. */
RNN_CELL float rnn_simple_backward(float hv, int relu, float dh)
{
    return relu ? (hv > 0.0f ? dh : 0.0f) : dh * (1.0f - hv * hv);
}

#endif
