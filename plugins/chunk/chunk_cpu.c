/*
 * CPU kernels of chunk (kernels.h, struct sm_cpu_kernels). Seen along its axis the sample is
 * `outer` blocks of (axis size) x `inner` values; the piece is the rows [start, start + size)
 * of each block: forward copies them, backward adds their gradient back in place.
 */
#include "chunk.h"
#include "cpu_util.h"

static int chunk_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    chunk_geom g = chunk_geom_of(l);
    for (int64_t o = 0; o < g.outer; o++)
        memcpy(l->out->data + o * g.size * g.inner,
               l->in[0].data + (o * g.in_axis + g.start) * g.inner,
               (size_t)(g.size * g.inner) * sizeof(float));
    return 0;
}

static int chunk_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    chunk_geom g = chunk_geom_of(l);
    if (l->din[0].data)
        for (int64_t o = 0; o < g.outer; o++)
            cpu_accumulate(l->din[0].data + (o * g.in_axis + g.start) * g.inner,
                           l->dout->data + o * g.size * g.inner, g.size * g.inner);
    return 0;
}

const struct sm_cpu_kernels chunk_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = chunk_forward,
    .backward = chunk_backward,
};

SM_DEFINE_CPU_KERNELS(chunk_cpu_kernels)
