/*
 * CUDA kernels of window_attention (window_attention_gpu.h): the windows' gather and scatter,
 * v2's normalisation and bias MLP pieces, and the softmax with its position bias and
 * mask, one warp per row of scores (N = wh ww values, 49 in Swin). Indices are those of
 * window_attention.h, which both backends compile.
 */
#include <float.h>

#include "gpu_launch.cuh"
#include "window_attention_gpu.h"

#define WA_EPS 1e-12f /* F.normalize's default eps, as window_attention_cpu.c */

__device__ inline float head_scale(const smk_wa_scale &a, int64_t head)
{
    return a.logit_scale ? expf(fminf(a.logit_scale[head], a.ln100)) : a.scale;
}

static unsigned warp_blocks(int64_t rows) { return smk_blocks(rows * SMK_WARP); }

__global__ void gather_kernel(float *xw, const float *x, smk_wa g)
{
    SMK_FOR(i, g.rows * g.c)
    {
        int64_t r = i / g.c, ch = i % g.c, b, y, xx;
        xw[i] = wa_source(&g.p, &g.lay, g.h, g.w, r, &b, &y, &xx)
                    ? x[((b * g.h + y) * g.w + xx) * g.c + ch]
                    : 0.0f;
    }
}

extern "C" cudaError_t smk_wa_gather(float *xw, const float *x, smk_wa g, cudaStream_t s)
{
    if (g.rows > 0 && g.c > 0)
        gather_kernel<<<smk_blocks(g.rows * g.c), SMK_THREADS, 0, s>>>(xw, x, g);
    return cudaGetLastError();
}

/* Each input pixel is the source of exactly one row: no two threads write one place. */
__global__ void scatter_kernel(float *x, const float *xw, smk_wa g, int add)
{
    SMK_FOR(i, g.rows * g.c)
    {
        int64_t r = i / g.c, ch = i % g.c, b, y, xx;
        if (!wa_source(&g.p, &g.lay, g.h, g.w, r, &b, &y, &xx))
            continue;
        float *dst = x + ((b * g.h + y) * g.w + xx) * g.c + ch;
        if (add)
            *dst += xw[i];
        else
            *dst = xw[i];
    }
}

extern "C" cudaError_t smk_wa_scatter(float *x, const float *xw, smk_wa g, int add, cudaStream_t s)
{
    if (g.rows > 0 && g.c > 0)
        scatter_kernel<<<smk_blocks(g.rows * g.c), SMK_THREADS, 0, s>>>(x, xw, g, add);
    return cudaGetLastError();
}

/* One thread per row, part (q, k) and head. */
__global__ void normalise_kernel(float *qkv, float *norms, smk_wa g)
{
    SMK_FOR(i, g.rows * 2 * g.heads)
    {
        int64_t r = i / (2 * g.heads), part = i % (2 * g.heads) / g.heads, head = i % g.heads;
        float *v = qkv + r * 3 * g.c + part * g.c + head * g.d;
        float ss = 0;
        for (int64_t k = 0; k < g.d; k++)
            ss += v[k] * v[k];
        float norm = sqrtf(ss);
        norms[i] = norm; /* i = r 2h + part h + head */
        float inv = 1.0f / fmaxf(norm, WA_EPS);
        for (int64_t k = 0; k < g.d; k++)
            v[k] *= inv;
    }
}

extern "C" cudaError_t smk_wa_normalise(float *qkv, float *norms, smk_wa g, cudaStream_t s)
{
    if (g.rows > 0)
        normalise_kernel<<<smk_blocks(g.rows * 2 * g.heads), SMK_THREADS, 0, s>>>(qkv, norms, g);
    return cudaGetLastError();
}

/* Row (window w, head, query i) of the scores: window_attention_cpu.c's forward loop. */
__global__ void softmax_kernel(float *prob, const float *table, smk_wa_scale a, smk_wa g)
{
    int64_t n = g.lay.tokens;
    int lane = (int)(threadIdx.x % SMK_WARP);
    SMK_FOR_WARP_ROWS(row, g.groups * g.heads * n)
    {
        int64_t i = row % n, head = row / n % g.heads, ws = row / (n * g.heads) % g.lay.windows;
        float scale = head_scale(a, head), mx = -FLT_MAX;
        int label = wa_label(&g.p, &g.lay, ws, i);
        float *s = prob + row * n;
        for (int64_t j = lane; j < n; j += SMK_WARP) {
            float mask = wa_label(&g.p, &g.lay, ws, j) != label ? -100.0f : 0.0f;
            float v = scale * s[j] + (table[wa_rel_index(&g.p, i, j) * g.heads + head] + mask);
            s[j] = v;
            mx = fmaxf(mx, v);
        }
        smk_warp_softmax_rest(s, n, n, smk_warp_max(mx));
    }
}

extern "C" cudaError_t smk_wa_softmax(float *prob, const float *table, smk_wa_scale a, smk_wa g,
                                      cudaStream_t s)
{
    int64_t rows = g.groups * g.heads * g.lay.tokens;
    if (rows > 0)
        softmax_kernel<<<warp_blocks(rows), SMK_THREADS, 0, s>>>(prob, table, a, g);
    return cudaGetLastError();
}

__global__ void softmax_backward_kernel(float *ds, const float *prob, float *dtable, smk_wa g)
{
    int64_t n = g.lay.tokens;
    int lane = (int)(threadIdx.x % SMK_WARP);
    SMK_FOR_WARP_ROWS(row, g.groups * g.heads * n)
    {
        int64_t i = row % n, head = row / n % g.heads;
        float *d = ds + row * n;
        const float *p = prob + row * n;
        float dot = 0;
        for (int64_t j = lane; j < n; j += SMK_WARP)
            dot += d[j] * p[j];
        dot = smk_warp_sum(dot);
        for (int64_t j = lane; j < n; j += SMK_WARP) {
            float v = p[j] * (d[j] - dot);
            d[j] = v;
            atomicAdd(dtable + wa_rel_index(&g.p, i, j) * g.heads + head, v);
        }
    }
}

extern "C" cudaError_t smk_wa_softmax_backward(float *ds, const float *prob, float *dtable,
                                               smk_wa g, cudaStream_t s)
{
    int64_t rows = g.groups * g.heads * g.lay.tokens;
    if (rows > 0)
        softmax_backward_kernel<<<warp_blocks(rows), SMK_THREADS, 0, s>>>(ds, prob, dtable, g);
    return cudaGetLastError();
}

/* F.normalize's gradient of one q or k (d values, normalised by forward): (dv - v (v . dv)) /
 * norm, or dv / eps where the norm was clamped. */
__device__ inline void normalise_grad(const float *v, float norm, float *dv, int64_t d)
{
    if (norm < WA_EPS) {
        for (int64_t k = 0; k < d; k++)
            dv[k] /= WA_EPS;
        return;
    }
    float dot = 0;
    for (int64_t k = 0; k < d; k++)
        dot += v[k] * dv[k];
    for (int64_t k = 0; k < d; k++)
        dv[k] = (dv[k] - v[k] * dot) / norm;
}

/* One thread per row and head. */
__global__ void qk_grad_kernel(float *dqkv, const float *qkv, const float *norms, float *dlogit,
                               smk_wa_scale a, smk_wa g)
{
    SMK_FOR(i, g.rows * g.heads)
    {
        int64_t r = i / g.heads, head = i % g.heads, off = r * 3 * g.c + head * g.d;
        const float *q = qkv + off, *k = q + g.c;
        float *dq = dqkv + off, *dk = dq + g.c;
        float scale = head_scale(a, head);
        if (a.logit_scale && a.logit_scale[head] <= a.ln100) {
            /* a = exp(logit_scale) below the clamp: da/dlogit_scale = a */
            float da = 0;
            for (int64_t kk = 0; kk < g.d; kk++)
                da += q[kk] * dq[kk];
            atomicAdd(dlogit + head, da * scale);
        }
        for (int64_t kk = 0; kk < g.d; kk++) {
            dq[kk] *= scale;
            dk[kk] *= scale;
        }
        if (a.logit_scale) {
            int64_t at = r * 2 * g.heads + head;
            normalise_grad(q, norms[at], dq, g.d);
            normalise_grad(k, norms[at + g.heads], dk, g.d);
        }
    }
}

extern "C" cudaError_t smk_wa_qk_grad(float *dqkv, const float *qkv, const float *norms,
                                      float *dlogit, smk_wa_scale a, smk_wa g, cudaStream_t s)
{
    if (g.rows > 0)
        qk_grad_kernel<<<smk_blocks(g.rows * g.heads), SMK_THREADS, 0, s>>>(dqkv, qkv, norms,
                                                                            dlogit, a, g);
    return cudaGetLastError();
}

__global__ void coords_kernel(float *coords, smk_wa g)
{
    SMK_FOR(i, 2 * g.lay.table_rows)
    coords[i] = wa_coord(&g.p, i / 2, (int)(i % 2));
}

extern "C" cudaError_t smk_wa_coords(float *coords, smk_wa g, cudaStream_t s)
{
    if (g.lay.table_rows > 0)
        coords_kernel<<<smk_blocks(2 * g.lay.table_rows), SMK_THREADS, 0, s>>>(coords, g);
    return cudaGetLastError();
}

__global__ void cpb_hidden_kernel(float *hidden, const float *coords, const float *w0,
                                  const float *b0, int64_t t)
{
    SMK_FOR(i, t * WA_CPB_HIDDEN)
    {
        int64_t r = i / WA_CPB_HIDDEN, j = i % WA_CPB_HIDDEN;
        float v = coords[2 * r] * w0[2 * j] + coords[2 * r + 1] * w0[2 * j + 1] + b0[j];
        hidden[i] = v > 0 ? v : 0;
    }
}

extern "C" cudaError_t smk_wa_cpb_hidden(float *hidden, const float *coords, const float *w0,
                                         const float *b0, int64_t t, cudaStream_t s)
{
    if (t > 0)
        cpb_hidden_kernel<<<smk_blocks(t * WA_CPB_HIDDEN), SMK_THREADS, 0, s>>>(hidden, coords, w0,
                                                                                b0, t);
    return cudaGetLastError();
}

__global__ void sigmoid16_kernel(float *table, int64_t n)
{
    SMK_FOR(i, n)
    table[i] = 16.0f / (1.0f + expf(-table[i]));
}

extern "C" cudaError_t smk_wa_sigmoid16(float *table, int64_t n, cudaStream_t s)
{
    if (n > 0)
        sigmoid16_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(table, n);
    return cudaGetLastError();
}

__global__ void sigmoid16_backward_kernel(float *dtable, const float *table, int64_t n)
{
    SMK_FOR(i, n)
    {
        float sg = table[i] / 16.0f;
        dtable[i] *= 16.0f * sg * (1.0f - sg);
    }
}

extern "C" cudaError_t smk_wa_sigmoid16_backward(float *dtable, const float *table, int64_t n,
                                                 cudaStream_t s)
{
    if (n > 0)
        sigmoid16_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dtable, table, n);
    return cudaGetLastError();
}

__global__ void relu_backward_kernel(float *dhidden, const float *hidden, int64_t n)
{
    SMK_FOR(i, n)
    if (!(hidden[i] > 0))
        dhidden[i] = 0;
}

extern "C" cudaError_t smk_wa_relu_backward(float *dhidden, const float *hidden, int64_t n,
                                            cudaStream_t s)
{
    if (n > 0)
        relu_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dhidden, hidden, n);
    return cudaGetLastError();
}
