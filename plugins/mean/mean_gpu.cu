/*
 * mean on the GPU, following mean_cpu.c: forward sums along len in order and divides,
 * backward adds dy times 1 / len to each of the len inputs.
 */
#include "gpu_launch.cuh"
#include "mean_gpu.h"

__global__ void mean_forward_kernel(float *y, const float *x, int64_t outer, int64_t len,
                                    int64_t inner)
{
    SMK_FOR(j, outer * inner)
    {
        const float *p = x + j / inner * len * inner + j % inner;
        float s = 0;
        for (int64_t a = 0; a < len; a++)
            s += p[a * inner];
        y[j] = s / (float)len;
    }
}

__global__ void mean_backward_kernel(float *dx, const float *dy, int64_t outer, int64_t len,
                                     int64_t inner)
{
    float scale = 1.0f / (float)len;
    SMK_FOR(e, outer * len * inner) { dx[e] += scale * dy[e / (len * inner) * inner + e % inner]; }
}

extern "C" cudaError_t smk_mean_forward(float *y, const float *x, int64_t outer, int64_t len,
                                        int64_t inner, cudaStream_t s)
{
    int64_t n = outer * inner;
    if (n > 0)
        mean_forward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, x, outer, len, inner);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_mean_backward(float *dx, const float *dy, int64_t outer, int64_t len,
                                         int64_t inner, cudaStream_t s)
{
    int64_t n = outer * len * inner;
    if (n > 0)
        mean_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dx, dy, outer, len, inner);
    return cudaGetLastError();
}
