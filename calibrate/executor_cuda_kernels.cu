/*
 * The loss and the optimiser of the GPU executor (executor_cuda_kernels.h): one block per row
 * for the softmax cross-entropy (its maximum and sum of exponentials reduced in shared memory),
 * one block for the mean of the row losses, a grid-stride SGD update, and fp16's loss scale
 * (torch.amp.GradScaler's scale, unscale-and-check and update, on the device).
 */
#include <math.h>

#include "executor_cuda_kernels.h"

#define THREADS 256

__device__ inline float block_max(float v, float *part)
{
    part[threadIdx.x] = v;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + half]);
        __syncthreads();
    }
    float r = part[0];
    __syncthreads();
    return r;
}

__device__ inline float block_sum(float v, float *part)
{
    part[threadIdx.x] = v;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    float r = part[0];
    __syncthreads();
    return r;
}

__global__ void softmax_cross_entropy_kernel(float *dy, float *row_loss, const float *y,
                                             const int32_t *labels, int64_t rows, int64_t classes)
{
    __shared__ float part[THREADS];
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float *x = y + r * classes;
        float *d = dy + r * classes;
        float mx = -INFINITY;
        for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
            mx = fmaxf(mx, x[c]);
        mx = block_max(mx, part);
        float s = 0;
        for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
            s += expf(x[c] - mx);
        float log_sum = logf(block_sum(s, part));
        int32_t label = labels[r];
        float scale = 1.0f / (float)rows;
        for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
            d[c] = (expf(x[c] - mx - log_sum) - (c == label ? 1.0f : 0.0f)) * scale;
        if (threadIdx.x == 0)
            row_loss[r] = log_sum - (x[label] - mx);
    }
}

extern "C" cudaError_t smx_softmax_cross_entropy(float *dy, float *row_loss, const float *y,
                                                 const int32_t *labels, int64_t rows,
                                                 int64_t classes, cudaStream_t s)
{
    if (rows > 0 && classes > 0) {
        unsigned blocks = (unsigned)(rows < (1 << 20) ? rows : (1 << 20));
        softmax_cross_entropy_kernel<<<blocks, THREADS, 0, s>>>(dy, row_loss, y, labels, rows,
                                                                classes);
    }
    return cudaGetLastError();
}

__global__ void mean_kernel(double *total, const float *v, int64_t n)
{
    __shared__ double part[THREADS];
    double s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
        s += v[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *total = part[0] / (double)n;
}

extern "C" cudaError_t smx_mean(double *total, const float *v, int64_t n, cudaStream_t s)
{
    if (n > 0)
        mean_kernel<<<1, THREADS, 0, s>>>(total, v, n);
    return cudaGetLastError();
}

static unsigned blocks_for(int64_t n)
{
    int64_t blocks = (n + THREADS - 1) / THREADS;
    return (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
}

#define FOR_ALL(i, n)                                                                              \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)gridDim.x * blockDim.x)

__global__ void sgd_kernel(float *w, const float *g, int64_t n, float lr, const smx_scaler *sc)
{
    if (sc && sc->overflowed)
        return;
    FOR_ALL(i, n)
    w[i] -= lr * g[i];
}

extern "C" cudaError_t smx_sgd(float *w, const float *g, int64_t n, float lr, const smx_scaler *sc,
                               cudaStream_t s)
{
    if (n > 0)
        sgd_kernel<<<blocks_for(n), THREADS, 0, s>>>(w, g, n, lr, sc);
    return cudaGetLastError();
}

__global__ void scale_kernel(float *v, int64_t n, const smx_scaler *sc)
{
    float k = sc->scale;
    FOR_ALL(i, n)
    v[i] *= k;
}

extern "C" cudaError_t smx_scale(float *v, int64_t n, const smx_scaler *sc, cudaStream_t s)
{
    if (n > 0)
        scale_kernel<<<blocks_for(n), THREADS, 0, s>>>(v, n, sc);
    return cudaGetLastError();
}

/* As GradScaler's unscale, a multiplication by the inverse. */
__global__ void unscale_kernel(float *v, int64_t n, const smx_scaler *sc)
{
    float inv = 1.0f / sc->scale;
    FOR_ALL(i, n)
    v[i] *= inv;
}

extern "C" cudaError_t smx_unscale(float *v, int64_t n, const smx_scaler *sc, cudaStream_t s)
{
    if (n > 0)
        unscale_kernel<<<blocks_for(n), THREADS, 0, s>>>(v, n, sc);
    return cudaGetLastError();
}

/* Any thread that meets a value that is not finite marks the step (a benign race: all that
 * write, write 1). */
__global__ void check_finite_kernel(const float *v, int64_t n, smx_scaler *sc)
{
    int bad = 0;
    FOR_ALL(i, n)
    bad |= !isfinite(v[i]);
    if (bad)
        sc->overflowed = 1;
}

extern "C" cudaError_t smx_check_finite(const float *v, int64_t n, smx_scaler *sc, cudaStream_t s)
{
    if (n > 0)
        check_finite_kernel<<<blocks_for(n), THREADS, 0, s>>>(v, n, sc);
    return cudaGetLastError();
}

__global__ void scaler_update_kernel(smx_scaler *sc, int interval)
{
    if (sc->overflowed) {
        sc->scale *= 0.5f;
        sc->clean_steps = 0;
    } else if (++sc->clean_steps >= interval) {
        sc->scale *= 2.0f;
        sc->clean_steps = 0;
    }
    sc->overflowed = 0;
}

extern "C" cudaError_t smx_scaler_update(smx_scaler *sc, int interval, cudaStream_t s)
{
    scaler_update_kernel<<<1, 1, 0, s>>>(sc, interval);
    return cudaGetLastError();
}
