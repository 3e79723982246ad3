/*
 * CPU kernels of maxpool2d and avgpool2d (kernels.h, struct sm_cpu_kernels), built with the same
 * SM_POOL_MAX or SM_POOL_AVG definition as pool2d.c. Windows as PyTorch places them
 * (aten/src/ATen/native/cpu/{Max,Avg}PoolKernel.cpp):
 *   max: padding counts as -infinity; a training forward keeps each output's argmax (the index
 *        in its input plane) as state, and backward adds the output gradient there.
 *   avg: count_include_pad (PyTorch's default): the divisor is the window clipped to the padded
 *        input, (min(h0 + kh, H + ph) - h0) x (the same for w), padding included.
 */
#include <float.h>

#include "cpu_util.h"
#include "pool2d.h"

typedef struct pool_geom {
    int64_t planes, h, w, ho, wo;
    const pool2d_params *p;
} pool_geom;

static pool_geom geom_of(const sm_layer_io *l)
{
    const sm_shape *in = &l->in[0].shape, *out = &l->out->shape;
    pool_geom g = {
        l->in[0].n * in->dim[0], in->dim[1], in->dim[2], out->dim[1], out->dim[2], l->params};
    return g;
}

#ifdef SM_POOL_MAX

static size_t pool_state_size(const sm_layer_io *l)
{
    return (size_t)sm_tensor_elems(l->out) * sizeof(int32_t);
}

static int pool_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    pool_geom g = geom_of(l);
    const pool2d_params *p = g.p;
    int32_t *arg = l->training ? l->state : NULL;
    for (int64_t c = 0; c < g.planes; c++) {
        const float *x = l->in[0].data + c * g.h * g.w;
        float *y = l->out->data + c * g.ho * g.wo;
        for (int64_t oh = 0; oh < g.ho; oh++)
            for (int64_t ow = 0; ow < g.wo; ow++) {
                int64_t h0 = oh * p->stride[0] - p->padding[0];
                int64_t w0 = ow * p->stride[1] - p->padding[1];
                float best = -FLT_MAX;
                int64_t at = -1;
                for (int64_t ki = 0; ki < p->kernel[0]; ki++) {
                    int64_t ih = h0 + ki * p->dilation[0];
                    if (ih < 0 || ih >= g.h)
                        continue;
                    for (int64_t kj = 0; kj < p->kernel[1]; kj++) {
                        int64_t iw = w0 + kj * p->dilation[1];
                        if (iw < 0 || iw >= g.w)
                            continue;
                        float v = x[ih * g.w + iw];
                        if (at < 0 || v > best || v != v) { /* NaN propagates, as in PyTorch */
                            best = v;
                            at = ih * g.w + iw;
                        }
                    }
                }
                y[oh * g.wo + ow] = best;
                if (arg)
                    arg[(c * g.ho + oh) * g.wo + ow] = (int32_t)at;
            }
    }
    return 0;
}

static int pool_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    pool_geom g = geom_of(l);
    const int32_t *arg = l->state;
    float *dx = l->din[0].data;
    if (!dx)
        return 0;
    for (int64_t c = 0; c < g.planes; c++) {
        const float *dy = l->dout->data + c * g.ho * g.wo;
        const int32_t *a = arg + c * g.ho * g.wo;
        float *d = dx + c * g.h * g.w;
        for (int64_t i = 0; i < g.ho * g.wo; i++)
            if (a[i] >= 0)
                d[a[i]] += dy[i];
    }
    return 0;
}

#else /* SM_POOL_AVG */

/* The window of output (oh, ow): rows [*h0, *h1), columns [*w0, *w1) and its divisor. */
static float window(const pool_geom *g, int64_t oh, int64_t ow, int64_t *h0, int64_t *h1,
                    int64_t *w0, int64_t *w1)
{
    const pool2d_params *p = g->p;
    int64_t hs = oh * p->stride[0] - p->padding[0], ws = ow * p->stride[1] - p->padding[1];
    int64_t he = hs + p->kernel[0], we = ws + p->kernel[1];
    if (he > g->h + p->padding[0])
        he = g->h + p->padding[0];
    if (we > g->w + p->padding[1])
        we = g->w + p->padding[1];
    float div = (float)((he - hs) * (we - ws));
    *h0 = hs < 0 ? 0 : hs;
    *w0 = ws < 0 ? 0 : ws;
    *h1 = he > g->h ? g->h : he;
    *w1 = we > g->w ? g->w : we;
    return div;
}

static int pool_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    pool_geom g = geom_of(l);
    for (int64_t c = 0; c < g.planes; c++) {
        const float *x = l->in[0].data + c * g.h * g.w;
        float *y = l->out->data + c * g.ho * g.wo;
        for (int64_t oh = 0; oh < g.ho; oh++)
            for (int64_t ow = 0; ow < g.wo; ow++) {
                int64_t h0, h1, w0, w1;
                float div = window(&g, oh, ow, &h0, &h1, &w0, &w1), s = 0;
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++)
                        s += x[ih * g.w + iw];
                y[oh * g.wo + ow] = s / div;
            }
    }
    return 0;
}

static int pool_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    pool_geom g = geom_of(l);
    float *dx = l->din[0].data;
    if (!dx)
        return 0;
    for (int64_t c = 0; c < g.planes; c++) {
        const float *dy = l->dout->data + c * g.ho * g.wo;
        float *d = dx + c * g.h * g.w;
        for (int64_t oh = 0; oh < g.ho; oh++)
            for (int64_t ow = 0; ow < g.wo; ow++) {
                int64_t h0, h1, w0, w1;
                float v = dy[oh * g.wo + ow] / window(&g, oh, ow, &h0, &h1, &w0, &w1);
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++)
                        d[ih * g.w + iw] += v;
            }
    }
    return 0;
}

#endif

const struct sm_cpu_kernels pool2d_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
#ifdef SM_POOL_MAX
    .state_size = pool_state_size,
#endif
    .forward = pool_forward,
    .backward = pool_backward,
};

SM_DEFINE_CPU_KERNELS(pool2d_cpu_kernels)
