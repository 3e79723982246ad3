/*
 * CPU kernels of upsample (kernels.h, struct sm_cpu_kernels): every output value from its
 * nearest input value, or the bilinear blend of four; backward adds each output gradient back
 * into the input values it came from, with the same weights.
 */
#include <math.h>

#include "cpu_util.h"
#include "upsample.h"

static void run(const sm_layer_io *l, int backward)
{
    const upsample_params *p = l->params;
    const sm_shape *is = &l->in[0].shape, *os = &l->out->shape;
    int64_t planes = l->in[0].n * is->dim[0], h = is->dim[1], w = is->dim[2];
    int64_t ho = os->dim[1], wo = os->dim[2];
    for (int64_t c = 0; c < planes; c++) {
        const float *x = backward ? NULL : l->in[0].data + c * h * w;
        float *dx = backward ? l->din[0].data + c * h * w : NULL;
        for (int64_t oh = 0; oh < ho; oh++) {
            int64_t h0, h1, w0, w1;
            float a, b;
            upsample_taps(p, oh, h, ho, &h0, &h1, &a);
            for (int64_t ow = 0; ow < wo; ow++) {
                upsample_taps(p, ow, w, wo, &w0, &w1, &b);
                float k00 = (1 - a) * (1 - b), k01 = (1 - a) * b, k10 = a * (1 - b), k11 = a * b;
                int64_t o = (c * ho + oh) * wo + ow;
                if (!backward) {
                    l->out->data[o] = k00 * x[h0 * w + w0] + k01 * x[h0 * w + w1] +
                                      k10 * x[h1 * w + w0] + k11 * x[h1 * w + w1];
                } else {
                    float d = l->dout->data[o];
                    dx[h0 * w + w0] += k00 * d;
                    dx[h0 * w + w1] += k01 * d;
                    dx[h1 * w + w0] += k10 * d;
                    dx[h1 * w + w1] += k11 * d;
                }
            }
        }
    }
}

static int upsample_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    run(l, 0);
    return 0;
}

static int upsample_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (l->din[0].data)
        run(l, 1);
    return 0;
}

const struct sm_cpu_kernels upsample_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = upsample_forward,
    .backward = upsample_backward,
};

SM_DEFINE_CPU_KERNELS(upsample_cpu_kernels)
