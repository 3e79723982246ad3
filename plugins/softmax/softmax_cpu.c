/*
 * CPU kernels of softmax (kernels.h, struct sm_cpu_kernels) along one axis: the sample is
 * `outer` x (axis size) x `inner` values, each line along the axis normalised on its own.
 *   forward   y = exp(x - max) / sum(exp(x - max))
 *   backward  dx += y (dy - sum(dy y))
 */
#include <math.h>

#include "cpu_util.h"
#include "softmax.h"

typedef struct softmax_geom {
    int64_t outer, len, inner;
} softmax_geom;

static softmax_geom geom_of(const sm_layer_io *l)
{
    const softmax_params *p = l->params;
    const sm_shape *s = &l->out->shape;
    int axis = (int)(p->axis < 0 ? p->axis + s->ndim : p->axis);
    softmax_geom g = {l->out->n * sm_shape_dims(s, 0, axis), s->dim[axis],
                      sm_shape_dims(s, axis + 1, s->ndim)};
    return g;
}

static int softmax_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    softmax_geom g = geom_of(l);
    for (int64_t o = 0; o < g.outer; o++)
        for (int64_t i = 0; i < g.inner; i++) {
            const float *x = l->in[0].data + o * g.len * g.inner + i;
            float *y = l->out->data + o * g.len * g.inner + i;
            float mx = x[0];
            for (int64_t k = 1; k < g.len; k++)
                mx = x[k * g.inner] > mx ? x[k * g.inner] : mx;
            double sum = 0;
            for (int64_t k = 0; k < g.len; k++) {
                y[k * g.inner] = expf(x[k * g.inner] - mx);
                sum += y[k * g.inner];
            }
            float inv = (float)(1.0 / sum);
            for (int64_t k = 0; k < g.len; k++)
                y[k * g.inner] *= inv;
        }
    return 0;
}

static int softmax_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    softmax_geom g = geom_of(l);
    if (!l->din[0].data)
        return 0;
    for (int64_t o = 0; o < g.outer; o++)
        for (int64_t i = 0; i < g.inner; i++) {
            int64_t base = o * g.len * g.inner + i;
            const float *y = l->out->data + base, *dy = l->dout->data + base;
            float *dx = l->din[0].data + base;
            double dot = 0;
            for (int64_t k = 0; k < g.len; k++)
                dot += dy[k * g.inner] * y[k * g.inner];
            for (int64_t k = 0; k < g.len; k++)
                dx[k * g.inner] += y[k * g.inner] * (dy[k * g.inner] - (float)dot);
        }
    return 0;
}

const struct sm_cpu_kernels softmax_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = softmax_forward,
    .backward = softmax_backward,
};

SM_DEFINE_CPU_KERNELS(softmax_cpu_kernels)
