/*
 * GPU kernels of cls_token (kernels.h, struct sm_gpu_kernels), as cls_token_cpu.c: each
 * sample's S x E sequence gets the learnable token (E weights) in front (cls_token_gpu.cu).
 * Backward: the token's gradient (overwritten) is the sum over the batch of the first row's;
 * the input's gradient gets the other rows added (gpu_copy.cu's strided accumulate).
 */
#include "cls_token.h"
#include "cls_token_gpu.h"
#include "gpu_ops.h"
#include "gpu_util.h"

static int cls_forward(const sm_layer_io *l, sm_error *err)
{
    GPU_CUDA(err, smk_cls_token_forward, l->out->data, l->in[0].data, l->w, l->in[0].n,
             sm_sample_elems(&l->in[0]), l->n_w, gpu_stream(l));
    return 0;
}

static int cls_backward(const sm_layer_io *l, sm_error *err)
{
    int64_t e = l->n_w, in = sm_sample_elems(&l->in[0]);
    if (l->dw)
        GPU_CUDA(err, smk_cls_token_grad, l->dw, l->dout->data, l->in[0].n, in, e, gpu_stream(l));
    if (l->din[0].data)
        GPU_CUDA(err, smk_accumulate_2d, l->din[0].data, in, l->dout->data + e, in + e, l->in[0].n,
                 in, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels cls_token_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .init = cls_token_init,
    .forward = cls_forward,
    .backward = cls_backward,
};

SM_DEFINE_GPU_KERNELS(cls_token_gpu_kernels)
