/*
 * GPU kernels of conv_transpose2d (kernels.h, struct sm_gpu_kernels): direct loops on the device,
 * one thread per element written (common/conv_direct_gpu.h, common/convnd_gpu.cu), following
 * conv_transpose2d_cpu.c's sums; PyTorch's initial weights, as on the CPU.
 */
#include "conv_direct_gpu.h"

static void conv_transpose2d_gpu_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    conv_direct_init(l, w, 1);
}

static int conv_transpose2d_gpu_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    return conv_direct_gpu_setup(l, "conv_transpose2d", plan, err);
}

static int conv_transpose2d_gpu_forward(const sm_layer_io *l, sm_error *err)
{
    return conv_direct_gpu_forward(l, 1, err);
}

static int conv_transpose2d_gpu_backward(const sm_layer_io *l, sm_error *err)
{
    return conv_direct_gpu_backward(l, 1, err);
}

static const struct sm_gpu_kernels conv_transpose2d_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .init = conv_transpose2d_gpu_init,
    .setup = conv_transpose2d_gpu_setup,
    .forward = conv_transpose2d_gpu_forward,
    .backward = conv_transpose2d_gpu_backward,
};

SM_DEFINE_GPU_KERNELS(conv_transpose2d_gpu_kernels)
