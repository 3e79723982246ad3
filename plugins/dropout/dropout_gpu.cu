/*
 * Dropout's mask and its application (dropout_gpu.c). The mask is cpu_util.h's counter-based
 * hash of the step's seed and the element's index, so the GPU drops exactly the elements the
 * CPU kernel drops for the same seed; it is kept as one byte per element for backward.
 */
#include "gpu_launch.cuh"
#include "dropout_gpu.h"

/* splitmix64 of seed and index: cpu_util.h's cpu_hash. */
__device__ inline uint64_t mask_hash(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__global__ void dropout_forward_kernel(float *y, uint8_t *keep, const float *x, int64_t n,
                                       uint64_t seed, uint64_t threshold, float scale)
{
    SMK_FOR(i, n)
    {
        uint8_t k = (mask_hash(seed, (uint64_t)i) >> 11) >= threshold;
        keep[i] = k;
        y[i] = k ? x[i] * scale : 0.0f;
    }
}

__global__ void dropout_backward_kernel(float *dx, const float *dy, const uint8_t *keep, int64_t n,
                                        float scale)
{
    SMK_FOR(i, n)
    if (keep[i])
        dx[i] += dy[i] * scale;
}

extern "C" cudaError_t smk_dropout_forward(float *y, uint8_t *keep, const float *x, int64_t n,
                                           uint64_t seed, uint64_t threshold, float scale,
                                           cudaStream_t s)
{
    if (n > 0)
        dropout_forward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, keep, x, n, seed, threshold,
                                                                     scale);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_dropout_backward(float *dx, const float *dy, const uint8_t *keep,
                                            int64_t n, float scale, cudaStream_t s)
{
    if (n > 0)
        dropout_backward_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dx, dy, keep, n, scale);
    return cudaGetLastError();
}
