/*
 * RMS normalisation (rmsnorm_gpu.c): one block per row for the forward pass and the input
 * gradient (the row's sums in shared memory, as rmsnorm_cpu.c computes them), and for the
 * weight gradient one thread per feature and chunk of rows, added with one atomicAdd each.
 */
#include "gpu_launch.cuh"
#include "rmsnorm_gpu.h"

__global__ void rmsnorm_forward_kernel(float *y, float *rstd, const float *x, const float *w,
                                       int64_t rows, int64_t len, float eps)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *v = x + row * len;
        float *o = y + row * len;
        float s = 0;
        for (int64_t i = threadIdx.x; i < len; i += blockDim.x)
            s += v[i] * v[i];
        float r = rsqrtf(smk_block_sum(s, part) / (float)len + eps);
        for (int64_t i = threadIdx.x; i < len; i += blockDim.x)
            o[i] = v[i] * r * w[i];
        if (rstd && threadIdx.x == 0)
            rstd[row] = r;
    }
}

__global__ void rmsnorm_backward_kernel(float *dx, const float *dy, const float *x,
                                        const float *rstd, const float *w, int64_t rows,
                                        int64_t len)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *v = x + row * len, *d = dy + row * len;
        float r = rstd[row], s = 0;
        for (int64_t i = threadIdx.x; i < len; i += blockDim.x)
            s += d[i] * w[i] * v[i] * r;
        float mgx = smk_block_sum(s, part) / (float)len;
        for (int64_t i = threadIdx.x; i < len; i += blockDim.x)
            dx[row * len + i] += r * (d[i] * w[i] - v[i] * r * mgx);
    }
}

#define PARAM_ROWS 256

__global__ void rmsnorm_weight_kernel(float *dw, const float *dy, const float *x, const float *rstd,
                                      int64_t rows, int64_t len)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= len)
        return;
    float s = 0;
    for (int64_t row0 = (int64_t)blockIdx.y * PARAM_ROWS; row0 < rows;
         row0 += (int64_t)gridDim.y * PARAM_ROWS)
        for (int64_t row = row0; row < row0 + PARAM_ROWS && row < rows; row++)
            s += dy[row * len + i] * x[row * len + i] * rstd[row];
    atomicAdd(dw + i, s);
}

static unsigned row_blocks(int64_t rows) { return (unsigned)(rows < (1 << 20) ? rows : (1 << 20)); }

extern "C" cudaError_t smk_rmsnorm_forward(float *y, float *rstd, const float *x, const float *w,
                                           int64_t rows, int64_t len, float eps, cudaStream_t s)
{
    if (rows > 0 && len > 0)
        rmsnorm_forward_kernel<<<row_blocks(rows), SMK_THREADS, 0, s>>>(y, rstd, x, w, rows, len,
                                                                        eps);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_rmsnorm_backward(float *dx, const float *dy, const float *x,
                                            const float *rstd, const float *w, int64_t rows,
                                            int64_t len, cudaStream_t s)
{
    if (rows > 0 && len > 0)
        rmsnorm_backward_kernel<<<row_blocks(rows), SMK_THREADS, 0, s>>>(dx, dy, x, rstd, w, rows,
                                                                         len);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_rmsnorm_weight_grad(float *dw, const float *dy, const float *x,
                                               const float *rstd, int64_t rows, int64_t len,
                                               cudaStream_t s)
{
    if (len <= 0)
        return cudaSuccess;
    cudaError_t e = cudaMemsetAsync(dw, 0, (size_t)len * sizeof(float), s);
    if (e != cudaSuccess || rows <= 0)
        return e;
    int64_t chunks = (rows + PARAM_ROWS - 1) / PARAM_ROWS;
    dim3 grid((unsigned)((len + SMK_THREADS - 1) / SMK_THREADS),
              (unsigned)(chunks < 1024 ? chunks : 1024));
    rmsnorm_weight_kernel<<<grid, SMK_THREADS, 0, s>>>(dw, dy, x, rstd, rows, len);
    return cudaGetLastError();
}
