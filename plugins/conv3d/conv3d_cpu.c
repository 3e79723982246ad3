/*
 * CPU kernels of conv3d (kernels.h, struct sm_cpu_kernels): direct loops over every output
 * position and kernel tap (common/conv_direct.h), forward, input and weight gradients.
 */
#include "conv_direct.h"

static void conv3d_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    conv_direct_init(l, w, 0);
}

static int conv3d_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    return conv_direct_forward(l, 0);
}

static int conv3d_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    return conv_direct_backward(l, 0);
}

const struct sm_cpu_kernels conv3d_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .init = conv3d_init,
    .forward = conv3d_forward,
    .backward = conv3d_backward,
};

SM_DEFINE_CPU_KERNELS(conv3d_cpu_kernels)
