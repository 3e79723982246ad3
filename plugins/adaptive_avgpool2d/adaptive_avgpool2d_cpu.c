/*
 * CPU kernels of adaptive_avgpool2d (kernels.h, struct sm_cpu_kernels). Output cell (oh, ow)
 * averages input rows [floor(oh H / Ho), ceil((oh + 1) H / Ho)) and the columns likewise, as
 * PyTorch's AdaptiveAveragePooling.cpp does.
 */
#include "cpu_util.h"

static int64_t start_of(int64_t o, int64_t out, int64_t in) { return o * in / out; }
static int64_t end_of(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

typedef struct adaptive_geom {
    int64_t planes, h, w, ho, wo;
} adaptive_geom;

static adaptive_geom geom_of(const sm_layer_io *l)
{
    const sm_shape *in = &l->in[0].shape, *out = &l->out->shape;
    adaptive_geom g = {l->in[0].n * in->dim[0], in->dim[1], in->dim[2], out->dim[1], out->dim[2]};
    return g;
}

static int adaptive_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    adaptive_geom g = geom_of(l);
    for (int64_t c = 0; c < g.planes; c++) {
        const float *x = l->in[0].data + c * g.h * g.w;
        float *y = l->out->data + c * g.ho * g.wo;
        for (int64_t oh = 0; oh < g.ho; oh++) {
            int64_t h0 = start_of(oh, g.ho, g.h), h1 = end_of(oh, g.ho, g.h);
            for (int64_t ow = 0; ow < g.wo; ow++) {
                int64_t w0 = start_of(ow, g.wo, g.w), w1 = end_of(ow, g.wo, g.w);
                float s = 0;
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++)
                        s += x[ih * g.w + iw];
                y[oh * g.wo + ow] = s / (float)((h1 - h0) * (w1 - w0));
            }
        }
    }
    return 0;
}

static int adaptive_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    adaptive_geom g = geom_of(l);
    if (!l->din[0].data)
        return 0;
    for (int64_t c = 0; c < g.planes; c++) {
        float *dx = l->din[0].data + c * g.h * g.w;
        const float *dy = l->dout->data + c * g.ho * g.wo;
        for (int64_t oh = 0; oh < g.ho; oh++) {
            int64_t h0 = start_of(oh, g.ho, g.h), h1 = end_of(oh, g.ho, g.h);
            for (int64_t ow = 0; ow < g.wo; ow++) {
                int64_t w0 = start_of(ow, g.wo, g.w), w1 = end_of(ow, g.wo, g.w);
                float v = dy[oh * g.wo + ow] / (float)((h1 - h0) * (w1 - w0));
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++)
                        dx[ih * g.w + iw] += v;
            }
        }
    }
    return 0;
}

const struct sm_cpu_kernels adaptive_avgpool2d_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = adaptive_forward,
    .backward = adaptive_backward,
};

SM_DEFINE_CPU_KERNELS(adaptive_avgpool2d_cpu_kernels)
