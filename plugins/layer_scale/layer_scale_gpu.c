/*
 * GPU kernels of layer_scale (kernels.h, struct sm_gpu_kernels): y = w[c] x along one axis,
 * the sample seen as layer_scale_cpu.c sees it, outer x (axis size) x inner, as the
 * broadcasting kernels of elementwise_gpu.cu run it: w is an input broadcast over outer and
 * inner, so dw is its reduction back (dw[c] = sum of dy x over everything but the axis).
 * Initial scales 1e-6, torchvision's ConvNeXt default.
 */
#include "gpu_ops.h"
#include "gpu_util.h"
#include "layer_scale.h"

/* The walks of x (and y, dy: contiguous) and of w over the output outer x len x inner. */
static void walks(const sm_layer_io *l, smk_walk *wx, smk_walk *ww)
{
    const layer_scale_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    int axis = (int)(p->axis < 0 ? p->axis + s->ndim : p->axis);
    int64_t outer = l->in[0].n * sm_shape_dims(s, 0, axis), len = s->dim[axis],
            inner = sm_shape_dims(s, axis + 1, s->ndim);
    *wx = (smk_walk){{1, 1, outer, len, inner}, {0, 0, len * inner, inner, 1}};
    *ww = (smk_walk){{1, 1, outer, len, inner}, {0, 0, 0, 1, 0}};
}

static void scale_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    for (int64_t i = 0; i < l->n_w; i++)
        w[i] = 1e-6f;
}

static int scale_forward(const sm_layer_io *l, sm_error *err)
{
    smk_walk wx, ww;
    walks(l, &wx, &ww);
    GPU_CUDA(err, smk_broadcast_mul, l->out->data, l->in[0].data, wx, l->w, ww, gpu_stream(l));
    return 0;
}

static int scale_backward(const sm_layer_io *l, sm_error *err)
{
    smk_walk wx, ww;
    walks(l, &wx, &ww);
    if (l->dw) {
        GPU_CUDA(err, cudaMemsetAsync, l->dw, 0, (size_t)l->n_w * sizeof(float), gpu_stream(l));
        GPU_CUDA(err, smk_reduce_to_input, l->dw, l->dout->data, ww, l->in[0].data, wx,
                 gpu_stream(l));
    }
    if (l->din[0].data)
        GPU_CUDA(err, smk_mul_accumulate, l->din[0].data, l->dout->data, l->w, ww, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels layer_scale_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .init = scale_init,
    .forward = scale_forward,
    .backward = scale_backward,
};

SM_DEFINE_GPU_KERNELS(layer_scale_gpu_kernels)
