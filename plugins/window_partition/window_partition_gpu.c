/*
 * GPU kernels of window_partition (kernels.h, struct sm_gpu_kernels): MaxViT's WindowPartition,
 * a copy along window_partition.h's index (window_partition_gpu.cu); backward adds the windows'
 * gradient back to the input's.
 */
#include "gpu_util.h"
#include "window_partition.h"
#include "window_partition_gpu.h"

static int partition_run(const sm_layer_io *l, int backward, sm_error *err)
{
    const partition_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    float *x = backward ? l->din[0].data : l->in[0].data;
    float *y = backward ? l->dout->data : l->out->data;
    GPU_CUDA(err, smk_partition, x, y, l->in[0].n, s->dim[0], s->dim[1], s->dim[2], p->p, backward,
             gpu_stream(l));
    return 0;
}

static int partition_forward(const sm_layer_io *l, sm_error *err)
{
    return partition_run(l, 0, err);
}

static int partition_backward(const sm_layer_io *l, sm_error *err)
{
    return l->din[0].data ? partition_run(l, 1, err) : 0;
}

static const struct sm_gpu_kernels window_partition_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = partition_forward,
    .backward = partition_backward,
};

SM_DEFINE_GPU_KERNELS(window_partition_gpu_kernels)
