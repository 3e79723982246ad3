/*
 * The prepend of cls_token (cls_token_gpu.c), one thread per output value, and the token's
 * gradient, one thread per value of the token summing over the batch in order, as
 * cls_token_cpu.c (threads of a warp read adjacent values).
 */
#include "cls_token_gpu.h"
#include "gpu_launch.cuh"

__global__ void cls_token_forward_kernel(float *y, const float *x, const float *token, int64_t n,
                                         int64_t in, int64_t e)
{
    int64_t per = in + e;
    SMK_FOR(i, n * per)
    {
        int64_t sample = i / per, k = i % per;
        y[i] = k < e ? token[k] : x[sample * in + (k - e)];
    }
}

extern "C" cudaError_t smk_cls_token_forward(float *y, const float *x, const float *token,
                                             int64_t n, int64_t in, int64_t e, cudaStream_t s)
{
    if (n > 0 && in + e > 0)
        cls_token_forward_kernel<<<smk_blocks(n * (in + e)), SMK_THREADS, 0, s>>>(y, x, token, n,
                                                                                  in, e);
    return cudaGetLastError();
}

__global__ void cls_token_grad_kernel(float *dtoken, const float *dy, int64_t n, int64_t in,
                                      int64_t e)
{
    SMK_FOR(c, e)
    {
        float sum = 0;
        for (int64_t sample = 0; sample < n; sample++)
            sum += dy[sample * (in + e) + c];
        dtoken[c] = sum;
    }
}

extern "C" cudaError_t smk_cls_token_grad(float *dtoken, const float *dy, int64_t n, int64_t in,
                                          int64_t e, cudaStream_t s)
{
    if (e > 0)
        cls_token_grad_kernel<<<smk_blocks(e), SMK_THREADS, 0, s>>>(dtoken, dy, n, in, e);
    return cudaGetLastError();
}
