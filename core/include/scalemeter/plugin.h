/*
 * scalemeter/plugin.h: the one header a layer plugin needs.
 *
 * A plugin is a shared object that exports one function, SM_PLUGIN_ENTRY, returning one
 * descriptor (sm_layer_type) of one layer type: its name, how to parse its parameters, how to
 * infer its output shape and what its forward pass costs. The host (libscalemeter) loads every
 * plugin at run time and refuses one whose abi_version differs from its own. Plugins never link
 * against the core: everything they call is in this header or passed in by the host (sm_args).
 *
 * Shapes are per sample: the batch dimension is never part of an sm_shape, and every count a
 * plugin reports, except weights and param_tensors, is per sample. The host multiplies by the
 * batch.
 */
#ifndef SCALEMETER_PLUGIN_H
#define SCALEMETER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any change that breaks an existing plugin; appending fields to sm_layer_type does
 * not (struct_size tells the host which fields a plugin knows). */
#define SM_PLUGIN_ABI_VERSION 1u
#define SM_PLUGIN_ENTRY sm_plugin_layer_type
#define SM_PLUGIN_ENTRY_NAME "sm_plugin_layer_type"

#define SM_MAX_DIMS 4
#define SM_ERROR_LEN 256
/* Saturated value of the checked arithmetic below; the host rejects any metric equal to it. */
#define SM_OVERFLOW INT64_MAX
/* Default value meaning "this parameter is required". */
#define SM_REQUIRED INT64_MIN

#if defined(__GNUC__)
#define SM_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SM_PLUGIN_EXPORT
#endif

/* Shape of one tensor of one sample: C,H,W for images, S,E for sequences, E for vectors. */
typedef struct sm_shape {
    int ndim;
    int64_t dim[SM_MAX_DIMS];
} sm_shape;

/* Where infer and metrics write a one-line reason when they refuse their inputs. */
typedef struct sm_error {
    char msg[SM_ERROR_LEN];
} sm_error;

/* Parameters of one layer as the network file gives them. The host owns it, remembers which
 * keys were read (an unread key is reported as unknown) and turns any failure into an error
 * naming the file and line. Read it through the sm_arg_* functions below. */
typedef struct sm_args sm_args;
typedef struct sm_args_ops {
    int64_t (*get_int)(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi);
    void (*get_pair)(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi,
                     int64_t out[2]);
    int (*get_bool)(sm_args *a, const char *key, int dflt);
    double (*get_real)(sm_args *a, const char *key, double dflt, double lo, double hi);
    int (*get_choice)(sm_args *a, const char *key, const char *const *choices, int dflt);
    void (*fail)(sm_args *a, const char *msg);
} sm_args_ops;
struct sm_args {
    const sm_args_ops *ops;
};

/* An integer in [lo, hi]; dflt when absent, or an error when dflt is SM_REQUIRED. */
static inline int64_t sm_arg_int(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi)
{
    return a->ops->get_int(a, key, dflt, lo, hi);
}
/* "3" or "3x5" (height x width) into out[0], out[1]. */
static inline void sm_arg_pair(sm_args *a, const char *key, int64_t dflt, int64_t lo, int64_t hi,
                               int64_t out[2])
{
    a->ops->get_pair(a, key, dflt, lo, hi, out);
}
/* true/false, yes/no, 1/0. */
static inline int sm_arg_bool(sm_args *a, const char *key, int dflt)
{
    return a->ops->get_bool(a, key, dflt);
}
static inline double sm_arg_real(sm_args *a, const char *key, double dflt, double lo, double hi)
{
    return a->ops->get_real(a, key, dflt, lo, hi);
}
/* Index of the value in the NULL-terminated list choices; dflt when absent (-1: required). */
static inline int sm_arg_choice(sm_args *a, const char *key, const char *const *choices, int dflt)
{
    return a->ops->get_choice(a, key, choices, dflt);
}
/* Rejects a combination of parameters; msg is one line without the file or layer. */
static inline void sm_arg_fail(sm_args *a, const char *msg)
{
    a->ops->fail(a, msg);
}

/* What one forward pass of the layer costs for one sample. Before calling metrics the host
 * fills input_elems and output_elems from the shapes and bytes as 4 * (input_elems +
 * output_elems); a plugin changes them only where its layer differs. */
typedef struct sm_layer_metrics {
    int64_t flops;         /* forward FLOPs, a multiply-accumulate counted as 2 */
    int64_t macs;          /* forward multiply-accumulates (what torchvision calls GFLOPS) */
    int64_t weights;       /* trainable parameters (not per sample) */
    int64_t param_tensors; /* trainable tensors, as nn.Module.parameters() lists them */
    int64_t input_elems;   /* elements of all inputs */
    int64_t output_elems;  /* elements of the output */
    int64_t bytes;         /* activation bytes read and written at fp32 (weights: host adds) */
    int64_t bwd_flops;     /* backward FLOPs (input and weight gradients); 0: host estimates */
    int counts_io;         /* 1: input/output elements count towards ConvMeter's I and O */
} sm_layer_metrics;

/* ---- CPU kernels (optional): what `scalemeter bench --backend cpu` runs --------------------
 *
 * The host (core/src/executor.c) allocates every buffer and calls the kernels layer by layer:
 * forward in network order, backward in reverse. Tensors are fp32, batch first and contiguous
 * (N x C x H x W for images, N x S x E for sequences). Weights are one flat array per layer in
 * PyTorch's order and layout (conv2d: weight out x C/groups x kh x kw, then bias), m.weights
 * floats long. */

/* A batch of n samples of one shape. data is NULL where the host has no buffer: in the size
 * queries, and for an input gradient nobody needs (that of the network's input). */
typedef struct sm_tensor {
    float *data;
    int64_t n;      /* batch */
    sm_shape shape; /* one sample, as infer gave it */
} sm_tensor;

/* One layer at one batch size, as every kernel entry sees it. */
typedef struct sm_cpu_layer {
    const void *params;  /* parsed parameters */
    int n_in;
    const sm_tensor *in; /* n_in inputs: read by forward and backward */
    const sm_tensor *out; /* written by forward, read by backward */
    /* Gradients. dout: of the output, read by backward. din: of each input; backward ADDS its
     * contribution (a tensor consumed by two layers sums both); skip those with data NULL. */
    const sm_tensor *dout;
    const sm_tensor *din;
    float *w;         /* n_w weights; NULL when the layer has none */
    float *dw;        /* n_w weight gradients, OVERWRITTEN by backward */
    int64_t n_w;
    void *state;      /* state_size bytes kept by the host from call to call: what a training
                         forward leaves for backward (batch statistics, argmax, dropout mask) and
                         what persists between steps (running statistics); zeroed, then init */
    void *work;       /* work_size bytes of scratch, shared by all layers, not preserved */
    int training;     /* forward: 1 in a training step, 0 at inference (running statistics,
                         no dropout, and state need not be written) */
    uint64_t seed;    /* differs from step to step; what randomness forward needs derives from
                         it (the dropout mask) */
} sm_cpu_layer;

struct sm_cpu_kernels {
    uint32_t struct_size; /* sizeof(struct sm_cpu_kernels) */
    /* Bytes of scratch that forward and backward need at this batch (NULL: none); data pointers
     * are NULL in this call. SIZE_MAX: more than can be addressed. */
    size_t (*work_size)(const sm_cpu_layer *l);
    /* Bytes of state at this batch (NULL: none); data pointers are NULL in this call. */
    size_t (*state_size)(const sm_cpu_layer *l);
    /* Initial weights and state. w arrives filled with uniform random numbers in [-1, 1) from a
     * seeded generator of the host (deterministic), for init to scale or overwrite (PyTorch's
     * default initialisation); state arrives zeroed. NULL: weights stay as they arrive. */
    void (*init)(const sm_cpu_layer *l);
    /* out from in (and w, state); non-zero with err->msg set on failure. */
    int (*forward)(const sm_cpu_layer *l, sm_error *err);
    /* din += d out / d in applied to dout; dw = gradient of the weights; after a training
     * forward of the same inputs. Non-zero with err->msg set on failure. */
    int (*backward)(const sm_cpu_layer *l, sm_error *err);
};

/* ---- GPU kernels (optional): what `scalemeter bench --backend cuda` runs -------------------
 *
 * The host (calibrate/executor_cuda.c) allocates every buffer in device memory and calls the
 * kernels layer by layer, as the CPU executor does: forward in network order, backward in
 * reverse. Tensors and weights have the CPU part's layouts and are fp32 in device memory in
 * every precision implemented (fp32, tf32); precision only says which arithmetic the libraries
 * may use. Every kernel is asynchronous: it enqueues work on `stream` (cuDNN's and cuBLAS's
 * handles are bound to it) and returns without waiting. The CUDA types travel as void * so
 * that this header needs no CUDA header: stream is a cudaStream_t, cudnn a cudnnHandle_t,
 * cublas a cublasHandle_t; a plugin casts them back. */

/* The arithmetic a kernel may use on fp32 data. */
typedef enum sm_gpu_precision {
    SM_GPU_FP32 = 0, /* full fp32: cuDNN CUDNN_FMA_MATH, cuBLAS CUBLAS_COMPUTE_32F */
    SM_GPU_TF32 = 1, /* tensor cores on fp32 data: CUDNN_DEFAULT_MATH (TF32 permitted),
                        CUBLAS_COMPUTE_32F_FAST_TF32 */
    SM_GPU_FP16 = 2, /* fp16 storage and arithmetic: not implemented; the host refuses it */
    SM_GPU_BF16 = 3  /* bf16 storage and arithmetic: not implemented; the host refuses it */
} sm_gpu_precision;

/* How a kernel with several algorithms (convolutions) chooses one in setup. */
typedef enum sm_gpu_algo_search {
    SM_GPU_ALGO_MEASURE = 0,  /* time them on the real buffers and take the fastest
                                 (cudnnFind*AlgorithmEx; PyTorch's cudnn.benchmark = True) */
    SM_GPU_ALGO_HEURISTIC = 1 /* the library's heuristics, nothing run (cudnnGet*_v7) */
} sm_gpu_algo_search;

/* One layer at one batch size, as every GPU kernel entry sees it. Pointers into tensors,
 * weights, state and work are device pointers. */
typedef struct sm_gpu_layer {
    const void *params;   /* parsed parameters (host memory) */
    int n_in;
    const sm_tensor *in;  /* n_in inputs: read by forward and backward */
    const sm_tensor *out; /* written by forward, read by backward */
    /* Gradients. dout: of the output, read by backward. din: of each input; backward ADDS its
     * contribution (a tensor consumed by two layers sums both); skip those with data NULL. */
    const sm_tensor *dout;
    const sm_tensor *din;
    float *w;         /* n_w weights; NULL when the layer has none */
    float *dw;        /* n_w weight gradients, OVERWRITTEN by backward */
    int64_t n_w;
    void *state;      /* state_size bytes, device memory kept from call to call, like the CPU
                         part's (batch statistics, masks, running statistics) */
    void *work;       /* work_bytes of device scratch shared by all layers, not preserved. In
                         setup: a search workspace that algorithms may be timed with */
    size_t work_bytes;
    void *plan;       /* what this layer's setup made; NULL before setup and without one */
    void *stream;     /* cudaStream_t every kernel enqueues on */
    void *cudnn;      /* cudnnHandle_t, bound to stream */
    void *cublas;     /* cublasHandle_t, bound to stream */
    int precision;    /* sm_gpu_precision */
    int algo_search;  /* sm_gpu_algo_search */
    int training;     /* forward: 1 in a training step, 0 at inference */
    uint64_t seed;    /* differs from step to step (the dropout mask) */
} sm_gpu_layer;

struct sm_gpu_kernels {
    uint32_t struct_size; /* sizeof(struct sm_gpu_kernels) */
    /* Bytes of device state at this batch (NULL: none); data pointers are NULL in this call. */
    size_t (*state_size)(const sm_gpu_layer *l);
    /* Initial weights and state, in HOST memory: w holds n_w uniform numbers in [-1, 1) from
     * the host's seeded generator (the same numbers the CPU executor starts from), state
     * state_size zeroed bytes; the host copies both to the device afterwards. NULL: weights
     * stay as they arrive. */
    void (*init)(const sm_gpu_layer *l, float *w, void *state);
    /* Once every buffer is allocated and initialised: descriptors and algorithm choice, which
     * may run kernels on the layer's real buffers and on work (the search workspace). Sets
     * *plan to what forward and backward need (NULL allowed); 0, or non-zero with err->msg set.
     * NULL: the layer needs no setup. */
    int (*setup)(const sm_gpu_layer *l, void **plan, sm_error *err);
    /* Bytes of device scratch forward and backward need, after setup (l->plan set; NULL:
     * none); SIZE_MAX: more than can be addressed. */
    size_t (*work_size)(const sm_gpu_layer *l);
    /* Enqueue out from in (and w, state); non-zero with err->msg set on failure. */
    int (*forward)(const sm_gpu_layer *l, sm_error *err);
    /* Enqueue din += d out / d in applied to dout, and dw = gradient of the weights; after a
     * training forward of the same inputs. Non-zero with err->msg set on failure. */
    int (*backward)(const sm_gpu_layer *l, sm_error *err);
    /* Frees what setup made (plan may be NULL). NULL: nothing to free. */
    void (*release)(void *plan);
};

/* Kernels for benchmarking, defined by the calibration backends; NULL in a plugin without. */
struct sm_cpu_kernels;
struct sm_gpu_kernels;

typedef struct sm_layer_type {
    uint32_t abi_version; /* SM_PLUGIN_ABI_VERSION */
    uint32_t struct_size; /* sizeof(sm_layer_type) */
    const char *name;     /* the type name network files use: "conv2d" */
    const char *summary;  /* one line for `scalemeter plugins` */
    size_t params_size;   /* bytes of the parsed parameters; the host allocates them zeroed */
    int min_inputs;
    int max_inputs; /* 0: any number */

    /* Reads the parameters into params; failures go through sm_arg_fail or the range checks. */
    void (*parse)(void *params, sm_args *args);
    /* Output shape from the input shapes; non-zero with err->msg set when they do not fit. */
    int (*infer)(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err);
    /* Forward cost; non-zero with err->msg set on failure. */
    int (*metrics)(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                   sm_layer_metrics *m, sm_error *err);

    /* Optional entries (NULL where absent). */
    const struct sm_cpu_kernels *cpu;
    const struct sm_gpu_kernels *gpu;
} sm_layer_type;

#define SM_LAYER_TYPE_INIT .abi_version = SM_PLUGIN_ABI_VERSION, .struct_size = sizeof(sm_layer_type)

/* Defines the entry point of a plugin returning its descriptor. */
#define SM_DEFINE_PLUGIN(descriptor)                                                              \
    SM_PLUGIN_EXPORT const sm_layer_type *SM_PLUGIN_ENTRY(void);                                  \
    SM_PLUGIN_EXPORT const sm_layer_type *SM_PLUGIN_ENTRY(void) { return &(descriptor); }

/* Checked arithmetic: results saturate at SM_OVERFLOW, which the host reports as an overflow. */
static inline int64_t sm_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (a == SM_OVERFLOW || b == SM_OVERFLOW || __builtin_mul_overflow(a, b, &r))
        return SM_OVERFLOW;
    return r;
}
static inline int64_t sm_add(int64_t a, int64_t b)
{
    int64_t r;
    if (a == SM_OVERFLOW || b == SM_OVERFLOW || __builtin_add_overflow(a, b, &r))
        return SM_OVERFLOW;
    return r;
}
static inline int64_t sm_shape_elems(const sm_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->ndim; i++)
        n = sm_mul(n, s->dim[i]);
    return n;
}
/* Writes a shape as "64x56x56" into buf. */
static inline const char *sm_shape_str(const sm_shape *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->ndim && used < len; i++) {
        int w = snprintf(buf + used, len - used, i ? "x%lld" : "%lld", (long long)s->dim[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}
#define sm_error_set(err, ...) snprintf((err)->msg, sizeof((err)->msg), __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
