/*
 * The CUDA kernels of window_departition (window_departition_gpu.cu): the index shuffle of
 * window_departition.h. C launchers for window_departition_gpu.c; each enqueues its kernel on
 * the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_WINDOW_DEPARTITION_GPU_H
#define SCALEMETER_PLUGINS_WINDOW_DEPARTITION_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "window_departition.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n samples of h w windows of p x p pixels and c channels: y (c x h p x w p) = the windows x
 * put back (backward = 0), or x += the gradient y taken back into the windows (backward = 1). */
cudaError_t smk_departition(float *x, float *y, int64_t n, int64_t c, departition_params p,
                            int backward, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
