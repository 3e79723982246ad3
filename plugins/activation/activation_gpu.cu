/*
 * The activations cuDNN lacks (silu, gelu, hardswish, hardsigmoid) as element-wise kernels,
 * built with the same SM_ACTIVATION_<TYPE> definition as activation.c; the formulas and the
 * choices at the kinks are activation_cpu.c's.
 */
#include "gpu_launch.cuh"
#include "activation_gpu.h"

#if defined(SM_ACTIVATION_HARDSIGMOID)
__device__ inline float act(float x) { return x <= -3.f ? 0.f : x >= 3.f ? 1.f : x / 6.f + 0.5f; }
__device__ inline float grad(float x) { return x > -3.f && x < 3.f ? 1.f / 6.f : 0.f; }
#elif defined(SM_ACTIVATION_HARDSWISH)
__device__ inline float act(float x)
{
    return x <= -3.f ? 0.f : x >= 3.f ? x : x * (x + 3.f) / 6.f;
}
__device__ inline float grad(float x) { return x < -3.f ? 0.f : x <= 3.f ? x / 3.f + 0.5f : 1.f; }
#elif defined(SM_ACTIVATION_SILU)
__device__ inline float act(float x) { return x / (1.f + expf(-x)); }
__device__ inline float grad(float x)
{
    float s = 1.f / (1.f + expf(-x));
    return s * (1.f + x * (1.f - s));
}
#elif defined(SM_ACTIVATION_GELU)
/* nn.GELU's exact form: x Phi(x). */
__device__ inline float act(float x) { return 0.5f * x * (1.f + erff(x * 0.70710678f)); }
__device__ inline float grad(float x)
{
    return 0.5f * (1.f + erff(x * 0.70710678f)) + x * 0.39894228f * expf(-0.5f * x * x);
}
#else
#error "activation_gpu.cu is for silu, gelu, hardswish and hardsigmoid (cuDNN has the others)"
#endif

__global__ void activation_forward_kernel(float *y, const float *x, int64_t n)
{
    SMK_FOR(i, n)
    y[i] = act(x[i]);
}

__global__ void activation_backward_kernel(float *dx, const float *dy, const float *x, int64_t n)
{
    SMK_FOR(i, n)
    dx[i] += dy[i] * grad(x[i]);
}

extern "C" cudaError_t smk_activation_forward(float *y, const float *x, int64_t n, cudaStream_t s)
{
    if (n > 0)
        activation_forward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, x, n);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_activation_backward(float *dx, const float *dy, const float *x,
                                               int64_t n, cudaStream_t s)
{
    if (n > 0)
        activation_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dx, dy, x, n);
    return cudaGetLastError();
}
