/*
 * The CUDA kernels of conv1d, conv3d and conv_transpose2d (convnd_gpu.cu): direct loops that
 * follow conv_direct.h's sums, with C launchers for the plugins' host code. Each enqueues its
 * kernel on the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 *
 * As in conv_direct.h, a convolution relates a wide side X (cx channels) to a narrow side Y
 * (cy channels) through W (cy x cx/groups x taps):
 *   Y[cy, o] += W[cy, ci, k] X[grp cxg + ci, o s - p + k d].
 * A convolution's forward is the gather into Y, a transposed one's the scatter into X; their
 * input gradients swap the two. One thread per element written, so no atomics.
 */
#ifndef SCALEMETER_PLUGINS_CONVND_GPU_H
#define SCALEMETER_PLUGINS_CONVND_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* conv_direct's geometry: spatial axes depth, height, width (leading unit axes 1). */
typedef struct smk_conv_geom {
    int64_t n, groups, cx, cy;
    int64_t xs[3], ys[3];
    int64_t k[3], s[3], p[3], d[3];
} smk_conv_geom;

/* y = (accumulate ? y : bias per channel, or 0 without bias) + the gather of x through w. */
cudaError_t smk_conv_gather(float *y, const float *x, const float *w, const float *bias,
                            int accumulate, smk_conv_geom g, cudaStream_t s);
/* x = (accumulate ? x : bias per channel, or 0) + the scatter of y through w (the adjoint of
 * the gather), each x element summing what reaches it. */
cudaError_t smk_conv_scatter(float *x, const float *y, const float *w, const float *bias,
                             int accumulate, smk_conv_geom g, cudaStream_t s);
/* dw[cy, ci, k] = sum over the batch and the positions of y[cy, o] x[grp cxg + ci, i]
 * (overwritten): one thread per weight. */
cudaError_t smk_conv_weight_grad(float *dw, const float *x, const float *y, smk_conv_geom g,
                                 cudaStream_t s);
/* db[j] = the sum of dy (n x c x plane) over the batch and the plane of channel j
 * (overwritten): one block per channel. */
cudaError_t smk_conv_bias_grad(float *db, const float *dy, int64_t n, int64_t c, int64_t plane,
                               cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
