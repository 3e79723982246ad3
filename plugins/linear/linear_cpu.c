/*
 * CPU kernels of linear (kernels.h, struct sm_cpu_kernels), on the last dimension of the input
 * seen as R rows of F features (R = batch x the other dimensions), with OpenBLAS sgemm:
 *   forward   Y (R x O)  = X (R x F) * W^T + b
 *   input     dX        += dY * W          (sgemm with beta 1 adds, as kernels.h asks)
 *   weights   dW (O x F) = dY^T * X,  db = column sums of dY
 * Weights as nn.Linear stores them: weight O x F, then bias O.
 */
#include <cblas.h>
#include <math.h>

#include "cpu_util.h"
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
    float *y = l->out->data;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g.rows, (int)g.out, (int)g.in, 1.0f,
                l->in[0].data, (int)g.in, l->w, (int)g.in, 0.0f, y, (int)g.out);
    if (g.bias) {
        const float *b = l->w + g.out * g.in;
        for (int64_t r = 0; r < g.rows; r++)
            for (int64_t o = 0; o < g.out; o++)
                y[r * g.out + o] += b[o];
    }
    return 0;
}

static int linear_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    linear_geom g = linear_geom_of(l);
    const float *dy = l->dout->data;
    if (l->din[0].data)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.rows, (int)g.in, (int)g.out,
                    1.0f, dy, (int)g.out, l->w, (int)g.in, 1.0f, l->din[0].data, (int)g.in);
    if (!l->dw)
        return 0;
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g.out, (int)g.in, (int)g.rows, 1.0f,
                dy, (int)g.out, l->in[0].data, (int)g.in, 0.0f, l->dw, (int)g.in);
    if (g.bias)
        cpu_column_sums(dy, g.rows, g.out, g.out, l->dw + g.out * g.in);
    return 0;
}

const struct sm_cpu_kernels linear_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .init = linear_init,
    .forward = linear_forward,
    .backward = linear_backward,
};

SM_DEFINE_CPU_KERNELS(linear_cpu_kernels)
