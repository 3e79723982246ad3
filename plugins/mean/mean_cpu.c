/*
 * CPU kernels of mean (kernels.h, struct sm_cpu_kernels): the input as outer x len x inner;
 * forward sums along len and divides, backward adds dy / len to each of the len inputs.
 */
#include "cpu_util.h"
#include "mean.h"

static int mean_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    int64_t outer, len, inner;
    mean_split(l->params, &l->in[0].shape, &outer, &len, &inner);
    outer *= l->in[0].n;
    for (int64_t o = 0; o < outer; o++) {
        float *y = l->out->data + o * inner;
        const float *x = l->in[0].data + o * len * inner;
        memset(y, 0, (size_t)inner * sizeof *y);
        for (int64_t a = 0; a < len; a++)
            cpu_accumulate(y, x + a * inner, inner);
        for (int64_t i = 0; i < inner; i++)
            y[i] /= (float)len;
    }
    return 0;
}

static int mean_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (!l->din[0].data)
        return 0;
    int64_t outer, len, inner;
    mean_split(l->params, &l->in[0].shape, &outer, &len, &inner);
    outer *= l->in[0].n;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < len; a++)
            cpu_axpy(l->din[0].data + (o * len + a) * inner, l->dout->data + o * inner,
                     1.0f / (float)len, inner);
    return 0;
}

const struct sm_cpu_kernels mean_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = mean_forward,
    .backward = mean_backward,
};

SM_DEFINE_CPU_KERNELS(mean_cpu_kernels)
