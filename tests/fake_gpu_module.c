/*
 * A GPU companion module for the loader's tests (tests/abi.cmake), built without CUDA: a
 * kernel table whose entries only count calls. TEST_ABI_VERSION builds one of another version,
 * which sm_registry_gpu_kernels must refuse naming the file and both versions; TEST_NO_FORWARD
 * one without forward, TEST_STRAY_SETUP one whose setup is at 0x30, TEST_CRASH_IN_FORWARD one
 * whose forward writes to address 16 on the host, as a bug in a launch's wrapper would
 * (tests/hostile.cmake).
 */
#include <stdint.h>

#include <scalemeter/kernels.h>

#ifndef TEST_ABI_VERSION
#define TEST_ABI_VERSION SM_PLUGIN_ABI_VERSION
#endif

/* unused where TEST_NO_FORWARD leaves it out of the table */
__attribute__((unused)) static int forward(const sm_layer_io *l, sm_error *err)
{
    (void)l;
    (void)err;
#ifdef TEST_CRASH_IN_FORWARD
    volatile uintptr_t bad = 16;
    *(volatile int *)bad = 1;
#endif
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
#ifndef TEST_NO_FORWARD
    .forward = forward,
#endif
    .backward = backward,
#ifdef TEST_STRAY_SETUP
    .setup = (int (*)(const sm_layer_io *, void **, sm_error *))(uintptr_t)0x30,
#endif
};

SM_DEFINE_GPU_KERNELS(kernels)
