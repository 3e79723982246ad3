/*
 * GPU kernels of patch_merge (kernels.h, struct sm_gpu_kernels): Swin's _patch_merging_pad, a
 * copy along patch_merge.h's index (patch_merge_gpu.cu) with zeros for the padding; backward
 * adds each block's gradient back to its pixel and drops the padding's.
 */
#include "gpu_util.h"
#include "patch_merge_gpu.h"

static int merge_run(const sm_layer_io *l, int backward, sm_error *err)
{
    const sm_shape *s = &l->in[0].shape;
    float *x = backward ? l->din[0].data : l->in[0].data;
    float *y = backward ? l->dout->data : l->out->data;
    GPU_CUDA(err, smk_patch_merge, x, y, l->in[0].n, s->dim[0], s->dim[1], s->dim[2], backward,
             gpu_stream(l));
    return 0;
}

static int merge_forward(const sm_layer_io *l, sm_error *err) { return merge_run(l, 0, err); }

static int merge_backward(const sm_layer_io *l, sm_error *err)
{
    return l->din[0].data ? merge_run(l, 1, err) : 0;
}

static const struct sm_gpu_kernels patch_merge_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = merge_forward,
    .backward = merge_backward,
};

SM_DEFINE_GPU_KERNELS(patch_merge_gpu_kernels)
