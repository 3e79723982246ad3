/*
 * CPU kernels of rmsnorm (kernels.h, struct sm_cpu_kernels). Each row of E values is
 * normalised on its own:
 *   forward   r = 1 / sqrt(mean(x^2) + eps),  y = x r w
 *   backward  g = dy w,  dx += r (g - xhat mean(g xhat)) with xhat = x r;  dw = sum dy xhat
 * State: each row's r, written by a training forward.
 */
#include <math.h>

#include "cpu_util.h"
#include "rmsnorm.h"

static int64_t row_len(const sm_layer_io *l) { return l->in[0].shape.dim[l->in[0].shape.ndim - 1]; }

static int64_t rows_of(const sm_layer_io *l)
{
    return l->in[0].n * sm_shape_elems(&l->in[0].shape) / row_len(l);
}

static size_t rms_state_size(const sm_layer_io *l) { return cpu_float_bytes(rows_of(l)); }

static void rms_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    for (int64_t i = 0; i < row_len(l); i++)
        w[i] = 1.0f;
}

static int rms_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const rmsnorm_params *p = l->params;
    int64_t e = row_len(l), rows = rows_of(l);
    float *state = l->training ? l->state : NULL;
    for (int64_t r = 0; r < rows; r++) {
        const float *x = l->in[0].data + r * e;
        float *y = l->out->data + r * e;
        double sq = 0;
        for (int64_t i = 0; i < e; i++)
            sq += (double)x[i] * x[i];
        float rs = (float)(1.0 / sqrt(sq / (double)e + p->eps));
        for (int64_t i = 0; i < e; i++)
            y[i] = x[i] * rs * l->w[i];
        if (state)
            state[r] = rs;
    }
    return 0;
}

static int rms_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    int64_t e = row_len(l), rows = rows_of(l);
    const float *state = l->state;
    float *dw = l->dw, *dxall = l->din[0].data;
    if (dw)
        memset(dw, 0, (size_t)e * sizeof *dw);
    for (int64_t r = 0; r < rows; r++) {
        const float *x = l->in[0].data + r * e, *dy = l->dout->data + r * e;
        float rs = state[r];
        double sgx = 0;
        for (int64_t i = 0; i < e; i++) {
            float xh = x[i] * rs;
            if (dw)
                dw[i] += dy[i] * xh;
            sgx += (double)dy[i] * l->w[i] * xh;
        }
        if (!dxall)
            continue;
        float mgx = (float)(sgx / (double)e);
        float *dx = dxall + r * e;
        for (int64_t i = 0; i < e; i++)
            dx[i] += rs * (dy[i] * l->w[i] - x[i] * rs * mgx);
    }
    return 0;
}

const struct sm_cpu_kernels rmsnorm_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .state_size = rms_state_size,
    .init = rms_init,
    .forward = rms_forward,
    .backward = rms_backward,
};

SM_DEFINE_CPU_KERNELS(rmsnorm_cpu_kernels)
