/*
 * The CUDA kernels of window_attention (window_attention_gpu.cu): what of Swin's shifted window
 * attention is not a matrix product (those are cuBLAS's, in window_attention_gpu.c). C launchers
 * for window_attention_gpu.c; each enqueues its kernels on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 *
 * R = batch nW N rows of C features (window_attention_cpu.c's layout), h heads of d = C / h;
 * QKV is R x 3C (q, k, v side by side); the scores and probabilities of window w and head j are
 * the N x N block (w h + j) of P.
 */
#ifndef SCALEMETER_PLUGINS_WINDOW_ATTENTION_GPU_H
#define SCALEMETER_PLUGINS_WINDOW_ATTENTION_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "window_attention.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One layer at one batch, by value to every kernel. */
typedef struct smk_wa {
    window_attention_params p;
    wa_layout lay;
    int64_t h, w;         /* the input's H and W */
    int64_t c, heads, d;  /* channels, heads, features per head */
    int64_t rows, groups; /* R = batch nW N, batch nW */
} smk_wa;

/* Each head's score factor: d^-1/2 (v1, scale) or, with logit_scale (v2, device), exp(min(
 * logit_scale[head], ln100)); ln100 = logf(100) as the host rounds it. */
typedef struct smk_wa_scale {
    float scale;
    const float *logit_scale;
    float ln100;
} smk_wa_scale;

/* xw (R x C) = the input pixel each row comes from (x: batch x H x W x C), 0 for padding. */
cudaError_t smk_wa_gather(float *xw, const float *x, smk_wa g, cudaStream_t s);
/* The rows of xw that are input pixels, written into x (add = 0) or added to it (add = 1). */
cudaError_t smk_wa_scatter(float *x, const float *xw, smk_wa g, int add, cudaStream_t s);
/* v2: q and k of every row and head divided by max(|.|, 1e-12) in place; norms (R x 2h) gets
 * the norms before the clamp, q's h then k's h per row. */
cudaError_t smk_wa_normalise(float *qkv, float *norms, smk_wa g, cudaStream_t s);
/* P (holding q k^T) = softmax(a P + B + M) per row; B from table (T x h), M = -100 between
 * tokens of different mask regions. */
cudaError_t smk_wa_softmax(float *prob, const float *table, smk_wa_scale a, smk_wa g,
                           cudaStream_t s);
/* ds (holding dP) = P (dP - rowsum(dP P)); dtable[rel(i, j)][head] += ds (dtable zeroed by the
 * caller). */
cudaError_t smk_wa_softmax_backward(float *ds, const float *prob, float *dtable, smk_wa g,
                                    cudaStream_t s);
/* dq, dk (holding dS k and dS^T q) times a; v2: dlogit_scale[head] += a sum q . (dS k) where
 * logit_scale is below its clamp (dlogit zeroed by the caller), then dq, dk back through the
 * normalisation with norms. */
cudaError_t smk_wa_qk_grad(float *dqkv, const float *qkv, const float *norms, float *dlogit,
                           smk_wa_scale a, smk_wa g, cudaStream_t s);
/* v2's coordinate table (T x 2). */
cudaError_t smk_wa_coords(float *coords, smk_wa g, cudaStream_t s);
/* v2: hidden (T x 512) = relu(coords W0^T + b0). */
cudaError_t smk_wa_cpb_hidden(float *hidden, const float *coords, const float *w0, const float *b0,
                              int64_t t, cudaStream_t s);
/* v2: table = 16 sigmoid(table), n values. */
cudaError_t smk_wa_sigmoid16(float *table, int64_t n, cudaStream_t s);
/* v2: dtable *= 16 s (1 - s) with s = table / 16 (the sigmoid's gradient). */
cudaError_t smk_wa_sigmoid16_backward(float *dtable, const float *table, int64_t n, cudaStream_t s);
/* v2: dhidden = 0 where hidden (after the ReLU) is not positive. */
cudaError_t smk_wa_relu_backward(float *dhidden, const float *hidden, int64_t n, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
