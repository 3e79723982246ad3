/*
 * Direct convolutions over 1 to 3 spatial dimensions, for the CPU kernels of conv1d, conv3d and
 * conv_transpose2d (conv2d keeps its faster im2col + sgemm path). Header-only and static, as
 * cpu_util.h, so every plugin stays one self-contained shared object.
 *
 * A convolution relates a "wide" side X (C_x channels) to a "narrow" side Y (C_y channels) by
 *   Y[cy, o] += W[cy, cx % (C_x/groups), k] * X[cx, o * stride - padding + k * dilation]
 * for cx in cy's group. nn.ConvNd's forward is the gather into Y (input X); nn.ConvTransposeNd's
 * is the scatter into X (input Y), its weight being laid out C_in x C_out/groups x k as
 * PyTorch's is, which is this W. Their backward passes swap the two; the weight gradient is the
 * same sum for both.
 */
#ifndef SCALEMETER_PLUGINS_CONV_DIRECT_H
#define SCALEMETER_PLUGINS_CONV_DIRECT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_util.h"

/* Parameters of conv1d, conv3d and conv_transpose2d as their plugins parse them, axis by axis
 * (depth, height, width; the unused leading axes are kernel 1, stride 1, padding 0). */
typedef struct convnd_params {
    int64_t out;
    int64_t kernel[3], stride[3], padding[3], dilation[3], output_padding[3];
    int64_t groups;
    int bias;
} convnd_params;

typedef struct conv_direct {
    int64_t n, groups, cx, cy; /* batch, groups, channels of the wide and narrow sides */
    int64_t xs[3], ys[3];      /* spatial sizes of each side (leading axes 1) */
    int64_t k[3], s[3], p[3], d[3];
} conv_direct;

/* Sets g from params and the per-sample shapes of both sides (C x spatial, 1 to 3 axes). */
static inline conv_direct conv_direct_of(const convnd_params *p, int64_t n, const sm_shape *x,
                                         const sm_shape *y)
{
    conv_direct g = {.n = n, .groups = p->groups, .cx = x->dim[0], .cy = y->dim[0]};
    int nd = x->ndim - 1;
    for (int i = 0; i < 3; i++) {
        int a = i - (3 - nd); /* axis of the shape, or < 0: a leading unit axis */
        g.xs[i] = a >= 0 ? x->dim[1 + a] : 1;
        g.ys[i] = a >= 0 ? y->dim[1 + a] : 1;
        g.k[i] = p->kernel[i];
        g.s[i] = p->stride[i];
        g.p[i] = p->padding[i];
        g.d[i] = p->dilation[i];
    }
    return g;
}

static inline int64_t conv_direct_taps(const conv_direct *g) { return g->k[0] * g->k[1] * g->k[2]; }

/* Calls the three operations over every (output position, tap) pair whose input lies inside:
 * mode 0: Y += W X (gather), 1: X += W^T Y (scatter), 2: dW += Y X^T (weight gradient). */
static inline void conv_direct_run(const conv_direct *g, int mode, float *x, float *y, float *w)
{
    int64_t cxg = g->cx / g->groups, cyg = g->cy / g->groups, taps = conv_direct_taps(g);
    int64_t xplane = g->xs[0] * g->xs[1] * g->xs[2], yplane = g->ys[0] * g->ys[1] * g->ys[2];
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t cy = 0; cy < g->cy; cy++) {
            int64_t grp = cy / cyg;
            float *yp = y + (n * g->cy + cy) * yplane;
            for (int64_t ci = 0; ci < cxg; ci++) {
                float *xp = x + (n * g->cx + grp * cxg + ci) * xplane;
                float *wp = w + (cy * cxg + ci) * taps;
                for (int64_t a = 0; a < g->k[0]; a++)
                    for (int64_t b = 0; b < g->k[1]; b++)
                        for (int64_t c = 0; c < g->k[2]; c++) {
                            float *wk = wp + (a * g->k[1] + b) * g->k[2] + c;
                            double acc = 0;
                            for (int64_t o0 = 0; o0 < g->ys[0]; o0++) {
                                int64_t i0 = o0 * g->s[0] - g->p[0] + a * g->d[0];
                                if (i0 < 0 || i0 >= g->xs[0])
                                    continue;
                                for (int64_t o1 = 0; o1 < g->ys[1]; o1++) {
                                    int64_t i1 = o1 * g->s[1] - g->p[1] + b * g->d[1];
                                    if (i1 < 0 || i1 >= g->xs[1])
                                        continue;
                                    float *yr = yp + (o0 * g->ys[1] + o1) * g->ys[2];
                                    float *xr = xp + (i0 * g->xs[1] + i1) * g->xs[2];
                                    for (int64_t o2 = 0; o2 < g->ys[2]; o2++) {
                                        int64_t i2 = o2 * g->s[2] - g->p[2] + c * g->d[2];
                                        if (i2 < 0 || i2 >= g->xs[2])
                                            continue;
                                        if (mode == 0)
                                            yr[o2] += *wk * xr[i2];
                                        else if (mode == 1)
                                            xr[i2] += *wk * yr[o2];
                                        else
                                            acc += (double)yr[o2] * xr[i2];
                                    }
                                }
                            }
                            if (mode == 2)
                                *wk += (float)acc;
                        }
            }
        }
}

/* out (n x c x plane) = bias per channel. */
static inline void conv_direct_fill_bias(float *out, const float *bias, int64_t n, int64_t c,
                                         int64_t plane)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < c; j++) {
            float *o = out + (i * c + j) * plane;
            float v = bias ? bias[j] : 0.0f;
            for (int64_t q = 0; q < plane; q++)
                o[q] = v;
        }
}

/* db[c] += sum of dy over the batch and the plane. */
static inline void conv_direct_bias_grad(float *db, const float *dy, int64_t n, int64_t c,
                                         int64_t plane)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < c; j++) {
            const float *d = dy + (i * c + j) * plane;
            double s = 0;
            for (int64_t q = 0; q < plane; q++)
                s += d[q];
            db[j] += (float)s;
        }
}

/* ---- the kernels of a layer (kernels.h), transposed or not ---------------------------------- */

/* The wide and narrow sides of layer l: input and output, or the reverse when transposed. */
static inline conv_direct conv_direct_layer(const sm_layer_io *l, int transposed)
{
    const sm_shape *in = &l->in[0].shape, *out = &l->out->shape;
    return conv_direct_of(l->params, l->in[0].n, transposed ? out : in, transposed ? in : out);
}

/* PyTorch's default: weight and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in being the
 * weight's size(1) x taps (C_in/groups for a convolution, C_out/groups for a transposed one). */
static inline void conv_direct_init(const sm_layer_io *l, float *w, int transposed)
{
    conv_direct g = conv_direct_layer(l, transposed);
    cpu_scale(w, l->n_w, 1.0f / sqrtf((float)(g.cx / g.groups * conv_direct_taps(&g))));
}

static inline int conv_direct_forward(const sm_layer_io *l, int transposed)
{
    const convnd_params *p = l->params;
    conv_direct g = conv_direct_layer(l, transposed);
    int64_t nw = g.cy * (g.cx / g.groups) * conv_direct_taps(&g);
    const sm_shape *out = &l->out->shape;
    int64_t plane = sm_shape_elems(out) / out->dim[0];
    conv_direct_fill_bias(l->out->data, p->bias ? l->w + nw : NULL, l->out->n, out->dim[0], plane);
    if (transposed)
        conv_direct_run(&g, 1, l->out->data, l->in[0].data, l->w);
    else
        conv_direct_run(&g, 0, l->in[0].data, l->out->data, l->w);
    return 0;
}

static inline int conv_direct_backward(const sm_layer_io *l, int transposed)
{
    const convnd_params *p = l->params;
    conv_direct g = conv_direct_layer(l, transposed);
    int64_t nw = g.cy * (g.cx / g.groups) * conv_direct_taps(&g);
    const sm_shape *out = &l->out->shape;
    float *x = l->in[0].data, *dx = l->din[0].data, *dy = l->dout->data;
    if (l->dw) {
        memset(l->dw, 0, (size_t)l->n_w * sizeof *l->dw);
        if (transposed)
            conv_direct_run(&g, 2, dy, x, l->dw);
        else
            conv_direct_run(&g, 2, x, dy, l->dw);
        if (p->bias)
            conv_direct_bias_grad(l->dw + nw, dy, l->out->n, out->dim[0],
                                  sm_shape_elems(out) / out->dim[0]);
    }
    if (dx) {
        if (transposed)
            conv_direct_run(&g, 0, dy, dx, l->w);
        else
            conv_direct_run(&g, 1, dx, dy, l->w);
    }
    return 0;
}

#endif /* SCALEMETER_PLUGINS_CONV_DIRECT_H */
