/*
 * GPU kernels of embedding (kernels.h, struct sm_gpu_kernels), as embedding_cpu.c: each
 * position's float becomes a token id (embedding.h, the same id as on the CPU) whose row of the
 * vocab x dim table is copied out (embedding_gpu.cu). Backward: the table's gradient is
 * overwritten with dy scatter-added into the rows read; ids are not differentiable, so the
 * input's gradient is left alone.
 */
#include "embedding.h"
#include "embedding_gpu.h"
#include "gpu_util.h"

static int embedding_forward(const sm_layer_io *l, sm_error *err)
{
    const embedding_params *p = l->params;
    GPU_CUDA(err, smk_embedding_forward, l->out->data, l->in[0].data, l->w,
             sm_tensor_elems(&l->in[0]), p->vocab, p->dim, gpu_stream(l));
    return 0;
}

static int embedding_backward(const sm_layer_io *l, sm_error *err)
{
    const embedding_params *p = l->params;
    if (!l->dw)
        return 0;
    GPU_CUDA(err, cudaMemsetAsync, l->dw, 0, (size_t)l->n_w * sizeof(float), gpu_stream(l));
    GPU_CUDA(err, smk_embedding_backward, l->dw, l->dout->data, l->in[0].data,
             sm_tensor_elems(&l->in[0]), p->vocab, p->dim, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels embedding_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .init = embedding_init,
    .forward = embedding_forward,
    .backward = embedding_backward,
};

SM_DEFINE_GPU_KERNELS(embedding_gpu_kernels)
