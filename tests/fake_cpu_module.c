/*
 * A CPU companion module for the loader's tests (tests/abi.cmake): a kernel table whose entries
 * do nothing. TEST_NO_ENTRY builds one that exports something else, which
 * sm_registry_cpu_kernels must refuse naming the file; TEST_EXIT_IN_FORWARD one whose forward
 * kernel calls exit(0), TEST_CRASH_IN_FORWARD one whose forward kernel writes to address 16,
 * TEST_NO_FORWARD one whose table has no forward (tests/hostile.cmake).
 */
#include <stdint.h>
#include <stdlib.h>

#include <scalemeter/kernels.h>

/* unused where TEST_NO_FORWARD leaves it out of the table */
__attribute__((unused)) static int forward(const sm_layer_io *l, sm_error *err)
{
    (void)l;
    (void)err;
#ifdef TEST_EXIT_IN_FORWARD
    exit(0);
#endif
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

static const struct sm_cpu_kernels kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
#ifndef TEST_NO_FORWARD
    .forward = forward,
#endif
    .backward = backward,
};

#ifndef TEST_NO_ENTRY
SM_DEFINE_CPU_KERNELS(kernels)
#else
SM_PLUGIN_EXPORT const struct sm_cpu_kernels *not_the_entry_point(void);
SM_PLUGIN_EXPORT const struct sm_cpu_kernels *not_the_entry_point(void) { return &kernels; }
#endif
