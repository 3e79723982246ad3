/*
 * GPU kernels of softmax (kernels.h, struct sm_gpu_kernels): cudnnSoftmaxForward and Backward
 * (CUDNN_SOFTMAX_ACCURATE: the maximum subtracted first, as softmax_cpu.c) in channel mode on
 * the sample seen as softmax_cpu.c sees it, outer x (axis size) x inner, as an
 * outer x axis x inner x 1 NCHW tensor: channel mode normalises along C at every (n, h, w).
 */
#include "gpu_util.h"
#include "softmax.h"

typedef struct softmax_plan {
    cudnnTensorDescriptor_t t;
} softmax_plan;

static void softmax_release(void *plan)
{
    softmax_plan *p = plan;
    if (!p)
        return;
    gpu_tensor_desc_free(p->t);
    free(p);
}

static int softmax_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    softmax_plan *p = calloc(1, sizeof *p);
    if (!p) {
        sm_error_set(err, "out of host memory");
        return -1;
    }
    *plan = p;
    const softmax_params *pr = l->params;
    const sm_shape *s = &l->out->shape;
    int axis = (int)(pr->axis < 0 ? pr->axis + s->ndim : pr->axis);
    return gpu_tensor_desc(&p->t, l->out->n * sm_shape_dims(s, 0, axis), s->dim[axis],
                           sm_shape_dims(s, axis + 1, s->ndim), 1, err);
}

static int softmax_forward(const sm_layer_io *l, sm_error *err)
{
    const softmax_plan *p = l->plan;
    const float one = 1.0f, zero = 0.0f;
    GPU_CUDNN(err, cudnnSoftmaxForward, gpu_cudnn(l), CUDNN_SOFTMAX_ACCURATE,
              CUDNN_SOFTMAX_MODE_CHANNEL, &one, p->t, l->in[0].data, &zero, p->t, l->out->data);
    return 0;
}

static int softmax_backward(const sm_layer_io *l, sm_error *err)
{
    const softmax_plan *p = l->plan;
    const float one = 1.0f;
    if (l->din[0].data) /* beta 1: din += the gradient */
        GPU_CUDNN(err, cudnnSoftmaxBackward, gpu_cudnn(l), CUDNN_SOFTMAX_ACCURATE,
                  CUDNN_SOFTMAX_MODE_CHANNEL, &one, p->t, l->out->data, p->t, l->dout->data, &one,
                  p->t, l->din[0].data);
    return 0;
}

static const struct sm_gpu_kernels softmax_gpu_kernels = {
    SM_GPU_KERNELS_INIT,          .setup = softmax_setup,     .forward = softmax_forward,
    .backward = softmax_backward, .release = softmax_release,
};

SM_DEFINE_GPU_KERNELS(softmax_gpu_kernels)
