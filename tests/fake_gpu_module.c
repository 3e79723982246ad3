/*
 * A GPU companion module for the loader's tests (tests/abi.cmake), built without CUDA: a
 * kernel table whose entries only count calls. TEST_ABI_VERSION builds one of another version,
 * which sm_registry_gpu_kernels must refuse naming the file and both versions.
 */
#include <scalemeter/kernels.h>

#ifndef TEST_ABI_VERSION
#define TEST_ABI_VERSION SM_PLUGIN_ABI_VERSION
#endif

static int forward(const sm_layer_io *l, sm_error *err)
{
    (void)l;
    (void)err;
    return 0;
}

static int backward(const sm_layer_io *l, sm_error *err)
{
    (void)l;
    (void)err;
    return 0;
}

static const struct sm_gpu_kernels kernels = {
    .abi_version = TEST_ABI_VERSION,
    .struct_size = sizeof(struct sm_gpu_kernels),
    .forward = forward,
    .backward = backward,
};

SM_DEFINE_GPU_KERNELS(kernels)
