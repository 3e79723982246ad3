/*
 * GPU kernels of identity (plugin.h, struct sm_gpu_kernels): the same values in the output, so
 * forward copies (cudaMemcpyAsync; the host gives every layer its own output, as on the CPU)
 * and backward adds the output gradient to the input's (gpu_copy.cu).
 */
#include "gpu_ops.h"
#include "gpu_util.h"

static int identity_forward(const sm_gpu_layer *l, sm_error *err)
{
    GPU_CUDA(err, cudaMemcpyAsync, l->out->data, l->in[0].data,
             (size_t)gpu_elems(l->out) * sizeof(float), cudaMemcpyDeviceToDevice, gpu_stream(l));
    return 0;
}

static int identity_backward(const sm_gpu_layer *l, sm_error *err)
{
    if (l->din[0].data)
        GPU_CUDA(err, smk_accumulate, l->din[0].data, l->dout->data, gpu_elems(l->out),
                 gpu_stream(l));
    return 0;
}

const struct sm_gpu_kernels identity_gpu_kernels = {
    .struct_size = sizeof(struct sm_gpu_kernels),
    .forward = identity_forward,
    .backward = identity_backward,
};
