/*
 * CPU kernels of window_departition (kernels.h, struct sm_cpu_kernels): output [c][y][x] is
 * input [g][k][c] with g = (y / P) w + x / P and k = (y % P) P + x % P. Backward adds each
 * output gradient back to its input element.
 */
#include "cpu_util.h"
#include "window_departition.h"

static void departition(const sm_layer_io *l, int backward)
{
    const departition_params *p = l->params;
    int64_t P = p->p, h = p->hp * P, w = p->wp * P, c = l->in[0].shape.dim[2];
    int64_t per = c * h * w;
    for (int64_t n = 0; n < l->in[0].n; n++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                int64_t i = n * per + departition_at(p, y, x, c);
                for (int64_t ch = 0; ch < c; ch++) {
                    int64_t o = n * per + (ch * h + y) * w + x;
                    if (backward)
                        l->din[0].data[i + ch] += l->dout->data[o];
                    else
                        l->out->data[o] = l->in[0].data[i + ch];
                }
            }
}

static int departition_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    departition(l, 0);
    return 0;
}

static int departition_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (l->din[0].data)
        departition(l, 1);
    return 0;
}

const struct sm_cpu_kernels window_departition_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = departition_forward,
    .backward = departition_backward,
};

SM_DEFINE_CPU_KERNELS(window_departition_cpu_kernels)
