/*
 * The CUDA kernels of pool2d (pool2d_gpu.cu): max and average pooling where cuDNN's windows do not
 * fit (ceil_mode, dilation). C launchers for pool2d_gpu.c; each enqueues its kernel on the stream
 * and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_POOL2D_GPU_H
#define SCALEMETER_PLUGINS_POOL2D_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct smk_pool_geom {
    int64_t planes, h, w, ho, wo; /* planes = batch x channels */
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
} smk_pool_geom;
/* Max pooling, padding as -infinity; arg (NULL at inference) gets each output's argmax, the
 * index in its input plane. */
cudaError_t smk_maxpool_forward(float *y, int32_t *arg, const float *x, smk_pool_geom g,
                                cudaStream_t s);
cudaError_t smk_maxpool_backward(float *dx, const float *dy, const int32_t *arg, smk_pool_geom g,
                                 cudaStream_t s);
/* Average pooling with count_include_pad: divisor the window clipped to the padded input. */
cudaError_t smk_avgpool_forward(float *y, const float *x, smk_pool_geom g, cudaStream_t s);
cudaError_t smk_avgpool_backward(float *dx, const float *dy, smk_pool_geom g, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
