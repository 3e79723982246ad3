/*
 * scalemeter/scalemeter.h: the C API of libscalemeter, in the order a program uses it.
 *
 *   sm_registry_open    load the layer plugins (build/install tree, SCALEMETER_PLUGIN_PATH)
 *   sm_network_load     read a network description and infer every shape and cost
 *   sm_network_metrics  ConvMeter's F, I, O, W, L of the whole network at a batch size
 *
 * Every function that can fail returns 0 on success and -1 with a one-line message in an
 * sm_status on failure; nothing here prints or exits. Numbers in the files it reads and writes
 * have '.' for the decimal point whatever locale the program has set (setlocale).
 *
 * Pointer arguments, in every header: a pointer is required unless its comment says what NULL
 * means. A function reporting through `sm_status *st` answers a required pointer left NULL
 * with its failure value (-1, or NULL) and st->msg "FUNCTION: ARG is NULL"; st itself must
 * point to an sm_status. The *_free functions take NULL and do nothing. A function without a
 * status returns its failure value for a NULL argument where it has one (-1, NULL, NAN, as its
 * comment says); the others (sm_network_family, the inline layout helpers, ...) require
 * their pointers, as their comments say.
 *
 * The public headers, in reading order:
 *
 *   scalemeter/plugin.h     the layer-descriptor ABI: a type's parameters, shapes, costs,
 *                           traits and what it keeps for backward (what plugins include)
 *   scalemeter/kernels.h    the kernel ABI: a type's CPU and GPU kernels (what bench runs)
 *   scalemeter/scalemeter.h this file: plugins, networks, metrics
 *   scalemeter/predict.h    predictors and predictions of a step
 *   scalemeter/memory.h     what one device holds while training or running a network
 *   scalemeter/fit.h        measurement CSVs, least-squares fits, coefficient files
 *   scalemeter/comm.h       the all-reduce's cost models, fitted to nccl-tests
 *   scalemeter/device.h     device descriptions: the calibration-free model
 *   scalemeter/curve.h      scaling curves over node counts
 */
#ifndef SCALEMETER_H
#define SCALEMETER_H

#include <stdint.h>
#include <stdio.h>

#include "scalemeter/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SM_STATUS_LEN 1024

typedef struct sm_status {
    char msg[SM_STATUS_LEN];
} sm_status;

/* Sets st->msg (printf-style) and returns -1, so that `return sm_fail(st, ...)` reads well. A
 * message of SM_STATUS_LEN bytes or more loses the middle of its longest words ("/very/lo...
 * /net.ini:5: REASON"), not its end; st->msg may be one of the arguments. */
int sm_fail(sm_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- files written whole ---------------------------------------------------------------- */

/* A file appears whole or not at all: sm_atomic_open creates PATH.tmp.XXXXXXXX, a fresh name
 * (tmp: its name; empty where path is not a regular file, /dev/null, which is written in
 * place), and sm_atomic_commit flushes, syncs and renames it over path, or removes it and
 * fails. A path that is a symbolic link is written through, as a shell's `>` writes: PATH is
 * then the link's target (followed to the end, dangling or not), which the temporary replaces,
 * and the link stays. An existing file is replaced as `>` would write it: refused ("PATH: not
 * writable (...)") where access(W_OK) fails, and the new file takes its permission bits.
 * why (NULL: not asked) says which failure it was, for a caller that words one apart from the
 * others: a code, never st->msg's text, which holds the path and may hold any words.
 * sm_atomic_rename renames tmp over the file it was made for (rename's result, errno set; -1
 * with EINVAL for a NULL tmp), for a writer that flushes it itself.
 * Coefficients, device descriptions and -o's output are written so. */
typedef enum sm_atomic_why {
    SM_ATOMIC_OPENED = 0,   /* no failure */
    SM_ATOMIC_NOT_WRITABLE, /* an existing file the user may not write (the file's own mode) */
    SM_ATOMIC_FAILED        /* any other failure: a NULL argument, a path too long, open's */
} sm_atomic_why;
FILE *sm_atomic_open(const char *path, char *tmp, size_t len, sm_atomic_why *why, sm_status *st);
int sm_atomic_commit(FILE *f, const char *tmp, const char *path, sm_status *st);
int sm_atomic_rename(const char *tmp);

/* ---- data directories ------------------------------------------------------------------- */

/* Folders of the build or install tree this library belongs to (found from its own path). */
const char *sm_plugin_dir(void); /* .../lib/scalemeter/plugins */
const char *sm_data_dir(void);   /* .../share/scalemeter, holding models/ and configs/ */

/* ---- plugins ---------------------------------------------------------------------------- */

typedef struct sm_registry sm_registry;

/* An empty registry; add plugins with the two functions below. */
sm_registry *sm_registry_new(void);
/* The plugins of sm_plugin_dir(), then of each folder of SCALEMETER_PLUGIN_PATH (':'-separated),
 * loaded as they are asked for: the folders are listed here, and sm_registry_find(reg, NAME)
 * loads NAME.so of each folder that has one (the same type in two folders is an error, as
 * ever); where no NAME.so provides NAME, every plugin is loaded (one named otherwise may).
 * SCALEMETER_PLUGIN_PATH's plugins all load at the first lookup, so that one providing a
 * shipped type is that error too. So a network maps only the shipped plugins of its types.
 * Lookups load, so a registry serves one thread at a time; after sm_registry_load_all they
 * only read, and threads may share it. */
int sm_registry_open(sm_registry **out, sm_status *st);
/* A program whose standard output is its result (scalemeter's commands) asks with on = 1 that
 * what plugins print while they load and count go to standard error instead. Whatever the
 * setting, a plugin that calls exit() then ends the process with status 1 and a line naming it. */
void sm_plugin_stdout_to_stderr(int on);
/* Around plugin code the program calls itself (a backend's kernels; the library guards its own
 * calls): an exit() or quick_exit() inside names what (a string that outlives the call) and
 * fails, a crash names it before the process dies of it, a call past SCALEMETER_PLUGIN_TIMEOUT
 * ends the process naming it, the locale is put back, and standard output goes to standard
 * error where asked (above). begin returns the enclosing call's what, for end. A NULL what is
 * the program's own code between plugin calls, which then nest without a system call. */
const char *sm_plugin_call_begin(const char *what);
void sm_plugin_call_end(const char *outer);
/* Around kernels a program times in a loop (bench), where the call's system calls above would
 * change what is timed: sm_plugin_kernels_named(1) installs the crash handler once, and
 * sm_plugin_kernel_name(what) says by a pointer store what runs (NULL: the program's own
 * code), returning what ran before; a crash or an exit() inside names it as a call's would.
 * sm_plugin_kernels_named(0) puts the handlers back; the pairs nest. */
void sm_plugin_kernels_named(int on);
const char *sm_plugin_kernel_name(const char *what);
/* Every plugin of sm_registry_open's folders not loaded yet; -1 with the first failure (named,
 * and repeated to every later call). Listing all types starts with it. */
int sm_registry_load_all(sm_registry *reg, sm_status *st);
int sm_registry_load_dir(sm_registry *reg, const char *dir, sm_status *st);
int sm_registry_load_file(sm_registry *reg, const char *path, sm_status *st);
/* Every type: sm_registry_count loads all first (call sm_registry_load_all to see a failure);
 * -1 for a NULL reg. */
int sm_registry_count(const sm_registry *reg);
/* Type i (0 to sm_registry_count - 1) and its plugin's path; NULL for another i or a NULL reg.
 * sm_registry_find: NULL for a name no plugin provides, or a NULL reg or name. */
const sm_layer_type *sm_registry_type(const sm_registry *reg, int i);
const char *sm_registry_path(const sm_registry *reg, int i);
const sm_layer_type *sm_registry_find(const sm_registry *reg, const char *name);
/* A network loaded from reg points at its types and keeps it: what reg holds is freed when
 * both reg and the last of its networks have been freed, in either order. */
void sm_registry_free(sm_registry *reg);
/* The GPU kernels of a type of this registry (kernels.h), from the companion module NAME_gpu.so
 * beside its NAME.so, loaded on the first call: only the cuda backend calls this, so that
 * nothing else maps the CUDA libraries the module links. 0 with *out NULL where the type has
 * no companion; -1 with a message naming the module when it is there but cannot load or is
 * refused (another ABI version). */
struct sm_gpu_kernels;
int sm_registry_gpu_kernels(const sm_registry *reg, const sm_layer_type *type,
                            const struct sm_gpu_kernels **out, sm_status *st);
/* The CPU kernels of a type of this registry (kernels.h): the descriptor's own cpu table where
 * set, else those of the companion module NAME_cpu.so beside its NAME.so, loaded on the first
 * call, so that nothing that only counts maps the BLAS it links. 0 with *out NULL where the type
 * has none; -1 with a message naming the module when it is there but cannot load. */
struct sm_cpu_kernels;
int sm_registry_cpu_kernels(const sm_registry *reg, const sm_layer_type *type,
                            const struct sm_cpu_kernels **out, sm_status *st);

/* ---- networks --------------------------------------------------------------------------- */

#define SM_NETWORK_INPUT (-1) /* an input index naming the network's input tensor */

/* ConvMeter's metrics and their companions, for a layer, a block or a network. */
typedef struct sm_metrics {
    int64_t flops;         /* F: forward FLOPs (multiply-accumulate = 2) */
    int64_t macs;          /* forward multiply-accumulates */
    int64_t bwd_flops;     /* backward FLOPs */
    int64_t inputs;        /* I: summed input elements of convolution layers */
    int64_t outputs;       /* O: summed output elements of convolution layers */
    int64_t weights;       /* W: trainable parameters */
    int64_t layers;        /* L: layers holding weights */
    int64_t param_tensors; /* trainable tensors */
    int64_t kernels;       /* K: layers that do work (FLOPs or bytes): what a framework launches
                              and dispatches once per pass; views and identities do not count */
    int64_t bytes;         /* bytes moved by the forward pass at fp32, weights read once */
    int64_t matmul_flops;  /* of flops, those done as matrix products (tensor cores) */
    int64_t scores_bytes;  /* of bytes, attention's score matrices (a fused kernel's are none) */
    int64_t scores_flops;  /* of matmul_flops, attention's score products (a fused kernel
                              recomputes them in the backward pass) */
    int64_t serial_bytes;  /* of bytes, those of element-wise kernels between a layer's matrix
                              products, which overlap none of their arithmetic (plugin ABI 6) */
    int64_t upcast_bytes;  /* bytes more, as stored, at fp16/bf16 activations: the fp32 casts
                              and temporaries of layers that compute in fp32 (plugin ABI 7) */
    /* Kernels eager PyTorch launches per pass (the plugins' declarations, plugin.h ABI 5): at
     * inference, and forward and backward in training. K above stays the ConvMeter feature. */
    int64_t kernels_infer;
    int64_t kernels_fwd;
    int64_t kernels_bwd;
} sm_metrics;

typedef struct sm_layer {
    char *name; /* full name, as the framework names the module: "layer1.0.conv1" */
    int block;  /* index into sm_network.blocks */
    int line;   /* line of the network file that defined it */
    const sm_layer_type *type;
    void *params;
    int n_inputs;
    int *inputs; /* indices of layers, or SM_NETWORK_INPUT */
    sm_shape out;
    sm_layer_metrics m;   /* per sample */
    sm_layer_saved saved; /* what it keeps for backward (the plugin's, or the default) */
    /* 1: its first input lies channels-last (C x H x W with the channels adjacent), as a
     * permute, or a layer that keeps or writes that layout, leaves it (plugin.h's
     * view_strides): PyTorch then runs a convolution in cuDNN's NHWC kernels */
    int input_channels_last;
    /* a convolution's kernel positions per output and input channel (kh x kw; 1 for a 1 x 1),
     * its MACs over its outputs and input channels per group; 0 for other layers or where
     * they do not divide. cuDNN runs 1 x 1 ones as plain matrix products (their own
     * efficiency: a framework's conv1x1_*_efficiency_P keys) */
    int64_t kernel_taps;
    /* a convolution's input channels per group (where kernel_taps is not 0): a dense one over
     * 4 or fewer (an image's: a network's stem) runs in kernels of the SMs' lanes, not on
     * tensor cores (a framework's stem_* keys) */
    int64_t conv_channels;
    /* 1: a convolution whose weights hold a bias, one an output channel beyond kernel_taps x
     * conv_channels x output channels: eager PyTorch adds it and sums its gradient in kernels
     * of their own (a framework's conv_bias_* keys) */
    int conv_bias;
    /* 1: an element-wise layer (plugin.h's SM_TRAIT_ELEMENTWISE) one of whose inputs has fewer
     * elements than its output (a squeeze-and-excitation's scale): eager PyTorch runs it in
     * TensorIterator's non-vectorized loop, which the SMs bound (a framework's
     * broadcast_elements_per_sm_clock) */
    int broadcast;
    /* 1: the network's output projection, the layer of linear products (plugin.h's
     * linear_products) whose output its loss reads, or without a loss layer its last one: a
     * float8 recipe leaves it at 16 bits (torchtitan converts every nn.Linear but "output",
     * Megatron's output layer is no Transformer Engine module) */
    int output_projection;
} sm_layer;

typedef struct sm_network {
    char *name;
    char *path;
    sm_shape input; /* one sample */
    int n_layers;
    sm_layer *layers; /* in an order where every layer follows its inputs */
    int n_blocks;
    char **blocks;
    const sm_registry *registry; /* where its types come from (sm_registry_gpu_kernels) */
    int optimizer;     /* what its reference recipe trains with, the file's [network] optimizer
                          (memory.h's sm_optimizer); -1: not named. A memory configuration whose
                          optimizer is only the default takes it (sm_memory_config) */
    char precision[8]; /* what its reference recipe computes in, the file's [network] precision
                          ("fp32", "tf32", "fp16" or "bf16"); "": not named. A device model
                          asked for no precision takes it (device.h's recipe_precision) */
} sm_network;

typedef struct sm_network_options {
    int64_t image; /* > 0: sets H and W of an image input (C x H x W, or C x D x H x W), or the
                      length of a sequence input; 0: the network file's own; below 0: refused
                      by sm_network_load */
    int kv_cache;  /* 1: every attention layer (SM_TRAIT_ATTENTION) is read with kv_cache=true,
                      returning its keys and values to the end of an inference pass as Hugging
                      Face's causal LMs do (use_cache); a type that takes no kv_cache is an
                      error naming the layer. 0: as the file says */
} sm_network_options;

/* A network by path, or by name from the models folder (resnet50 -> models/resnet50.ini), into
 * path[len]; a path that does not fit in len bytes is an error naming the model, never cut
 * short. */
int sm_network_find(const char *model, char *path, size_t len, sm_status *st);
int sm_network_load(const sm_registry *reg, const char *model, const sm_network_options *opt,
                    sm_network **out, sm_status *st);
void sm_network_free(sm_network *net);
/* The layer of that full name ("layer1.0.conv1"), or NULL (also for a NULL net or name). */
const sm_layer *sm_network_layer(const sm_network *net, const char *name);

/* What kind of network it is (net required), by its layers: attention makes a transformer, a
 * recurrent layer a recurrent network, a 2-D convolution a CNN, anything else an MLP. A calibration
 * records the families it was fitted on, so that predicting another family is warned about. */
typedef enum {
    SM_FAMILY_CNN,
    SM_FAMILY_TRANSFORMER,
    SM_FAMILY_RECURRENT,
    SM_FAMILY_MLP,
    SM_N_FAMILIES
} sm_family;
sm_family sm_network_family(const sm_network *net);
/* 1 when a layer of net (required) has one of traits (SM_TRAIT_CONVOLUTION: it has a
 * convolution). */
int sm_network_has_trait(const sm_network *net, unsigned traits);
/* "cnn", "transformer", "recurrent", "mlp"; sm_family_parse: -1 for another name or NULL. */
const char *sm_family_name(sm_family f);
int sm_family_parse(const char *name);
/* The input size that --image sets: an image's height (of C x H x W or C x D x H x W), or a
 * sequence's length (net required). */
int64_t sm_network_image(const sm_network *net);

/* Totals at a batch size; block < 0 means the whole network, a block past the last one is an
 * error. */
int sm_network_metrics(const sm_network *net, int64_t batch, sm_metrics *out, sm_status *st);
int sm_block_metrics(const sm_network *net, int block, int64_t batch, sm_metrics *out,
                     sm_status *st);
/* Every block's totals in one pass over the layers: out[] has net->n_blocks entries. */
int sm_blocks_metrics(const sm_network *net, int64_t batch, sm_metrics *out, sm_status *st);
int sm_layer_metrics_at(const sm_layer *layer, int64_t batch, sm_metrics *out, sm_status *st);

#ifdef __cplusplus
}
#endif
#endif
