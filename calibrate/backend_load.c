/*
 * Finds and loads the backend modules (backend_module.h): lib/scalemeter/backends/NAME.so,
 * beside the plugins, so that the build tree and the install find them the same way.
 */
#include "backend_module.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *sm_backend_module_path(const char *name, char *buf, size_t len)
{
    /* sm_plugin_dir() is .../lib/scalemeter/plugins: its sibling */
    const char *plugins = sm_plugin_dir();
    const char *slash = strrchr(plugins, '/');
    int up = slash ? (int)(slash - plugins) : 0;
    snprintf(buf, len, "%.*s/backends/%s.so", up, plugins, name);
    return buf;
}

int sm_backend_module_built(const char *name)
{
    char path[4096];
    return access(sm_backend_module_path(name, path, sizeof path), F_OK) == 0;
}

/* What a user does about a module that does not load. */
static const char *hint(const char *name)
{
    if (!strcmp(name, "cuda"))
        return "install CUDA, cuDNN and NCCL or use --backend cpu";
    if (!strcmp(name, "cpu"))
        return "install Open MPI and OpenBLAS";
    return "reinstall scalemeter";
}

static int refuse(const char *name, const char *path, const char *why, sm_status *st)
{
    /* dlerror begins with the module's path: once in the message is enough */
    size_t n = strlen(path);
    if (!strncmp(why, path, n) && !strncmp(why + n, ": ", 2))
        why += n + 2;
    return sm_fail(st, "%s backend (%s): %s; %s", name, path, why, hint(name));
}

const sm_backend_module *sm_backend_module_load(const char *name, sm_status *st)
{
    static struct {
        char name[16];
        const sm_backend_module *table;
    } loaded[4];
    static int n_loaded;
    for (int i = 0; i < n_loaded; i++)
        if (!strcmp(loaded[i].name, name))
            return loaded[i].table;

    char path[4096];
    sm_backend_module_path(name, path, sizeof path);
    if (access(path, F_OK) != 0) {
        sm_fail(st, "%s backend: not built (no %s)", name, path);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        refuse(name, path, dlerror(), st);
        return NULL;
    }
    char symbol[64], why_none[128];
    snprintf(symbol, sizeof symbol, "%s%s", SM_BACKEND_MODULE_SYMBOL, name);
    const sm_backend_module *m = (const sm_backend_module *)dlsym(h, symbol);
    if (!m) {
        snprintf(why_none, sizeof why_none, "no %s table (not a scalemeter backend)", symbol);
        refuse(name, path, why_none, st);
    } else if (m->abi_version != SM_BACKEND_MODULE_ABI ||
               m->struct_size < sizeof(sm_backend_module)) {
        char why[160];
        snprintf(why, sizeof why,
                 "built for backend ABI %u (table of %u bytes), this "
                 "scalemeter has ABI %u (%zu bytes)",
                 m->abi_version, m->struct_size, SM_BACKEND_MODULE_ABI, sizeof(sm_backend_module));
        refuse(name, path, why, st);
        m = NULL;
    } else if (strcmp(m->name, name) != 0) {
        refuse(name, path, "its table names another backend", st);
        m = NULL;
    }
    if (!m) {
        dlclose(h);
        return NULL;
    }
    if (n_loaded < (int)(sizeof loaded / sizeof loaded[0])) {
        snprintf(loaded[n_loaded].name, sizeof loaded[n_loaded].name, "%s", name);
        loaded[n_loaded++].table = m;
    }
    return m;
}
