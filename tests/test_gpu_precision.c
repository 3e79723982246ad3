/* The plugins' GPU precision policy (plugins/common/gpu_precision.h) without a device: what
 * each precision asks of cuBLAS and cuDNN, and the refusal of a precision without a row.
 * Expected values are docs/gpu.md's table, PyTorch's allow_tf32 flags as cuBLAS and cuDNN
 * spell them; the refusal is the one gpu_util.h wrote before the policy moved. */
#include "check.h"
#include "gpu_precision.h"

static sm_gpu_context ctx(int precision)
{
    sm_gpu_context c = {.struct_size = sizeof c, .precision = precision};
    return c;
}

int main(void)
{
    sm_gpu_context fp32 = ctx(SM_GPU_FP32), tf32 = ctx(SM_GPU_TF32);
    sm_layer_io l = {.struct_size = sizeof l, .gpu = &fp32};
    sm_error err = {{0}};

    /* fp32: full fp32 products, FMA convolutions, no tensor-op algorithm */
    CHECK_EQ(gpu_check_precision(&l, "linear", &err), 0);
    CHECK_EQ(gpu_precision(&l)->gemm_compute, CUBLAS_COMPUTE_32F);
    CHECK_EQ(gpu_precision(&l)->gemm_data, CUDA_R_32F);
    CHECK_EQ(gpu_precision(&l)->cudnn_math, CUDNN_FMA_MATH);
    CHECK_EQ(gpu_precision(&l)->cudnn_tensor_ops, 0);

    /* tf32: tensor cores on fp32 data in both libraries */
    l.gpu = &tf32;
    CHECK_EQ(gpu_check_precision(&l, "linear", &err), 0);
    CHECK_EQ(gpu_precision(&l)->gemm_compute, CUBLAS_COMPUTE_32F_FAST_TF32);
    CHECK_EQ(gpu_precision(&l)->gemm_data, CUDA_R_32F);
    CHECK_EQ(gpu_precision(&l)->cudnn_math, CUDNN_DEFAULT_MATH);
    CHECK_EQ(gpu_precision(&l)->cudnn_tensor_ops, 1);

    /* fp16 and bf16: autocast's split. Products and convolutions read half-type copies of
     * their operands, fp32 data everywhere else */
    int halves[] = {SM_GPU_FP16, SM_GPU_BF16};
    cudaDataType_t operands[] = {CUDA_R_16F, CUDA_R_16BF};
    cudnnDataType_t conv[] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    for (int i = 0; i < 2; i++) {
        sm_gpu_context c = ctx(halves[i]);
        l.gpu = &c;
        CHECK_EQ(gpu_check_precision(&l, "linear", &err), 0);
        CHECK_EQ(gpu_precision(&l)->gemm_compute, CUBLAS_COMPUTE_32F);
        CHECK_EQ(gpu_precision(&l)->gemm_operands, operands[i]);
        CHECK_EQ(gpu_precision(&l)->gemm_data, CUDA_R_32F);
        CHECK_EQ(gpu_precision(&l)->conv_data, conv[i]);
        CHECK_EQ(gpu_precision(&l)->cudnn_math, CUDNN_TENSOR_OP_MATH);
        CHECK_EQ(gpu_precision(&l)->cudnn_tensor_ops, 1);
    }
    l.gpu = &fp32;
    CHECK_EQ(gpu_precision(&l)->conv_data, CUDNN_DATA_FLOAT);
    CHECK_EQ(gpu_precision(&l)->gemm_operands, CUDA_R_32F);
    l.gpu = &tf32;
    CHECK_EQ(gpu_precision(&l)->conv_data, CUDNN_DATA_FLOAT);
    CHECK_EQ(gpu_precision(&l)->gemm_operands, CUDA_R_32F);

    /* a number past the enum or below it has no row */
    int refused[] = {7, 4, -1};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        sm_gpu_context c = ctx(refused[i]);
        l.gpu = &c;
        CHECK(gpu_precision(&l) == NULL);
        CHECK_EQ(gpu_check_precision(&l, "linear", &err), -1);
    }
    l.gpu = &(sm_gpu_context){.precision = 7};
    gpu_check_precision(&l, "linear", &err);
    CHECK_STR_EQ(err.msg, "linear: precision 7 is not implemented by its GPU kernels (fp32, "
                          "tf32, fp16, bf16 are)");
    return check_summary();
}
