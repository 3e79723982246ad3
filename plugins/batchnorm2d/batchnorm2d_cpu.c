/*
 * CPU kernels of batchnorm2d (kernels.h, struct sm_cpu_kernels), on channels at dim 0 of each
 * sample (C x H x W, or C), over M = batch x the other dimensions values per channel:
 *   training   y = (x - mean) / sqrt(var + eps) * gamma + beta with the batch's mean and biased
 *              variance, kept as state for backward; the running statistics move towards them
 *              with momentum 0.1 (the unbiased variance, as PyTorch does)
 *   inference  the same with the running statistics
 *   backward   dx += gamma / sqrt(var + eps) * (dy - mean(dy) - xhat mean(dy xhat))
 *              dgamma = sum(dy xhat), dbeta = sum(dy)
 * State: mean, 1/sqrt(var + eps), running mean, running variance; C floats each.
 */
#include <math.h>

#include "batchnorm2d.h"
#include "cpu_util.h"

typedef struct bn_geom {
    int64_t n, c, s; /* batch, channels, values per channel of one sample */
    int affine;
} bn_geom;

static bn_geom geom_of(const sm_layer_io *l)
{
    const batchnorm_params *p = l->params;
    const sm_shape *in = &l->in[0].shape;
    bn_geom g = {l->in[0].n, in->dim[0], sm_shape_dims(in, 1, in->ndim), p->affine};
    return g;
}

static size_t bn_state_size(const sm_layer_io *l)
{
    return (size_t)(4 * l->in[0].shape.dim[0]) * sizeof(float);
}

static void bn_init(const sm_layer_io *l, float *w, void *state)
{
    bn_geom g = geom_of(l);
    float *running_var = (float *)state + 3 * g.c;
    for (int64_t c = 0; c < g.c; c++)
        running_var[c] = 1.0f;
    if (g.affine)
        for (int64_t c = 0; c < g.c; c++) {
            w[c] = 1.0f;       /* gamma */
            w[g.c + c] = 0.0f; /* beta */
        }
}

/* Mean and variance in two passes: E[x^2] - E[x]^2 would cancel away when |mean| >> std. */
static void batch_statistics(const bn_geom *g, const float *x, float *state)
{
    float *mean = state, *invstd = state + g->c, *rmean = state + 2 * g->c,
          *rvar = state + 3 * g->c;
    double m = (double)(g->n * g->s);
    for (int64_t c = 0; c < g->c; c++) {
        double sum = 0, sq = 0;
        for (int64_t n = 0; n < g->n; n++) {
            sum += cpu_sum(x + (n * g->c + c) * g->s, g->s);
        }
        float mu = (float)(sum / m);
        for (int64_t n = 0; n < g->n; n++) {
            sq += cpu_sq_dev(x + (n * g->c + c) * g->s, mu, g->s);
        }
        double var = sq / m;
        mean[c] = mu;
        invstd[c] = (float)(1.0 / sqrt(var + BN_EPS));
        double unbiased = m > 1 ? var * m / (m - 1) : var;
        rmean[c] = (float)((1 - BN_MOMENTUM) * rmean[c] + BN_MOMENTUM * mu);
        rvar[c] = (float)((1 - BN_MOMENTUM) * rvar[c] + BN_MOMENTUM * unbiased);
    }
}

static int bn_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    bn_geom g = geom_of(l);
    float *state = l->state;
    const float *x = l->in[0].data;
    float *y = l->out->data;
    if (l->training)
        batch_statistics(&g, x, state);
    for (int64_t c = 0; c < g.c; c++) {
        float mu, is;
        if (l->training) {
            mu = state[c];
            is = state[g.c + c];
        } else {
            mu = state[2 * g.c + c];
            is = (float)(1.0 / sqrt((double)state[3 * g.c + c] + BN_EPS));
        }
        float scale = is * (g.affine ? l->w[c] : 1.0f);
        float shift = (g.affine ? l->w[g.c + c] : 0.0f) - mu * scale;
        for (int64_t n = 0; n < g.n; n++) {
            const float *v = x + (n * g.c + c) * g.s;
            float *o = y + (n * g.c + c) * g.s;
            for (int64_t i = 0; i < g.s; i++)
                o[i] = v[i] * scale + shift;
        }
    }
    return 0;
}

static int bn_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    bn_geom g = geom_of(l);
    const float *state = l->state, *x = l->in[0].data, *dy = l->dout->data;
    float *dx = l->din[0].data;
    double m = (double)(g.n * g.s);
    for (int64_t c = 0; c < g.c; c++) {
        float mu = state[c], is = state[g.c + c];
        double sdy = 0, sdyx = 0; /* sum(dy), sum(dy xhat) */
        for (int64_t n = 0; n < g.n; n++) {
            const float *v = x + (n * g.c + c) * g.s, *d = dy + (n * g.c + c) * g.s;
            sdy += cpu_sum(d, g.s);
            sdyx += cpu_dot_dev(d, v, mu, g.s);
        }
        sdyx *= is;
        if (l->dw && g.affine) {
            l->dw[c] = (float)sdyx;
            l->dw[g.c + c] = (float)sdy;
        }
        if (!dx)
            continue;
        float gamma = g.affine ? l->w[c] : 1.0f;
        float k = gamma * is, mdy = (float)(sdy / m), mdyx = (float)(sdyx / m);
        for (int64_t n = 0; n < g.n; n++) {
            const float *v = x + (n * g.c + c) * g.s, *d = dy + (n * g.c + c) * g.s;
            float *o = dx + (n * g.c + c) * g.s;
            for (int64_t i = 0; i < g.s; i++)
                o[i] += k * (d[i] - mdy - (v[i] - mu) * is * mdyx);
        }
    }
    return 0;
}

const struct sm_cpu_kernels batchnorm2d_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .state_size = bn_state_size,
    .init = bn_init,
    .forward = bn_forward,
    .backward = bn_backward,
};

SM_DEFINE_CPU_KERNELS(batchnorm2d_cpu_kernels)
