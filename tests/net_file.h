/* Writes a network description into a temporary file for a test, and loads it. */
#ifndef SCALEMETER_TEST_NET_FILE_H
#define SCALEMETER_TEST_NET_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "scalemeter/scalemeter.h"

/* Writes text to a new file under /tmp and returns its path (static storage, one at a time). */
static char net_file_path[64];

/* The last file goes when the test exits, so that no test leaves one behind in /tmp. */
static void net_file_remove(void) { unlink(net_file_path); }

static inline const char *net_file(const char *text)
{
    char *path = net_file_path;
    static int written;
    if (written)
        unlink(path);
    else
        atexit(net_file_remove);
    snprintf(path, sizeof net_file_path, "/tmp/sm_test_net_XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        perror("net_file");
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    written = 1;
    return path;
}

/* Loads text as a network at the given image size (0: as written); NULL and st set on error. */
static inline sm_network *net_load(const sm_registry *reg, const char *text, int64_t image,
                                   sm_status *st)
{
    sm_network *net = NULL;
    sm_network_options opt = {.image = image};
    if (sm_network_load(reg, net_file(text), &opt, &net, st))
        return NULL;
    return net;
}

#endif
