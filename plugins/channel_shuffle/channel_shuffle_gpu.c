/*
 * GPU kernels of channel_shuffle (kernels.h, struct sm_gpu_kernels). Output channel j g + i is
 * input channel i (C/g) + j: seen as N x g x C/g x P (P the values of one channel), the output
 * is its permutation N x C/g x g x P, a gather along a walk (gpu_copy.cu); backward scatters
 * the gradient back the same way.
 */
#include "channel_shuffle.h"
#include "gpu_ops.h"
#include "gpu_util.h"

/* The output (N, C/g, g, P) in order, each dimension with the input's stride. */
static smk_walk walk_of(const sm_layer_io *l)
{
    const shuffle_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int64_t c = s->dim[0], g = p->groups, per = c / g, plane = sm_shape_dims(s, 1, s->ndim);
    smk_walk w = {{1, l->in[0].n, per, g, plane}, {0, c * plane, plane, per * plane, 1}};
    return w;
}

static int shuffle_forward(const sm_layer_io *l, sm_error *err)
{
    GPU_CUDA(err, smk_gather, l->out->data, l->in[0].data, walk_of(l), gpu_stream(l));
    return 0;
}

static int shuffle_backward(const sm_layer_io *l, sm_error *err)
{
    if (l->din[0].data)
        GPU_CUDA(err, smk_scatter_add, l->din[0].data, l->dout->data, walk_of(l), gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels channel_shuffle_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = shuffle_forward,
    .backward = shuffle_backward,
};

SM_DEFINE_GPU_KERNELS(channel_shuffle_gpu_kernels)
