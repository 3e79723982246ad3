/*
 * CPU kernels of rmsnorm (kernels.h, struct sm_cpu_kernels). Each row of E values is
 * normalised on its own:
 *   forward   r = 1 / sqrt(mean(x^2) + eps),  y = x r w
 *   backward  g = dy w,  dx += r (g - xhat mean(g xhat)) with xhat = x r;  dw = sum dy xhat
 * State: each row's r, written by a training forward. The rows are rmsnorm.h's, common/
 * norm_rows.h's geometry, which the GPU kernels share.
 */
#include <math.h>

#include "cpu_util.h"
#include "rmsnorm.h"

static int rms_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const rmsnorm_params *p = l->params;
    norm_rows g = rmsnorm_rows(l);
    int64_t e = g.len, rows = g.rows;
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
    norm_rows g = rmsnorm_rows(l);
    int64_t e = g.len, rows = g.rows;
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
    .state_size = rmsnorm_state_size,
    .init = rmsnorm_init,
    .forward = rms_forward,
    .backward = rms_backward,
};

SM_DEFINE_CPU_KERNELS(rmsnorm_cpu_kernels)
