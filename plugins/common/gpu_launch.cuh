/*
 * What every CUDA kernel file of the plugins shares: the launch shape, the grid-stride loop, the
 * offset of an output element along a walk (gpu_ops.h), and sums and maxima over a block or a
 * warp. Device code; included by plugins/NAME/NAME_gpu.cu only.
 */
#ifndef SCALEMETER_PLUGINS_GPU_LAUNCH_CUH
#define SCALEMETER_PLUGINS_GPU_LAUNCH_CUH

#include <stdint.h>

#include "gpu_ops.h"

#define SMK_THREADS 256

/* Blocks for n elements at SMK_THREADS per block: enough to fill any GPU; the kernels loop
 * grid-stride over the rest, so n may exceed what one launch covers. */
static inline unsigned smk_blocks(int64_t n)
{
    int64_t b = (n + SMK_THREADS - 1) / SMK_THREADS;
    return (unsigned)(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

/* i over [0, n), every thread of the grid taking every gridDim.x * blockDim.x-th. */
#define SMK_FOR(i, n)                                                                              \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)gridDim.x * blockDim.x)

/* The offset along w of output element o (the last dimension fastest). */
__device__ inline int64_t smk_offset(const smk_walk &w, int64_t o)
{
    int64_t off = 0;
    for (int d = SMK_DIMS - 1; d >= 0; d--) {
        int64_t c = o % w.size[d];
        o /= w.size[d];
        off += c * w.stride[d];
    }
    return off;
}

/* The sum of v over the block's SMK_THREADS threads (part: SMK_THREADS floats of shared
 * memory), returned to all of them; every thread of the block must call it. */
__device__ inline float smk_block_sum(float v, float *part)
{
    part[threadIdx.x] = v;
    __syncthreads();
    for (int half = SMK_THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    float s = part[0];
    __syncthreads(); /* part is reused by the next sum */
    return s;
}

/* Rows over the warps of the grid: all 32 lanes of a warp take the same rows (SMK_THREADS is a
 * multiple of 32), so every lane reaches every shuffle below. */
#define SMK_WARP 32
#define SMK_FOR_WARP_ROWS(row, n)                                                                  \
    for (int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / SMK_WARP; row < (n);     \
         row += (int64_t)gridDim.x * blockDim.x / SMK_WARP)

/* The sum and the maximum of v over the 32 lanes of a warp, returned to all of them; every lane
 * must call it. */
__device__ inline float smk_warp_sum(float v)
{
    for (int o = SMK_WARP / 2; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ inline float smk_warp_max(float v)
{
    for (int o = SMK_WARP / 2; o > 0; o /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* The rest of a softmax over a row of n that one warp holds, once a[0..len) hold the logits and
 * mx their maximum over the warp: a[0..len) become exp(a - mx) over their sum, a[len..n) 0
 * (masked, as a causal row's future). Every lane must call it. */
__device__ inline void smk_warp_softmax_rest(float *a, int64_t len, int64_t n, float mx)
{
    int lane = (int)(threadIdx.x % SMK_WARP);
    float sum = 0;
    for (int64_t j = lane; j < len; j += SMK_WARP) {
        float e = expf(a[j] - mx);
        a[j] = e;
        sum += e;
    }
    sum = smk_warp_sum(sum);
    for (int64_t j = lane; j < n; j += SMK_WARP)
        a[j] = j < len ? a[j] / sum : 0.0f;
}

__host__ __device__ inline int64_t smk_walk_elems(const smk_walk &w)
{
    int64_t n = 1;
    for (int d = 0; d < SMK_DIMS; d++)
        n *= w.size[d];
    return n;
}

#endif
