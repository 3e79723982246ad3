/* The plugin loader: every layer type comes from a shared object exporting SM_PLUGIN_ENTRY;
 * its kernels from companions NAME_cpu.so and NAME_gpu.so, loaded only when a backend asks, so
 * that a program that only counts never maps OpenBLAS or the CUDA libraries. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "network/network_internal.h"
#include "scalemeter/kernels.h"
#include "scalemeter/scalemeter.h"
#include "util/ini_reader.h"

#ifndef SCALEMETER_VERSION
#define SCALEMETER_VERSION "unknown"
#endif

/* What every entry point of every plugin receives. */
static const sm_host host = {
    .struct_size = sizeof(sm_host),
    .abi_version = SM_PLUGIN_ABI_VERSION,
    .version = SCALEMETER_VERSION,
};

/* The longest type name: what "layer = NAME", a cases file's line, holds (a network's
 * "x = NAME" holds more); a name of 195 to 255 characters loaded, but no line could name it. */
#define MAX_TYPE_NAME (SM_INI_MAX_LINE - (int)(sizeof "layer = " - 1))
/* The longest summary `scalemeter plugins` prints. */
#define MAX_SUMMARY 4095

/* The suffixes of the companion modules, which the folder scan skips. */
#define GPU_SUFFIX "_gpu.so"
#define CPU_SUFFIX "_cpu.so"

/* COMPANION_FAILED is -1, as the functions' error return. */
enum { COMPANION_FAILED = -1, COMPANION_UNTRIED, COMPANION_NONE, COMPANION_LOADED };

/* A companion module, once asked for: its state, or why it could not load. */
typedef struct companion {
    int state;
    char *error;
} companion;

typedef struct plugin {
    char *path;
    sm_layer_type type; /* a copy, zero past the plugin's struct_size */
    /* The companions' kernels, once loaded (copies, zero past their struct_size). */
    companion gpu_module, cpu_module;
    struct sm_gpu_kernels gpu;
    struct sm_cpu_kernels cpu;
} plugin;

/* A folder of sm_registry_open: its plugin file names, loaded from when asked. */
typedef struct plugin_folder {
    char *dir;
    char **names; /* sorted */
    size_t n_names;
    int from_env; /* a folder of SCALEMETER_PLUGIN_PATH */
} plugin_folder;

/* Whether every plugin of the folders is loaded: a registry of sm_registry_new has no folders,
 * so nothing is left to load. */
enum { ALL_LOADED, ALL_UNTRIED, ALL_FAILED };

/* items are allocated one by one: a type's address stays valid while later ones load. */
struct sm_registry {
    int count, cap;
    plugin **items;
    int n_folders;
    plugin_folder *folders;
    int all_state, user_state; /* every folder's plugins; SCALEMETER_PLUGIN_PATH's */
    char *all_error, *user_error;
    /* the owner's reference (sm_registry_free gives it up) and one per network loaded from it,
     * whose layers point at its types: freed when the last is given up, whichever it is */
    atomic_int refs;
};

static sm_registry *mutable(const sm_registry *reg);
static void free_names(char **names, size_t n);

/* The loaded plugin of that type name, or NULL. */
static plugin *loaded_type(const sm_registry *reg, const char *name)
{
    for (int i = 0; i < reg->count; i++)
        if (strcmp(reg->items[i]->type.name, name) == 0)
            return reg->items[i];
    return NULL;
}

sm_registry *sm_registry_new(void)
{
    sm_registry *reg = calloc(1, sizeof(sm_registry));
    if (reg)
        atomic_init(&reg->refs, 1);
    return reg;
}

static void destroy(sm_registry *reg)
{
    /* Loaded plugins stay mapped for the life of the process: what they pull in (libstdc++,
     * the CUDA libraries) does not expect to be unloaded, and dlopen of the same file again
     * only counts up a reference. Refused plugins are closed at once. */
    for (int i = 0; i < reg->count; i++) {
        free(reg->items[i]->path);
        free(reg->items[i]->gpu_module.error);
        free(reg->items[i]->cpu_module.error);
        free(reg->items[i]);
    }
    free(reg->items);
    for (int i = 0; i < reg->n_folders; i++) {
        free(reg->folders[i].dir);
        free_names(reg->folders[i].names, reg->folders[i].n_names);
    }
    free(reg->folders);
    free(reg->all_error);
    free(reg->user_error);
    free(reg);
}

void sm_registry_hold(const sm_registry *reg) { atomic_fetch_add(&mutable(reg)->refs, 1); }

void sm_registry_release(const sm_registry *reg)
{
    if (reg && atomic_fetch_sub(&mutable(reg)->refs, 1) == 1)
        destroy(mutable(reg));
}

/* A network loaded from reg keeps it (sm_registry_hold): freed before the network, its types
 * were freed under the network's layers, and the next prediction read them after the free. */
void sm_registry_free(sm_registry *reg) { sm_registry_release(reg); }

/* Listing asks for every type: what failed to load is sm_registry_load_all's to say. */
int sm_registry_count(const sm_registry *reg)
{
    if (!reg)
        return -1;
    sm_status ignored;
    sm_registry_load_all(mutable(reg), &ignored);
    return reg->count;
}
/* NULL past the types loaded, as the C API's index errors are values */
const sm_layer_type *sm_registry_type(const sm_registry *reg, int i)
{
    if (!reg)
        return NULL;
    return i >= 0 && i < reg->count ? &reg->items[i]->type : NULL;
}
const char *sm_registry_path(const sm_registry *reg, int i)
{
    if (!reg)
        return NULL;
    return i >= 0 && i < reg->count ? reg->items[i]->path : NULL;
}

const sm_layer_type *sm_registry_find(const sm_registry *reg, const char *name)
{
    if (!reg || !name)
        return NULL;
    const sm_layer_type *t;
    sm_status ignored;
    return sm_registry_lookup(reg, name, &t, &ignored) ? NULL : t;
}

static int valid_type_name(const char *name)
{
    if (!name || !*name)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

/* A plugin of another ABI version, named with both versions. abi_version is the first field
 * of every descriptor and GPU table of every version, so it can be read whatever the rest. */
static int wrong_version(const char *path, uint32_t version, sm_status *st)
{
    return sm_fail(st,
                   "%s: built for plugin ABI version %u, this scalemeter loads versions %u to "
                   "%u; rebuild it against this scalemeter's headers",
                   path, version, SM_PLUGIN_ABI_OLDEST, SM_PLUGIN_ABI_VERSION);
}

/* Checks a descriptor before anything of it is used. */
static int check_descriptor(const sm_layer_type *t, const char *path, sm_status *st)
{
    if (!t)
        return sm_fail(st, "%s: plugin entry point returned no descriptor", path);
    if (t->abi_version < SM_PLUGIN_ABI_OLDEST || t->abi_version > SM_PLUGIN_ABI_VERSION)
        return wrong_version(path, t->abi_version, st);
    if (t->struct_size < offsetof(sm_layer_type, cpu))
        return sm_fail(st, "%s: descriptor too small (%u bytes) for ABI version %u", path,
                       t->struct_size, SM_PLUGIN_ABI_VERSION);
    if (!valid_type_name(t->name))
        return sm_fail(st, "%s: layer type name must be non-empty lower-case letters, digits, '_'",
                       path);
    if (!t->parse || !t->infer)
        return sm_fail(st, "%s: layer type '%s' lacks parse or infer", path, t->name);
    if (t->min_inputs < 0 || (t->max_inputs && t->max_inputs < t->min_inputs))
        return sm_fail(st, "%s: layer type '%s' has an invalid input count range", path, t->name);
    /* a bit plugin.h names no trait for is a mistake the host would ignore: the plugin meant
     * something it would not get */
    uint32_t known = ((uint32_t)SM_TRAIT_ELEMENTWISE << 1) - 1;
    /* a descriptor that ends before its traits declares none */
    uint32_t traits =
        t->struct_size >= offsetof(sm_layer_type, traits) + sizeof t->traits ? t->traits : 0;
    if (traits & ~known)
        return sm_fail(st,
                       "%s: layer type '%s' declares traits 0x%x, of which 0x%x are no "
                       "SM_TRAIT_ of plugin.h (ABI %u)",
                       path, t->name, (unsigned)traits, (unsigned)(traits & ~known),
                       SM_PLUGIN_ABI_VERSION);
    /* a trait a later ABI added, in a plugin saying it is older: its version's layer is
     * without it (plugin-abi.md), and honouring it would have the host read the plugin by a
     * contract it says it does not know */
    uint32_t of_version = t->abi_version < 3    ? 0
                          : t->abi_version < 9  ? ((uint32_t)SM_TRAIT_VIEW << 1) - 1
                          : t->abi_version < 13 ? ((uint32_t)SM_TRAIT_AUTOCAST_FP32 << 1) - 1
                          : t->abi_version < 15 ? ((uint32_t)SM_TRAIT_TIED << 1) - 1
                          : t->abi_version < 17 ? ((uint32_t)SM_TRAIT_POOLING << 1) - 1
                          : t->abi_version < 18 ? ((uint32_t)SM_TRAIT_LOSS << 1) - 1
                                                : known;
    if (traits & ~of_version)
        return sm_fail(st,
                       "%s: layer type '%s' declares traits 0x%x, which ABI %u does not have "
                       "(it says it is of ABI %u: rebuild it against this scalemeter's headers)",
                       path, t->name, (unsigned)(traits & ~of_version), t->abi_version,
                       t->abi_version);
    /* a convolution's multiply-accumulates are implicit matrix products (cuDNN's), priced on
     * tensor cores through matmul_flops, whose default is all of the FLOPs with MATMUL and
     * none without: a convolution without MATMUL was priced at the vector peak at bf16 */
    if ((traits & SM_TRAIT_CONVOLUTION) && !(traits & SM_TRAIT_MATMUL))
        return sm_fail(st,
                       "%s: layer type '%s' declares SM_TRAIT_CONVOLUTION without "
                       "SM_TRAIT_MATMUL: declare SM_TRAIT_MATMUL too: a convolution's "
                       "multiply-accumulates are priced as matrix products",
                       path, t->name);
    /* what the input counts contradict: a residual sum's backward pass is priced as autograd's
     * sum of two gradients, an activation rides its one producer's epilogue */
    if ((traits & SM_TRAIT_RESIDUAL) && t->max_inputs == 1)
        return sm_fail(st,
                       "%s: layer type '%s' declares SM_TRAIT_RESIDUAL, a sum of its inputs, but "
                       "takes at most 1 input (max_inputs 1): set max_inputs to 0 (any number) "
                       "or 2 or more, or drop the trait",
                       path, t->name);
    if ((traits & SM_TRAIT_ACTIVATION) && t->max_inputs != 1) {
        char takes[48] = "any number of";
        if (t->max_inputs)
            snprintf(takes, sizeof takes, "up to %d", t->max_inputs);
        return sm_fail(st,
                       "%s: layer type '%s' declares SM_TRAIT_ACTIVATION, an element-wise "
                       "function of one input, but takes %s inputs (max_inputs %d): set "
                       "max_inputs to 1, or drop the trait",
                       path, t->name, takes, t->max_inputs);
    }
    /* a pooling's time is its positions' at the SMs' rate: of a layer whose FLOPs are products
     * of weights it would price a matrix product as a window's reduction */
    const uint32_t products = SM_TRAIT_MATMUL | SM_TRAIT_CONVOLUTION;
    if ((traits & SM_TRAIT_POOLING) && (traits & products))
        return sm_fail(st,
                       "%s: layer type '%s' declares SM_TRAIT_POOLING beside %s: a pooling "
                       "reduces positions and has no products of weights",
                       path, t->name,
                       traits & SM_TRAIT_MATMUL ? "SM_TRAIT_MATMUL" : "SM_TRAIT_CONVOLUTION");
    return 0;
}

/* A struct_size that ends inside a field: the host copies that many bytes, and a part of a
 * pointer was called (a crash) or a part of the traits read as other traits. The field's
 * name, or NULL where the size ends between fields. */
static const char *partial_field(uint32_t size)
{
    static const struct {
        const char *name;
        size_t at, len;
    } tail[] = {{"cpu", offsetof(sm_layer_type, cpu), sizeof(void *)},
                {"traits", offsetof(sm_layer_type, traits), sizeof(uint32_t)},
                {"saved", offsetof(sm_layer_type, saved), sizeof(void *)},
                {"view_strides", offsetof(sm_layer_type, view_strides), sizeof(void *)}};
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        if (size > tail[i].at && size < tail[i].at + tail[i].len)
            return tail[i].name;
    return NULL;
}

/* The largest params_size the host allocates per layer (SM_MAX_PARAMS_SIZE): parameter
 * structs are a few numbers, and a huge one would fail (or, under a sanitizer, abort) at the
 * first layer of the type. */

static int check_params_size(const sm_layer_type *t, const char *path, sm_status *st)
{
    if (t->params_size > SM_MAX_PARAMS_SIZE)
        return sm_fail(st,
                       "%s: layer type '%s' declares %zu bytes of parameters per layer "
                       "(at most %u)",
                       path, t->name, t->params_size, SM_MAX_PARAMS_SIZE);
    return 0;
}

/* A function field of a kernel table: its name and place. */
typedef struct kernel_field {
    const char *name;
    size_t at;
} kernel_field;

/* The functions of a kernel table of len bytes (kind "CPU" or "GPU"): each set one in some
 * loaded object, forward and backward set. A table without forward loaded, and the executor
 * then said the descriptor "sets no cpu table, and there is no X_cpu.so", where it did and
 * there was. */
static int check_kernel_functions(const void *table, size_t len, const kernel_field *f, int n,
                                  const char *kind, const char *path, sm_status *st)
{
    for (int i = 0; i < n; i++) {
        void *fn = NULL;
        if (f[i].at + sizeof fn <= len)
            memcpy(&fn, (const char *)table + f[i].at, sizeof fn); /* as POSIX allows */
        int needed = !strcmp(f[i].name, "forward") || !strcmp(f[i].name, "backward");
        if (fn && !sm_loaded_code(fn))
            return sm_fail(st, "%s: its %s kernel table's %s points outside every loaded object",
                           path, kind, f[i].name);
        if (!fn && needed)
            return sm_fail(st,
                           "%s: its %s kernel table has no %s (a kernel table needs forward and "
                           "backward: docs/plugin-abi.md)",
                           path, kind, f[i].name);
    }
    return 0;
}

/* A CPU kernel table (a descriptor's own, or a companion's) lies in HANDLE's object, whole,
 * and its functions in loaded code: the host calls them when bench or check-plugin runs the
 * type, so a stray pointer would crash it there. */
static int check_cpu_table(void *handle, const struct sm_cpu_kernels *k, const char *path,
                           sm_status *st)
{
    if ((uintptr_t)k % _Alignof(struct sm_cpu_kernels) ||
        !sm_plugin_holds(handle, k, sizeof(uint32_t)))
        return sm_fail(st, "%s: its CPU kernel table at %p is not in the plugin", path,
                       (const void *)k);
    size_t len = k->struct_size < sizeof *k ? k->struct_size : sizeof *k;
    if (!sm_plugin_holds(handle, k, len))
        return sm_fail(st, "%s: its CPU kernel table (%u bytes) extends beyond the plugin", path,
                       k->struct_size);
    /* a descriptor's own table too: one of 4 bytes loaded as a table of no kernels */
    if (k->struct_size < offsetof(struct sm_cpu_kernels, backward) + sizeof k->backward)
        return sm_fail(st, "%s: CPU kernel table too small (%u bytes)", path, k->struct_size);
    static const kernel_field fields[] = {
        {"work_size", offsetof(struct sm_cpu_kernels, work_size)},
        {"state_size", offsetof(struct sm_cpu_kernels, state_size)},
        {"init", offsetof(struct sm_cpu_kernels, init)},
        {"forward", offsetof(struct sm_cpu_kernels, forward)},
        {"backward", offsetof(struct sm_cpu_kernels, backward)}};
    return check_kernel_functions(k, len, fields, 5, "CPU", path, st);
}

/* The descriptor and what check_descriptor reads of it lie in memory the host may read: the
 * descriptor in the plugin itself, its strings and functions in some loaded object. */
static int check_descriptor_memory(void *handle, const sm_layer_type *t, const char *path,
                                   sm_status *st)
{
    if (!t)
        return 0; /* check_descriptor refuses it */
    if ((uintptr_t)t % _Alignof(sm_layer_type) || !sm_plugin_holds(handle, t, 8))
        return sm_fail(st,
                       "%s: its entry point returned %p, which is not a descriptor in the "
                       "plugin (it must return a static object)",
                       path, (const void *)t);
    size_t len = t->struct_size < sizeof *t ? t->struct_size : sizeof *t;
    if (len < offsetof(sm_layer_type, cpu))
        return 0; /* check_descriptor refuses it by its size */
    const char *cut = partial_field(t->struct_size);
    if (cut)
        return sm_fail(st,
                       "%s: its descriptor's struct_size %u ends inside its field %s (set it "
                       "with SM_LAYER_TYPE_INIT)",
                       path, t->struct_size, cut);
    if (!sm_plugin_holds(handle, t, len))
        return sm_fail(st, "%s: its descriptor (%u bytes) extends beyond the plugin", path,
                       t->struct_size);
    /* SIZE_MAX: up to the end of the object the string starts in */
    static const char *const outside = "is not a string the plugin's file holds (a string "
                                       "literal; not one built on the heap or the stack)";
    if (!sm_loaded_string(t->name, SIZE_MAX))
        return sm_fail(st, "%s: its descriptor's type name %s", path, outside);
    if (strlen(t->name) > MAX_TYPE_NAME)
        return sm_fail(st,
                       "%s: its descriptor's type name is %zu characters, more than the %d a "
                       "line of a network or cases file can spell (\"layer = NAME\", %d at most)",
                       path, strlen(t->name), MAX_TYPE_NAME, SM_INI_MAX_LINE);
    if (t->summary && !sm_loaded_string(t->summary, SIZE_MAX))
        return sm_fail(st, "%s: its descriptor's summary %s", path, outside);
    if (t->summary && strlen(t->summary) > MAX_SUMMARY)
        return sm_fail(st, "%s: its descriptor's summary is %zu characters, more than %d", path,
                       strlen(t->summary), MAX_SUMMARY);
    /* every function the host calls: view_strides too (ABI 12), which a view's layer calls */
    void *fn[5] = {0};
    memcpy(&fn[0], &t->parse, sizeof fn[0]); /* function to object pointer, as POSIX allows */
    memcpy(&fn[1], &t->infer, sizeof fn[1]);
    memcpy(&fn[2], &t->metrics, sizeof fn[2]);
    if (len >= offsetof(sm_layer_type, saved) + sizeof t->saved) /* ABI 3 */
        memcpy(&fn[3], &t->saved, sizeof fn[3]);
    if (len >= offsetof(sm_layer_type, view_strides) + sizeof t->view_strides) /* ABI 12 */
        memcpy(&fn[4], &t->view_strides, sizeof fn[4]);
    for (int i = 0; i < 5; i++)
        if (fn[i] && !sm_loaded_code(fn[i]))
            return sm_fail(
                st, "%s: its descriptor's %s points outside every loaded object", path,
                (const char *[]){"parse", "infer", "metrics", "saved", "view_strides"}[i]);
    if (len >= offsetof(sm_layer_type, cpu) + sizeof t->cpu && t->cpu)
        return check_cpu_table(handle, t->cpu, path, st);
    return 0;
}

/* dlopen and the entry point, with the crash guard on: the descriptor, or NULL with st set. */
static const sm_layer_type *open_plugin(const char *path, void **handle_out, sm_status *st)
{
    sm_plugin_guard_begin(path);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void *sym = handle ? dlsym(handle, SM_PLUGIN_ENTRY_NAME) : NULL;
    const sm_layer_type *t = NULL;
    if (sym) {
        sm_plugin_entry_fn entry;
        memcpy(&entry, &sym, sizeof entry); /* object to function pointer, as POSIX allows */
        t = entry(&host);
    }
    sm_plugin_guard_end();
    *handle_out = handle;
    if (!handle)
        sm_fail(st, "%s: cannot load plugin: %s", path, dlerror());
    else if (!sym)
        sm_fail(st,
                "%s: not a scalemeter plugin: no entry point %s (define it with "
                "SM_DEFINE_PLUGIN(descriptor), scalemeter/plugin.h)",
                path, SM_PLUGIN_ENTRY_NAME);
    else if (!t)
        sm_fail(st, "%s: plugin entry point returned no descriptor", path);
    return t;
}

/* The folder a plugin file really lies in, past every symbolic link: one writable by every
 * user lets anyone put their file there. A link in a trusted folder into /tmp (sticky, 1777)
 * loaded what another user created there first, since only the file's own mode was checked. */
static int check_file_folder(const char *path, sm_status *st)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return 0; /* what opening it says */
    char *slash = strrchr(real, '/');
    if (!slash)
        return 0;
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%.*s", slash == real ? 1 : (int)(slash - real), real);
    struct stat sb;
    if (stat(folder, &sb) != 0 || !(sb.st_mode & S_IWOTH))
        return 0;
    if (strcmp(real, path) != 0)
        return sm_fail(st,
                       "%s: refusing plugin file: it resolves to %s, in %s, which is writable "
                       "by every user, who could put their code there (chmod o-w it, or move "
                       "the plugin)",
                       path, real, folder);
    return sm_fail(st,
                   "%s: refusing plugin file: its folder %s is writable by every user, who could "
                   "put their code there (chmod o-w it, or move the plugin)",
                   path, folder);
}

/* A plugin file is a regular file and a plugin folder a folder: /dev/zero, a pipe or a folder
 * was told "writable by every user ... (chmod o-w it)". Anyone who can write a plugin file or
 * folder can make every command run their code. */
static int check_not_world_writable(const char *path, int is_folder, sm_status *st)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0; /* what opening it says */
    if (is_folder ? !S_ISDIR(sb.st_mode) : !S_ISREG(sb.st_mode))
        return sm_fail(st, "%s: not a plugin%s but %s", path,
                       is_folder ? " folder" : ": not a regular file", sm_file_kind(sb.st_mode));
    if (sb.st_mode & S_IWOTH)
        return sm_fail(st,
                       "%s: refusing plugin %s: it is writable by every user, who could make "
                       "scalemeter run their code (chmod o-w it)",
                       path, is_folder ? "folder" : "file");
    return is_folder ? 0 : check_file_folder(path, st);
}

/* The suffix (GPU_SUFFIX, CPU_SUFFIX) of a file named as a companion module, or NULL. */
static const char *companion_suffix(const char *path)
{
    size_t len = strlen(path);
    static const char *const suffixes[] = {CPU_SUFFIX, GPU_SUFFIX};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && strcmp(path + len - n, suffixes[i]) == 0 && path[len - n - 1] != '/')
            return suffixes[i];
    }
    return NULL;
}

/* A descriptor in a file named as a companion: every folder scan skips it as NAME.so's
 * kernels, so check-plugin passed x_cpu.so and every command then said "unknown layer type
 * 'x_cpu'" naming no file. */
static int named_as_companion(const char *path, sm_status *st)
{
    const char *suffix = companion_suffix(path);
    if (!suffix)
        return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return sm_fail(st,
                   "%s: a plugin file named NAME%s is taken for the %s kernel module of NAME.so "
                   "(%.*s.so), which no folder loads as a plugin: rename it",
                   path, suffix, strcmp(suffix, CPU_SUFFIX) == 0 ? "CPU" : "GPU",
                   (int)(strlen(base) - strlen(suffix)), base);
}

int sm_registry_load_file(sm_registry *reg, const char *path, sm_status *st)
{
    if (!reg || !path)
        return sm_null_arg(st, __func__, !reg ? "reg" : "path");
    if (check_not_world_writable(path, 0, st) || sm_elf_check(path, SM_PLUGIN_ENTRY_NAME, st))
        return -1;
    void *handle;
    const sm_layer_type *t = open_plugin(path, &handle, st);
    if (!t || named_as_companion(path, st) || check_descriptor_memory(handle, t, path, st) ||
        check_descriptor(t, path, st) || check_params_size(t, path, st)) {
        if (handle)
            dlclose(handle);
        return -1;
    }
    const plugin *twin = loaded_type(reg, t->name);
    if (twin) {
        sm_fail(st, "%s: layer type '%s' is already provided by %s; give your type another name",
                path, t->name, twin->path);
        dlclose(handle);
        return -1;
    }
    if (reg->count == reg->cap) {
        int cap = reg->cap ? 2 * reg->cap : 32;
        plugin **items = realloc(reg->items, (size_t)cap * sizeof *items);
        if (!items) {
            dlclose(handle);
            return sm_fail(st, "out of memory loading %s", path);
        }
        reg->items = items;
        reg->cap = cap;
    }
    plugin *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(path))) {
        free(p);
        dlclose(handle);
        return sm_fail(st, "out of memory loading %s", path);
    }
    memcpy(&p->type, t, t->struct_size < sizeof p->type ? t->struct_size : sizeof p->type);
    /* what the plugin's version does not have is absent, whatever its struct_size holds */
    if (t->abi_version < 12)
        p->type.view_strides = NULL;
    reg->items[reg->count++] = p;
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The plugin file names of dir (companions left out), sorted: a stable order, so that errors
 * repeat the same. 0 with *out set, or -1 with st set. */
static int list_dir(const char *dir, char ***out, size_t *count, sm_status *st)
{
    *out = NULL;
    *count = 0;
    if (check_not_world_writable(dir, 1, st))
        return -1;
    DIR *d = opendir(dir);
    if (!d)
        return sm_fail(st, "%s: cannot open plugin folder: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0)
            continue;
        if (len > strlen(GPU_SUFFIX) &&
            (!strcmp(e->d_name + len - strlen(GPU_SUFFIX), GPU_SUFFIX) ||
             !strcmp(e->d_name + len - strlen(CPU_SUFFIX), CPU_SUFFIX)))
            continue; /* a companion: loaded with its plugin, when asked for */
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                rc = sm_fail(st, "out of memory listing %s", dir);
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(e->d_name)))
            rc = sm_fail(st, "out of memory listing %s", dir);
        else
            n++;
    }
    closedir(d);
    if (n) /* qsort(NULL, 0, ...) is undefined */
        qsort(names, n, sizeof *names, compare_names);
    *out = names;
    *count = n;
    return rc;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static char *join(const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%s/%s", dir, name);
    return path;
}

/* Whether a plugin of that path is loaded already. */
static int loaded_path(const sm_registry *reg, const char *path)
{
    for (int i = 0; i < reg->count; i++)
        if (!strcmp(reg->items[i]->path, path))
            return 1;
    return 0;
}

/* Loads folder f's file name (unless loaded); an error of a SCALEMETER_PLUGIN_PATH folder says
 * so, as it did when every folder was loaded at start-up. */
static int load_listed(sm_registry *reg, const plugin_folder *f, const char *name, sm_status *st)
{
    char *path = join(f->dir, name);
    if (!path)
        return sm_fail(st, "out of memory");
    sm_status sub;
    int rc = loaded_path(reg, path) ? 0 : sm_registry_load_file(reg, path, &sub);
    free(path);
    if (rc)
        return f->from_env ? sm_fail(st, "%s (from SCALEMETER_PLUGIN_PATH)", sub.msg)
                           : sm_fail(st, "%s", sub.msg);
    return 0;
}

int sm_registry_load_dir(sm_registry *reg, const char *dir, sm_status *st)
{
    if (!reg || !dir)
        return sm_null_arg(st, __func__, !reg ? "reg" : "dir");
    char **names;
    size_t n;
    if (list_dir(dir, &names, &n, st)) {
        free_names(names, n);
        return -1;
    }
    plugin_folder f = {.dir = (char *)dir};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = load_listed(reg, &f, names[i], st);
    free_names(names, n);
    return rc;
}

/* Adds a folder to be loaded from when asked (sm_registry_open's). */
static int add_folder(sm_registry *reg, const char *dir, int from_env, sm_status *st)
{
    plugin_folder *grown = realloc(reg->folders, (size_t)(reg->n_folders + 1) * sizeof *grown);
    if (!grown)
        return sm_fail(st, "out of memory");
    reg->folders = grown;
    plugin_folder *f = &reg->folders[reg->n_folders];
    memset(f, 0, sizeof *f);
    f->from_env = from_env;
    if (!(f->dir = strdup(dir)))
        return sm_fail(st, "out of memory");
    reg->n_folders++;
    return list_dir(dir, &f->names, &f->n_names, st);
}

static int shadows_shipped(const sm_registry *reg, const plugin *p, sm_status *st);

/* Loads every plugin of the folders, or of SCALEMETER_PLUGIN_PATH's alone (user), once: *state
 * and *error keep the outcome for the calls after. The user's must not provide a shipped type. */
static int load_folders_once(sm_registry *reg, int user, int *state, char **error, sm_status *st)
{
    if (*state == ALL_UNTRIED) {
        sm_status sub = {{0}};
        int rc = 0, first = reg->count;
        for (int i = 0; i < reg->n_folders && rc == 0; i++)
            for (size_t j = 0;
                 (!user || reg->folders[i].from_env) && j < reg->folders[i].n_names && rc == 0; j++)
                rc = load_listed(reg, &reg->folders[i], reg->folders[i].names[j], &sub);
        for (int i = first; user && i < reg->count && rc == 0; i++)
            rc = shadows_shipped(reg, reg->items[i], &sub);
        *state = rc ? ALL_FAILED : ALL_LOADED;
        /* the user's folders load whole at the first lookup, whichever type it asks for: the
         * lookup's caller says so after the plugin's own message (SM_LOOKUP_USER_FAILED) */
        if (rc)
            *error = strdup(sub.msg);
    }
    if (*state == ALL_FAILED)
        return sm_fail(st, "%s", *error ? *error : "out of memory");
    return 0;
}

int sm_registry_load_all(sm_registry *reg, sm_status *st)
{
    if (!reg)
        return sm_null_arg(st, __func__, "reg");
    return load_folders_once(reg, 0, &reg->all_state, &reg->all_error, st);
}

/* A registry's types are loaded as they are asked for: a cache, logically const. */
static sm_registry *mutable(const sm_registry *reg) { return (sm_registry *)(uintptr_t)reg; }

/* NAME.so, or NULL out of memory. */
static char *file_of(const char *name)
{
    size_t len = strlen(name);
    char *file = malloc(len + 4);
    if (file) {
        memcpy(file, name, len);
        memcpy(file + len, ".so", 4);
    }
    return file;
}

/* f's listed name equal to file, or NULL. */
static char *const *listed(const plugin_folder *f, const char *file)
{
    return f->n_names ? bsearch(&file, f->names, f->n_names, sizeof *f->names, compare_names)
                      : NULL;
}

/* NAME.so of every folder, in order: a second one is the duplicate it always was. */
static int load_named(sm_registry *reg, const char *name, sm_status *st)
{
    char *file = file_of(name);
    if (!file)
        return sm_fail(st, "out of memory");
    int rc = 0;
    for (int i = 0; i < reg->n_folders && rc == 0; i++) {
        char *const *hit = listed(&reg->folders[i], file);
        if (hit)
            rc = load_listed(reg, &reg->folders[i], *hit, st);
    }
    free(file);
    return rc;
}

/* A type of a user's plugin that the shipped folder provides too, as NAME.so (every shipped
 * plugin is named after its type: test_registry_lazy): the duplicate error, naming the user's
 * file first, without loading the shipped one. */
static int shadows_shipped(const sm_registry *reg, const plugin *p, sm_status *st)
{
    char *file = file_of(p->type.name);
    if (!file)
        return sm_fail(st, "out of memory");
    int rc = 0;
    for (int i = 0; i < reg->n_folders && rc == 0; i++)
        if (!reg->folders[i].from_env && listed(&reg->folders[i], file))
            rc = sm_fail(st,
                         "%s: layer type '%s' is already provided by %s/%s; give your type "
                         "another name (from SCALEMETER_PLUGIN_PATH)",
                         p->path, p->type.name, reg->folders[i].dir, file);
    free(file);
    return rc;
}

/* Every plugin of SCALEMETER_PLUGIN_PATH, at the first lookup. A user's plugin may be named
 * otherwise than its type; one that provides a shipped type (conv2d from mine.so) must be the
 * duplicate error, not lose silently to conv2d.so or win over it by the order of lookups. The
 * user's folders hold their few plugins; the shipped folder's stay lazy. */
static int load_user_plugins(sm_registry *reg, sm_status *st)
{
    return load_folders_once(reg, 1, &reg->user_state, &reg->user_error, st);
}

int sm_registry_lookup(const sm_registry *creg, const char *name, const sm_layer_type **out,
                       sm_status *st)
{
    sm_registry *reg = mutable(creg);
    *out = NULL;
    if (reg->all_state == ALL_UNTRIED && load_user_plugins(reg, st))
        return SM_LOOKUP_USER_FAILED;
    const plugin *p = loaded_type(reg, name);
    *out = p ? &p->type : NULL;
    if (p)
        return 0;
    if (reg->all_state != ALL_UNTRIED) /* every plugin is loaded, or failed to */
        return reg->all_state == ALL_FAILED ? sm_registry_load_all(reg, st) : 0;
    if (load_named(reg, name, st))
        return -1;
    /* No NAME.so, or one of another type: a plugin named otherwise may provide it. */
    if (!(p = loaded_type(reg, name)) && sm_registry_load_all(reg, st))
        return -1;
    p = p ? p : loaded_type(reg, name);
    *out = p ? &p->type : NULL;
    return 0;
}

/* The folders of SCALEMETER_PLUGIN_PATH after the default one. A relative entry ("." or
 * "plugins") would load code from whatever folder a command runs in, so it is refused; a folder
 * named twice, or the default folder again, is listed once (its types would clash otherwise). */
static int add_plugin_path(sm_registry *reg, const char *extra, sm_status *st)
{
    char *list = strdup(extra);
    char(*seen)[PATH_MAX] = calloc(strlen(extra) / 2 + 2, sizeof *seen);
    if (!list || !seen) {
        free(list), free(seen);
        return sm_fail(st, "out of memory");
    }
    int n_seen = 0, rc = 0;
    if (realpath(sm_plugin_dir(), seen[0]))
        n_seen++;
    for (char *save = NULL, *dir = strtok_r(list, ":", &save); dir && rc == 0;
         dir = strtok_r(NULL, ":", &save)) {
        if (dir[0] != '/') {
            rc = sm_fail(st,
                         "SCALEMETER_PLUGIN_PATH: '%s' is a relative folder; name plugin "
                         "folders by absolute path",
                         dir);
            break;
        }
        int again = 0;
        if (realpath(dir, seen[n_seen])) {
            for (int i = 0; i < n_seen && !again; i++)
                again = !strcmp(seen[i], seen[n_seen]);
            n_seen += !again;
        }
        sm_status sub;
        if (!again && add_folder(reg, dir, 1, &sub))
            rc = sm_fail(st, "%s (from SCALEMETER_PLUGIN_PATH)", sub.msg);
    }
    free(list), free(seen);
    return rc;
}

int sm_registry_open(sm_registry **out, sm_status *st)
{
    if (!out)
        return sm_null_arg(st, __func__, "out");
    sm_registry *reg = sm_registry_new();
    if (!reg)
        return sm_fail(st, "out of memory");
    /* the folders are listed; a type loads when asked for */
    reg->all_state = reg->user_state = ALL_UNTRIED;
    int rc = add_folder(reg, sm_plugin_dir(), 0, st);
    const char *extra = getenv("SCALEMETER_PLUGIN_PATH");
    if (rc == 0 && extra && *extra)
        rc = add_plugin_path(reg, extra, st);
    if (rc) {
        sm_registry_free(reg);
        return -1;
    }
    *out = reg;
    return 0;
}

/* ---- companion modules ---------------------------------------------------------------------- */

/* NAME<suffix> beside NAME.so (NAME: the plugin's file name, whatever its type's name). */
static char *companion_path(const char *path, const char *suffix)
{
    size_t len = strlen(path), n = strlen(suffix) + 1;
    size_t stem = len > 3 && !strcmp(path + len - 3, ".so") ? len - 3 : len;
    char *p = malloc(stem + n);
    if (p) {
        memcpy(p, path, stem);
        memcpy(p + stem, suffix, n);
    }
    return p;
}

int sm_registry_orphan_companion(const sm_registry *reg, const char *name, char *out, size_t len)
{
    static const char *const suffixes[] = {CPU_SUFFIX, GPU_SUFFIX};
    size_t n = strlen(name) + sizeof ".so";
    char *file = malloc(n);
    if (!file)
        return 0;
    snprintf(file, n, "%s.so", name);
    int orphan = 0;
    for (int i = 0; reg && i < reg->n_folders && !orphan; i++) {
        char *plugin_file = join(reg->folders[i].dir, file);
        for (int k = 0; plugin_file && k < 2 && !orphan; k++) {
            char *module_file = companion_path(plugin_file, suffixes[k]);
            orphan = module_file && sm_is_file(module_file) && !sm_is_file(plugin_file);
            if (orphan)
                snprintf(out, len, "%s", module_file);
            free(module_file);
        }
        free(plugin_file);
    }
    free(file);
    return orphan;
}

/* A companion's table, as its entry point returned it: NULL with *state COMPANION_NONE where
 * the module is absent, COMPANION_FAILED with st set where it cannot load or is no table of the
 * module; else *handle stays open and *state is COMPANION_LOADED for the caller to check. */
static const void *open_companion(const plugin *p, const char *path, const char *entry_name,
                                  const char *what, size_t align, void **handle_out, int *state,
                                  sm_status *st)
{
    *handle_out = NULL;
    if (access(path, F_OK) != 0) {
        *state = COMPANION_NONE;
        return NULL;
    }
    *state = COMPANION_FAILED;
    if (check_not_world_writable(path, 0, st) || sm_elf_check(path, entry_name, st))
        return NULL;
    sm_plugin_guard_begin(path);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void *sym = handle ? dlsym(handle, entry_name) : NULL;
    const uint32_t *k = NULL;
    if (sym) {
        const void *(*entry)(const sm_host *);
        memcpy(&entry, &sym, sizeof entry); /* object to function pointer, as POSIX allows */
        k = entry(&host);
    }
    sm_plugin_guard_end();
    if (!handle) {
        sm_fail(st, "%s: cannot load the %s kernels of '%s': %s", path, what, p->type.name,
                dlerror());
        return NULL;
    }
    if (!sym)
        sm_fail(st,
                "%s: not a %s kernel module: no entry point %s (define it with %s, "
                "scalemeter/kernels.h)",
                path, what, entry_name,
                strcmp(what, "GPU") ? "SM_DEFINE_CPU_KERNELS(table)"
                                    : "SM_DEFINE_GPU_KERNELS(table)");
    else if (!k || (uintptr_t)k % align || !sm_plugin_holds(handle, k, 8))
        sm_fail(st, "%s: its entry point returned no %s kernels", path, what); /* none in it */
    else {
        *handle_out = handle;
        *state = COMPANION_LOADED;
        return k;
    }
    dlclose(handle);
    return NULL;
}

/* Loads p's GPU companion: COMPANION_LOADED, COMPANION_NONE when there is none, or
 * COMPANION_FAILED with st set. */
/* A GPU table's functions, as a CPU table's: setup at 0x30 was called by the cuda backend. */
static int check_gpu_functions(const struct sm_gpu_kernels *k, const char *path, sm_status *st)
{
    static const kernel_field fields[] = {
        {"state_size", offsetof(struct sm_gpu_kernels, state_size)},
        {"init", offsetof(struct sm_gpu_kernels, init)},
        {"setup", offsetof(struct sm_gpu_kernels, setup)},
        {"work_size", offsetof(struct sm_gpu_kernels, work_size)},
        {"forward", offsetof(struct sm_gpu_kernels, forward)},
        {"backward", offsetof(struct sm_gpu_kernels, backward)},
        {"release", offsetof(struct sm_gpu_kernels, release)}};
    size_t len = k->struct_size < sizeof *k ? k->struct_size : sizeof *k;
    return check_kernel_functions(k, len, fields, 7, "GPU", path, st);
}

static int load_gpu_companion(plugin *p, sm_status *st)
{
    char *path = companion_path(p->path, GPU_SUFFIX);
    if (!path) {
        sm_fail(st, "out of memory");
        return COMPANION_FAILED;
    }
    void *handle;
    int rc;
    const struct sm_gpu_kernels *k = open_companion(
        p, path, SM_GPU_ENTRY_NAME, "GPU", _Alignof(struct sm_gpu_kernels), &handle, &rc, st);
    if (k && !sm_plugin_holds(handle, k, k->struct_size < sizeof *k ? k->struct_size : sizeof *k))
        rc = COMPANION_FAILED, sm_fail(st, "%s: its entry point returned no GPU kernels", path);
    else if (k && (k->abi_version < SM_PLUGIN_ABI_OLDEST || k->abi_version > SM_PLUGIN_ABI_VERSION))
        rc = COMPANION_FAILED, wrong_version(path, k->abi_version, st);
    else if (k && k->struct_size < offsetof(struct sm_gpu_kernels, backward) + sizeof k->backward)
        rc = COMPANION_FAILED, sm_fail(st,
                                       "%s: GPU kernel table too small (%u bytes) for ABI "
                                       "version %u",
                                       path, k->struct_size, SM_PLUGIN_ABI_VERSION);
    else if (k && check_gpu_functions(k, path, st))
        rc = COMPANION_FAILED;
    else if (k)
        memcpy(&p->gpu, k, k->struct_size < sizeof p->gpu ? k->struct_size : sizeof p->gpu);
    if (rc == COMPANION_FAILED && handle)
        dlclose(handle); /* a loaded one stays mapped, as plugins do */
    free(path);
    return rc;
}

/* Loads p's CPU companion, as load_gpu_companion. Its table has no version of its own: the
 * module is built with its plugin, whose descriptor's version was checked. */
static int load_cpu_companion(plugin *p, sm_status *st)
{
    char *path = companion_path(p->path, CPU_SUFFIX);
    if (!path) {
        sm_fail(st, "out of memory");
        return COMPANION_FAILED;
    }
    void *handle;
    int rc;
    const struct sm_cpu_kernels *k = open_companion(
        p, path, SM_CPU_ENTRY_NAME, "CPU", _Alignof(struct sm_cpu_kernels), &handle, &rc, st);
    if (k && check_cpu_table(handle, k, path, st))
        rc = COMPANION_FAILED;
    else if (k)
        memcpy(&p->cpu, k, k->struct_size < sizeof p->cpu ? k->struct_size : sizeof p->cpu);
    if (rc == COMPANION_FAILED && handle)
        dlclose(handle);
    free(path);
    return rc;
}

/* The plugin of a type of this registry: the same descriptor, or one of the same name. */
static plugin *plugin_of(const sm_registry *reg, const sm_layer_type *type)
{
    for (int i = 0; i < reg->count; i++)
        if (&reg->items[i]->type == type)
            return reg->items[i];
    return loaded_type(reg, type->name);
}

const char *sm_registry_type_path(const sm_registry *reg, const sm_layer_type *type)
{
    plugin *p = reg && type ? plugin_of(reg, type) : NULL;
    return p ? p->path : NULL;
}

/* A companion's state, loaded on the first ask; a failure is repeated to every later caller.
 * A cache in the registry's items: logically const, as a lookup. */
static int companion_state(companion *c, plugin *p, int (*load)(plugin *, sm_status *),
                           sm_status *st)
{
    if (c->state == COMPANION_UNTRIED) {
        sm_status sub = {{0}};
        c->state = load(p, &sub);
        if (c->state == COMPANION_FAILED)
            c->error = strdup(sub.msg);
    }
    if (c->state == COMPANION_FAILED)
        return sm_fail(st, "%s", c->error ? c->error : "out of memory");
    return c->state;
}

int sm_registry_gpu_kernels(const sm_registry *reg, const sm_layer_type *type,
                            const struct sm_gpu_kernels **out, sm_status *st)
{
    if (!out)
        return sm_null_arg(st, __func__, "out");
    *out = NULL;
    if (!reg || !type)
        return sm_null_arg(st, __func__, !reg ? "reg" : "type");
    plugin *p = plugin_of(reg, type);
    if (!p)
        return sm_fail(st, "layer type '%s' is not in this registry", type->name);
    int state = companion_state(&p->gpu_module, p, load_gpu_companion, st);
    if (state < 0)
        return -1;
    if (state == COMPANION_LOADED)
        *out = &p->gpu;
    return 0;
}

int sm_registry_cpu_kernels(const sm_registry *reg, const sm_layer_type *type,
                            const struct sm_cpu_kernels **out, sm_status *st)
{
    if (!out)
        return sm_null_arg(st, __func__, "out");
    *out = NULL;
    if (!reg || !type)
        return sm_null_arg(st, __func__, !reg ? "reg" : "type");
    plugin *p = plugin_of(reg, type);
    if (!p)
        return sm_fail(st, "layer type '%s' is not in this registry", type->name);
    /* A descriptor's own kernels (a plugin of ABI 2 or 3 written before the companion). */
    if (p->type.struct_size >= offsetof(sm_layer_type, cpu) + sizeof p->type.cpu && p->type.cpu) {
        *out = p->type.cpu;
        return 0;
    }
    int state = companion_state(&p->cpu_module, p, load_cpu_companion, st);
    if (state < 0)
        return -1;
    if (state == COMPANION_LOADED)
        *out = &p->cpu;
    return 0;
}
