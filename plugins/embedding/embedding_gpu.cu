/*
 * The row gather of embedding (embedding_gpu.c) and its adjoint: one thread per output value,
 * each computing its position's token id with embedding.h's embedding_token, the CPU's
 * arithmetic, so both backends read the same rows. Several positions may share a token, so the
 * backward pass adds with atomicAdd.
 */
#include "embedding.h"
#include "embedding_gpu.h"
#include "gpu_launch.cuh"

__global__ void embedding_forward_kernel(float *y, const float *x, const float *table,
                                         int64_t positions, int64_t vocab, int64_t dim)
{
    SMK_FOR(i, positions * dim)
    {
        int64_t pos = i / dim, j = i % dim;
        y[i] = table[embedding_token(vocab, x[pos]) * dim + j];
    }
}

extern "C" cudaError_t smk_embedding_forward(float *y, const float *x, const float *table,
                                             int64_t positions, int64_t vocab, int64_t dim,
                                             cudaStream_t s)
{
    if (positions > 0 && dim > 0)
        embedding_forward_kernel<<<smk_blocks(positions * dim), SMK_THREADS, 0, s>>>(
            y, x, table, positions, vocab, dim);
    return cudaGetLastError();
}

__global__ void embedding_backward_kernel(float *dtable, const float *dy, const float *x,
                                          int64_t positions, int64_t vocab, int64_t dim)
{
    SMK_FOR(i, positions * dim)
    {
        int64_t pos = i / dim, j = i % dim;
        atomicAdd(dtable + embedding_token(vocab, x[pos]) * dim + j, dy[i]);
    }
}

extern "C" cudaError_t smk_embedding_backward(float *dtable, const float *dy, const float *x,
                                              int64_t positions, int64_t vocab, int64_t dim,
                                              cudaStream_t s)
{
    if (positions > 0 && dim > 0)
        embedding_backward_kernel<<<smk_blocks(positions * dim), SMK_THREADS, 0, s>>>(
            dtable, dy, x, positions, vocab, dim);
    return cudaGetLastError();
}
