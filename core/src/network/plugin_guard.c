/* What the checks before dlopen cannot rule out (a constructor or an entry point that crashes,
 * a relocation that lands on read-only data) kills the process inside the plugin's code. While
 * a plugin loads, a SIGSEGV or SIGBUS handler says which plugin it was, with an
 * async-signal-safe write, and hands the signal on: it restores the previous handler (the
 * default, or a sanitizer's) and returns, so that the faulting instruction faults again there. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "network/network_internal.h"

static char message[4200];
static size_t message_len;
static struct sigaction old_segv, old_bus;

static void on_crash(int sig)
{
    ssize_t w = write(STDERR_FILENO, message, message_len);
    (void)w; /* nothing to do about a failed write while crashing */
    sigaction(sig, sig == SIGSEGV ? &old_segv : &old_bus, NULL);
}

void sm_plugin_guard_begin(const char *path)
{
    int n =
        snprintf(message, sizeof message, "scalemeter: crashed while loading plugin %s\n", path);
    message_len = n < 0 ? 0 : (size_t)n < sizeof message ? (size_t)n : sizeof message - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
}

void sm_plugin_guard_end(void)
{
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
}
