/* The parameters of chunk: parsed by chunk.c, read by its CPU and GPU kernels, with the
 * geometry both kernels share. */
#ifndef SCALEMETER_PLUGINS_CHUNK_H
#define SCALEMETER_PLUGINS_CHUNK_H

#include <stdint.h>

#include <scalemeter/kernels.h>

typedef struct chunk_params {
    int64_t chunks;
    int64_t index;
    int64_t axis;
} chunk_params;

/* What both its CPU and GPU kernels see of a layer at one batch size. */
typedef struct chunk_geom {
    int64_t outer, inner, in_axis, start, size;
} chunk_geom;

static inline chunk_geom chunk_geom_of(const sm_layer_io *l)
{
    const chunk_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int axis = sm_axis(p->axis, s);
    int64_t n = s->dim[axis], piece = n / p->chunks + (n % p->chunks != 0);
    chunk_geom g = {l->in[0].n * sm_shape_dims(s, 0, axis), sm_shape_dims(s, axis + 1, s->ndim), n,
                    p->index * piece, l->out->shape.dim[axis]};
    return g;
}

#endif /* SCALEMETER_PLUGINS_CHUNK_H */
