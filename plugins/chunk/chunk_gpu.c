/*
 * GPU kernels of chunk (kernels.h, struct sm_gpu_kernels), seen as chunk_cpu.c sees it: the
 * sample is `outer` blocks of (axis size) x `inner` values and the piece is rows
 * [start, start + size) of each block. Forward is one strided copy (cudaMemcpy2DAsync),
 * backward adds the piece's gradient back in place (gpu_copy.cu).
 */
#include "chunk.h"
#include "gpu_ops.h"
#include "gpu_util.h"

static int chunk_forward(const sm_layer_io *l, sm_error *err)
{
    chunk_geom g = chunk_geom_of(l);
    size_t row = (size_t)(g.size * g.inner) * sizeof(float);
    GPU_CUDA(err, cudaMemcpy2DAsync, l->out->data, row, l->in[0].data + g.start * g.inner,
             (size_t)(g.in_axis * g.inner) * sizeof(float), row, (size_t)g.outer,
             cudaMemcpyDeviceToDevice, gpu_stream(l));
    return 0;
}

static int chunk_backward(const sm_layer_io *l, sm_error *err)
{
    chunk_geom g = chunk_geom_of(l);
    if (l->din[0].data)
        GPU_CUDA(err, smk_accumulate_2d, l->din[0].data + g.start * g.inner, g.in_axis * g.inner,
                 l->dout->data, g.size * g.inner, g.outer, g.size * g.inner, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels chunk_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = chunk_forward,
    .backward = chunk_backward,
};

SM_DEFINE_GPU_KERNELS(chunk_gpu_kernels)
