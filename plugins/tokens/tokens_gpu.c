/*
 * GPU kernels of tokens (kernels.h, struct sm_gpu_kernels), as tokens_cpu.c: C x H x W ->
 * (H W) x C, a transpose of each sample's C x (H W) matrix. Forward gathers the output in
 * order through the input's transposed strides (gpu_copy.cu); backward scatters the gradient
 * back the same way, adding.
 */
#include "gpu_ops.h"
#include "gpu_util.h"

/* The output n x P x C, P = H W, read from the input n x C x P. */
static smk_walk walk_of(const sm_layer_io *l)
{
    const sm_shape *s = &l->in[0].shape;
    int64_t c = s->dim[0], p = s->dim[1] * s->dim[2];
    smk_walk w = {{1, 1, l->in[0].n, p, c}, {0, 0, c * p, 1, p}};
    return w;
}

static int tokens_forward(const sm_layer_io *l, sm_error *err)
{
    GPU_CUDA(err, smk_gather, l->out->data, l->in[0].data, walk_of(l), gpu_stream(l));
    return 0;
}

static int tokens_backward(const sm_layer_io *l, sm_error *err)
{
    if (l->din[0].data)
        GPU_CUDA(err, smk_scatter_add, l->din[0].data, l->dout->data, walk_of(l), gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels tokens_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = tokens_forward,
    .backward = tokens_backward,
};

SM_DEFINE_GPU_KERNELS(tokens_gpu_kernels)
