/*
 * CPU companion modules (NAME_cpu.so): skipped by the folder scan, loaded on the first
 * sm_registry_cpu_kernels (once), refused with one line naming the module when they are not
 * kernel modules, absent without harm; a descriptor's own cpu table (plugins of ABI 2 and 3
 * written before the companions) is handed out as it is, and no companion is looked for.
 * argv: the folder of cpuok.so, cpubad.so, cpunone.so, cpuown.so and their companions (built
 * from tests/fake_plugin.c and tests/fake_cpu_module.c).
 */
#include <stdlib.h>

#include "check.h"
#include "scalemeter/kernels.h"
#include "scalemeter/scalemeter.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_registry_cpu CPU_FOLDER\n");
        return 2;
    }
    const char *dir = argv[1];
    sm_status st;
    char want[4096];

    /* the four descriptors load; the three companions are not taken for plugins */
    sm_registry *reg = sm_registry_new();
    CHECK_EQ(sm_registry_load_dir(reg, dir, &st), 0);
    CHECK_EQ(sm_registry_count(reg), 4);

    const struct sm_cpu_kernels *k = NULL, *again = NULL;
    const sm_layer_type *ok = sm_registry_find(reg, "test_cpuok");
    CHECK(ok != NULL);
    if (ok) {
        CHECK(ok->cpu == NULL); /* the descriptor has none: they come from cpuok_cpu.so */
        CHECK_EQ(sm_registry_cpu_kernels(reg, ok, &k, &st), 0);
        CHECK(k != NULL && k->forward != NULL && k->backward != NULL);
        CHECK_EQ(k ? k->struct_size : 0, sizeof(struct sm_cpu_kernels));
        CHECK_EQ(sm_registry_cpu_kernels(reg, ok, &again, &st), 0);
        CHECK(again == k); /* loaded once */
    }

    const sm_layer_type *none = sm_registry_find(reg, "test_cpunone");
    CHECK(none != NULL);
    if (none) {
        k = (const void *)1;
        CHECK_EQ(sm_registry_cpu_kernels(reg, none, &k, &st), 0);
        CHECK(k == NULL);
    }

    const sm_layer_type *bad = sm_registry_find(reg, "test_cpubad");
    CHECK(bad != NULL);
    if (bad) {
        snprintf(want, sizeof want,
                 "%s/cpubad_cpu.so: not a CPU kernel module: no entry point sm_plugin_cpu_kernels"
                 " (define it with SM_DEFINE_CPU_KERNELS(table), scalemeter/kernels.h)",
                 dir);
        for (int i = 0; i < 2; i++) { /* the same refusal the second time */
            CHECK_EQ(sm_registry_cpu_kernels(reg, bad, &k, &st), -1);
            CHECK(k == NULL);
            CHECK_STR_EQ(st.msg, want);
        }
    }

    /* cpuown_cpu.so would be refused as cpubad_cpu.so is: the descriptor's table wins */
    const sm_layer_type *own = sm_registry_find(reg, "test_cpuown");
    CHECK(own != NULL);
    if (own) {
        CHECK(own->cpu != NULL);
        CHECK_EQ(sm_registry_cpu_kernels(reg, own, &k, &st), 0);
        CHECK(k != NULL && k == own->cpu);
    }
    sm_registry_free(reg);
    return check_summary();
}
