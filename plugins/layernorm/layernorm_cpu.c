/*
 * CPU kernels of layernorm (kernels.h, struct sm_cpu_kernels). Each "row" of N values is
 * normalised on its own: the last `dims` dimensions of a sample (contiguous), or with
 * channels=true the C values of one pixel of a C x H x W sample (a stride of H W apart).
 *   forward   y = (x - mean) / sqrt(var + eps) * gamma + beta       (biased variance, eps 1e-5)
 *   backward  dx += rstd (g - mean(g) - xhat mean(g xhat)) with g = dy gamma;
 *             dgamma = sum over rows of dy xhat, dbeta = sum of dy
 * State: each row's mean and 1/sqrt(var + eps), written by a training forward. The rows are
 * layernorm.h's, common/norm_rows.h's geometry, which the GPU kernels share.
 */
#include <math.h>

#include "cpu_util.h"
#include "layernorm.h"

static int ln_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    norm_rows g = layernorm_rows(l);
    const layernorm_params *p = l->params;
    const float *x = l->in[0].data;
    float *y = l->out->data, *state = l->training ? l->state : NULL;
    for (int64_t r = 0; r < g.rows; r++) {
        const float *v = x + norm_rows_base(&g, r);
        float *o = y + norm_rows_base(&g, r);
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < g.len; i++)
            sum += v[i * g.stride];
        float mu = (float)(sum / (double)g.len);
        for (int64_t i = 0; i < g.len; i++) {
            float d = v[i * g.stride] - mu;
            sq += d * d;
        }
        float rstd = (float)(1.0 / sqrt(sq / (double)g.len + LN_EPS));
        for (int64_t i = 0; i < g.len; i++) {
            float xh = (v[i * g.stride] - mu) * rstd;
            o[i * g.stride] = p->affine ? xh * l->w[i] + l->w[g.len + i] : xh;
        }
        if (state) {
            state[2 * r] = mu;
            state[2 * r + 1] = rstd;
        }
    }
    return 0;
}

static int ln_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    norm_rows g = layernorm_rows(l);
    const layernorm_params *p = l->params;
    const float *x = l->in[0].data, *dy = l->dout->data, *state = l->state;
    float *dx = l->din[0].data, *dw = p->affine ? l->dw : NULL;
    if (dw)
        memset(dw, 0, (size_t)(2 * g.len) * sizeof *dw);
    for (int64_t r = 0; r < g.rows; r++) {
        int64_t base = norm_rows_base(&g, r);
        const float *v = x + base, *d = dy + base;
        float mu = state[2 * r], rstd = state[2 * r + 1];
        double sg = 0, sgx = 0;
        for (int64_t i = 0; i < g.len; i++) {
            float xh = (v[i * g.stride] - mu) * rstd, gi = d[i * g.stride];
            if (dw) {
                dw[i] += gi * xh;
                dw[g.len + i] += gi;
            }
            if (p->affine)
                gi *= l->w[i];
            sg += gi;
            sgx += gi * xh;
        }
        if (!dx)
            continue;
        float mg = (float)(sg / (double)g.len), mgx = (float)(sgx / (double)g.len);
        float *o = dx + base;
        for (int64_t i = 0; i < g.len; i++) {
            float xh = (v[i * g.stride] - mu) * rstd;
            float gi = d[i * g.stride] * (p->affine ? l->w[i] : 1.0f);
            o[i * g.stride] += rstd * (gi - mg - xh * mgx);
        }
    }
    return 0;
}

const struct sm_cpu_kernels layernorm_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .state_size = layernorm_state_size,
    .init = layernorm_init,
    .forward = ln_forward,
    .backward = ln_backward,
};

SM_DEFINE_CPU_KERNELS(layernorm_cpu_kernels)
