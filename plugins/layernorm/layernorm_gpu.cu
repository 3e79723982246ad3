/*
 * Layer normalisation (layernorm_gpu.c), which no legacy cuDNN call has: one block per row for
 * the forward pass and the input gradient (sums over the row in shared memory, in two passes as
 * layernorm_cpu.c: mean first, then the squared deviations), and for the parameter gradients one
 * thread per feature and chunk of rows.
 */
#include "gpu_launch.cuh"
#include "layernorm_gpu.h"

/* Offset of the first value of row i (layernorm_cpu.c's row_base). */
__device__ inline int64_t row_base(const smk_rows &r, int64_t i)
{
    return r.stride == 1 ? i * r.len : i / r.per_sample * r.sample + i % r.per_sample;
}

__global__ void layernorm_forward_kernel(float *y, float *stats, const float *x, const float *gamma,
                                         const float *beta, smk_rows r, float eps)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t row = blockIdx.x; row < r.rows; row += gridDim.x) {
        const float *v = x + row_base(r, row);
        float *o = y + row_base(r, row);
        float s = 0;
        for (int64_t i = threadIdx.x; i < r.len; i += blockDim.x)
            s += v[i * r.stride];
        float mu = smk_block_sum(s, part) / (float)r.len;
        s = 0;
        for (int64_t i = threadIdx.x; i < r.len; i += blockDim.x) {
            float d = v[i * r.stride] - mu;
            s += d * d;
        }
        float rstd = rsqrtf(smk_block_sum(s, part) / (float)r.len + eps);
        for (int64_t i = threadIdx.x; i < r.len; i += blockDim.x) {
            float xh = (v[i * r.stride] - mu) * rstd;
            o[i * r.stride] = gamma ? xh * gamma[i] + beta[i] : xh;
        }
        if (stats && threadIdx.x == 0) {
            stats[2 * row] = mu;
            stats[2 * row + 1] = rstd;
        }
    }
}

__global__ void layernorm_backward_kernel(float *dx, const float *dy, const float *x,
                                          const float *stats, const float *gamma, smk_rows r)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t row = blockIdx.x; row < r.rows; row += gridDim.x) {
        int64_t base = row_base(r, row);
        const float *v = x + base, *d = dy + base;
        float mu = stats[2 * row], rstd = stats[2 * row + 1], sg = 0, sgx = 0;
        for (int64_t i = threadIdx.x; i < r.len; i += blockDim.x) {
            float g = d[i * r.stride] * (gamma ? gamma[i] : 1.0f);
            sg += g;
            sgx += g * (v[i * r.stride] - mu) * rstd;
        }
        float mg = smk_block_sum(sg, part) / (float)r.len;
        float mgx = smk_block_sum(sgx, part) / (float)r.len;
        for (int64_t i = threadIdx.x; i < r.len; i += blockDim.x) {
            float xh = (v[i * r.stride] - mu) * rstd;
            float g = d[i * r.stride] * (gamma ? gamma[i] : 1.0f);
            dx[base + i * r.stride] += rstd * (g - mg - xh * mgx);
        }
    }
}

/* Threads over the features (x) and blocks over chunks of rows (y); each block adds its partial
 * sums with one atomicAdd per feature, into gradients zeroed first. */
#define PARAM_ROWS 256

__global__ void layernorm_params_kernel(float *dgamma, float *dbeta, const float *dy,
                                        const float *x, const float *stats, smk_rows r)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= r.len)
        return;
    float sg = 0, sb = 0;
    for (int64_t row0 = (int64_t)blockIdx.y * PARAM_ROWS; row0 < r.rows;
         row0 += (int64_t)gridDim.y * PARAM_ROWS)
        for (int64_t row = row0; row < row0 + PARAM_ROWS && row < r.rows; row++) {
            int64_t at = row_base(r, row) + i * r.stride;
            float xh = (x[at] - stats[2 * row]) * stats[2 * row + 1];
            sg += dy[at] * xh;
            sb += dy[at];
        }
    atomicAdd(dgamma + i, sg);
    atomicAdd(dbeta + i, sb);
}

static unsigned row_blocks(int64_t rows) { return (unsigned)(rows < (1 << 20) ? rows : (1 << 20)); }

extern "C" cudaError_t smk_layernorm_forward(float *y, float *stats, const float *x,
                                             const float *gamma, const float *beta, smk_rows r,
                                             float eps, cudaStream_t s)
{
    if (r.rows > 0 && r.len > 0)
        layernorm_forward_kernel<<<row_blocks(r.rows), SMK_THREADS, 0, s>>>(y, stats, x, gamma,
                                                                            beta, r, eps);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_layernorm_backward(float *dx, const float *dy, const float *x,
                                              const float *stats, const float *gamma, smk_rows r,
                                              cudaStream_t s)
{
    if (r.rows > 0 && r.len > 0)
        layernorm_backward_kernel<<<row_blocks(r.rows), SMK_THREADS, 0, s>>>(dx, dy, x, stats,
                                                                             gamma, r);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_layernorm_params(float *dgamma, float *dbeta, const float *dy,
                                            const float *x, const float *stats, smk_rows r,
                                            cudaStream_t s)
{
    if (r.len <= 0)
        return cudaSuccess;
    cudaError_t e = cudaMemsetAsync(dgamma, 0, (size_t)r.len * sizeof(float), s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(dbeta, 0, (size_t)r.len * sizeof(float), s);
    if (e != cudaSuccess || r.rows <= 0)
        return e;
    int64_t chunks = (r.rows + PARAM_ROWS - 1) / PARAM_ROWS;
    dim3 grid((unsigned)((r.len + SMK_THREADS - 1) / SMK_THREADS),
              (unsigned)(chunks < 1024 ? chunks : 1024));
    layernorm_params_kernel<<<grid, SMK_THREADS, 0, s>>>(dgamma, dbeta, dy, x, stats, r);
    return cudaGetLastError();
}
