/*
 * test_conformance: every layer type of the registry against the cases its plugin folder
 * carries (plugins/FOLDER/cases.ini, run by calibrate/conformance.c): output shapes and counts
 * expected from PyTorch, what it saves for backward, refusals, and the CPU gradient check. A
 * loaded type with no case, or with CPU kernels and no gradient-checked case, fails the suite,
 * naming the folder whose cases.ini should hold them: a new type's tests are written beside it.
 *
 * Built a second time as test_conformance_gpu (SM_CONFORMANCE_GPU, where CUDA is built): every
 * gradient-checked case also runs on the GPU from the CPU's numbers and must match the CPU
 * within its tolerance, and a type with GPU kernels needs such a case. Without a CUDA device
 * it exits 77 (ctest: skipped).
 *
 * The folder of a type is the one whose CMakeLists.txt names it (sm_plugin(NAME ...) or a
 * foreach list, as activation/ builds eight types). Run from the source tree.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conformance.h"
#include "executor.h"
#ifdef SM_CONFORMANCE_GPU
#include "conformance_cuda.h"
#include "cuda_device.h"
#endif

#define PLUGINS "plugins"

/* Whether text holds word as a whole word (letters, digits and _ around it do not count). */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

/* Whether a CMakeLists.txt builds type: sm_plugin(TYPE ...), or a foreach list naming it. */
static int builds(const char *path, const char *type)
{
    FILE *f = fopen(path, "r");
    char line[512], call[128];
    int found = 0;
    snprintf(call, sizeof call, "sm_plugin(%s ", type);
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, call) || (!strncmp(line, "foreach(", 8) && has_word(line + 8, type));
    if (f)
        fclose(f);
    return found;
}

/* The plugin folder whose CMakeLists.txt builds type, into dir ("?" when none does). */
static void folder_of(const char *type, char *dir, size_t len)
{
    snprintf(dir, len, "?");
    DIR *d = opendir(PLUGINS);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[512];
        snprintf(path, sizeof path, PLUGINS "/%s/CMakeLists.txt", e->d_name);
        if (builds(path, type)) {
            snprintf(dir, len, "%s", e->d_name);
            break;
        }
    }
    if (d)
        closedir(d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#ifdef SM_CONFORMANCE_GPU
/* 0 when there is a CUDA device (printed); 77, ctest's skipped, when there is none. */
static int probe_gpu(void)
{
    sm_status st;
    sm_cuda_info info;
    if (sm_cuda_probe(&info, &st)) {
        printf("no CUDA device: skipped (%s)\n", st.msg);
        return 77;
    }
    printf("%s, %.1f GB, sm_%d%d\n", info.name, info.memory_gb, info.major, info.minor);
    return 0;
}

/* Every type with both CPU and GPU kernels was compared on the GPU by one case at least. */
static void check_gpu_coverage(const sm_registry *reg, const sm_conformance_tally *t, int i,
                               const char *dir)
{
    const sm_layer_type *type = sm_registry_type(reg, i);
    const struct sm_gpu_kernels *k = NULL;
    sm_status st;
    CHECK_MSG(sm_registry_gpu_kernels(reg, type, &k, &st) == 0, "%s", st.msg);
    const struct sm_cpu_kernels *cpu = NULL;
    CHECK_MSG(sm_registry_cpu_kernels(reg, type, &cpu, &st) == 0, "%s", st.msg);
    CHECK_MSG(!k || !cpu || t->device_of[i] > 0,
              "layer type %s has GPU kernels but no case compared on the GPU in " PLUGINS
              "/%s/cases.ini (a gradient-checked case without device = no)",
              type->name, dir);
}
#endif

int main(void)
{
    sm_status st;
    sm_registry *reg = NULL;
#ifdef SM_CONFORMANCE_GPU
    if (probe_gpu())
        return 77;
#endif
    if (sm_registry_open(&reg, &st) || sm_registry_load_all(reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        sm_registry_free(reg);
        return 1;
    }
    sm_cpu_set_threads(1);
    int n = sm_registry_count(reg);
    sm_conformance_tally t = {0};
    t.cases_of = calloc((size_t)n, sizeof(int));
    t.gradients_of = calloc((size_t)n, sizeof(int));
#ifdef SM_CONFORMANCE_GPU
    t.device = sm_conformance_cuda();
    t.device_of = calloc((size_t)n, sizeof(int));
#endif

    /* every folder's cases, in name order so that the output reads the same on every run */
    char *folders[256];
    int n_folders = 0;
    DIR *d = opendir(PLUGINS);
    struct dirent *e;
    while (d && (e = readdir(d)) && n_folders < 256)
        if (e->d_name[0] != '.')
            folders[n_folders++] = strdup(e->d_name);
    if (d)
        closedir(d);
    CHECK(n_folders > 0);
    qsort(folders, (size_t)n_folders, sizeof *folders, by_name);
    for (int i = 0; i < n_folders; i++) {
        char path[512];
        snprintf(path, sizeof path, PLUGINS "/%s/cases.ini", folders[i]);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            int rc = sm_conformance_run(reg, path, stdout, &t, &st);
            CHECK_MSG(rc == 0, "%s", st.msg);
        }
        free(folders[i]);
    }
    CHECK_MSG(t.failures == 0, "%d of %d cases and refusals failed (FAIL lines above)", t.failures,
              t.cases + t.refusals);
    check_passed += t.cases + t.refusals - t.failures;

    /* every type has cases, and a gradient-checked one where it has CPU kernels */
    for (int i = 0; i < n; i++) {
        const sm_layer_type *type = sm_registry_type(reg, i);
        if (!strstr(sm_registry_path(reg, i), "/lib/scalemeter/plugins/"))
            continue; /* a user's plugin from SCALEMETER_PLUGIN_PATH: check-plugin's */
        char dir[256];
        folder_of(type->name, dir, sizeof dir);
        CHECK_MSG(t.cases_of[i] > 0,
                  "layer type %s has no conformance cases: add a [case NAME] with layer = %s ... "
                  "to " PLUGINS "/%s/cases.ini (docs/plugin-abi.md)",
                  type->name, type->name, dir);
        const struct sm_cpu_kernels *cpu = NULL;
        sm_status why;
        CHECK_MSG(sm_registry_cpu_kernels(reg, type, &cpu, &why) == 0, "%s", why.msg);
        CHECK_MSG(!cpu || t.gradients_of[i] > 0,
                  "layer type %s has CPU kernels but no gradient-checked case in " PLUGINS
                  "/%s/cases.ini",
                  type->name, dir);
#ifdef SM_CONFORMANCE_GPU
        check_gpu_coverage(reg, &t, i, dir);
#endif
    }
    printf("%d cases, %d refusals, %d gradient checks, %d compared on a device over %d types\n",
           t.cases, t.refusals, t.gradients, t.device_checks, n);
    free(t.device_of);
    free(t.cases_of);
    free(t.gradients_of);
    sm_registry_free(reg);
    return check_summary();
}
