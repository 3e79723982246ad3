/*
 * GPU kernels of pos_embedding (kernels.h, struct sm_gpu_kernels), as pos_embedding_cpu.c:
 * y = x + the table's first S rows, the table an input broadcast over the batch, run by the
 * broadcasting kernels of elementwise_gpu.cu. Backward: dx += dy (gpu_copy.cu); the table's
 * gradient is overwritten, its first S rows with the sum of dy over the batch (the reduction
 * back to a broadcast input), the others with 0.
 */
#include "gpu_ops.h"
#include "gpu_util.h"
#include "pos_embedding.h"

/* The table's first S x E values over the output n x (S E): the same for every sample. */
static smk_walk table_walk(const sm_layer_io *l)
{
    smk_walk w = {{1, 1, 1, l->in[0].n, sm_sample_elems(&l->in[0])}, {0, 0, 0, 0, 1}};
    return w;
}

static int pos_forward(const sm_layer_io *l, sm_error *err)
{
    GPU_CUDA(err, cudaMemcpyAsync, l->out->data, l->in[0].data,
             (size_t)sm_tensor_elems(&l->in[0]) * sizeof(float), cudaMemcpyDeviceToDevice,
             gpu_stream(l));
    GPU_CUDA(err, smk_broadcast_add, l->out->data, l->w, table_walk(l), 1, gpu_stream(l));
    return 0;
}

static int pos_backward(const sm_layer_io *l, sm_error *err)
{
    if (l->dw) {
        GPU_CUDA(err, cudaMemsetAsync, l->dw, 0, (size_t)l->n_w * sizeof(float), gpu_stream(l));
        GPU_CUDA(err, smk_reduce_to_input, l->dw, l->dout->data, table_walk(l), NULL, table_walk(l),
                 gpu_stream(l));
    }
    if (l->din[0].data)
        GPU_CUDA(err, smk_accumulate, l->din[0].data, l->dout->data, sm_tensor_elems(&l->in[0]),
                 gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels pos_embedding_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .init = pos_embedding_init,
    .forward = pos_forward,
    .backward = pos_backward,
};

SM_DEFINE_GPU_KERNELS(pos_embedding_gpu_kernels)
