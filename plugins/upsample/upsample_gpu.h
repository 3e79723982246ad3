/*
 * The CUDA kernels of upsample (upsample_gpu.cu), with C launchers for upsample_gpu.c; each
 * enqueues its kernel on the stream and returns cudaGetLastError(), so GPU_CUDA (gpu_util.h)
 * checks it.
 */
#ifndef SCALEMETER_PLUGINS_UPSAMPLE_GPU_H
#define SCALEMETER_PLUGINS_UPSAMPLE_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "upsample.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct smk_upsample_geom {
    upsample_params p;
    int64_t planes, h, w, ho, wo; /* planes = batch x channels */
} smk_upsample_geom;

/* y (planes x ho x wo) from x (planes x h x w): each output the blend of its four taps. */
cudaError_t smk_upsample_forward(float *y, const float *x, smk_upsample_geom g, cudaStream_t s);
/* dx += each output gradient spread over its four taps with the same weights (atomicAdd:
 * outputs share inputs). */
cudaError_t smk_upsample_backward(float *dx, const float *dy, smk_upsample_geom g, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
