/*
 * The CUDA kernel of patch_merge (patch_merge_gpu.h): one thread per output element, its input
 * pixel from patch_merge.h (the CPU kernel's index). Each input pixel feeds one output block, so
 * backward's additions never collide.
 */
#include "gpu_launch.cuh"
#include "patch_merge.h"
#include "patch_merge_gpu.h"

__global__ void patch_merge_kernel(float *x, float *y, int64_t n, int64_t h, int64_t w, int64_t c,
                                   int backward)
{
    int64_t ho = (h + 1) / 2, wo = (w + 1) / 2;
    SMK_FOR(o, n * ho * wo * 4 * c)
    {
        int64_t ch = o % c, q = o / c % 4, pix = o / (4 * c), j = pix % wo, i = pix / wo % ho;
        int64_t b = pix / (wo * ho), py, px;
        int inside = merge_source(i, j, (int)q, h, w, &py, &px);
        int64_t at = ((b * h + py) * w + px) * c + ch;
        if (backward) {
            if (inside)
                x[at] += y[o];
        } else {
            y[o] = inside ? x[at] : 0.0f;
        }
    }
}

extern "C" cudaError_t smk_patch_merge(float *x, float *y, int64_t n, int64_t h, int64_t w,
                                       int64_t c, int backward, cudaStream_t s)
{
    int64_t total = n * ((h + 1) / 2) * ((w + 1) / 2) * 4 * c;
    if (total > 0)
        patch_merge_kernel<<<smk_blocks(total), SMK_THREADS, 0, s>>>(x, y, n, h, w, c, backward);
    return cudaGetLastError();
}
