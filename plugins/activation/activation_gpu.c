/*
 * GPU kernels of the element-wise activations (kernels.h, struct sm_gpu_kernels), built with the
 * same SM_ACTIVATION_<TYPE> definition as activation.c. Those cuDNN has run as
 * cudnnActivationForward/Backward (relu; relu6 as a relu clipped at 6; sigmoid; tanh), the
 * others as the small kernels of activation_gpu.cu.
 *
 * cuDNN counts elements in int, so the batch goes through in chunks of as many samples as fit.
 */
#include "activation_gpu.h"
#include "gpu_util.h"

#if defined(SM_ACTIVATION_RELU) || defined(SM_ACTIVATION_RELU6) ||                                 \
    defined(SM_ACTIVATION_SIGMOID) || defined(SM_ACTIVATION_TANH)

#if defined(SM_ACTIVATION_RELU)
#define ACT_MODE CUDNN_ACTIVATION_RELU
#define ACT_COEF 0.0
#elif defined(SM_ACTIVATION_RELU6)
#define ACT_MODE CUDNN_ACTIVATION_CLIPPED_RELU
#define ACT_COEF 6.0 /* the clip */
#elif defined(SM_ACTIVATION_SIGMOID)
#define ACT_MODE CUDNN_ACTIVATION_SIGMOID
#define ACT_COEF 0.0
#else
#define ACT_MODE CUDNN_ACTIVATION_TANH
#define ACT_COEF 0.0
#endif

typedef struct act_plan {
    cudnnActivationDescriptor_t act;
    cudnnTensorDescriptor_t full, last; /* a chunk of `chunk` samples; the last, shorter one */
    int64_t chunk, per_sample, n;
} act_plan;

static void act_release(void *plan)
{
    act_plan *p = plan;
    if (!p)
        return;
    if (p->act)
        cudnnDestroyActivationDescriptor(p->act);
    gpu_tensor_desc_free(p->full);
    gpu_tensor_desc_free(p->last);
    free(p);
}

static int act_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    act_plan *p = calloc(1, sizeof *p);
    if (!p) {
        sm_error_set(err, "out of host memory");
        return -1;
    }
    *plan = p;
    p->n = l->out->n;
    p->per_sample = sm_shape_elems(&l->out->shape);
    if (p->per_sample > INT_MAX) {
        sm_error_set(err, "%lld elements per sample exceed the 2^31 cuDNN addresses",
                     (long long)p->per_sample);
        return -1;
    }
    p->chunk = INT_MAX / p->per_sample < p->n ? INT_MAX / p->per_sample : p->n;
    GPU_CUDNN(err, cudnnCreateActivationDescriptor, &p->act);
    GPU_CUDNN(err, cudnnSetActivationDescriptor, p->act, ACT_MODE, CUDNN_PROPAGATE_NAN, ACT_COEF);
    if (gpu_tensor_desc(&p->full, p->chunk, p->per_sample, 1, 1, err))
        return -1;
    int64_t rest = p->n % p->chunk;
    if (rest && gpu_tensor_desc(&p->last, rest, p->per_sample, 1, 1, err))
        return -1;
    return 0;
}

static int act_forward(const sm_layer_io *l, sm_error *err)
{
    const act_plan *p = l->plan;
    const float one = 1.0f, zero = 0.0f;
    for (int64_t n0 = 0; n0 < p->n; n0 += p->chunk) {
        cudnnTensorDescriptor_t d = n0 + p->chunk <= p->n ? p->full : p->last;
        int64_t at = n0 * p->per_sample;
        GPU_CUDNN(err, cudnnActivationForward, gpu_cudnn(l), p->act, &one, d, l->in[0].data + at,
                  &zero, d, l->out->data + at);
    }
    return 0;
}

static int act_backward(const sm_layer_io *l, sm_error *err)
{
    const act_plan *p = l->plan;
    const float one = 1.0f;
    if (!l->din[0].data)
        return 0;
    for (int64_t n0 = 0; n0 < p->n; n0 += p->chunk) {
        cudnnTensorDescriptor_t d = n0 + p->chunk <= p->n ? p->full : p->last;
        int64_t at = n0 * p->per_sample;
        /* beta 1: dx += the activation's gradient, as kernels.h asks */
        GPU_CUDNN(err, cudnnActivationBackward, gpu_cudnn(l), p->act, &one, d, l->out->data + at, d,
                  l->dout->data + at, d, l->in[0].data + at, &one, d, l->din[0].data + at);
    }
    return 0;
}

static const struct sm_gpu_kernels activation_gpu_kernels = {
    SM_GPU_KERNELS_INIT,      .setup = act_setup,     .forward = act_forward,
    .backward = act_backward, .release = act_release,
};

SM_DEFINE_GPU_KERNELS(activation_gpu_kernels)

#else /* silu, gelu, hardswish, hardsigmoid: activation_gpu.cu */

static int act_forward(const sm_layer_io *l, sm_error *err)
{
    GPU_CUDA(err, smk_activation_forward, l->out->data, l->in[0].data, sm_tensor_elems(l->out),
             gpu_stream(l));
    return 0;
}

static int act_backward(const sm_layer_io *l, sm_error *err)
{
    if (l->din[0].data)
        GPU_CUDA(err, smk_activation_backward, l->din[0].data, l->dout->data, l->in[0].data,
                 sm_tensor_elems(l->out), gpu_stream(l));
    return 0;
}

static const struct sm_gpu_kernels activation_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = act_forward,
    .backward = act_backward,
};

SM_DEFINE_GPU_KERNELS(activation_gpu_kernels)

#endif
