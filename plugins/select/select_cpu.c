/*
 * CPU kernels of select (kernels.h, struct sm_cpu_kernels): row `index` of each sample's first
 * dimension (negative: from the end). Backward adds the gradient back into that row.
 */
#include "cpu_util.h"
#include "select.h"

static int select_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    int64_t row = sm_sample_elems(l->out), in = sm_sample_elems(&l->in[0]), r = select_row(l);
    for (int64_t n = 0; n < l->in[0].n; n++)
        memcpy(l->out->data + n * row, l->in[0].data + n * in + r * row,
               (size_t)row * sizeof(float));
    return 0;
}

static int select_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    int64_t row = sm_sample_elems(l->out), in = sm_sample_elems(&l->in[0]), r = select_row(l);
    if (l->din[0].data)
        for (int64_t n = 0; n < l->in[0].n; n++)
            cpu_accumulate(l->din[0].data + n * in + r * row, l->dout->data + n * row, row);
    return 0;
}

const struct sm_cpu_kernels select_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = select_forward,
    .backward = select_backward,
};

SM_DEFINE_CPU_KERNELS(select_cpu_kernels)
