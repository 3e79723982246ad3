/*
 * GPU kernels of upsample (kernels.h, struct sm_gpu_kernels): nearest and bilinear, forward
 * and backward, as the small kernels of upsample_gpu.cu, which follow upsample_cpu.c.
 */
#include "gpu_util.h"
#include "upsample_gpu.h"

static smk_upsample_geom geom_of(const sm_layer_io *l)
{
    const sm_shape *in = &l->in[0].shape, *out = &l->out->shape;
    smk_upsample_geom g = {*(const upsample_params *)l->params,
                           l->in[0].n * in->dim[0],
                           in->dim[1],
                           in->dim[2],
                           out->dim[1],
                           out->dim[2]};
    return g;
}

static int upsample_gpu_forward(const sm_layer_io *l, sm_error *err)
{
    GPU_CUDA(err, smk_upsample_forward, l->out->data, l->in[0].data, geom_of(l), gpu_stream(l));
    return 0;
}

static int upsample_gpu_backward(const sm_layer_io *l, sm_error *err)
{
    if (l->din[0].data)
        GPU_CUDA(err, smk_upsample_backward, l->din[0].data, l->dout->data, geom_of(l),
                 gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels upsample_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = upsample_gpu_forward,
    .backward = upsample_gpu_backward,
};

SM_DEFINE_GPU_KERNELS(upsample_gpu_kernels)
