/*
 * Max and average pooling where cuDNN's windows do not fit (pool2d_gpu.c says when), following
 * pool2d_cpu.c: max pooling treats padding as -infinity, lets NaN win and keeps the argmax;
 * average pooling divides by the window clipped to the padded input (count_include_pad).
 * Built with the same SM_POOL_MAX or SM_POOL_AVG definition as pool2d.c. Backward scatters
 * each output's gradient with atomicAdd, since windows overlap.
 */
#include <float.h>

#include "gpu_launch.cuh"
#include "pool2d_gpu.h"

#ifdef SM_POOL_MAX

__global__ void maxpool_forward_kernel(float *y, int32_t *arg, const float *x, smk_pool_geom g)
{
    SMK_FOR(i, g.planes * g.ho * g.wo)
    {
        int64_t ow = i % g.wo, oh = i / g.wo % g.ho, c = i / (g.wo * g.ho);
        const float *plane = x + c * g.h * g.w;
        int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw, at = -1;
        float best = -FLT_MAX;
        for (int64_t ki = 0; ki < g.kh; ki++) {
            int64_t ih = h0 + ki * g.dh;
            if (ih < 0 || ih >= g.h)
                continue;
            for (int64_t kj = 0; kj < g.kw; kj++) {
                int64_t iw = w0 + kj * g.dw;
                if (iw < 0 || iw >= g.w)
                    continue;
                float v = plane[ih * g.w + iw];
                if (at < 0 || v > best || v != v) {
                    best = v;
                    at = ih * g.w + iw;
                }
            }
        }
        y[i] = best;
        if (arg)
            arg[i] = (int32_t)at;
    }
}

__global__ void maxpool_backward_kernel(float *dx, const float *dy, const int32_t *arg,
                                        smk_pool_geom g)
{
    SMK_FOR(i, g.planes * g.ho * g.wo)
    {
        int64_t c = i / (g.wo * g.ho);
        if (arg[i] >= 0)
            atomicAdd(dx + c * g.h * g.w + arg[i], dy[i]);
    }
}

extern "C" cudaError_t smk_maxpool_forward(float *y, int32_t *arg, const float *x, smk_pool_geom g,
                                           cudaStream_t s)
{
    int64_t n = g.planes * g.ho * g.wo;
    if (n > 0)
        maxpool_forward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, arg, x, g);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_maxpool_backward(float *dx, const float *dy, const int32_t *arg,
                                            smk_pool_geom g, cudaStream_t s)
{
    int64_t n = g.planes * g.ho * g.wo;
    if (n > 0)
        maxpool_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dx, dy, arg, g);
    return cudaGetLastError();
}

#else /* SM_POOL_AVG */

/* The window of output (oh, ow), clipped to the input, and its divisor (pool2d_cpu.c). */
__device__ inline float window(const smk_pool_geom &g, int64_t oh, int64_t ow, int64_t *h0,
                               int64_t *h1, int64_t *w0, int64_t *w1)
{
    int64_t hs = oh * g.sh - g.ph, ws = ow * g.sw - g.pw;
    int64_t he = hs + g.kh, we = ws + g.kw;
    if (he > g.h + g.ph)
        he = g.h + g.ph;
    if (we > g.w + g.pw)
        we = g.w + g.pw;
    float div = (float)((he - hs) * (we - ws));
    *h0 = hs < 0 ? 0 : hs;
    *w0 = ws < 0 ? 0 : ws;
    *h1 = he > g.h ? g.h : he;
    *w1 = we > g.w ? g.w : we;
    return div;
}

__global__ void avgpool_forward_kernel(float *y, const float *x, smk_pool_geom g)
{
    SMK_FOR(i, g.planes * g.ho * g.wo)
    {
        int64_t ow = i % g.wo, oh = i / g.wo % g.ho, c = i / (g.wo * g.ho);
        const float *plane = x + c * g.h * g.w;
        int64_t h0, h1, w0, w1;
        float div = window(g, oh, ow, &h0, &h1, &w0, &w1), s = 0;
        for (int64_t ih = h0; ih < h1; ih++)
            for (int64_t iw = w0; iw < w1; iw++)
                s += plane[ih * g.w + iw];
        y[i] = s / div;
    }
}

__global__ void avgpool_backward_kernel(float *dx, const float *dy, smk_pool_geom g)
{
    SMK_FOR(i, g.planes * g.ho * g.wo)
    {
        int64_t ow = i % g.wo, oh = i / g.wo % g.ho, c = i / (g.wo * g.ho);
        float *plane = dx + c * g.h * g.w;
        int64_t h0, h1, w0, w1;
        float v = dy[i] / window(g, oh, ow, &h0, &h1, &w0, &w1);
        for (int64_t ih = h0; ih < h1; ih++)
            for (int64_t iw = w0; iw < w1; iw++)
                atomicAdd(plane + ih * g.w + iw, v);
    }
}

extern "C" cudaError_t smk_avgpool_forward(float *y, const float *x, smk_pool_geom g,
                                           cudaStream_t s)
{
    int64_t n = g.planes * g.ho * g.wo;
    if (n > 0)
        avgpool_forward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, x, g);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_avgpool_backward(float *dx, const float *dy, smk_pool_geom g,
                                            cudaStream_t s)
{
    int64_t n = g.planes * g.ho * g.wo;
    if (n > 0)
        avgpool_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dx, dy, g);
    return cudaGetLastError();
}

#endif
