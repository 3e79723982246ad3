/*
 * The CUDA kernels of swiglu (swiglu_gpu.cu): the gate between cuBLAS's products. C launchers
 * for swiglu_gpu.c; each enqueues its kernel on the stream and returns cudaGetLastError(), so
 * GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_SWIGLU_GPU_H
#define SCALEMETER_PLUGINS_SWIGLU_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* h = silu(g) u over n elements. */
cudaError_t smk_swiglu_gate(float *h, const float *g, const float *u, int64_t n, cudaStream_t s);
/* dg = dh u silu'(g), du = dh silu(g) over n elements. */
cudaError_t smk_swiglu_gate_backward(float *dg, float *du, const float *dh, const float *g,
                                     const float *u, int64_t n, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
