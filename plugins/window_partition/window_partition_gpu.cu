/*
 * The CUDA kernel of window_partition (window_partition_gpu.h): one thread per input element,
 * its place in the windows from window_partition.h (the CPU kernel's index). Each input element
 * has one place, so backward's additions never collide.
 */
#include "gpu_launch.cuh"
#include "window_partition.h"
#include "window_partition_gpu.h"

__global__ void partition_kernel(float *x, float *y, int64_t n, int64_t c, int64_t h, int64_t w,
                                 int64_t p, int backward)
{
    int64_t per = c * h * w;
    SMK_FOR(i, n * per)
    {
        int64_t rem = i % per, ch = rem / (h * w), py = rem / w % h, px = rem % w;
        int64_t o = i / per * per + partition_at(py, px, w, p, c) + ch;
        if (backward)
            x[i] += y[o];
        else
            y[o] = x[i];
    }
}

extern "C" cudaError_t smk_partition(float *x, float *y, int64_t n, int64_t c, int64_t h, int64_t w,
                                     int64_t p, int backward, cudaStream_t s)
{
    int64_t total = n * c * h * w;
    if (total > 0)
        partition_kernel<<<smk_blocks(total), SMK_THREADS, 0, s>>>(x, y, n, c, h, w, p, backward);
    return cudaGetLastError();
}
