/*
 * CPU kernels of window_partition (kernels.h, struct sm_cpu_kernels): output [g][k][c] with
 * g = hp (W/P) + wp and k = ph P + pw is input [c][hp P + ph][wp P + pw]. Backward adds each
 * output gradient back to its input element.
 */
#include "cpu_util.h"
#include "window_partition.h"

static void partition(const sm_layer_io *l, int backward)
{
    const partition_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int64_t c = s->dim[0], h = s->dim[1], w = s->dim[2], P = p->p;
    int64_t per = c * h * w;
    for (int64_t n = 0; n < l->in[0].n; n++) {
        const float *in = l->in[0].data + n * per;
        float *din = l->din[0].data;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                int64_t o = n * per + partition_at(y, x, w, P, c);
                for (int64_t ch = 0; ch < c; ch++) {
                    int64_t i = (ch * h + y) * w + x;
                    if (backward)
                        din[n * per + i] += l->dout->data[o + ch];
                    else
                        l->out->data[o + ch] = in[i];
                }
            }
    }
}

static int partition_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    partition(l, 0);
    return 0;
}

static int partition_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (l->din[0].data)
        partition(l, 1);
    return 0;
}

const struct sm_cpu_kernels window_partition_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = partition_forward,
    .backward = partition_backward,
};

SM_DEFINE_CPU_KERNELS(window_partition_cpu_kernels)
