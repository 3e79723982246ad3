/*
 * CPU kernels of swiglu (kernels.h, struct sm_cpu_kernels), common/linear_cpu.h's products:
 *   forward   G = X W_g^T,  U = X W_u^T,  H = silu(G) U,  Y = H W_d^T
 *   backward  dH = dY W_d,  dW_d = dY^T H,
 *             dG = dH U silu'(G),  dU = dH silu(G)   (silu'(g) = s (1 + g (1 - s)), s = sigmoid)
 *             dX += dG W_g + dU W_u,  dW_g = dG^T X,  dW_u = dU^T X
 * State: G, U, H (swiglu.h); work: dH, dG, dU.
 */
#include <math.h>

#include "cpu_util.h"
#include "linear_cpu.h"
#include "swiglu.h"

static size_t swiglu_state_size(const sm_layer_io *l)
{
    swiglu_geom g = swiglu_geom_of(l);
    return cpu_float_bytes(swiglu_rows_floats(&g));
}

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

static int swiglu_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    swiglu_geom g = swiglu_geom_of(l);
    const float *x = l->in[0].data;
    linear_cpu_forward(g.rows, g.e, g.f, x, g.e, g.wg, NULL, g.g, g.f);
    linear_cpu_forward(g.rows, g.e, g.f, x, g.e, g.wu, NULL, g.u, g.f);
    for (int64_t i = 0; i < g.rows * g.f; i++)
        g.h[i] = g.g[i] * sigmoid(g.g[i]) * g.u[i];
    linear_cpu_forward(g.rows, g.f, g.e, g.h, g.f, g.wd, NULL, l->out->data, g.e);
    return 0;
}

static int swiglu_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    swiglu_geom g = swiglu_geom_of(l);
    const float *x = l->in[0].data, *dy = l->dout->data;
    float *dh = l->work, *dg = dh + g.rows * g.f, *du = dg + g.rows * g.f;
    linear_cpu_input_grad(g.rows, g.f, g.e, dy, g.e, g.wd, 0.0f, dh, g.f);
    for (int64_t i = 0; i < g.rows * g.f; i++) {
        float s = sigmoid(g.g[i]);
        dg[i] = dh[i] * g.u[i] * s * (1.0f + g.g[i] * (1.0f - s));
        du[i] = dh[i] * g.g[i] * s;
    }
    if (l->din[0].data) {
        linear_cpu_input_grad(g.rows, g.e, g.f, dg, g.f, g.wg, 1.0f, l->din[0].data, g.e);
        linear_cpu_input_grad(g.rows, g.e, g.f, du, g.f, g.wu, 1.0f, l->din[0].data, g.e);
    }
    if (l->dw) {
        linear_cpu_weight_grad(g.rows, g.f, g.e, dy, g.e, g.h, g.f, g.dwd, NULL);
        linear_cpu_weight_grad(g.rows, g.e, g.f, dg, g.f, x, g.e, g.dwg, NULL);
        linear_cpu_weight_grad(g.rows, g.e, g.f, du, g.f, x, g.e, g.dwu, NULL);
    }
    return 0;
}

const struct sm_cpu_kernels swiglu_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .work_size = swiglu_state_size,
    .state_size = swiglu_state_size,
    .init = swiglu_init,
    .forward = swiglu_forward,
    .backward = swiglu_backward,
};

SM_DEFINE_CPU_KERNELS(swiglu_cpu_kernels)
