/*
 * CPU kernels of cls_token (kernels.h, struct sm_cpu_kernels): each sample's S x E sequence
 * gets the learnable token (E weights) in front. Backward: the token's gradient is the sum over
 * the batch of the first row's, the input's the other rows'. The token starts at 0, as
 * torchvision's VisionTransformer initialises class_token (cls_token.h, shared with the GPU).
 */
#include "cls_token.h"
#include "cpu_util.h"

static int cls_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    int64_t e = l->n_w, in = sm_sample_elems(&l->in[0]);
    for (int64_t n = 0; n < l->in[0].n; n++) {
        float *y = l->out->data + n * (in + e);
        memcpy(y, l->w, (size_t)e * sizeof *y);
        memcpy(y + e, l->in[0].data + n * in, (size_t)in * sizeof *y);
    }
    return 0;
}

static int cls_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    int64_t e = l->n_w, in = sm_sample_elems(&l->in[0]);
    if (l->dw)
        memset(l->dw, 0, (size_t)e * sizeof *l->dw);
    for (int64_t n = 0; n < l->in[0].n; n++) {
        const float *dy = l->dout->data + n * (in + e);
        if (l->dw)
            cpu_accumulate(l->dw, dy, e);
        if (l->din[0].data)
            cpu_accumulate(l->din[0].data + n * in, dy + e, in);
    }
    return 0;
}

const struct sm_cpu_kernels cls_token_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .init = cls_token_init,
    .forward = cls_forward,
    .backward = cls_backward,
};

SM_DEFINE_CPU_KERNELS(cls_token_cpu_kernels)
