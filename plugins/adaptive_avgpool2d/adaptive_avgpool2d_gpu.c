/*
 * GPU kernels of adaptive_avgpool2d (kernels.h, struct sm_gpu_kernels). Where the output size
 * divides the input's (the 1x1 global pooling of every classifier head, and 7x7 from 7x7) the
 * windows are plain average pooling with window = stride = H / Ho: cudnnPoolingForward and
 * Backward. Otherwise (7x7 from a smaller map at small images) the windows overlap and vary in
 * size, and the kernels of adaptive_avgpool2d_gpu.cu run (adaptive_avgpool2d_cpu.c's windows).
 */
#include "adaptive_avgpool2d_gpu.h"
#include "gpu_util.h"

typedef struct adaptive_plan {
    cudnnPoolingDescriptor_t pool; /* NULL: the kernels */
    cudnnTensorDescriptor_t x, y;
    int64_t planes, h, w, ho, wo;
} adaptive_plan;

static void adaptive_release(void *plan)
{
    adaptive_plan *p = plan;
    if (!p)
        return;
    if (p->pool)
        cudnnDestroyPoolingDescriptor(p->pool);
    gpu_tensor_desc_free(p->x);
    gpu_tensor_desc_free(p->y);
    free(p);
}

static int adaptive_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    adaptive_plan *p = calloc(1, sizeof *p);
    if (!p) {
        sm_error_set(err, "out of host memory");
        return -1;
    }
    *plan = p;
    const sm_shape *in = &l->in[0].shape, *out = &l->out->shape;
    *p = (adaptive_plan){NULL,       NULL,       NULL,        l->in[0].n * in->dim[0],
                         in->dim[1], in->dim[2], out->dim[1], out->dim[2]};
    if (p->h % p->ho || p->w % p->wo || !gpu_int_ok(p->h / p->ho, p->w / p->wo, 1, 1))
        return 0;
    int kh = (int)(p->h / p->ho), kw = (int)(p->w / p->wo);
    if (gpu_tensor_desc(&p->x, l->in[0].n, in->dim[0], p->h, p->w, err) ||
        gpu_tensor_desc(&p->y, l->in[0].n, out->dim[0], p->ho, p->wo, err))
        return -1;
    GPU_CUDNN(err, cudnnCreatePoolingDescriptor, &p->pool);
    GPU_CUDNN(err, cudnnSetPooling2dDescriptor, p->pool,
              CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_PROPAGATE_NAN, kh, kw, 0, 0, kh,
              kw);
    return 0;
}

static int adaptive_forward(const sm_layer_io *l, sm_error *err)
{
    const adaptive_plan *p = l->plan;
    const float one = 1.0f, zero = 0.0f;
    if (p->pool)
        GPU_CUDNN(err, cudnnPoolingForward, gpu_cudnn(l), p->pool, &one, p->x, l->in[0].data, &zero,
                  p->y, l->out->data);
    else
        GPU_CUDA(err, smk_adaptive_avgpool_forward, l->out->data, l->in[0].data, p->planes, p->h,
                 p->w, p->ho, p->wo, gpu_stream(l));
    return 0;
}

static int adaptive_backward(const sm_layer_io *l, sm_error *err)
{
    const adaptive_plan *p = l->plan;
    const float one = 1.0f;
    if (!l->din[0].data)
        return 0;
    if (p->pool) /* beta 1: din += the gradient */
        GPU_CUDNN(err, cudnnPoolingBackward, gpu_cudnn(l), p->pool, &one, p->y, l->out->data, p->y,
                  l->dout->data, p->x, l->in[0].data, &one, p->x, l->din[0].data);
    else
        GPU_CUDA(err, smk_adaptive_avgpool_backward, l->din[0].data, l->dout->data, p->planes, p->h,
                 p->w, p->ho, p->wo, gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels adaptive_avgpool2d_gpu_kernels = {
    SM_GPU_KERNELS_INIT,           .setup = adaptive_setup,     .forward = adaptive_forward,
    .backward = adaptive_backward, .release = adaptive_release,
};

SM_DEFINE_GPU_KERNELS(adaptive_avgpool2d_gpu_kernels)
