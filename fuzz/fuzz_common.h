/* What every fuzz target shares: the input bytes as a file (the parsers take paths, as users
 * give them), rewritten in place for each input so that no input costs a process or a new
 * file. libFuzzer runs one input at a time in one thread, so one file per process is enough. */
#ifndef SCALEMETER_FUZZ_COMMON_H
#define SCALEMETER_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scalemeter/scalemeter.h"

static char fuzz_path[64];

/* The input at fuzz_path; exits on failure (a broken harness, not a finding). */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0) {
        /* tmpfs where there is one: on ext4, truncating a file and closing it (the parser's
         * fclose) starts its writeback, a few percent of every input's time */
        snprintf(fuzz_path, sizeof fuzz_path, "%s/sm_fuzz_XXXXXX",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        fd = mkstemp(fuzz_path);
        if (fd < 0) {
            perror("fuzz: mkstemp");
            exit(2);
        }
    }
    if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) {
        perror("fuzz: writing the input");
        exit(2);
    }
    return fuzz_path;
}

/* For the targets that predict from what they parsed: the plugins and the zoo's resnet18, loaded
 * once; exits on failure (a broken harness, not a finding). */
static inline void fuzz_load_resnet18(const char *target, sm_registry **reg, sm_network **net)
{
    sm_status st;
    if (sm_registry_open(reg, &st) || sm_network_load(*reg, "resnet18", NULL, net, &st)) {
        fprintf(stderr, "%s: %s\n", target, st.msg);
        exit(2);
    }
}

#endif
