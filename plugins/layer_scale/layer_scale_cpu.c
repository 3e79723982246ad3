/*
 * CPU kernels of layer_scale (kernels.h, struct sm_cpu_kernels): y = w[c] x along one axis, the
 * sample seen as `outer` x (axis size) x `inner` values.
 *   backward  dx += w[c] dy,  dw[c] = sum of dy x over everything but the axis
 * Initial scales 1e-6, torchvision's ConvNeXt default (layer_scale = 1e-6).
 */
#include "cpu_util.h"
#include "layer_scale.h"

typedef struct scale_geom {
    int64_t outer, len, inner;
} scale_geom;

static scale_geom geom_of(const sm_layer_io *l)
{
    const layer_scale_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int axis = (int)(p->axis < 0 ? p->axis + s->ndim : p->axis);
    scale_geom g = {l->in[0].n * sm_shape_dims(s, 0, axis), s->dim[axis],
                    sm_shape_dims(s, axis + 1, s->ndim)};
    return g;
}

static void scale_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    for (int64_t i = 0; i < l->n_w; i++)
        w[i] = 1e-6f;
}

static int scale_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    scale_geom g = geom_of(l);
    const float *x = l->in[0].data;
    float *y = l->out->data;
    for (int64_t o = 0; o < g.outer; o++)
        for (int64_t c = 0; c < g.len; c++) {
            int64_t base = (o * g.len + c) * g.inner;
            for (int64_t i = 0; i < g.inner; i++)
                y[base + i] = l->w[c] * x[base + i];
        }
    return 0;
}

static int scale_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    scale_geom g = geom_of(l);
    const float *x = l->in[0].data, *dy = l->dout->data;
    float *dx = l->din[0].data;
    if (l->dw)
        memset(l->dw, 0, (size_t)g.len * sizeof *l->dw);
    for (int64_t o = 0; o < g.outer; o++)
        for (int64_t c = 0; c < g.len; c++) {
            int64_t base = (o * g.len + c) * g.inner;
            float s = 0;
            for (int64_t i = 0; i < g.inner; i++)
                s += dy[base + i] * x[base + i];
            if (l->dw)
                l->dw[c] += s;
            if (dx)
                for (int64_t i = 0; i < g.inner; i++)
                    dx[base + i] += l->w[c] * dy[base + i];
        }
    return 0;
}

const struct sm_cpu_kernels layer_scale_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .init = scale_init,
    .forward = scale_forward,
    .backward = scale_backward,
};

SM_DEFINE_CPU_KERNELS(layer_scale_cpu_kernels)
