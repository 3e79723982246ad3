/*
 * The row-wise parts of attention (attention_gpu.c) around cuBLAS's products (the projections'
 * bias and its gradient are common/rows_gpu.cu's): the softmax of the scores with the causal
 * mask and the relative position bias (attention.h's attention_rel_index, the CPU's
 * arithmetic), forward and backward. A softmax row is one warp's: its lanes stride over the columns
 * and meet through shuffles; every warp of the grid takes every (grid warps)-th row.
 */
#include <math.h>

#include "attention.h"
#include "attention_gpu.h"
#include "gpu_launch.cuh"

__global__ void attn_softmax_kernel(float *p, const float *table, smk_attn_rows r)
{
    int lane = (int)(threadIdx.x % SMK_WARP);
    SMK_FOR_WARP_ROWS(row, r.rows)
    {
        float *a = p + row * r.m;
        int64_t i = row % r.s, head = (row / r.s) % r.h;
        int64_t len = r.causal ? i + 1 : r.m;
        float mx = -INFINITY;
        for (int64_t j = lane; j < len; j += SMK_WARP) {
            float v = a[j];
            if (table)
                v += table[attention_rel_index(r.win, i, j) * r.h + head];
            a[j] = v;
            mx = fmaxf(mx, v);
        }
        smk_warp_softmax_rest(a, len, r.m, smk_warp_max(mx));
    }
}

extern "C" cudaError_t smk_attn_softmax(float *p, const float *table, smk_attn_rows r,
                                        cudaStream_t s)
{
    if (r.rows > 0 && r.m > 0)
        attn_softmax_kernel<<<smk_blocks(r.rows * SMK_WARP), SMK_THREADS, 0, s>>>(p, table, r);
    return cudaGetLastError();
}

__global__ void attn_softmax_backward_kernel(float *dp, const float *p, float *dtable,
                                             smk_attn_rows r)
{
    int lane = (int)(threadIdx.x % SMK_WARP);
    SMK_FOR_WARP_ROWS(row, r.rows)
    {
        float *g = dp + row * r.m;
        const float *a = p + row * r.m;
        int64_t i = row % r.s, head = (row / r.s) % r.h;
        float dot = 0;
        for (int64_t j = lane; j < r.m; j += SMK_WARP)
            dot += g[j] * a[j];
        dot = smk_warp_sum(dot);
        for (int64_t j = lane; j < r.m; j += SMK_WARP) {
            float v = a[j] * (g[j] - dot);
            g[j] = v;
            if (dtable) /* one entry serves many pairs, sequences and samples */
                atomicAdd(dtable + attention_rel_index(r.win, i, j) * r.h + head, v);
        }
    }
}

extern "C" cudaError_t smk_attn_softmax_backward(float *dp, const float *p, float *dtable,
                                                 smk_attn_rows r, cudaStream_t s)
{
    if (r.rows > 0 && r.m > 0)
        attn_softmax_backward_kernel<<<smk_blocks(r.rows * SMK_WARP), SMK_THREADS, 0, s>>>(
            dp, p, dtable, r);
    return cudaGetLastError();
}
