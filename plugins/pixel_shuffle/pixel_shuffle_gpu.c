/*
 * GPU kernels of pixel_shuffle (kernels.h, struct sm_gpu_kernels): a permutation, so forward
 * gathers the output in order through the input's strides (common/gpu_copy.cu) and backward
 * scatters the gradient back the same way, as pixel_shuffle_cpu.c moves them.
 */
#include "gpu_ops.h"
#include "gpu_util.h"
#include "pixel_shuffle.h"

/* The output as (sample x channel, h, i, w, j), output (c, h r + i, w r + j) reading input
 * (c r^2 + i r + j, h, w). */
static smk_walk walk_of(const sm_layer_io *l)
{
    const pixel_shuffle_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int64_t r = p->factor, c = s->dim[0] / (r * r), h = s->dim[1], w = s->dim[2];
    smk_walk k = {{l->in[0].n * c, h, r, w, r}, {r * r * h * w, w, r * h * w, 1, h * w}};
    return k;
}

static int pixel_shuffle_gpu_forward(const sm_layer_io *l, sm_error *err)
{
    GPU_CUDA(err, smk_gather, l->out->data, l->in[0].data, walk_of(l), gpu_stream(l));
    return 0;
}

static int pixel_shuffle_gpu_backward(const sm_layer_io *l, sm_error *err)
{
    if (l->din[0].data)
        GPU_CUDA(err, smk_scatter_add, l->din[0].data, l->dout->data, walk_of(l), gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels pixel_shuffle_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = pixel_shuffle_gpu_forward,
    .backward = pixel_shuffle_gpu_backward,
};

SM_DEFINE_GPU_KERNELS(pixel_shuffle_gpu_kernels)
