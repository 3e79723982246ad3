/*
 * CPU kernels of conv_transpose2d (kernels.h, struct sm_cpu_kernels): direct loops over every
 * output position and kernel tap (common/conv_direct.h), forward, input and weight gradients.
 */
#include "conv_direct.h"

static void conv_transpose2d_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    conv_direct_init(l, w, 1);
}

static int conv_transpose2d_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    return conv_direct_forward(l, 1);
}

static int conv_transpose2d_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    return conv_direct_backward(l, 1);
}

const struct sm_cpu_kernels conv_transpose2d_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .init = conv_transpose2d_init,
    .forward = conv_transpose2d_forward,
    .backward = conv_transpose2d_backward,
};

SM_DEFINE_CPU_KERNELS(conv_transpose2d_cpu_kernels)
