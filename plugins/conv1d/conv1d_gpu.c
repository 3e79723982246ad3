/*
 * GPU kernels of conv1d (kernels.h, struct sm_gpu_kernels): direct loops on the device, one
 * thread per element written (common/conv_direct_gpu.h, common/convnd_gpu.cu), following
 * conv1d_cpu.c's sums; PyTorch's initial weights, as on the CPU.
 */
#include "conv_direct_gpu.h"

static void conv1d_gpu_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    conv_direct_init(l, w, 0);
}

static int conv1d_gpu_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    return conv_direct_gpu_setup(l, "conv1d", plan, err);
}

static int conv1d_gpu_forward(const sm_layer_io *l, sm_error *err)
{
    return conv_direct_gpu_forward(l, 0, err);
}

static int conv1d_gpu_backward(const sm_layer_io *l, sm_error *err)
{
    return conv_direct_gpu_backward(l, 0, err);
}

static const struct sm_gpu_kernels conv1d_gpu_kernels = {
    SM_GPU_KERNELS_INIT,           .init = conv1d_gpu_init,         .setup = conv1d_gpu_setup,
    .forward = conv1d_gpu_forward, .backward = conv1d_gpu_backward,
};

SM_DEFINE_GPU_KERNELS(conv1d_gpu_kernels)
