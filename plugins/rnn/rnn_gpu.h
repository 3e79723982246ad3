/*
 * The CUDA kernels of lstm, gru and rnn (rnn_gpu.cu): the gate nonlinearities of one step and
 * their backward, around cuBLAS's products (rnn_gpu.c). Built once per type like rnn_gpu.c
 * (SM_RECURRENT_LSTM, _GRU or _RNN selects the cell). C launchers; each enqueues its kernel on
 * the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_RNN_GPU_H
#define SCALEMETER_PLUGINS_RNN_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One step t of one layer and direction, for every sample (rows n s + t, samples s apart), as
 * rnn_cpu.c's step_forward and step_backward see it. */
typedef struct smk_rnn_step {
    int64_t n, s, h, dh, gh; /* batch, steps, H, D H, G H */
    int64_t saved_row;       /* floats of saved per row: RNN_SAVED H */
    int64_t t, tp;           /* the step, and the one before it in this direction */
    int first, last;         /* first step of the direction (no h_prev), last (nothing carried) */
    int dir, relu;
} smk_rnn_step;

/* The gates of step t from pre (R x G H, X W_ih^T without bias) and q (batch x G H, h_prev W_hh^T
 * without bias; NULL at the first step, h_prev = 0), adding b_ih and b_hh (NULL: no bias);
 * writes h into y (R x D H, columns dir H ..) and the activations into saved (LSTM, GRU). */
cudaError_t smk_rnn_step_forward(float *y, float *saved, const float *pre, const float *q,
                                 const float *b_ih, const float *b_hh, smk_rnn_step st,
                                 cudaStream_t s);
/* dA (and dB: GRU, else NULL) of step t from dy (R x D H) plus the carried gradients; leaves in
 * carry (GRU: dh z) and dc (LSTM) what flows to step tp besides dB_t W_hh. */
cudaError_t smk_rnn_step_backward(float *da, float *db, float *carry, float *dc, const float *dy,
                                  const float *y, const float *saved, smk_rnn_step st,
                                  cudaStream_t s);
/* hp (R x H): row n s + t is h at step tp of y (R x D H, columns dir H ..), or 0 at the first
 * step of the direction, where h_prev is the zero state. */
cudaError_t smk_rnn_prev_hidden(float *hp, const float *y, int64_t n, int64_t steps, int64_t h,
                                int64_t dh, int dir, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
