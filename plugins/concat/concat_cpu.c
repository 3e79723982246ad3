/*
 * CPU kernels of concat (kernels.h, struct sm_cpu_kernels). Seen along its axis, every input is
 * `outer` blocks of (its size on the axis) x `inner` values, and the output interleaves those
 * blocks: forward copies each input's blocks into place, backward adds them back.
 */
#include "concat.h"
#include "cpu_util.h"

static int concat_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    concat_geom g = concat_geom_of(l);
    int64_t offset = 0;
    for (int k = 0; k < l->n_in; k++) {
        int64_t block = l->in[k].shape.dim[g.axis] * g.inner;
        for (int64_t i = 0; i < g.outer; i++)
            memcpy(l->out->data + i * g.out_axis * g.inner + offset, l->in[k].data + i * block,
                   (size_t)block * sizeof(float));
        offset += block;
    }
    return 0;
}

static int concat_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    concat_geom g = concat_geom_of(l);
    int64_t offset = 0;
    for (int k = 0; k < l->n_in; k++) {
        int64_t block = l->in[k].shape.dim[g.axis] * g.inner;
        if (l->din[k].data)
            for (int64_t i = 0; i < g.outer; i++)
                cpu_accumulate(l->din[k].data + i * block,
                               l->dout->data + i * g.out_axis * g.inner + offset, block);
        offset += block;
    }
    return 0;
}

const struct sm_cpu_kernels concat_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = concat_forward,
    .backward = concat_backward,
};

SM_DEFINE_CPU_KERNELS(concat_cpu_kernels)
