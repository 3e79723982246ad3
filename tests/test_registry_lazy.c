/*
 * sm_registry_open loads a plugin when a network asks for its type (issue 34: loading all 50
 * cost every metrics run 2 ms): a network of conv2d and relu maps conv2d.so and relu.so and no
 * other plugin of the shipped folder; a type whose file is named otherwise (renamed.so
 * providing test_renamed) is still found, by loading every plugin; NAME.so in two folders is
 * the duplicate error it always was, naming both files; `plugins`-style listing loads all.
 * argv: the folder of renamed.so, the folder of a second conv2d.so (tests/fake_plugin.c).
 */
#define _DEFAULT_SOURCE /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "net_file.h"
#include "scalemeter/scalemeter.h"

/* How many distinct plugins of folder dir this process maps (companions counted apart). */
static int mapped_plugins(const char *dir, char *names, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096], seen[128][256];
    int n = 0;
    names[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        char *path = strstr(line, dir);
        if (!path)
            continue;
        path[strcspn(path, "\n")] = '\0';
        const char *base = path + strlen(dir) + 1;
        int again = 0;
        for (int i = 0; i < n && !again; i++)
            again = !strcmp(seen[i], base);
        if (!again && n < 128) {
            snprintf(seen[n++], sizeof seen[0], "%s", base);
            strncat(names, " ", len - strlen(names) - 1);
            strncat(names, base, len - strlen(names) - 1);
        }
    }
    if (f)
        fclose(f);
    return n;
}

/* Plugin files of the folder (not companions): what loading all of it maps. */
static int plugin_files(const char *dir)
{
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep '\\.so$' | grep -cv '_[cg]pu\\.so$'", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (!p || fscanf(p, "%d", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_registry_lazy RENAMED_FOLDER DUPLICATE_FOLDER\n");
        return 2;
    }
    char shipped[PATH_MAX], names[8192];
    if (!realpath(sm_plugin_dir(), shipped))
        snprintf(shipped, sizeof shipped, "%s", sm_plugin_dir());
    sm_status st;
    sm_registry *reg = NULL;
    sm_network *net = NULL;
    static const char *const two = "[network]\nname = two\ninput = 3x8x8\n[layers]\n"
                                   "conv = conv2d out=4 kernel=3\nact = relu\n";

    /* only the network's two types */
    unsetenv("SCALEMETER_PLUGIN_PATH");
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK_EQ(sm_network_load(reg, net_file(two), NULL, &net, &st), 0);
    CHECK_EQ(mapped_plugins(shipped, names, sizeof names), 2);
    CHECK_CONTAINS(names, " conv2d.so");
    CHECK_CONTAINS(names, " relu.so");
    sm_network_free(net);
    net = NULL;
    sm_registry_free(reg);

    /* a plugin of SCALEMETER_PLUGIN_PATH named otherwise than its type: the user's folders
     * load whole at the first lookup, the shipped one stays lazy (conv2d.so and relu.so are
     * still mapped from above: loaded plugins stay) */
    setenv("SCALEMETER_PLUGIN_PATH", argv[1], 1);
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK_EQ(sm_network_load(reg,
                             net_file("[network]\nname = r\ninput = 3x8x8\n[layers]\n"
                                      "r = test_renamed\n"),
                             NULL, &net, &st),
             0);
    CHECK(net && !strcmp(net->layers[0].type->name, "test_renamed"));
    CHECK_EQ(mapped_plugins(shipped, names, sizeof names), 2);
    CHECK(plugin_files(shipped) > 2);
    /* listing: the shipped types and renamed.so's */
    CHECK_EQ(sm_registry_load_all(reg, &st), 0);
    CHECK_EQ(mapped_plugins(shipped, names, sizeof names), plugin_files(shipped));
    CHECK_EQ(sm_registry_count(reg), plugin_files(shipped) + 1);
    /* what lazy lookup rests on: every shipped plugin file is named after its type */
    for (int i = 0; i < sm_registry_count(reg); i++) {
        const char *path = sm_registry_path(reg, i), *base = strrchr(path, '/');
        char want[300];
        snprintf(want, sizeof want, "%s.so", sm_registry_type(reg, i)->name);
        if (strncmp(path, sm_plugin_dir(), strlen(sm_plugin_dir())) == 0)
            CHECK_STR_EQ(base ? base + 1 : path, want);
    }
    sm_network_free(net);
    net = NULL;
    sm_registry_free(reg);

    /* conv2d.so in two folders: the second is refused naming both */
    setenv("SCALEMETER_PLUGIN_PATH", argv[2], 1);
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK_EQ(sm_network_load(reg, net_file(two), NULL, &net, &st), -1);
    /* the message leads with the plugin that fails, not with the layer whose lookup loaded
     * it (net.ini:5: layer conv was blamed first) */
    char want[4 * PATH_MAX];
    snprintf(want, sizeof want,
             "%s/conv2d.so: layer type 'conv2d' is already provided by %s/conv2d.so; give "
             "your type another name (from SCALEMETER_PLUGIN_PATH); the plugins of "
             "SCALEMETER_PLUGIN_PATH all load at a "
             "network's first lookup of a layer type, here layer conv's 'conv2d' at %s:5",
             argv[2], sm_plugin_dir(), net_file_path);
    CHECK_STR_EQ(st.msg, want);
    CHECK_EQ(sm_registry_load_all(reg, &st), -1); /* and listing all says the same */
    CHECK_CONTAINS(st.msg, "layer type 'conv2d' is already provided by");
    sm_registry_free(reg);
    return check_summary();
}
