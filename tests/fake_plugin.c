/* A well-formed test plugin: type "test_identity", shape unchanged, no cost. */
#include <scalemeter/plugin.h>

static void parse(void *params, sm_args *args)
{
    (void)params;
    (void)args;
}
static int infer(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err)
{
    (void)params;
    (void)n_in;
    (void)err;
    *out = in[0];
    return 0;
}
static int metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                   sm_layer_metrics *m, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)out, (void)m, (void)err;
    return 0;
}

#ifndef TEST_TYPE_NAME
#define TEST_TYPE_NAME "test_identity"
#endif
#ifndef TEST_ABI_VERSION
#define TEST_ABI_VERSION SM_PLUGIN_ABI_VERSION
#endif

#ifdef TEST_OWN_CPU
/* CPU kernels in the descriptor itself, as plugins of ABI 2 and 3 were written before
 * NAME_cpu.so: the registry hands this table out and looks for no companion. */
#include <scalemeter/kernels.h>
static int own_pass(const sm_layer_io *l, sm_error *err)
{
    (void)l, (void)err;
    return 0;
}
/* TEST_OWN_CPU_SMALL: a table of 4 bytes; TEST_OWN_CPU_NO_FORWARD: one without forward
 * (tests/hostile.cmake) */
static const struct sm_cpu_kernels own_cpu = {
#ifdef TEST_OWN_CPU_SMALL
    .struct_size = 4,
#else
    .struct_size = sizeof(struct sm_cpu_kernels),
#endif
#ifndef TEST_OWN_CPU_NO_FORWARD
    .forward = own_pass,
#endif
    .backward = own_pass,
};
#endif

static const sm_layer_type desc = {
    .abi_version = TEST_ABI_VERSION,
    .struct_size = sizeof(sm_layer_type),
    .name = TEST_TYPE_NAME,
    .summary = "test plugin",
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = parse,
    .infer = infer,
    .metrics = metrics,
#ifdef TEST_OWN_CPU
    .cpu = &own_cpu,
#endif
};

#if defined(TEST_NO_EXPORT)
/* Exports nothing at all: its author left out SM_DEFINE_PLUGIN. The GNU hash table of such a
 * library has no symbol in any bucket (GNU ld 2.40 writes symoffset 1 with its undefined
 * symbols after it), which the ELF check once read as relocations pointing outside the symbol
 * table. */
const sm_layer_type *fake_plugin_desc(void);
const sm_layer_type *fake_plugin_desc(void) { return &desc; }
#elif !defined(TEST_NO_ENTRY)
SM_DEFINE_PLUGIN(desc)
#else
/* Exports something, but not the entry point. */
SM_PLUGIN_EXPORT const sm_layer_type *not_the_entry_point(void);
SM_PLUGIN_EXPORT const sm_layer_type *not_the_entry_point(void) { return &desc; }
#endif
