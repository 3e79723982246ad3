/* The plugin loader: a good plugin loads; an ABI mismatch, a missing entry point and a second
 * plugin claiming a taken type name are refused with a message naming the file.
 * argv: good.so abi.so noentry.so dup.so (built from tests/fake_plugin.c) and the folder of
 * abi.so for the SCALEMETER_PLUGIN_PATH case. */
#include <stdlib.h>

#include "check.h"
#include "scalemeter/scalemeter.h"

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: test_registry good.so abi.so noentry.so dup.so abi_dir\n");
        return 2;
    }
    const char *good = argv[1], *abi = argv[2], *noentry = argv[3], *dup = argv[4];
    sm_status st;

    sm_registry *reg = sm_registry_new();
    CHECK_EQ(sm_registry_load_file(reg, good, &st), 0);
    CHECK_EQ(sm_registry_count(reg), 1);
    CHECK(sm_registry_find(reg, "test_identity") != NULL);
    CHECK(sm_registry_find(reg, "conv2d") == NULL);

    CHECK_EQ(sm_registry_load_file(reg, abi, &st), -1);
    CHECK_CONTAINS(st.msg, abi);
    CHECK_CONTAINS(st.msg, "ABI version 99");

    CHECK_EQ(sm_registry_load_file(reg, noentry, &st), -1);
    CHECK_CONTAINS(st.msg, noentry);
    CHECK_CONTAINS(st.msg, "no entry point sm_plugin_layer_type");

    CHECK_EQ(sm_registry_load_file(reg, good, &st), -1); /* the same type twice */
    CHECK_CONTAINS(st.msg, "layer type 'test_identity' is already provided by");

    CHECK_EQ(sm_registry_load_file(reg, "/nonexistent/x.so", &st), -1);
    CHECK_CONTAINS(st.msg, "/nonexistent/x.so: cannot load plugin");
    CHECK_EQ(sm_registry_count(reg), 1); /* refused plugins leave nothing behind */
    sm_registry_free(reg);

    /* The default folder of this build tree, found without any environment variable. */
    unsetenv("SCALEMETER_PLUGIN_PATH");
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK(sm_registry_count(reg) >= 24); /* the 24 layer types of issue 2 at least */
    static const char *const required[] = {
        "conv2d", "linear", "maxpool2d", "avgpool2d", "adaptive_avgpool2d", "batchnorm2d",
        "layernorm", "relu", "relu6", "silu", "sigmoid", "tanh", "gelu", "hardswish",
        "hardsigmoid", "add", "mul", "concat", "flatten", "dropout", "softmax",
        "channel_shuffle"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        CHECK(sm_registry_find(reg, required[i]) != NULL);
    /* a plugin claiming the name of one already loaded */
    CHECK_EQ(sm_registry_load_file(reg, dup, &st), -1);
    CHECK_CONTAINS(st.msg, dup);
    CHECK_CONTAINS(st.msg, "layer type 'conv2d' is already provided by");
    CHECK_CONTAINS(st.msg, "conv2d.so");
    sm_registry_free(reg);

    /* A bad plugin in SCALEMETER_PLUGIN_PATH stops loading with its name. */
    setenv("SCALEMETER_PLUGIN_PATH", argv[5], 1);
    CHECK_EQ(sm_registry_open(&reg, &st), -1);
    CHECK_CONTAINS(st.msg, abi);
    CHECK_CONTAINS(st.msg, "SCALEMETER_PLUGIN_PATH");
    return check_summary();
}
