/*
 * CPU kernels of lm_head (kernels.h, struct sm_cpu_kernels): linear's products with the vocab x E
 * matrix tied to the token embedding. Kernels see only their own layer, so the matrix here is a
 * stand-in of the same size, kept in the layer's state: the products cost what the tied ones
 * cost, and the tied matrix's gradient is computed (into scratch) as PyTorch computes it, but
 * it is not added to the embedding's (a vocab x E addition, small beside the products) and it
 * does not train. The matrix's all-reduce is counted once, at the embedding, as in PyTorch.
 * The products are common/linear_cpu.h's.
 * The stand-in's initial values (lm_head.h) are the GPU's too.
 *   forward   Y = X M^T (+ b)
 *   backward  dX += dY M,  dM = dY^T X (scratch),  db = column sums of dY
 */
#include "linear_cpu.h"
#include "lm_head.h"

static int head_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    lm_head_geom g = lm_head_geom_of(l);
    linear_cpu_forward(g.rows, g.e, g.vocab, l->in[0].data, g.e, l->state, l->w, l->out->data,
                       g.vocab);
    return 0;
}

static int head_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    lm_head_geom g = lm_head_geom_of(l);
    const float *dy = l->dout->data;
    if (l->din[0].data)
        linear_cpu_input_grad(g.rows, g.e, g.vocab, dy, g.vocab, l->state, 1.0f, l->din[0].data,
                              g.e);
    /* dM into scratch; the bias (n_w = vocab) where there is one to train */
    linear_cpu_weight_grad(g.rows, g.e, g.vocab, dy, g.vocab, l->in[0].data, g.e, l->work, l->dw);
    return 0;
}

const struct sm_cpu_kernels lm_head_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .work_size = lm_head_matrix_size,
    .state_size = lm_head_matrix_size,
    .init = lm_head_init,
    .forward = head_forward,
    .backward = head_backward,
};

SM_DEFINE_CPU_KERNELS(lm_head_cpu_kernels)
