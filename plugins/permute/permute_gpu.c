/*
 * GPU kernels of permute (kernels.h, struct sm_gpu_kernels): output dimension i is input
 * dimension order[i]. Forward gathers the output in order through the input's permuted strides
 * (gpu_copy.cu); backward scatters the gradient back the same way.
 */
#include "gpu_ops.h"
#include "gpu_util.h"
#include "permute.h"

/* The batch, then the output's dims padded at the front to 4, with the input's strides. */
static smk_walk walk_of(const sm_layer_io *l)
{
    const permute_params *p = l->params;
    const sm_shape *in = &l->in[0].shape;
    int64_t st[SM_MAX_DIMS], acc = 1;
    for (int i = in->ndim - 1; i >= 0; i--) {
        st[i] = acc;
        acc *= in->dim[i];
    }
    smk_walk w = {{l->in[0].n, 1, 1, 1, 1}, {acc, 0, 0, 0, 0}};
    int pad = SMK_DIMS - p->n;
    for (int i = 0; i < p->n; i++) {
        w.size[pad + i] = in->dim[p->order[i]];
        w.stride[pad + i] = st[p->order[i]];
    }
    return w;
}

static int permute_forward(const sm_layer_io *l, sm_error *err)
{
    GPU_CUDA(err, smk_gather, l->out->data, l->in[0].data, walk_of(l), gpu_stream(l));
    return 0;
}

static int permute_backward(const sm_layer_io *l, sm_error *err)
{
    if (l->din[0].data)
        GPU_CUDA(err, smk_scatter_add, l->din[0].data, l->dout->data, walk_of(l), gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels permute_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = permute_forward,
    .backward = permute_backward,
};

SM_DEFINE_GPU_KERNELS(permute_gpu_kernels)
