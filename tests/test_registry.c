/* The plugin loader: a good plugin loads; an ABI mismatch, a missing entry point and a second
 * plugin claiming a taken type name are refused with a message naming the file.
 * argv: good.so abi.so noentry.so dup.so (built from tests/fake_plugin.c) and the folder of
 * abi.so for the SCALEMETER_PLUGIN_PATH case. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "layer_types.h"
#include "scalemeter/scalemeter.h"

/* Copies of a good plugin cut short, and files that are no plugin at all, are refused before
 * dlopen (which would crash inside the dynamic loader on some of them), naming the file. */
static void truncated_plugins(const char *good)
{
    FILE *in = fopen(good, "rb");
    CHECK(in != NULL);
    if (!in)
        return;
    static char bytes[1 << 22];
    size_t size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    CHECK(size > 4096 && size < sizeof bytes);
    char dir[] = "/tmp/sm_truncated_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const size_t cuts[] = {0, 16, 64, 100, size / 4, size / 2, size - 1};
    const char *const why[] = {"too short", "too short", "header tables", "header tables",
                               "truncated", "truncated", "truncated"};
    char path[128];
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        snprintf(path, sizeof path, "%s/cut%zu.so", dir, i);
        FILE *out = fopen(path, "wb");
        fwrite(bytes, 1, cuts[i], out);
        fclose(out);
        sm_registry *reg = sm_registry_new();
        sm_status st;
        int rc = sm_registry_load_file(reg, path, &st);
        CHECK_EQ(rc, -1);
        if (rc == -1) {
            CHECK_CONTAINS(st.msg, path);
            CHECK_CONTAINS(st.msg, why[i]);
        }
        sm_registry_free(reg);
        unlink(path);
    }
    /* the section headers sit at the end of a shared object: a copy missing its last byte
     * is refused whatever its segments say (above); text and a folder named .so are not ELF */
    snprintf(path, sizeof path, "%s/text.so", dir);
    FILE *out = fopen(path, "w");
    fputs("this is not a shared object\n", out);
    fclose(out);
    sm_registry *reg = sm_registry_new();
    sm_status st;
    CHECK_EQ(sm_registry_load_file(reg, path, &st), -1);
    CHECK_CONTAINS(st.msg, "not an ELF shared object");
    unlink(path);
    snprintf(path, sizeof path, "%s/folder.so", dir);
    mkdir(path, 0700);
    CHECK_EQ(sm_registry_load_file(reg, path, &st), -1);
    CHECK_CONTAINS(st.msg, "not a regular file");
    rmdir(path);
    sm_registry_free(reg);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr,
                "usage: test_registry good.so abi.so noentry.so dup.so abi_dir noexport.so\n");
        return 2;
    }
    const char *good = argv[1], *abi = argv[2], *noentry = argv[3], *dup = argv[4];
    const char *noexport = argv[6];
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
    CHECK_CONTAINS(st.msg, "SM_DEFINE_PLUGIN(descriptor)"); /* what to add */

    /* One that exports nothing (SM_DEFINE_PLUGIN left out) is whole: not "damaged". */
    CHECK_EQ(sm_registry_load_file(reg, noexport, &st), -1);
    CHECK_CONTAINS(st.msg, noexport);
    CHECK_CONTAINS(st.msg, "no entry point sm_plugin_layer_type (define it with SM_DEFINE_PLUGIN");
    CHECK(strstr(st.msg, "damaged") == NULL);

    CHECK_EQ(sm_registry_load_file(reg, good, &st), -1); /* the same type twice */
    CHECK_CONTAINS(st.msg, "layer type 'test_identity' is already provided by");
    CHECK_CONTAINS(st.msg, "; give your type another name"); /* what to do about it */

    CHECK_EQ(sm_registry_load_file(reg, "/nonexistent/x.so", &st), -1);
    CHECK_CONTAINS(st.msg, "/nonexistent/x.so: cannot load plugin");
    CHECK_EQ(sm_registry_count(reg), 1); /* refused plugins leave nothing behind */
    sm_registry_free(reg);

    /* The default folder of this build tree, found without any environment variable. */
    unsetenv("SCALEMETER_PLUGIN_PATH");
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    /* every layer type of plugins/ (test_plugins holds the folder to exactly these) */
    CHECK(sm_registry_count(reg) >= N_TEST_LAYER_TYPES);
    for (int i = 0; i < N_TEST_LAYER_TYPES; i++)
        CHECK(sm_registry_find(reg, test_layer_types[i].name) != NULL);
    /* a plugin claiming the name of one already loaded */
    CHECK_EQ(sm_registry_load_file(reg, dup, &st), -1);
    CHECK_CONTAINS(st.msg, dup);
    CHECK_CONTAINS(st.msg, "layer type 'conv2d' is already provided by");
    CHECK_CONTAINS(st.msg, "conv2d.so; give your type another name");
    sm_registry_free(reg);

    /* A bad plugin in SCALEMETER_PLUGIN_PATH stops loading all with its name (a network loads
     * only the plugins of its types, so opening lists the folders and loads nothing). */
    setenv("SCALEMETER_PLUGIN_PATH", argv[5], 1);
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK_EQ(sm_registry_load_all(reg, &st), -1);
    CHECK_CONTAINS(st.msg, abi);
    CHECK_CONTAINS(st.msg, "SCALEMETER_PLUGIN_PATH");
    sm_registry_free(reg);

    truncated_plugins(good);
    return check_summary();
}
