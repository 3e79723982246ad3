/*
 * The CUDA kernel of window_departition (window_departition_gpu.h): one thread per output
 * element, its place in the windows from window_departition.h (the CPU kernel's index). Each
 * output element comes from one place, so backward's additions never collide.
 */
#include "gpu_launch.cuh"
#include "window_departition_gpu.h"

__global__ void departition_kernel(float *x, float *y, int64_t n, int64_t c, departition_params p,
                                   int backward)
{
    int64_t h = p.hp * p.p, w = p.wp * p.p, per = c * h * w;
    SMK_FOR(o, n * per)
    {
        int64_t rem = o % per, ch = rem / (h * w), py = rem / w % h, px = rem % w;
        int64_t i = o / per * per + departition_at(&p, py, px, c) + ch;
        if (backward)
            x[i] += y[o];
        else
            y[o] = x[i];
    }
}

extern "C" cudaError_t smk_departition(float *x, float *y, int64_t n, int64_t c,
                                       departition_params p, int backward, cudaStream_t s)
{
    int64_t total = n * c * p.hp * p.p * p.wp * p.p;
    if (total > 0)
        departition_kernel<<<smk_blocks(total), SMK_THREADS, 0, s>>>(x, y, n, c, p, backward);
    return cudaGetLastError();
}
