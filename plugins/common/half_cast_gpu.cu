/*
 * Casts between fp32 tensors and their fp16 or bf16 copies (gpu_ops.h), for the kernels that
 * run a library on half-type operands at fp16 and bf16 (conv2d's cuDNN convolutions): fp32 in,
 * rounded to nearest even, as autocast's casts; back to fp32 exactly, written or added.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gpu_launch.cuh"

template <typename H> __device__ inline H to_half(float v);
template <> __device__ inline __half to_half<__half>(float v) { return __float2half_rn(v); }
template <> __device__ inline __nv_bfloat16 to_half<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

template <typename H> __global__ void to_half_kernel(H *dst, const float *src, int64_t n)
{
    SMK_FOR(i, n)
    dst[i] = to_half<H>(src[i]);
}

template <typename H>
__global__ void from_half_kernel(float *dst, const H *src, int64_t n, int accumulate)
{
    SMK_FOR(i, n)
    {
        float v = (float)src[i];
        dst[i] = accumulate ? dst[i] + v : v;
    }
}

extern "C" cudaError_t smk_to_half(void *dst, const float *src, int64_t n, int bf16, cudaStream_t s)
{
    if (n > 0) {
        if (bf16)
            to_half_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>((__nv_bfloat16 *)dst, src, n);
        else
            to_half_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>((__half *)dst, src, n);
    }
    return cudaGetLastError();
}

extern "C" cudaError_t smk_from_half(float *dst, const void *src, int64_t n, int bf16,
                                     int accumulate, cudaStream_t s)
{
    if (n > 0) {
        if (bf16)
            from_half_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dst, (const __nv_bfloat16 *)src,
                                                                   n, accumulate);
        else
            from_half_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dst, (const __half *)src, n,
                                                                   accumulate);
    }
    return cudaGetLastError();
}
