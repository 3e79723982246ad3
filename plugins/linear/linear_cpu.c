/*
 * CPU kernels of linear (kernels.h, struct sm_cpu_kernels), on the last dimension of the input
 * seen as R rows of F features (R = batch x the other dimensions), common/linear_cpu.h's:
 *   forward   Y (R x O)  = X (R x F) * W^T + b
 *   input     dX        += dY * W          (sgemm with beta 1 adds, as kernels.h asks)
 *   weights   dW (O x F) = dY^T * X,  db = column sums of dY
 * Weights as nn.Linear stores them: weight O x F, then bias O.
 */
#include <math.h>

#include "cpu_util.h"
#include "linear_cpu.h"
#include "linear.h"

static void linear_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    linear_geom g = linear_geom_of(l);
    cpu_scale(w, l->n_w, 1.0f / sqrtf((float)g.in));
}

static int linear_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    linear_geom g = linear_geom_of(l);
    linear_cpu_forward(g.rows, g.in, g.out, l->in[0].data, g.in, l->w,
                       g.bias ? l->w + g.out * g.in : NULL, l->out->data, g.out);
    return 0;
}

static int linear_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    linear_geom g = linear_geom_of(l);
    const float *dy = l->dout->data;
    if (l->din[0].data)
        linear_cpu_input_grad(g.rows, g.in, g.out, dy, g.out, l->w, 1.0f, l->din[0].data, g.in);
    if (l->dw)
        linear_cpu_weight_grad(g.rows, g.in, g.out, dy, g.out, l->in[0].data, g.in, l->dw,
                               g.bias ? l->dw + g.out * g.in : NULL);
    return 0;
}

const struct sm_cpu_kernels linear_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .init = linear_init,
    .forward = linear_forward,
    .backward = linear_backward,
};

SM_DEFINE_CPU_KERNELS(linear_cpu_kernels)
