/*
 * CPU kernels of identity (kernels.h, struct sm_cpu_kernels): the same values in the output, so
 * forward copies and backward adds the output gradient to the input's. (nn.Identity; the host gives
 * every layer its own output, so this copies.)
 */
#include "cpu_util.h"

static int identity_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    memcpy(l->out->data, l->in[0].data, (size_t)sm_tensor_elems(l->out) * sizeof(float));
    return 0;
}

static int identity_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (l->din[0].data)
        cpu_accumulate(l->din[0].data, l->dout->data, sm_tensor_elems(l->out));
    return 0;
}

const struct sm_cpu_kernels identity_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = identity_forward,
    .backward = identity_backward,
};

SM_DEFINE_CPU_KERNELS(identity_cpu_kernels)
