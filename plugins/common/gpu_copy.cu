/*
 * Copies and their adjoints, for the layers that only move values: accumulate (the backward
 * pass of identity, flatten and dropout without drop), 2-D strided accumulate (concat's
 * backward; its forward is cudaMemcpy2DAsync) and gather/scatter along a walk (permute and
 * channel_shuffle, both permutations of the dimensions).
 */
#include "gpu_launch.cuh"

__global__ void accumulate_kernel(float *dst, const float *src, int64_t n)
{
    SMK_FOR(i, n)
    dst[i] += src[i];
}

extern "C" cudaError_t smk_accumulate(float *dst, const float *src, int64_t n, cudaStream_t s)
{
    if (n > 0)
        accumulate_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dst, src, n);
    return cudaGetLastError();
}

__global__ void accumulate_2d_kernel(float *dst, int64_t dst_pitch, const float *src,
                                     int64_t src_pitch, int64_t rows, int64_t cols)
{
    SMK_FOR(i, rows * cols)
    {
        int64_t r = i / cols, c = i % cols;
        dst[r * dst_pitch + c] += src[r * src_pitch + c];
    }
}

extern "C" cudaError_t smk_accumulate_2d(float *dst, int64_t dst_pitch, const float *src,
                                         int64_t src_pitch, int64_t rows, int64_t cols,
                                         cudaStream_t s)
{
    if (rows > 0 && cols > 0)
        accumulate_2d_kernel<<<smk_blocks(rows * cols), SMK_THREADS, 0, s>>>(dst, dst_pitch, src,
                                                                             src_pitch, rows, cols);
    return cudaGetLastError();
}

__global__ void gather_kernel(float *y, const float *x, smk_walk w, int64_t n)
{
    SMK_FOR(o, n)
    y[o] = x[smk_offset(w, o)];
}

extern "C" cudaError_t smk_gather(float *y, const float *x, smk_walk w, cudaStream_t s)
{
    int64_t n = smk_walk_elems(w);
    if (n > 0)
        gather_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, x, w, n);
    return cudaGetLastError();
}

/* A permutation reads every input element once, so no two threads add to the same place. */
__global__ void scatter_add_kernel(float *dx, const float *dy, smk_walk w, int64_t n)
{
    SMK_FOR(o, n)
    dx[smk_offset(w, o)] += dy[o];
}

extern "C" cudaError_t smk_scatter_add(float *dx, const float *dy, smk_walk w, cudaStream_t s)
{
    int64_t n = smk_walk_elems(w);
    if (n > 0)
        scatter_add_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dx, dy, w, n);
    return cudaGetLastError();
}
