/*
 * What every CUDA kernel file of the plugins shares: the launch shape, the grid-stride loop and
 * the offset of an output element along a walk (gpu_ops.h). Device code; included by
 * plugins/NAME/NAME_gpu.cu only.
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
#define SMK_FOR(i, n)                                                                             \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                    \
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

__host__ __device__ inline int64_t smk_walk_elems(const smk_walk &w)
{
    int64_t n = 1;
    for (int d = 0; d < SMK_DIMS; d++)
        n *= w.size[d];
    return n;
}

#endif
