/* What the checks before dlopen cannot rule out (a constructor or an entry point that crashes,
 * a relocation that lands on read-only data) kills the process inside the plugin's code. While
 * a plugin loads, a SIGSEGV or SIGBUS handler says which plugin it was, with an
 * async-signal-safe write, and hands the signal on: it restores the previous handler (the
 * default, or a sanitizer's) and returns, so that the faulting instruction faults again there. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "network/network_internal.h"

static char message[4200];
static size_t message_len;
static struct sigaction old_segv, old_bus;
/* set while a plugin loads: its own handler above names it, the call handler below stays
 * silent */
static volatile sig_atomic_t loading_now;
/* the plugin being loaded, for sm_plugin_call_begin's exit message */
static char loading[4200];
static const char *loading_outer;

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
    loading_now = 1;
    snprintf(loading, sizeof loading, "plugin %s, while loading,", path);
    loading_outer = sm_plugin_call_begin(loading);
}

void sm_plugin_guard_end(void)
{
    sm_plugin_call_end(loading_outer);
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    loading_now = 0;
}

/* A plugin's code runs inside the host, and two of its habits end a command wrongly: exit()
 * ends the process with the plugin's status (0, with half the output or none), and printf
 * lands in the command's results (a JSON document, a CSV). While plugin code runs, an exit is
 * turned into a failure that names the plugin, and, where the host asked, standard output goes
 * to standard error. Nesting counts: loading a plugin happens inside a network's parse. */
static const char *running; /* what runs, for the exit message; NULL outside plugin code */
static int depth, to_stderr, saved_stdout = -1;
static char exit_message[4200];
static struct sigaction call_old_segv, call_old_bus;

/* A fault inside a plugin's parse, infer, metrics or saved ends the process as any fault does
 * (the plugin's state cannot be trusted after it), but first says whose code it was, as a
 * crash while loading does: "Segmentation fault" alone named nothing. write() and strlen()
 * are async-signal-safe; the previous handler (the default, or a sanitizer's) takes the fault
 * again. */
static void on_call_crash(int sig)
{
    const char *what = running;
    if (!loading_now && what) {
        static const char head[] = "scalemeter: ", tail[] =
                                                       " crashed (a fault inside its code); the "
                                                       "command did not finish\n";
        ssize_t w = write(STDERR_FILENO, head, sizeof head - 1);
        w = write(STDERR_FILENO, what, strlen(what));
        w = write(STDERR_FILENO, tail, sizeof tail - 1);
        (void)w; /* nothing to do about a failed write while crashing */
    }
    sigaction(sig, sig == SIGSEGV ? &call_old_segv : &call_old_bus, NULL);
}

static void exit_inside_plugin(void)
{
    if (!running)
        return;
    int n = snprintf(exit_message, sizeof exit_message,
                     "scalemeter: %s called exit() inside scalemeter; the command did not "
                     "finish (a plugin must return an error, not end the process)\n",
                     running);
    fflush(stdout);
    ssize_t w = write(STDERR_FILENO, exit_message,
                      n < 0                             ? 0
                      : (size_t)n < sizeof exit_message ? (size_t)n
                                                        : sizeof exit_message - 1);
    (void)w; /* the process ends either way */
    _exit(1);
}

void sm_plugin_stdout_to_stderr(int on) { to_stderr = on != 0; }

const char *sm_plugin_call_begin(const char *what)
{
    const char *outer = running;
    static int registered;
    if (!registered)
        registered = atexit(exit_inside_plugin) == 0;
    if (depth == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_call_crash;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, &call_old_segv);
        sigaction(SIGBUS, &sa, &call_old_bus);
    }
    if (depth++ == 0 && to_stderr) {
        fflush(stdout);
        saved_stdout = dup(STDOUT_FILENO);
        if (saved_stdout >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
            close(saved_stdout);
            saved_stdout = -1;
        }
    }
    running = what;
    return outer;
}

void sm_plugin_call_end(const char *outer)
{
    running = outer;
    if (depth == 1) {
        sigaction(SIGSEGV, &call_old_segv, NULL);
        sigaction(SIGBUS, &call_old_bus, NULL);
    }
    if (--depth == 0 && saved_stdout >= 0) {
        fflush(stdout); /* what the plugin printed, to standard error */
        dup2(saved_stdout, STDOUT_FILENO);
        close(saved_stdout);
        saved_stdout = -1;
    }
}
