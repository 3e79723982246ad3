/* Plugins that mean harm or are badly broken, one per definition (tests/hostile.cmake):
 *   HOSTILE_NDIM       infer returns an output shape of 99 dimensions
 *   HOSTILE_PARAMS     params_size of 2^40 bytes
 *   HOSTILE_POINTER    the entry point returns 0x10 instead of a descriptor
 *   HOSTILE_DATA_ENTRY sm_plugin_layer_type is a data object, not a function
 *   HOSTILE_CRASH      the entry point writes to address 16 */
#include <stdint.h>

#include <scalemeter/plugin.h>

static void parse(void *params, sm_args *args)
{
    (void)params;
    (void)args;
}
static int infer(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err)
{
    (void)params, (void)n_in, (void)err;
    *out = in[0];
#ifdef HOSTILE_NDIM
    out->ndim = 99;
#endif
    return 0;
}

#ifndef HOSTILE_NAME
#define HOSTILE_NAME "test_hostile"
#endif

#ifdef HOSTILE_DATA_ENTRY
SM_PLUGIN_EXPORT const sm_layer_type SM_PLUGIN_ENTRY = {
#else
static const sm_layer_type desc = {
#endif
    SM_LAYER_TYPE_INIT,
    .name = HOSTILE_NAME,
    .summary = "hostile test plugin",
#ifdef HOSTILE_PARAMS
    .params_size = (size_t)1 << 40,
#endif
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = parse,
    .infer = infer,
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
#elif !defined(HOSTILE_DATA_ENTRY)
SM_DEFINE_PLUGIN(desc)
#endif
