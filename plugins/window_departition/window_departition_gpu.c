/*
 * GPU kernels of window_departition (kernels.h, struct sm_gpu_kernels): MaxViT's
 * WindowDepartition, a copy along window_departition.h's index (window_departition_gpu.cu);
 * backward adds the map's gradient back to the windows'.
 */
#include "gpu_util.h"
#include "window_departition.h"
#include "window_departition_gpu.h"

static int departition_run(const sm_layer_io *l, int backward, sm_error *err)
{
    const departition_params *p = l->params;
    float *x = backward ? l->din[0].data : l->in[0].data;
    float *y = backward ? l->dout->data : l->out->data;
    GPU_CUDA(err, smk_departition, x, y, l->in[0].n, l->in[0].shape.dim[2], *p, backward,
             gpu_stream(l));
    return 0;
}

static int departition_forward(const sm_layer_io *l, sm_error *err)
{
    return departition_run(l, 0, err);
}

static int departition_backward(const sm_layer_io *l, sm_error *err)
{
    return l->din[0].data ? departition_run(l, 1, err) : 0;
}

static const struct sm_gpu_kernels window_departition_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = departition_forward,
    .backward = departition_backward,
};

SM_DEFINE_GPU_KERNELS(window_departition_gpu_kernels)
