/*
 * scalemeter/kernels.h: the kernel ABI, what a layer type gives the benchmark backends to run.
 *
 * Apart from the descriptor ABI (plugin.h) because metrics, fit and predict never run a layer:
 * a plugin without kernels, and every program that only counts, needs nothing of this header.
 *
 * Both backends allocate every buffer and call a layer's kernels layer by layer: forward in
 * network order, backward in reverse. Both describe a layer at one batch size with one struct,
 * sm_layer_io; the GPU backend adds its handles in sm_gpu_context. Tensors are fp32, batch
 * first and contiguous (N x C x H x W for images, N x S x E for sequences). Weights are one
 * flat array per layer in PyTorch's order and layout (conv2d: weight out x C/groups x kh x kw,
 * then bias), m.weights floats long.
 *
 *   CPU kernels (`bench --backend cpu`): struct sm_cpu_kernels, returned by SM_CPU_ENTRY of a
 *   companion module NAME_cpu.so beside NAME.so, loaded only when a backend, the conformance
 *   harness or check-plugin asks for them, so that the BLAS a kernel links (OpenBLAS) is never
 *   mapped by a program that only counts. A descriptor's own cpu field, where set (plugins
 *   written before the companion existed), still wins.
 *   GPU kernels (`bench --backend cuda`): struct sm_gpu_kernels, returned by SM_GPU_ENTRY of a
 *   companion module NAME_gpu.so beside NAME.so. The host loads it only when the cuda backend
 *   asks for the type's GPU kernels, so that the CUDA libraries it links are never mapped by a
 *   program that only counts, and NAME.so loads on machines without them.
 *
 * Every table carries struct_size, so either side can append fields without breaking the other.
 */
#ifndef SCALEMETER_KERNELS_H
#define SCALEMETER_KERNELS_H

#include "scalemeter/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SM_GPU_ENTRY sm_plugin_gpu_kernels
#define SM_GPU_ENTRY_NAME "sm_plugin_gpu_kernels"
#define SM_CPU_ENTRY sm_plugin_cpu_kernels
#define SM_CPU_ENTRY_NAME "sm_plugin_cpu_kernels"

/* A batch of n samples of one shape. data is NULL where the host has no buffer: in the size
 * queries, and for an input gradient nobody needs (that of the network's input). On the GPU,
 * data is a device pointer. */
typedef struct sm_tensor {
    float *data;
    int64_t n;      /* batch */
    sm_shape shape; /* one sample, as infer gave it */
} sm_tensor;

/* ---- the GPU backend's context ------------------------------------------------------------
 *
 * Every GPU kernel is asynchronous: it enqueues work on `stream` (cuDNN's and cuBLAS's handles
 * are bound to it) and returns without waiting. The CUDA types travel as void * so that this
 * header needs no CUDA header: stream is a cudaStream_t, cudnn a cudnnHandle_t, cublas a
 * cublasHandle_t; a kernel casts them back. */

/* The arithmetic a kernel may use on fp32 data. */
typedef enum sm_gpu_precision {
    SM_GPU_FP32 = 0, /* full fp32: cuDNN CUDNN_FMA_MATH, cuBLAS CUBLAS_COMPUTE_32F */
    SM_GPU_TF32 = 1, /* tensor cores on fp32 data: CUDNN_DEFAULT_MATH (TF32 permitted),
                        CUBLAS_COMPUTE_32F_FAST_TF32 */
    SM_GPU_FP16 = 2, /* autocast's fp16: products and convolutions on fp16-rounded operands
                        with fp32 accumulation (CUBLAS_COMPUTE_32F_FAST_16F, cuDNN on fp16
                        copies), fp32 tensors, every other kernel fp32; the loss scaled */
    SM_GPU_BF16 = 3  /* the same with bf16 (CUBLAS_COMPUTE_32F_FAST_16BF), no loss scale */
} sm_gpu_precision;

/* How a kernel with several algorithms (convolutions) chooses one in setup. */
typedef enum sm_gpu_algo_search {
    SM_GPU_ALGO_MEASURE = 0,  /* time them on the real buffers and take the fastest
                                 (cudnnFind*AlgorithmEx; PyTorch's cudnn.benchmark = True) */
    SM_GPU_ALGO_HEURISTIC = 1 /* the library's heuristics, nothing run (cudnnGet*_v7) */
} sm_gpu_algo_search;

typedef struct sm_gpu_context {
    uint32_t struct_size; /* sizeof(sm_gpu_context) of the host */
    void *stream;         /* cudaStream_t every kernel enqueues on */
    void *cudnn;          /* cudnnHandle_t, bound to stream */
    void *cublas;         /* cublasHandle_t, bound to stream */
    int precision;        /* sm_gpu_precision; fp32 data in every precision implemented */
    int algo_search;      /* sm_gpu_algo_search */
} sm_gpu_context;

/* ---- one layer at one batch size, as every kernel entry of both backends sees it ---------- */

typedef struct sm_layer_io {
    uint32_t struct_size; /* sizeof(sm_layer_io) of the host */
    const void *params;   /* parsed parameters (host memory) */
    int n_in;
    const sm_tensor *in;  /* n_in inputs: read by forward and backward */
    const sm_tensor *out; /* written by forward, read by backward */
    /* Gradients. dout: of the output, read by backward. din: of each input; backward ADDS its
     * contribution (a tensor consumed by two layers sums both); skip those with data NULL. */
    const sm_tensor *dout;
    const sm_tensor *din;
    float *w;  /* n_w weights; NULL when the layer has none */
    float *dw; /* n_w weight gradients, OVERWRITTEN by backward */
    int64_t n_w;
    void *state; /* state_size bytes kept by the host from call to call: what a training
                    forward leaves for backward (batch statistics, argmax, dropout mask)
                    and what persists between steps (running statistics) */
    void *work;  /* work_bytes of scratch shared by all layers, not preserved. In GPU
                    setup: a search workspace that algorithms may be timed with */
    size_t work_bytes;
    void *plan;    /* what this layer's GPU setup made; NULL before setup and without one */
    int training;  /* forward: 1 in a training step, 0 at inference (running statistics,
                      no dropout, and state need not be written) */
    uint64_t seed; /* differs from step to step; what randomness forward needs derives from
                      it (the dropout mask) */
    const sm_gpu_context *gpu; /* the GPU backend's handles; NULL on the CPU */
} sm_layer_io;

/* ---- CPU kernels --------------------------------------------------------------------------- */

struct sm_cpu_kernels {
    uint32_t struct_size; /* sizeof(struct sm_cpu_kernels) */
    /* Bytes of scratch that forward and backward need at this batch (NULL: none); data pointers
     * are NULL in this call. SIZE_MAX: more than can be addressed. */
    size_t (*work_size)(const sm_layer_io *l);
    /* Bytes of state at this batch (NULL: none); data pointers are NULL in this call. */
    size_t (*state_size)(const sm_layer_io *l);
    /* Initial weights and state, as for the GPU (w == l->w, state == l->state here). w arrives
     * filled with uniform random numbers in [-1, 1) from a seeded generator of the host
     * (deterministic), for init to scale or overwrite (PyTorch's default initialisation);
     * state arrives zeroed. NULL: weights stay as they arrive. */
    void (*init)(const sm_layer_io *l, float *w, void *state);
    /* out from in (and w, state); non-zero with err->msg set on failure. */
    int (*forward)(const sm_layer_io *l, sm_error *err);
    /* din += d out / d in applied to dout; dw = gradient of the weights; after a training
     * forward of the same inputs. Non-zero with err->msg set on failure. */
    int (*backward)(const sm_layer_io *l, sm_error *err);
};

/* The entry point of a CPU module: the host's table in, the kernels out (NULL: none). The
 * module is built with its plugin, whose descriptor carries the ABI version. */
typedef const struct sm_cpu_kernels *(*sm_cpu_entry_fn)(const sm_host *host);

/* Defines the entry point of a CPU module NAME_cpu.so returning its kernels. */
#define SM_DEFINE_CPU_KERNELS(kernels)                                                             \
    SM_PLUGIN_EXPORT const struct sm_cpu_kernels *SM_CPU_ENTRY(const sm_host *host);               \
    SM_PLUGIN_EXPORT const struct sm_cpu_kernels *SM_CPU_ENTRY(const sm_host *host)                \
    {                                                                                              \
        (void)host;                                                                                \
        return &(kernels);                                                                         \
    }

/* ---- GPU kernels ----------------------------------------------------------------------------
 *
 * Tensors, weights, state and work are device memory, with the CPU's layouts, fp32 in every
 * precision; precision only says which arithmetic the libraries may use (a kernel that casts
 * operands to a half type keeps the copies in its work). The host starts from the same initial
 * weights as the CPU backend. */

struct sm_gpu_kernels {
    uint32_t abi_version; /* SM_PLUGIN_ABI_VERSION: this table comes from its own module */
    uint32_t struct_size; /* sizeof(struct sm_gpu_kernels) */
    /* Bytes of device state at this batch (NULL: none); data pointers are NULL in this call. */
    size_t (*state_size)(const sm_layer_io *l);
    /* Initial weights and state, in HOST memory: w holds n_w uniform numbers in [-1, 1) from
     * the host's seeded generator (the same numbers the CPU backend starts from), state
     * state_size zeroed bytes; the host copies both to the device afterwards. NULL: weights
     * stay as they arrive. */
    void (*init)(const sm_layer_io *l, float *w, void *state);
    /* Once every buffer is allocated and initialised: descriptors and algorithm choice, which
     * may run kernels on the layer's real buffers and on work (the search workspace). Sets
     * *plan to what forward and backward need (NULL allowed); 0, or non-zero with err->msg set.
     * NULL: the layer needs no setup. */
    int (*setup)(const sm_layer_io *l, void **plan, sm_error *err);
    /* Bytes of device scratch forward and backward need, after setup (l->plan set; NULL:
     * none); SIZE_MAX: more than can be addressed. */
    size_t (*work_size)(const sm_layer_io *l);
    /* Enqueue out from in (and w, state); non-zero with err->msg set on failure. */
    int (*forward)(const sm_layer_io *l, sm_error *err);
    /* Enqueue din += d out / d in applied to dout, and dw = gradient of the weights; after a
     * training forward of the same inputs. Non-zero with err->msg set on failure. */
    int (*backward)(const sm_layer_io *l, sm_error *err);
    /* Frees what setup made (plan may be NULL). NULL: nothing to free. */
    void (*release)(void *plan);
};

#define SM_GPU_KERNELS_INIT                                                                        \
    .abi_version = SM_PLUGIN_ABI_VERSION, .struct_size = sizeof(struct sm_gpu_kernels)

/* The entry point of a GPU module: the host's table in, the kernels out (NULL: none). */
typedef const struct sm_gpu_kernels *(*sm_gpu_entry_fn)(const sm_host *host);

/* Defines the entry point of a GPU module NAME_gpu.so returning its kernels. */
#define SM_DEFINE_GPU_KERNELS(kernels)                                                             \
    SM_PLUGIN_EXPORT const struct sm_gpu_kernels *SM_GPU_ENTRY(const sm_host *host);               \
    SM_PLUGIN_EXPORT const struct sm_gpu_kernels *SM_GPU_ENTRY(const sm_host *host)                \
    {                                                                                              \
        (void)host;                                                                                \
        return &(kernels);                                                                         \
    }

/* ---- geometry a kernel of either backend needs -------------------------------------------- */

/* These helpers require their pointers: the host always passes a kernel its tensors. */

/* Elements of one sample, and of the whole batch. */
static inline int64_t sm_sample_elems(const sm_tensor *t) { return sm_shape_elems(&t->shape); }
static inline int64_t sm_tensor_elems(const sm_tensor *t)
{
    return sm_mul(t->n, sm_shape_elems(&t->shape));
}

/* Product of dims [from, to) of a shape: the rows and columns a layer sees along an axis. */
static inline int64_t sm_shape_dims(const sm_shape *s, int from, int to)
{
    int64_t n = 1;
    for (int i = from; i < to; i++)
        n = sm_mul(n, s->dim[i]);
    return n;
}

/* An axis that may count from the end (-1: the last), as an index in [0, ndim). */
static inline int sm_axis(int64_t axis, const sm_shape *s)
{
    return (int)(axis < 0 ? axis + s->ndim : axis);
}

#ifdef __cplusplus
}
#endif
#endif
