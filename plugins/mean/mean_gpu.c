/*
 * GPU kernels of mean (kernels.h, struct sm_gpu_kernels): the small kernels of mean_gpu.cu,
 * one thread per output element forward (its sum along the axis), one per input element
 * backward (its output's gradient over the length).
 */
#include "gpu_util.h"
#include "mean.h"
#include "mean_gpu.h"

static int mean_gpu_forward(const sm_layer_io *l, sm_error *err)
{
    int64_t outer, len, inner;
    mean_split(l->params, &l->in[0].shape, &outer, &len, &inner);
    GPU_CUDA(err, smk_mean_forward, l->out->data, l->in[0].data, outer * l->in[0].n, len, inner,
             gpu_stream(l));
    return 0;
}

static int mean_gpu_backward(const sm_layer_io *l, sm_error *err)
{
    if (!l->din[0].data)
        return 0;
    int64_t outer, len, inner;
    mean_split(l->params, &l->in[0].shape, &outer, &len, &inner);
    GPU_CUDA(err, smk_mean_backward, l->din[0].data, l->dout->data, outer * l->in[0].n, len, inner,
             gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels mean_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = mean_gpu_forward,
    .backward = mean_gpu_backward,
};

SM_DEFINE_GPU_KERNELS(mean_gpu_kernels)
