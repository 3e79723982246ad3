/*
 * GPU kernels of chunk (plugin.h, struct sm_gpu_kernels), seen as chunk_cpu.c sees it: the
 * sample is `outer` blocks of (axis size) x `inner` values and the piece is rows
 * [start, start + size) of each block. Forward is one strided copy (cudaMemcpy2DAsync),
 * backward adds the piece's gradient back in place (gpu_copy.cu).
 */
#include "chunk.h"
#include "gpu_ops.h"
#include "gpu_util.h"

typedef struct chunk_geom {
    int64_t outer, inner, in_axis, start, size;
} chunk_geom;

static chunk_geom geom_of(const sm_gpu_layer *l)
{
    const chunk_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int axis = (int)(p->axis < 0 ? p->axis + s->ndim : p->axis);
    int64_t n = s->dim[axis], piece = n / p->chunks + (n % p->chunks != 0);
    chunk_geom g = {l->in[0].n * gpu_dims(s, 0, axis), gpu_dims(s, axis + 1, s->ndim), n,
                    p->index * piece, l->out->shape.dim[axis]};
    return g;
}

static int chunk_forward(const sm_gpu_layer *l, sm_error *err)
{
    chunk_geom g = geom_of(l);
    size_t row = (size_t)(g.size * g.inner) * sizeof(float);
    GPU_CUDA(err, cudaMemcpy2DAsync, l->out->data, row, l->in[0].data + g.start * g.inner,
             (size_t)(g.in_axis * g.inner) * sizeof(float), row, (size_t)g.outer,
             cudaMemcpyDeviceToDevice, gpu_stream(l));
    return 0;
}

static int chunk_backward(const sm_gpu_layer *l, sm_error *err)
{
    chunk_geom g = geom_of(l);
    if (l->din[0].data)
        GPU_CUDA(err, smk_accumulate_2d, l->din[0].data + g.start * g.inner, g.in_axis * g.inner,
                 l->dout->data, g.size * g.inner, g.outer, g.size * g.inner, gpu_stream(l));
    return 0;
}

const struct sm_gpu_kernels chunk_gpu_kernels = {
    .struct_size = sizeof(struct sm_gpu_kernels),
    .forward = chunk_forward,
    .backward = chunk_backward,
};
