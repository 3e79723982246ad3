/* Where the build or install tree of this library keeps its plugins and data. The build tree
 * mirrors the install tree (lib/scalemeter/plugins, share/scalemeter), so one rule finds both
 * from the library's own location, with no environment variable needed. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "util/util.h"

static char plugin_dir[PATH_MAX + 32];
static char data_dir[PATH_MAX + 32];
static const char anchor; /* an object of this library, for dladdr */

static const char *lib_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        Dl_info info;
        char path[PATH_MAX];
        if (dladdr(&anchor, &info) && info.dli_fname && realpath(info.dli_fname, path))
            snprintf(dir, sizeof dir, "%s", dirname(path));
        else
            snprintf(dir, sizeof dir, ".");
    }
    return dir;
}

const char *sm_plugin_dir(void)
{
    if (!plugin_dir[0])
        snprintf(plugin_dir, sizeof plugin_dir, "%s/scalemeter/plugins", lib_dir());
    return plugin_dir;
}

const char *sm_data_dir(void)
{
    if (!data_dir[0]) {
        /* the install's libdir to its datadir (lib/x86_64-linux-gnu: ../../share), then the
         * build tree's lib/ to share/ */
        static const char *const up[] = {SM_LIB_TO_DATA, "../share"};
        char path[PATH_MAX + 32];
        for (int i = 0; i < 2 && !data_dir[0]; i++) {
            snprintf(path, sizeof path, "%s/%s/scalemeter", lib_dir(), up[i]);
            if (!realpath(path, data_dir))
                data_dir[0] = '\0';
        }
        if (!data_dir[0]) /* keep the unresolved path for messages */
            snprintf(data_dir, sizeof data_dir, "%s/%s/scalemeter", lib_dir(), up[0]);
    }
    return data_dir;
}

int sm_is_file(const char *path)
{
    struct stat s;
    return stat(path, &s) == 0 && S_ISREG(s.st_mode);
}

const char *sm_file_kind(unsigned mode)
{
    mode_t m = (mode_t)mode;
    return S_ISREG(m)    ? "a regular file"
           : S_ISDIR(m)  ? "a folder"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a pipe"
           : S_ISSOCK(m) ? "a socket"
                         : "a special file";
}

/* found into path[len], whole: a buffer too small for it is refused, never given a path cut
 * short (one that names another file, or none, said as "no such file"). */
static int copy_found(const char *what, const char *name, const char *found, char *path, size_t len,
                      sm_status *st)
{
    size_t need = strlen(found) + 1;
    if (need > len)
        return sm_fail(st,
                       "%s '%s': the buffer of %zu bytes is too small for its path %s "
                       "(%zu bytes with the terminating NUL)",
                       what, name, len, found, need);
    memcpy(path, found, need);
    return 0;
}

/* name.ini is in neither this folder nor, as written, the data folder: say whether the data
 * folder has it as its bare name (resnet50.ini for resnet50), not that name.ini.ini is missing. */
static int not_here(const char *what, const char *subdir, const char *name, size_t stem,
                    const char *hint, sm_status *st)
{
    char *shipped;
    if (asprintf(&shipped, "%s/%s/%s", sm_data_dir(), subdir, name) < 0)
        return sm_fail(st, "out of memory");
    int there = sm_is_file(shipped);
    free(shipped);
    if (there)
        return sm_fail(st,
                       "unknown %s '%s': no such file here (the shipped one is named %.*s, "
                       "without .ini)",
                       what, name, (int)stem, name);
    return sm_fail(st, "unknown %s '%s': no such file%s%s%s", what, name, hint ? " (" : "",
                   hint ? hint : "", hint ? ")" : "");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The shipped names (DIR/subdir/NAME.ini) nearest name, compared in lower case (H100, ResNet50
 * and resnet-50 are near h100 and resnet50), into out as sm_near_names gives them; "" where
 * none is near or the folder cannot be read. */
static void near_shipped(const char *subdir, const char *name, char *out, size_t len)
{
    out[0] = '\0';
    char *dir, lower[72];
    if (strlen(name) >= sizeof lower || asprintf(&dir, "%s/%s", sm_data_dir(), subdir) < 0)
        return;
    size_t i = 0;
    for (; name[i]; i++)
        lower[i] = (char)tolower((unsigned char)name[i]);
    lower[i] = '\0';
    DIR *d = opendir(dir);
    free(dir);
    if (!d)
        return;
    char *names[512];
    int n = 0;
    for (struct dirent *e; n < 512 && (e = readdir(d));) {
        size_t nl = strlen(e->d_name);
        if (nl > 4 && !strcmp(e->d_name + nl - 4, ".ini") && e->d_name[0] != '.' &&
            (names[n] = strndup(e->d_name, nl - 4)))
            n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name); /* the same answer whatever readdir's order */
    char near[160];
    sm_near_names(lower, (const char *const *)names, n, near, sizeof near);
    /* the longest shipped name this one begins, first: h100-pcie-80gb is the h100-pcie (one
     * letter from a100-pcie-80gb), h100-sxm5 the h100 */
    const char *begun = NULL;
    for (int k = 0; k < n; k++) {
        size_t nl = strlen(names[k]);
        if (nl >= 3 && (!begun || nl > strlen(begun)) && !strncmp(lower, names[k], nl) &&
            (lower[nl] == '-' || lower[nl] == '_'))
            begun = names[k];
    }
    /* nothing near nor begun: the shipped names this one ends, the part without its family
     * (a6000: rtx-a6000; 8000: quadro-rtx8000) */
    size_t ll = strlen(lower);
    if (!begun && !near[0] && ll >= 4)
        for (int k = 0; k < n; k++) {
            size_t nl = strlen(names[k]), used = strlen(near);
            if (nl > ll && !strcmp(names[k] + nl - ll, lower))
                snprintf(near + used, sizeof near - used, "%s%s", used ? " or " : "", names[k]);
        }
    if (!begun || !strcmp(near, begun))
        snprintf(out, len, "%s", near);
    else if (!near[0])
        snprintf(out, len, "%s", begun);
    else
        snprintf(out, len, "%.63s%s%s", begun, strstr(near, " or ") ? ", " : " or ", near);
    for (int k = 0; k < n; k++)
        free(names[k]);
}

int sm_data_shipped(const char *subdir, const char *name, char **path)
{
    *path = NULL;
    if (strchr(name, '/'))
        return 0;
    if (asprintf(path, "%s/%s/%s.ini", sm_data_dir(), subdir, name) < 0) {
        *path = NULL;
        return -1;
    }
    if (sm_is_file(*path))
        return 1;
    free(*path);
    *path = NULL;
    return 0;
}

int sm_data_find(const char *what, const char *subdir, const char *name, const char *hint,
                 char *path, size_t len, sm_status *st)
{
    if (sm_is_file(name) || !strcmp(name, "-")) /* "-": the standard input */
        return copy_found(what, name, name, path, len, st);
    char *found;
    int shipped = sm_data_shipped(subdir, name, &found);
    if (shipped < 0)
        return sm_fail(st, "out of memory");
    if (shipped) {
        int rc = copy_found(what, name, found, path, len, st);
        free(found);
        return rc;
    }
    /* there but not a file: a FIFO would block its reader, a device or folder read as junk */
    struct stat s;
    int there = stat(name, &s) == 0, err = errno;
    /* "coefficient file" is already a file */
    size_t n = strlen(what);
    const char *file = n >= 4 && !strcmp(what + n - 4, "file") ? "" : " file";
    if (there && S_ISDIR(s.st_mode))
        return sm_fail(st, "%s: is a folder, not a %s%s (name a .ini file in it)", name, what,
                       file);
    if (there)
        return sm_fail(st,
                       "%s: is %s, not a %s%s (give a .ini file, or - and the file on the "
                       "standard input)",
                       name, sm_file_kind(s.st_mode), what, file);
    if (err != ENOENT) /* a folder on the way that cannot be searched, a loop of links */
        return sm_fail(st, "%s: %s", name, strerror(err));
    if (strchr(name, '/'))
        return sm_fail(st, "unknown %s '%s': no such file", what, name);
    size_t nl = strlen(name);
    if (nl > 4 && !strcmp(name + nl - 4, ".ini")) /* a file's name, not one of the folder's */
        return not_here(what, subdir, name, nl - 4, hint, st);
    char near[256];
    near_shipped(subdir, name, near, sizeof near);
    int paren = near[0] || hint;
    return sm_fail(st, "unknown %s '%s': no such file, and no %s/%s/%s.ini%s%s%s%s%s%s%s", what,
                   name, sm_data_dir(), subdir, name, paren ? " (" : "",
                   near[0] ? "did you mean " : "", near, near[0] ? "?" : "",
                   near[0] && hint ? " " : "", hint ? hint : "", paren ? ")" : "");
}
