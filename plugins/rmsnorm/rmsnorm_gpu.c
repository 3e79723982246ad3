/*
 * GPU kernels of rmsnorm (kernels.h, struct sm_gpu_kernels) with the kernels of rmsnorm_gpu.cu:
 * rows of the last dimension, as rmsnorm_cpu.c sees them. State: each row's rsqrt, from a
 * training forward.
 */
#include "gpu_util.h"
#include "rmsnorm.h"
#include "rmsnorm_gpu.h"

static int64_t row_len(const sm_layer_io *l) { return l->in[0].shape.dim[l->in[0].shape.ndim - 1]; }

static int64_t rows_of(const sm_layer_io *l)
{
    return l->in[0].n * sm_shape_elems(&l->in[0].shape) / row_len(l);
}

static size_t rms_state_size(const sm_layer_io *l) { return (size_t)rows_of(l) * sizeof(float); }

static void rms_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    for (int64_t i = 0; i < row_len(l); i++)
        w[i] = 1.0f;
}

static int rms_forward(const sm_layer_io *l, sm_error *err)
{
    const rmsnorm_params *p = l->params;
    GPU_CUDA(err, smk_rmsnorm_forward, l->out->data, l->training ? l->state : NULL, l->in[0].data,
             l->w, rows_of(l), row_len(l), (float)p->eps, gpu_stream(l));
    return 0;
}

static int rms_backward(const sm_layer_io *l, sm_error *err)
{
    if (l->dw)
        GPU_CUDA(err, smk_rmsnorm_weight_grad, l->dw, l->dout->data, l->in[0].data, l->state,
                 rows_of(l), row_len(l), gpu_stream(l));
    if (l->din[0].data)
        GPU_CUDA(err, smk_rmsnorm_backward, l->din[0].data, l->dout->data, l->in[0].data, l->state,
                 l->w, rows_of(l), row_len(l), gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels rmsnorm_gpu_kernels = {
    SM_GPU_KERNELS_INIT,    .state_size = rms_state_size, .init = rms_init,
    .forward = rms_forward, .backward = rms_backward,
};

SM_DEFINE_GPU_KERNELS(rmsnorm_gpu_kernels)
