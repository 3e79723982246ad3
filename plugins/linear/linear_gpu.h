/*
 * The CUDA kernels of linear (linear_gpu.cu): bias rows and column sums around cuBLAS's GEMMs. C
 * launchers for linear_gpu.c; each enqueues its kernel on the stream and returns
 * cudaGetLastError(), so GPU_CUDA (gpu_util.h) checks it.
 */
#ifndef SCALEMETER_PLUGINS_LINEAR_GPU_H
#define SCALEMETER_PLUGINS_LINEAR_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[r][c] += b[c]; db[c] = sum over r of dy[r][c] (overwritten). */
cudaError_t smk_bias_rows(float *y, const float *b, int64_t rows, int64_t cols, cudaStream_t s);
cudaError_t smk_column_sums(float *db, const float *dy, int64_t rows, int64_t cols,
                            cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
