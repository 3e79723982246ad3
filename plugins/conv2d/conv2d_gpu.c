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
 *
 * At fp16 and bf16 the convolutions run as autocast runs them: on half-type copies of the
 * input, the weights and the output gradient (cast here, into the front of the work buffer;
 * fp32 accumulation, cuDNN's PSEUDO_HALF and PSEUDO_BFLOAT16 configurations), their results
 * cast back to the fp32 tensors; the bias and its gradient stay fp32. The algorithm search runs
 * on copies of its own, so the copies take nothing from the search workspace.
 */
#include <math.h>

#include "conv2d.h"
#include "gpu_ops.h"
#include "gpu_precision.h"
#include "gpu_util.h"

enum { FWD, BWD_DATA, BWD_FILTER, N_DIR };

typedef struct conv_plan {
    cudnnTensorDescriptor_t x, y, bias;       /* fp32: the layer's tensors */
    cudnnTensorDescriptor_t hx, hy;           /* the half-type copies' (NULL at fp32 and tf32) */
    cudnnFilterDescriptor_t w;                /* in the convolution's element type */
    cudnnConvolutionDescriptor_t conv[N_DIR]; /* one per direction: each its own math type */
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwd_data;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter;
    size_t work[N_DIR];
    int has_bias, has_dx;
    int half, bf16;     /* operands cast to a half type, and which */
    int64_t nx, ny, nf; /* elements of input, output and filter (the weights less the bias) */
    size_t at_y, at_w, at_dw, cast; /* the copies' offsets in work (x at 0), and their end */
} conv_plan;

/* The descriptors and buffers the convolution itself reads and writes: the fp32 ones, or the
 * half-type copies in front of the work buffer. */
#define CONV_X(pl) ((pl)->half ? (pl)->hx : (pl)->x)
#define CONV_Y(pl) ((pl)->half ? (pl)->hy : (pl)->y)

static void conv_release(void *plan)
{
    conv_plan *p = plan;
    if (!p)
        return;
    gpu_tensor_desc_free(p->x);
    gpu_tensor_desc_free(p->y);
    gpu_tensor_desc_free(p->bias);
    gpu_tensor_desc_free(p->hx);
    gpu_tensor_desc_free(p->hy);
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
    cudnnDataType_t type = gpu_precision(l)->conv_data;
    pl->half = type != CUDNN_DATA_FLOAT;
    pl->bf16 = type == CUDNN_DATA_BFLOAT16;
    if (pl->half) {
        GPU_CUDNN(err, cudnnCreateTensorDescriptor, &pl->hx);
        GPU_CUDNN(err, cudnnSetTensor4dDescriptor, pl->hx, CUDNN_TENSOR_NCHW, type, (int)n,
                  (int)in->dim[0], (int)in->dim[1], (int)in->dim[2]);
        GPU_CUDNN(err, cudnnCreateTensorDescriptor, &pl->hy);
        GPU_CUDNN(err, cudnnSetTensor4dDescriptor, pl->hy, CUDNN_TENSOR_NCHW, type, (int)n,
                  (int)out->dim[0], (int)out->dim[1], (int)out->dim[2]);
    }
    GPU_CUDNN(err, cudnnCreateFilterDescriptor, &pl->w);
    GPU_CUDNN(err, cudnnSetFilter4dDescriptor, pl->w, type, CUDNN_TENSOR_NCHW, (int)p->out, (int)cg,
              (int)p->kernel[0], (int)p->kernel[1]);
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
    GPU_CUDNN(err, cudnnGetConvolution2dForwardOutputDim, pl->conv[FWD], CONV_X(pl), pl->w,
              &dims[0], &dims[1], &dims[2], &dims[3]);
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
    pl->nx = n * sm_shape_elems(in);
    pl->ny = n * sm_shape_elems(out);
    pl->nf = p->out * cg * p->kernel[0] * p->kernel[1];
    if (pl->half) { /* x, y, w and dw copies, 2 bytes an element, each 256-byte aligned */
        size_t at = 0, sizes[4] = {(size_t)pl->nx, (size_t)pl->ny, (size_t)pl->nf, (size_t)pl->nf};
        size_t *ends[4] = {&pl->at_y, &pl->at_w, &pl->at_dw, &pl->cast};
        for (int i = 0; i < 4; i++)
            *ends[i] = at = (at + sizes[i] * 2 + 255) / 256 * 256;
    }
    return 0;
}

/* The copies of a half-precision plan inside a buffer laid out as descriptors() says. */
typedef struct conv_copies {
    void *x, *y, *w, *dw;
} conv_copies;

static conv_copies copies_in(const conv_plan *pl, void *buffer)
{
    char *b = buffer;
    return (conv_copies){b, b + pl->at_y, b + pl->at_w, b + pl->at_dw};
}

/* Whether an algorithm result may be taken: it ran, it fits, and where the precision forbids
 * tensor ops (fp32) it is no tensor-op algorithm (Conv_v7.cpp's filter for allow_tf32 = False). */
static int usable(cudnnStatus_t status, size_t memory, cudnnMathType_t math, const sm_layer_io *l)
{
    return status == CUDNN_STATUS_SUCCESS && memory <= l->work_bytes &&
           (gpu_precision(l)->cudnn_tensor_ops || math != CUDNN_TENSOR_OP_MATH);
}

#define MAX_ALGOS 16

/* The buffers a search times the algorithms on: the layer's own, or at fp16 and bf16 the
 * search's copies (c), cast from the layer's input and weights. */
typedef struct conv_search {
    int measure; /* time the algorithms (cudnnFind*Ex), else cuDNN's heuristics */
    const void *x, *w, *dy;
    void *y, *dw, *dx;
} conv_search;

static int choose_forward(const sm_layer_io *l, conv_plan *pl, const conv_search *b, sm_error *err)
{
    cudnnConvolutionFwdAlgoPerf_t r[MAX_ALGOS];
    int got = 0;
    if (b->measure)
        GPU_CUDNN(err, cudnnFindConvolutionForwardAlgorithmEx, gpu_cudnn(l), CONV_X(pl), b->x,
                  pl->w, b->w, pl->conv[FWD], CONV_Y(pl), b->y, MAX_ALGOS, &got, r, l->work,
                  l->work_bytes);
    else
        GPU_CUDNN(err, cudnnGetConvolutionForwardAlgorithm_v7, gpu_cudnn(l), CONV_X(pl), pl->w,
                  pl->conv[FWD], CONV_Y(pl), MAX_ALGOS, &got, r);
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

static int choose_backward_data(const sm_layer_io *l, conv_plan *pl, const conv_search *b,
                                sm_error *err)
{
    cudnnConvolutionBwdDataAlgoPerf_t r[MAX_ALGOS];
    int got = 0;
    if (b->measure)
        GPU_CUDNN(err, cudnnFindConvolutionBackwardDataAlgorithmEx, gpu_cudnn(l), pl->w, b->w,
                  CONV_Y(pl), b->dy, pl->conv[BWD_DATA], CONV_X(pl), b->dx, MAX_ALGOS, &got, r,
                  l->work, l->work_bytes);
    else
        GPU_CUDNN(err, cudnnGetConvolutionBackwardDataAlgorithm_v7, gpu_cudnn(l), pl->w, CONV_Y(pl),
                  pl->conv[BWD_DATA], CONV_X(pl), MAX_ALGOS, &got, r);
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

static int choose_backward_filter(const sm_layer_io *l, conv_plan *pl, const conv_search *b,
                                  sm_error *err)
{
    cudnnConvolutionBwdFilterAlgoPerf_t r[MAX_ALGOS];
    int got = 0;
    if (b->measure)
        GPU_CUDNN(err, cudnnFindConvolutionBackwardFilterAlgorithmEx, gpu_cudnn(l), CONV_X(pl),
                  b->x, CONV_Y(pl), b->dy, pl->conv[BWD_FILTER], pl->w, b->dw, MAX_ALGOS, &got, r,
                  l->work, l->work_bytes);
    else
        GPU_CUDNN(err, cudnnGetConvolutionBackwardFilterAlgorithm_v7, gpu_cudnn(l), CONV_X(pl),
                  CONV_Y(pl), pl->conv[BWD_FILTER], pl->w, MAX_ALGOS, &got, r);
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
    if (descriptors(l, pl, err))
        return -1;
    int measure = l->gpu->algo_search == SM_GPU_ALGO_MEASURE;
    conv_search b = {measure,      l->in[0].data, l->w,          l->dout->data,
                     l->out->data, l->dw,         l->din[0].data};
    void *copies = NULL;
    if (pl->half && measure && cudaMalloc(&copies, pl->cast) != cudaSuccess) {
        /* no room for the search's copies beside the search workspace: heuristics, which
         * need no buffers (the passes' copies live in the work buffer, sized after setup) */
        cudaGetLastError();
        copies = NULL;
        b.measure = 0;
    }
    if (copies) {
        /* the search's own copies: the layer's input and weights cast, as the passes will */
        conv_copies c = copies_in(pl, copies);
        b = (conv_search){1, c.x, c.w, c.y, c.y, c.dw, c.x};
        if (smk_to_half(c.x, l->in[0].data, pl->nx, pl->bf16, gpu_stream(l)) != cudaSuccess ||
            smk_to_half(c.w, l->w, pl->nf, pl->bf16, gpu_stream(l)) != cudaSuccess ||
            smk_to_half(c.y, l->out->data, pl->ny, pl->bf16, gpu_stream(l)) != cudaSuccess) {
            sm_error_set(err, "smk_to_half: %s", cudaGetErrorString(cudaGetLastError()));
            cudaFree(copies);
            return -1;
        }
    }
    int rc = choose_forward(l, pl, &b, err) || choose_backward_filter(l, pl, &b, err) ||
                     (pl->has_dx && choose_backward_data(l, pl, &b, err))
                 ? -1
                 : 0;
    if (copies) { /* the searches ran on the stream: they are done before the memory goes */
        cudaStreamSynchronize(gpu_stream(l));
        cudaFree(copies);
    }
    return rc;
}

static size_t conv_work_size(const sm_layer_io *l)
{
    const conv_plan *pl = l->plan;
    size_t most = 0;
    for (int d = 0; d < N_DIR; d++)
        most = pl->work[d] > most ? pl->work[d] : most;
    return pl->cast + most; /* the half-type copies first, then cuDNN's workspace */
}

/* cuDNN's workspace: the work buffer past the half-type copies. */
static void *algo_work(const sm_layer_io *l, const conv_plan *pl)
{
    return (char *)l->work + pl->cast;
}

static int conv_forward(const sm_layer_io *l, sm_error *err)
{
    const conv_plan *pl = l->plan;
    const float one = 1.0f, zero = 0.0f;
    size_t ws = l->work_bytes - pl->cast;
    if (pl->half) {
        conv_copies c = copies_in(pl, l->work);
        GPU_CUDA(err, smk_to_half, c.x, l->in[0].data, pl->nx, pl->bf16, gpu_stream(l));
        GPU_CUDA(err, smk_to_half, c.w, l->w, pl->nf, pl->bf16, gpu_stream(l));
        GPU_CUDNN(err, cudnnConvolutionForward, gpu_cudnn(l), &one, pl->hx, c.x, pl->w, c.w,
                  pl->conv[FWD], pl->fwd, algo_work(l, pl), ws, &zero, pl->hy, c.y);
        GPU_CUDA(err, smk_from_half, l->out->data, c.y, pl->ny, pl->bf16, 0, gpu_stream(l));
    } else
        GPU_CUDNN(err, cudnnConvolutionForward, gpu_cudnn(l), &one, pl->x, l->in[0].data, pl->w,
                  l->w, pl->conv[FWD], pl->fwd, l->work, l->work_bytes, &zero, pl->y, l->out->data);
    if (pl->has_bias) /* the bias follows the filter's weights */
        GPU_CUDNN(err, cudnnAddTensor, gpu_cudnn(l), &one, pl->bias, l->w + pl->nf, &one, pl->y,
                  l->out->data);
    return 0;
}

/* The backward pass on half-type copies: dw from copies of x and dout, then din += the data
 * gradient from copies of w and dout (its copy overwrites x's, no longer needed). */
static int conv_backward_half(const sm_layer_io *l, const conv_plan *pl, sm_error *err)
{
    const float one = 1.0f, zero = 0.0f;
    size_t ws = l->work_bytes - pl->cast;
    conv_copies c = copies_in(pl, l->work);
    GPU_CUDA(err, smk_to_half, c.y, l->dout->data, pl->ny, pl->bf16, gpu_stream(l));
    GPU_CUDA(err, smk_to_half, c.x, l->in[0].data, pl->nx, pl->bf16, gpu_stream(l));
    GPU_CUDNN(err, cudnnConvolutionBackwardFilter, gpu_cudnn(l), &one, pl->hx, c.x, pl->hy, c.y,
              pl->conv[BWD_FILTER], pl->bwd_filter, algo_work(l, pl), ws, &zero, pl->w, c.dw);
    GPU_CUDA(err, smk_from_half, l->dw, c.dw, pl->nf, pl->bf16, 0, gpu_stream(l));
    if (pl->has_dx && l->din[0].data) {
        GPU_CUDA(err, smk_to_half, c.w, l->w, pl->nf, pl->bf16, gpu_stream(l));
        GPU_CUDNN(err, cudnnConvolutionBackwardData, gpu_cudnn(l), &one, pl->w, c.w, pl->hy, c.y,
                  pl->conv[BWD_DATA], pl->bwd_data, algo_work(l, pl), ws, &zero, pl->hx, c.x);
        GPU_CUDA(err, smk_from_half, l->din[0].data, c.x, pl->nx, pl->bf16, 1, gpu_stream(l));
    }
    return 0;
}

static int conv_backward(const sm_layer_io *l, sm_error *err)
{
    const conv_plan *pl = l->plan;
    const float one = 1.0f, zero = 0.0f;
    /* the bias's gradient from the fp32 output gradient, at every precision */
    if (pl->has_bias)
        GPU_CUDNN(err, cudnnConvolutionBackwardBias, gpu_cudnn(l), &one, pl->y, l->dout->data,
                  &zero, pl->bias, l->dw + pl->nf);
    if (pl->half)
        return conv_backward_half(l, pl, err);
    GPU_CUDNN(err, cudnnConvolutionBackwardFilter, gpu_cudnn(l), &one, pl->x, l->in[0].data, pl->y,
              l->dout->data, pl->conv[BWD_FILTER], pl->bwd_filter, l->work, l->work_bytes, &zero,
              pl->w, l->dw);
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
