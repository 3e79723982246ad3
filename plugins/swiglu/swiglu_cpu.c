/*
 * CPU kernels of swiglu (kernels.h, struct sm_cpu_kernels), OpenBLAS sgemm for the products:
 *   forward   G = X W_g^T,  U = X W_u^T,  H = silu(G) U,  Y = H W_d^T
 *   backward  dH = dY W_d,  dW_d = dY^T H,
 *             dG = dH U silu'(G),  dU = dH silu(G)   (silu'(g) = s (1 + g (1 - s)), s = sigmoid)
 *             dX += dG W_g + dU W_u,  dW_g = dG^T X,  dW_u = dU^T X
 * State: G, U, H (swiglu.h); work: dH, dG, dU.
 */
#include <cblas.h>
#include <math.h>

#include "cpu_util.h"
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
    int e = (int)g.e, f = (int)g.f, rows = (int)g.rows;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, f, e, 1.0f, x, e, g.wg, e, 0.0f, g.g,
                f);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, f, e, 1.0f, x, e, g.wu, e, 0.0f, g.u,
                f);
    for (int64_t i = 0; i < g.rows * g.f; i++)
        g.h[i] = g.g[i] * sigmoid(g.g[i]) * g.u[i];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, e, f, 1.0f, g.h, f, g.wd, f, 0.0f,
                l->out->data, e);
    return 0;
}

static int swiglu_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    swiglu_geom g = swiglu_geom_of(l);
    const float *x = l->in[0].data, *dy = l->dout->data;
    int e = (int)g.e, f = (int)g.f, rows = (int)g.rows;
    float *dh = l->work, *dg = dh + g.rows * g.f, *du = dg + g.rows * g.f;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, f, e, 1.0f, dy, e, g.wd, f, 0.0f,
                dh, f);
    for (int64_t i = 0; i < g.rows * g.f; i++) {
        float s = sigmoid(g.g[i]);
        dg[i] = dh[i] * g.u[i] * s * (1.0f + g.g[i] * (1.0f - s));
        du[i] = dh[i] * g.g[i] * s;
    }
    if (l->din[0].data) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, e, f, 1.0f, dg, f, g.wg, e,
                    1.0f, l->din[0].data, e);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, e, f, 1.0f, du, f, g.wu, e,
                    1.0f, l->din[0].data, e);
    }
    if (l->dw) {
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, e, f, rows, 1.0f, dy, e, g.h, f, 0.0f,
                    g.dwd, f);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, f, e, rows, 1.0f, dg, f, x, e, 0.0f,
                    g.dwg, e);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, f, e, rows, 1.0f, du, f, x, e, 0.0f,
                    g.dwu, e);
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
