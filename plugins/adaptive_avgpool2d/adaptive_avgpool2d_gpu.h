/*
 * The CUDA kernels of adaptive_avgpool2d (adaptive_avgpool2d_gpu.cu): adaptive average pooling
 * where the sizes do not divide. C launchers for adaptive_avgpool2d_gpu.c; each enqueues its
 * kernel on the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_ADAPTIVE_AVGPOOL2D_GPU_H
#define SCALEMETER_PLUGINS_ADAPTIVE_AVGPOOL2D_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Output (oh, ow) averages rows [floor(oh H / Ho), ceil((oh + 1) H / Ho)), columns likewise. */
cudaError_t smk_adaptive_avgpool_forward(float *y, const float *x, int64_t planes, int64_t h,
                                         int64_t w, int64_t ho, int64_t wo, cudaStream_t s);
cudaError_t smk_adaptive_avgpool_backward(float *dx, const float *dy, int64_t planes, int64_t h,
                                          int64_t w, int64_t ho, int64_t wo, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
