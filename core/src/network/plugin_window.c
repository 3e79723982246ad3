/* A plugin's callbacks write into structs the host hands them: its parameters (parse), the
 * output shape (infer), the metrics, what it keeps (saved), its strides (view_strides), its
 * reason for refusing. One that wrote kilobytes past a struct (a memset of the wrong size, an
 * array indexed past its end) corrupted the host's heap, to crash later inside malloc naming
 * no plugin, or to leave a wrong number. While a network's layers are counted, each struct is
 * handed to the plugin at the very end of pages of its own, followed by one that cannot be
 * touched: a write past the struct faults at once, inside the plugin's call, where the guard
 * names the plugin (plugin_guard.c). The host copies what the plugin wrote back into its own. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "network/network_internal.h"

/* The most each slot holds: a layer's parameters up to the registry's bound on params_size,
 * the inputs of a layer up to a few thousand, the other structs one each. */
static const size_t slot_bytes[SM_WINDOW_N] = {
    [SM_WINDOW_PARAMS] = SM_MAX_PARAMS_SIZE,
    [SM_WINDOW_INPUTS] = 64 * 1024,
    [SM_WINDOW_SHAPE] = sizeof(sm_shape),
    [SM_WINDOW_METRICS] = sizeof(sm_layer_metrics),
    [SM_WINDOW_SAVED] = sizeof(sm_layer_saved),
    [SM_WINDOW_STRIDES] = SM_MAX_DIMS * sizeof(int64_t),
    [SM_WINDOW_IN_STRIDES] = SM_MAX_DIMS * sizeof(int64_t),
    [SM_WINDOW_ERROR] = sizeof(sm_error),
};

struct sm_plugin_window {
    char *base;
    size_t len, page;
    char *end[SM_WINDOW_N]; /* each slot's last byte + 1: the guard page begins there */
};

sm_plugin_window *sm_plugin_window_open(void)
{
    long page_l = sysconf(_SC_PAGESIZE);
    size_t page = page_l > 0 ? (size_t)page_l : 4096, pages[SM_WINDOW_N], len = 0;
    for (int s = 0; s < SM_WINDOW_N; s++) {
        pages[s] = (slot_bytes[s] + page - 1) / page;
        len += (pages[s] + 1) * page;
    }
    sm_plugin_window *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    /* reserved, not committed: only the pages a plugin's structs reach are ever touched */
    void *base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        free(w);
        return NULL;
    }
    w->base = base;
    w->len = len;
    w->page = page;
    char *at = w->base;
    for (int s = 0; s < SM_WINDOW_N; s++) {
        if (mprotect(at, pages[s] * page, PROT_READ | PROT_WRITE)) {
            sm_plugin_window_close(w);
            return NULL;
        }
        at += pages[s] * page;
        w->end[s] = at;
        at += page; /* the guard page, left PROT_NONE */
    }
    return w;
}

void sm_plugin_window_close(sm_plugin_window *w)
{
    if (!w)
        return;
    munmap(w->base, w->len);
    free(w);
}

void *sm_plugin_window_put(sm_plugin_window *w, int slot, const void *from, size_t size)
{
    if (!w || slot < 0 || slot >= SM_WINDOW_N || size > slot_bytes[slot])
        return NULL;
    /* ending at the guard page keeps a struct aligned as malloc would: its size is a multiple
     * of its alignment, and the guard page is aligned to a page */
    char *p = w->end[slot] - size;
    if (from)
        memcpy(p, from, size);
    else
        memset(p, 0, size);
    return p;
}

int sm_plugin_window_guard_slot(const sm_plugin_window *w, const void *addr)
{
    if (!w || !addr)
        return -1;
    uintptr_t a = (uintptr_t)addr;
    for (int s = 0; s < SM_WINDOW_N; s++) {
        uintptr_t guard = (uintptr_t)w->end[s];
        if (a >= guard && a - guard < w->page)
            return s;
    }
    return -1;
}
