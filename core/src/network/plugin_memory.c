/* Where a plugin's descriptor points, checked before the host reads it: an entry point that
 * returns 0x10, or the address of something freed, would crash the first command that reads
 * the descriptor. The descriptor must lie in the plugin's own loaded segments (a static object,
 * as docs/plugin-abi.md asks), and the strings and functions it names in some loaded object. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>

#include "network/network_internal.h"

/* The object (link map) whose loaded segments hold p, or NULL. */
static const void *object_of(const void *p)
{
    Dl_info info;
    void *map = NULL;
    if (!dladdr1(p, &info, &map, RTLD_DL_LINKMAP))
        return NULL;
    return map;
}

int sm_plugin_holds(void *handle, const void *p, size_t len)
{
    struct link_map *own = NULL;
    if (!p || !len || dlinfo(handle, RTLD_DI_LINKMAP, &own) != 0 || !own)
        return 0;
    const char *c = p;
    if ((uintptr_t)c > UINTPTR_MAX - len)
        return 0;
    return object_of(c) == own && object_of(c + len - 1) == own;
}

int sm_loaded_string(const char *s, size_t max)
{
    const void *obj = s ? object_of(s) : NULL;
    if (!obj)
        return 0;
    for (size_t i = 0; i < max; i++) {
        /* a new page may belong to no object; the same object maps it where it continues */
        if (i && ((uintptr_t)(s + i) & 4095) == 0 && object_of(s + i) != obj)
            return 0;
        if (!s[i])
            return 1;
    }
    return 0;
}

int sm_loaded_code(const void *fn) { return fn && object_of(fn) != NULL; }
