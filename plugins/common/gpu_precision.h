/*
 * The precision policy of the plugins' GPU kernels, whole, in one table: which precisions
 * (sm_gpu_precision) the kernels implement, and for each the cuBLAS compute and data types of
 * every matrix product (gemm_gpu.h) and the cuDNN math and element types of every convolution
 * (conv2d). A precision without a row is refused in setup with one line naming the layer and
 * the precisions that have rows.
 * fp16 and bf16 are autocast's split: the matrix products and cuDNN's convolutions read copies
 * of their operands cast to the half type and accumulate in fp32; tensors in memory stay fp32,
 * and every other kernel computes in fp32. What each precision means for the arithmetic and the
 * predictions: docs/precision.md.
 */
#ifndef SCALEMETER_PLUGINS_GPU_PRECISION_H
#define SCALEMETER_PLUGINS_GPU_PRECISION_H

#include <stdio.h>

#include "gpu_util.h"

typedef struct gpu_precision_policy {
    const char *name;                 /* as --precision writes it */
    cublasComputeType_t gemm_compute; /* cuBLAS's arithmetic for every product */
    cudaDataType_t gemm_data;         /* the element type of C, and of A and B in memory */
    cudaDataType_t gemm_operands;     /* what A and B are read as: CUDA_R_32F as they are, or
                                         the half type they are cast to first */
    cudnnMathType_t cudnn_math;       /* set on every convolution descriptor */
    int cudnn_tensor_ops;             /* a tensor-op algorithm's result may be taken */
    cudnnDataType_t conv_data;        /* a convolution's operands: FLOAT, or the half type its
                                         copies are cast to (fp32 accumulation in either) */
} gpu_precision_policy;

/* The rows, indexed by sm_gpu_precision; an index without a name is not implemented. A table in
 * a function, so no file that includes this header holds an unused copy. */
static inline const gpu_precision_policy *gpu_precision_table(int *n)
{
    static const gpu_precision_policy table[] = {
        /* full fp32: PyTorch's allow_tf32 = False (Conv_v7.cpp drops tensor-op results) */
        [SM_GPU_FP32] = {"fp32", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDNN_FMA_MATH, 0,
                         CUDNN_DATA_FLOAT},
        /* tensor cores on fp32 data: torch.backends.cuda.matmul.allow_tf32 = True */
        [SM_GPU_TF32] = {"tf32", CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUDA_R_32F,
                         CUDNN_DEFAULT_MATH, 1, CUDNN_DATA_FLOAT},
        /* torch.autocast(dtype=float16): every product reads fp16 copies of A and B and
         * writes fp32 (cuBLAS's FAST_16F on fp32 operands is no substitute: an H200 ran it as
         * TF32); a convolution runs on fp16 copies (PSEUDO_HALF: fp32 accumulation), tensor
         * ops permitted as PyTorch's ConvolutionDescriptor permits them for half types */
        [SM_GPU_FP16] = {"fp16", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDNN_TENSOR_OP_MATH,
                         1, CUDNN_DATA_HALF},
        /* torch.autocast(dtype=bfloat16): the same with bf16 (PSEUDO_BFLOAT16) */
        [SM_GPU_BF16] = {"bf16", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDNN_TENSOR_OP_MATH,
                         1, CUDNN_DATA_BFLOAT16},
    };
    *n = (int)(sizeof table / sizeof table[0]);
    return table;
}

/* The policy of the precision a layer was asked for; NULL where the kernels lack it. */
static inline const gpu_precision_policy *gpu_precision(const sm_layer_io *l)
{
    int n;
    const gpu_precision_policy *t = gpu_precision_table(&n);
    int p = l->gpu->precision;
    return p >= 0 && p < n && t[p].name ? &t[p] : NULL;
}

/* 0 when the kernels implement the layer's precision; -1 with a message listing those they do
 * (called in setup, so the products and convolutions never see another). */
static inline int gpu_check_precision(const sm_layer_io *l, const char *layer, sm_error *err)
{
    if (gpu_precision(l))
        return 0;
    int n;
    const gpu_precision_policy *t = gpu_precision_table(&n);
    char names[64] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof names; i++)
        if (t[i].name)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                     t[i].name);
    sm_error_set(err, "%s: precision %d is not implemented by its GPU kernels (%s are)", layer,
                 l->gpu->precision, names);
    return -1;
}

#endif
