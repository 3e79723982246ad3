/* A look at a plugin file before dlopen: the dynamic loader trusts the headers it maps, so a
 * truncated or foreign .so dropped into a plugin folder would crash every command inside
 * ld.so. Checked here: the ELF magic, this process's class, byte order and machine, a shared
 * object, that the file holds every header table and loadable segment it declares, and its
 * dynamic section (elf_dynamic.c). */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "network/network_internal.h"

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define HOST_MACHINE EM_PPC64
#elif defined(__riscv)
#define HOST_MACHINE EM_RISCV
#endif

#if __SIZEOF_POINTER__ == 8
#define HOST_CLASS ELFCLASS64
#else
#define HOST_CLASS ELFCLASS32
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#else
#define HOST_DATA ELFDATA2MSB
#endif

/* offset + count * size <= file size, without overflow */
static int table_fits(uint64_t offset, uint64_t count, uint64_t size, uint64_t file)
{
    return offset <= file && (size == 0 || count <= (file - offset) / size);
}

static int read_at(int fd, void *buf, size_t len, off_t at)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, at + (off_t)done);
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

int sm_elf_check(const char *path, const char *entry, sm_status *st)
{
    /* O_NONBLOCK: a FIFO named x.so must not wait for a writer (it is refused below) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return sm_fail(st, "%s: cannot load plugin: %s", path, strerror(errno));
    struct stat sb;
    ElfW(Ehdr) eh;
    int rc = 0;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        rc = sm_fail(st, "%s: not a plugin: not a regular file", path);
        goto done;
    }
    uint64_t size = (uint64_t)sb.st_size;
    if (size < sizeof eh || read_at(fd, &eh, sizeof eh, 0) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        rc = sm_fail(st, "%s: not a plugin: not an ELF shared object%s", path,
                     size < sizeof eh ? " (too short)" : "");
        goto done;
    }
    if (eh.e_ident[EI_CLASS] != HOST_CLASS || eh.e_ident[EI_DATA] != HOST_DATA
#ifdef HOST_MACHINE
        || eh.e_machine != HOST_MACHINE
#endif
    ) {
        rc = sm_fail(st,
                     "%s: not a plugin for this machine (ELF class %d, machine %d): rebuild "
                     "it here",
                     path, eh.e_ident[EI_CLASS], eh.e_machine);
        goto done;
    }
    if (eh.e_type != ET_DYN) {
        rc = sm_fail(st,
                     "%s: not a plugin: an ELF file but not a shared object (build it with "
                     "-shared -fPIC)",
                     path);
        goto done;
    }
    if (eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0 ||
        !table_fits(eh.e_phoff, eh.e_phnum, eh.e_phentsize, size) ||
        (eh.e_shnum && !table_fits(eh.e_shoff, eh.e_shnum, eh.e_shentsize, size))) {
        rc = sm_fail(st,
                     "%s: truncated or damaged plugin: its header tables lie beyond its %llu "
                     "bytes (rebuild or reinstall it)",
                     path, (unsigned long long)size);
        goto done;
    }
    for (int i = 0; i < eh.e_phnum && rc == 0; i++) {
        ElfW(Phdr) ph;
        if (read_at(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize))) {
            rc = sm_fail(st, "%s: cannot read its program headers", path);
            break;
        }
        if ((ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC) &&
            !table_fits(ph.p_offset, 1, ph.p_filesz, size))
            rc = sm_fail(st,
                         "%s: truncated or damaged plugin: segment %d ends beyond its %llu "
                         "bytes (rebuild or reinstall it)",
                         path, i, (unsigned long long)size);
    }
    if (rc == 0)
        rc = sm_elf_check_dynamic(fd, size, path, entry, st);
done:
    close(fd);
    return rc;
}
