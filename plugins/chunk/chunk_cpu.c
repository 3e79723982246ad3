/*
 * CPU kernels of chunk (plugin.h, struct sm_cpu_kernels). Seen along its axis the sample is
 * `outer` blocks of (axis size) x `inner` values; the piece is the rows [start, start + size)
 * of each block: forward copies them, backward adds their gradient back in place.
 */
#include "chunk.h"
#include "cpu_util.h"

typedef struct chunk_geom {
    int64_t outer, inner, in_axis, start, size;
} chunk_geom;

static chunk_geom geom_of(const sm_cpu_layer *l)
{
    const chunk_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int axis = (int)(p->axis < 0 ? p->axis + s->ndim : p->axis);
    int64_t n = s->dim[axis], piece = n / p->chunks + (n % p->chunks != 0);
    chunk_geom g = {l->in[0].n * cpu_dims(s, 0, axis), cpu_dims(s, axis + 1, s->ndim), n,
                    p->index * piece, l->out->shape.dim[axis]};
    return g;
}

static int chunk_forward(const sm_cpu_layer *l, sm_error *err)
{
    (void)err;
    chunk_geom g = geom_of(l);
    for (int64_t o = 0; o < g.outer; o++)
        memcpy(l->out->data + o * g.size * g.inner,
               l->in[0].data + (o * g.in_axis + g.start) * g.inner,
               (size_t)(g.size * g.inner) * sizeof(float));
    return 0;
}

static int chunk_backward(const sm_cpu_layer *l, sm_error *err)
{
    (void)err;
    chunk_geom g = geom_of(l);
    if (l->din[0].data)
        for (int64_t o = 0; o < g.outer; o++)
            cpu_accumulate(l->din[0].data + (o * g.in_axis + g.start) * g.inner,
                           l->dout->data + o * g.size * g.inner, g.size * g.inner);
    return 0;
}

const struct sm_cpu_kernels chunk_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = chunk_forward,
    .backward = chunk_backward,
};
