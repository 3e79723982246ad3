/*
 * GPU kernels of layernorm (kernels.h, struct sm_gpu_kernels) with the kernels of
 * layernorm_gpu.cu (no legacy cuDNN call normalises layers): rows as layernorm_cpu.c sees them,
 * the last `dims` dimensions of a sample (contiguous) or with channels=true the C values of one
 * pixel (H W apart). State: each row's mean and 1/sqrt(var + eps), from a training forward.
 */
#include "layernorm_gpu.h"
#include "gpu_util.h"
#include "layernorm.h"

static smk_rows rows_of(const sm_layer_io *l)
{
    const layernorm_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    smk_rows r = {0};
    r.sample = sm_shape_elems(s);
    if (p->channels) {
        r.len = s->dim[0];
        r.stride = s->dim[1] * s->dim[2];
    } else {
        r.len = sm_shape_dims(s, s->ndim - (int)p->dims, s->ndim);
        r.stride = 1;
    }
    r.per_sample = r.sample / r.len;
    r.rows = l->in[0].n * r.per_sample;
    return r;
}

static size_t ln_state_size(const sm_layer_io *l)
{
    return (size_t)(2 * rows_of(l).rows) * sizeof(float);
}

static void ln_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    const layernorm_params *p = l->params;
    int64_t len = rows_of(l).len;
    if (p->affine)
        for (int64_t i = 0; i < len; i++) {
            w[i] = 1.0f;
            w[len + i] = 0.0f;
        }
}

static int ln_forward(const sm_layer_io *l, sm_error *err)
{
    const layernorm_params *p = l->params;
    smk_rows r = rows_of(l);
    GPU_CUDA(err, smk_layernorm_forward, l->out->data, l->training ? l->state : NULL, l->in[0].data,
             p->affine ? l->w : NULL, p->affine ? l->w + r.len : NULL, r, (float)LN_EPS,
             gpu_stream(l));
    return 0;
}

static int ln_backward(const sm_layer_io *l, sm_error *err)
{
    const layernorm_params *p = l->params;
    smk_rows r = rows_of(l);
    if (p->affine && l->dw)
        GPU_CUDA(err, smk_layernorm_params, l->dw, l->dw + r.len, l->dout->data, l->in[0].data,
                 l->state, r, gpu_stream(l));
    if (l->din[0].data)
        GPU_CUDA(err, smk_layernorm_backward, l->din[0].data, l->dout->data, l->in[0].data,
                 l->state, p->affine ? l->w : NULL, r, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels layernorm_gpu_kernels = {
    SM_GPU_KERNELS_INIT,   .state_size = ln_state_size, .init = ln_init,
    .forward = ln_forward, .backward = ln_backward,
};

SM_DEFINE_GPU_KERNELS(layernorm_gpu_kernels)
