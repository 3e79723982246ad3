/*
 * GPU kernels of layernorm (kernels.h, struct sm_gpu_kernels) with common/norm_rows_gpu.cu's
 * row normalisation (no legacy cuDNN call normalises layers): rows as layernorm_cpu.c sees them
 * (layernorm.h), the last `dims` dimensions of a sample (contiguous) or with channels=true the
 * C values of one pixel (H W apart). State: each row's mean and 1/sqrt(var + eps), from a
 * training forward.
 */
#include "gpu_ops.h"
#include "gpu_util.h"
#include "layernorm.h"

static int ln_forward(const sm_layer_io *l, sm_error *err)
{
    const layernorm_params *p = l->params;
    norm_rows r = layernorm_rows(l);
    GPU_CUDA(err, smk_norm_rows_forward, l->out->data, l->training ? l->state : NULL, l->in[0].data,
             p->affine ? l->w : NULL, p->affine ? l->w + r.len : NULL, r, (float)LN_EPS,
             gpu_stream(l));
    return 0;
}

static int ln_backward(const sm_layer_io *l, sm_error *err)
{
    const layernorm_params *p = l->params;
    norm_rows r = layernorm_rows(l);
    if (p->affine && l->dw)
        GPU_CUDA(err, smk_norm_rows_params, l->dw, l->dw + r.len, l->dout->data, l->in[0].data,
                 l->state, r, gpu_stream(l));
    if (l->din[0].data)
        GPU_CUDA(err, smk_norm_rows_backward, l->din[0].data, l->dout->data, l->in[0].data,
                 l->state, p->affine ? l->w : NULL, r, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels layernorm_gpu_kernels = {
    SM_GPU_KERNELS_INIT,     .state_size = layernorm_state_size,
    .init = layernorm_init,  .forward = ln_forward,
    .backward = ln_backward,
};

SM_DEFINE_GPU_KERNELS(layernorm_gpu_kernels)
