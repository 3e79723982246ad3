/*
 * CPU kernels of pos_embedding (kernels.h, struct sm_cpu_kernels): y = x + the table's first S
 * rows (max_len x E weights), for every sample. Backward: dx += dy; the table's first S rows
 * get the sum of dy over the batch, the others 0. Initial table: N(0, 0.02)-like, uniform of
 * the same spread (0.02 sqrt(3)), as ViT's pos_embedding and GPT-2's wpe start small
 * (pos_embedding.h, shared with the GPU).
 */
#include "cpu_util.h"
#include "pos_embedding.h"

static int pos_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    int64_t se = sm_sample_elems(&l->in[0]);
    for (int64_t n = 0; n < l->in[0].n; n++) {
        const float *x = l->in[0].data + n * se;
        float *y = l->out->data + n * se;
        for (int64_t i = 0; i < se; i++)
            y[i] = x[i] + l->w[i];
    }
    return 0;
}

static int pos_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    int64_t se = sm_sample_elems(&l->in[0]);
    if (l->dw)
        memset(l->dw, 0, (size_t)l->n_w * sizeof *l->dw);
    for (int64_t n = 0; n < l->in[0].n; n++) {
        const float *dy = l->dout->data + n * se;
        if (l->dw)
            cpu_accumulate(l->dw, dy, se);
        if (l->din[0].data)
            cpu_accumulate(l->din[0].data + n * se, dy, se);
    }
    return 0;
}

const struct sm_cpu_kernels pos_embedding_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .init = pos_embedding_init,
    .forward = pos_forward,
    .backward = pos_backward,
};

SM_DEFINE_CPU_KERNELS(pos_embedding_cpu_kernels)
