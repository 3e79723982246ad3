/*
 * A plugin as ABI version 1 built them, for the loader's refusal: an entry point taking no
 * argument and a descriptor with version 1's fields (the kernels of both backends in it). Only
 * the first two fields, which every version shares, may be read; the loader must refuse it
 * naming the file and both versions, not call anything of it.
 */
#include <stddef.h>
#include <stdint.h>

typedef struct v1_layer_type {
    uint32_t abi_version;
    uint32_t struct_size;
    const char *name;
    const char *summary;
    size_t params_size;
    int min_inputs, max_inputs;
    void (*parse)(void *params, void *args);
    int (*infer)(void);
    int (*metrics)(void);
    const void *cpu;
    const void *gpu;
} v1_layer_type;

static const v1_layer_type desc = {
    .abi_version = 1,
    .struct_size = sizeof(v1_layer_type),
    .name = "test_v1",
    .summary = "a plugin of ABI version 1",
    .min_inputs = 1,
    .max_inputs = 1,
};

__attribute__((visibility("default"))) const v1_layer_type *sm_plugin_layer_type(void);
__attribute__((visibility("default"))) const v1_layer_type *sm_plugin_layer_type(void)
{
    return &desc;
}
