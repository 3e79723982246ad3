/* Files the library writes (coefficients, device descriptions) appear whole or not at all: they
 * are written beside their final name, under a fresh name (PATH.tmp.XXXXXXXX), and renamed once
 * flushed to disk, so a full disk or a crash never leaves a truncated file where a good one
 * was, or a 0-byte one. A symbolic link is written through: the file is its target's, and the
 * link stays. A path that is not a regular file (/dev/null, /dev/stdout, a pipe) is
 * written in place: renaming over it would replace the device with a file. An existing file is
 * treated as a shell's `>` treats it: one the user may not write is refused (renaming over it
 * needs only the folder's permission, so a 0444 file was replaced), and the new file takes the
 * old one's permission bits (a 0600 file became 0644). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define TMP_SUFFIX_LEN 13 /* ".tmp.XXXXXXXX" */

/* The file a path names once its symbolic links are followed, existing or not (a dangling
 * link names the file to create): writing through a link replaces its target, as a shell's
 * `>` does, where renaming over the link would replace the link with a file. A relative
 * link is read from the link's folder. -1 (errno set) for a loop or a name too long. */
static int follow_links(const char *path, char *out, size_t len)
{
    if ((size_t)snprintf(out, len, "%s", path) >= len)
        return errno = ENAMETOOLONG, -1;
    for (int hops = 0;; hops++) {
        struct stat sb;
        if (lstat(out, &sb) != 0 || !S_ISLNK(sb.st_mode))
            return 0;
        if (hops == 40)
            return errno = ELOOP, -1;
        char target[4096];
        ssize_t n = readlink(out, target, sizeof target - 1);
        if (n < 0)
            return -1;
        if ((size_t)n == sizeof target - 1)
            return errno = ENAMETOOLONG, -1;
        target[n] = '\0';
        char *slash = strrchr(out, '/');
        size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1;
        if (dir + (size_t)n >= len)
            return errno = ENAMETOOLONG, -1;
        memcpy(out + dir, target, (size_t)n + 1);
    }
}

FILE *sm_atomic_open(const char *path, char *tmp, size_t len, sm_atomic_why *why, sm_status *st)
{
    sm_atomic_why unasked;
    if (!why)
        why = &unasked;
    *why = SM_ATOMIC_FAILED; /* until a file is open */
    if (!path || !tmp) {
        sm_null_arg(st, __func__, !path ? "path" : "tmp");
        return NULL;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        if (len)
            tmp[0] = '\0'; /* no temporary: sm_atomic_commit writes in place */
        FILE *f = fopen(path, "w");
        if (!f)
            sm_fail(st, "%s: cannot write: %s", path, strerror(errno));
        else
            *why = SM_ATOMIC_OPENED;
        return f;
    }
    /* a name of our own, created here (O_CREAT | O_EXCL, which follows no symbolic link): a
     * link planted at a name known in advance would have us overwrite its target. mkstemp
     * would do, but makes the file 0600 where fopen's 0666 less the umask is wanted. */
    char file[4096];
    if (follow_links(path, file, sizeof file) != 0) {
        sm_fail(st, "%s: cannot write: %s", path, strerror(errno));
        return NULL;
    }
    /* the file written is the link's target, so its permissions are the ones that count */
    struct stat old;
    int replaces = stat(file, &old) == 0 && S_ISREG(old.st_mode);
    if (replaces && access(file, W_OK) != 0) {
        *why = SM_ATOMIC_NOT_WRITABLE;
        sm_fail(st, "%s: not writable (%s)", path, strerror(errno));
        return NULL;
    }
    static unsigned counter;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        unsigned salt =
            (unsigned)now.tv_nsec ^ ((unsigned)getpid() << 16) ^ counter++ * 2654435761u;
        if ((size_t)snprintf(tmp, len, "%s.tmp.%08x", file, salt) >= len) {
            sm_fail(st, "%.200s...: path too long", path);
            return NULL;
        }
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    /* fchmod sets the bits whole, the umask aside; set-user-ID and the like are not kept, as
     * a write by another user clears them */
    if (fd >= 0 && replaces && fchmod(fd, old.st_mode & 0777) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        fd = -1;
        errno = e;
    }
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        sm_fail(st, "%s: cannot write: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
    } else {
        *why = SM_ATOMIC_OPENED;
    }
    return f;
}

int sm_atomic_rename(const char *tmp)
{
    if (!tmp)
        return errno = EINVAL, -1;
    char file[4200];
    size_t n = strlen(tmp);
    if (n <= TMP_SUFFIX_LEN || n >= sizeof file)
        return errno = EINVAL, -1;
    memcpy(file, tmp, n - TMP_SUFFIX_LEN);
    file[n - TMP_SUFFIX_LEN] = '\0';
    return rename(tmp, file);
}

int sm_atomic_commit(FILE *f, const char *tmp, const char *path, sm_status *st)
{
    if (!f || !tmp || !path) {
        if (f) /* closed on every failure, as below */
            fclose(f);
        return sm_null_arg(st, __func__, !f ? "f" : !tmp ? "tmp" : "path");
    }
    int in_place = tmp[0] == '\0';
    int bad = fflush(f) != 0 || ferror(f) || (!in_place && fsync(fileno(f)) != 0);
    int e = errno;
    if (fclose(f) != 0 && !bad)
        bad = 1, e = errno;
    if (!bad && !in_place && sm_atomic_rename(tmp) != 0)
        bad = 1, e = errno;
    if (bad) {
        if (!in_place)
            remove(tmp);
        return sm_fail(st, "%s: write error: %s (nothing written)", path, strerror(e));
    }
    return 0;
}
