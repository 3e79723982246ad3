/*
 * upsample on the GPU, one thread per output element, with upsample_cpu.c's taps and weights
 * (upsample.h's upsample_taps, compiled for the device too): nearest is a blend whose second
 * weights are 0, as on the CPU.
 */
#include "gpu_launch.cuh"
#include "upsample_gpu.h"

/* Output i's four input offsets in its plane and their weights. */
__device__ inline void blend(const smk_upsample_geom &g, int64_t i, int64_t off[4], float k[4])
{
    int64_t ow = i % g.wo, oh = i / g.wo % g.ho;
    int64_t h0, h1, w0, w1;
    float a, b;
    upsample_taps(&g.p, oh, g.h, g.ho, &h0, &h1, &a);
    upsample_taps(&g.p, ow, g.w, g.wo, &w0, &w1, &b);
    off[0] = h0 * g.w + w0, off[1] = h0 * g.w + w1, off[2] = h1 * g.w + w0, off[3] = h1 * g.w + w1;
    k[0] = (1 - a) * (1 - b), k[1] = (1 - a) * b, k[2] = a * (1 - b), k[3] = a * b;
}

__global__ void upsample_forward_kernel(float *y, const float *x, smk_upsample_geom g)
{
    SMK_FOR(i, g.planes * g.ho * g.wo)
    {
        const float *plane = x + i / (g.ho * g.wo) * g.h * g.w;
        int64_t off[4];
        float k[4];
        blend(g, i, off, k);
        y[i] = k[0] * plane[off[0]] + k[1] * plane[off[1]] + k[2] * plane[off[2]] +
               k[3] * plane[off[3]];
    }
}

__global__ void upsample_backward_kernel(float *dx, const float *dy, smk_upsample_geom g)
{
    SMK_FOR(i, g.planes * g.ho * g.wo)
    {
        float *plane = dx + i / (g.ho * g.wo) * g.h * g.w;
        int64_t off[4];
        float k[4];
        blend(g, i, off, k);
        for (int t = 0; t < 4; t++)
            atomicAdd(plane + off[t], k[t] * dy[i]);
    }
}

extern "C" cudaError_t smk_upsample_forward(float *y, const float *x, smk_upsample_geom g,
                                            cudaStream_t s)
{
    int64_t n = g.planes * g.ho * g.wo;
    if (n > 0)
        upsample_forward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, x, g);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_upsample_backward(float *dx, const float *dy, smk_upsample_geom g,
                                             cudaStream_t s)
{
    int64_t n = g.planes * g.ho * g.wo;
    if (n > 0)
        upsample_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dx, dy, g);
    return cudaGetLastError();
}
