/*
 * Group normalisation (groupnorm_gpu.c), which no legacy cuDNN call has: one block per row
 * (sample and group) for the forward pass and the input gradient, with the sums over the row in
 * shared memory and in two passes as groupnorm_cpu.c (mean first, then the squared deviations),
 * and one block per channel for dgamma and dbeta (no atomics: the same sums every run).
 */
#include "gpu_launch.cuh"
#include "groupnorm_gpu.h"

/* The channel (of C = groups cpg) of value i of row r. */
__device__ inline int64_t channel_of(const smk_groups &g, int64_t r, int64_t i)
{
    return (r % g.groups) * g.cpg + i / g.spatial;
}

__global__ void groupnorm_forward_kernel(float *y, float *stats, const float *x, const float *gamma,
                                         const float *beta, smk_groups g, float eps)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const float *v = x + r * g.len;
        float *o = y + r * g.len;
        float s = 0;
        for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x)
            s += v[i];
        float mu = smk_block_sum(s, part) / (float)g.len;
        s = 0;
        for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x) {
            float d = v[i] - mu;
            s += d * d;
        }
        float rstd = rsqrtf(smk_block_sum(s, part) / (float)g.len + eps);
        for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x) {
            int64_t c = channel_of(g, r, i);
            /* x scale + shift, as groupnorm_cpu.c */
            float scale = rstd * (gamma ? gamma[c] : 1.0f);
            float shift = (beta ? beta[c] : 0.0f) - mu * scale;
            o[i] = v[i] * scale + shift;
        }
        if (stats && threadIdx.x == 0) {
            stats[2 * r] = mu;
            stats[2 * r + 1] = rstd;
        }
    }
}

__global__ void groupnorm_backward_kernel(float *dx, const float *dy, const float *x,
                                          const float *stats, const float *gamma, smk_groups g)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const float *v = x + r * g.len, *d = dy + r * g.len;
        float *o = dx + r * g.len;
        float mu = stats[2 * r], rstd = stats[2 * r + 1], sg = 0, sgx = 0;
        for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x) {
            float gd = d[i] * (gamma ? gamma[channel_of(g, r, i)] : 1.0f);
            sg += gd;
            sgx += gd * (v[i] - mu) * rstd;
        }
        float mg = smk_block_sum(sg, part) / (float)g.len;
        float mgx = smk_block_sum(sgx, part) / (float)g.len;
        for (int64_t i = threadIdx.x; i < g.len; i += blockDim.x) {
            float xh = (v[i] - mu) * rstd;
            float gd = d[i] * (gamma ? gamma[channel_of(g, r, i)] : 1.0f);
            o[i] += rstd * (gd - mg - xh * mgx);
        }
    }
}

/* Block c sums channel c over every sample (rows r = n groups + c / cpg) and its spatial
 * values. */
__global__ void groupnorm_params_kernel(float *dgamma, float *dbeta, const float *dy,
                                        const float *x, const float *stats, smk_groups g)
{
    __shared__ float part[SMK_THREADS];
    int64_t channels = g.groups * g.cpg, samples = g.rows / g.groups;
    int64_t per_channel = samples * g.spatial;
    for (int64_t c = blockIdx.x; c < channels; c += gridDim.x) {
        int64_t group = c / g.cpg;
        float sg = 0, sb = 0;
        for (int64_t i = threadIdx.x; i < per_channel; i += blockDim.x) {
            int64_t n = i / g.spatial, r = n * g.groups + group;
            int64_t at = (n * channels + c) * g.spatial + i % g.spatial;
            sg += dy[at] * (x[at] - stats[2 * r]) * stats[2 * r + 1];
            sb += dy[at];
        }
        sg = smk_block_sum(sg, part);
        sb = smk_block_sum(sb, part);
        if (threadIdx.x == 0) {
            dgamma[c] = sg;
            dbeta[c] = sb;
        }
    }
}

static unsigned limit_blocks(int64_t n) { return (unsigned)(n < (1 << 20) ? n : (1 << 20)); }

extern "C" cudaError_t smk_groupnorm_forward(float *y, float *stats, const float *x,
                                             const float *gamma, const float *beta, smk_groups g,
                                             float eps, cudaStream_t s)
{
    if (g.rows > 0 && g.len > 0)
        groupnorm_forward_kernel<<<limit_blocks(g.rows), SMK_THREADS, 0, s>>>(y, stats, x, gamma,
                                                                              beta, g, eps);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_groupnorm_backward(float *dx, const float *dy, const float *x,
                                              const float *stats, const float *gamma, smk_groups g,
                                              cudaStream_t s)
{
    if (g.rows > 0 && g.len > 0)
        groupnorm_backward_kernel<<<limit_blocks(g.rows), SMK_THREADS, 0, s>>>(dx, dy, x, stats,
                                                                               gamma, g);
    return cudaGetLastError();
}

extern "C" cudaError_t smk_groupnorm_params(float *dgamma, float *dbeta, const float *dy,
                                            const float *x, const float *stats, smk_groups g,
                                            cudaStream_t s)
{
    int64_t channels = g.groups * g.cpg;
    if (channels > 0)
        groupnorm_params_kernel<<<limit_blocks(channels), SMK_THREADS, 0, s>>>(dgamma, dbeta, dy, x,
                                                                               stats, g);
    return cudaGetLastError();
}
