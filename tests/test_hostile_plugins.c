/* Hostile plugins and plugin folders (issue 40, items 9-13 and 15): each is refused with one
 * line naming the file, never a crash, a hang or heap contents in a message.
 * argv: good.so (tests/fake_plugin.c), then ndim.so params.so pointer.so data_entry.so
 * (tests/hostile_plugin.c), then the folder of the other hostile kinds, KIND/KIND.so. */
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "net_file.h"
#include "scalemeter/memory.h"
#include "scalemeter/scalemeter.h"

static char tmpdir[] = "/tmp/sm_hostile_XXXXXX";
static unsigned char *good_bytes;
static size_t good_size;

/* Loads path into a fresh registry: the status, and the message in st. */
static int load(const char *path, sm_status *st)
{
    sm_registry *reg = sm_registry_new();
    int rc = sm_registry_load_file(reg, path, st);
    sm_registry_free(reg);
    return rc;
}

static void expect_refused(const char *path, const char *phrase)
{
    sm_status st;
    int rc = load(path, &st);
    CHECK_MSG(rc == -1, "%s was loaded", path);
    if (rc == -1) {
        CHECK_CONTAINS(st.msg, path);
        CHECK_CONTAINS(st.msg, phrase);
        CHECK(strchr(st.msg, '\n') == NULL);
    }
}

/* The file offset of a dynamic entry's value in good.so, found by hand from its headers. */
static size_t dynamic_value_offset(ElfW(Sxword) tag)
{
    ElfW(Ehdr) eh;
    memcpy(&eh, good_bytes, sizeof eh);
    for (int i = 0; i < eh.e_phnum; i++) {
        ElfW(Phdr) ph;
        memcpy(&ph, good_bytes + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
        if (ph.p_type != PT_DYNAMIC)
            continue;
        for (size_t off = ph.p_offset; off + sizeof(ElfW(Dyn)) <= ph.p_offset + ph.p_filesz;
             off += sizeof(ElfW(Dyn))) {
            ElfW(Dyn) d;
            memcpy(&d, good_bytes + off, sizeof d);
            if (d.d_tag == tag)
                return off + offsetof(ElfW(Dyn), d_un);
            if (d.d_tag == DT_NULL)
                break;
        }
    }
    return 0;
}

/* A copy of good.so with one dynamic entry's value replaced: it keeps every byte of the file,
 * so only the dynamic section's check can refuse it. */
static void corrupt_dynamic(ElfW(Sxword) tag, const char *tag_name, uint64_t value)
{
    size_t at = dynamic_value_offset(tag);
    CHECK_MSG(at != 0, "good.so has no %s", tag_name);
    if (!at)
        return;
    char path[128];
    snprintf(path, sizeof path, "%s/%s.so", tmpdir, tag_name);
    unsigned char *copy = malloc(good_size);
    memcpy(copy, good_bytes, good_size);
    ElfW(Xword) v = (ElfW(Xword))value;
    memcpy(copy + at, &v, sizeof v);
    FILE *f = fopen(path, "wb");
    fwrite(copy, 1, good_size, f);
    fclose(f);
    free(copy);
    expect_refused(path, tag_name);
    unlink(path);
}

static void damaged_dynamic_sections(void)
{
    /* addresses beyond any segment of a plugin of a few kB; sizes of 1 GB */
    corrupt_dynamic(DT_STRTAB, "DT_STRTAB", 0x7fff0000);
    corrupt_dynamic(DT_SYMTAB, "DT_SYMTAB", 0x7fff0000);
    corrupt_dynamic(DT_GNU_HASH, "DT_GNU_HASH", 0x7fff0000);
    corrupt_dynamic(DT_RELA, "DT_RELA", 0x7fff0000);
    corrupt_dynamic(DT_RELASZ, "DT_RELA", 1u << 30);
    corrupt_dynamic(DT_INIT_ARRAY, "DT_INIT_ARRAY", 0x7fff0000);
    corrupt_dynamic(DT_INIT_ARRAYSZ, "DT_INIT_ARRAY", 1u << 30);
    corrupt_dynamic(DT_STRSZ, "DT_STRTAB", 1u << 30);
    /* the GNU hash table's bucket count (its first word) made huge */
    size_t at = dynamic_value_offset(DT_GNU_HASH);
    ElfW(Addr) hash = 0;
    if (at)
        memcpy(&hash, good_bytes + at, sizeof hash);
    /* a shared object's first segment maps from offset 0 at address 0 (checked), so the
     * table's address is its file offset */
    ElfW(Ehdr) eh;
    memcpy(&eh, good_bytes, sizeof eh);
    ElfW(Phdr) first;
    memcpy(&first, good_bytes + eh.e_phoff, sizeof first);
    CHECK(first.p_type != PT_LOAD || (first.p_vaddr == 0 && first.p_offset == 0));
    if (hash && hash + 4 <= good_size) {
        char path[128];
        snprintf(path, sizeof path, "%s/buckets.so", tmpdir);
        unsigned char *copy = malloc(good_size);
        memcpy(copy, good_bytes, good_size);
        uint32_t buckets = 0x40000000u;
        memcpy(copy + hash, &buckets, 4);
        FILE *f = fopen(path, "wb");
        fwrite(copy, 1, good_size, f);
        fclose(f);
        free(copy);
        expect_refused(path, "DT_GNU_HASH");
        unlink(path);
    }
}

/* Item 11 and 12: a FIFO named x.so is refused without waiting for a writer; a folder without
 * any .so loads nothing (qsort of no names). */
static void fifo_and_empty_folder(void)
{
    char dir[160], path[192];
    snprintf(dir, sizeof dir, "%s/fifo", tmpdir);
    CHECK_EQ(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/x.so", dir);
    CHECK_EQ(mkfifo(path, 0600), 0);
    sm_registry *reg = sm_registry_new();
    sm_status st;
    CHECK_EQ(sm_registry_load_dir(reg, dir, &st), -1);
    CHECK_CONTAINS(st.msg, path);
    CHECK_CONTAINS(st.msg, "not a regular file");
    unlink(path);
    CHECK_EQ(sm_registry_load_dir(reg, dir, &st), 0);
    CHECK_EQ(sm_registry_count(reg), 0);
    sm_registry_free(reg);
    rmdir(dir);
}

/* Something world-writable that is no plugin folder or file (/dev/zero, /tmp, a file given as
 * a folder) is refused for what it is: it was told "writable by every user ... (chmod o-w
 * it)", advice to change /dev/zero or /tmp. */
static void not_a_plugin_path(void)
{
    sm_registry *reg = sm_registry_new();
    sm_status st;
    CHECK_EQ(sm_registry_load_dir(reg, "/dev/zero", &st), -1);
    CHECK_STR_EQ(st.msg, "/dev/zero: not a plugin folder but a character device");
    CHECK_EQ(sm_registry_load_file(reg, "/dev/zero", &st), -1);
    CHECK_STR_EQ(st.msg, "/dev/zero: not a plugin: not a regular file but a character device");
    char dir[160], path[192];
    snprintf(dir, sizeof dir, "%s/open", tmpdir);
    CHECK_EQ(mkdir(dir, 0700), 0);
    CHECK_EQ(chmod(dir, 01777), 0); /* as /tmp */
    char want[512];
    CHECK_EQ(sm_registry_load_file(reg, dir, &st), -1);
    snprintf(want, sizeof want, "%s: not a plugin: not a regular file but a folder", dir);
    CHECK_STR_EQ(st.msg, want);
    snprintf(path, sizeof path, "%s/x.so", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    CHECK_EQ(chmod(path, 0666), 0);
    CHECK_EQ(sm_registry_load_dir(reg, path, &st), -1);
    snprintf(want, sizeof want, "%s: not a plugin folder but a regular file", path);
    CHECK_STR_EQ(st.msg, want);
    CHECK_EQ(sm_registry_count(reg), 0);
    sm_registry_free(reg);
    unlink(path);
    rmdir(dir);
}

/* Item 15: a world-writable folder or plugin is refused, naming it and why; relative entries
 * of SCALEMETER_PLUGIN_PATH are refused; a folder named twice loads once. */
static void trust(void)
{
    char dir[160], path[192];
    snprintf(dir, sizeof dir, "%s/shared", tmpdir);
    CHECK_EQ(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/good.so", dir);
    FILE *f = fopen(path, "wb");
    fwrite(good_bytes, 1, good_size, f);
    fclose(f);
    CHECK_EQ(chmod(path, 0644), 0);

    sm_registry *reg = sm_registry_new();
    sm_status st;
    CHECK_EQ(chmod(dir, 0777), 0);
    CHECK_EQ(sm_registry_load_dir(reg, dir, &st), -1);
    CHECK_CONTAINS(st.msg, dir);
    CHECK_CONTAINS(st.msg, "refusing plugin folder: it is writable by every user");
    CHECK_EQ(chmod(dir, 0700), 0);
    CHECK_EQ(chmod(path, 0666), 0);
    CHECK_EQ(sm_registry_load_dir(reg, dir, &st), -1);
    CHECK_CONTAINS(st.msg, path);
    CHECK_CONTAINS(st.msg, "refusing plugin file: it is writable by every user");
    CHECK_EQ(sm_registry_count(reg), 0);
    CHECK_EQ(chmod(path, 0644), 0);
    sm_registry_free(reg);

    /* the default folder alone, to count what one more folder adds */
    unsetenv("SCALEMETER_PLUGIN_PATH");
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    int shipped = sm_registry_count(reg);
    sm_registry_free(reg);

    char list[512];
    snprintf(list, sizeof list, "%s:%s/:%s/../shared", dir, dir, dir);
    setenv("SCALEMETER_PLUGIN_PATH", list, 1);
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    if (reg) {
        CHECK_EQ(sm_registry_count(reg), shipped + 1);
        CHECK(sm_registry_find(reg, "test_identity") != NULL);
        sm_registry_free(reg);
    }
    setenv("SCALEMETER_PLUGIN_PATH", ".", 1);
    reg = NULL;
    CHECK_EQ(sm_registry_open(&reg, &st), -1);
    CHECK_CONTAINS(st.msg, "SCALEMETER_PLUGIN_PATH: '.' is a relative folder");
    snprintf(list, sizeof list, "%s:plugins", dir);
    setenv("SCALEMETER_PLUGIN_PATH", list, 1);
    CHECK_EQ(sm_registry_open(&reg, &st), -1);
    CHECK_CONTAINS(st.msg, "'plugins' is a relative folder");
    unsetenv("SCALEMETER_PLUGIN_PATH");

    /* a link in a trusted folder to a file in one every user may write (sticky, as /tmp):
     * only the file's own mode was checked, so whoever created it there first had their code
     * run; and that file loaded by its own path */
    char open_dir[160], open_path[192], link_dir[160], link_path[192];
    snprintf(open_dir, sizeof open_dir, "%s/open", tmpdir);
    snprintf(open_path, sizeof open_path, "%s/good.so", open_dir);
    snprintf(link_dir, sizeof link_dir, "%s/linked", tmpdir);
    snprintf(link_path, sizeof link_path, "%s/good.so", link_dir);
    CHECK_EQ(mkdir(open_dir, 0700), 0);
    CHECK_EQ(mkdir(link_dir, 0700), 0);
    CHECK_EQ(rename(path, open_path), 0);
    CHECK_EQ(chmod(open_dir, 01777), 0);
    CHECK_EQ(symlink(open_path, link_path), 0);
    reg = sm_registry_new();
    CHECK_EQ(sm_registry_load_dir(reg, link_dir, &st), -1);
    char want[1024];
    snprintf(want, sizeof want,
             "%s: refusing plugin file: it resolves to %s, in %s, which is writable by every "
             "user, who could put their code there",
             link_path, open_path, open_dir);
    CHECK_CONTAINS(st.msg, want);
    CHECK_EQ(sm_registry_load_file(reg, open_path, &st), -1);
    snprintf(want, sizeof want,
             "%s: refusing plugin file: its folder %s is writable by every user, who could put "
             "their code there",
             open_path, open_dir);
    CHECK_CONTAINS(st.msg, want);
    CHECK_EQ(sm_registry_count(reg), 0);
    sm_registry_free(reg);
    unlink(link_path);
    unlink(open_path);
    rmdir(link_dir);
    rmdir(open_dir);
    rmdir(dir);
}

/* The sixth campaign: a plugin file named as a companion module (x_cpu.so, x_gpu.so), which
 * every folder scan skips as x.so's kernels: check-plugin passed it, and every command then
 * said "unknown layer type" naming no file. Refused when loaded, saying so. */
static void companion_names(void)
{
    static const char *const names[][2] = {
        {"x_cpu.so", "a plugin file named NAME_cpu.so is taken for the CPU kernel module of "
                     "NAME.so (x.so), which no folder loads as a plugin: rename it"},
        {"x_gpu.so", "a plugin file named NAME_gpu.so is taken for the GPU kernel module of "
                     "NAME.so (x.so), which no folder loads as a plugin: rename it"}};
    for (int i = 0; i < 2; i++) {
        char path[192];
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i][0]);
        FILE *f = fopen(path, "wb");
        fwrite(good_bytes, 1, good_size, f);
        fclose(f);
        CHECK_EQ(chmod(path, 0644), 0);
        expect_refused(path, names[i][1]);
        unlink(path);
    }
}

/* The third campaign: plugins whose reasons run to the last byte of sm_error.msg with no NUL
 * (read past it, under ASan a stack-buffer-overflow), whose counts are negative (activations
 * of -1.5 GiB that "fit"), whose parse fails with no reason, or whose own CPU kernel table is
 * at 0x10 (check-plugin crashed in the executor). DIR holds KIND/KIND.so. */
static void lying_plugin(const char *dir, const char *kind, const char *want)
{
    char path[512], layer[96], where[160];
    snprintf(path, sizeof path, "%s/%s/%s.so", dir, kind, kind);
    snprintf(layer, sizeof layer,
             "[network]\ninput = 3x8x8\n[layers]\na = relu\nb = test_hostile_%s\n", kind);
    sm_status st;
    sm_registry *reg;
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK_EQ(sm_registry_load_file(reg, path, &st), 0);
    sm_network *net = net_load(reg, layer, 0, &st);
    CHECK_MSG(net == NULL, "%s: a network with the layer was loaded", kind);
    if (!net) {
        snprintf(where, sizeof where, "%s:5: layer b (test_hostile_%s): ", net_file_path, kind);
        CHECK_CONTAINS(st.msg, where);
        /* the whole message is the place and the reason: nothing read past the plugin's text */
        const char *reason = strstr(st.msg, where);
        CHECK_MSG(reason && strcmp(reason + strlen(where), want) == 0, "%s: %s", kind, st.msg);
    }
    sm_network_free(net);
    sm_registry_free(reg);
}

/* The network of relu, then the plugin KIND (its folder's KIND.so, loaded into a registry of its
 * own, *reg), then `after` (a line of layers, or ""), on 3 x 8 x 8 samples; NULL, said, where it
 * does not load. */
static sm_network *after_relu(const char *dir, const char *kind, const char *after,
                              sm_registry **reg)
{
    char path[512], text[256];
    snprintf(path, sizeof path, "%s/%s/%s.so", dir, kind, kind);
    snprintf(text, sizeof text,
             "[network]\ninput = 3x8x8\n[layers]\na = relu\nb = test_hostile_%s\n%s", kind, after);
    sm_status st;
    CHECK_EQ(sm_registry_open(reg, &st), 0);
    CHECK_EQ(sm_registry_load_file(*reg, path, &st), 0);
    sm_network *net = net_load(*reg, text, 0, &st);
    CHECK_MSG(net != NULL, "%s: %s", kind, st.msg);
    return net;
}

/* A plugin that writes through its const input shapes (a cast) changes nothing the host
 * counts: relu then the plugin on 3 x 8 x 8 = 192 elements each move 4 (192 + 192) bytes, 3072
 * in all, where the written 1000 channels made the plugin's input 64,000 elements. */
static void writing_plugin(const char *dir)
{
    sm_registry *reg;
    sm_network *net = after_relu(dir, "writes_input", "", &reg);
    sm_status st;
    sm_metrics m;
    if (net && sm_network_metrics(net, 1, &m, &st) == 0)
        CHECK_EQ(m.bytes, 3072);
    sm_network_free(net);
    sm_registry_free(reg);
}

/* A plugin of ABI 20 that writes infer_kept_elems (2^30 elements, 4 GiB a sample at fp32),
 * which it cannot know: the host reads it as 0, so inference holds at most, while a layer runs,
 * the network's input (its caller's), that layer's input and its output: 3 x 192 x 4 = 2304
 * bytes a sample (read, the 2^30 would be 4 GiB more while the relu after it runs). */
static void old_kept_plugin(const char *dir)
{
    sm_registry *reg;
    sm_network *net = after_relu(dir, "old_kept", "c = relu\n", &reg);
    sm_status st;
    sm_memory_config mc = {0};
    sm_memory mem;
    if (net && sm_network_memory(net, 1, 1, 0, &mc, &mem, &st) == 0)
        CHECK_EQ(mem.activations, 2304);
    sm_network_free(net);
    sm_registry_free(reg);
}

/* A plugin of ABI 21 that writes the linear products' fields ABI 22 appended: the host reads
 * them as 0 (its 2^40 elements were no refusal) and takes the default of a product type, one
 * nn.Linear over its 192 input and output elements and all its 3072 FLOPs. */
static void old_linear_plugin(const char *dir)
{
    sm_registry *reg;
    sm_network *net = after_relu(dir, "old_linear", "", &reg);
    if (net) {
        const sm_layer_metrics *m = &net->layers[1].m;
        CHECK_EQ(m->linear_products, 1);
        CHECK_EQ(m->linear_flops, 3072);
        CHECK_EQ(m->linear_input_elems, 192);
        CHECK_EQ(m->linear_output_elems, 192);
    }
    sm_network_free(net);
    sm_registry_free(reg);
}

/* The sixth campaign: a layer a fusing framework runs inside a neighbour's kernel is priced
 * nothing of its own there, so a plugin declaring it 10^6 FLOPs an element gave mfu 359%; only
 * an activation's forward FLOPs, weights and shape were bounded. Each count of KIND (fused_
 * activation, fused_norm, fused_residual) just past its bound (heavy=COUNT) is refused at its
 * line naming the plugin's file, the type and the count (want, after "declares "); each at its
 * bound (heavy=edge) loads. The network: 3x8x8 (192 elements) through relu, then the plugin's
 * layer, fed by both relus (384 elements in, 192 out) where it is the residual sum. */
static void fused_plugin(const char *dir, const char *kind, const char *heavy, const char *want)
{
    char path[512], text[256], where[768];
    snprintf(path, sizeof path, "%s/%s/%s.so", dir, kind, kind);
    int residual = strcmp(kind, "fused_residual") == 0;
    snprintf(text, sizeof text,
             "[network]\ninput = 3x8x8\n[layers]\na = relu\n%sb = test_hostile_%s heavy=%s%s\n",
             residual ? "r = relu\n" : "", kind, heavy, residual ? " from=a,r" : "");
    sm_status st;
    sm_registry *reg;
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK_EQ(sm_registry_load_file(reg, path, &st), 0);
    sm_network *net = net_load(reg, text, 0, &st);
    if (!want) {
        CHECK_MSG(net != NULL, "%s heavy=%s: %s", kind, heavy, st.msg);
    } else {
        CHECK_MSG(net == NULL, "%s heavy=%s: a network with the layer was loaded", kind, heavy);
        snprintf(where, sizeof where, "%s:%d: layer b (test_hostile_%s): %s declares ",
                 net_file_path, residual ? 6 : 5, kind, path);
        const char *reason = strstr(st.msg, where);
        CHECK_MSG(reason && strcmp(reason + strlen(where), want) == 0, "%s heavy=%s: %s", kind,
                  heavy, st.msg);
    }
    sm_network_free(net);
    sm_registry_free(reg);
}

static void fused_plugins(const char *dir)
{
    const char *act = "SM_TRAIT_ACTIVATION, an element-wise function of one input that rides "
                      "its producer's epilogue, but ";
    const char *norm = "SM_TRAIT_BATCH_STATISTICS, a batch norm, whose statistics a fusing "
                       "framework sums in its convolution's epilogue, but ";
    const char *res = "SM_TRAIT_RESIDUAL, an element-wise sum, which a fusing framework adds "
                      "in a batch norm's kernel, but ";
    /* activation: 192 elements in and out, 384 together */
    static const char *const activation[][2] = {
        {"flops", "its flops 12480 are more than 12288 (64 an element, 192)"}, /* 65 x 192 */
        {"bwd_flops", "its bwd_flops 24768 are more than 24576 (128 an element, 192)"},
        {"bytes", "its bytes 13825 are more than 13824 (36 an element of its inputs and output, "
                  "384)"},
        {"upcast_bytes", "its upcast_bytes 13825 are more than 13824 (36 an element of its "
                         "inputs and output, 384)"},
        {"weights", "it has weights"},
        {"kernels", "its kernels_fwd 12 are more than 11 a pass"},
        {"library_kernels", "its library_kernels_bwd 1 are more than 0 a pass"},
    };
    char want[512];
    for (size_t i = 0; i < sizeof activation / sizeof *activation; i++) {
        snprintf(want, sizeof want, "%s%s", act, activation[i][1]);
        fused_plugin(dir, "fused_activation", activation[i][0], want);
        snprintf(want, sizeof want, "%s%s", norm, activation[i][1]);
        if (strcmp(activation[i][0], "weights") != 0) /* a norm has its own */
            fused_plugin(dir, "fused_norm", activation[i][0], want);
    }
    /* a batch norm of 3 channels: a scale and a shift each, 6; it declares 9 */
    snprintf(want, sizeof want, "%sits weights 9 are more than 6 (2 a channel, 3)", norm);
    fused_plugin(dir, "fused_norm", "weights", want);
    /* the residual sum: 2 x 192 = 384 elements in, 576 with its output */
    snprintf(want, sizeof want, "%sits flops 24960 are more than 24576 (64 an element, 384)",
             res); /* 65 x 384 */
    fused_plugin(dir, "fused_residual", "flops", want);
    snprintf(want, sizeof want,
             "%sits bytes 20737 are more than 20736 (36 an element of its inputs and output, "
             "576)",
             res);
    fused_plugin(dir, "fused_residual", "bytes", want);
    snprintf(want, sizeof want, "%sit has weights", res);
    fused_plugin(dir, "fused_residual", "weights", want);
    snprintf(want, sizeof want, "%sits kernels_fwd 12 are more than 11 a pass", res);
    fused_plugin(dir, "fused_residual", "kernels", want);
    /* every count at its bound, and the plain one, load */
    static const char *const kinds[] = {"fused_activation", "fused_norm", "fused_residual"};
    for (int k = 0; k < 3; k++) {
        fused_plugin(dir, kinds[k], "edge", NULL);
        fused_plugin(dir, kinds[k], "none", NULL);
    }
}

/* The sixth campaign: kernel tables the registry handed out though they could not run. A
 * descriptor's own table of 4 bytes or without forward loaded, a companion's without forward
 * was taken, and the CPU executor then said the descriptor "sets no cpu table, and there is no
 * X_cpu.so beside it", where it did or there was; a GPU table without forward, or whose setup
 * is at 0x30, was handed to the cuda backend, which would call it. */
static void kernel_tables(const char *dir)
{
    char path[512], want[1024];
    snprintf(path, sizeof path, "%s/own_cpu_small/own_cpu_small.so", dir);
    expect_refused(path, "CPU kernel table too small (4 bytes)");
    snprintf(path, sizeof path, "%s/own_cpu_no_forward/own_cpu_no_forward.so", dir);
    expect_refused(path, "its CPU kernel table has no forward (a kernel table needs forward "
                         "and backward: docs/plugin-abi.md)");
    static const char *const companions[][3] = {
        {"cpu_no_forward", "cpu", "its CPU kernel table has no forward"},
        {"gpu_no_forward", "gpu", "its GPU kernel table has no forward"},
        {"gpu_stray", "gpu", "its GPU kernel table's setup points outside every loaded object"}};
    for (int i = 0; i < 3; i++) {
        const char *kind = companions[i][0];
        snprintf(path, sizeof path, "%s/%s/%s.so", dir, kind, kind);
        sm_status st;
        sm_registry *reg = sm_registry_new();
        CHECK_EQ(sm_registry_load_file(reg, path, &st), 0);
        const sm_layer_type *t = sm_registry_type(reg, 0);
        int rc = 0;
        if (t && !strcmp(companions[i][1], "cpu")) {
            const struct sm_cpu_kernels *k = NULL;
            rc = sm_registry_cpu_kernels(reg, t, &k, &st);
        } else if (t) {
            const struct sm_gpu_kernels *k = NULL;
            rc = sm_registry_gpu_kernels(reg, t, &k, &st);
        }
        CHECK_MSG(rc == -1, "%s: its kernel table was handed out", kind);
        snprintf(want, sizeof want, "%s/%s/%s_%s.so: %s", dir, kind, kind, companions[i][1],
                 companions[i][2]);
        if (rc == -1)
            CHECK_CONTAINS(st.msg, want);
        sm_registry_free(reg);
    }
}

static void lying_plugins(const char *dir)
{
    char e[SM_ERROR_LEN], m[SM_ERROR_LEN], s[SM_ERROR_LEN];
    memset(e, 'E', sizeof e - 1), e[sizeof e - 1] = '\0';
    memset(m, 'M', sizeof m - 1), m[sizeof m - 1] = '\0';
    memset(s, 'S', sizeof s - 1), s[sizeof s - 1] = '\0';
    lying_plugin(dir, "infer_noterm", e);
    lying_plugin(dir, "metrics_noterm", m);
    lying_plugin(dir, "saved_noterm", s);
    lying_plugin(dir, "negative_io", "the plugin's output_elems is negative");
    lying_plugin(dir, "negative_tensors", "the plugin's param_tensors is negative");
    lying_plugin(dir, "fail_null", "the plugin refused its parameters (no reason given)");
    lying_plugin(dir, "macs",
                 "the plugin's macs 6 are more than half its 10 FLOPs (a multiply-accumulate "
                 "counts 2)");
    lying_plugin(dir, "tensorless", "the plugin's 5 weights cannot be in its 0 parameter tensors");
    /* ABI 14: channels a group are a convolution's */
    lying_plugin(dir, "group_channels",
                 "the plugin's group_channels 4 is not 0 or, of a convolution "
                 "(SM_TRAIT_CONVOLUTION), its input channels per group");
    /* ABI 16: rows are a layer norm's, and no more than a sample's elements */
    lying_plugin(dir, "norm_rows_batch",
                 "the plugin's norm_rows 4 is not 0 or, of a normalisation without batch "
                 "statistics (SM_TRAIT_NORMALISATION alone), the rows of its input it normalises");
    lying_plugin(dir, "norm_rows_huge",
                 "the plugin's norm_rows 1000 is not 0 or, of a normalisation without batch "
                 "statistics (SM_TRAIT_NORMALISATION alone), the rows of its input it normalises");
    /* ABI 18: broadcast passes are some of the forward passes over the scores */
    lying_plugin(dir, "broadcast_passes",
                 "the plugin's scores_broadcast_passes 3 is not within its 0 forward passes over "
                 "the scores");
    /* ABI 19: a copy reads and writes its elements among the bytes the layer moves */
    lying_plugin(dir, "view_copies",
                 "the plugin's copy_elems_fwd 0 or copy_elems_bwd 1099511627776 is not within its "
                 "bytes (a read and a write of 4 bytes an element among the 1536 it streams "
                 "forward, twice that backward)");
    /* ABI 20: the bias gradients summed are output gradients among the elements it moves */
    lying_plugin(dir, "bias_grads",
                 "the plugin's bias_grad_elems 1099511627776 is not within its bytes (an output "
                 "gradient's element, 4 bytes each, among the 1536 it moves)");
    /* ABI 21: what an inference pass keeps of a layer's to its end is no negative count */
    lying_plugin(dir, "kept_negative",
                 "the plugin's saved() declares infer_kept_elems -1: negative");
    /* ABI 22: a product reads at most half its FLOPs' elements */
    lying_plugin(dir, "linear_elems",
                 "the plugin's 1 linear products of 3072 FLOPs reading 1099511627776 and writing "
                 "192 elements are not within its weight tensors (3 products each at most: 3) and "
                 "its 3072 matrix FLOPs (2 an element read or written at least), or not 0 exactly "
                 "where its products are");
    lying_plugin(dir, "bias_sums",
                 "the plugin's bias_grad_sums 1 is not within its 0 parameter tensors, or not 0 "
                 "exactly where its bias_grad_elems 0 are");
    /* ABI 17: the executors compute a loss themselves, and update no weights of it */
    lying_plugin(dir, "loss_weights",
                 "the plugin declares SM_TRAIT_LOSS, a loss over logits with no weights, but its "
                 "metrics give 5 weights");
    lying_plugin(dir, "pooling_weights",
                 "the plugin declares SM_TRAIT_POOLING, a reduction over positions with no "
                 "weights, but its metrics give 5 weights");
    writing_plugin(dir);
    old_kept_plugin(dir);
    old_linear_plugin(dir);
    char path[512];
    snprintf(path, sizeof path, "%s/cpu_pointer/cpu_pointer.so", dir);
    expect_refused(path, "its CPU kernel table at 0x10 is not in the plugin");
    /* the fifth campaign (2026-11-26): what each did before is in hostile_plugin.c's list */
    lying_plugin(dir, "output_elems",
                 "the plugin's metrics() set input_elems 192 and output_elems 1, where its "
                 "shapes hold 192 and 192 (the host fills them; leave them)");
    lying_plugin(dir, "alias_grows",
                 "the plugin's saved() says the output is input 0's storage (in place), but it "
                 "holds 384 elements to the input's 192 (a view that does declares "
                 "SM_TRAIT_VIEW)");
    lying_plugin(dir, "selective",
                 "the plugin's saved() declares selective_elems 1000, more than its "
                 "extra_elems 0, of which it is part");
    snprintf(path, sizeof path, "%s/activation/activation.so", dir);
    char activation[640];
    snprintf(activation, sizeof activation,
             "%s declares SM_TRAIT_ACTIVATION, an element-wise function of one input that "
             "rides its producer's epilogue, but it has weights",
             path);
    lying_plugin(dir, "activation", activation);
    /* the host jumped to 0x10 (a crash blamed on the plugin's code), copied half of a field,
     * honoured a trait the plugin's version does not have, or called a long name no string */
    snprintf(path, sizeof path, "%s/view_strides/view_strides.so", dir);
    expect_refused(path, "its descriptor's view_strides points outside every loaded object");
    snprintf(path, sizeof path, "%s/partial_size/partial_size.so", dir);
    char want[96];
    snprintf(want, sizeof want, "its descriptor's struct_size %zu ends inside its field traits",
             offsetof(sm_layer_type, traits) + 2);
    expect_refused(path, want);
    snprintf(path, sizeof path, "%s/old_traits/old_traits.so", dir);
    expect_refused(path, "declares traits 0x800, which ABI 8 does not have");
    snprintf(path, sizeof path, "%s/new_trait/new_trait.so", dir);
    expect_refused(path, "declares traits 0x1000, which ABI 14 does not have");
    snprintf(path, sizeof path, "%s/loss_trait/loss_trait.so", dir);
    expect_refused(path, "declares traits 0x2000, which ABI 16 does not have");
    snprintf(path, sizeof path, "%s/elementwise_trait/elementwise_trait.so", dir);
    expect_refused(path, "declares traits 0x4000, which ABI 17 does not have");
    /* ABI 15: a pooling reduces positions, with no products and no weights */
    snprintf(path, sizeof path, "%s/pooling_matmul/pooling_matmul.so", dir);
    expect_refused(path, "declares SM_TRAIT_POOLING beside SM_TRAIT_MATMUL: a pooling reduces "
                         "positions and has no products of weights");
    /* the audit of 2026-11-29: a convolution without SM_TRAIT_MATMUL had none of its FLOPs
     * taken for matrix products (matmul_flops' default is all of them with MATMUL, none
     * without), so cuDNN's implicit products were priced at the fp32 vector peak at bf16 */
    snprintf(path, sizeof path, "%s/conv_no_matmul/conv_no_matmul.so", dir);
    expect_refused(path, "layer type 'test_hostile_conv_no_matmul' declares SM_TRAIT_CONVOLUTION "
                         "without SM_TRAIT_MATMUL: declare SM_TRAIT_MATMUL too: a convolution's "
                         "multiply-accumulates are priced as matrix products");
    /* traits that the descriptor's input counts contradict: a residual sum of one input had
     * its backward traffic priced as autograd's sum of two gradients, an activation of two
     * inputs rode its producer's epilogue; both were taken as declared */
    snprintf(path, sizeof path, "%s/residual_one/residual_one.so", dir);
    expect_refused(path, "layer type 'test_hostile_residual_one' declares SM_TRAIT_RESIDUAL, a "
                         "sum of its inputs, but takes at most 1 input (max_inputs 1): set "
                         "max_inputs to 0 (any number) or 2 or more, or drop the trait");
    snprintf(path, sizeof path, "%s/activation_two/activation_two.so", dir);
    expect_refused(path, "layer type 'test_hostile_activation_two' declares SM_TRAIT_ACTIVATION, "
                         "an element-wise function of one input, but takes up to 2 inputs "
                         "(max_inputs 2): set max_inputs to 1, or drop the trait");
    /* what the counts contradict, at the layer's line: a view of 192 FLOPs (3 x 8 x 8, one an
     * element), whose FLOPs the host priced though "it only moves or aliases its input"; 6
     * multiply-accumulates (12 FLOPs) of which no FLOP was a matrix product, priced at the
     * vector peak; 20 FLOPs of matrix products with no multiply-accumulate, an element-wise
     * layer priced on tensor cores */
    char reason[1024];
    snprintf(path, sizeof path, "%s/view_flops/view_flops.so", dir);
    snprintf(reason, sizeof reason,
             "%s declares SM_TRAIT_VIEW, which only moves or aliases its input, but its metrics "
             "give 192 FLOPs: a layer that computes is no view (drop the trait, or count no "
             "FLOPs)",
             path);
    lying_plugin(dir, "view_flops", reason);
    snprintf(path, sizeof path, "%s/macs_no_matmul/macs_no_matmul.so", dir);
    snprintf(reason, sizeof reason,
             "%s counts 6 multiply-accumulates, matrix products of 12 FLOPs, but 0 of its 20 "
             "FLOPs are matrix products (matmul_flops): declare SM_TRAIT_MATMUL, or set "
             "matmul_flops to its products' FLOPs",
             path);
    lying_plugin(dir, "macs_no_matmul", reason);
    snprintf(path, sizeof path, "%s/matmul_no_macs/matmul_no_macs.so", dir);
    snprintf(reason, sizeof reason,
             "%s says 20 of its FLOPs are matrix products (SM_TRAIT_MATMUL or matmul_flops), "
             "but counts no multiply-accumulate (macs 0): count them in macs, or drop "
             "SM_TRAIT_MATMUL (element-wise FLOPs run at the vector peak)",
             path);
    lying_plugin(dir, "matmul_no_macs", reason);
    /* a failure without a reason said "inputs do not fit", "cannot count" or "cannot say
     * what it keeps", and a shape nothing holds "output shape -3x8x8 is empty or too large",
     * as if the host had found them: each names the plugin that gave it */
    static const char *const silent[][2] = {
        {"infer_nomsg", "infer"}, {"metrics_nomsg", "metrics"}, {"saved_nomsg", "saved"}};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s/%s.so", dir, silent[i][0], silent[i][0]);
        snprintf(reason, sizeof reason,
                 "%s failed in its %s without a message (it returned non-zero with err empty: "
                 "give the reason with sm_error_set)",
                 path, silent[i][1]);
        lying_plugin(dir, silent[i][0], reason);
    }
    snprintf(path, sizeof path, "%s/shape_negative/shape_negative.so", dir);
    snprintf(reason, sizeof reason,
             "its plugin %s gave the output shape -3x8x8, which is empty or too large", path);
    lying_plugin(dir, "shape_negative", reason);
    /* a name of 195 to 255 characters loaded, but no line could name it: "layer = NAME", a
     * cases file's line, holds 198 characters, so 190 is the most */
    static const char *const too_long = "characters, more than the 190 a line of a network or "
                                        "cases file can spell (\"layer = NAME\", 198 at most)";
    char want_long[256];
    snprintf(path, sizeof path, "%s/long_name/long_name.so", dir);
    snprintf(want_long, sizeof want_long, "its descriptor's type name is 300 %s", too_long);
    expect_refused(path, want_long);
    snprintf(path, sizeof path, "%s/name_191/name_191.so", dir);
    snprintf(want_long, sizeof want_long, "its descriptor's type name is 191 %s", too_long);
    expect_refused(path, want_long);
    snprintf(path, sizeof path, "%s/name_190/name_190.so", dir);
    sm_status st;
    sm_registry *reg;
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK_MSG(sm_registry_load_file(reg, path, &st) == 0, "name_190: %s", st.msg);
    char name[191] = "", text[320];
    for (int i = 0; i < 19; i++)
        strcat(name, "test_host_");
    snprintf(text, sizeof text, "[network]\ninput = 3x8x8\n[layers]\nx = %s\n", name);
    sm_network *net = net_load(reg, text, 0, &st);
    CHECK_MSG(net != NULL, "a network naming the 190-character type: %s", st.msg);
    sm_network_free(net);
    sm_registry_free(reg);
    /* both were "its descriptor's name or summary is not a string in memory": a string on
     * the heap is in memory, and 4999 characters were a string */
    snprintf(path, sizeof path, "%s/heap_name/heap_name.so", dir);
    expect_refused(path, "its descriptor's type name is not a string the plugin's file holds (a "
                         "string literal; not one built on the heap or the stack)");
    snprintf(path, sizeof path, "%s/long_summary/long_summary.so", dir);
    expect_refused(path, "its descriptor's summary is 4096 characters, more than 4095");
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: test_hostile_plugins good.so ndim.so params.so pointer.so "
                        "data_entry.so HOSTILE_DIR\n");
        return 2;
    }
    const char *good = argv[1], *ndim = argv[2], *params = argv[3], *pointer = argv[4],
               *data_entry = argv[5];
    CHECK(mkdtemp(tmpdir) != NULL);
    FILE *in = fopen(good, "rb");
    if (!in)
        check_fatal(__FILE__, __LINE__, "cannot read %s", good);
    static unsigned char bytes[1 << 22];
    good_size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    good_bytes = bytes;

    /* item 9: 99 dimensions are refused without formatting past the 4 an sm_shape holds */
    sm_status st;
    sm_registry *reg;
    unsetenv("SCALEMETER_PLUGIN_PATH");
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK_EQ(sm_registry_load_file(reg, ndim, &st), 0);
    sm_network *net = net_load(reg,
                               "[network]\ninput = 3x8x8\n[layers]\na = relu\n"
                               "b = test_hostile_ndim\n",
                               0, &st);
    CHECK(net == NULL);
    if (!net) {
        char where[96];
        snprintf(where, sizeof where, "%s:5: layer b (test_hostile_ndim)", net_file_path);
        CHECK_CONTAINS(st.msg, where);
        CHECK_CONTAINS(st.msg, "output shape of 99 dimensions (1 to 4 allowed)");
    }
    sm_network_free(net);
    sm_registry_free(reg);

    /* item 13: 2^40 bytes of parameters refused when loading, naming the plugin */
    expect_refused(params, "declares 1099511627776 bytes of parameters per layer");
    /* item 10: a descriptor at 0x10, an entry point that is data, damaged dynamic sections */
    expect_refused(pointer, "returned 0x10, which is not a descriptor in the plugin");
    expect_refused(data_entry, "its sm_plugin_layer_type is not a function (ELF symbol type 1)");
    damaged_dynamic_sections();
    CHECK_EQ(load(good, &st), 0); /* the checks refuse none of a good plugin */

    lying_plugins(argv[6]);
    fused_plugins(argv[6]);
    companion_names();
    kernel_tables(argv[6]);
    fifo_and_empty_folder();
    trust();
    not_a_plugin_path();
    rmdir(tmpdir);
    return check_summary();
}
