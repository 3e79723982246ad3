/*
 * The GPU executor (executor_cuda.h): owns every device buffer of a network at one batch size
 * and calls the layers' GPU kernels in order, over the plan it shares with the CPU executor
 * (exec_plan.h: shapes, wiring, initial values). What a
 * layer computes lives in its plugin's GPU module (NAME_gpu.so, which the registry loads when
 * asked: sm_registry_gpu_kernels); this file only wires tensors, initialises, and runs the
 * loss and the optimiser (executor_cuda_kernels.cu).
 *
 * Memory: one cudaMalloc for every tensor, gradient, weight, state and label (an arena carved
 * at 256-byte boundaries), so a batch either fits or is refused at once; then a search
 * workspace the kernels' setup may time algorithms with, freed and replaced by the largest
 * scratch the chosen algorithms need.
 *
 * At fp16 the loss is scaled as torch.amp.GradScaler scales it (its defaults: 65536 to start,
 * halved after a step whose gradients overflowed, which is skipped, doubled after 2000 clean
 * steps), all on the device, so a step never waits for it.
 */
#include "executor_cuda.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "exec_plan.h"
#include "executor_cuda_kernels.h"

#define ALIGN 256
#define DEFAULT_SEARCH_BYTES ((int64_t)1 << 30)
#define DEFAULT_LOSS_SCALE 65536.0f /* GradScaler's init_scale */
#define LOSS_SCALE_INTERVAL 2000    /* GradScaler's growth_interval */

/* What the GPU adds to a planned layer: its kernels, its state's size, arena offsets. */
typedef struct gpu_layer {
    const struct sm_gpu_kernels *k;
    size_t state_bytes;
    size_t out_at, dout_at, state_at; /* offsets in the arena */
} gpu_layer;

struct sm_cuda_executor {
    sm_cuda_executor_options opt;
    sm_plan p;
    gpu_layer *layers;
    size_t input_at, input_grad_at, weights_at, grads_at, labels_at, row_loss_at, loss_at;
    size_t scaler_at;
    size_t bytes;
    char *arena;
    float *weights, *grads, *row_loss;
    int32_t *labels;
    double *loss;
    smx_scaler *scaler; /* fp16's loss scale; NULL at the other precisions */
    void *work;
    size_t work_bytes, search_bytes;
    cudaStream_t stream;
    cudnnHandle_t cudnn;
    cublasHandle_t cublas;
    sm_gpu_context ctx; /* what every layer's call points to: the handles above, precision */
    uint64_t step_seed;
    int kernels_named; /* 1: sm_plugin_kernels_named(1) was called, for sm_cuda_executor_free */
};

/* Says that layer i's setup code (state_size, init, setup, work_size) runs, where bench names
 * a plugin's faults (options' name_faults); set_back puts back what ran before. */
static const char *setup_named(const sm_cuda_executor *ex, int i)
{
    return ex->p.name_only ? sm_plugin_kernel_name(ex->p.layers[i].setup_what) : NULL;
}

static void set_back(const sm_cuda_executor *ex, const char *before)
{
    if (ex->p.name_only)
        sm_plugin_kernel_name(before);
}

/* ---- precision names ------------------------------------------------------------------------ */

static const char *const precision_names[] = {"fp32", "tf32", "fp16", "bf16"};

const char *sm_gpu_precision_name(int precision)
{
    return precision >= 0 && precision < 4 ? precision_names[precision] : "unknown";
}

int sm_gpu_precision_parse(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, precision_names[i]))
            return i;
    return -1;
}

int sm_gpu_precision_check(int precision, sm_status *st)
{
    if (precision >= SM_GPU_FP32 && precision <= SM_GPU_BF16)
        return 0;
    return sm_fail(st, "precision %d is not one of the GPU backend's (fp32, tf32, fp16, bf16)",
                   precision);
}

/* ---- checks and planning ---------------------------------------------------------------- */

/* Whether kernels k (of a plugin maybe built against an older plugin.h) has a field set. */
#define HAS(k, field)                                                                              \
    ((k)->struct_size >= offsetof(struct sm_gpu_kernels, field) + sizeof(k)->field && (k)->field)

/* The GPU kernels of a layer's type, from its companion module (loaded on first use); NULL
 * when it has none usable, or when the module failed to load (st says why, naming it). */
static const struct sm_gpu_kernels *kernels_of(const sm_network *net, const sm_layer *l,
                                               sm_status *st)
{
    const struct sm_gpu_kernels *k = NULL;
    st->msg[0] = '\0';
    if (!net->registry) {
        sm_fail(st, "%s: the network was not loaded from a plugin registry", net->path);
        return NULL;
    }
    if (sm_registry_gpu_kernels(net->registry, l->type, &k, st) || !k)
        return NULL;
    return HAS(k, forward) && HAS(k, backward) ? k : NULL;
}

int sm_cuda_executor_check(const sm_network *net, sm_status *st)
{
    /* a last loss (SM_TRAIT_LOSS) is the executor's own (sm_cuda_executor_loss): no kernels */
    int n = sm_plan_layers(net, st);
    for (int i = 0; i < n; i++) {
        const sm_layer *l = &net->layers[i];
        sm_status why;
        if (kernels_of(net, l, &why))
            continue;
        if (why.msg[0])
            return sm_fail(st, "%s:%d: layer '%s' of type '%s': %s", net->path, l->line, l->name,
                           l->type->name, why.msg);
        return sm_fail(st,
                       "%s:%d: layer '%s' of type '%s' has no GPU kernel, so %s cannot run "
                       "on the cuda backend",
                       net->path, l->line, l->name, l->type->name, net->name);
    }
    return n < 0 ? -1 : 0;
}

/* Reserves bytes in the arena at an aligned offset; SIZE_MAX once anything overflowed. */
static size_t take(size_t *used, int64_t bytes)
{
    if (*used == SIZE_MAX || bytes < 0 || (uint64_t)bytes > SIZE_MAX / 2 - *used)
        return *used = SIZE_MAX;
    size_t at = *used;
    *used = (at + (size_t)bytes + ALIGN - 1) / ALIGN * ALIGN;
    return at;
}

/* Arena offsets of everything the shared plan sized, and the kernels' state; the arena's
 * size, or SIZE_MAX. */
static size_t plan(sm_cuda_executor *ex)
{
    sm_plan *p = &ex->p;
    size_t used = 0;
    ex->input_at = take(&used, sm_plan_tensor_bytes(&p->input));
    ex->input_grad_at = ex->opt.input_grad ? take(&used, sm_plan_tensor_bytes(&p->input)) : 0;
    for (int i = 0; i < p->n; i++) {
        gpu_layer *g = &ex->layers[i];
        sm_plan_layer *e = &p->layers[i];
        sm_status ignored; /* checked before planning: found, cached by the registry */
        g->k = kernels_of(p->net, &p->net->layers[i], &ignored);
        e->forward = g->k->forward;
        e->backward = g->k->backward;
        e->call.gpu = &ex->ctx;
        const char *before = setup_named(ex, i);
        g->state_bytes = HAS(g->k, state_size) ? g->k->state_size(&e->call) : 0;
        set_back(ex, before);
        if (g->state_bytes > INT64_MAX / 4)
            return SIZE_MAX;
        g->out_at = take(&used, sm_plan_tensor_bytes(&e->out));
        g->dout_at = take(&used, sm_plan_tensor_bytes(&e->out));
        g->state_at = take(&used, (int64_t)g->state_bytes);
    }
    ex->weights_at = take(&used, sm_mul(p->n_weights, 4));
    ex->grads_at = take(&used, sm_mul(p->n_weights, 4));
    ex->labels_at = take(&used, sm_mul(p->rows, 4));
    ex->row_loss_at = take(&used, sm_mul(p->rows, 4));
    ex->loss_at = take(&used, 8);
    ex->scaler_at = take(&used, sizeof(smx_scaler));
    return used;
}

/* ---- device setup ----------------------------------------------------------------------- */

static int cuda_failed(sm_status *st, const char *call, cudaError_t e)
{
    cudaGetLastError(); /* clear it, when it is not sticky */
    return sm_fail(st, "%s: %s", call, cudaGetErrorString(e));
}

#define CUDA_TRY(st, fn, ...)                                                                      \
    do {                                                                                           \
        cudaError_t e_ = fn(__VA_ARGS__);                                                          \
        if (e_ != cudaSuccess)                                                                     \
            return cuda_failed(st, #fn, e_);                                                       \
    } while (0)

static int handles(sm_cuda_executor *ex, sm_status *st)
{
    CUDA_TRY(st, cudaSetDevice, ex->opt.device);
    /* the products' half-type copies (fp16, bf16) come from the device's stream-ordered pool:
     * keep what it holds between steps rather than return it at every synchronisation, as
     * PyTorch's caching allocator keeps autocast's copies */
    if (ex->opt.precision == SM_GPU_FP16 || ex->opt.precision == SM_GPU_BF16) {
        cudaMemPool_t pool;
        uint64_t keep = UINT64_MAX;
        CUDA_TRY(st, cudaDeviceGetDefaultMemPool, &pool, ex->opt.device);
        CUDA_TRY(st, cudaMemPoolSetAttribute, pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    CUDA_TRY(st, cudaStreamCreateWithFlags, &ex->stream, cudaStreamNonBlocking);
    cudnnStatus_t s = cudnnCreate(&ex->cudnn);
    if (s != CUDNN_STATUS_SUCCESS)
        return sm_fail(st, "cudnnCreate: %s", cudnnGetErrorString(s));
    if ((s = cudnnSetStream(ex->cudnn, ex->stream)) != CUDNN_STATUS_SUCCESS)
        return sm_fail(st, "cudnnSetStream: %s", cudnnGetErrorString(s));
    cublasStatus_t b = cublasCreate(&ex->cublas);
    if (b != CUBLAS_STATUS_SUCCESS)
        return sm_fail(st, "cublasCreate: %s", cublasGetStatusString(b));
    if ((b = cublasSetStream(ex->cublas, ex->stream)) != CUBLAS_STATUS_SUCCESS)
        return sm_fail(st, "cublasSetStream: %s", cublasGetStatusString(b));
    return 0;
}

/* Points every layer at its buffers in the arena. */
static void wire(sm_cuda_executor *ex)
{
    sm_plan *p = &ex->p;
    p->input.data = (float *)(ex->arena + ex->input_at);
    p->input_grad.data = ex->opt.input_grad ? (float *)(ex->arena + ex->input_grad_at) : NULL;
    ex->weights = (float *)(ex->arena + ex->weights_at);
    ex->grads = (float *)(ex->arena + ex->grads_at);
    ex->labels = (int32_t *)(ex->arena + ex->labels_at);
    ex->row_loss = (float *)(ex->arena + ex->row_loss_at);
    ex->loss = (double *)(ex->arena + ex->loss_at);
    ex->scaler =
        ex->opt.precision == SM_GPU_FP16 ? (smx_scaler *)(ex->arena + ex->scaler_at) : NULL;
    for (int i = 0; i < p->n; i++) {
        gpu_layer *g = &ex->layers[i];
        p->layers[i].out.data = (float *)(ex->arena + g->out_at);
        p->layers[i].dout.data = (float *)(ex->arena + g->dout_at);
        p->layers[i].call.state = g->state_bytes ? ex->arena + g->state_at : NULL;
    }
    sm_plan_wire(p, ex->weights, ex->grads);
    ex->ctx.stream = ex->stream;
    ex->ctx.cudnn = ex->cudnn;
    ex->ctx.cublas = ex->cublas;
}

/* Weights, state, input and labels from the plan's generator (as the CPU executor's), each
 * layer's init on the host copy, then one upload of each. */
static int initialise(sm_cuda_executor *ex, sm_status *st)
{
    const sm_plan *p = &ex->p;
    size_t nw = (size_t)(p->n_weights ? p->n_weights : 1);
    int64_t n_in = p->input.n * sm_shape_elems(&p->input.shape);
    float *w = malloc(nw * sizeof *w), *x = malloc((size_t)n_in * sizeof *x);
    int32_t *labels = malloc((size_t)(p->rows ? p->rows : 1) * sizeof *labels);
    int rc = w && x && labels ? 0 : sm_fail(st, "out of host memory initialising the weights");
    for (int i = 0; rc == 0 && i < p->n; i++) {
        const gpu_layer *g = &ex->layers[i];
        const sm_layer_io *call = &p->layers[i].call;
        float *lw = w + p->layers[i].w_offset;
        sm_plan_weights_of(p, ex->opt.seed, i, lw);
        void *state = g->state_bytes ? calloc(1, g->state_bytes) : NULL;
        if (g->state_bytes && !state) {
            rc = sm_fail(st, "out of host memory initialising the state of layer %d", i);
            break;
        }
        const char *before = setup_named(ex, i);
        if (HAS(g->k, init))
            g->k->init(call, lw, state);
        set_back(ex, before);
        cudaError_t err =
            state ? cudaMemcpy(call->state, state, g->state_bytes, cudaMemcpyHostToDevice)
                  : cudaSuccess;
        free(state);
        if (err != cudaSuccess)
            rc = cuda_failed(st, "cudaMemcpy", err);
    }
    if (rc == 0)
        ex->step_seed = sm_plan_inputs(p, ex->opt.seed, x, labels);
    cudaError_t e = cudaSuccess;
    if (rc == 0 && p->n_weights)
        e = cudaMemcpy(ex->weights, w, (size_t)p->n_weights * sizeof *w, cudaMemcpyHostToDevice);
    if (rc == 0 && e == cudaSuccess)
        e = cudaMemcpy(p->input.data, x, (size_t)n_in * sizeof *x, cudaMemcpyHostToDevice);
    if (rc == 0 && e == cudaSuccess && p->rows)
        e = cudaMemcpy(ex->labels, labels, (size_t)p->rows * sizeof *labels,
                       cudaMemcpyHostToDevice);
    if (rc == 0 && e == cudaSuccess && ex->scaler) {
        smx_scaler s = {.scale = ex->opt.loss_scale > 0 ? ex->opt.loss_scale : DEFAULT_LOSS_SCALE};
        e = cudaMemcpy(ex->scaler, &s, sizeof s, cudaMemcpyHostToDevice);
    }
    if (rc == 0 && e != cudaSuccess)
        rc = cuda_failed(st, "cudaMemcpy", e);
    free(w);
    free(x);
    free(labels);
    return rc;
}

static int layer_failed(const sm_cuda_executor *ex, int i, const char *what, const sm_error *err,
                        sm_status *st)
{
    const sm_layer *l = &ex->p.net->layers[i];
    /* the kernel's text, bounded: a kernel may fill msg without its NUL */
    return sm_fail(st, "%s at batch %lld: %s of layer '%s' (%s) failed: %.*s", ex->p.net->name,
                   (long long)ex->opt.batch, what, l->name, l->type->name, (int)sizeof err->msg - 1,
                   err->msg[0] ? err->msg : "no reason given");
}

/* A search workspace of up to search_bytes, less when less is free (halving until it fits). */
static void *search_workspace(sm_cuda_executor *ex, size_t *bytes)
{
    size_t free_bytes = 0, total = 0;
    int64_t want = ex->opt.search_bytes > 0 ? ex->opt.search_bytes : DEFAULT_SEARCH_BYTES;
    *bytes = (size_t)want;
    if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess && *bytes > free_bytes / 10 * 8)
        *bytes = free_bytes / 10 * 8;
    for (; *bytes >= ((size_t)1 << 20); *bytes /= 2) {
        void *p = NULL;
        if (cudaMalloc(&p, *bytes) == cudaSuccess)
            return p;
        cudaGetLastError();
    }
    *bytes = 0;
    return NULL;
}

/* Every layer's setup, with the search workspace; then the scratch the chosen kernels need. */
static int setup_layers(sm_cuda_executor *ex, sm_status *st)
{
    size_t search = 0, most = 0;
    void *ws = search_workspace(ex, &search);
    ex->search_bytes = search;
    int rc = 0;
    for (int i = 0; i < ex->p.n && rc == 0; i++) {
        const struct sm_gpu_kernels *k = ex->layers[i].k;
        sm_layer_io *call = &ex->p.layers[i].call;
        call->work = ws;
        call->work_bytes = search;
        sm_error err = {{0}};
        const char *before = setup_named(ex, i);
        int failed = HAS(k, setup) && k->setup(call, &call->plan, &err);
        size_t need = !failed && HAS(k, work_size) ? k->work_size(call) : 0;
        set_back(ex, before);
        if (failed) {
            rc = layer_failed(ex, i, "setup", &err, st);
            break;
        }
        if (need == SIZE_MAX)
            rc = sm_fail(st, "%s: layer '%s' needs more scratch than can be addressed",
                         ex->p.net->name, ex->p.net->layers[i].name);
        most = need > most ? need : most;
    }
    cudaError_t e = cudaStreamSynchronize(ex->stream);
    if (rc == 0 && e != cudaSuccess)
        rc = cuda_failed(st, "cudaStreamSynchronize after the setup of the layers", e);
    cudaFree(ws);
    if (rc)
        return rc;
    if (most && (e = cudaMalloc(&ex->work, most)) != cudaSuccess) {
        cuda_failed(st, "cudaMalloc", e);
        sm_fail(st,
                "%s at batch %lld: no device memory left for the %.3g GB of scratch its "
                "kernels chose",
                ex->p.net->name, (long long)ex->opt.batch, (double)most / 1e9);
        return SM_EXECUTOR_NOMEM;
    }
    ex->work_bytes = most;
    for (int i = 0; i < ex->p.n; i++) {
        ex->p.layers[i].call.work = ex->work;
        ex->p.layers[i].call.work_bytes = most;
    }
    return 0;
}

/* Host structures and the plan; *bytes the arena's size (SIZE_MAX: overflow). */
static int new_plan(const sm_network *net, const sm_cuda_executor_options *opt,
                    sm_cuda_executor **out, size_t *bytes, sm_status *st)
{
    *out = NULL;
    if (sm_cuda_executor_check(net, st) || sm_gpu_precision_check(opt->precision, st))
        return -1;
    sm_cuda_executor *ex = calloc(1, sizeof *ex);
    if (!ex)
        return sm_fail(st, "out of host memory");
    *out = ex;
    ex->opt = *opt;
    ex->ctx = (sm_gpu_context){.struct_size = sizeof(sm_gpu_context),
                               .precision = opt->precision,
                               .algo_search = opt->algo_search};
    int rc = sm_plan_init(&ex->p, net, opt->batch, st);
    if (rc)
        return rc;
    if (!(ex->layers = calloc((size_t)ex->p.n, sizeof *ex->layers)))
        return sm_fail(st, "out of host memory");
    /* from the kernels' sizes on, a fault in a plugin's host code names it */
    if (opt->name_faults) {
        if (sm_plan_name_kernels(&ex->p, "GPU", "bench"))
            return sm_fail(st, "out of host memory");
        ex->p.name_only = 1;
        sm_plugin_kernels_named(ex->kernels_named = 1);
    }
    *bytes = plan(ex);
    if (*bytes == SIZE_MAX) {
        sm_fail(st, "%s at batch %lld: the buffers' size overflows 64 bits", net->name,
                (long long)opt->batch);
        return SM_EXECUTOR_NOMEM;
    }
    return 0;
}

static int allocate(sm_cuda_executor *ex, sm_status *st)
{
    size_t free_bytes = 0, total = 0;
    cudaError_t e = cudaMemGetInfo(&free_bytes, &total);
    if (e != cudaSuccess)
        return cuda_failed(st, "cudaMemGetInfo", e);
    if (ex->opt.max_bytes > 0 && ex->bytes > (uint64_t)ex->opt.max_bytes) {
        sm_fail(st,
                "%s at batch %lld needs %.3g GB of device memory, more than the %.3g GB "
                "allowed",
                ex->p.net->name, (long long)ex->opt.batch, (double)ex->bytes / 1e9,
                (double)ex->opt.max_bytes / 1e9);
        return SM_EXECUTOR_NOMEM;
    }
    if (ex->bytes > free_bytes || (e = cudaMalloc((void **)&ex->arena, ex->bytes)) != cudaSuccess) {
        cudaGetLastError();
        sm_fail(st, "%s at batch %lld needs %.3g GB of device memory, %.3g GB are free",
                ex->p.net->name, (long long)ex->opt.batch, (double)ex->bytes / 1e9,
                (double)free_bytes / 1e9);
        return SM_EXECUTOR_NOMEM;
    }
    CUDA_TRY(st, cudaMemset, ex->arena, 0, ex->bytes);
    wire(ex);
    return 0;
}

int sm_cuda_executor_new(const sm_network *net, const sm_cuda_executor_options *opt,
                         sm_cuda_executor **out, sm_status *st)
{
    size_t bytes = 0;
    sm_cuda_executor *ex = NULL;
    *out = NULL;
    int rc = new_plan(net, opt, &ex, &bytes, st);
    if (rc == 0) {
        ex->bytes = bytes;
        rc = handles(ex, st);
    }
    if (rc == 0)
        rc = allocate(ex, st);
    if (rc == 0)
        rc = initialise(ex, st);
    if (rc == 0)
        rc = setup_layers(ex, st);
    if (rc) {
        sm_cuda_executor_free(ex);
        return rc;
    }
    *out = ex;
    return 0;
}

void sm_cuda_executor_free(sm_cuda_executor *ex)
{
    if (!ex)
        return;
    if (ex->kernels_named)
        sm_plugin_kernels_named(0);
    if (ex->stream)
        cudaStreamSynchronize(ex->stream);
    for (int i = 0; ex->layers && i < ex->p.n; i++) {
        const struct sm_gpu_kernels *k = ex->layers[i].k;
        void *kernel_plan = ex->p.layers[i].call.plan;
        if (k && kernel_plan && HAS(k, release))
            k->release(kernel_plan);
    }
    sm_plan_free(&ex->p);
    free(ex->layers);
    cudaFree(ex->work);
    cudaFree(ex->arena);
    if (ex->cublas)
        cublasDestroy(ex->cublas);
    if (ex->cudnn)
        cudnnDestroy(ex->cudnn);
    if (ex->stream)
        cudaStreamDestroy(ex->stream);
    free(ex);
}

/* ---- running -------------------------------------------------------------------------------- */

int sm_cuda_executor_forward(sm_cuda_executor *ex, int training, sm_status *st)
{
    int failed;
    sm_error err = {{0}};
    if (sm_plan_forward(&ex->p, ex->step_seed, training, &failed, &err))
        return layer_failed(ex, failed, "the forward pass", &err, st);
    return 0;
}

int sm_cuda_executor_loss(sm_cuda_executor *ex, double *loss, sm_status *st)
{
    const sm_plan *p = &ex->p;
    const sm_plan_layer *last = &p->layers[p->n - 1];
    CUDA_TRY(st, smx_softmax_cross_entropy, last->dout.data, ex->row_loss, last->out.data,
             ex->labels, p->rows, p->classes, ex->stream);
    if (!loss)
        return 0;
    double total = 0;
    CUDA_TRY(st, smx_mean, ex->loss, ex->row_loss, p->rows, ex->stream);
    CUDA_TRY(st, cudaMemcpyAsync, &total, ex->loss, sizeof total, cudaMemcpyDeviceToHost,
             ex->stream);
    if (sm_cuda_executor_sync(ex, st))
        return -1;
    if (!isfinite(total))
        return sm_fail(st, "%s: the loss is %g (the forward pass gave non-finite values)",
                       ex->p.net->name, total);
    *loss = total;
    return 0;
}

typedef struct zero_ctx {
    cudaStream_t stream;
    sm_status *st;
} zero_ctx;

static int zero(void *ctx, const sm_tensor *t)
{
    const zero_ctx *z = ctx;
    if (t->data)
        CUDA_TRY(z->st, cudaMemsetAsync, t->data, 0,
                 (size_t)(t->n * sm_shape_elems(&t->shape)) * sizeof(float), z->stream);
    return 0;
}

/* fp16: the output gradient times the loss scale, before the layers see it. */
static int scale_loss(sm_cuda_executor *ex, sm_status *st)
{
    const sm_tensor *dy = &ex->p.layers[ex->p.n - 1].dout;
    CUDA_TRY(st, smx_scale, dy->data, dy->n * sm_shape_elems(&dy->shape), ex->scaler, ex->stream);
    return 0;
}

/* fp16: the gradients divided by the loss scale (GradScaler's unscale_); the input's too,
 * where the tests asked for it. Whether the step overflowed is decided in sgd, after the
 * gradients' all-reduce has carried any rank's infinities to every rank, so that all skip. */
static int unscale(sm_cuda_executor *ex, sm_status *st)
{
    CUDA_TRY(st, smx_unscale, ex->grads, ex->p.n_weights, ex->scaler, ex->stream);
    const sm_tensor *dx = &ex->p.input_grad;
    if (dx->data)
        CUDA_TRY(st, smx_unscale, dx->data, dx->n * sm_shape_elems(&dx->shape), ex->scaler,
                 ex->stream);
    return 0;
}

int sm_cuda_executor_backward(sm_cuda_executor *ex, sm_status *st)
{
    int failed;
    sm_error err = {{0}};
    zero_ctx z = {ex->stream, st};
    if (ex->scaler && scale_loss(ex, st))
        return -1;
    if (sm_plan_backward(&ex->p, zero, &z, &failed, &err))
        return failed < 0 ? -1 : layer_failed(ex, failed, "the backward pass", &err, st);
    return ex->scaler ? unscale(ex, st) : 0;
}

int sm_cuda_executor_sgd(sm_cuda_executor *ex, float lr, sm_status *st)
{
    if (ex->scaler)
        CUDA_TRY(st, smx_check_finite, ex->grads, ex->p.n_weights, ex->scaler, ex->stream);
    CUDA_TRY(st, smx_sgd, ex->weights, ex->grads, ex->p.n_weights, lr, ex->scaler, ex->stream);
    if (ex->scaler)
        CUDA_TRY(st, smx_scaler_update, ex->scaler, LOSS_SCALE_INTERVAL, ex->stream);
    return 0;
}

int sm_cuda_executor_loss_scale(sm_cuda_executor *ex, float *scale, sm_status *st)
{
    smx_scaler s = {.scale = 1.0f};
    if (ex->scaler) {
        if (sm_cuda_executor_sync(ex, st))
            return -1;
        CUDA_TRY(st, cudaMemcpy, &s, ex->scaler, sizeof s, cudaMemcpyDeviceToHost);
    }
    *scale = s.scale;
    return 0;
}

void sm_cuda_executor_next_seed(sm_cuda_executor *ex) { sm_plan_next_seed(&ex->step_seed); }

int sm_cuda_executor_step(sm_cuda_executor *ex, float lr, double *loss, sm_status *st)
{
    if (sm_cuda_executor_forward(ex, 1, st) || sm_cuda_executor_loss(ex, loss, st) ||
        sm_cuda_executor_backward(ex, st) || sm_cuda_executor_sgd(ex, lr, st))
        return -1;
    sm_cuda_executor_next_seed(ex);
    return 0;
}

int sm_cuda_executor_sync(sm_cuda_executor *ex, sm_status *st)
{
    cudaError_t e = cudaStreamSynchronize(ex->stream);
    if (e != cudaSuccess)
        return sm_fail(st, "%s at batch %lld: a kernel failed: %s", ex->p.net->name,
                       (long long)ex->opt.batch, cudaGetErrorString(e));
    return 0;
}

/* ---- buffers -------------------------------------------------------------------------------- */

void *sm_cuda_executor_stream(const sm_cuda_executor *ex) { return ex->stream; }
int sm_cuda_executor_device(const sm_cuda_executor *ex) { return ex->opt.device; }
int64_t sm_cuda_executor_work_bytes(const sm_cuda_executor *ex)
{
    return (int64_t)(ex->search_bytes > ex->work_bytes ? ex->search_bytes : ex->work_bytes);
}

sm_tensor sm_cuda_executor_input(const sm_cuda_executor *ex) { return ex->p.input; }
sm_tensor sm_cuda_executor_input_grad(const sm_cuda_executor *ex) { return ex->p.input_grad; }
sm_tensor sm_cuda_executor_output(const sm_cuda_executor *ex)
{
    return ex->p.layers[ex->p.n - 1].out;
}
sm_tensor sm_cuda_executor_output_grad(const sm_cuda_executor *ex)
{
    return ex->p.layers[ex->p.n - 1].dout;
}
sm_tensor sm_cuda_executor_activation(const sm_cuda_executor *ex, int layer)
{
    return ex->p.layers[layer].out;
}

float *sm_cuda_executor_weights(const sm_cuda_executor *ex, int64_t *count)
{
    *count = ex->p.n_weights;
    return ex->weights;
}

float *sm_cuda_executor_weight_grads(const sm_cuda_executor *ex, int64_t *count)
{
    *count = ex->p.n_weights;
    return ex->grads;
}

int64_t sm_cuda_executor_weight_offset(const sm_cuda_executor *ex, int layer)
{
    return ex->p.layers[layer].w_offset;
}

int sm_cuda_executor_download(sm_cuda_executor *ex, const float *device, float *host, int64_t n,
                              sm_status *st)
{
    if (sm_cuda_executor_sync(ex, st))
        return -1;
    CUDA_TRY(st, cudaMemcpy, host, device, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    return 0;
}

int sm_cuda_executor_upload(sm_cuda_executor *ex, float *device, const float *host, int64_t n,
                            sm_status *st)
{
    if (sm_cuda_executor_sync(ex, st))
        return -1;
    CUDA_TRY(st, cudaMemcpy, device, host, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    return 0;
}
