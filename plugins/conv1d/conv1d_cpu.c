/*
 * CPU kernels of conv1d (kernels.h, struct sm_cpu_kernels): direct loops over every output
 * position and kernel tap (common/conv_direct.h), forward, input and weight gradients.
 */
#include "conv_direct.h"

static void conv1d_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    conv_direct_init(l, w, 0);
}

static int conv1d_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    return conv_direct_forward(l, 0);
}

static int conv1d_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    return conv_direct_backward(l, 0);
}

const struct sm_cpu_kernels conv1d_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .init = conv1d_init,
    .forward = conv1d_forward,
    .backward = conv1d_backward,
};

SM_DEFINE_CPU_KERNELS(conv1d_cpu_kernels)
