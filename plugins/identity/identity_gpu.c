/*
 * GPU kernels of identity (kernels.h, struct sm_gpu_kernels): the same values in the output, so
 * forward copies (cudaMemcpyAsync; the host gives every layer its own output, as on the CPU)
 * and backward adds the output gradient to the input's (gpu_copy.cu).
 */
#include "gpu_ops.h"
#include "gpu_util.h"

static int identity_forward(const sm_layer_io *l, sm_error *err)
{
    GPU_CUDA(err, cudaMemcpyAsync, l->out->data, l->in[0].data,
             (size_t)sm_tensor_elems(l->out) * sizeof(float), cudaMemcpyDeviceToDevice,
             gpu_stream(l));
    return 0;
}

static int identity_backward(const sm_layer_io *l, sm_error *err)
{
    if (l->din[0].data)
        GPU_CUDA(err, smk_accumulate, l->din[0].data, l->dout->data, sm_tensor_elems(l->out),
                 gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels identity_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = identity_forward,
    .backward = identity_backward,
};

SM_DEFINE_GPU_KERNELS(identity_gpu_kernels)
