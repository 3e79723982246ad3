/*
 * Row normalisation on the GPU (norm_rows.h), which no legacy cuDNN call has, for layernorm,
 * groupnorm and rmsnorm: one block per row for the forward pass and the input gradient (sums
 * over the row in shared memory, in two passes as the CPU kernels: mean first, then the squared
 * deviations), and for gamma and beta either one thread per value of a row and chunk of rows,
 * added with one atomicAdd each (a gamma per value: layernorm, rmsnorm), or one block per
 * gamma, with no atomics (a gamma per channel: groupnorm).
 */
#include "gpu_launch.cuh"

/* A row's mean (0 when not centred) and rstd, as the forward pass kept them. */
__device__ inline float stat_mean(const norm_rows &g, const float *stats, int64_t r)
{
    return g.centred ? stats[2 * r] : 0.0f;
}

__device__ inline float stat_rstd(const norm_rows &g, const float *stats, int64_t r)
{
    return g.centred ? stats[2 * r + 1] : stats[r];
}

__global__ void norm_rows_forward_kernel(float *y, float *stats, const float *x, const float *gamma,
                                         const float *beta, norm_rows g, float eps)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        int64_t base = norm_rows_base(&g, r);
        const float *v = x + base;
        float *o = y + base;
        float s = 0, mu = 0;
        if (g.centred) {
            for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x)
                s += v[i * g.stride];
            mu = smk_block_sum(s, part) / (float)g.len;
            s = 0;
        }
        for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x) {
            float d = v[i * g.stride] - mu;
            s += d * d;
        }
        float rstd = rsqrtf(smk_block_sum(s, part) / (float)g.len + eps);
        for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x) {
            float xh = (v[i * g.stride] - mu) * rstd;
            int64_t c = norm_rows_param(&g, r, i);
            o[i * g.stride] = !gamma ? xh : beta ? xh * gamma[c] + beta[c] : xh * gamma[c];
        }
        if (stats && threadIdx.x == 0) {
            if (g.centred) {
                stats[2 * r] = mu;
                stats[2 * r + 1] = rstd;
            } else {
                stats[r] = rstd;
            }
        }
    }
}

/* dx += rstd (g - mean(g) - xhat mean(g xhat)), g = dy gamma (mean(g) left out when not
 * centred). */
__global__ void norm_rows_backward_kernel(float *dx, const float *dy, const float *x,
                                          const float *stats, const float *gamma, norm_rows g)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        int64_t base = norm_rows_base(&g, r);
        const float *v = x + base, *d = dy + base;
        float mu = stat_mean(g, stats, r), rstd = stat_rstd(g, stats, r), sg = 0, sgx = 0;
        for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x) {
            float gd = d[i * g.stride] * (gamma ? gamma[norm_rows_param(&g, r, i)] : 1.0f);
            sg += gd;
            sgx += gd * (v[i * g.stride] - mu) * rstd;
        }
        float mg = g.centred ? smk_block_sum(sg, part) / (float)g.len : 0.0f;
        float mgx = smk_block_sum(sgx, part) / (float)g.len;
        for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x) {
            float xh = (v[i * g.stride] - mu) * rstd;
            float gd = d[i * g.stride] * (gamma ? gamma[norm_rows_param(&g, r, i)] : 1.0f);
            dx[base + i * g.stride] += rstd * (gd - mg - xh * mgx);
        }
    }
}

/* A gamma per value of a row: threads over the values (x), blocks over chunks of rows (y);
 * each block adds its partial sums with one atomicAdd per value, into gradients zeroed first. */
#define PARAM_ROWS 256

__global__ void norm_rows_columns_kernel(float *dgamma, float *dbeta, const float *dy,
                                         const float *x, const float *stats, norm_rows g)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.len)
        return;
    float sg = 0, sb = 0;
    for (int64_t r0 = (int64_t)blockIdx.y * PARAM_ROWS; r0 < g.rows;
         r0 += (int64_t)gridDim.y * PARAM_ROWS)
        for (int64_t r = r0; r < r0 + PARAM_ROWS && r < g.rows; r++) {
            int64_t at = norm_rows_base(&g, r) + i * g.stride;
            sg += dy[at] * (x[at] - stat_mean(g, stats, r)) * stat_rstd(g, stats, r);
            sb += dy[at];
        }
    atomicAdd(dgamma + i, sg);
    if (dbeta)
        atomicAdd(dbeta + i, sb);
}

/* A gamma per channel: block c sums channel c over every row holding it (rows r = n groups +
 * c / (len / seg)) and its seg values; the same sums every run. */
__global__ void norm_rows_segments_kernel(float *dgamma, float *dbeta, const float *dy,
                                          const float *x, const float *stats, norm_rows g)
{
    __shared__ float part[SMK_THREADS];
    int64_t per_row = g.len / g.seg, params = norm_rows_params(&g);
    int64_t per_param = g.rows / g.groups * g.seg;
    for (int64_t c = blockIdx.x; c < params; c += gridDim.x) {
        int64_t group = c / per_row, first = c % per_row * g.seg;
        float sg = 0, sb = 0;
        for (int64_t j = threadIdx.x; j < per_param; j += blockDim.x) {
            int64_t r = j / g.seg * g.groups + group;
            int64_t at = norm_rows_base(&g, r) + (first + j % g.seg) * g.stride;
            sg += dy[at] * (x[at] - stat_mean(g, stats, r)) * stat_rstd(g, stats, r);
            sb += dy[at];
        }
        sg = smk_block_sum(sg, part);
        sb = smk_block_sum(sb, part);
        if (threadIdx.x == 0) {
            dgamma[c] = sg;
            if (dbeta)
                dbeta[c] = sb;
        }
    }
}

static unsigned limit_blocks(int64_t n) { return (unsigned)(n < (1 << 20) ? n : (1 << 20)); }

extern "C" cudaError_t smk_norm_rows_forward(float *y, float *stats, const float *x,
                                             const float *gamma, const float *beta, norm_rows g,
                                             float eps, cudaStream_t s)
{
    if (g.rows > 0 && g.len > 0)
        norm_rows_forward_kernel<<<limit_blocks(g.rows), SMK_THREADS, 0, s>>>(y, stats, x, gamma,
                                                                              beta, g, eps);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_norm_rows_backward(float *dx, const float *dy, const float *x,
                                              const float *stats, const float *gamma, norm_rows g,
                                              cudaStream_t s)
{
    if (g.rows > 0 && g.len > 0)
        norm_rows_backward_kernel<<<limit_blocks(g.rows), SMK_THREADS, 0, s>>>(dx, dy, x, stats,
                                                                               gamma, g);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_norm_rows_params(float *dgamma, float *dbeta, const float *dy,
                                            const float *x, const float *stats, norm_rows g,
                                            cudaStream_t s)
{
    int64_t params = norm_rows_params(&g);
    if (params <= 0)
        return cudaSuccess;
    if (g.seg != 1 || g.groups != 1) { /* a gamma per channel */
        norm_rows_segments_kernel<<<limit_blocks(params), SMK_THREADS, 0, s>>>(dgamma, dbeta, dy, x,
                                                                               stats, g);
        return cudaGetLastError();
    }
    cudaError_t e = cudaMemsetAsync(dgamma, 0, (size_t)params * sizeof(float), s);
    if (e == cudaSuccess && dbeta)
        e = cudaMemsetAsync(dbeta, 0, (size_t)params * sizeof(float), s);
    if (e != cudaSuccess || g.rows <= 0)
        return e;
    int64_t chunks = (g.rows + PARAM_ROWS - 1) / PARAM_ROWS;
    dim3 grid((unsigned)((g.len + SMK_THREADS - 1) / SMK_THREADS),
              (unsigned)(chunks < 1024 ? chunks : 1024));
    norm_rows_columns_kernel<<<grid, SMK_THREADS, 0, s>>>(dgamma, dbeta, dy, x, stats, g);
    return cudaGetLastError();
}
