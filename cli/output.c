/* Output helpers shared by every command. */
#define _DEFAULT_SOURCE /* realpath */
#include "output.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"
#include "option_values.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "util/escape.h"
#include "util/util.h"

/* The command running, named in report_error's lines as every command's own messages name it. */
static const char *command_name;

void report_as(const char *cmd) { command_name = cmd; }

/* What the command warned of, for its JSON; later ones past the buffer are on stderr alone. */
static char said[8192];

void say_warning(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "scalemeter %s: warning: %s\n", command_name ? command_name : "", msg);
    size_t used = strlen(said);
    if (used + strlen(msg) + 3 < sizeof said)
        snprintf(said + used, sizeof said - used, "%s%s", used ? "; " : "", msg);
}

void json_warning_member(json_writer *w, const char *own)
{
    json_key(w, "warning");
    own = own ? own : ""; /* NULL: none of the command's own */
    size_t n = strlen(own), m = strlen(said);
    char *all = n + m ? malloc(n + m + 3) : NULL;
    if (!all) {
        if (n + m)
            json_string(w, n ? own : said); /* out of memory: one of them at least */
        else
            json_null(w);
        return;
    }
    snprintf(all, n + m + 3, "%s%s%s", own, n && m ? "; " : "", said);
    json_string(w, all);
    free(all);
}

int report_error(const char *msg)
{
    if (command_name)
        fprintf(stderr, "scalemeter %s: %s\n", command_name, msg);
    else
        fprintf(stderr, "scalemeter: %s\n", msg);
    return 1;
}

/* The long option that an argument like "--dev" or "--device=x" names: exact, else the only one
 * it abbreviates; *n_prefix counts those it abbreviates. */
static const struct option *long_named(const struct option *longs, const char *arg, int *n_prefix)
{
    size_t len = strcspn(arg, "=");
    const struct option *found = NULL;
    *n_prefix = 0;
    for (const struct option *o = longs; o->name; o++) {
        if (strncmp(o->name, arg, len) != 0)
            continue;
        if (strlen(o->name) == len)
            return o;
        (*n_prefix)++;
        found = o;
    }
    return *n_prefix == 1 ? found : NULL;
}

/* Whether a parse is under way, and of which arguments: a parse that ends early (a bad value)
 * must not leave the next one, in the same process, half way. */
static int started = 0;
static char **started_on = NULL;

/* The value each option was last given in this parse (getopt's return, a letter or a table's
 * index past 256): the first of two different values would go unused without a word. */
#define SEEN_OPTS 384
static const char *seen_value[SEEN_OPTS];
static unsigned char seen[SEEN_OPTS];

static void say_repeated(const struct option *longs, int c, const char *arg)
{
    if (c < 0 || c >= SEEN_OPTS)
        return;
    /* under mpirun rank 0 speaks for all: every rank parses the same argv (or is refused
     * for a different one, sm_same_arguments) */
    if (seen[c] && arg && seen_value[c] && strcmp(seen_value[c], arg) != 0 &&
        launcher_rank() == 0) {
        char name[64] = "";
        for (const struct option *o = longs; o->name && !name[0]; o++)
            if (o->val == c && !o->flag)
                snprintf(name, sizeof name, "--%s", o->name);
        if (!name[0])
            snprintf(name, sizeof name, "-%c", c);
        say_warning("%s given twice (%s, then %s): %s is used", name, seen_value[c], arg, arg);
    }
    seen[c] = 1;
    seen_value[c] = arg;
}

/* "unknown option '--devices' (did you mean --device? ...)": the command's long options
 * nearest the one given (its name, without a value after '='), as a network's misspelt layer
 * type is answered (util's sm_near_names). */
static void unknown_long(const struct option *longs, const char *arg, const char *command,
                         char *msg, size_t len)
{
    enum { MAX_LONGS = 128 };
    char dashed[MAX_LONGS][48], given[64], near[256] = "";
    const char *names[MAX_LONGS];
    int n = 0;
    for (const struct option *o = longs; o->name && n < MAX_LONGS; o++, n++) {
        snprintf(dashed[n], sizeof dashed[n], "--%s", o->name);
        names[n] = dashed[n];
    }
    snprintf(given, sizeof given, "%.*s", (int)strcspn(arg, "="), arg);
    sm_near_names(given, names, n, near, sizeof near);
    if (near[0])
        snprintf(msg, len,
                 "unknown option '%s' (did you mean %s? scalemeter help %s lists the options)", arg,
                 near, command);
    else
        snprintf(msg, len, "unknown option '%s' (scalemeter help %s lists the options)", arg,
                 command);
}

int next_option(int argc, char **argv, const char *shorts, const struct option *longs, char *msg,
                size_t len)
{
    char spec[64];
    snprintf(spec, sizeof spec, ":%s", shorts); /* ':' first: a missing value is told apart */
    if (!started || started_on != argv) {
        optind = 0; /* glibc: start afresh, as for a new argv */
        opterr = 0;
        started = 1;
        started_on = argv;
        memset(seen, 0, sizeof seen);
    }
    int c = getopt_long(argc, argv, spec, longs, NULL);
    if (c == -1)
        started = 0;
    if (c != '?' && c != ':') {
        say_repeated(longs, c, optarg);
        return c;
    }
    started = 0;
    const char *arg = argv[optind - 1 < argc ? optind - 1 : argc - 1];
    if (c == ':') {
        snprintf(msg, len, "option %s needs a value", arg);
        return '?';
    }
    if (arg[0] == '-' && arg[1] == '-') {
        int n_prefix;
        const struct option *o = long_named(longs, arg + 2, &n_prefix);
        if (o && o->has_arg == no_argument && strchr(arg, '='))
            snprintf(msg, len, "option --%s takes no value ('%s')", o->name, arg);
        else if (n_prefix > 1)
            snprintf(msg, len, "option '%s' is ambiguous (scalemeter help %s lists the options)",
                     arg, argv[0]);
        else
            unknown_long(longs, arg, argv[0], msg, len);
    } else {
        /* "-,resnet50": a list that starts with the standard input is a cluster of short
         * options to getopt; "--" ends the options before it */
        const char *list = NULL;
        for (int i = 1; optopt == ',' && i < argc && !list; i++)
            if (argv[i][0] == '-' && argv[i][1] == ',')
                list = argv[i];
        if (list)
            snprintf(msg, len,
                     "'%.200s' reads as options: give a list that starts with - (the standard "
                     "input) after --, as in 'scalemeter %s ... -- %.200s', or put - later",
                     list, argv[0], list);
        else
            snprintf(msg, len, "unknown option '-%c' (scalemeter help %s lists the options)",
                     optopt ? optopt : '?', argv[0]);
    }
    return '?';
}

/* -o FILE: the standard output goes to a file of its own beside FILE (util's atomic file),
 * which output_finish renames over FILE when the command succeeds. A command that fails, or is
 * interrupted, leaves FILE as it was: allreduce once emptied it before checking its options, and
 * a sweep stopped half way looked whole. */
static char out_tmp[4200];
static const char *out_path;

static void drop_output(int sig)
{
    unlink(out_tmp); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The files the command reads, which -o must not replace: `metrics net.ini -o net.ini` put
 * the table in place of the network. */
static char **reads;
static int n_reads;

void output_reads(const char *subdir, const char *name)
{
    if (!name || !strcmp(name, "-"))
        return;
    struct stat sb;
    char found[4200];
    if (subdir && !strchr(name, '/') && !(stat(name, &sb) == 0 && S_ISREG(sb.st_mode)))
        snprintf(found, sizeof found, "%s/%s/%s.ini", sm_data_dir(), subdir, name);
    else
        snprintf(found, sizeof found, "%s", name);
    char **grown = realloc(reads, (size_t)(n_reads + 1) * sizeof *reads);
    if (!grown)
        return;
    reads = grown;
    if ((reads[n_reads] = strdup(found)))
        n_reads++;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void output_reads_runs(const sm_runs *runs)
{
    const char **names = malloc((size_t)(runs->n ? runs->n : 1) * sizeof *names);
    if (!names)
        return;
    for (int i = 0; i < runs->n; i++)
        names[i] = runs->rows[i].model;
    qsort(names, (size_t)runs->n, sizeof *names, compare_names); /* each name once */
    for (int i = 0; i < runs->n; i++)
        if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
            output_reads("models", names[i]);
    free(names);
}

int stdin_once(const char *cmd, const char *const *what, const char *const *given, int n)
{
    for (int k = 0, first = -1; k < n; k++) {
        if (!given[k] || strcmp(given[k], "-") != 0)
            continue;
        if (first < 0) {
            first = k;
            continue;
        }
        fprintf(stderr,
                "scalemeter %s: %s and %s are both - (the standard input), which is read "
                "once: give one of them as a file\n",
                cmd, what[first], what[k]);
        return -1;
    }
    return 0;
}

int output_named_refuse(const char *cmd, const char *option, const char *path)
{
    if (!path || !strcmp(path, "-"))
        return 0;
    return output_not_input(cmd, option, path, (const char *const *)reads, n_reads) ? 2 : 0;
}

int output_reads_refuse(const char *cmd, const char *path)
{
    return output_named_refuse(cmd, "-o", path);
}

int output_to(const char *cmd, const char *path)
{
    if (!path || !strcmp(path, "-"))
        return 0;
    if (output_reads_refuse(cmd, path))
        return 2;
    sm_status st;
    sm_atomic_why why;
    fflush(stdout);
    errno = 0;
    FILE *f = sm_atomic_open(path, out_tmp, sizeof out_tmp, &why, &st);
    if (why == SM_ATOMIC_NOT_WRITABLE) { /* the file's own mode: said as such */
        fprintf(stderr, "scalemeter %s: %s\n", cmd, st.msg);
        out_tmp[0] = '\0';
        return 1;
    }
    if (!f || dup2(fileno(f), STDOUT_FILENO) < 0) {
        /* errno is open's (or dup2's); none: a path too long for the temporary's name */
        fprintf(stderr, "scalemeter %s: cannot write %s: %s\n", cmd, path,
                strerror(errno ? errno : ENAMETOOLONG));
        if (f && out_tmp[0])
            unlink(out_tmp);
        if (f)
            fclose(f);
        out_tmp[0] = '\0';
        return 1;
    }
    fclose(f);
    out_path = path;
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; out_tmp[0] && i < sizeof signals / sizeof *signals; i++)
        if (signal(signals[i], drop_output) == SIG_IGN)
            signal(signals[i], SIG_IGN); /* nohup's choice stands */
    return 0;
}

/* A command that a plugin's kernel or a library ends with exit() would end with that status,
 * 0 with half its output. While a command runs, an exit() that is not the command's own
 * (command_exit) fails it with a line saying so, and leaves -o's file as it was. */
static const char *running;

static void ended_early_by(const char *how)
{
    if (!running)
        return;
    const char *cmd = running;
    running = NULL;
    fflush(stdout);
    fprintf(stderr,
            "scalemeter %s: %s was called inside the command before it finished (a plugin's "
            "code, or a library); its output is incomplete\n",
            cmd, how);
    output_finish(cmd, 1);
    _exit(1);
}

static void ended_early(void) { ended_early_by("exit()"); }
/* quick_exit(0) skips atexit's handlers: status 0 and no output */
static void quick_ended_early(void) { ended_early_by("quick_exit()"); }

void command_begin(const char *cmd)
{
    static int registered;
    if (!registered)
        registered = atexit(ended_early) == 0 && at_quick_exit(quick_ended_early) == 0;
    running = command_name = cmd;
}

_Noreturn void command_exit(int status)
{
    /* help that never arrived (a full disk, /dev/full) is an error as a command's output is */
    exit(output_finish(command_name ? command_name : "help", status));
}

/* The reason of the first failed flush of the standard output: glibc drops the buffer a
 * write failed on, so the flush at the end succeeds on nothing and its errno said
 * "Input/output error" where the disk was full. */
static int flush_errno;

void output_flush(void)
{
    errno = 0;
    if (fflush(stdout) != 0 && !flush_errno)
        flush_errno = errno;
}

/* The command's output is whole: what a plugin prints later, from a destructor or an atexit
 * handler as the process ends, went after the JSON document ("Extra data") or into -o's file.
 * From here the standard output is the standard error. */
static void output_closed(void)
{
    fflush(stdout);
    dup2(STDERR_FILENO, STDOUT_FILENO);
}

int output_finish(const char *cmd, int rc)
{
    running = NULL;
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int e = flush_errno ? flush_errno : errno ? errno : EIO;
    if (!bad && out_path && out_tmp[0] && rc == 0 && fsync(STDOUT_FILENO) != 0)
        bad = 1, e = errno;
    if (!bad && out_path && out_tmp[0] && rc == 0 && sm_atomic_rename(out_tmp) != 0)
        bad = 1, e = errno;
    if (out_path && out_tmp[0] && (rc || bad))
        unlink(out_tmp);
    if (!bad) {
        output_closed();
        return rc;
    }
    fprintf(stderr, "scalemeter %s: cannot write %s: %s%s\n", cmd,
            out_path ? out_path : "the output", strerror(e),
            out_path && out_tmp[0] ? " (left as it was)" : "");
    /* said once: a backend module's copy of this file finishes its command, then the
     * program's finishes it again */
    clearerr(stdout);
    flush_errno = 0;
    output_closed();
    return rc ? rc : 1;
}

int format_options(int argc, char **argv, unsigned allowed, output_format *format,
                   void (*usage)(void))
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'},
                                         {"format", required_argument, 0, 'f'},
                                         {"output", required_argument, 0, 'o'},
                                         {0, 0, 0, 0}};
    char msg[512];
    const char *output = NULL;
    for (int c; (c = next_option(argc, argv, "ho:", opts, msg, sizeof msg)) != -1;) {
        if (c == 'h') {
            usage();
            return -1;
        } else if (c == 'f') {
            if (parse_format(optarg, allowed, format))
                return 2;
        } else if (c == 'o') {
            output = optarg;
        } else {
            return usage_error(argv[0], msg);
        }
    }
    if (optind < argc) {
        char text[512];
        snprintf(text, sizeof text, "unexpected argument '%s' (scalemeter help %s)", argv[optind],
                 argv[0]);
        return usage_error(argv[0], text);
    }
    return output_to(argv[0], output) ? 1 : 0;
}

int usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "scalemeter %s: %s\n", cmd, msg);
    return 2;
}

int parse_format(const char *text, unsigned allowed, output_format *out)
{
    static const char *const names[] = {"table", "csv", "json", "svg"};
    for (int i = 0; i < 4; i++)
        if (strcmp(text, names[i]) == 0 && (allowed & (1u << i))) {
            *out = (output_format)i;
            return 0;
        }
    char msg[256], *end = msg + sizeof msg;
    /* the value's length is the user's: what is written stops at msg's end */
    char *at = msg + snprintf(msg, sizeof msg, "--format %.200s: expected one of", text);
    for (int i = 0; i < 4 && at < end; i++)
        if (allowed & (1u << i))
            at += snprintf(at, (size_t)(end - at), " %s", names[i]);
    report_error(msg);
    return -1;
}

int parse_positive(const char *option, const char *text, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!plain_digits(text) || errno || *end || v < 1 || v > max) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s %s: expected an integer from 1 to %lld, in decimal digits",
                 option, text, (long long)max);
        report_error(msg);
        return -1;
    }
    *out = v;
    return 0;
}

int bucket_mib_value(const char *text, double *out, sm_status *st)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (!plain_decimal(text) || errno || end == text || *end || !SM_BUCKET_MIB_OK(v))
        return sm_fail(st,
                       "--bucket-mib %s: expected a positive number of MiB, in decimal, from %g "
                       "(one 4-byte gradient) to %.0f",
                       text, SM_MIN_BUCKET_MIB, SM_MAX_BUCKET_MIB);
    *out = v;
    return 0;
}

int parse_bucket_mib(const char *text, double *out)
{
    sm_status st;
    if (bucket_mib_value(text, out, &st)) {
        report_error(st.msg);
        return -1;
    }
    return 0;
}

const char *fmt_count(int64_t v, char *buf, size_t len)
{
    char digits[32];
    /* the magnitude unsigned: -v overflows for the smallest int64 */
    snprintf(digits, sizeof digits, "%" PRIu64, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    size_t n = strlen(digits), used = 0;
    if (v < 0 && used + 1 < len)
        buf[used++] = '-';
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        if (i && (n - i) % 3 == 0 && used + 2 < len)
            buf[used++] = ',';
        buf[used++] = digits[i];
    }
    buf[used] = '\0';
    return buf;
}

const char *fmt_si(double v, char *buf, size_t len)
{
    static const char *const units[] = {"", " k", " M", " G", " T", " P", " E"};
    int u = 0;
    double a = fabs(v);
    while (a >= 1000 && u < 6) {
        a /= 1000;
        v /= 1000;
        u++;
    }
    snprintf(buf, len, u ? "%.3g%s" : "%.4g%s", v, units[u]);
    return buf;
}

const char *fmt_watts(double w, char *buf, size_t len)
{
    char si[24];
    fmt_si(w, si, sizeof si); /* "392.1" or "12.3 k" */
    snprintf(buf, len, "%s%sW", si, strchr(si, ' ') ? "" : " ");
    return buf;
}

const char *fmt_rate(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, v >= 1000 && v < 1e15 ? "%.0f" : "%.4g", v);
    return buf;
}

const char *fmt_allreduce(const sm_allreduce_estimate *e, char *buf, size_t len)
{
    if (!strcmp(e->algorithm, "none"))
        snprintf(buf, len, "-");
    else if (!strcmp(e->protocol, "-"))
        snprintf(buf, len, "%s", e->algorithm);
    else
        snprintf(buf, len, "%s/%s", e->algorithm, e->protocol);
    return buf;
}

const char *allreduce_protocol(const char *protocol)
{
    return protocol && strcmp(protocol, "-") ? protocol : NULL;
}

void json_allreduce(json_writer *w, const sm_allreduce_estimate *e)
{
    json_key(w, "allreduce");
    if (!strcmp(e->algorithm, "none")) {
        json_null(w);
        return;
    }
    json_begin_object(w);
    json_field_string(w, "algorithm", e->algorithm);
    json_field_string(w, "protocol", allreduce_protocol(e->protocol));
    json_field_number(w, "bucket_s", e->seconds); /* runs forever: null */
    json_end(w);
}

const char *fmt_seconds(double s, char *buf, size_t len)
{
    if (isnan(s))
        snprintf(buf, len, "-");
    else if (isinf(s))
        snprintf(buf, len, "%s", s > 0 ? "inf" : "-inf"); /* not "inf d" */
    else if (s >= 86400 * 1e5) /* in 3 digits, so that the unit always fits the column */
        snprintf(buf, len, "%.3g d", s / 86400);
    else if (s >= 3600 * 48) /* four digits, as the hours and minutes have (3.873 d, not 3.9) */
        snprintf(buf, len,
                 s < 86400 * 10    ? "%.3f d"
                 : s < 86400 * 100 ? "%.2f d"
                                   : "%.1f d",
                 s / 86400);
    else if (s >= 3600)
        snprintf(buf, len, "%.2f h", s / 3600);
    else if (s >= 60)
        snprintf(buf, len, "%.2f min", s / 60);
    /* from the value that rounds to 1.00 in three digits: 999.7 ms is "1 s", not "1e+03 ms" */
    else if (s >= 0.9995)
        snprintf(buf, len, "%.3g s", s);
    else if (s >= 0.9995e-3)
        snprintf(buf, len, "%.3g ms", s * 1e3);
    else
        snprintf(buf, len, "%.3g us", s * 1e6);
    return buf;
}

time_unit time_unit_of(double largest)
{
    static const time_unit units[] = {{"d", 86400, 0}, {"h", 3600, 0},  {"min", 60, 0},
                                      {"s", 1, 0},     {"ms", 1e-3, 0}, {"us", 1e-6, 0}};
    /* fmt_seconds' thresholds: days from 48 h */
    const double from[] = {3600 * 48, 3600, 60, 1, 1e-3, 0};
    double a = isfinite(largest) ? fabs(largest) : 0;
    int i = 0;
    while (i < 5 && a < from[i])
        i++;
    time_unit u = units[a == 0 ? 3 : i]; /* a column of zeros is in seconds */
    u.largest = a;
    return u;
}

void time_unit_add(time_unit *u, double s)
{
    if (isfinite(s) && fabs(s) > u->largest)
        *u = time_unit_of(fabs(s));
}

const char *fmt_seconds_in(double s, const time_unit *u, char *buf, size_t len)
{
    if (!isfinite(s))
        return fmt_seconds(s, buf, len);
    double v = s / u->scale, a = fabs(v);
    if (a >= 999.5) /* 999.7, not 1e+03 */
        snprintf(buf, len, "%.0f %s", v, u->name);
    else if (a >= 1 && u->scale >= 86400) /* as fmt_seconds: 3.706 d, 12.35 d, 123.5 d */
        snprintf(buf, len, a < 10 ? "%.3f %s" : a < 100 ? "%.2f %s" : "%.1f %s", v, u->name);
    else if (a >= 1 && u->scale >= 60)
        snprintf(buf, len, "%.2f %s", v, u->name);
    else if (a < 1e-3 && a > 0) /* 5.18 ms, not 8.63e-05 min, in a column of minutes */
        return fmt_seconds(s, buf, len);
    else
        snprintf(buf, len, "%.3g %s", v, u->name);
    return buf;
}

struct text_table {
    int n_cols, n_rows, cap;
    char **cells; /* row-major, row 0 = headers */
};

text_table *table_new(int n_cols, const char *const *headers)
{
    text_table *t = calloc(1, sizeof *t);
    t->n_cols = n_cols;
    table_add(t, headers);
    return t;
}

void table_add(text_table *t, const char *const *cells)
{
    if (t->n_rows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->cells = realloc(t->cells, (size_t)t->cap * (size_t)t->n_cols * sizeof *t->cells);
    }
    /* a cell quoting a name read from a file (a network path holding a newline) stays in its
     * row and column */
    for (int c = 0; c < t->n_cols; c++)
        t->cells[t->n_rows * t->n_cols + c] = sm_escape_controls(cells[c] ? cells[c] : "");
    t->n_rows++;
}

/* A number as these tables print one: "25,557,032", "4.09 G", "1.5 ms", "3 kWh", "64x56x56". Text
 * that merely starts with a digit ("2-D convolution") is not. */
static int looks_numeric(const char *s)
{
    if (!isdigit((unsigned char)*s) && !((*s == '-' || *s == '+') && isdigit((unsigned char)s[1])))
        return 0;
    const char *unit = strchr(s, ' ');
    size_t len = unit ? (size_t)(unit - s) : strlen(s);
    if (unit && (strlen(unit + 1) > 3 || strspn(unit + 1, "kMGTPEmunsihd/%JW") != strlen(unit + 1)))
        return 0;
    return strspn(s, "0123456789.,+-xe%") == len;
}

void table_print(const text_table *t, FILE *out)
{
    /* columns past the 64th are printed unaligned (no command has that many) */
    int width[64] = {0};
    for (int r = 0; r < t->n_rows; r++)
        for (int c = 0; c < t->n_cols && c < 64; c++) {
            int w = (int)strlen(t->cells[r * t->n_cols + c]);
            if (w > width[c])
                width[c] = w;
        }
    for (int r = 0; r < t->n_rows; r++) {
        for (int c = 0; c < t->n_cols; c++) {
            const char *s = t->cells[r * t->n_cols + c];
            int right = r > 0 && looks_numeric(s);
            if (r == 0 && t->n_rows > 1)
                right = looks_numeric(t->cells[t->n_cols + c]);
            const char *sep = c + 1 < t->n_cols ? "  " : "";
            int w = c < 64 ? width[c] : 0;
            if (right)
                fprintf(out, "%*s%s", w, s, sep);
            else if (c + 1 < t->n_cols)
                fprintf(out, "%-*s%s", w, s, sep);
            else
                fprintf(out, "%s", s);
        }
        fputc('\n', out);
    }
}

void table_free(text_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n_rows * t->n_cols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t);
}

void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void csv_real(FILE *out, double x)
{
    if (isfinite(x))
        fprintf(out, ",%.6g", x);
    else
        fputc(',', out);
}

const char *fmt_gib(double bytes, char *buf, size_t len)
{
    double gib = bytes / 1073741824.0;
    snprintf(buf, len, gib >= 100 ? "%.0f GiB" : gib >= 0.1 ? "%.1f GiB" : "%.3f GiB", gib);
    return buf;
}

const char *fmt_memory(const sm_memory *m, char *buf, size_t len)
{
    char gib[32];
    snprintf(buf, len, "%s%s", fmt_gib(m->peak + m->context, gib, sizeof gib),
             m->fits == 0 ? " oom" : "");
    return buf;
}

void csv_memory(FILE *out, const sm_memory *m)
{
    fprintf(out, ",%.0f,", m->peak + m->context);
    if (m->fits >= 0)
        fprintf(out, "%.0f,%s", m->capacity, m->fits ? "true" : "false");
    else
        fputc(',', out);
}

void json_memory(json_writer *w, const char *key, const sm_memory *m)
{
    const char *names[] = {"weights",  "gradients", "optimizer", "activations",
                           "backward", "workspace", "context",   "peak"};
    const double v[] = {m->weights,  m->gradients, m->optimizer, m->activations,
                        m->backward, m->workspace, m->context,   m->peak};
    json_key(w, key);
    json_begin_object(w);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        json_key(w, names[i]);
        json_whole(w, v[i]); /* bytes, every digit */
    }
    /* what the CSV's and the table's memory are, and what fits compares with the capacity */
    json_key(w, "total");
    json_whole(w, m->peak + m->context);
    json_key(w, "capacity");
    if (m->fits >= 0) {
        json_whole(w, m->capacity);
        json_field_bool(w, "fits", m->fits);
    } else {
        json_null(w);
        json_field_null(w, "fits");
    }
    json_end(w);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **list_ini_names(const char *dir, const char *what, int *n)
{
    DIR *d = opendir(dir);
    *n = 0;
    if (!d) {
        fprintf(stderr, "scalemeter: %s: cannot open the %s folder\n", dir, what);
        return NULL;
    }
    char **names = NULL;
    int cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0 || e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 32;
            char **grown = realloc(names, (size_t)cap * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        names[(*n)++] = strndup(e->d_name, len - 4);
    }
    closedir(d);
    if (names)
        qsort(names, (size_t)*n, sizeof *names, by_name);
    return names;
}

int is_sequence(const sm_network *net) { return net->input.ndim <= 2; }

const char *stdin_label(const sm_network *net, int taken, char *buf, size_t len)
{
    /* a nameless network is named after its file, which is "-" */
    const char *name =
        net && net->name && net->name[0] && strcmp(net->name, "-") ? net->name : "stdin";
    snprintf(buf, len, "%.63s%s", name, taken ? " (stdin)" : "");
    return buf;
}

const char *heading_name(const sm_network *net, const char *model)
{
    return strcmp(net->path, "-") ? net->name : model;
}

int check_length_option(const char *cmd, const char *model, const sm_network *net, int64_t image,
                        int64_t seq)
{
    /* no shape in the message: the network was read at the option's size, not its own */
    if (seq && !is_sequence(net))
        fprintf(stderr,
                "scalemeter %s: --seq: %s is an image network; --image sets its height and "
                "width\n",
                cmd, model);
    else if (image && is_sequence(net))
        fprintf(stderr, "scalemeter %s: --image: %s is a sequence network; --seq sets its length\n",
                cmd, model);
    else
        return 0;
    return -1;
}

int load_sized_network(const char *cmd, const sm_registry *reg, const char *model, int64_t image,
                       int64_t seq, int kv_cache, sm_network **net, sm_status *st)
{
    sm_network_options opt = {.image = image ? image : seq, .kv_cache = kv_cache};
    if (sm_network_load(reg, model, &opt, net, st) == 0)
        return 0;
    /* a size meant for the other kind can fail a layer (gpt2 --image 100000 is longer than
     * its positions): the network at its own size tells the kind, and the option is named.
     * Not the standard input, which the first load read. */
    sm_network *own;
    sm_status ignored;
    int mismatch = 0;
    if ((image || seq) && strcmp(model, "-") != 0 &&
        sm_network_load(reg, model, NULL, &own, &ignored) == 0) {
        mismatch = check_length_option(cmd, model, own, image, seq);
        sm_network_free(own);
    }
    return mismatch ? -2 : -1;
}

double tokens_per_s(const sm_layout *l, double t_step, int64_t seq)
{
    return sm_images_per_s(l, t_step) * (double)seq;
}

int64_t dataset_samples(int64_t dataset, int64_t tokens, const sm_network *net)
{
    if (tokens > 0)
        return (tokens + sm_network_image(net) - 1) / sm_network_image(net);
    if (dataset > 0)
        return dataset;
    return is_sequence(net) ? 0 : DEFAULT_DATASET;
}

int fully_sharded(const sm_predictor *p)
{
    sm_memory_config mc;
    return sm_predictor_memory_config(p, &mc) == 0 && mc.shard == SM_SHARD_FULL;
}

const char *gradient_collective(const sm_predictor *p)
{
    sm_memory_config mc;
    sm_predictor_memory_config(p, &mc);
    return mc.shard == SM_SHARD_NONE ? "all-reduce" : "reduce-scatter";
}

double model_sample_flops(const sm_network *net)
{
    /* summed as reals, layer by layer as the predictor counts them: the network's 64-bit
     * totals overflow at large batches (resnet50 at 1e9), and F + Fb sooner (at 4e8: 9.8e18);
     * one sample's, since every layer's counts are its per-sample counts times the batch */
    double flops = 0;
    for (int i = 0; i < net->n_layers; i++) {
        sm_metrics m;
        sm_status st;
        if (sm_layer_metrics_at(&net->layers[i], 1, &m, &st))
            return NAN;
        flops += (double)m.flops + (double)m.bwd_flops;
    }
    return flops;
}

double model_flops_utilisation(const sm_predictor *p, double sample_flops, int64_t batch,
                               double t_step)
{
    double peak = sm_predictor_peak_flops(p);
    if (!(peak > 0) || !isfinite(t_step))
        return NAN;
    return (double)batch * sample_flops / (t_step * peak);
}

/* path's folder resolved, then its last name: "" where the folder does not resolve. */
static void resolved_path(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    char real[PATH_MAX];
    if (realpath(dir, real))
        snprintf(buf, len, "%s/%s", real, slash ? slash + 1 : path);
}

int output_same_file(const char *a, const char *b)
{
    if (!strcmp(a, b))
        return 1;
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb)
        return 0; /* one exists and the other does not: not one file (a dangling link aside) */
    char ra[PATH_MAX + 256], rb[PATH_MAX + 256];
    resolved_path(a, ra, sizeof ra);
    resolved_path(b, rb, sizeof rb);
    return ra[0] && !strcmp(ra, rb);
}

int output_not_input(const char *cmd, const char *option, const char *out,
                     const char *const *inputs, int n)
{
    struct stat o, i;
    if (!out || stat(out, &o) != 0 || !S_ISREG(o.st_mode))
        return 0; /* nothing there yet, or a device (/dev/null) that reading leaves as it is */
    for (int k = 0; k < n; k++)
        if (inputs[k] && stat(inputs[k], &i) == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino) {
            fprintf(stderr,
                    "scalemeter %s: %s %s is the input %s: writing it would replace what "
                    "is read; name another file\n",
                    cmd, option, out, inputs[k]);
            return -1;
        }
    return 0;
}

const char *network_label(const char *name) { return strcmp(name, "overall") ? name : "./overall"; }

void say_runs_notes(const char *cmd, const char *csv, const sm_runs *runs)
{
    if (runs->not_measured)
        fprintf(stderr,
                "scalemeter %s: %s: %d rows not measured (status other than ok, such as oom, or "
                "fits false) left out\n",
                cmd, csv, runs->not_measured);
    if (runs->energy_zero)
        say_warning("%s: %d energy field%s read 0 J (a counter that did not advance over a "
                    "short measurement); taken as not measured",
                    csv, runs->energy_zero, runs->energy_zero == 1 ? "" : "s");
}

/* A step no longer than its passes on several devices: no gradient phase to fit (sm_run_target
 * gives NaN). On one device a step timed whole comes out below its passes timed apart (the
 * host queues the backward pass while the forward one runs: to 0.81 of them in the H100's
 * tf32 rows), but not below half of them: 1e-8 s against 19.5 ms was fitted without a word. */
static int step_too_short(const sm_run *r, int several)
{
    int devices = r->nodes * r->gpus_per_node;
    if (several)
        return devices >= 2 && !isnan(r->t_step) && !isnan(r->t_fwd) && !isnan(r->t_bwd) &&
               r->t_step <= r->t_fwd + r->t_bwd;
    return devices == 1 && r->t_step < 0.5 * (r->t_fwd + r->t_bwd);
}

/* The rows step_too_short picks, their first ten lines in lines: how many. */
static int short_steps(const sm_runs *runs, int several, char *lines, size_t len)
{
    int n = 0, used = 0;
    lines[0] = '\0';
    for (int i = 0; i < runs->n; i++)
        if (step_too_short(&runs->rows[i], several) && n++ < 10 && used < (int)len)
            used += snprintf(lines + used, len - (size_t)used, "%s%d", n > 1 ? ", " : "",
                             runs->rows[i].line);
    return n;
}

void say_impossible_steps(const char *csv, const sm_runs *runs, const char *left_out_of)
{
    char lines[256];
    int n = short_steps(runs, 1, lines, sizeof lines);
    if (n)
        say_warning("%s: %d row%s of several devices (line%s %s%s) %s t_step <= t_fwd + "
                    "t_bwd, impossible with a gradient phase; %s left out of %s",
                    csv, n, n == 1 ? "" : "s", n == 1 ? "" : "s", lines, n > 10 ? ", ..." : "",
                    n == 1 ? "has" : "have", n == 1 ? "it is" : "they are", left_out_of);
    if ((n = short_steps(runs, 0, lines, sizeof lines)))
        say_warning("%s: %d row%s of one device (line%s %s%s) %s t_step below half of t_fwd + "
                    "t_bwd, which a step runs both of: check %s",
                    csv, n, n == 1 ? "" : "s", n == 1 ? "" : "s", lines, n > 10 ? ", ..." : "",
                    n == 1 ? "has" : "have", n == 1 ? "it" : "them");
}

void say_runs_repeated(const char *csv, const sm_runs *runs, const char *repeated_as)
{
    if (runs->repeated)
        say_warning("%s:%d: the configuration of line %d measured again (%d such row%s); every "
                    "row is %s as a repeated measurement",
                    csv, runs->repeated_line, runs->repeated_of, runs->repeated,
                    runs->repeated == 1 ? "" : "s", repeated_as);
}
