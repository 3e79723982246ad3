/*
 * Direct convolutions over 1 to 3 spatial axes on the GPU (convnd_gpu.h), the CUDA side of
 * conv1d, conv3d and conv_transpose2d: naive loops, one thread per element written, that add
 * in conv_direct.h's order (input channel, then tap), so the GPU gives the CPU's sums.
 * Correctness over speed: cuDNN has no 1-D or grouped transposed path this project checks.
 */
#include "convnd_gpu.h"
#include "gpu_launch.cuh"

__global__ void conv_gather_kernel(float *y, const float *x, const float *w, const float *bias,
                                   int accumulate, smk_conv_geom g)
{
    int64_t cxg = g.cx / g.groups, cyg = g.cy / g.groups;
    int64_t taps = g.k[0] * g.k[1] * g.k[2];
    int64_t xplane = g.xs[0] * g.xs[1] * g.xs[2], yplane = g.ys[0] * g.ys[1] * g.ys[2];
    SMK_FOR(idx, g.n * g.cy * yplane)
    {
        int64_t o2 = idx % g.ys[2], o1 = idx / g.ys[2] % g.ys[1];
        int64_t o0 = idx / (g.ys[2] * g.ys[1]) % g.ys[0];
        int64_t cy = idx / yplane % g.cy, n = idx / (yplane * g.cy), grp = cy / cyg;
        float acc = accumulate ? y[idx] : bias ? bias[cy] : 0.0f;
        for (int64_t ci = 0; ci < cxg; ci++) {
            const float *xp = x + (n * g.cx + grp * cxg + ci) * xplane;
            const float *wp = w + (cy * cxg + ci) * taps;
            for (int64_t a = 0; a < g.k[0]; a++) {
                int64_t i0 = o0 * g.s[0] - g.p[0] + a * g.d[0];
                if (i0 < 0 || i0 >= g.xs[0])
                    continue;
                for (int64_t b = 0; b < g.k[1]; b++) {
                    int64_t i1 = o1 * g.s[1] - g.p[1] + b * g.d[1];
                    if (i1 < 0 || i1 >= g.xs[1])
                        continue;
                    for (int64_t c = 0; c < g.k[2]; c++) {
                        int64_t i2 = o2 * g.s[2] - g.p[2] + c * g.d[2];
                        if (i2 < 0 || i2 >= g.xs[2])
                            continue;
                        acc += wp[(a * g.k[1] + b) * g.k[2] + c] *
                               xp[(i0 * g.xs[1] + i1) * g.xs[2] + i2];
                    }
                }
            }
        }
        y[idx] = acc;
    }
}

/* The output index along one axis that tap k of input index i comes from, or -1: o s - p +
 * k d = i. */
__device__ inline int64_t source_of(int64_t i, int64_t k, int64_t s, int64_t p, int64_t d,
                                    int64_t len)
{
    int64_t t = i + p - k * d;
    if (t < 0 || t % s != 0 || t / s >= len)
        return -1;
    return t / s;
}

__global__ void conv_scatter_kernel(float *x, const float *y, const float *w, const float *bias,
                                    int accumulate, smk_conv_geom g)
{
    int64_t cxg = g.cx / g.groups, cyg = g.cy / g.groups;
    int64_t taps = g.k[0] * g.k[1] * g.k[2];
    int64_t xplane = g.xs[0] * g.xs[1] * g.xs[2], yplane = g.ys[0] * g.ys[1] * g.ys[2];
    SMK_FOR(idx, g.n * g.cx * xplane)
    {
        int64_t i2 = idx % g.xs[2], i1 = idx / g.xs[2] % g.xs[1];
        int64_t i0 = idx / (g.xs[2] * g.xs[1]) % g.xs[0];
        int64_t cx = idx / xplane % g.cx, n = idx / (xplane * g.cx);
        int64_t grp = cx / cxg, ci = cx % cxg;
        float acc = accumulate ? x[idx] : bias ? bias[cx] : 0.0f;
        for (int64_t j = 0; j < cyg; j++) {
            int64_t cy = grp * cyg + j;
            const float *yp = y + (n * g.cy + cy) * yplane;
            const float *wp = w + (cy * cxg + ci) * taps;
            for (int64_t a = 0; a < g.k[0]; a++) {
                int64_t o0 = source_of(i0, a, g.s[0], g.p[0], g.d[0], g.ys[0]);
                if (o0 < 0)
                    continue;
                for (int64_t b = 0; b < g.k[1]; b++) {
                    int64_t o1 = source_of(i1, b, g.s[1], g.p[1], g.d[1], g.ys[1]);
                    if (o1 < 0)
                        continue;
                    for (int64_t c = 0; c < g.k[2]; c++) {
                        int64_t o2 = source_of(i2, c, g.s[2], g.p[2], g.d[2], g.ys[2]);
                        if (o2 < 0)
                            continue;
                        acc += wp[(a * g.k[1] + b) * g.k[2] + c] *
                               yp[(o0 * g.ys[1] + o1) * g.ys[2] + o2];
                    }
                }
            }
        }
        x[idx] = acc;
    }
}

/* Each sample's sum in double, added in float, as conv_direct_run's mode 2. */
__global__ void conv_weight_grad_kernel(float *dw, const float *x, const float *y, smk_conv_geom g)
{
    int64_t cxg = g.cx / g.groups, cyg = g.cy / g.groups;
    int64_t taps = g.k[0] * g.k[1] * g.k[2];
    int64_t xplane = g.xs[0] * g.xs[1] * g.xs[2], yplane = g.ys[0] * g.ys[1] * g.ys[2];
    SMK_FOR(idx, g.cy * cxg * taps)
    {
        int64_t c = idx % g.k[2], b = idx / g.k[2] % g.k[1], a = idx / (g.k[2] * g.k[1]) % g.k[0];
        int64_t ci = idx / taps % cxg, cy = idx / (taps * cxg), grp = cy / cyg;
        float sum = 0;
        for (int64_t n = 0; n < g.n; n++) {
            const float *yp = y + (n * g.cy + cy) * yplane;
            const float *xp = x + (n * g.cx + grp * cxg + ci) * xplane;
            double acc = 0;
            for (int64_t o0 = 0; o0 < g.ys[0]; o0++) {
                int64_t i0 = o0 * g.s[0] - g.p[0] + a * g.d[0];
                if (i0 < 0 || i0 >= g.xs[0])
                    continue;
                for (int64_t o1 = 0; o1 < g.ys[1]; o1++) {
                    int64_t i1 = o1 * g.s[1] - g.p[1] + b * g.d[1];
                    if (i1 < 0 || i1 >= g.xs[1])
                        continue;
                    const float *yr = yp + (o0 * g.ys[1] + o1) * g.ys[2];
                    const float *xr = xp + (i0 * g.xs[1] + i1) * g.xs[2];
                    for (int64_t o2 = 0; o2 < g.ys[2]; o2++) {
                        int64_t i2 = o2 * g.s[2] - g.p[2] + c * g.d[2];
                        if (i2 >= 0 && i2 < g.xs[2])
                            acc += (double)yr[o2] * xr[i2];
                    }
                }
            }
            sum += (float)acc;
        }
        dw[idx] = sum;
    }
}

/* Blocks walk the channels grid-stride, every thread of a block taking the same ones, so all
 * reach smk_block_sum's barriers. */
__global__ void conv_bias_grad_kernel(float *db, const float *dy, int64_t n, int64_t c,
                                      int64_t plane)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t j = blockIdx.x; j < c; j += gridDim.x) {
        float v = 0;
        for (int64_t e = threadIdx.x; e < n * plane; e += blockDim.x)
            v += dy[(e / plane * c + j) * plane + e % plane];
        float s = smk_block_sum(v, part);
        if (threadIdx.x == 0)
            db[j] = s;
    }
}

extern "C" cudaError_t smk_conv_gather(float *y, const float *x, const float *w, const float *bias,
                                       int accumulate, smk_conv_geom g, cudaStream_t s)
{
    int64_t n = g.n * g.cy * g.ys[0] * g.ys[1] * g.ys[2];
    if (n > 0)
        conv_gather_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, x, w, bias, accumulate, g);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_conv_scatter(float *x, const float *y, const float *w, const float *bias,
                                        int accumulate, smk_conv_geom g, cudaStream_t s)
{
    int64_t n = g.n * g.cx * g.xs[0] * g.xs[1] * g.xs[2];
    if (n > 0)
        conv_scatter_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(x, y, w, bias, accumulate, g);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_conv_weight_grad(float *dw, const float *x, const float *y,
                                            smk_conv_geom g, cudaStream_t s)
{
    int64_t n = g.cy * (g.cx / g.groups) * g.k[0] * g.k[1] * g.k[2];
    if (n > 0)
        conv_weight_grad_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dw, x, y, g);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_conv_bias_grad(float *db, const float *dy, int64_t n, int64_t c,
                                          int64_t plane, cudaStream_t s)
{
    if (c > 0) {
        unsigned blocks = (unsigned)(c < (1 << 16) ? c : (1 << 16));
        conv_bias_grad_kernel<<<blocks, SMK_THREADS, 0, s>>>(db, dy, n, c, plane);
    }
    return cudaGetLastError();
}
