/* The dynamic section of a plugin, checked before dlopen: ld.so follows its addresses and sizes
 * (string and symbol tables, hash tables, relocations, initialisers) without bounds, so one
 * corrupted entry in a file that is otherwise whole crashes the process inside the loader.
 * Every table it names must lie inside a loadable segment, sized as it says, and the entry
 * symbol, where defined, must be a function in an executable segment. The sm_elf_check caller
 * has already checked the ELF header, the program header table and the segments' file ranges. */
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "network/network_internal.h"

#if __SIZEOF_POINTER__ == 8
#define R_SYM(info) ELF64_R_SYM(info)
#else
#define R_SYM(info) ELF32_R_SYM(info)
#endif
#define MAX_LOADS 64
#define MAX_DYN 4096

typedef struct seg {
    uint64_t vaddr, memsz, offset, filesz;
    uint32_t flags;
} seg;

typedef struct image {
    int fd;
    const char *path;
    seg loads[MAX_LOADS];
    int n_loads;
} image;

static int read_at(int fd, void *buf, size_t len, uint64_t at)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(at + done));
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

/* The segment holding [addr, addr + len) in memory (file: within its file bytes), or NULL. */
static const seg *segment_of(const image *im, uint64_t addr, uint64_t len, int file)
{
    for (int i = 0; i < im->n_loads; i++) {
        const seg *s = &im->loads[i];
        uint64_t span = file ? s->filesz : s->memsz;
        if (addr >= s->vaddr && len <= span && addr - s->vaddr <= span - len)
            return s;
    }
    return NULL;
}

/* Reads len bytes at a virtual address from the file; -1 where they are not file bytes. */
static int read_vaddr(const image *im, void *buf, uint64_t len, uint64_t addr)
{
    const seg *s = segment_of(im, addr, len, 1);
    return s ? read_at(im->fd, buf, (size_t)len, s->offset + (addr - s->vaddr)) : -1;
}

static int damaged(const image *im, const char *what, sm_status *st)
{
    return sm_fail(st,
                   "%s: damaged plugin: its dynamic section's %s lies outside its loadable "
                   "segments (rebuild or reinstall it)",
                   im->path, what);
}

/* Number of dynamic symbols, from the GNU hash table: the last chain's end. Where no bucket
 * holds a symbol (a library that exports nothing: a plugin whose author left out
 * SM_DEFINE_PLUGIN), the table says nothing of the undefined symbols past symoffset, which GNU
 * ld 2.40 sets to 1 there: *unbounded is set, and *count is symoffset. */
static int gnu_hash_count(const image *im, uint64_t at, uint64_t *count, int *unbounded,
                          sm_status *st)
{
    uint32_t h[4]; /* nbuckets, symoffset, bloom words, bloom shift */
    if (read_vaddr(im, h, sizeof h, at))
        return damaged(im, "DT_GNU_HASH", st);
    uint64_t buckets = at + sizeof h + (uint64_t)h[2] * sizeof(ElfW(Addr));
    if (h[0] == 0 ||
        !segment_of(im, at, sizeof h + (uint64_t)h[2] * sizeof(ElfW(Addr)) + (uint64_t)h[0] * 4, 1))
        return damaged(im, "DT_GNU_HASH (its tables)", st);
    uint32_t top = 0;
    for (uint32_t b = 0; b < h[0]; b++) {
        uint32_t v;
        if (read_vaddr(im, &v, 4, buckets + 4ull * b))
            return damaged(im, "DT_GNU_HASH (its buckets)", st);
        top = v > top ? v : top;
    }
    *unbounded = 0;
    if (top < h[1]) {
        *count = h[1];
        *unbounded = top == 0;
        return 0;
    }
    uint64_t chain = buckets + 4ull * h[0];
    for (uint64_t i = top;; i++) { /* ends at the first odd value: read_vaddr bounds it */
        uint32_t v;
        if (read_vaddr(im, &v, 4, chain + 4 * (i - h[1])))
            return damaged(im, "DT_GNU_HASH (its chains)", st);
        if (v & 1) {
            *count = i + 1;
            return 0;
        }
    }
}

/* Relocations: the table inside the file's segments, each target inside a segment and each
 * symbol inside the symbol table. */
static int check_relocs(const image *im, uint64_t at, uint64_t size, int rela, uint64_t nsyms,
                        const char *what, sm_status *st)
{
    uint64_t ent = rela ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
    if (size % ent || !segment_of(im, at, size, 1))
        return damaged(im, what, st);
    for (uint64_t off = 0; off < size; off += ent) {
        ElfW(Rela) r = {0};
        if (read_vaddr(im, &r, ent, at + off))
            return damaged(im, what, st);
        if (!segment_of(im, r.r_offset, sizeof(ElfW(Addr)), 0) || R_SYM(r.r_info) >= nsyms)
            return sm_fail(st,
                           "%s: damaged plugin: relocation %llu of %s points outside the "
                           "plugin (rebuild or reinstall it)",
                           im->path, (unsigned long long)(off / ent), what);
    }
    return 0;
}

/* The entry symbol, where the file defines it: a function in an executable segment. */
static int check_entry(const image *im, uint64_t symtab, uint64_t nsyms, uint64_t strtab,
                       uint64_t strsz, const char *entry, sm_status *st)
{
    size_t want = strlen(entry) + 1;
    char name[128];
    if (want > sizeof name)
        return 0;
    for (uint64_t i = 1; i < nsyms; i++) {
        ElfW(Sym) s;
        if (read_vaddr(im, &s, sizeof s, symtab + i * sizeof s))
            return damaged(im, "DT_SYMTAB", st);
        if (s.st_name >= strsz)
            return damaged(im, "DT_SYMTAB (a symbol's name)", st);
        if (strsz - s.st_name < want || read_vaddr(im, name, want, strtab + s.st_name) ||
            memcmp(name, entry, want) != 0 || s.st_shndx == SHN_UNDEF)
            continue;
        int type = ELF64_ST_TYPE(s.st_info);
        const seg *code = segment_of(im, s.st_value, 1, 0);
        if (type != STT_FUNC)
            return sm_fail(st,
                           "%s: not a scalemeter plugin: its %s is not a function (ELF "
                           "symbol type %d)",
                           im->path, entry, type);
        if (!code || !(code->flags & PF_X))
            return sm_fail(st, "%s: damaged plugin: its %s lies outside its code", im->path, entry);
        return 0;
    }
    return 0;
}

int sm_elf_check_dynamic(int fd, uint64_t size, const char *path, const char *entry, sm_status *st)
{
    image im = {.fd = fd, .path = path};
    ElfW(Ehdr) eh;
    if (read_at(fd, &eh, sizeof eh, 0))
        return sm_fail(st, "%s: cannot read its ELF header", path);
    uint64_t dyn_at = 0, dyn_size = 0;
    for (int i = 0; i < eh.e_phnum; i++) {
        ElfW(Phdr) ph;
        if (read_at(fd, &ph, sizeof ph, eh.e_phoff + (uint64_t)i * sizeof ph))
            return sm_fail(st, "%s: cannot read its program headers", path);
        if (ph.p_type == PT_DYNAMIC)
            dyn_at = ph.p_vaddr, dyn_size = ph.p_filesz; /* ld.so reads it in memory */
        if (ph.p_type != PT_LOAD)
            continue;
        if (im.n_loads == MAX_LOADS || ph.p_filesz > ph.p_memsz ||
            ph.p_vaddr > UINT64_MAX - ph.p_memsz)
            return sm_fail(st, "%s: damaged plugin: segment %d is malformed", path, i);
        im.loads[im.n_loads++] =
            (seg){ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, ph.p_flags};
    }
    (void)size; /* sm_elf_check has bounded every segment by the file's size */
    if (!dyn_size)
        return sm_fail(st, "%s: not a plugin: a shared object without a dynamic section", path);
    if (!segment_of(&im, dyn_at, dyn_size, 1))
        return damaged(&im, "PT_DYNAMIC", st);
    size_t n = dyn_size / sizeof(ElfW(Dyn));
    n = n < MAX_DYN ? n : MAX_DYN;
    ElfW(Dyn) *dyn = malloc(n * sizeof *dyn + 1);
    if (!dyn || read_vaddr(&im, dyn, n * sizeof *dyn, dyn_at)) {
        free(dyn);
        return sm_fail(st, "%s: cannot read its dynamic section", path);
    }
    /* the values of the tags below, with whether each is present */
    uint64_t v[DT_NUM] = {0}, gnu_hash = 0, needed = 0;
    unsigned char has[DT_NUM] = {0};
    int has_gnu_hash = 0;
    for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++) {
        ElfW(Sxword) tag = dyn[i].d_tag;
        if (tag >= 0 && tag < DT_NUM)
            v[tag] = dyn[i].d_un.d_val, has[tag] = 1;
        if (tag == DT_NEEDED && dyn[i].d_un.d_val >= needed)
            needed = dyn[i].d_un.d_val < UINT64_MAX ? dyn[i].d_un.d_val + 1 : UINT64_MAX;
        else if (tag == DT_GNU_HASH)
            gnu_hash = dyn[i].d_un.d_ptr, has_gnu_hash = 1;
    }
    free(dyn);

    if (!has[DT_STRTAB] || !has[DT_STRSZ] || !segment_of(&im, v[DT_STRTAB], v[DT_STRSZ], 1))
        return damaged(&im, "DT_STRTAB (with DT_STRSZ)", st);
    if (!has[DT_SYMTAB] || !segment_of(&im, v[DT_SYMTAB], sizeof(ElfW(Sym)), 1))
        return damaged(&im, "DT_SYMTAB", st);
    uint64_t nsyms = 0;
    int unbounded = 0; /* exports nothing: no entry symbol to check */
    if (has_gnu_hash) {
        if (gnu_hash_count(&im, gnu_hash, &nsyms, &unbounded, st))
            return -1;
        if (unbounded) { /* the symbols up to the string table, or to the segment's end */
            const seg *s = segment_of(&im, v[DT_SYMTAB], sizeof(ElfW(Sym)), 1);
            uint64_t end = s->vaddr + s->filesz;
            if (v[DT_STRTAB] > v[DT_SYMTAB] && v[DT_STRTAB] < end)
                end = v[DT_STRTAB];
            uint64_t fit = (end - v[DT_SYMTAB]) / sizeof(ElfW(Sym));
            nsyms = fit > nsyms ? fit : nsyms;
        }
    } else if (has[DT_HASH]) {
        uint32_t h[2]; /* nbucket, nchain */
        if (read_vaddr(&im, h, sizeof h, v[DT_HASH]) ||
            !segment_of(&im, v[DT_HASH], (2ull + h[0] + h[1]) * 4, 1))
            return damaged(&im, "DT_HASH", st);
        nsyms = h[1];
    } else {
        return sm_fail(st, "%s: not a plugin: a shared object without a symbol hash table", path);
    }
    if (!segment_of(&im, v[DT_SYMTAB], nsyms * sizeof(ElfW(Sym)), 1)) /* nsyms < 2^33 */
        return damaged(&im, "DT_SYMTAB (for the symbols its hash table counts)", st);
    /* names taken from the string table */
    if (needed > v[DT_STRSZ])
        return damaged(&im, "DT_NEEDED", st);
    const int names[] = {DT_SONAME, DT_RPATH, DT_RUNPATH};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (has[names[i]] && v[names[i]] >= v[DT_STRSZ])
            return damaged(&im, "DT_SONAME, DT_RPATH or DT_RUNPATH", st);
    if (has[DT_RELA] &&
        check_relocs(&im, v[DT_RELA], v[DT_RELASZ], 1, nsyms, "DT_RELA (with DT_RELASZ)", st))
        return -1;
    if (has[DT_REL] &&
        check_relocs(&im, v[DT_REL], v[DT_RELSZ], 0, nsyms, "DT_REL (with DT_RELSZ)", st))
        return -1;
    if (has[DT_JMPREL] &&
        check_relocs(&im, v[DT_JMPREL], v[DT_PLTRELSZ], !has[DT_PLTREL] || v[DT_PLTREL] == DT_RELA,
                     nsyms, "DT_JMPREL (with DT_PLTRELSZ)", st))
        return -1;
    /* arrays of function pointers ld.so calls: inside a segment (their values are relocated) */
    const struct {
        int at, size;
        const char *what;
    } arrays[] = {
        {DT_INIT_ARRAY, DT_INIT_ARRAYSZ, "DT_INIT_ARRAY (with DT_INIT_ARRAYSZ)"},
        {DT_FINI_ARRAY, DT_FINI_ARRAYSZ, "DT_FINI_ARRAY (with DT_FINI_ARRAYSZ)"},
        {DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ, "DT_PREINIT_ARRAY"},
    };
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        if (has[arrays[i].at] && (v[arrays[i].size] % sizeof(ElfW(Addr)) ||
                                  !segment_of(&im, v[arrays[i].at], v[arrays[i].size], 0)))
            return damaged(&im, arrays[i].what, st);
    const int code[] = {DT_INIT, DT_FINI};
    for (size_t i = 0; i < sizeof code / sizeof *code; i++) {
        const seg *s = has[code[i]] ? segment_of(&im, v[code[i]], 1, 0) : NULL;
        if (has[code[i]] && (!s || !(s->flags & PF_X)))
            return damaged(&im, "DT_INIT or DT_FINI", st);
    }
    return entry && !unbounded
               ? check_entry(&im, v[DT_SYMTAB], nsyms, v[DT_STRTAB], v[DT_STRSZ], entry, st)
               : 0;
}
