/*
 * The GPU kernels of conv1d, conv3d and conv_transpose2d (kernels.h, struct sm_gpu_kernels),
 * header-only for their NAME_gpu.c: conv_direct.h's layer functions with the loops on the
 * device (convnd_gpu.cu). Initial weights are the CPU's (conv_direct_init), the sums its too.
 * The arithmetic is fp32 in both precisions implemented (tf32 only permits tensor cores).
 */
#ifndef SCALEMETER_PLUGINS_CONV_DIRECT_GPU_H
#define SCALEMETER_PLUGINS_CONV_DIRECT_GPU_H

#include "conv_direct.h"
#include "convnd_gpu.h"
#include "gpu_precision.h"
#include "gpu_util.h"

static inline smk_conv_geom conv_direct_gpu_geom(const sm_layer_io *l, int transposed)
{
    conv_direct c = conv_direct_layer(l, transposed);
    smk_conv_geom g = {.n = c.n, .groups = c.groups, .cx = c.cx, .cy = c.cy};
    for (int i = 0; i < 3; i++) {
        g.xs[i] = c.xs[i], g.ys[i] = c.ys[i];
        g.k[i] = c.k[i], g.s[i] = c.s[i], g.p[i] = c.p[i], g.d[i] = c.d[i];
    }
    return g;
}

/* Weights of W before the bias. */
static inline int64_t conv_direct_gpu_nw(const smk_conv_geom *g)
{
    return g->cy * (g->cx / g->groups) * g->k[0] * g->k[1] * g->k[2];
}

static inline int conv_direct_gpu_setup(const sm_layer_io *l, const char *name, void **plan,
                                        sm_error *err)
{
    *plan = NULL;
    return gpu_check_precision(l, name, err);
}

/* out = bias + W in: a gather into the narrow side, or for a transposed convolution a scatter
 * into the wide one. */
static inline int conv_direct_gpu_forward(const sm_layer_io *l, int transposed, sm_error *err)
{
    const convnd_params *p = l->params;
    smk_conv_geom g = conv_direct_gpu_geom(l, transposed);
    const float *bias = p->bias ? l->w + conv_direct_gpu_nw(&g) : NULL;
    if (transposed)
        GPU_CUDA(err, smk_conv_scatter, l->out->data, l->in[0].data, l->w, bias, 0, g,
                 gpu_stream(l));
    else
        GPU_CUDA(err, smk_conv_gather, l->out->data, l->in[0].data, l->w, bias, 0, g,
                 gpu_stream(l));
    return 0;
}

/* dw = the weight gradient (overwritten), db = dout summed per channel, din += W^T dout. */
static inline int conv_direct_gpu_backward(const sm_layer_io *l, int transposed, sm_error *err)
{
    const convnd_params *p = l->params;
    smk_conv_geom g = conv_direct_gpu_geom(l, transposed);
    const sm_shape *out = &l->out->shape;
    float *x = l->in[0].data, *dx = l->din[0].data, *dy = l->dout->data;
    int64_t nw = conv_direct_gpu_nw(&g);
    if (l->dw) {
        GPU_CUDA(err, smk_conv_weight_grad, l->dw, transposed ? dy : x, transposed ? x : dy, g,
                 gpu_stream(l));
        if (p->bias)
            GPU_CUDA(err, smk_conv_bias_grad, l->dw + nw, dy, l->out->n, out->dim[0],
                     sm_shape_elems(out) / out->dim[0], gpu_stream(l));
    }
    if (dx) {
        if (transposed)
            GPU_CUDA(err, smk_conv_gather, dx, dy, l->w, NULL, 1, g, gpu_stream(l));
        else
            GPU_CUDA(err, smk_conv_scatter, dx, dy, l->w, NULL, 1, g, gpu_stream(l));
    }
    return 0;
}

#endif /* SCALEMETER_PLUGINS_CONV_DIRECT_GPU_H */
