/*
 * Adaptive average pooling where the output size does not divide the input's (the rest goes to
 * cuDNN, adaptive_avgpool2d_gpu.c): output (oh, ow) averages input rows
 * [floor(oh H / Ho), ceil((oh + 1) H / Ho)) and the columns likewise, as
 * adaptive_avgpool2d_cpu.c and PyTorch do. Windows may overlap, so backward adds with atomicAdd.
 */
#include "gpu_launch.cuh"
#include "adaptive_avgpool2d_gpu.h"

__device__ inline int64_t start_of(int64_t o, int64_t out, int64_t in) { return o * in / out; }
__device__ inline int64_t end_of(int64_t o, int64_t out, int64_t in)
{
    return ((o + 1) * in + out - 1) / out;
}

__global__ void adaptive_forward_kernel(float *y, const float *x, int64_t planes, int64_t h,
                                        int64_t w, int64_t ho, int64_t wo)
{
    SMK_FOR(i, planes * ho * wo)
    {
        int64_t ow = i % wo, oh = i / wo % ho, c = i / (wo * ho);
        int64_t h0 = start_of(oh, ho, h), h1 = end_of(oh, ho, h);
        int64_t w0 = start_of(ow, wo, w), w1 = end_of(ow, wo, w);
        const float *plane = x + c * h * w;
        float s = 0;
        for (int64_t ih = h0; ih < h1; ih++)
            for (int64_t iw = w0; iw < w1; iw++)
                s += plane[ih * w + iw];
        y[i] = s / (float)((h1 - h0) * (w1 - w0));
    }
}

__global__ void adaptive_backward_kernel(float *dx, const float *dy, int64_t planes, int64_t h,
                                         int64_t w, int64_t ho, int64_t wo)
{
    SMK_FOR(i, planes * ho * wo)
    {
        int64_t ow = i % wo, oh = i / wo % ho, c = i / (wo * ho);
        int64_t h0 = start_of(oh, ho, h), h1 = end_of(oh, ho, h);
        int64_t w0 = start_of(ow, wo, w), w1 = end_of(ow, wo, w);
        float *plane = dx + c * h * w;
        float v = dy[i] / (float)((h1 - h0) * (w1 - w0));
        for (int64_t ih = h0; ih < h1; ih++)
            for (int64_t iw = w0; iw < w1; iw++)
                atomicAdd(plane + ih * w + iw, v);
    }
}

extern "C" cudaError_t smk_adaptive_avgpool_forward(float *y, const float *x, int64_t planes,
                                                    int64_t h, int64_t w, int64_t ho, int64_t wo,
                                                    cudaStream_t s)
{
    int64_t n = planes * ho * wo;
    if (n > 0)
        adaptive_forward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, x, planes, h, w, ho, wo);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_adaptive_avgpool_backward(float *dx, const float *dy, int64_t planes,
                                                     int64_t h, int64_t w, int64_t ho, int64_t wo,
                                                     cudaStream_t s)
{
    int64_t n = planes * ho * wo;
    if (n > 0)
        adaptive_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dx, dy, planes, h, w, ho,
                                                                       wo);
    return cudaGetLastError();
}
