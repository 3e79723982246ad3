/* Fuzz target: the atomic writer (core/src/util/atomic_file.c) that coefficient files and device
 * descriptions are written with: any bytes written to a new file, over an existing one, over
 * /dev/null (in place) or to a path too long must be there whole afterwards, or the old file
 * untouched and no temporary left. */
#include <sys/stat.h>

#include "fuzz_common.h"
#include "util/util.h"

static char dir[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(dir, sizeof dir, "%s/sm_fuzz_atomic_XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz_atomic: mkdtemp");
        exit(2);
    }
    return 0;
}

/* Whether path holds exactly data[0..size). */
static int holds(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint8_t *buf = malloc(size + 1);
    size_t got = fread(buf, 1, size + 1, f);
    fclose(f);
    int same = got == size && memcmp(buf, data, size) == 0;
    free(buf);
    return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char path[8192], tmp[4200];
    int where = data[0] % 4;
    if (where == 0 || where == 1) { /* a new file; over an existing one */
        snprintf(path, sizeof path, "%s/out.ini", dir);
        remove(path);
        if (where == 1) {
            FILE *old = fopen(path, "w");
            if (!old || fputs("old", old) < 0 || fclose(old))
                exit(2);
        }
    } else if (where == 2) {
        snprintf(path, sizeof path, "/dev/null");
    } else { /* longer than a path may be: refused, nothing written */
        memset(path, 'a', 5000);
        path[5000] = '\0';
    }
    sm_status st;
    FILE *f = sm_atomic_open(path, tmp, sizeof tmp, NULL, &st);
    if (!f) {
        if (where < 2)
            abort(); /* a writable folder refused */
        return 0;
    }
    if (size > 1 && fwrite(data + 1, 1, size - 1, f) != size - 1)
        exit(2);
    if (sm_atomic_commit(f, tmp, path, &st))
        abort(); /* nothing here should fail to commit */
    struct stat sb;
    if (tmp[0] && stat(tmp, &sb) == 0)
        abort(); /* the temporary stayed */
    if (where < 2 && !holds(path, data + 1, size - 1))
        abort(); /* not what was written */
    return 0;
}
