/*
 * CPU kernels of embedding (kernels.h, struct sm_cpu_kernels): row id of the vocab x dim table
 * for each of the S positions. The host fills a network's input with floats in [-1, 1); a
 * benchmark needs valid token ids, not particular ones, so id = floor((x + 1) / 2 vocab),
 * clamped (embedding.h, shared with the GPU). Ids are not differentiable: backward leaves the
 * input's gradient alone and scatter-adds dy into the rows that were read. Initial table
 * N(0, 1)-like (nn.Embedding), uniform of the same spread (sqrt(3)).
 */
#include "cpu_util.h"
#include "embedding.h"

static int embedding_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const embedding_params *p = l->params;
    int64_t positions = sm_tensor_elems(&l->in[0]);
    for (int64_t i = 0; i < positions; i++) {
        int64_t id = embedding_token(p->vocab, l->in[0].data[i]);
        memcpy(l->out->data + i * p->dim, l->w + id * p->dim, (size_t)p->dim * sizeof(float));
    }
    return 0;
}

static int embedding_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const embedding_params *p = l->params;
    int64_t positions = sm_tensor_elems(&l->in[0]);
    if (!l->dw)
        return 0;
    memset(l->dw, 0, (size_t)l->n_w * sizeof *l->dw);
    for (int64_t i = 0; i < positions; i++) {
        int64_t id = embedding_token(p->vocab, l->in[0].data[i]);
        cpu_accumulate(l->dw + id * p->dim, l->dout->data + i * p->dim, p->dim);
    }
    return 0;
}

const struct sm_cpu_kernels embedding_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .init = embedding_init,
    .forward = embedding_forward,
    .backward = embedding_backward,
};

SM_DEFINE_CPU_KERNELS(embedding_cpu_kernels)
