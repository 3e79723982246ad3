/* Where the build or install tree of this library keeps its plugins and data. The build tree
 * mirrors the install tree (lib/scalemeter/plugins, share/scalemeter), so one rule finds both
 * from the library's own location, with no environment variable needed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scalemeter/scalemeter.h"

static char plugin_dir[PATH_MAX + 32];
static char data_dir[PATH_MAX + 32];
static const char anchor; /* an object of this library, for dladdr */

static const char *lib_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        Dl_info info;
        char path[PATH_MAX];
        if (dladdr(&anchor, &info) && info.dli_fname &&
            realpath(info.dli_fname, path))
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
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/../share/scalemeter", lib_dir());
        if (!realpath(path, data_dir)) /* keep the unresolved path for messages */
            snprintf(data_dir, sizeof data_dir, "%s", path);
    }
    return data_dir;
}
