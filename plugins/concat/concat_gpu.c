/*
 * GPU kernels of concat (plugin.h, struct sm_gpu_kernels), seen as concat_cpu.c sees it: every
 * input is `outer` blocks of (its size on the axis) x `inner` values, interleaved in the
 * output. Forward is one strided copy per input (cudaMemcpy2DAsync: `outer` rows of one block
 * each); backward adds each input's rows back (gpu_copy.cu).
 */
#include "concat.h"
#include "gpu_ops.h"
#include "gpu_util.h"

typedef struct concat_geom {
    int64_t outer, inner, out_axis;
    int axis;
} concat_geom;

static concat_geom geom_of(const sm_gpu_layer *l)
{
    const concat_params *p = l->params;
    const sm_shape *o = &l->out->shape;
    concat_geom g;
    g.axis = (int)(p->axis < 0 ? p->axis + o->ndim : p->axis);
    g.outer = l->out->n * gpu_dims(o, 0, g.axis);
    g.inner = gpu_dims(o, g.axis + 1, o->ndim);
    g.out_axis = o->dim[g.axis];
    return g;
}

static int concat_forward(const sm_gpu_layer *l, sm_error *err)
{
    concat_geom g = geom_of(l);
    int64_t offset = 0, pitch = g.out_axis * g.inner;
    for (int k = 0; k < l->n_in; k++) {
        int64_t block = l->in[k].shape.dim[g.axis] * g.inner;
        GPU_CUDA(err, cudaMemcpy2DAsync, l->out->data + offset, (size_t)pitch * sizeof(float),
                 l->in[k].data, (size_t)block * sizeof(float), (size_t)block * sizeof(float),
                 (size_t)g.outer, cudaMemcpyDeviceToDevice, gpu_stream(l));
        offset += block;
    }
    return 0;
}

static int concat_backward(const sm_gpu_layer *l, sm_error *err)
{
    concat_geom g = geom_of(l);
    int64_t offset = 0, pitch = g.out_axis * g.inner;
    for (int k = 0; k < l->n_in; k++) {
        int64_t block = l->in[k].shape.dim[g.axis] * g.inner;
        if (l->din[k].data)
            GPU_CUDA(err, smk_accumulate_2d, l->din[k].data, block, l->dout->data + offset, pitch,
                     g.outer, block, gpu_stream(l));
        offset += block;
    }
    return 0;
}

const struct sm_gpu_kernels concat_gpu_kernels = {
    .struct_size = sizeof(struct sm_gpu_kernels),
    .forward = concat_forward,
    .backward = concat_backward,
};
