/*
 * CPU kernels of groupnorm (kernels.h, struct sm_cpu_kernels). Channels first and batch first,
 * so each sample's group of C / groups channels is one contiguous row of len = (C / groups) x
 * spatial values; rows = batch x groups rows are normalised on their own, and gamma and beta
 * apply per channel (spatial values at a time) within the row:
 *   forward   y = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c]   (biased variance, eps 1e-5)
 *             computed as x * scale + shift, scale = rstd gamma[c], shift = beta[c] - mean scale
 *   backward  dx += rstd (g - mean(g) - xhat mean(g xhat)) over the row, with g = dy gamma[c];
 *             dgamma[c] = sum over samples and spatial of dy xhat, dbeta[c] = sum of dy
 * State: each row's mean and 1/sqrt(var + eps), written by a training forward.
 */
#include <math.h>

#include "cpu_util.h"
#include "groupnorm.h"

static size_t gn_state_size(const sm_layer_io *l)
{
    return cpu_float_bytes(sm_mul(gn_geom_of(l).rows, 2));
}

static int gn_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    gn_geom g = gn_geom_of(l);
    const float *x = l->in[0].data;
    float *y = l->out->data, *state = l->training ? l->state : NULL;
    int64_t channels = g.groups * g.cpg;
    for (int64_t r = 0; r < g.rows; r++) {
        const float *v = x + r * g.len;
        float *o = y + r * g.len;
        /* two passes, as layernorm: E[x^2] - E[x]^2 would cancel away when |mean| >> std;
         * vectorised sums per channel, added up in double */
        double sum = 0, sq = 0;
        for (int64_t j = 0; j < g.cpg; j++)
            sum += cpu_sum(v + j * g.spatial, g.spatial);
        float mu = (float)(sum / (double)g.len);
        for (int64_t j = 0; j < g.cpg; j++)
            sq += cpu_sq_dev(v + j * g.spatial, mu, g.spatial);
        float rstd = (float)(1.0 / sqrt(sq / (double)g.len + GN_EPS));
        int64_t c0 = (r % g.groups) * g.cpg; /* first channel of the row */
        for (int64_t j = 0; j < g.cpg; j++) {
            float scale = rstd * (g.affine ? l->w[c0 + j] : 1.0f);
            float shift = (g.affine ? l->w[channels + c0 + j] : 0.0f) - mu * scale;
            const float *vc = v + j * g.spatial;
            float *oc = o + j * g.spatial;
            for (int64_t i = 0; i < g.spatial; i++)
                oc[i] = vc[i] * scale + shift;
        }
        if (state) {
            state[2 * r] = mu;
            state[2 * r + 1] = rstd;
        }
    }
    return 0;
}

static int gn_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    gn_geom g = gn_geom_of(l);
    const float *x = l->in[0].data, *dy = l->dout->data, *state = l->state;
    float *dx = l->din[0].data, *dw = g.affine ? l->dw : NULL;
    int64_t channels = g.groups * g.cpg;
    if (dw)
        memset(dw, 0, (size_t)(2 * channels) * sizeof *dw);
    for (int64_t r = 0; r < g.rows; r++) {
        const float *v = x + r * g.len, *d = dy + r * g.len;
        float mu = state[2 * r], rstd = state[2 * r + 1];
        int64_t c0 = (r % g.groups) * g.cpg;
        double sg = 0, sgx = 0; /* sums over the row of g and g xhat */
        for (int64_t j = 0; j < g.cpg; j++) {
            const float *vc = v + j * g.spatial, *dc = d + j * g.spatial;
            float sdy = cpu_sum(dc, g.spatial);
            float sdyx = cpu_dot_dev(dc, vc, mu, g.spatial) * rstd; /* sum of dy xhat */
            if (dw) {
                dw[c0 + j] += sdyx;
                dw[channels + c0 + j] += sdy;
            }
            double gamma = g.affine ? l->w[c0 + j] : 1.0;
            sg += gamma * sdy;
            sgx += gamma * sdyx;
        }
        if (!dx)
            continue;
        /* dx = rstd gamma dy - rstd mean(g) - rstd^2 mean(g xhat) (x - mu) */
        float shift = (float)(-rstd * sg / (double)g.len);
        float slope = (float)(-(double)rstd * rstd * sgx / (double)g.len);
        for (int64_t j = 0; j < g.cpg; j++) {
            const float *vc = v + j * g.spatial, *dc = d + j * g.spatial;
            float *oc = dx + r * g.len + j * g.spatial;
            float k = rstd * (g.affine ? l->w[c0 + j] : 1.0f);
            for (int64_t i = 0; i < g.spatial; i++)
                oc[i] += k * dc[i] + slope * (vc[i] - mu) + shift;
        }
    }
    return 0;
}

const struct sm_cpu_kernels groupnorm_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .state_size = gn_state_size,
    .init = gn_init,
    .forward = gn_forward,
    .backward = gn_backward,
};

SM_DEFINE_CPU_KERNELS(groupnorm_cpu_kernels)
