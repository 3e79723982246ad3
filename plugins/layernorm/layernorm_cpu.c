/*
 * CPU kernels of layernorm (kernels.h, struct sm_cpu_kernels). Each "row" of N values is
 * normalised on its own: the last `dims` dimensions of a sample (contiguous), or with
 * channels=true the C values of one pixel of a C x H x W sample (a stride of H W apart).
 *   forward   y = (x - mean) / sqrt(var + eps) * gamma + beta       (biased variance, eps 1e-5)
 *   backward  dx += rstd (g - mean(g) - xhat mean(g xhat)) with g = dy gamma;
 *             dgamma = sum over rows of dy xhat, dbeta = sum of dy
 * State: each row's mean and 1/sqrt(var + eps), written by a training forward.
 */
#include <math.h>

#include "cpu_util.h"
#include "layernorm.h"

typedef struct ln_geom {
    int64_t rows, len, stride;       /* rows of len values, stride apart */
    int64_t per_sample_rows, sample; /* rows per sample, elements per sample */
    int affine;
} ln_geom;

static ln_geom geom_of(const sm_layer_io *l)
{
    const layernorm_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    ln_geom g = {0};
    g.sample = sm_shape_elems(s);
    g.affine = p->affine;
    if (p->channels) {
        g.len = s->dim[0];
        g.stride = s->dim[1] * s->dim[2];
    } else {
        g.len = sm_shape_dims(s, s->ndim - (int)p->dims, s->ndim);
        g.stride = 1;
    }
    g.per_sample_rows = g.sample / g.len;
    g.rows = l->in[0].n * g.per_sample_rows;
    return g;
}

/* Offset of the first value of row r. */
static int64_t row_base(const ln_geom *g, int64_t r)
{
    int64_t n = r / g->per_sample_rows, i = r % g->per_sample_rows;
    return g->stride == 1 ? r * g->len : n * g->sample + i;
}

static size_t ln_state_size(const sm_layer_io *l)
{
    ln_geom g = geom_of(l);
    return (size_t)(2 * g.rows) * sizeof(float);
}

static void ln_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    ln_geom g = geom_of(l);
    if (g.affine)
        for (int64_t i = 0; i < g.len; i++) {
            w[i] = 1.0f;
            w[g.len + i] = 0.0f;
        }
}

static int ln_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    ln_geom g = geom_of(l);
    const float *x = l->in[0].data;
    float *y = l->out->data, *state = l->training ? l->state : NULL;
    for (int64_t r = 0; r < g.rows; r++) {
        const float *v = x + row_base(&g, r);
        float *o = y + row_base(&g, r);
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
            o[i * g.stride] = g.affine ? xh * l->w[i] + l->w[g.len + i] : xh;
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
    ln_geom g = geom_of(l);
    const float *x = l->in[0].data, *dy = l->dout->data, *state = l->state;
    float *dx = l->din[0].data, *dw = g.affine ? l->dw : NULL;
    if (dw)
        memset(dw, 0, (size_t)(2 * g.len) * sizeof *dw);
    for (int64_t r = 0; r < g.rows; r++) {
        int64_t base = row_base(&g, r);
        const float *v = x + base, *d = dy + base;
        float mu = state[2 * r], rstd = state[2 * r + 1];
        double sg = 0, sgx = 0;
        for (int64_t i = 0; i < g.len; i++) {
            float xh = (v[i * g.stride] - mu) * rstd, gi = d[i * g.stride];
            if (dw) {
                dw[i] += gi * xh;
                dw[g.len + i] += gi;
            }
            if (g.affine)
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
            float gi = d[i * g.stride] * (g.affine ? l->w[i] : 1.0f);
            o[i * g.stride] += rstd * (gi - mg - xh * mgx);
        }
    }
    return 0;
}

const struct sm_cpu_kernels layernorm_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .state_size = ln_state_size,
    .init = ln_init,
    .forward = ln_forward,
    .backward = ln_backward,
};

SM_DEFINE_CPU_KERNELS(layernorm_cpu_kernels)
