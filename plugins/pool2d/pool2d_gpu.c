/*
 * GPU kernels of maxpool2d and avgpool2d (kernels.h, struct sm_gpu_kernels), built with the same
 * SM_POOL_MAX or SM_POOL_AVG definition as pool2d.c: cudnnPoolingForward/Backward (max, or
 * average counting the padding: PyTorch's count_include_pad) wherever cuDNN's windows are the
 * layer's, i.e. without dilation and where the floor-mode output size is the inferred one. The
 * other layers (ceil_mode adding a last, partial window; dilated max pooling) run the kernels
 * of pool2d_gpu.cu, which follow pool2d_cpu.c exactly; their max pooling keeps each output's
 * argmax as state.
 */
#include "pool2d_gpu.h"
#include "gpu_util.h"
#include "pool2d.h"

static smk_pool_geom geom_of(const sm_layer_io *l)
{
    const pool2d_params *p = l->params;
    const sm_shape *in = &l->in[0].shape, *out = &l->out->shape;
    smk_pool_geom g = {l->in[0].n * in->dim[0],
                       in->dim[1],
                       in->dim[2],
                       out->dim[1],
                       out->dim[2],
                       p->kernel[0],
                       p->kernel[1],
                       p->stride[0],
                       p->stride[1],
                       p->padding[0],
                       p->padding[1],
                       1,
                       1};
#ifdef SM_POOL_MAX
    g.dh = p->dilation[0];
    g.dw = p->dilation[1];
#endif
    return g;
}

/* Whether cuDNN's pooling computes exactly this layer. */
static int cudnn_fits(const sm_layer_io *l)
{
    smk_pool_geom g = geom_of(l);
    return g.dh == 1 && g.dw == 1 && (g.h + 2 * g.ph - g.kh) / g.sh + 1 == g.ho &&
           (g.w + 2 * g.pw - g.kw) / g.sw + 1 == g.wo && gpu_int_ok(g.kh, g.kw, g.sh, g.sw) &&
           g.ph <= INT_MAX && g.pw <= INT_MAX;
}

typedef struct pool_plan {
    cudnnPoolingDescriptor_t pool; /* NULL: the kernels of pool2d_gpu.cu */
    cudnnTensorDescriptor_t x, y;
} pool_plan;

static void pool_release(void *plan)
{
    pool_plan *p = plan;
    if (!p)
        return;
    if (p->pool)
        cudnnDestroyPoolingDescriptor(p->pool);
    gpu_tensor_desc_free(p->x);
    gpu_tensor_desc_free(p->y);
    free(p);
}

#ifdef SM_POOL_MAX
#define POOL_MODE CUDNN_POOLING_MAX
/* The argmax of each output, for the kernels' backward. */
static size_t pool_state_size(const sm_layer_io *l)
{
    return cudnn_fits(l) ? 0 : (size_t)sm_tensor_elems(l->out) * sizeof(int32_t);
}
#else
#define POOL_MODE CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
#endif

static int pool_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    pool_plan *p = calloc(1, sizeof *p);
    if (!p) {
        sm_error_set(err, "out of host memory");
        return -1;
    }
    *plan = p;
    if (!cudnn_fits(l))
        return 0;
    smk_pool_geom g = geom_of(l);
    const sm_shape *in = &l->in[0].shape, *out = &l->out->shape;
    if (gpu_tensor_desc(&p->x, l->in[0].n, in->dim[0], g.h, g.w, err) ||
        gpu_tensor_desc(&p->y, l->in[0].n, out->dim[0], g.ho, g.wo, err))
        return -1;
    GPU_CUDNN(err, cudnnCreatePoolingDescriptor, &p->pool);
    GPU_CUDNN(err, cudnnSetPooling2dDescriptor, p->pool, POOL_MODE, CUDNN_PROPAGATE_NAN, (int)g.kh,
              (int)g.kw, (int)g.ph, (int)g.pw, (int)g.sh, (int)g.sw);
    return 0;
}

static int pool_forward(const sm_layer_io *l, sm_error *err)
{
    const pool_plan *p = l->plan;
    const float one = 1.0f, zero = 0.0f;
    if (p->pool) {
        GPU_CUDNN(err, cudnnPoolingForward, gpu_cudnn(l), p->pool, &one, p->x, l->in[0].data, &zero,
                  p->y, l->out->data);
        return 0;
    }
#ifdef SM_POOL_MAX
    GPU_CUDA(err, smk_maxpool_forward, l->out->data, l->training ? l->state : NULL, l->in[0].data,
             geom_of(l), gpu_stream(l));
#else
    GPU_CUDA(err, smk_avgpool_forward, l->out->data, l->in[0].data, geom_of(l), gpu_stream(l));
#endif
    return 0;
}

static int pool_backward(const sm_layer_io *l, sm_error *err)
{
    const pool_plan *p = l->plan;
    const float one = 1.0f;
    if (!l->din[0].data)
        return 0;
    if (p->pool) {
        /* beta 1: din += the gradient, as kernels.h asks */
        GPU_CUDNN(err, cudnnPoolingBackward, gpu_cudnn(l), p->pool, &one, p->y, l->out->data, p->y,
                  l->dout->data, p->x, l->in[0].data, &one, p->x, l->din[0].data);
        return 0;
    }
#ifdef SM_POOL_MAX
    GPU_CUDA(err, smk_maxpool_backward, l->din[0].data, l->dout->data, l->state, geom_of(l),
             gpu_stream(l));
#else
    GPU_CUDA(err, smk_avgpool_backward, l->din[0].data, l->dout->data, geom_of(l), gpu_stream(l));
#endif
    return 0;
}

static const struct sm_gpu_kernels pool2d_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
#ifdef SM_POOL_MAX
    .state_size = pool_state_size,
#endif
    .setup = pool_setup,           .forward = pool_forward,
    .backward = pool_backward,     .release = pool_release,
};

SM_DEFINE_GPU_KERNELS(pool2d_gpu_kernels)
