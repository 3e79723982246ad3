/*
 * GPU kernels of groupnorm (kernels.h, struct sm_gpu_kernels) with common/norm_rows_gpu.cu's
 * row normalisation (no legacy cuDNN call normalises groups): rows as groupnorm_cpu.c sees
 * them, each sample's group of C / groups channels one contiguous row; gamma and beta per
 * channel. State: each row's mean and 1/sqrt(var + eps), from a training forward.
 */
#include "gpu_ops.h"
#include "gpu_util.h"
#include "groupnorm.h"

static size_t gn_state_size(const sm_layer_io *l)
{
    return (size_t)(2 * gn_geom_of(l).rows) * sizeof(float);
}

static int gn_forward(const sm_layer_io *l, sm_error *err)
{
    norm_rows r = gn_rows(l);
    const float *gamma = NULL, *beta = NULL;
    if (gn_geom_of(l).affine) {
        gamma = l->w;
        beta = l->w + norm_rows_params(&r);
    }
    GPU_CUDA(err, smk_norm_rows_forward, l->out->data, l->training ? l->state : NULL, l->in[0].data,
             gamma, beta, r, (float)GN_EPS, gpu_stream(l));
    return 0;
}

static int gn_backward(const sm_layer_io *l, sm_error *err)
{
    norm_rows r = gn_rows(l);
    int affine = gn_geom_of(l).affine;
    if (affine && l->dw)
        GPU_CUDA(err, smk_norm_rows_params, l->dw, l->dw + norm_rows_params(&r), l->dout->data,
                 l->in[0].data, l->state, r, gpu_stream(l));
    if (l->din[0].data)
        GPU_CUDA(err, smk_norm_rows_backward, l->din[0].data, l->dout->data, l->in[0].data,
                 l->state, affine ? l->w : NULL, r, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels groupnorm_gpu_kernels = {
    SM_GPU_KERNELS_INIT,   .state_size = gn_state_size, .init = gn_init,
    .forward = gn_forward, .backward = gn_backward,
};

SM_DEFINE_GPU_KERNELS(groupnorm_gpu_kernels)
