/*
 * GPU kernels of batchnorm2d (kernels.h, struct sm_gpu_kernels): cuDNN's spatial batch
 * normalisation over N x C x S (S the values per channel of one sample):
 *   training   cudnnBatchNormalizationForwardTraining, exponential average factor 0.1 (PyTorch's
 *              momentum; cuDNN keeps the unbiased variance in the running one, as PyTorch does)
 *   inference  cudnnBatchNormalizationForwardInference with the running statistics
 *   backward   cudnnBatchNormalizationBackward from the saved mean and 1/sqrt(var + eps)
 * State: C floats each of saved mean, saved 1/sqrt(var + eps), running mean and running
 * variance (batchnorm2d_cpu.c's layout), then ones and zeros (the scale and shift of a layer
 * without affine, since cuDNN always takes them) and the scratch their gradients go to.
 */
#include "batchnorm2d.h"
#include "gpu_util.h"

enum { SAVED_MEAN, SAVED_INVSTD, RUNNING_MEAN, RUNNING_VAR, ONES, ZEROS, DSCALE, DBIAS, N_STATE };

typedef struct bn_plan {
    cudnnTensorDescriptor_t x, param;
    int64_t c;
} bn_plan;

static int64_t channels(const sm_layer_io *l) { return l->in[0].shape.dim[0]; }

static size_t bn_state_size(const sm_layer_io *l)
{
    return (size_t)(N_STATE * channels(l)) * sizeof(float);
}

static void bn_init(const sm_layer_io *l, float *w, void *state)
{
    const batchnorm_params *p = l->params;
    int64_t c = channels(l);
    float *s = state;
    for (int64_t i = 0; i < c; i++) {
        s[RUNNING_VAR * c + i] = 1.0f;
        s[ONES * c + i] = 1.0f;
    }
    if (p->affine)
        for (int64_t i = 0; i < c; i++) {
            w[i] = 1.0f;     /* gamma */
            w[c + i] = 0.0f; /* beta */
        }
}

static void bn_release(void *plan)
{
    bn_plan *p = plan;
    if (!p)
        return;
    gpu_tensor_desc_free(p->x);
    gpu_tensor_desc_free(p->param);
    free(p);
}

/* No backward scratch is needed unless the input's gradient is: cuDNN always writes dx. */
static size_t bn_work_size(const sm_layer_io *l)
{
    return l->din[0].data ? 0 : (size_t)sm_tensor_elems(&l->in[0]) * sizeof(float);
}

static int bn_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    bn_plan *p = calloc(1, sizeof *p);
    if (!p) {
        sm_error_set(err, "out of host memory");
        return -1;
    }
    *plan = p;
    const sm_shape *in = &l->in[0].shape;
    p->c = in->dim[0];
    if (gpu_tensor_desc(&p->x, l->in[0].n, p->c, sm_shape_dims(in, 1, in->ndim), 1, err) ||
        gpu_tensor_desc(&p->param, 1, p->c, 1, 1, err))
        return -1;
    return 0;
}

/* The scale and shift cuDNN reads: the weights, or ones and zeros without affine (shift may be
 * NULL: backward reads no shift). */
static void scale_shift(const sm_layer_io *l, const float **scale, const float **shift)
{
    const batchnorm_params *pr = l->params;
    const bn_plan *p = l->plan;
    const float *s = l->state;
    *scale = pr->affine ? l->w : s + ONES * p->c;
    if (shift)
        *shift = pr->affine ? l->w + p->c : s + ZEROS * p->c;
}

static int bn_forward(const sm_layer_io *l, sm_error *err)
{
    const bn_plan *p = l->plan;
    float *s = l->state;
    const float one = 1.0f, zero = 0.0f, *scale, *shift;
    scale_shift(l, &scale, &shift);
    if (l->training)
        GPU_CUDNN(err, cudnnBatchNormalizationForwardTraining, gpu_cudnn(l),
                  CUDNN_BATCHNORM_SPATIAL, &one, &zero, p->x, l->in[0].data, p->x, l->out->data,
                  p->param, scale, shift, BN_MOMENTUM, s + RUNNING_MEAN * p->c,
                  s + RUNNING_VAR * p->c, BN_EPS, s + SAVED_MEAN * p->c, s + SAVED_INVSTD * p->c);
    else
        GPU_CUDNN(err, cudnnBatchNormalizationForwardInference, gpu_cudnn(l),
                  CUDNN_BATCHNORM_SPATIAL, &one, &zero, p->x, l->in[0].data, p->x, l->out->data,
                  p->param, scale, shift, s + RUNNING_MEAN * p->c, s + RUNNING_VAR * p->c, BN_EPS);
    return 0;
}

static int bn_backward(const sm_layer_io *l, sm_error *err)
{
    const batchnorm_params *pr = l->params;
    const bn_plan *p = l->plan;
    float *s = l->state;
    const float one = 1.0f, zero = 0.0f, *scale;
    scale_shift(l, &scale, NULL);
    float *dscale = pr->affine ? l->dw : s + DSCALE * p->c;
    float *dshift = pr->affine ? l->dw + p->c : s + DBIAS * p->c;
    float *dx = l->din[0].data ? l->din[0].data : l->work;
    /* data: dx += (beta 1, as kernels.h asks); parameters: overwritten (beta 0) */
    GPU_CUDNN(err, cudnnBatchNormalizationBackward, gpu_cudnn(l), CUDNN_BATCHNORM_SPATIAL, &one,
              &one, &one, &zero, p->x, l->in[0].data, p->x, l->dout->data, p->x, dx, p->param,
              scale, dscale, dshift, BN_EPS, s + SAVED_MEAN * p->c, s + SAVED_INVSTD * p->c);
    return 0;
}

static const struct sm_gpu_kernels batchnorm2d_gpu_kernels = {
    SM_GPU_KERNELS_INIT,     .state_size = bn_state_size, .init = bn_init,
    .setup = bn_setup,       .work_size = bn_work_size,   .forward = bn_forward,
    .backward = bn_backward, .release = bn_release,
};

SM_DEFINE_GPU_KERNELS(batchnorm2d_gpu_kernels)
