/*
 * The element- and row-wise parts of gqa_attention (gqa_attention_gpu.c), with
 * gqa_attention_cpu.c's arithmetic: the rotary embedding (one thread per row and pair, every
 * head), and the causal softmax and its backward pass (a row per warp, as attention's).
 */
#include <math.h>

#include "gpu_launch.cuh"
#include "gqa_attention.h"
#include "gqa_attention_gpu.h"

__global__ void gqa_rotate_kernel(float *m, int64_t rows, int64_t width, int64_t ld, int64_t s,
                                  int64_t d, double theta, int rope_form, int sign)
{
    int64_t half = d / 2, gap = gqa_pair_gap(rope_form, d);
    SMK_FOR(k, rows * half)
    {
        int64_t r = k / half, i = k % half;
        float a = gqa_angle(theta, d, i, r % s), c = cosf(a), sn = sign * sinf(a);
        for (int64_t h0 = 0; h0 < width; h0 += d) {
            float *u = m + r * ld + h0 + gqa_pair_first(rope_form, i), *v = u + gap;
            float uu = *u, vv = *v;
            *u = uu * c - vv * sn;
            *v = vv * c + uu * sn;
        }
    }
}

extern "C" cudaError_t smk_gqa_rotate(float *m, int64_t rows, int64_t width, int64_t ld, int64_t s,
                                      int64_t d, double theta, int rope_form, int sign,
                                      cudaStream_t st)
{
    if (rows > 0 && d >= 2 && theta > 0)
        gqa_rotate_kernel<<<smk_blocks(rows * (d / 2)), SMK_THREADS, 0, st>>>(
            m, rows, width, ld, s, d, theta, rope_form, sign);
    return cudaGetLastError();
}

__global__ void gqa_softmax_kernel(float *p, int64_t rows, int64_t n, int causal)
{
    int lane = (int)(threadIdx.x % SMK_WARP);
    SMK_FOR_WARP_ROWS(row, rows)
    {
        float *a = p + row * n;
        int64_t len = causal ? row % n + 1 : n;
        float mx = -INFINITY;
        for (int64_t j = lane; j < len; j += SMK_WARP)
            mx = fmaxf(mx, a[j]);
        smk_warp_softmax_rest(a, len, n, smk_warp_max(mx));
    }
}

extern "C" cudaError_t smk_gqa_softmax(float *p, int64_t rows, int64_t n, int causal,
                                       cudaStream_t st)
{
    if (rows > 0 && n > 0)
        gqa_softmax_kernel<<<smk_blocks(rows * SMK_WARP), SMK_THREADS, 0, st>>>(p, rows, n, causal);
    return cudaGetLastError();
}

__global__ void gqa_softmax_backward_kernel(float *dp, const float *p, int64_t rows, int64_t n)
{
    int lane = (int)(threadIdx.x % SMK_WARP);
    SMK_FOR_WARP_ROWS(row, rows)
    {
        float *g = dp + row * n;
        const float *a = p + row * n;
        float dot = 0;
        for (int64_t j = lane; j < n; j += SMK_WARP)
            dot += g[j] * a[j];
        dot = smk_warp_sum(dot);
        for (int64_t j = lane; j < n; j += SMK_WARP)
            g[j] = a[j] * (g[j] - dot);
    }
}

extern "C" cudaError_t smk_gqa_softmax_backward(float *dp, const float *p, int64_t rows, int64_t n,
                                                cudaStream_t st)
{
    if (rows > 0 && n > 0)
        gqa_softmax_backward_kernel<<<smk_blocks(rows * SMK_WARP), SMK_THREADS, 0, st>>>(dp, p,
                                                                                         rows, n);
    return cudaGetLastError();
}
