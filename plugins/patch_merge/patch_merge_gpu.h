/*
 * The CUDA kernels of patch_merge (patch_merge_gpu.cu): the index shuffle of patch_merge.h.
 * C launchers for patch_merge_gpu.c; each enqueues its kernel on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_PATCH_MERGE_GPU_H
#define SCALEMETER_PLUGINS_PATCH_MERGE_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* n channels-last samples h x w x c: y (ceil(h/2) x ceil(w/2) x 4c) = the 2x2 patches of x,
 * zeros for padding (backward = 0), or x += the gradient y back at its pixels (backward = 1). */
cudaError_t smk_patch_merge(float *x, float *y, int64_t n, int64_t h, int64_t w, int64_t c,
                            int backward, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
