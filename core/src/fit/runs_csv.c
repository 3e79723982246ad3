/* The measurement CSV (docs/calibration.md): columns found by name in the header (extra columns are
 * ignored), one configuration per row, an empty time meaning "not measured". Every bad field is
 * reported with the file, line and column, since a silently skipped row would bias the fit. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "network/network_internal.h"
#include "scalemeter/fit.h"
#include "util/fnv.h"
#include "util/precision.h"

/* The most devices a row may run on (nodes x gpus_per_node), as --nodes and FILE@NODES take
 * nodes: far beyond any machine, and an int wherever the rows are fitted */
#define MAX_RUN_DEVICES (1 << 20)

const char *const sm_run_columns[SM_N_RUN_COLS] = {
    "model",          "image",           "batch",
    "nodes",          "gpus_per_node",   "t_infer",
    "t_fwd",          "t_bwd",           "t_grad",
    "t_step",         "backend",         "threads",
    "reps",           "status",          "precision",
    "conv_algo",      "device",          "energy_j",
    "energy_infer_j", "energy_window_s", "energy_infer_window_s"};

/* The columns a reader needs, then those it reads where present (col_of[] indices). */
enum {
    COL_MODEL = SM_COL_MODEL,
    COL_IMAGE = SM_COL_IMAGE,
    COL_BATCH = SM_COL_BATCH,
    COL_NODES = SM_COL_NODES,
    COL_GPUS = SM_COL_GPUS,
    COL_INFER = SM_COL_INFER,
    COL_STEP = SM_COL_STEP,
    N_COLS = SM_N_REQUIRED_COLS,
    COL_STATUS = N_COLS,
    COL_PRECISION,
    COL_ENERGY_STEP,
    COL_ENERGY_INFER,
    COL_BACKEND,
    COL_DEVICE,
    COL_ACCUMULATE,
    COL_SHARD,
    COL_CHECKPOINT,
    COL_FITS,
    COL_THREADS,
    COL_ALLREDUCE,
    COL_BUCKET,
    N_ALL_COLS
};
#define MAX_FIELDS 256

/* Splits a record in place into fields, RFC 4180: "..." quotes a field that may hold commas,
 * newlines and quotes ("" is a quote). Returns the count; -1 for an unterminated quote; -2 for
 * text after a closing quote ("resnet18"50), with *bad the field's index; -3 for more than max
 * fields (at 256 a row of 261 and its header of 260 both counted 256). *newlines counts the
 * newlines inside quotes before the end or the error, for the error's line. */
static int split_csv(char *line, char **fields, int max, int *bad, int *newlines)
{
    int n = 0;
    char *p = line;
    *newlines = 0;
    for (;;) {
        if (n == max)
            return -3; /* a field past the last one taken: the counts would tie at max */
        char *out = p;
        fields[n++] = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p)
                    return -1;
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *newlines += *p == '\n';
                    *out++ = *p++;
                }
            }
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
                p++; /* the line's end, or blanks before the comma */
            if (*p && *p != ',') {
                *bad = n - 1;
                return -2;
            }
        } else {
            while (*p && *p != ',')
                *out++ = *p++;
        }
        int more = *p == ',';
        if (more)
            p++;
        *out = '\0';
        if (!more)
            return n;
    }
}

/* Whether a record ends inside a quoted field, so that the next line continues it: the scan
 * of its text from q->pos on, from the state the scan of what came before left (each line of a
 * record scanned once: the whole record scanned again with each line cost lines x bytes, so
 * a stray quote before 10^5 blank lines took 2 s, 10^6 minutes). A record ending in a quote
 * inside quotes ends there, so no lookahead spans two lines. */
typedef struct quote_scan {
    size_t pos;
    int quoted, field_start;
} quote_scan;

static int in_quotes(const char *rec, quote_scan *q)
{
    const char *s = rec + q->pos;
    for (; *s; s++) {
        if (q->quoted) {
            if (*s == '"' && s[1] == '"')
                s++;
            else if (*s == '"')
                q->quoted = 0;
        } else if (*s == '"' && q->field_start) {
            q->quoted = 1;
        }
        if (!q->quoted)
            q->field_start = *s == ',';
    }
    q->pos = (size_t)(s - rec);
    return q->quoted;
}

/* The next record into *rec: one line, or more where a quoted field holds newlines. Returns 0;
 * -1 at the end of the file; -2 at its end inside quotes; -3 out of memory; -4 a NUL byte (the
 * fields, C strings, would end there); -5 a record longer than SM_MAX_LINE_BYTES. *lineno: the
 * record's last line. */
static int read_record(FILE *f, char **rec, size_t *cap, int *lineno)
{
    char *line = NULL;
    size_t line_cap = 0, used = 0;
    quote_scan q = {0, 0, 1};
    int rc = -1;
    long len;
    while ((len = sm_read_line(f, &line, &line_cap)) >= 0 || len < -1) {
        (*lineno)++;
        if (len < -1 || used + (size_t)len > SM_MAX_LINE_BYTES) {
            rc = len == -3 ? -3 : -5;
            break;
        }
        if (memchr(line, '\0', (size_t)len)) {
            rc = -4;
            break;
        }
        if (used + (size_t)len + 1 > *cap) {
            size_t want = 2 * (used + (size_t)len + 1);
            char *grown = realloc(*rec, want);
            if (!grown) {
                rc = -3;
                break;
            }
            *rec = grown;
            *cap = want;
        }
        memcpy(*rec + used, line, (size_t)len + 1);
        used += (size_t)len;
        rc = 0;
        if (!in_quotes(*rec, &q))
            break;
        rc = -2;
    }
    free(line);
    return rc;
}

/* What a backend or device column says ran the row: bench's backend (cpu, cuda), measure.py's
 * device (cpu, cuda, cuda:1), or a GPU's name as CUDA gives it (NVIDIA H100 80GB HBM3, Tesla
 * V100-SXM2-16GB); anything else (a CPU's model name, nothing) does not say. */
static sm_backend backend_of(const char *text)
{
    if (!strcasecmp(text, "cpu"))
        return SM_BACKEND_CPU;
    if (!strcasecmp(text, "cuda") || !strncasecmp(text, "cuda:", 5) ||
        !strncasecmp(text, "NVIDIA ", 7) || !strncasecmp(text, "Tesla ", 6))
        return SM_BACKEND_GPU;
    return SM_BACKEND_UNKNOWN;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static int parse_count(const char *path, int line, const char *col, const char *text, int64_t lo,
                       int64_t hi, int64_t *out, sm_status *st)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!*text || errno || *end)
        return sm_fail(st, "%s:%d: %s '%s' is not an integer", path, line, col, text);
    if (v < lo || v > hi)
        return sm_fail(st, "%s:%d: %s %lld is out of range [%lld, %lld]", path, line, col, v,
                       (long long)lo, (long long)hi);
    *out = v;
    return 0;
}

static int parse_time(const char *path, int line, const char *col, const char *text, double *out,
                      sm_status *st)
{
    if (!*text) {
        *out = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    double v = sm_strtod(text, &end);
    if (end == text || *end || errno == ERANGE)
        return sm_fail(st, "%s:%d: %s '%s' is not a number of seconds", path, line, col, text);
    if (!isfinite(v))
        return sm_fail(st, "%s:%d: %s is %s; leave the field empty for \"not measured\"", path,
                       line, col, text);
    if (v <= 0)
        return sm_fail(st, "%s:%d: %s %s is not a positive time", path, line, col, text);
    /* a pass or a step of a benchmark, not an epoch: its square must stay finite in the fit's
     * statistics, which 1e308 s did not */
    if (v > SM_MAX_RUN_SECONDS)
        return sm_fail(st, "%s:%d: %s %s s is above %g s (11.6 days): not one pass or step", path,
                       line, col, text, SM_MAX_RUN_SECONDS);
    if (v < SM_MIN_RUN_SECONDS)
        return sm_fail(st, "%s:%d: %s %s s is below %g s (a nanosecond): not one pass or step",
                       path, line, col, text, SM_MIN_RUN_SECONDS);
    *out = v;
    return 0;
}

/* An optional energy column: joules, empty for "not measured". 0 is what an energy counter
 * reads over a window shorter than its update period (the H100's, over a few milliseconds):
 * not a measurement either, counted in *zero so that commands can say so. */
static int parse_energy(const char *path, int line, const char *col, char **fields, int n, int at,
                        double *out, int *zero, sm_status *st)
{
    *out = NAN;
    if (at < 0 || at >= n)
        return 0;
    const char *text = trim(fields[at]);
    if (!*text)
        return 0;
    char *end;
    errno = 0;
    double v = sm_strtod(text, &end);
    if (end == text || *end || errno == ERANGE || !isfinite(v) || v < 0)
        return sm_fail(st, "%s:%d: %s '%s' is not a number of joules (empty: not measured)", path,
                       line, col, text);
    if (v == 0)
        ++*zero;
    else
        *out = v;
    return 0;
}

/* An energy e of all the row's devices over its phase's time t (NAN: not measured): a device's
 * average power, where both are known, within what any device draws; without the time, the
 * energy of the longest time a row may give at the highest power. */
static int check_power(const char *path, int line, const char *col, double e, double t,
                       const char *phase, const sm_run *r, sm_status *st)
{
    if (isnan(e))
        return 0;
    double devices = (double)r->nodes * (double)r->gpus_per_node;
    if (isnan(t)) {
        if (e > SM_MAX_DEVICE_WATTS * SM_MAX_RUN_SECONDS * devices)
            return sm_fail(st, "%s:%d: %s %g J is more than %g W on each device draw in %g s", path,
                           line, col, e, SM_MAX_DEVICE_WATTS, SM_MAX_RUN_SECONDS);
        return 0;
    }
    double watts = e / t / devices;
    if (watts >= SM_MIN_DEVICE_WATTS && watts <= SM_MAX_DEVICE_WATTS)
        return 0;
    return sm_fail(st,
                   "%s:%d: %s %g J over %s of %g s on %.0f device%s is %g W a device: expected "
                   "%g to %g W",
                   path, line, col, e, phase, t, devices, devices == 1 ? "" : "s", watts,
                   SM_MIN_DEVICE_WATTS, SM_MAX_DEVICE_WATTS);
}

/* col_of[COL_STATUS]: the optional status column (what bench writes: ok, oom, ...), or -1. */
static int parse_header(const char *path, int line_no, char *line, int col_of[N_ALL_COLS],
                        int *n_fields, sm_status *st)
{
    char *fields[MAX_FIELDS];
    int bad = 0, newlines;
    int n = split_csv(line, fields, MAX_FIELDS, &bad, &newlines);
    if (n == -2)
        return sm_fail(st,
                       "%s:%d: text after the closing quote of header field %d (a quoted "
                       "field ends at its quote; \"\" is a quote inside it)",
                       path, line_no + newlines, bad + 1);
    if (n == -3)
        return sm_fail(st, "%s:%d: more than %d fields in the header, the most a runs CSV takes",
                       path, line_no, MAX_FIELDS);
    if (n < 0)
        return sm_fail(st, "%s:%d: unterminated quote in the header", path, line_no);
    /* the columns read where present, by name (accumulate: predict's and curve's CSV) */
    static const struct {
        int col;
        const char *name;
    } optional[] = {{COL_STATUS, "status"},         {COL_PRECISION, "precision"},
                    {COL_ENERGY_STEP, "energy_j"},  {COL_ENERGY_INFER, "energy_infer_j"},
                    {COL_BACKEND, "backend"},       {COL_DEVICE, "device"},
                    {COL_ACCUMULATE, "accumulate"}, {COL_SHARD, "shard"},
                    {COL_CHECKPOINT, "checkpoint"}, {COL_FITS, "fits"},
                    {COL_THREADS, "threads"},       {COL_ALLREDUCE, "allreduce"},
                    {COL_BUCKET, "bucket_mib"}};
    for (int c = 0; c < N_ALL_COLS; c++)
        col_of[c] = -1;
    *n_fields = n;
    for (int i = 0; i < n; i++) {
        const char *name = trim(fields[i]);
        int c = -1;
        for (int k = 0; k < N_COLS && c < 0; k++)
            c = strcmp(name, sm_run_columns[k]) ? -1 : k;
        for (size_t k = 0; k < sizeof optional / sizeof *optional && c < 0; k++)
            c = strcmp(name, optional[k].name) ? -1 : optional[k].col;
        if (c < 0)
            continue; /* a column of someone else's (reps, conv_algo ...) */
        /* two of one column: which one a row means is a guess */
        if (col_of[c] >= 0)
            return sm_fail(st, "%s:%d: column %s appears twice", path, line_no, name);
        col_of[c] = i;
    }
    for (int c = 0; c < N_COLS; c++)
        if (col_of[c] < 0)
            return sm_fail(st,
                           "%s:%d: no column '%s' in the header (a measurement CSV starts with "
                           "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,"
                           "t_step)",
                           path, line_no, sm_run_columns[c]);
    return 0;
}

/* Whether a row's fields name every column a reader needs: a header. */
static int is_header(char **fields, int n)
{
    for (int c = 0; c < N_COLS; c++) {
        int named = 0;
        for (int i = 0; i < n && !named; i++)
            named = !strcmp(trim(fields[i]), sm_run_columns[c]);
        if (!named)
            return 0;
    }
    return 1;
}

#define SKIPPED_STATUS 48 /* why a row is not measured, as the message quotes it */

/* bench's allreduce and bucket_mib columns, where present: a name (ring, mpi, nccl) and a
 * positive size in MiB, or empty (one rank, where nothing was summed). */
static int parse_allreduce(const char *path, int line, char **fields, int n, const int *col_of,
                           sm_run *r, sm_status *st)
{
    r->allreduce[0] = '\0';
    r->bucket_mib = NAN;
    int c = col_of[COL_ALLREDUCE];
    const char *name = c >= 0 && c < n ? trim(fields[c]) : "";
    size_t len = strlen(name);
    if (len >= sizeof r->allreduce || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != len)
        return sm_fail(st, "%s:%d: allreduce '%.40s': expected a name such as ring, mpi or nccl",
                       path, line, name);
    memcpy(r->allreduce, name, len + 1);
    c = col_of[COL_BUCKET];
    const char *mib = c >= 0 && c < n ? trim(fields[c]) : "";
    if (!*mib)
        return 0;
    char *end;
    errno = 0;
    double v = sm_strtod(mib, &end);
    if (end == mib || *end || errno || !isfinite(v) || v <= 0 || strpbrk(mib, "xXpP"))
        return sm_fail(st, "%s:%d: bucket_mib '%.40s': expected a positive number of MiB", path,
                       line, mib);
    r->bucket_mib = v;
    return 0;
}

/* 0 with the row in r; 1 for a row whose status says it was not measured (an out-of-memory
 * configuration), that status in skipped; -1 with a message. */
static int parse_row(const char *path, int line, int header_line, char *text,
                     const int col_of[N_ALL_COLS], int n_fields, sm_run *r, int *energy_zero,
                     char skipped[SKIPPED_STATUS], sm_status *st)
{
    char *fields[MAX_FIELDS];
    int bad = 0, newlines;
    int n = split_csv(text, fields, MAX_FIELDS, &bad, &newlines);
    if (n == -2)
        return sm_fail(st,
                       "%s:%d: text after the closing quote of field %d (a quoted field "
                       "ends at its quote; \"\" is a quote inside it)",
                       path, line + newlines, bad + 1);
    if (n == -3)
        return sm_fail(st, "%s:%d: more than %d fields where the header has %d", path, line,
                       MAX_FIELDS, n_fields);
    if (n < 0)
        return sm_fail(st, "%s:%d: unterminated quote", path, line);
    /* the header again: two files joined with cat, the second's header read as a row (with a
     * status column, as one not measured) */
    if (is_header(fields, n))
        return sm_fail(st,
                       "%s:%d: header repeated at line %d (files concatenated?): the header "
                       "of line %d stands for the whole file; delete the repeated one",
                       path, line, line, header_line);
    /* a field too many (a decimal comma: "1,23909" read t_step as 1) or too few (a row cut
     * short, its precision lost) shifts or drops what the header names */
    if (n != n_fields)
        return sm_fail(st, "%s:%d: %d fields where the header has %d", path, line, n, n_fields);
    if (col_of[COL_STATUS] >= 0) {
        const char *status = trim(fields[col_of[COL_STATUS]]);
        if (*status && strcmp(status, "ok") != 0) {
            snprintf(skipped, SKIPPED_STATUS, "status '%.20s'", status);
            return 1;
        }
    }
    /* predict's and curve's CSV, which fit reads back: a point predicted not to fit the device's
     * memory is what bench records as status oom, no step that ran */
    if (col_of[COL_FITS] >= 0) {
        /* a spreadsheet writes FALSE, which was fitted as a measurement; empty: not known */
        const char *fits = trim(fields[col_of[COL_FITS]]);
        if (!strcasecmp(fits, "false")) {
            snprintf(skipped, SKIPPED_STATUS, "fits false");
            return 1;
        }
        if (*fits && strcasecmp(fits, "true"))
            return sm_fail(st, "%s:%d: fits '%.20s': expected true, false or empty", path, line,
                           fits);
    }
    const char *f[N_COLS];
    for (int c = 0; c < N_COLS; c++)
        f[c] = trim(fields[col_of[c]]);
    memset(r, 0, sizeof *r);
    r->line = line;
    if (!*f[COL_MODEL])
        return sm_fail(st, "%s:%d: empty model name", path, line);
    int64_t v;
    if (*f[COL_IMAGE] && parse_count(path, line, "image", f[COL_IMAGE], 1, 1 << 20, &r->image, st))
        return -1;
    if (parse_count(path, line, "batch", f[COL_BATCH], 1, INT64_C(1) << 32, &r->batch, st))
        return -1;
    r->nodes = r->gpus_per_node = 1;
    if (*f[COL_NODES]) {
        if (parse_count(path, line, "nodes", f[COL_NODES], 1, 1 << 20, &v, st))
            return -1;
        r->nodes = (int)v;
    }
    if (*f[COL_GPUS]) {
        if (parse_count(path, line, "gpus_per_node", f[COL_GPUS], 1, 1 << 16, &v, st))
            return -1;
        r->gpus_per_node = (int)v;
    }
    /* the device count is an int wherever the rows are fitted: 32768 x 65536 wrapped to a
     * negative one and the fit called the system rank-deficient */
    if ((int64_t)r->nodes * r->gpus_per_node > MAX_RUN_DEVICES)
        return sm_fail(st, "%s:%d: nodes x gpus_per_node = %d x %d is more than %d devices", path,
                       line, r->nodes, r->gpus_per_node, MAX_RUN_DEVICES);
    /* a step of K micro-batches is no step of the equations fit solves (t_step = t_fwd +
     * t_bwd + t_grad): read it as one and every coefficient would be wrong */
    if (col_of[COL_ACCUMULATE] >= 0 && col_of[COL_ACCUMULATE] < n) {
        /* a count as the other columns' (1.0, abc: "not an integer", not "several") */
        const char *k = trim(fields[col_of[COL_ACCUMULATE]]);
        if (*k && parse_count(path, line, "accumulate", k, 1, 1 << 20, &v, st))
            return -1;
        if (*k && v != 1)
            return sm_fail(st,
                           "%s:%d: accumulate %s: a step of several micro-batches; fit reads "
                           "steps of one (predict or measure with --accumulate 1)",
                           path, line, k);
    }
    /* nor is a sharded step (its collectives per layer) or a checkpointed one (its forward
     * pass again in the backward) one of the DDP steps the equations and validate's
     * predictions are of: predict and curve write how they trained */
    static const struct {
        int col;
        const char *option;
    } plain[] = {{COL_SHARD, "--shard"}, {COL_CHECKPOINT, "--checkpoint"}};
    for (size_t k = 0; k < sizeof plain / sizeof *plain; k++) {
        int c = col_of[plain[k].col];
        const char *given = c >= 0 && c < n ? trim(fields[c]) : "";
        if (*given && strcmp(given, "none") != 0)
            return sm_fail(st,
                           "%s:%d: %s %s: a step of another kind than the DDP steps without "
                           "checkpointing that fit and validate read (predict or measure "
                           "with %s none)",
                           path, line, plain[k].option + 2, given, plain[k].option);
    }
    double *t[] = {&r->t_infer, &r->t_fwd, &r->t_bwd, &r->t_grad, &r->t_step};
    for (int k = 0; k < 5; k++)
        if (parse_time(path, line, sm_run_columns[COL_INFER + k], f[COL_INFER + k], t[k], st))
            return -1;
    if (isnan(r->t_infer) && isnan(r->t_fwd) && isnan(r->t_bwd) && isnan(r->t_grad) &&
        isnan(r->t_step))
        return sm_fail(st, "%s:%d: no time measured (t_infer ... t_step all empty)", path, line);
    snprintf(r->precision, sizeof r->precision, "fp32");
    if (col_of[COL_PRECISION] >= 0 && col_of[COL_PRECISION] < n) {
        const char *p = trim(fields[col_of[COL_PRECISION]]);
        if (*p) {
            if (sm_precision_parse(p) < 0)
                return sm_fail(st, "%s:%d: precision '%s': expected fp32, tf32, fp16 or bf16", path,
                               line, p);
            snprintf(r->precision, sizeof r->precision, "%s", p);
        }
    }
    if (parse_energy(path, line, sm_run_columns[SM_COL_ENERGY], fields, n, col_of[COL_ENERGY_STEP],
                     &r->e_step, energy_zero, st) ||
        parse_energy(path, line, sm_run_columns[SM_COL_ENERGY_INFER], fields, n,
                     col_of[COL_ENERGY_INFER], &r->e_infer, energy_zero, st) ||
        check_power(path, line, sm_run_columns[SM_COL_ENERGY], r->e_step,
                    sm_run_target(r, SM_PHASE_STEP), "a step", r, st) ||
        check_power(path, line, sm_run_columns[SM_COL_ENERGY_INFER], r->e_infer, r->t_infer,
                    "an inference pass", r, st))
        return -1;
    /* bench writes backend (cpu, cuda), measure.py device (cpu, cuda, cuda:1) */
    const char *backend =
        col_of[COL_BACKEND] >= 0 && col_of[COL_BACKEND] < n ? trim(fields[col_of[COL_BACKEND]])
        : col_of[COL_DEVICE] >= 0 && col_of[COL_DEVICE] < n ? trim(fields[col_of[COL_DEVICE]])
                                                            : "";
    r->backend = backend_of(backend);
    if (col_of[COL_DEVICE] >= 0 && col_of[COL_DEVICE] < n)
        snprintf(r->device, sizeof r->device, "%s", trim(fields[col_of[COL_DEVICE]]));
    /* bench's CPU threads per rank: another count is another machine to fit */
    const char *threads = col_of[COL_THREADS] >= 0 && col_of[COL_THREADS] < n
                              ? trim(fields[col_of[COL_THREADS]])
                              : "";
    r->threads = 0;
    if (*threads) {
        char *end;
        errno = 0;
        long count = strtol(threads, &end, 10);
        if (!isdigit((unsigned char)*threads) || *end || errno || count < 1 || count > 1 << 20)
            return sm_fail(st, "%s:%d: threads '%s': expected a count from 1", path, line, threads);
        r->threads = (int)count;
    }
    if (parse_allreduce(path, line, fields, n, col_of, r, st))
        return -1;
    r->model = strdup(f[COL_MODEL]);
    return r->model ? 0 : sm_fail(st, "%s:%d: out of memory", path, line);
}

static int is_blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return !*s || *s == '#';
}

/* The machine the rows were measured on, where their device columns agree on one: a name, not
 * measure.py's backend words (cpu, cuda, cuda:N). */
static void common_device(sm_runs *runs)
{
    const char *name = NULL;
    for (int i = 0; i < runs->n; i++) {
        const char *d = runs->rows[i].device;
        if (!*d)
            continue;
        if (!strcmp(d, "cpu") || !strcmp(d, "cuda") || !strncmp(d, "cuda:", 5) ||
            (name && strcmp(name, d)))
            return;
        name = d;
    }
    if (name)
        snprintf(runs->device, sizeof runs->device, "%s", name);
}

/* The size a row ran at: once sm_runs_metrics has loaded its network, an empty image field is
 * the network's own size (224 for resnet50), the same configuration as 224 written out. */
static int64_t image_of(const sm_run *r) { return r->image_run > 0 ? r->image_run : r->image; }

/* Orders rows by configuration, then by line. */
static int compare_config(const void *pa, const void *pb)
{
    const sm_run *a = *(const sm_run *const *)pa, *b = *(const sm_run *const *)pb;
    int c = strcmp(a->model, b->model);
    if (!c)
        c = (image_of(a) > image_of(b)) - (image_of(a) < image_of(b));
    if (!c)
        c = (a->batch > b->batch) - (a->batch < b->batch);
    if (!c)
        c = (a->nodes > b->nodes) - (a->nodes < b->nodes);
    if (!c)
        c = (a->gpus_per_node > b->gpus_per_node) - (a->gpus_per_node < b->gpus_per_node);
    if (!c)
        c = strcmp(a->precision, b->precision);
    if (!c)
        c = (a->threads > b->threads) - (a->threads < b->threads);
    /* rows of two all-reduces or bucket sizes are two configurations (bench keys them so) */
    if (!c)
        c = strcmp(a->allreduce, b->allreduce);
    if (!c)
        c = isnan(a->bucket_mib) != isnan(b->bucket_mib)
                ? isnan(a->bucket_mib) - isnan(b->bucket_mib)
                : (a->bucket_mib > b->bucket_mib) - (a->bucket_mib < b->bucket_mib);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* Counts the rows that measure a configuration again (sorted, so n log n). */
static void find_repeats(sm_runs *runs)
{
    if (runs->n < 2)
        return; /* nothing to repeat (and a size GCC sees is not negative) */
    const sm_run **by = malloc((size_t)runs->n * sizeof *by);
    if (!by)
        return; /* only a diagnostic */
    for (int i = 0; i < runs->n; i++)
        by[i] = &runs->rows[i];
    qsort(by, (size_t)runs->n, sizeof *by, compare_config);
    for (int i = 1; i < runs->n; i++) {
        sm_run a = *by[i - 1], b = *by[i];
        a.line = b.line = 0;
        const sm_run *pa = &a, *pb = &b;
        if (compare_config(&pa, &pb) != 0)
            continue;
        if (!runs->repeated || by[i]->line < runs->repeated_line) {
            runs->repeated_line = by[i]->line;
            runs->repeated_of = by[i - 1]->line;
        }
        runs->repeated++;
    }
    free(by);
}

/* Whether a and b name one file (b may be missing). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Whether model is a bare name of the zoo's (models/NAME.ini of the data folder). */
static int zoo_name(const char *model)
{
    char *path;
    int shipped = sm_data_shipped("models", model, &path);
    free(path);
    return shipped > 0;
}

/* A model written as a relative path names a file beside the CSV where there is one there: the
 * CSV and its networks move together and are read from any folder. Elsewhere the model is left
 * as written, found as before from the current folder, then in the zoo (resnet50); so is one
 * that names the same file from here. Rows come grouped by model: the last answer is reused. */
static int resolve_models(sm_runs *runs, const char *csv, sm_status *st)
{
    const char *slash = strrchr(csv, '/');
    if (!slash)
        return 0; /* the CSV is in the current folder */
    size_t dir_len = (size_t)(slash - csv) + 1;
    char *prev = NULL,
         *prev_as = NULL; /* the last model as written, and as resolved (NULL: kept) */
    int rc = 0;
    for (int i = 0; i < runs->n && rc == 0; i++) {
        sm_run *r = &runs->rows[i];
        if (r->model[0] == '/')
            continue;
        if (!prev || strcmp(prev, r->model)) {
            free(prev);
            free(prev_as);
            prev_as = NULL;
            size_t n = strlen(r->model);
            char *beside = malloc(dir_len + n + 1);
            if (!(prev = strdup(r->model)) || !beside) {
                free(beside);
                rc = sm_fail(st, "%s:%d: out of memory", csv, r->line);
                break;
            }
            memcpy(beside, csv, dir_len);
            memcpy(beside + dir_len, r->model, n + 1);
            if (sm_is_file(beside) && !same_file(beside, r->model)) {
                /* bench writes a zoo network by its bare name: a file of that name beside the
                 * CSV stood for it, and a fit of mobilenet_v2's rows priced another network */
                if (zoo_name(r->model)) {
                    rc = sm_fail(st,
                                 "%s:%d: model %s names both the zoo's network and the file %s "
                                 "beside the CSV; rename the file, or write the row's model "
                                 "as a path (./%s)",
                                 csv, r->line, r->model, beside, r->model);
                    free(beside);
                    break;
                }
                prev_as = beside;
            } else {
                free(beside);
            }
        }
        if (prev_as) {
            char *m = strdup(prev_as);
            if (!m) {
                rc = sm_fail(st, "%s:%d: out of memory", csv, r->line);
                break;
            }
            free(r->model);
            r->model = m;
        }
    }
    free(prev);
    free(prev_as);
    return rc;
}

/* One spelling of a model in the rows: where its file is, the first line that spells it, and
 * its rows, by[start] to by[end - 1] of unify_models. */
typedef struct spelling {
    dev_t dev;
    ino_t ino;
    int found, line, start, end;
} spelling;

static int compare_model(const void *pa, const void *pb)
{
    const sm_run *a = *(const sm_run *const *)pa, *b = *(const sm_run *const *)pb;
    int c = strcmp(a->model, b->model);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* Orders spellings by file, the first line of each file first; those not found last. */
static int compare_file(const void *pa, const void *pb)
{
    const spelling *a = pa, *b = pb;
    if (a->found != b->found)
        return b->found - a->found;
    int c = (a->dev > b->dev) - (a->dev < b->dev);
    if (!c)
        c = (a->ino > b->ino) - (a->ino < b->ino);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* Rows that name one network file in two ways (tiny.ini and ./tiny.ini; resnet18 and
 * models/resnet18.ini in the source tree) take the first spelling: as two networks, a
 * configuration measured under both was not seen as repeated, and leave-one-model-out fitted
 * each on the other. A symbolic link is a name of its own (lstat), as a copy would be; a model
 * not found stays as written, for sm_runs_metrics to name. */
static int unify_models(sm_runs *runs, sm_status *st)
{
    sm_run **by = malloc((size_t)runs->n * sizeof *by);
    spelling *sp = malloc((size_t)runs->n * sizeof *sp);
    int n = 0, rc = 0;
    if (!by || !sp)
        rc = sm_fail(st, "%s: out of memory", runs->path);
    for (int i = 0; rc == 0 && i < runs->n; i++)
        by[i] = &runs->rows[i];
    if (rc == 0)
        qsort(by, (size_t)runs->n, sizeof *by, compare_model);
    for (int i = 0; rc == 0 && i < runs->n; i++) {
        if (n && !strcmp(by[sp[n - 1].start]->model, by[i]->model)) {
            sp[n - 1].end = i + 1;
            continue;
        }
        char file[PATH_MAX];
        struct stat s;
        sm_status ignored;
        spelling *p = &sp[n++];
        *p = (spelling){.line = by[i]->line, .start = i, .end = i + 1};
        p->found = !sm_network_find(by[i]->model, file, sizeof file, &ignored) && !lstat(file, &s);
        if (p->found)
            p->dev = s.st_dev, p->ino = s.st_ino;
    }
    if (rc == 0)
        qsort(sp, (size_t)n, sizeof *sp, compare_file);
    for (int k = 1, canon = 0; rc == 0 && k < n && sp[k].found; k++) {
        if (sp[k].dev != sp[canon].dev || sp[k].ino != sp[canon].ino) {
            canon = k;
            continue;
        }
        const char *name = by[sp[canon].start]->model;
        for (int j = sp[k].start; rc == 0 && j < sp[k].end; j++) {
            char *m = strdup(name);
            if (!m)
                rc = sm_fail(st, "%s:%d: out of memory", runs->path, by[j]->line);
            else
                free(by[j]->model), by[j]->model = m;
        }
    }
    free(by);
    free(sp);
    return rc;
}

int sm_runs_read(const char *path, sm_runs **out, sm_status *st)
{
    if (!path || !out)
        return sm_null_arg(st, __func__, !path ? "path" : "out");
    int from_stdin = !strcmp(path, "-");
    *out = NULL;
    FILE *f = sm_input_open(&path);
    if (!f)
        return sm_fail(st, "%s: %s", path, strerror(errno));
    sm_runs *runs = calloc(1, sizeof *runs);
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = -1, col_of[N_ALL_COLS], n_fields = 0, have_header = 0, room = 0;
    int header_line = 0, first_skipped = 0;
    char skipped[SKIPPED_STATUS] = "", first_status[SKIPPED_STATUS] = "";
    if (!runs || !(runs->path = strdup(path))) {
        sm_fail(st, "%s: out of memory", path);
        goto done;
    }
    for (;;) {
        int first = lineno + 1, read = read_record(f, &line, &cap, &lineno);
        if (read == -1)
            break;
        if (read == -4 || read == -5) {
            sm_fail(st, "%s:%d: %s", path, lineno, read == -4 ? SM_NUL_BYTE : SM_LINE_TOO_LONG);
            goto done;
        }
        if (read == -2 || read == -3) {
            sm_fail(st,
                    read == -2 ? "%s:%d: unterminated quote: the file ends inside a quoted "
                                 "field"
                               : "%s:%d: out of memory",
                    path, first);
            goto done;
        }
        /* a byte-order mark; on a later line, a file joined with cat whose header must still be
         * found repeated (read as a row, its columns mapped the first file's way) */
        if ((unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
            (unsigned char)line[2] == 0xBF)
            memmove(line, line + 3, strlen(line + 3) + 1);
        if (sm_refuse_cr_line_ends(line, 1, path, first, "unix.csv", st))
            goto done;
        if (is_blank(line))
            continue;
        if (!have_header) {
            if (parse_header(path, first, line, col_of, &n_fields, st))
                goto done;
            have_header = 1;
            header_line = first;
            continue;
        }
        if (runs->n == room) {
            room = room ? 2 * room : 64;
            sm_run *rows = realloc(runs->rows, (size_t)room * sizeof *rows);
            if (!rows) {
                sm_fail(st, "%s:%d: out of memory", path, lineno);
                goto done;
            }
            runs->rows = rows;
        }
        int parsed = parse_row(path, first, header_line, line, col_of, n_fields,
                               &runs->rows[runs->n], &runs->energy_zero, skipped, st);
        if (parsed < 0)
            goto done;
        if (parsed == 0) {
            runs->n++;
        } else if (!runs->not_measured++) {
            first_skipped = first;
            memcpy(first_status, skipped, sizeof first_status);
        }
    }
    if (ferror(f))
        sm_fail(st, "%s: read error after line %d", path, lineno);
    else if (!have_header)
        sm_fail(st, "%s: empty file: no header", path);
    else if (runs->n == 0 && runs->not_measured)
        /* "a header but no measurements" of 117 rows said status OK, not ok */
        sm_fail(st,
                "%s: no measurement: none of its %d rows was measured (line %d: %s; a row is "
                "measured where its status is ok or empty and its fits is not false)",
                path, runs->not_measured, first_skipped, first_status);
    else if (runs->n == 0)
        sm_fail(st, "%s: a header but no measurements", path);
    else
        rc = from_stdin ? 0 : resolve_models(runs, path, st);
    if (rc == 0 && runs->n)
        rc = unify_models(runs, st);
    if (rc == 0) {
        find_repeats(runs);
        common_device(runs);
    }
done:
    free(line);
    sm_input_close(f);
    if (rc)
        sm_runs_free(runs);
    else
        *out = runs;
    return rc;
}

int sm_runs_select_precision(sm_runs *runs, const char *precision, sm_status *st)
{
    if (!runs)
        return sm_null_arg(st, __func__, "runs");
    if (!precision) {
        for (int i = 1; i < runs->n; i++)
            if (strcmp(runs->rows[i].precision, runs->rows[0].precision) != 0)
                return sm_fail(st,
                               "%s: rows of %s (line %d) and %s (line %d): a calibration is of "
                               "one precision; choose one with --precision",
                               runs->path, runs->rows[0].precision, runs->rows[0].line,
                               runs->rows[i].precision, runs->rows[i].line);
        return 0;
    }
    int kept = 0;
    for (int i = 0; i < runs->n; i++) {
        if (strcmp(runs->rows[i].precision, precision) == 0)
            runs->rows[kept++] = runs->rows[i];
        else
            free(runs->rows[i].model);
    }
    int had = runs->n;
    runs->n = kept;
    if (kept == 0)
        return sm_fail(st, "%s: none of its %d rows is of precision %s", runs->path, had,
                       precision);
    return 0;
}

void sm_runs_free(sm_runs *runs)
{
    if (!runs)
        return;
    for (int i = 0; i < runs->n; i++)
        free(runs->rows[i].model);
    free(runs->rows);
    free(runs->path);
    free(runs);
}

/* What a step of several devices spends beyond its passes: step - passes, NAN unless positive;
 * the phase as measured where the step is not (the step is then the sum of the phases). */
static double beyond(double step, double passes, double measured)
{
    if (isnan(step) || isnan(measured))
        return isnan(step) ? measured : NAN;
    double t = step - passes;
    return t > 0 ? t : NAN;
}

double sm_run_target(const sm_run *r, sm_phase ph)
{
    int several = r->nodes * r->gpus_per_node > 1;
    switch (ph) {
    case SM_PHASE_INFER:
        return r->t_infer;
    case SM_PHASE_FWD:
        return r->t_fwd;
    case SM_PHASE_BWD:
        return r->t_bwd;
    case SM_PHASE_GRAD:
        return several ? beyond(r->t_step, r->t_fwd + r->t_bwd, r->t_grad) : r->t_grad;
    case SM_PHASE_BWD_GRAD: /* NAN unless both are measured */
        return several ? beyond(r->t_step, r->t_fwd, r->t_bwd + r->t_grad) : r->t_bwd + r->t_grad;
    case SM_PHASE_STEP:
        return isnan(r->t_step) ? r->t_fwd + r->t_bwd + r->t_grad : r->t_step;
    default:
        return NAN;
    }
}

int sm_runs_models(const sm_runs *runs)
{
    if (!runs)
        return -1;
    const char **seen = malloc((size_t)(runs->n > 0 ? runs->n : 1) * sizeof *seen);
    if (!seen)
        return -1;
    int n = 0;
    for (int i = 0; i < runs->n; i++) {
        int k = 0;
        while (k < n && strcmp(seen[k], runs->rows[i].model) != 0)
            k++;
        if (k == n)
            seen[n++] = runs->rows[i].model;
    }
    free(seen);
    return n;
}

/* FNV-1a of a row's network (model, image): the model's bytes, then one more step with the
 * whole image size in place of a byte. */
static size_t network_hash(const sm_run *r)
{
    uint64_t h = sm_fnv1a_str(SM_FNV1A_OFFSET, r->model);
    return (size_t)((h ^ (uint64_t)r->image) * SM_FNV1A_PRIME);
}

/* One network load per (model, image): zoo networks take milliseconds each to build, but a
 * dataset has hundreds of rows. The network's first row is found in a hash table: searching the
 * rows before each one was quadratic (an hour on 10^6 rows grouped by model). */
int sm_runs_metrics(sm_runs *runs, const sm_registry *reg, sm_status *st)
{
    if (!runs || !reg)
        return sm_null_arg(st, __func__, !runs ? "runs" : "reg");
    size_t cap = 16; /* a power of two, at least twice the rows: short probes */
    while (cap < 2 * (size_t)runs->n)
        cap *= 2;
    int *first = malloc(cap * sizeof *first); /* rows that load a network; -1: empty */
    if (!first)
        return sm_fail(st, "%s: out of memory", runs->path);
    for (size_t h = 0; h < cap; h++)
        first[h] = -1;
    int rc = 0;
    for (int i = 0; i < runs->n; i++) {
        sm_run *r = &runs->rows[i];
        size_t h = network_hash(r) & (cap - 1);
        for (; first[h] >= 0; h = (h + 1) & (cap - 1)) {
            const sm_run *f = &runs->rows[first[h]];
            if (f->image == r->image && strcmp(f->model, r->model) == 0)
                break;
        }
        if (first[h] >= 0) {
            r->m = runs->rows[first[h]].m;
            r->family_bit = runs->rows[first[h]].family_bit;
            r->image_run = runs->rows[first[h]].image_run;
            continue;
        }
        first[h] = i;
        sm_network *net;
        sm_network_options opt = {.image = r->image};
        sm_status inner;
        if (sm_network_load(reg, r->model, &opt, &net, &inner)) {
            rc = sm_fail(st, "%s:%d: model %s at image %lld: %s", runs->path, r->line, r->model,
                         (long long)r->image, inner.msg);
            break;
        }
        rc = sm_network_metrics(net, 1, &r->m, &inner);
        r->family_bit = 1u << sm_network_family(net);
        r->image_run = sm_network_image(net);
        sm_network_free(net);
        if (rc) {
            rc = sm_fail(st, "%s:%d: %s", runs->path, r->line, inner.msg);
            break;
        }
    }
    free(first);
    /* with every row's size known, an empty image and the same size written out are one
     * configuration */
    if (rc == 0) {
        runs->repeated = runs->repeated_line = runs->repeated_of = 0;
        find_repeats(runs);
    }
    return rc;
}
