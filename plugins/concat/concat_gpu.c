/*
 * GPU kernels of concat (kernels.h, struct sm_gpu_kernels), seen as concat_cpu.c sees it: every
 * input is `outer` blocks of (its size on the axis) x `inner` values, interleaved in the
 * output. Forward is one strided copy per input (cudaMemcpy2DAsync: `outer` rows of one block
 * each); backward adds each input's rows back (gpu_copy.cu).
 */
#include "concat.h"
#include "gpu_ops.h"
#include "gpu_util.h"

static int concat_forward(const sm_layer_io *l, sm_error *err)
{
    concat_geom g = concat_geom_of(l);
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

static int concat_backward(const sm_layer_io *l, sm_error *err)
{
    concat_geom g = concat_geom_of(l);
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

static const struct sm_gpu_kernels concat_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = concat_forward,
    .backward = concat_backward,
};

SM_DEFINE_GPU_KERNELS(concat_gpu_kernels)
