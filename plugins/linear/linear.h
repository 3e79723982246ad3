/* The parameters of linear: parsed by linear.c, read by its CPU and GPU kernels, with the
 * geometry both kernels share. */
#ifndef SCALEMETER_PLUGINS_LINEAR_H
#define SCALEMETER_PLUGINS_LINEAR_H

#include <stdint.h>

#include <scalemeter/kernels.h>

typedef struct linear_params {
    int64_t out;
    int bias;
} linear_params;

/* What both its CPU and GPU kernels see of a layer at one batch size. */
typedef struct linear_geom {
    int64_t rows, in, out;
    int bias;
} linear_geom;

static inline linear_geom linear_geom_of(const sm_layer_io *l)
{
    const linear_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    linear_geom g = {l->in[0].n * sm_shape_dims(s, 0, s->ndim - 1), s->dim[s->ndim - 1], p->out,
                     p->bias};
    return g;
}

#endif /* SCALEMETER_PLUGINS_LINEAR_H */
