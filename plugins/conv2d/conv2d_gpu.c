/*
 * GPU kernels of conv2d (kernels.h, struct sm_gpu_kernels): cuDNN's convolution, forward,
 * backward data and backward filter, with the bias added by cudnnAddTensor and its gradient by
 * cudnnConvolutionBackwardBias. Groups are cuDNN's group count; weights are cuDNN's NCHW filter
 * layout (out x C/groups x kh x kw), which is PyTorch's.
 *
 * Setup chooses one algorithm per direction, as PyTorch does (aten/src/ATen/native/cudnn/
 * Conv_v7.cpp): by measurement (cudnnFind*AlgorithmEx on the layer's real buffers, within the
 * search workspace; torch.backends.cudnn.benchmark = True) or by cuDNN's heuristics
 * (cudnnGet*Algorithm_v7), the first result that succeeded and fits the workspace. Precision
 * (gpu_precision.h's table): fp32 sets CUDNN_FMA_MATH and rejects tensor-op results, tf32 sets
 * CUDNN_DEFAULT_MATH (TF32 permitted on Ampere and later); the chosen result's own math type is
 * then set on the direction's descriptor, as PyTorch does.
 */
#include <math.h>

#include "conv2d.h"
#include "gpu_precision.h"
#include "gpu_util.h"

enum { FWD, BWD_DATA, BWD_FILTER, N_DIR };

typedef struct conv_plan {
    cudnnTensorDescriptor_t x, y, bias;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv[N_DIR]; /* one per direction: each its own math type */
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwd_data;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter;
    size_t work[N_DIR];
    int has_bias, has_dx;
} conv_plan;

static void conv_release(void *plan)
{
    conv_plan *p = plan;
    if (!p)
        return;
    gpu_tensor_desc_free(p->x);
    gpu_tensor_desc_free(p->y);
    gpu_tensor_desc_free(p->bias);
    if (p->w)
        cudnnDestroyFilterDescriptor(p->w);
    for (int d = 0; d < N_DIR; d++)
        if (p->conv[d])
            cudnnDestroyConvolutionDescriptor(p->conv[d]);
    free(p);
}

/* U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias, as conv2d_cpu.c (PyTorch's default). */
static void conv_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    const conv2d_params *p = l->params;
    int64_t fan_in = l->in[0].shape.dim[0] / p->groups * p->kernel[0] * p->kernel[1];
    float bound = 1.0f / sqrtf((float)fan_in);
    for (int64_t i = 0; i < l->n_w; i++)
        w[i] *= bound;
}

static int descriptors(const sm_layer_io *l, conv_plan *pl, sm_error *err)
{
    const conv2d_params *p = l->params;
    const sm_shape *in = &l->in[0].shape, *out = &l->out->shape;
    int64_t n = l->in[0].n, cg = in->dim[0] / p->groups;
    if (gpu_tensor_desc(&pl->x, n, in->dim[0], in->dim[1], in->dim[2], err) ||
        gpu_tensor_desc(&pl->y, n, out->dim[0], out->dim[1], out->dim[2], err))
        return -1;
    if (!gpu_int_ok(p->out, cg, p->kernel[0], p->kernel[1]) || p->groups > INT_MAX) {
        sm_error_set(err, "the filter exceeds what cuDNN addresses");
        return -1;
    }
    GPU_CUDNN(err, cudnnCreateFilterDescriptor, &pl->w);
    GPU_CUDNN(err, cudnnSetFilter4dDescriptor, pl->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
              (int)p->out, (int)cg, (int)p->kernel[0], (int)p->kernel[1]);
    cudnnMathType_t math = gpu_precision(l)->cudnn_math;
    for (int d = 0; d < N_DIR; d++) {
        GPU_CUDNN(err, cudnnCreateConvolutionDescriptor, &pl->conv[d]);
        GPU_CUDNN(err, cudnnSetConvolution2dDescriptor, pl->conv[d], (int)p->padding[0],
                  (int)p->padding[1], (int)p->stride[0], (int)p->stride[1], (int)p->dilation[0],
                  (int)p->dilation[1], CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        GPU_CUDNN(err, cudnnSetConvolutionGroupCount, pl->conv[d], (int)p->groups);
        GPU_CUDNN(err, cudnnSetConvolutionMathType, pl->conv[d], math);
    }
    /* cuDNN's output size must be the one the plugin inferred */
    int dims[4];
    GPU_CUDNN(err, cudnnGetConvolution2dForwardOutputDim, pl->conv[FWD], pl->x, pl->w, &dims[0],
              &dims[1], &dims[2], &dims[3]);
    if (dims[0] != n || dims[1] != out->dim[0] || dims[2] != out->dim[1] ||
        dims[3] != out->dim[2]) {
        sm_error_set(err, "cuDNN computes a %dx%dx%d output where conv2d inferred %lldx%lldx%lld",
                     dims[1], dims[2], dims[3], (long long)out->dim[0], (long long)out->dim[1],
                     (long long)out->dim[2]);
        return -1;
    }
    if (p->bias && gpu_tensor_desc(&pl->bias, 1, p->out, 1, 1, err))
        return -1;
    pl->has_bias = p->bias;
    pl->has_dx = l->din[0].data != NULL;
    return 0;
}

/* Whether an algorithm result may be taken: it ran, it fits, and where the precision forbids
 * tensor ops (fp32) it is no tensor-op algorithm (Conv_v7.cpp's filter for allow_tf32 = False). */
static int usable(cudnnStatus_t status, size_t memory, cudnnMathType_t math, const sm_layer_io *l)
{
    return status == CUDNN_STATUS_SUCCESS && memory <= l->work_bytes &&
           (gpu_precision(l)->cudnn_tensor_ops || math != CUDNN_TENSOR_OP_MATH);
}

#define MAX_ALGOS 16

static int choose_forward(const sm_layer_io *l, conv_plan *pl, sm_error *err)
{
    cudnnConvolutionFwdAlgoPerf_t r[MAX_ALGOS];
    int got = 0;
    if (l->gpu->algo_search == SM_GPU_ALGO_MEASURE)
        GPU_CUDNN(err, cudnnFindConvolutionForwardAlgorithmEx, gpu_cudnn(l), pl->x, l->in[0].data,
                  pl->w, l->w, pl->conv[FWD], pl->y, l->out->data, MAX_ALGOS, &got, r, l->work,
                  l->work_bytes);
    else
        GPU_CUDNN(err, cudnnGetConvolutionForwardAlgorithm_v7, gpu_cudnn(l), pl->x, pl->w,
                  pl->conv[FWD], pl->y, MAX_ALGOS, &got, r);
    for (int i = 0; i < got; i++)
        if (usable(r[i].status, r[i].memory, r[i].mathType, l)) {
            pl->fwd = r[i].algo;
            pl->work[FWD] = r[i].memory;
            GPU_CUDNN(err, cudnnSetConvolutionMathType, pl->conv[FWD], r[i].mathType);
            return 0;
        }
    sm_error_set(err, "no cuDNN forward algorithm runs within %zu bytes of workspace (%d tried)",
                 l->work_bytes, got);
    return -1;
}

static int choose_backward_data(const sm_layer_io *l, conv_plan *pl, sm_error *err)
{
    cudnnConvolutionBwdDataAlgoPerf_t r[MAX_ALGOS];
    int got = 0;
    if (l->gpu->algo_search == SM_GPU_ALGO_MEASURE)
        GPU_CUDNN(err, cudnnFindConvolutionBackwardDataAlgorithmEx, gpu_cudnn(l), pl->w, l->w,
                  pl->y, l->dout->data, pl->conv[BWD_DATA], pl->x, l->din[0].data, MAX_ALGOS, &got,
                  r, l->work, l->work_bytes);
    else
        GPU_CUDNN(err, cudnnGetConvolutionBackwardDataAlgorithm_v7, gpu_cudnn(l), pl->w, pl->y,
                  pl->conv[BWD_DATA], pl->x, MAX_ALGOS, &got, r);
    for (int i = 0; i < got; i++)
        if (usable(r[i].status, r[i].memory, r[i].mathType, l)) {
            pl->bwd_data = r[i].algo;
            pl->work[BWD_DATA] = r[i].memory;
            GPU_CUDNN(err, cudnnSetConvolutionMathType, pl->conv[BWD_DATA], r[i].mathType);
            return 0;
        }
    sm_error_set(err,
                 "no cuDNN backward-data algorithm runs within %zu bytes of workspace (%d tried)",
                 l->work_bytes, got);
    return -1;
}

static int choose_backward_filter(const sm_layer_io *l, conv_plan *pl, sm_error *err)
{
    cudnnConvolutionBwdFilterAlgoPerf_t r[MAX_ALGOS];
    int got = 0;
    if (l->gpu->algo_search == SM_GPU_ALGO_MEASURE)
        GPU_CUDNN(err, cudnnFindConvolutionBackwardFilterAlgorithmEx, gpu_cudnn(l), pl->x,
                  l->in[0].data, pl->y, l->dout->data, pl->conv[BWD_FILTER], pl->w, l->dw,
                  MAX_ALGOS, &got, r, l->work, l->work_bytes);
    else
        GPU_CUDNN(err, cudnnGetConvolutionBackwardFilterAlgorithm_v7, gpu_cudnn(l), pl->x, pl->y,
                  pl->conv[BWD_FILTER], pl->w, MAX_ALGOS, &got, r);
    for (int i = 0; i < got; i++)
        if (usable(r[i].status, r[i].memory, r[i].mathType, l)) {
            pl->bwd_filter = r[i].algo;
            pl->work[BWD_FILTER] = r[i].memory;
            GPU_CUDNN(err, cudnnSetConvolutionMathType, pl->conv[BWD_FILTER], r[i].mathType);
            return 0;
        }
    sm_error_set(err,
                 "no cuDNN backward-filter algorithm runs within %zu bytes of workspace (%d "
                 "tried)",
                 l->work_bytes, got);
    return -1;
}

static int conv_setup(const sm_layer_io *l, void **plan, sm_error *err)
{
    if (gpu_check_precision(l, "conv2d", err))
        return -1;
    conv_plan *pl = calloc(1, sizeof *pl);
    if (!pl) {
        sm_error_set(err, "out of host memory");
        return -1;
    }
    *plan = pl; /* released by the host, also after a failure here */
    if (descriptors(l, pl, err) || choose_forward(l, pl, err) ||
        choose_backward_filter(l, pl, err) || (pl->has_dx && choose_backward_data(l, pl, err)))
        return -1;
    return 0;
}

static size_t conv_work_size(const sm_layer_io *l)
{
    const conv_plan *pl = l->plan;
    size_t most = 0;
    for (int d = 0; d < N_DIR; d++)
        most = pl->work[d] > most ? pl->work[d] : most;
    return most;
}

static int conv_forward(const sm_layer_io *l, sm_error *err)
{
    const conv_plan *pl = l->plan;
    const float one = 1.0f, zero = 0.0f;
    GPU_CUDNN(err, cudnnConvolutionForward, gpu_cudnn(l), &one, pl->x, l->in[0].data, pl->w, l->w,
              pl->conv[FWD], pl->fwd, l->work, l->work_bytes, &zero, pl->y, l->out->data);
    if (pl->has_bias) {
        const conv2d_params *p = l->params;
        const float *b = l->w + (l->n_w - p->out);
        GPU_CUDNN(err, cudnnAddTensor, gpu_cudnn(l), &one, pl->bias, b, &one, pl->y, l->out->data);
    }
    return 0;
}

static int conv_backward(const sm_layer_io *l, sm_error *err)
{
    const conv_plan *pl = l->plan;
    const conv2d_params *p = l->params;
    const float one = 1.0f, zero = 0.0f;
    GPU_CUDNN(err, cudnnConvolutionBackwardFilter, gpu_cudnn(l), &one, pl->x, l->in[0].data, pl->y,
              l->dout->data, pl->conv[BWD_FILTER], pl->bwd_filter, l->work, l->work_bytes, &zero,
              pl->w, l->dw);
    if (pl->has_bias)
        GPU_CUDNN(err, cudnnConvolutionBackwardBias, gpu_cudnn(l), &one, pl->y, l->dout->data,
                  &zero, pl->bias, l->dw + (l->n_w - p->out));
    /* beta 1: din += the input gradient, as kernels.h asks */
    if (pl->has_dx && l->din[0].data)
        GPU_CUDNN(err, cudnnConvolutionBackwardData, gpu_cudnn(l), &one, pl->w, l->w, pl->y,
                  l->dout->data, pl->conv[BWD_DATA], pl->bwd_data, l->work, l->work_bytes, &one,
                  pl->x, l->din[0].data);
    return 0;
}

static const struct sm_gpu_kernels conv2d_gpu_kernels = {
    SM_GPU_KERNELS_INIT,         .init = conv_init,       .setup = conv_setup,
    .work_size = conv_work_size, .forward = conv_forward, .backward = conv_backward,
    .release = conv_release,
};

SM_DEFINE_GPU_KERNELS(conv2d_gpu_kernels)
