/*
 * GPU kernels of dropout (kernels.h, struct sm_gpu_kernels), as dropout_cpu.c: a training
 * forward zeroes each element with probability p and scales the others by 1 / (1 - p), keeping
 * the mask (one byte per element) as state for backward; at inference, or with p = 0, it
 * copies. The mask comes from the same hash of the step's seed as on the CPU (dropout_gpu.cu),
 * so both backends drop the same elements.
 */
#include "dropout.h"
#include "dropout_gpu.h"
#include "gpu_ops.h"
#include "gpu_util.h"

static size_t dropout_state_size(const sm_layer_io *l) { return (size_t)sm_tensor_elems(l->out); }

static int dropout_forward(const sm_layer_io *l, sm_error *err)
{
    const dropout_params *p = l->params;
    int64_t n = sm_tensor_elems(l->out);
    if (!l->training || p->p <= 0) {
        GPU_CUDA(err, cudaMemcpyAsync, l->out->data, l->in[0].data, (size_t)n * sizeof(float),
                 cudaMemcpyDeviceToDevice, gpu_stream(l));
        return 0;
    }
    uint64_t threshold = (uint64_t)(p->p * 9007199254740992.0); /* as dropout_cpu.c */
    float scale = (float)(1.0 / (1.0 - p->p));
    GPU_CUDA(err, smk_dropout_forward, l->out->data, l->state, l->in[0].data, n, l->seed, threshold,
             scale, gpu_stream(l));
    return 0;
}

static int dropout_backward(const sm_layer_io *l, sm_error *err)
{
    const dropout_params *p = l->params;
    int64_t n = sm_tensor_elems(l->out);
    if (!l->din[0].data)
        return 0;
    if (p->p <= 0)
        GPU_CUDA(err, smk_accumulate, l->din[0].data, l->dout->data, n, gpu_stream(l));
    else
        GPU_CUDA(err, smk_dropout_backward, l->din[0].data, l->dout->data, l->state, n,
                 (float)(1.0 / (1.0 - p->p)), gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels dropout_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .state_size = dropout_state_size,
    .forward = dropout_forward,
    .backward = dropout_backward,
};

SM_DEFINE_GPU_KERNELS(dropout_gpu_kernels)
