/* The network area's own declarations (network/): plugins loaded safely, layer parameters,
 * networks parsed and built. Not part of the public API; above util/ (core/src/README.md). */
#ifndef SCALEMETER_NETWORK_INTERNAL_H
#define SCALEMETER_NETWORK_INTERNAL_H

#include "util/util.h"

/* One key=value parameter of a layer line. */
typedef struct sm_kv {
    char *key;
    char *value;
    int used;
} sm_kv;

/* The host side of sm_args: the plugin reads keys, the host remembers which and the first
 * failure. */
#define HOST_ARGS_ASKED 24
#define HOST_ARGS_KEY_LEN 48
typedef struct host_args {
    sm_args base;
    sm_kv *kv;
    int n;
    char error[SM_ERROR_LEN];
    /* the keys the plugin asked for, given or not, which an unknown key's message lists; copied,
     * as a plugin may build a key in its own stack buffer (conv3d's kernel_d) */
    char asked[HOST_ARGS_ASKED][HOST_ARGS_KEY_LEN];
    int n_asked;
} host_args;

void host_args_init(host_args *a, sm_kv *kv, int n);
/* 0 when parsing went well and every key was read; else -1 with the reason in msg. */
int host_args_finish(host_args *a, char *msg, size_t len);

/* Refuses, naming the file, what dlopen would crash on: a truncated, foreign or non-ELF .so,
 * or one whose dynamic section points outside it (elf_check.c), and one whose symbol entry
 * (may be NULL) is defined but not a function. */
int sm_elf_check(const char *path, const char *entry, sm_status *st);
/* The dynamic section's part of sm_elf_check, on the open file of size bytes (elf_dynamic.c). */
int sm_elf_check_dynamic(int fd, uint64_t size, const char *path, const char *entry, sm_status *st);

/* While a plugin loads (plugin_guard.c): a crash inside it names the plugin on stderr. */
void sm_plugin_guard_begin(const char *path);
void sm_plugin_guard_end(void);
/* Reads SCALEMETER_PLUGIN_TIMEOUT, the wall-clock seconds a plugin call with a what may take
 * before the process ends naming it (60 unset, 0 none): -1 with st set when it is not a number
 * of seconds. */
int sm_plugin_timeout(sm_status *st);

/* Where a plugin's callbacks write while a network's layers are counted (plugin_window.c):
 * each struct at the end of pages of its own before one that cannot be touched, so that a
 * write past it faults inside the plugin's call, which the guard names, instead of corrupting
 * the host's heap. _open: NULL where the pages cannot be had (callers hand their own structs,
 * as before). _put: the slot's copy of size bytes of from (zeros where from is NULL), or NULL
 * where w is NULL or size more than the slot holds. */
#define SM_MAX_PARAMS_SIZE (1u << 20) /* registry.c's bound on a type's params_size */
enum {
    SM_WINDOW_PARAMS,
    SM_WINDOW_INPUTS,
    SM_WINDOW_SHAPE,
    SM_WINDOW_METRICS,
    SM_WINDOW_SAVED,
    SM_WINDOW_STRIDES,
    SM_WINDOW_IN_STRIDES,
    SM_WINDOW_ERROR,
    SM_WINDOW_N
};
typedef struct sm_plugin_window sm_plugin_window;
sm_plugin_window *sm_plugin_window_open(void);
void sm_plugin_window_close(sm_plugin_window *w);
void *sm_plugin_window_put(sm_plugin_window *w, int slot, const void *from, size_t size);
/* The slot whose guard page holds addr, or -1 (w NULL, or addr in none): arithmetic alone, for
 * the crash handler to tell a write past a struct from any other fault. */
int sm_plugin_window_guard_slot(const sm_plugin_window *w, const void *addr);
/* Which callback of the running layer's plugin runs now ("parse", "infer", "metrics", "saved",
 * "view_strides"), the window its structs lie in (or NULL) and its type's params_size, for a
 * crash's message (plugin_guard.c); cleared by sm_plugin_call_end. */
void sm_plugin_callback(const char *callback, const sm_plugin_window *w, size_t params_size);

/* Addresses a plugin hands over (plugin_memory.c): whether [p, p + len) lies in the loaded
 * segments of the plugin dlopen returned handle for; whether s is a string of fewer than max
 * bytes in some loaded object; whether fn lies in some loaded object. */
int sm_plugin_holds(void *handle, const void *p, size_t len);
int sm_loaded_string(const char *s, size_t max);
int sm_loaded_code(const void *fn);

/* A layer as the file writes it, before its inputs are resolved (network_parse.c). */
typedef struct draft_layer {
    char *name;     /* full name */
    char *scope;    /* block prefix names resolve in first, or NULL */
    int block;      /* index of the block instance */
    int line;       /* line of the layer (in a template: the template's line) */
    int block_line; /* line of the [block] section that instantiated it, or 0 */
    const sm_layer_type *type;
    sm_kv *kv;
    int n_kv;
    char **from; /* input names as written; n_from == 0: the previous layer */
    int n_from;
    int prev; /* the layer written before, or SM_NETWORK_INPUT */
} draft_layer;

typedef struct draft_block {
    char *name;
    char *in_name; /* the block's explicit `from`, or NULL */
    int in_index;  /* otherwise: the layer written before the block */
    int line;
} draft_block;

typedef struct draft_network {
    const sm_registry *registry; /* its types' (their plugins' files, for messages) */
    const char *path;
    char *name;
    sm_shape input;
    int optimizer;     /* [network] optimizer, the recipe's (sm_optimizer); -1: not named */
    char precision[8]; /* [network] precision, the recipe's; "": not named */
    int kv_cache;      /* sm_network_options' kv_cache: attention layers read with kv_cache=true */
    draft_layer *layers;
    int n_layers, cap_layers;
    draft_block *blocks;
    int n_blocks, cap_blocks;
} draft_network;

/* A reference to reg taken by a network loaded from it, and given back (NULL: none) when the
 * network is freed: the registry lives until its owner and every network have let it go. */
void sm_registry_hold(const sm_registry *reg);
void sm_registry_release(const sm_registry *reg);
/* A companion module of type name's (NAME_cpu.so or NAME_gpu.so) in a plugin folder where no
 * NAME.so is, its path in out: 1; else 0. Every folder scan skips companions as kernels of
 * their plugin, so such a file alone was passed over without a word. */
int sm_registry_orphan_companion(const sm_registry *reg, const char *name, char *out, size_t len);
/* sm_registry_find with the reason: 0 with *out NULL where no plugin provides name, -1 with st
 * set where loading a plugin failed (registry.c), SM_LOOKUP_USER_FAILED where it was one of
 * SCALEMETER_PLUGIN_PATH's, which all load at the first lookup whatever its name: the message
 * then leads with that plugin's file, and its caller says which lookup loaded it. */
#define SM_LOOKUP_USER_FAILED (-2)
int sm_registry_lookup(const sm_registry *reg, const char *name, const sm_layer_type **out,
                       sm_status *st);
/* The file of the plugin of a type of reg, or NULL (registry.c). */
const char *sm_registry_type_path(const sm_registry *reg, const sm_layer_type *type);
/* 0 where what layer l (of type t, inputs in) declares fits a layer that a fusing framework may
 * run inside a neighbour's kernel; -1 with st naming at, the type and file otherwise (a layer
 * of no such trait always fits: fused_bound.c). */
int sm_fused_bound(const sm_layer_type *t, const sm_layer *l, const sm_shape *in, const char *at,
                   const char *file, sm_status *st);
int sm_draft_parse(const sm_registry *reg, const char *path, draft_network *d, sm_status *st);
void sm_draft_free(draft_network *d);
/* The axis of a one-sample input that --image sets and sm_network_image reads: H of C x H x W
 * and of C x D x H x W (--image sets W, the next, too); L of a C x L that a convolution reads
 * (conv1d's waveform); S of S x E. */
int sm_image_axis(const sm_shape *input, int convolution_reads_it);
/* Whether a convolution reads the built network's 2-D input as C x L: directly, or through
 * layers that keep the shape of what they read from it (dropout, an activation, a norm, a
 * residual add), so that the axes it reads are still the input's. A layer that changes the
 * shape (a permute of S x E to E x S, a linear) ends the path. *ambiguous (may be NULL): the
 * convolution is reached only through a view of a square input, which may have swapped its
 * axes (a permute of 64x64 keeps the shape). */
int sm_network_conv_reads_input(const sm_network *net, int *ambiguous);
/* The shape of layer l's input k: the network's input, or the layer's that makes it. */
static inline const sm_shape *sm_input_shape(const sm_network *net, const sm_layer *l, int k)
{
    return l->inputs[k] < 0 ? &net->input : &net->layers[l->inputs[k]].out;
}

/* Resolves inputs, orders, infers shapes and costs: the draft becomes the network. */
int sm_network_build(draft_network *d, const sm_network_options *opt, sm_network **out,
                     sm_status *st);

#endif
