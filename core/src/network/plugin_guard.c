/* What the checks before dlopen cannot rule out (a constructor or an entry point that crashes,
 * a relocation that lands on read-only data) kills the process inside the plugin's code. While
 * a plugin loads, a handler of SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT says which plugin it
 * was, with an async-signal-safe write, and hands the signal on: it restores the previous
 * handler (the default, or a sanitizer's) and returns, so that the faulting instruction faults
 * again there (a signal sent, by abort(), is sent again). */
#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "network/network_internal.h"

/* What a plugin's bug raises: a fault, a bus error, an integer division by zero, an illegal
 * instruction, abort() (an assert). SIGSEGV from runaway recursion needs a stack of its own
 * to be handled on (guard_stack). */
static const int guarded[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_GUARDED ((int)(sizeof guarded / sizeof guarded[0]))

static char message[4200];
static size_t message_len;
static struct sigaction old_load[N_GUARDED];
/* set while a plugin loads: its own handler above names it, the call handler below stays
 * silent */
static volatile sig_atomic_t loading_now;
/* the plugin being loaded, for sm_plugin_call_begin's exit message */
static char loading[4200];
static const char *loading_outer;

/* Puts back the handler of sig that was before (the default, or a sanitizer's): a fault
 * raised by an instruction happens again on return and reaches it; one sent (abort(), raise())
 * is sent again, to be delivered to it on return. */
static void hand_on(int sig, const siginfo_t *info, const struct sigaction *old)
{
    for (int i = 0; i < N_GUARDED; i++)
        if (guarded[i] == sig)
            sigaction(sig, &old[i], NULL);
    if (info->si_code <= 0) /* SI_USER, SI_TKILL, SI_QUEUE: no instruction to fault again */
        raise(sig);
}

static void on_crash(int sig, siginfo_t *info, void *context)
{
    (void)context;
    ssize_t w = write(STDERR_FILENO, message, message_len);
    (void)w; /* nothing to do about a failed write while crashing */
    hand_on(sig, info, old_load);
}

/* Installs handler for every guarded signal, keeping the ones before in old, on an alternate
 * stack where none is set (a sanitizer sets its own): a plugin that overflows its stack
 * faults with no stack left to run a handler on. */
static void guard_signals(void (*handler)(int, siginfo_t *, void *), struct sigaction *old)
{
    static char guard_stack[64 * 1024];
    stack_t now;
    if (sigaltstack(NULL, &now) == 0 && (now.ss_flags & SS_DISABLE)) {
        stack_t ss = {.ss_sp = guard_stack, .ss_size = sizeof guard_stack, .ss_flags = 0};
        sigaltstack(&ss, NULL);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_GUARDED; i++)
        sigaction(guarded[i], &sa, &old[i]);
}

static void unguard_signals(const struct sigaction *old)
{
    for (int i = 0; i < N_GUARDED; i++)
        sigaction(guarded[i], &old[i], NULL);
}

/* A plugin's parse, infer, metrics or saved that never returns (an endless loop, a wait on
 * input) hung the command with no word. A layer's counting takes microseconds; past
 * SCALEMETER_PLUGIN_TIMEOUT seconds of wall clock (60 unless set; 0: no limit) the process
 * ends naming the plugin. Loading a plugin, which maps its libraries (cuDNN's take seconds on
 * a slow file system), has ten times as long, and does not count towards a layer's time: a
 * constructor or an entry point that never returned hung `scalemeter plugins` for good. */
static const char *running; /* what runs, for the exit message; NULL outside plugin code */
#define TIMEOUT_ENV "SCALEMETER_PLUGIN_TIMEOUT"
#define DEFAULT_TIMEOUT_S 60u
#define LOAD_TIMEOUT_FACTOR 10u
static unsigned watch_s; /* the limit; 0: none */
static int watch_depth;  /* the nesting at which the watch began; 0: none */
static timer_t watch_timer;
static int have_timer; /* 1: created; -1: timer_create failed, no watch */
static char timeout_message[4400];
static size_t timeout_len;

/* The limit from the environment, read once: a value that is not a whole number of seconds
 * from 0 to a day is refused here, before any plugin runs. */
int sm_plugin_timeout(sm_status *st)
{
    const char *env = getenv(TIMEOUT_ENV);
    char *end;
    unsigned long v = DEFAULT_TIMEOUT_S;
    if (env && *env) {
        errno = 0;
        v = strtoul(env, &end, 10);
        if (errno || *end || env[0] == '-' || v > 86400)
            return sm_fail(st, "%s=%s: expected whole seconds from 0 (no limit) to 86400",
                           TIMEOUT_ENV, env);
    }
    watch_s = (unsigned)v;
    return 0;
}

/* Runs on a thread of its own when the time is up (SIGEV_THREAD: no signal, so an
 * application's own alarm() and SIGALRM, embedding libscalemeter, are left alone). */
static void on_timeout(union sigval v)
{
    (void)v;
    ssize_t w = write(STDERR_FILENO, timeout_message, timeout_len);
    (void)w; /* the process ends either way */
    _exit(1);
}

/* Arms the watch to go off after watch_s seconds, or disarms it (seconds 0). */
static void watch_set(unsigned seconds)
{
    struct itimerspec when = {.it_value = {.tv_sec = (time_t)seconds}};
    if (have_timer > 0)
        timer_settime(watch_timer, 0, &when, NULL);
}

/* Arms the watch for seconds with the message it ends the process with (n: its length). */
static void watch_arm(int n, unsigned seconds)
{
    if (!have_timer) {
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD;
        ev.sigev_notify_function = on_timeout;
        have_timer = timer_create(CLOCK_MONOTONIC, &ev, &watch_timer) == 0 ? 1 : -1;
    }
    timeout_len = n < 0                                ? 0
                  : (size_t)n < sizeof timeout_message ? (size_t)n
                                                       : sizeof timeout_message - 1;
    watch_set(seconds);
}

static void watch_begin(const char *what)
{
    watch_arm(snprintf(timeout_message, sizeof timeout_message,
                       "scalemeter: %s did not return within %u s (an endless loop inside its "
                       "code?); the command did not finish (%s sets the limit in seconds)\n",
                       what, watch_s, TIMEOUT_ENV),
              watch_s);
}

void sm_plugin_guard_begin(const char *path)
{
    /* loading is not counted in a layer's time, which starts again after it; it has its own,
     * read here too: plugins load before any network is read (`scalemeter plugins`). A value
     * the network's reading will refuse leaves the default for loading */
    sm_status ignored;
    if (sm_plugin_timeout(&ignored))
        watch_s = DEFAULT_TIMEOUT_S;
    if (watch_s)
        watch_arm(snprintf(timeout_message, sizeof timeout_message,
                           "scalemeter: plugin %s did not finish loading within %u s (an endless "
                           "loop in a constructor or its entry point?); the command did not "
                           "finish (%s sets the limit in seconds, ten times it for loading)\n",
                           path, watch_s * LOAD_TIMEOUT_FACTOR, TIMEOUT_ENV),
                  watch_s * LOAD_TIMEOUT_FACTOR);
    int n =
        snprintf(message, sizeof message, "scalemeter: crashed while loading plugin %s\n", path);
    message_len = n < 0 ? 0 : (size_t)n < sizeof message ? (size_t)n : sizeof message - 1;
    guard_signals(on_crash, old_load);
    loading_now = 1;
    snprintf(loading, sizeof loading, "plugin %s, while loading,", path);
    loading_outer = sm_plugin_call_begin(loading);
}

void sm_plugin_guard_end(void)
{
    sm_plugin_call_end(loading_outer);
    unguard_signals(old_load);
    loading_now = 0;
    watch_set(0);
    if (watch_depth && running) /* the call the plugin was loaded inside: its time again */
        watch_begin(running);
}

/* A plugin's code runs inside the host, and two of its habits end a command wrongly: exit()
 * ends the process with the plugin's status (0, with half the output or none), and printf
 * lands in the command's results (a JSON document, a CSV). While plugin code runs, an exit is
 * turned into a failure that names the plugin, and, where the host asked, standard output goes
 * to standard error. Nesting counts: loading a plugin happens inside a network's parse. */
/* the process's locale and the thread's before the outermost call: a plugin's constructor
 * (or a library it links: Qt, GTK) calling setlocale(LC_ALL, "") under a German locale made
 * every later printf write "6,3e-05" into a command's CSV and JSON, so each call ends with
 * them put back */
static char *locale_before;
static locale_t thread_locale_before;
static int depth, to_stderr, saved_stdout = -1;
static char exit_message[4200];
static struct sigaction call_old[N_GUARDED];

/* The callback of a layer's plugin that runs now, the window its structs lie in and its
 * type's params_size (sm_plugin_callback): a fault's message names the callback, and a write
 * that lands on the guard page after a struct says which struct it overran. */
static const char *volatile callback_now;
static const sm_plugin_window *volatile window_now;
static volatile size_t params_size_now;

void sm_plugin_callback(const char *callback, const sm_plugin_window *w, size_t params_size)
{
    callback_now = callback;
    window_now = w;
    params_size_now = params_size;
}

/* What a callback wrote past, by the window's slot (the params slot has its own words). */
static const char *const overran[SM_WINDOW_N] = {
    [SM_WINDOW_INPUTS] = "its input shapes (const: write none of them)",
    [SM_WINDOW_SHAPE] = "the output shape it was handed (one sm_shape)",
    [SM_WINDOW_METRICS] = "the sm_layer_metrics it was handed",
    [SM_WINDOW_SAVED] = "the sm_layer_saved it was handed",
    [SM_WINDOW_STRIDES] = "the SM_MAX_DIMS strides it was handed",
    [SM_WINDOW_IN_STRIDES] = "its input's strides (const: write none of them)",
    [SM_WINDOW_ERROR] = "its sm_error (SM_ERROR_LEN bytes: write the reason with sm_error_set)",
};

/* write() of a string, as a signal handler may */
static void put(const char *s)
{
    ssize_t w = write(STDERR_FILENO, s, strlen(s));
    (void)w; /* nothing to do about a failed write while crashing */
}

/* n in decimal, without printf (not async-signal-safe) */
static void put_size(size_t n)
{
    char digits[24];
    int i = (int)sizeof digits;
    digits[--i] = '\0';
    do
        digits[--i] = (char)('0' + n % 10);
    while ((n /= 10) && i > 0);
    put(digits + i);
}

/* A fault inside a plugin's parse, infer, metrics or saved ends the process as any fault does
 * (the plugin's state cannot be trusted after it), but first says whose code it was, as a
 * crash while loading does: "Segmentation fault" alone named nothing. Where a layer's
 * callback runs, the message names it, and a fault on the guard page after a struct the host
 * handed over (plugin_window.c) says which struct it wrote past: psize0.so's parse, of
 * params_size 0, was "crashed (a fault inside its code)". write() and strlen() are
 * async-signal-safe; the previous handler (the default, or a sanitizer's) takes the fault
 * again. */
static void say_call_crash(int sig, const siginfo_t *info)
{
    static volatile sig_atomic_t said; /* once: a call's handler hands on to a kernel's */
    const char *what = running, *callback = callback_now;
    if (loading_now || !what || said)
        return;
    said = 1;
    int slot = callback && (sig == SIGSEGV || sig == SIGBUS)
                   ? sm_plugin_window_guard_slot(window_now, info->si_addr)
                   : -1;
    put("scalemeter: ");
    put(what);
    if (slot >= 0) {
        put(": its ");
        put(callback);
        put(" wrote past ");
        if (slot == SM_WINDOW_PARAMS) {
            put("params_size (");
            put_size(params_size_now);
            put(" bytes): set .params_size = sizeof(your params struct)");
        } else {
            put(overran[slot] ? overran[slot] : "a struct the host handed it");
        }
        put("; the command did not finish\n");
        return;
    }
    put(sig == SIGABRT ? " aborted" : " crashed");
    if (callback) {
        put(" in its ");
        put(callback);
    }
    put(sig == SIGABRT ? " (abort() or a failed assert() inside its code); the command did not "
                         "finish\n"
                       : " (a fault inside its code); the command did not finish\n");
}

static void on_call_crash(int sig, siginfo_t *info, void *context)
{
    (void)context;
    say_call_crash(sig, info);
    hand_on(sig, info, call_old);
}

/* A kernel bench times faulted with Open MPI's backtrace alone, naming no plugin: the
 * handler stays for the whole run and the kernel's name is a pointer store a call
 * (sm_plugin_kernel_name), which leaves the timing as it was. */
static struct sigaction kernels_old[N_GUARDED];
static int kernels_depth;

static void on_kernel_crash(int sig, siginfo_t *info, void *context)
{
    (void)context;
    say_call_crash(sig, info);
    hand_on(sig, info, kernels_old);
}

void sm_plugin_kernels_named(int on)
{
    if (on && kernels_depth++ == 0)
        guard_signals(on_kernel_crash, kernels_old);
    else if (!on && kernels_depth > 0 && --kernels_depth == 0)
        unguard_signals(kernels_old);
}

const char *sm_plugin_kernel_name(const char *what)
{
    const char *outer = running;
    running = what;
    return outer;
}

static void ended_inside_plugin(const char *how)
{
    if (!running)
        return;
    int n = snprintf(exit_message, sizeof exit_message,
                     "scalemeter: %s called %s inside scalemeter; the command did not "
                     "finish (a plugin must return an error, not end the process)\n",
                     running, how);
    fflush(stdout);
    ssize_t w = write(STDERR_FILENO, exit_message,
                      n < 0                             ? 0
                      : (size_t)n < sizeof exit_message ? (size_t)n
                                                        : sizeof exit_message - 1);
    (void)w; /* the process ends either way */
    _exit(1);
}

static void exit_inside_plugin(void) { ended_inside_plugin("exit()"); }
static void quick_exit_inside_plugin(void) { ended_inside_plugin("quick_exit()"); }

void sm_plugin_stdout_to_stderr(int on) { to_stderr = on != 0; }

/* Puts back the locales of before the outermost call, where plugin code changed them. */
static void locale_restore(void)
{
    const char *now = setlocale(LC_ALL, NULL);
    if (locale_before && (!now || strcmp(now, locale_before) != 0))
        setlocale(LC_ALL, locale_before);
    if (thread_locale_before && uselocale((locale_t)0) != thread_locale_before)
        uselocale(thread_locale_before);
}

const char *sm_plugin_call_begin(const char *what)
{
    const char *outer = running;
    /* quick_exit(0) skips atexit's handlers: it ended a command with status 0 and no output.
     * _exit cannot be caught (docs/plugin-abi.md) */
    static int registered;
    if (!registered)
        registered =
            atexit(exit_inside_plugin) == 0 && at_quick_exit(quick_exit_inside_plugin) == 0;
    if (depth == 0) {
        guard_signals(on_call_crash, call_old);
        const char *now = setlocale(LC_ALL, NULL);
        free(locale_before);
        locale_before = now ? strdup(now) : NULL;
        thread_locale_before = uselocale((locale_t)0);
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
    if (what && !loading_now && !watch_depth && watch_s) {
        watch_depth = depth;
        watch_begin(what);
    }
    return outer;
}

void sm_plugin_call_end(const char *outer)
{
    running = outer;
    sm_plugin_callback(NULL, NULL, 0);
    locale_restore(); /* before the host's own code between calls prints a number */
    if (watch_depth == depth) {
        watch_set(0);
        watch_depth = 0;
    }
    if (depth == 1)
        unguard_signals(call_old);
    if (--depth == 0 && saved_stdout >= 0) {
        fflush(stdout); /* what the plugin printed, to standard error */
        dup2(saved_stdout, STDOUT_FILENO);
        close(saved_stdout);
        saved_stdout = -1;
    }
}
