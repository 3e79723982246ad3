/*
 * The gate of swiglu (swiglu_gpu.c), element-wise over rows x F, with swiglu_cpu.c's
 * arithmetic: forward h = silu(g) u, backward dg = dh u silu'(g) and du = dh silu(g).
 */
#include <math.h>

#include "gpu_launch.cuh"
#include "swiglu_gpu.h"

__device__ inline float smk_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

__global__ void swiglu_gate_kernel(float *h, const float *g, const float *u, int64_t n)
{
    SMK_FOR(i, n)
    h[i] = g[i] * smk_sigmoid(g[i]) * u[i];
}

__global__ void swiglu_gate_backward_kernel(float *dg, float *du, const float *dh, const float *g,
                                            const float *u, int64_t n)
{
    SMK_FOR(i, n)
    {
        float s = smk_sigmoid(g[i]);
        dg[i] = dh[i] * u[i] * s * (1.0f + g[i] * (1.0f - s));
        du[i] = dh[i] * g[i] * s;
    }
}

extern "C" cudaError_t smk_swiglu_gate(float *h, const float *g, const float *u, int64_t n,
                                       cudaStream_t s)
{
    if (n > 0)
        swiglu_gate_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(h, g, u, n);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_swiglu_gate_backward(float *dg, float *du, const float *dh,
                                                const float *g, const float *u, int64_t n,
                                                cudaStream_t s)
{
    if (n > 0)
        swiglu_gate_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dg, du, dh, g, u, n);
    return cudaGetLastError();
}
