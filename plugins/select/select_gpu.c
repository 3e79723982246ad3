/*
 * GPU kernels of select (kernels.h, struct sm_gpu_kernels), as select_cpu.c: row `index` of
 * each sample's first dimension (select.h), gathered through a walk of the input (gpu_copy.cu);
 * backward adds the gradient back into that row with the strided accumulate.
 */
#include "gpu_ops.h"
#include "gpu_util.h"
#include "select.h"

static int select_forward(const sm_layer_io *l, sm_error *err)
{
    int64_t row = sm_sample_elems(l->out), in = sm_sample_elems(&l->in[0]);
    smk_walk w = {{1, 1, 1, l->in[0].n, row}, {0, 0, 0, in, 1}};
    GPU_CUDA(err, smk_gather, l->out->data, l->in[0].data + select_row(l) * row, w, gpu_stream(l));
    return 0;
}

static int select_backward(const sm_layer_io *l, sm_error *err)
{
    int64_t row = sm_sample_elems(l->out), in = sm_sample_elems(&l->in[0]);
    if (l->din[0].data)
        GPU_CUDA(err, smk_accumulate_2d, l->din[0].data + select_row(l) * row, in, l->dout->data,
                 row, l->in[0].n, row, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels select_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = select_forward,
    .backward = select_backward,
};

SM_DEFINE_GPU_KERNELS(select_gpu_kernels)
