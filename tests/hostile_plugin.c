/* Plugins that mean harm or are badly broken, one per definition (tests/hostile.cmake):
 *   HOSTILE_NDIM             infer returns an output shape of 99 dimensions
 *   HOSTILE_PARAMS           params_size of 2^40 bytes
 *   HOSTILE_POINTER          the entry point returns 0x10 instead of a descriptor
 *   HOSTILE_DATA_ENTRY       sm_plugin_layer_type is a data object, not a function
 *   HOSTILE_CRASH            the entry point writes to address 16
 *   HOSTILE_INFER_NOTERM     infer fills err->msg to its last byte with no NUL ('E')
 *   HOSTILE_METRICS_NOTERM   metrics does the same ('M')
 *   HOSTILE_SAVED_NOTERM     saved does the same ('S')
 *   HOSTILE_CPU_POINTER      the descriptor's own CPU kernel table is at 0x10
 *   HOSTILE_NEGATIVE_IO      metrics says the layer outputs -10^8 elements a sample
 *   HOSTILE_NEGATIVE_TENSORS metrics says 5 weights in -10^6 parameter tensors
 *   HOSTILE_FAIL_NULL        parse fails with a NULL reason
 *   HOSTILE_PRINTS           a constructor, parse, infer and metrics print to standard output
 *   HOSTILE_EXITS            metrics calls exit(0)
 *   HOSTILE_SHADOW           a file named shadow.so that provides the shipped type conv2d
 *   HOSTILE_SAVED_HUGE       saved says the layer keeps 2^63 - 2 elements of its own a sample
 *   HOSTILE_SAVED_INPUT      saved keeps input 1 of a layer of one input
 *   HOSTILE_KEPT_NEGATIVE    saved says an inference pass keeps -1 elements of its own
 *   HOSTILE_OLD_KEPT         ABI 20, saved writing infer_kept_elems, which ABI 21 added
 *   HOSTILE_UNKNOWN_TRAITS   traits has every bit set, most of them no trait of plugin.h
 *   HOSTILE_HUGE_WEIGHTS     metrics says 2^63 - 2 weights, whose 4-byte reads overflow
 *   HOSTILE_METRICS_CRASH    metrics writes to address 16
 *   HOSTILE_MACS             metrics says 6 multiply-accumulates in 10 FLOPs
 *   HOSTILE_TENSORLESS       metrics says 5 weights in no parameter tensor
 *   HOSTILE_ABORTS           metrics calls abort(), as a failed assert() does
 *   HOSTILE_DIVIDES          metrics divides an integer by zero (SIGFPE)
 *   HOSTILE_RECURSES         infer recurses without end, until its stack overflows
 *   HOSTILE_WRITES_INPUT     infer and metrics write 1000 channels into their const
 *                            input shape (a cast)
 *   HOSTILE_SPINS            metrics loops without end (a loop whose exit test is wrong)
 * and the fifth campaign's (2026-11-26):
 *   HOSTILE_VIEW_STRIDES     a view whose view_strides is at 0x10
 *   HOSTILE_PARTIAL_SIZE     struct_size ends inside traits (0xffffffff, read as 0xffff)
 *   HOSTILE_OUTPUT_ELEMS     metrics says its output is 1 element where its shape holds 192
 *   HOSTILE_ALIAS_GROWS      an output twice its input's channels, said to be its storage
 *   HOSTILE_SELECTIVE        keeps 1000 elements selectively of the 0 it keeps
 *   HOSTILE_ACTIVATION       an activation (SM_TRAIT_ACTIVATION) with 5 weights
 *   HOSTILE_OLD_TRAITS       ABI 8, declaring SM_TRAIT_TIED, which ABI 13 added
 *   HOSTILE_LONG_NAME        a type name of 300 characters
 *   HOSTILE_GROUP_CHANNELS   metrics says 4 channels a group of a layer that is no convolution
 *   HOSTILE_NEW_TRAIT        ABI 14, declaring SM_TRAIT_POOLING, which ABI 15 added
 *   HOSTILE_POOLING_WEIGHTS  a pooling (SM_TRAIT_POOLING) with 5 weights
 *   HOSTILE_POOLING_MATMUL   a pooling that declares SM_TRAIT_MATMUL too
 *   HOSTILE_NORM_ROWS_BATCH  a batch norm (batch statistics) that declares norm_rows
 *   HOSTILE_NORM_ROWS_HUGE   a layer norm of 1000 rows over a sample of 192 elements
 *   HOSTILE_LOSS_TRAIT       ABI 16, declaring SM_TRAIT_LOSS, which ABI 17 added
 *   HOSTILE_LOSS_WEIGHTS     a loss (SM_TRAIT_LOSS) with 5 weights
 *   HOSTILE_BROADCAST_PASSES 3 broadcast passes over the scores of a layer with no such pass
 *   HOSTILE_VIEW_COPIES      2^40 elements copied backward, beyond every byte the layer moves
 *   HOSTILE_BIAS_GRADS       2^40 bias-gradient elements summed, beyond every byte it moves
 *   HOSTILE_BIAS_SUMS        a bias-gradient sum of no elements
 *   HOSTILE_ELEMENTWISE_TRAIT ABI 17, declaring SM_TRAIT_ELEMENTWISE, which ABI 18 added
 *   HOSTILE_LINEAR_ELEMS     a product (SM_TRAIT_MATMUL) of 3072 FLOPs reading 2^40 elements
 *   HOSTILE_OLD_LINEAR       ABI 21, writing the linear products' fields, which ABI 22 added
 * and the sixth campaign's (fusion and loading):
 *   HOSTILE_FUSED_ACTIVATION an activation, HOSTILE_FUSED_NORM a batch norm and
 *   HOSTILE_FUSED_RESIDUAL   a residual sum of 2 inputs, each of which a fusing framework
 *                            prices nothing of its own, whose parameter heavy=COUNT declares
 *                            that count just past its bound (fused_bound.c), edge every count
 *                            at its bound, none only the FLOPs of 2 an element
 *   HOSTILE_SETS_LOCALE      a constructor calls setlocale(LC_ALL, ""), as Qt and GTK do
 *   HOSTILE_PRINTS_LATE      a destructor and an atexit handler print to standard output
 *   HOSTILE_QUICK_EXITS      metrics calls quick_exit(0)
 *   HOSTILE_NAME_190         a type name of 190 characters ("layer = NAME" is 198: the most
 *   HOSTILE_NAME_191         a line holds) and one of 191
 *   HOSTILE_HEAP_NAME        a type name built on the heap by the entry point
 *   HOSTILE_LONG_SUMMARY     a summary of 4096 characters
 * and the ninth campaign's (2026-11-28):
 *   HOSTILE_OVERRUNS         writes 64 KiB past the struct its parameter past=WHAT names
 *                            (params in parse, output in infer, metrics, saved, strides in
 *                            view_strides, error in metrics; none: a well-behaved layer)
 * and the plugin-developer audit's (2026-11-29): traits that contradict the layer, each priced
 * silently as the trait says:
 *   HOSTILE_CONV_NO_MATMUL   a convolution (SM_TRAIT_CONVOLUTION) without SM_TRAIT_MATMUL
 *   HOSTILE_RESIDUAL_ONE     a residual sum (SM_TRAIT_RESIDUAL) of at most one input
 *   HOSTILE_ACTIVATION_TWO   an activation (SM_TRAIT_ACTIVATION) of up to two inputs
 *   HOSTILE_VIEW_FLOPS       a view (SM_TRAIT_VIEW) of 1 FLOP an element
 *   HOSTILE_MACS_NO_MATMUL   6 multiply-accumulates in 20 FLOPs, none of them a matrix product
 *   HOSTILE_MATMUL_NO_MACS   a matrix product (SM_TRAIT_MATMUL) of 20 FLOPs and no
 *                            multiply-accumulate
 * and failures that say nothing: a bare "inputs do not fit" named no plugin:
 *   HOSTILE_INFER_NOMSG      infer, HOSTILE_METRICS_NOMSG metrics and HOSTILE_SAVED_NOMSG
 *                            saved return 1 without a reason
 *   HOSTILE_SHAPE_NEGATIVE   infer gives an output of -3 channels */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scalemeter/kernels.h>
#include <scalemeter/plugin.h>

#ifdef HOSTILE_PRINTS
#define SAY(what) printf("hostile plugin output from %s\n", what)
__attribute__((constructor)) static void loaded(void) { SAY("a constructor"); }
#else
#define SAY(what) (void)0
#endif

#ifdef HOSTILE_CTOR_SPINS
/* a constructor that never returns: dlopen never did, and `scalemeter plugins` hung for good */
__attribute__((constructor)) static void spin_on_load(void)
{
    for (volatile int64_t i = 0; i >= 0; i = (i + 1) % 1000)
        ;
}
#endif

#ifdef HOSTILE_SETS_LOCALE
#include <locale.h>
__attribute__((constructor)) static void take_locale(void) { setlocale(LC_ALL, ""); }
#endif

#ifdef HOSTILE_PRINTS_LATE
static void at_end(void) { printf("hostile plugin output from an atexit handler\n"); }
__attribute__((constructor)) static void register_end(void) { atexit(at_end); }
__attribute__((destructor)) static void unloaded(void)
{
    printf("hostile plugin output from a destructor\n");
    fflush(stdout);
}
#endif

#if defined(HOSTILE_FUSED_ACTIVATION) || defined(HOSTILE_FUSED_NORM) ||                            \
    defined(HOSTILE_FUSED_RESIDUAL)
#define HOSTILE_FUSED
static const char *const heavy_counts[] = {
    "none",         "edge",    "flops",   "bwd_flops",       "bytes",
    "upcast_bytes", "weights", "kernels", "library_kernels", NULL};
enum {
    HEAVY_NONE,
    HEAVY_EDGE,
    HEAVY_FLOPS,
    HEAVY_BWD_FLOPS,
    HEAVY_BYTES,
    HEAVY_UPCAST_BYTES,
    HEAVY_WEIGHTS,
    HEAVY_KERNELS,
    HEAVY_LIBRARY_KERNELS
};
#endif

#ifdef HOSTILE_OVERRUNS
static const char *const overrun_at[] = {"none",  "params",  "output", "metrics",
                                         "saved", "strides", "error",  NULL};
enum { PAST_NONE, PAST_PARAMS, PAST_OUTPUT, PAST_METRICS, PAST_SAVED, PAST_STRIDES, PAST_ERROR };
/* a write of 64 KiB from the start of a struct of size bytes: what a memset of the wrong size
 * or a loop past an array's end does. Through a volatile pointer, which the compiler cannot
 * prove out of bounds (and so warn of, or drop) */
static void overrun(void *p, size_t size)
{
    volatile unsigned char *b = p;
    for (size_t i = 0; i < size + 65536; i++)
        b[i] = 0x5a;
}
#define PAST(what, p, size)                                                                        \
    do {                                                                                           \
        if (*(const int *)params == (what))                                                        \
            overrun((void *)(p), (size));                                                          \
    } while (0)
#else
#define PAST(what, p, size) (void)0
#endif

static void parse(void *params, sm_args *args)
{
    (void)params;
    SAY("parse");
#ifdef HOSTILE_OVERRUNS
    *(int *)params = sm_arg_choice(args, "past", overrun_at, PAST_NONE);
    PAST(PAST_PARAMS, params, sizeof(int));
#endif
#ifdef HOSTILE_FAIL_NULL
    sm_arg_fail(args, NULL);
#elif defined(HOSTILE_FUSED)
    *(int *)params = sm_arg_choice(args, "heavy", heavy_counts, HEAVY_NONE);
#elif !defined(HOSTILE_OVERRUNS)
    (void)args;
#endif
}

/* a reason of SM_ERROR_LEN bytes, none of them NUL */
static inline int unterminated(sm_error *err, char c)
{
    memset(err->msg, c, sizeof err->msg);
    return 1;
}

#ifdef HOSTILE_RECURSES
static int64_t deeper(volatile int64_t n)
{
    volatile char frame[4096];
    frame[0] = (char)n;
    return n ? deeper(n + 1) + frame[0] : 0;
}
#endif

static int infer(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err)
{
    (void)params, (void)n_in, (void)err;
    SAY("infer");
#ifdef HOSTILE_RECURSES
    if (deeper(in[0].ndim))
        return 1;
#endif
    *out = in[0];
    PAST(PAST_OUTPUT, out, sizeof *out);
#ifdef HOSTILE_ALIAS_GROWS
    out->dim[0] *= 2;
#endif
#ifdef HOSTILE_WRITES_INPUT
    ((sm_shape *)in)[0].dim[0] = 1000;
#endif
#ifdef HOSTILE_NDIM
    out->ndim = 99;
#endif
#ifdef HOSTILE_INFER_NOTERM
    return unterminated(err, 'E');
#endif
#ifdef HOSTILE_SHAPE_NEGATIVE
    out->dim[0] = -3;
#endif
#ifdef HOSTILE_INFER_NOMSG
    return 1;
#endif
    return 0;
}

#ifdef HOSTILE_DIVIDES
/* The division the CPU traps (SIGFPE), also in the sanitizer build, whose UBSan would report
 * it first and exit: what the guard must name is the trap a plugin built without it raises. */
__attribute__((no_sanitize("integer-divide-by-zero"), noinline)) static int64_t divide(int64_t a,
                                                                                       int64_t b)
{
    return a / b;
}
#endif

static int metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                   sm_layer_metrics *m, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)out, (void)m, (void)err;
    SAY("metrics");
    PAST(PAST_METRICS, m, sizeof *m);
    PAST(PAST_ERROR, err, sizeof *err);
#ifdef HOSTILE_WRITES_INPUT
    ((sm_shape *)in)[0].dim[0] = 1000;
#endif
#ifdef HOSTILE_EXITS
    exit(0);
#endif
#ifdef HOSTILE_QUICK_EXITS
    quick_exit(0);
#endif
#ifdef HOSTILE_METRICS_NOTERM
    return unterminated(err, 'M');
#endif
#ifdef HOSTILE_METRICS_NOMSG
    return 1;
#endif
#ifdef HOSTILE_NEGATIVE_IO
    m->output_elems = -100000000;
#endif
#ifdef HOSTILE_HUGE_WEIGHTS
    m->weights = INT64_MAX - 1;
    m->param_tensors = 1;
#endif
#ifdef HOSTILE_TENSORLESS
    m->weights = 5;
#endif
#ifdef HOSTILE_METRICS_CRASH
    volatile uintptr_t bad = 16;
    *(volatile int *)bad = 1;
#endif
#ifdef HOSTILE_ABORTS
    abort();
#endif
#ifdef HOSTILE_SPINS
    for (volatile int64_t i = 0; i >= 0; i = (i + 1) % 1000)
        ;
#endif
#ifdef HOSTILE_DIVIDES
    volatile int64_t zero = 0;
    m->flops = divide(sm_shape_elems(out), zero);
#endif
#ifdef HOSTILE_MACS
    m->flops = 10;
    m->macs = 6;
#endif
#ifdef HOSTILE_NEGATIVE_TENSORS
    m->weights = 5;
    m->param_tensors = -1000000;
#endif
#ifdef HOSTILE_OUTPUT_ELEMS
    m->output_elems = 1;
#endif
#ifdef HOSTILE_GROUP_CHANNELS
    m->group_channels = 4;
#endif
#ifdef HOSTILE_NORM_ROWS_BATCH
    m->norm_rows = 4;
#endif
#ifdef HOSTILE_NORM_ROWS_HUGE
    m->norm_rows = 1000;
#endif
#ifdef HOSTILE_BROADCAST_PASSES
    m->scores_broadcast_passes = 3;
#endif
#ifdef HOSTILE_VIEW_COPIES
    m->copy_elems_bwd = (int64_t)1 << 40;
#endif
#ifdef HOSTILE_BIAS_GRADS
    m->bias_grad_elems = (int64_t)1 << 40;
#endif
#ifdef HOSTILE_BIAS_SUMS
    m->bias_grad_sums = 1;
#endif
#if defined(HOSTILE_LINEAR_ELEMS) || defined(HOSTILE_OLD_LINEAR)
    /* one product of 3072 FLOPs over the 192 elements of a 3 x 8 x 8 sample */
    m->flops = 3072;
    m->macs = 1536;
    m->weights = 64;
    m->param_tensors = 1;
    m->linear_products = 1;
    m->linear_flops = 3072;
    m->linear_input_elems = (int64_t)1 << 40;
    m->linear_output_elems = 192;
#endif
#ifdef HOSTILE_VIEW_FLOPS
    m->flops = sm_shape_elems(out);
#endif
#ifdef HOSTILE_MACS_NO_MATMUL
    m->flops = 20;
    m->macs = 6;
#endif
#ifdef HOSTILE_MATMUL_NO_MACS
    m->flops = 20;
#endif
#if defined(HOSTILE_ACTIVATION) || defined(HOSTILE_POOLING_WEIGHTS) || defined(HOSTILE_LOSS_WEIGHTS)
    m->weights = 5;
    m->param_tensors = 1;
#endif
#ifdef HOSTILE_FUSED
    /* the bounds of fused_bound.c: 64 FLOPs forward and 128 backward an element of the
     * inputs or output (whichever are more), 36 bytes an element of both, 11 kernels a pass,
     * no library kernels, weights 2 a channel (a batch norm's) or none */
    int64_t in_elems = 0;
    for (int j = 0; j < n_in; j++)
        in_elems += sm_shape_elems(&in[j]);
    int64_t elems = in_elems > sm_shape_elems(out) ? in_elems : sm_shape_elems(out);
    int64_t io = in_elems + sm_shape_elems(out);
    int heavy = *(const int *)params, edge = heavy == HEAVY_EDGE;
    m->flops = edge || heavy == HEAVY_FLOPS ? (64 + !edge) * elems : 2 * elems;
    if (edge || heavy == HEAVY_BWD_FLOPS)
        m->bwd_flops = (128 + !edge) * elems;
    if (edge || heavy == HEAVY_BYTES)
        m->bytes = 36 * io + !edge;
    if (edge || heavy == HEAVY_UPCAST_BYTES)
        m->upcast_bytes = 36 * io + !edge;
    if (edge || heavy == HEAVY_KERNELS)
        m->kernels_fwd = m->kernels_bwd = 11 + !edge;
    m->library_kernels_bwd = heavy == HEAVY_LIBRARY_KERNELS;
#ifdef HOSTILE_FUSED_NORM
    if (edge || heavy == HEAVY_WEIGHTS)
        m->weights = (2 + !edge) * out->dim[0], m->param_tensors = 2;
#else
    if (heavy == HEAVY_WEIGHTS)
        m->weights = 1, m->param_tensors = 1;
#endif
#endif
    return 0;
}

#ifdef HOSTILE_SAVED_NOTERM
static int saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                 sm_layer_saved *s, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)out, (void)s;
    return unterminated(err, 'S');
}
#endif

#ifdef HOSTILE_OVERRUNS
#define HOSTILE_HAS_SAVED
static int saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                 sm_layer_saved *s, sm_error *err)
{
    (void)in, (void)n_in, (void)out, (void)err;
    s->inputs = 1;
    PAST(PAST_SAVED, s, sizeof *s);
    return 0;
}

/* a layer that keeps its input's layout, as a convolution may (ABI 14) */
static int view_strides(const void *params, const sm_shape *in, const int64_t *in_strides,
                        const sm_shape *out, int64_t *strides)
{
    (void)in, (void)in_strides, (void)out;
    PAST(PAST_STRIDES, strides, SM_MAX_DIMS * sizeof *strides);
    return 0;
}
#endif

#ifdef HOSTILE_SAVED_NOMSG
#define HOSTILE_HAS_SAVED
static int saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                 sm_layer_saved *s, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)out, (void)s, (void)err;
    return 1;
}
#endif

#if defined(HOSTILE_SAVED_HUGE) || defined(HOSTILE_SAVED_INPUT) || defined(HOSTILE_ALIAS_GROWS) || \
    defined(HOSTILE_SELECTIVE) || defined(HOSTILE_KEPT_NEGATIVE) || defined(HOSTILE_OLD_KEPT)
#define HOSTILE_HAS_SAVED
static int saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                 sm_layer_saved *s, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)out, (void)err;
#if defined(HOSTILE_SAVED_HUGE)
    s->inputs = 1;
    s->extra_elems = INT64_MAX - 1;
#elif defined(HOSTILE_ALIAS_GROWS)
    s->output = 1;
    s->aliases_input = 1;
#elif defined(HOSTILE_SELECTIVE)
    s->selective = 1;
    s->selective_elems = 1000;
#elif defined(HOSTILE_KEPT_NEGATIVE)
    s->inputs = 1;
    s->infer_kept_elems = -1;
#elif defined(HOSTILE_OLD_KEPT)
    s->inputs = 1;
    s->infer_kept_elems = (int64_t)1 << 30;
#else
    s->inputs = 2;
#endif
    return 0;
}
#endif

#ifdef HOSTILE_VIEW_STRIDES
#define HOSTILE_TRAITS SM_TRAIT_VIEW
#elif defined(HOSTILE_PARTIAL_SIZE)
#define HOSTILE_TRAITS 0xffffffffu
#elif defined(HOSTILE_ACTIVATION)
#define HOSTILE_TRAITS SM_TRAIT_ACTIVATION
#elif defined(HOSTILE_OLD_TRAITS)
#define HOSTILE_TRAITS SM_TRAIT_TIED
#elif defined(HOSTILE_NEW_TRAIT) || defined(HOSTILE_POOLING_WEIGHTS)
#define HOSTILE_TRAITS SM_TRAIT_POOLING
#elif defined(HOSTILE_POOLING_MATMUL)
#define HOSTILE_TRAITS (SM_TRAIT_POOLING | SM_TRAIT_MATMUL)
#elif defined(HOSTILE_NORM_ROWS_BATCH)
#define HOSTILE_TRAITS (SM_TRAIT_NORMALISATION | SM_TRAIT_BATCH_STATISTICS)
#elif defined(HOSTILE_NORM_ROWS_HUGE)
#define HOSTILE_TRAITS SM_TRAIT_NORMALISATION
#elif defined(HOSTILE_LOSS_TRAIT) || defined(HOSTILE_LOSS_WEIGHTS)
#define HOSTILE_TRAITS SM_TRAIT_LOSS
#elif defined(HOSTILE_ELEMENTWISE_TRAIT)
#define HOSTILE_TRAITS SM_TRAIT_ELEMENTWISE
#elif defined(HOSTILE_FUSED_ACTIVATION)
#define HOSTILE_TRAITS SM_TRAIT_ACTIVATION
#elif defined(HOSTILE_FUSED_NORM)
#define HOSTILE_TRAITS (SM_TRAIT_NORMALISATION | SM_TRAIT_BATCH_STATISTICS)
#elif defined(HOSTILE_FUSED_RESIDUAL)
#define HOSTILE_TRAITS SM_TRAIT_RESIDUAL
#define HOSTILE_MAX_INPUTS 2
#elif defined(HOSTILE_CONV_NO_MATMUL)
#define HOSTILE_TRAITS SM_TRAIT_CONVOLUTION
#elif defined(HOSTILE_RESIDUAL_ONE)
#define HOSTILE_TRAITS SM_TRAIT_RESIDUAL
#elif defined(HOSTILE_ACTIVATION_TWO)
#define HOSTILE_TRAITS SM_TRAIT_ACTIVATION
#define HOSTILE_MAX_INPUTS 2
#elif defined(HOSTILE_VIEW_FLOPS)
#define HOSTILE_TRAITS SM_TRAIT_VIEW
#elif defined(HOSTILE_MATMUL_NO_MACS) || defined(HOSTILE_LINEAR_ELEMS) ||                          \
    defined(HOSTILE_OLD_LINEAR)
#define HOSTILE_TRAITS SM_TRAIT_MATMUL
#endif
#ifndef HOSTILE_MAX_INPUTS
#define HOSTILE_MAX_INPUTS 1
#endif
#define HOSTILE_NAME_10 "test_host_"
#define HOSTILE_NAME_90                                                                            \
    HOSTILE_NAME_10 HOSTILE_NAME_10 HOSTILE_NAME_10 HOSTILE_NAME_10 HOSTILE_NAME_10                \
        HOSTILE_NAME_10 HOSTILE_NAME_10 HOSTILE_NAME_10 HOSTILE_NAME_10
#define HOSTILE_NAME_100 HOSTILE_NAME_90 HOSTILE_NAME_10
#ifdef HOSTILE_LONG_NAME
#undef HOSTILE_NAME
#define HOSTILE_NAME HOSTILE_NAME_100 HOSTILE_NAME_100 HOSTILE_NAME_100
#elif defined(HOSTILE_NAME_190)
#undef HOSTILE_NAME
#define HOSTILE_NAME HOSTILE_NAME_100 HOSTILE_NAME_90
#elif defined(HOSTILE_NAME_191)
#undef HOSTILE_NAME
#define HOSTILE_NAME HOSTILE_NAME_100 HOSTILE_NAME_90 "x"
#endif
#ifdef HOSTILE_LONG_SUMMARY
/* filled when loaded: C11 compilers need take no literal past 4095 characters */
static char long_summary[4097];
__attribute__((constructor)) static void fill_summary(void) { memset(long_summary, 'a', 4096); }
#define HOSTILE_SUMMARY long_summary
#else
#define HOSTILE_SUMMARY "hostile test plugin"
#endif

#ifndef HOSTILE_NAME
#define HOSTILE_NAME "test_hostile"
#endif

/* the size and version set after SM_LAYER_TYPE_INIT's, on purpose */
#pragma GCC diagnostic ignored "-Woverride-init"
#ifdef HOSTILE_DATA_ENTRY
SM_PLUGIN_EXPORT const sm_layer_type SM_PLUGIN_ENTRY = {
#else
static const sm_layer_type desc = {
#endif
    SM_LAYER_TYPE_INIT,
    .name = HOSTILE_NAME,
    .summary = HOSTILE_SUMMARY,
#ifdef HOSTILE_PARAMS
    .params_size = (size_t)1 << 40,
#endif
#if defined(HOSTILE_FUSED) || defined(HOSTILE_OVERRUNS)
    .params_size = sizeof(int),
#endif
#ifdef HOSTILE_OVERRUNS
    .view_strides = view_strides,
#endif
    .min_inputs = 1,
    .max_inputs = HOSTILE_MAX_INPUTS,
    .parse = parse,
    .infer = infer,
    .metrics = metrics,
#ifdef HOSTILE_CPU_POINTER
    .cpu = (const struct sm_cpu_kernels *)(uintptr_t)0x10,
#endif
#if defined(HOSTILE_SAVED_NOTERM) || defined(HOSTILE_HAS_SAVED)
    .saved = saved,
#endif
#ifdef HOSTILE_UNKNOWN_TRAITS
    .traits = 0xffffffffu,
#endif
#ifdef HOSTILE_TRAITS
    .traits = HOSTILE_TRAITS,
#endif
#ifdef HOSTILE_VIEW_STRIDES
    .view_strides = (int (*)(const void *, const sm_shape *, const int64_t *, const sm_shape *,
                             int64_t *))(uintptr_t)0x10,
#endif
#ifdef HOSTILE_PARTIAL_SIZE
    .struct_size = offsetof(sm_layer_type, traits) + 2,
#endif
#ifdef HOSTILE_OLD_TRAITS
    .abi_version = 8,
#endif
#ifdef HOSTILE_NEW_TRAIT
    .abi_version = 14,
#endif
#ifdef HOSTILE_LOSS_TRAIT
    .abi_version = 16,
#endif
#ifdef HOSTILE_ELEMENTWISE_TRAIT
    .abi_version = 17,
#endif
#ifdef HOSTILE_OLD_KEPT
    .abi_version = 20,
#endif
#ifdef HOSTILE_OLD_LINEAR
    .abi_version = 21,
#endif
};

#if defined(HOSTILE_POINTER) || defined(HOSTILE_CRASH)
SM_PLUGIN_EXPORT const sm_layer_type *SM_PLUGIN_ENTRY(const sm_host *host);
SM_PLUGIN_EXPORT const sm_layer_type *SM_PLUGIN_ENTRY(const sm_host *host)
{
    (void)host;
    volatile uintptr_t bad = 16;
#ifdef HOSTILE_CRASH
    *(volatile int *)bad = 1;
#endif
    return bad ? (const sm_layer_type *)bad : &desc;
}
#elif defined(HOSTILE_HEAP_NAME)
static sm_layer_type heap_named; /* the descriptor is the plugin's; its name is not */
SM_PLUGIN_EXPORT const sm_layer_type *SM_PLUGIN_ENTRY(const sm_host *host);
SM_PLUGIN_EXPORT const sm_layer_type *SM_PLUGIN_ENTRY(const sm_host *host)
{
    (void)host;
    heap_named = desc;
    char *name = malloc(sizeof HOSTILE_NAME);
    if (name)
        memcpy(name, HOSTILE_NAME, sizeof HOSTILE_NAME);
    heap_named.name = name;
    return &heap_named;
}
/* the host refuses the type and unloads the file: its name goes with it (LeakSanitizer) */
__attribute__((destructor)) static void free_heap_name(void) { free((char *)heap_named.name); }
#elif !defined(HOSTILE_DATA_ENTRY)
SM_DEFINE_PLUGIN(desc)
#endif
