/* Files the library writes (coefficients, device descriptions) appear whole or not at all: they
 * are written beside their final name, under a fresh name (PATH.tmp.XXXXXXXX), and renamed once
 * flushed to disk, so a full disk or a crash never leaves a truncated file where a good one
 * was, or a 0-byte one. A path that is not a regular file (/dev/null, /dev/stdout, a pipe) is
 * written in place: renaming over it would replace the device with a file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

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
    /* a name of our own, created here (O_CREAT | O_EXCL, which follows no symbolic link): a
     * link planted at a name known in advance would have us overwrite its target. mkstemp
     * would do, but makes the file 0600 where fopen's 0666 less the umask is wanted. */
    static unsigned counter;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        unsigned salt =
            (unsigned)now.tv_nsec ^ ((unsigned)getpid() << 16) ^ counter++ * 2654435761u;
        if ((size_t)snprintf(tmp, len, "%s.tmp.%08x", path, salt) >= len) {
            sm_fail(st, "%.200s...: path too long", path);
            return NULL;
        }
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        sm_fail(st, "%s: cannot write: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
    }
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
