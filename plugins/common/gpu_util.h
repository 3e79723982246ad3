/*
 * Small helpers shared by the GPU kernels of the plugins (plugins/NAME/NAME_gpu.c): checked calls
 * that name the failing function, and cuDNN descriptors from shapes. Header-only and static, so
 * every plugin stays one self-contained shared object.
 *
 * Every checked call returns -1 from the calling function with err set to "function: reason",
 * so a failure deep in cuDNN reaches the user as one line naming the call.
 */
#ifndef SCALEMETER_PLUGINS_GPU_UTIL_H
#define SCALEMETER_PLUGINS_GPU_UTIL_H

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <scalemeter/kernels.h>

#define GPU_CUDA(err, fn, ...)                                                                     \
    do {                                                                                           \
        cudaError_t e_ = fn(__VA_ARGS__);                                                          \
        if (e_ != cudaSuccess) {                                                                   \
            sm_error_set(err, "%s: %s", #fn, cudaGetErrorString(e_));                              \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

#define GPU_CUDNN(err, fn, ...)                                                                    \
    do {                                                                                           \
        cudnnStatus_t s_ = fn(__VA_ARGS__);                                                        \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                          \
            sm_error_set(err, "%s: %s", #fn, cudnnGetErrorString(s_));                             \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

#define GPU_CUBLAS(err, fn, ...)                                                                   \
    do {                                                                                           \
        cublasStatus_t s_ = fn(__VA_ARGS__);                                                       \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            sm_error_set(err, "%s: %s", #fn, cublasGetStatusString(s_));                           \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

/* The launchers of gpu_ops.h and NAME_gpu.h return cudaError_t too: GPU_CUDA(err, smk_..., ...)
 * checks them. */

/* The GPU context's handles, cast back to their CUDA types. */
static inline cudaStream_t gpu_stream(const sm_layer_io *l) { return (cudaStream_t)l->gpu->stream; }
static inline cudnnHandle_t gpu_cudnn(const sm_layer_io *l) { return (cudnnHandle_t)l->gpu->cudnn; }
static inline cublasHandle_t gpu_cublas(const sm_layer_io *l)
{
    return (cublasHandle_t)l->gpu->cublas;
}

/* cuDNN counts dimensions, strides and elements in int. */
static inline int gpu_int_ok(int64_t n, int64_t c, int64_t h, int64_t w)
{
    return n > 0 && c > 0 && h > 0 && w > 0 && n <= INT_MAX && c <= INT_MAX && h <= INT_MAX &&
           w <= INT_MAX && n * c <= INT_MAX / h && n * c * h <= INT_MAX / w;
}

/* A packed fp32 NCHW descriptor, created in *d (destroyed by the caller, also on failure). */
static inline int gpu_tensor_desc(cudnnTensorDescriptor_t *d, int64_t n, int64_t c, int64_t h,
                                  int64_t w, sm_error *err)
{
    if (!gpu_int_ok(n, c, h, w)) {
        sm_error_set(err, "a %lldx%lldx%lldx%lld tensor exceeds the 2^31 elements cuDNN addresses",
                     (long long)n, (long long)c, (long long)h, (long long)w);
        return -1;
    }
    GPU_CUDNN(err, cudnnCreateTensorDescriptor, d);
    GPU_CUDNN(err, cudnnSetTensor4dDescriptor, *d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)n,
              (int)c, (int)h, (int)w);
    return 0;
}

static inline void gpu_tensor_desc_free(cudnnTensorDescriptor_t d)
{
    if (d)
        cudnnDestroyTensorDescriptor(d);
}

#endif
