/* The parameters of layernorm: parsed by layernorm.c, read by its CPU and GPU kernels, with the
 * rows both kernels normalise. */
#ifndef SCALEMETER_PLUGINS_LAYERNORM_H
#define SCALEMETER_PLUGINS_LAYERNORM_H

#include <stdint.h>

#include <scalemeter/kernels.h>

#include "norm_rows.h"

typedef struct layernorm_params {
    int64_t dims;
    int affine;
    int channels;
} layernorm_params;

/* nn.LayerNorm's default, which both kernels use. */
#define LN_EPS 1e-5

/* Each row is the last `dims` dimensions of a sample (contiguous), or with channels=true the C
 * values of one pixel of a C x H x W sample (H W apart); a gamma and a beta per value. */
static inline norm_rows layernorm_rows(const sm_layer_io *l)
{
    const layernorm_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    norm_rows g = {.seg = 1, .groups = 1, .centred = 1};
    g.sample = sm_shape_elems(s);
    if (p->channels) {
        g.len = s->dim[0];
        g.stride = s->dim[1] * s->dim[2];
    } else {
        g.len = sm_shape_dims(s, s->ndim - (int)p->dims, s->ndim);
        g.stride = 1;
    }
    g.per_sample = g.sample / g.len;
    g.rows = l->in[0].n * g.per_sample;
    return g;
}

/* Each row's mean and rstd, from a training forward. */
static inline size_t layernorm_state_size(const sm_layer_io *l)
{
    return (size_t)(2 * layernorm_rows(l).rows) * sizeof(float);
}

/* PyTorch's initialisation: gamma 1, beta 0. */
static inline void layernorm_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    const layernorm_params *p = l->params;
    int64_t len = layernorm_rows(l).len;
    if (p->affine)
        for (int64_t i = 0; i < len; i++) {
            w[i] = 1.0f;
            w[len + i] = 0.0f;
        }
}

#endif /* SCALEMETER_PLUGINS_LAYERNORM_H */
