/*
 * CPU kernels of pixel_shuffle (kernels.h, struct sm_cpu_kernels): forward copies every input
 * value to its place, backward adds each output gradient back to the value it came from.
 */
#include "cpu_util.h"
#include "pixel_shuffle.h"

static void shuffle(const sm_layer_io *l, int backward)
{
    const pixel_shuffle_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int64_t r = p->factor, c = s->dim[0] / (r * r), h = s->dim[1], w = s->dim[2];
    for (int64_t n = 0; n < l->in[0].n * c; n++) /* sample and output channel */
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < r; j++)
                for (int64_t y = 0; y < h; y++) {
                    int64_t in = ((n * r + i) * r + j) * h * w + y * w;
                    int64_t out = (n * h * r + y * r + i) * w * r + j;
                    for (int64_t x = 0; x < w; x++) {
                        if (backward)
                            l->din[0].data[in + x] += l->dout->data[out + x * r];
                        else
                            l->out->data[out + x * r] = l->in[0].data[in + x];
                    }
                }
}

static int pixel_shuffle_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    shuffle(l, 0);
    return 0;
}

static int pixel_shuffle_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (l->din[0].data)
        shuffle(l, 1);
    return 0;
}

const struct sm_cpu_kernels pixel_shuffle_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = pixel_shuffle_forward,
    .backward = pixel_shuffle_backward,
};

SM_DEFINE_CPU_KERNELS(pixel_shuffle_cpu_kernels)
