/*
 * The CUDA kernels of activation (activation_gpu.cu): the element-wise activations cuDNN lacks
 * (silu, gelu, hardswish, hardsigmoid), built once per activation with its SM_ACTIVATION_<TYPE>. C
 * launchers for activation_gpu.c; each enqueues its kernel on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_ACTIVATION_GPU_H
#define SCALEMETER_PLUGINS_ACTIVATION_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y = f(x); dx += dy f'(x). */
cudaError_t smk_activation_forward(float *y, const float *x, int64_t n, cudaStream_t s);
cudaError_t smk_activation_backward(float *dx, const float *dy, const float *x, int64_t n,
                                    cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
