/* The parameters of groupnorm: parsed by groupnorm.c, read by its CPU and GPU kernels, with the
 * geometry and initial weights both kernels share. */
#ifndef SCALEMETER_PLUGINS_GROUPNORM_H
#define SCALEMETER_PLUGINS_GROUPNORM_H

#include <stdint.h>

#include <scalemeter/kernels.h>

#include "norm_rows.h"

typedef struct groupnorm_params {
    int64_t groups; /* C / groups channels share one mean and variance */
    int affine;     /* a gamma and a beta per channel */
} groupnorm_params;

/* nn.GroupNorm's (and nn.InstanceNorm's) default, which the kernels use. */
#define GN_EPS 1e-5

/* Channels first and batch first: each sample's group is one contiguous row of len values. */
typedef struct gn_geom {
    int64_t rows;    /* batch x groups */
    int64_t groups;  /* per sample */
    int64_t cpg;     /* channels per group */
    int64_t spatial; /* values per channel of one sample */
    int64_t len;     /* values per row: cpg x spatial */
    int affine;
} gn_geom;

static inline gn_geom gn_geom_of(const sm_layer_io *l)
{
    const groupnorm_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    gn_geom g = {0};
    g.groups = p->groups;
    g.cpg = s->dim[0] / p->groups;
    g.spatial = sm_shape_dims(s, 1, s->ndim);
    g.len = g.cpg * g.spatial;
    g.rows = sm_mul(l->in[0].n, p->groups);
    g.affine = p->affine;
    return g;
}

/* The same rows as common/norm_rows.h sees them (the GPU kernels'): a gamma per channel, so per
 * spatial values of a row. */
static inline norm_rows gn_rows(const sm_layer_io *l)
{
    gn_geom g = gn_geom_of(l);
    norm_rows r = {.rows = g.rows,
                   .len = g.len,
                   .stride = 1,
                   .per_sample = g.groups,
                   .sample = g.groups * g.len,
                   .seg = g.spatial,
                   .groups = g.groups,
                   .centred = 1};
    return r;
}

/* PyTorch's initialisation: gamma 1, beta 0. */
static inline void gn_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    const sm_shape *s = &l->in[0].shape;
    const groupnorm_params *p = l->params;
    if (p->affine)
        for (int64_t c = 0; c < s->dim[0]; c++) {
            w[c] = 1.0f;
            w[s->dim[0] + c] = 0.0f;
        }
}

#endif /* SCALEMETER_PLUGINS_GROUPNORM_H */
