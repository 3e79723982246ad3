/*
 * CPU kernels of tokens (kernels.h, struct sm_cpu_kernels): C x H x W -> (H W) x C, a transpose
 * of each sample's C x (H W) matrix; backward transposes the gradient back and adds it.
 */
#include "cpu_util.h"

static void transpose(const sm_layer_io *l, int backward)
{
    const sm_shape *s = &l->in[0].shape;
    int64_t c = s->dim[0], p = s->dim[1] * s->dim[2];
    for (int64_t n = 0; n < l->in[0].n; n++) {
        int64_t base = n * c * p;
        for (int64_t i = 0; i < c; i++)
            for (int64_t j = 0; j < p; j++) {
                if (backward)
                    l->din[0].data[base + i * p + j] += l->dout->data[base + j * c + i];
                else
                    l->out->data[base + j * c + i] = l->in[0].data[base + i * p + j];
            }
    }
}

static int tokens_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    transpose(l, 0);
    return 0;
}

static int tokens_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (l->din[0].data)
        transpose(l, 1);
    return 0;
}

const struct sm_cpu_kernels tokens_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = tokens_forward,
    .backward = tokens_backward,
};

SM_DEFINE_CPU_KERNELS(tokens_cpu_kernels)
