/* External commands beside the binary (external.h). Only the binary's own folder is searched,
 * not PATH: what `scalemeter NAME` runs is what was installed with it. */
#define _GNU_SOURCE
#include "external.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *name, *summary;
} known[] = {
    {"export-torch", "write a network file from a PyTorch model (scalemeter-export-torch)"},
};

/* PATH of scalemeter-NAME beside this binary; 0 when it is there and executable. */
static int program_path(const char *name, char *path, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    /* a name is a command's, never a path: "../x" or "a/b" would leave the folder */
    if (!name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(name))
        return -1;
    if ((size_t)snprintf(path, len, "%s/scalemeter-%s", self, name) >= len)
        return -1;
    return access(path, X_OK);
}

int external_command(int argc, char **argv)
{
    char path[PATH_MAX + 32];
    if (argc < 1 || program_path(argv[0], path, sizeof path) != 0)
        return -1;
    char *args[argc + 1];
    args[0] = path;
    for (int i = 1; i < argc; i++)
        args[i] = argv[i];
    args[argc] = NULL;
    fflush(stdout);
    execv(path, args);
    fprintf(stderr, "scalemeter %s: cannot run %s: %s\n", argv[0], path, strerror(errno));
    return 1;
}

void external_usage(FILE *out)
{
    char path[PATH_MAX + 32];
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (program_path(known[i].name, path, sizeof path) == 0)
            fprintf(out, "  %-12s %s\n", known[i].name, known[i].summary);
}
