/*
 * CPU kernels of channel_shuffle (kernels.h, struct sm_cpu_kernels): with C channels in g groups
 * of C/g, output channel j g + i is input channel i (C/g) + j (nn.ChannelShuffle: view as
 * g x C/g, transpose, flatten). Forward copies whole channel planes; backward adds them back.
 */
#include "channel_shuffle.h"
#include "cpu_util.h"

/* Copies every channel plane to its place (forward), or adds its gradient back (backward). */
static void shuffle(const sm_layer_io *l, int backward)
{
    const shuffle_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int64_t c = s->dim[0], g = p->groups, per = c / g, plane = sm_shape_dims(s, 1, s->ndim);
    for (int64_t n = 0; n < l->in[0].n; n++)
        for (int64_t i = 0; i < g; i++)
            for (int64_t j = 0; j < per; j++) {
                int64_t in = (n * c + i * per + j) * plane, out = (n * c + j * g + i) * plane;
                if (backward)
                    cpu_accumulate(l->din[0].data + in, l->dout->data + out, plane);
                else
                    memcpy(l->out->data + out, l->in[0].data + in, (size_t)plane * sizeof(float));
            }
}

static int shuffle_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    shuffle(l, 0);
    return 0;
}

static int shuffle_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (l->din[0].data)
        shuffle(l, 1);
    return 0;
}

const struct sm_cpu_kernels channel_shuffle_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = shuffle_forward,
    .backward = shuffle_backward,
};

SM_DEFINE_CPU_KERNELS(channel_shuffle_cpu_kernels)
