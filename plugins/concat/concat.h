/* The parameters of concat: parsed by concat.c, read by its CPU and GPU kernels, with the
 * geometry both kernels share. */
#ifndef SCALEMETER_PLUGINS_CONCAT_H
#define SCALEMETER_PLUGINS_CONCAT_H

#include <stdint.h>

#include <scalemeter/kernels.h>

typedef struct concat_params {
    int64_t axis;
} concat_params;

/* What both its CPU and GPU kernels see of a layer at one batch size. */
typedef struct concat_geom {
    int64_t outer, inner, out_axis;
    int axis;
} concat_geom;

static inline concat_geom concat_geom_of(const sm_layer_io *l)
{
    const concat_params *p = l->params;
    const sm_shape *o = &l->out->shape;
    concat_geom g;
    g.axis = sm_axis(p->axis, o);
    g.outer = l->out->n * sm_shape_dims(o, 0, g.axis);
    g.inner = sm_shape_dims(o, g.axis + 1, o->ndim);
    g.out_axis = o->dim[g.axis];
    return g;
}

#endif /* SCALEMETER_PLUGINS_CONCAT_H */
