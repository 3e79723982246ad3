/* Files the library writes (coefficients, device descriptions) appear whole or not at all: they
 * are written beside their final name and renamed once flushed to disk, so a full disk or a
 * crash never leaves a truncated file where a good one was, or a 0-byte one. A path that is not
 * a regular file (/dev/null, /dev/stdout, a pipe) is written in place: renaming over it would
 * replace the device with a file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

FILE *sm_atomic_open(const char *path, char *tmp, size_t len, sm_status *st)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        if (len)
            tmp[0] = '\0'; /* no temporary: sm_atomic_commit writes in place */
        FILE *f = fopen(path, "w");
        if (!f)
            sm_fail(st, "%s: cannot write: %s", path, strerror(errno));
        return f;
    }
    if ((size_t)snprintf(tmp, len, "%s.tmp", path) >= len) {
        sm_fail(st, "%.200s...: path too long", path);
        return NULL;
    }
    FILE *f = fopen(tmp, "w");
    if (!f)
        sm_fail(st, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

int sm_atomic_commit(FILE *f, const char *tmp, const char *path, sm_status *st)
{
    int in_place = tmp[0] == '\0';
    int bad = fflush(f) != 0 || ferror(f) || (!in_place && fsync(fileno(f)) != 0);
    int e = errno;
    if (fclose(f) != 0 && !bad)
        bad = 1, e = errno;
    if (!bad && !in_place && rename(tmp, path) != 0)
        bad = 1, e = errno;
    if (bad) {
        if (!in_place)
            remove(tmp);
        return sm_fail(st, "%s: write error: %s (nothing written)", path, strerror(e));
    }
    return 0;
}
