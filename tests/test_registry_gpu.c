/*
 * The loader's side of ABI version 2: a plugin of version 1 is refused naming the file and both
 * versions; GPU companion modules are skipped by the folder scan, loaded on the first
 * sm_registry_gpu_kernels (once), refused when of another version, and absent without harm.
 * argv: the folder of gpuok.so, gpubad.so, gpunone.so and their companions (built from
 * tests/fake_plugin.c and tests/fake_gpu_module.c), and v1.so (tests/fake_plugin_v1.c).
 */
#include <stdlib.h>

#include "check.h"
#include "scalemeter/kernels.h"
#include "scalemeter/scalemeter.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_registry_gpu GPU_FOLDER v1.so\n");
        return 2;
    }
    const char *dir = argv[1], *v1 = argv[2];
    sm_status st;
    char want[4096];

    sm_registry *reg = sm_registry_new();
    CHECK_EQ(sm_registry_load_file(reg, v1, &st), -1);
    snprintf(want, sizeof want,
             "%s: built for plugin ABI version 1, this scalemeter loads versions 2 to %u", v1,
             SM_PLUGIN_ABI_VERSION);
    CHECK_CONTAINS(st.msg, want);
    CHECK(strchr(st.msg, '\n') == NULL);
    CHECK_EQ(sm_registry_count(reg), 0);

    /* the three descriptors load; the two companions are not taken for plugins */
    CHECK_EQ(sm_registry_load_dir(reg, dir, &st), 0);
    CHECK_EQ(sm_registry_count(reg), 3);

    const struct sm_gpu_kernels *k = NULL, *again = NULL;
    const sm_layer_type *ok = sm_registry_find(reg, "test_gpuok");
    CHECK(ok != NULL);
    if (ok) {
        CHECK_EQ(sm_registry_gpu_kernels(reg, ok, &k, &st), 0);
        CHECK(k != NULL && k->forward != NULL && k->backward != NULL);
        CHECK_EQ(sm_registry_gpu_kernels(reg, ok, &again, &st), 0);
        CHECK(again == k); /* loaded once */
    }

    const sm_layer_type *none = sm_registry_find(reg, "test_gpunone");
    CHECK(none != NULL);
    if (none) {
        k = (const void *)1;
        CHECK_EQ(sm_registry_gpu_kernels(reg, none, &k, &st), 0);
        CHECK(k == NULL);
    }

    const sm_layer_type *bad = sm_registry_find(reg, "test_gpubad");
    CHECK(bad != NULL);
    if (bad) {
        snprintf(want, sizeof want,
                 "%s/gpubad_gpu.so: built for plugin ABI version 1, this scalemeter loads "
                 "versions 2 to %u",
                 dir, SM_PLUGIN_ABI_VERSION);
        for (int i = 0; i < 2; i++) { /* the same refusal the second time */
            CHECK_EQ(sm_registry_gpu_kernels(reg, bad, &k, &st), -1);
            CHECK(k == NULL);
            CHECK_CONTAINS(st.msg, want);
        }
    }
    sm_registry_free(reg);
    return check_summary();
}
