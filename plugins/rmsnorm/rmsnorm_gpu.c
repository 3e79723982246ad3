/*
 * GPU kernels of rmsnorm (kernels.h, struct sm_gpu_kernels) with common/norm_rows_gpu.cu's row
 * normalisation, not centred: rows of the last dimension, as rmsnorm_cpu.c sees them
 * (rmsnorm.h). State: each row's rsqrt, from a training forward.
 */
#include "gpu_ops.h"
#include "gpu_util.h"
#include "rmsnorm.h"

static int rms_forward(const sm_layer_io *l, sm_error *err)
{
    const rmsnorm_params *p = l->params;
    GPU_CUDA(err, smk_norm_rows_forward, l->out->data, l->training ? l->state : NULL, l->in[0].data,
             l->w, NULL, rmsnorm_rows(l), (float)p->eps, gpu_stream(l));
    return 0;
}

static int rms_backward(const sm_layer_io *l, sm_error *err)
{
    norm_rows r = rmsnorm_rows(l);
    if (l->dw)
        GPU_CUDA(err, smk_norm_rows_params, l->dw, NULL, l->dout->data, l->in[0].data, l->state, r,
                 gpu_stream(l));
    if (l->din[0].data)
        GPU_CUDA(err, smk_norm_rows_backward, l->din[0].data, l->dout->data, l->in[0].data,
                 l->state, l->w, r, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels rmsnorm_gpu_kernels = {
    SM_GPU_KERNELS_INIT,    .state_size = rmsnorm_state_size, .init = rmsnorm_init,
    .forward = rms_forward, .backward = rms_backward,
};

SM_DEFINE_GPU_KERNELS(rmsnorm_gpu_kernels)
