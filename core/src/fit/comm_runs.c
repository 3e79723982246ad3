/* Reading all-reduce timings for `fit-comm`: nccl-tests' all_reduce_perf output as it prints
 * it, and the CSV of `scalemeter allreduce`. Every sample keeps its file and line, so that an
 * error or a poor fit can be traced to the row. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "network/network_internal.h"
#include "scalemeter/comm.h"
#include "scalemeter/fit.h"
#include "util/fnv.h"

#define MAX_TOKENS 32
#define MAX_HOSTS 4096

static int add_sample(sm_comm_runs *r, const sm_comm_sample *s, sm_status *st)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        sm_comm_sample *grown = realloc(r->samples, (size_t)cap * sizeof *grown);
        if (!grown)
            return sm_fail(st, "out of memory");
        r->samples = grown, r->cap = cap;
    }
    r->samples[r->n++] = *s;
    return 0;
}

/* Words separated by runs of blanks (nccl-tests' aligned columns). */
static int split_words(char *line, char **tok)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t && n < MAX_TOKENS;
         t = strtok_r(NULL, " \t\r\n", &save))
        tok[n++] = t;
    return n;
}

/* Comma-separated fields, empty ones kept: strtok would merge ",," and shift the columns. -1
 * for more than MAX_TOKENS (the last one taken held the rest, commas and all, and a row of a
 * field too many counted as its header). */
static int split_csv(char *line, char **tok)
{
    line[strcspn(line, "\r\n")] = '\0';
    if (!*line)
        return 0;
    int n = 0;
    for (char *p = line;;) {
        if (n == MAX_TOKENS)
            return -1;
        tok[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

static int parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = sm_strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Plain decimal digits only: strtol would also take " 12" and "+12", and read "0x100000" as 0. */
static int parse_int(const char *text, long *out)
{
    if (!isdigit((unsigned char)text[0]))
        return -1;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* The lines of a file, its first ones handed out again once the format is told from them (the
 * standard input cannot be read twice). */
typedef struct line_source {
    FILE *f;
    const char *path;
    char **held; /* lines read to tell the format, handed out first */
    int n_held, next_held;
    size_t held_bytes;
    int read_any; /* a line has come from f: the next is not the file's first */
} line_source;

/* The length of the label a launcher puts before each line of a rank's output, or 0: Slurm's
 * `srun --label` ("0: ", padded to the widest task number) and Open MPI's `mpirun
 * --tag-output` ("[1,0]<stdout>:"). nccl-tests' lines, rows and the CSV's begin otherwise. */
static size_t launcher_label(const char *s)
{
    const char *p = s + strspn(s, " ");
    size_t digits = strspn(p, "0123456789");
    if (digits && p[digits] == ':')
        p += digits + 1;
    else if (*p == '[' && (digits = strspn(p + 1, "0123456789")) && p[1 + digits] == ',') {
        p += 2 + digits;
        p += digits = strspn(p, "0123456789");
        if (!digits || (strncmp(p, "]<stdout>:", 10) && strncmp(p, "]<stderr>:", 10)))
            return 0;
        p += 10;
    } else
        return 0;
    return (size_t)(p + (*p == ' ') - s);
}

/* The next line into *line: 1; 0 at the end of the file; -1 with a message naming
 * path:lineno for a line too long, no memory, or a NUL byte (its C string would end early). */
static int next_line(line_source *src, char **line, size_t *cap, int *lineno, sm_status *st)
{
    if (src->next_held < src->n_held) {
        const char *held = src->held[src->next_held++];
        size_t len = strlen(held);
        if (len + 1 > *cap) {
            char *grown = realloc(*line, len + 1);
            if (!grown)
                return sm_fail(st, "out of memory");
            *line = grown;
            *cap = len + 1;
        }
        memcpy(*line, held, len + 1);
        ++*lineno;
        return 1;
    }
    long len = sm_read_line(src->f, line, cap);
    if (len == -1)
        return 0;
    ++*lineno;
    if (len < 0)
        return sm_fail(st, "%s:%d: %s", src->path, *lineno,
                       len == -2 ? SM_LINE_TOO_LONG : "out of memory");
    if (memchr(*line, '\0', (size_t)len))
        return sm_fail(st, "%s:%d: " SM_NUL_BYTE, src->path, *lineno);
    /* a UTF-8 byte-order mark (a spreadsheet's "CSV UTF-8"), read past as fit's runs CSV
     * reader does: before the header it made "not a format fit-comm reads" */
    if (!src->read_any++ && len >= 3 && !memcmp(*line, "\xEF\xBB\xBF", 3))
        memmove(*line, *line + 3, (size_t)(len -= 3) + 1);
    /* a log captured through `srun --label` or `mpirun --tag-output` was refused as "not a
     * format fit-comm reads": the label is read past, the line keeps its number */
    size_t label = launcher_label(*line);
    if (label)
        memmove(*line, *line + label, (size_t)len - label + 1);
    return 1;
}

static void source_free(line_source *src)
{
    for (int i = 0; i < src->n_held; i++)
        free(src->held[i]);
    free(src->held);
    src->held = NULL;
    src->n_held = src->next_held = 0;
}

/* ranks / nodes devices per node, or an error naming the file. A file that names more than
 * one host tells its node count, and FILE@NODES may not contradict it; one host may be several
 * nodes whose hosts share a name (containers), which only FILE@NODES can say. */
static int layout(const char *path, int ranks, int hosts, int nodes, int *n, int *g, sm_status *st)
{
    if (nodes > 0 && hosts > 1 && nodes != hosts)
        return sm_fail(st,
                       "%s: the file's ranks sit on %d nodes, and @%d says %d; give @NODES only "
                       "where the file does not tell it",
                       path, hosts, nodes, nodes);
    *n = nodes > 0 ? nodes : hosts;
    if (*n < 1 || ranks < *n || ranks % *n)
        return sm_fail(st,
                       "%s: %d ranks cannot sit on %d node%s evenly; give the node count as "
                       "%s@NODES",
                       path, ranks, *n, *n == 1 ? "" : "s", path);
    *g = ranks / *n;
    return 0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* One nccl-tests run of a log: its ranks, their hosts and its first sample. Several runs
 * appended to one file are read each with its own ranks. */
typedef struct nccl_run {
    char *hosts[MAX_HOSTS];
    /* hosts[] by hash, open addressing: a slot holds an index + 1, 0 when free (a rank's host
     * looked up among all before it cost ranks x hosts: 10^6 ranks on 3,907 hosts, 6.5 s) */
    short host_slot[2 * MAX_HOSTS];
    int host_ranks[MAX_HOSTS]; /* the ranks of each host */
    int n_hosts, ranks, first, line, room;
    long *ids; /* the ranks' numbers, as the '# Rank N' lines give them */
} nccl_run;

/* The slot of host name: where it is, or the free one where it goes. */
static short *host_slot(nccl_run *run, const char *name)
{
    size_t h = (size_t)sm_fnv1a_str(SM_FNV1A_OFFSET, name);
    for (size_t i = h % (2 * MAX_HOSTS);; i = (i + 1) % (2 * MAX_HOSTS))
        if (!run->host_slot[i] || !strcmp(run->hosts[run->host_slot[i] - 1], name))
            return &run->host_slot[i];
}

static void run_reset(nccl_run *run, int first, int line)
{
    for (int h = 0; h < run->n_hosts; h++)
        free(run->hosts[h]);
    free(run->ids);
    run->ids = NULL;
    memset(run->host_slot, 0, sizeof run->host_slot);
    run->n_hosts = run->ranks = run->room = 0;
    run->first = first;
    run->line = line;
}

/* Gives the samples of the run its layout; a run without samples (one that stopped before its
 * first size) adds nothing. */
static int run_finish(sm_comm_runs *r, nccl_run *run, const char *path, int nodes, sm_status *st)
{
    if (r->n == run->first)
        return 0;
    if (run->ranks == 0)
        return sm_fail(st,
                       "%s:%d: no '# Rank N ... on HOST' lines, so the ranks are unknown; "
                       "keep nccl-tests' whole output, header included",
                       path, run->line);
    /* ranks 0 to N-1 once each: a line twice, or two runs' headers with one banner, would make
     * more ranks than ran */
    qsort(run->ids, (size_t)run->ranks, sizeof *run->ids, cmp_long);
    for (int i = 0; i < run->ranks; i++)
        if (run->ids[i] != i)
            return sm_fail(st,
                           "%s:%d: the '# Rank N' lines of this run are not ranks 0 to %d once "
                           "each (rank %ld %s)",
                           path, run->line, run->ranks - 1, i < run->ids[i] ? (long)i : run->ids[i],
                           i < run->ids[i] ? "missing" : "given twice");
    int n = 0, g = 0;
    if (layout(path, run->ranks, run->n_hosts, nodes, &n, &g, st))
        return -1;
    /* the hosts tell the node count, and each must hold a node's devices: 7 ranks on one host
     * and 1 on another are no 2 nodes of 4 */
    for (int h = 0; run->n_hosts > 1 && h < run->n_hosts; h++)
        if (run->host_ranks[h] != g)
            return sm_fail(st,
                           "%s:%d: the run's %d ranks sit unevenly on its %d hosts (%d on %s, "
                           "not %d); fit-comm fits nodes of equal device counts",
                           path, run->line, run->ranks, run->n_hosts, run->host_ranks[h],
                           run->hosts[h], g);
    for (int i = run->first; i < r->n; i++)
        r->samples[i].nodes = n, r->samples[i].gpus_per_node = g;
    return 0;
}

/* The first line nccl-tests prints for a run ("# nThread 1 nGpus 1 minBytes ...", newer
 * versions "# Collective test starting: all_reduce_perf" before it). */
static int starts_run(char **tok, int nt)
{
    int k = strcmp(tok[0], "#") ? 0 : 1;
    return nt > k && (!strcmp(tok[k], "nThread") ||
                      (nt > k + 1 && !strcmp(tok[k], "Collective") && !strcmp(tok[k + 1], "test")));
}

/* nccl-tests' reduction names: with them a row is a data row whatever its size looks like. */
static int is_redop(const char *w)
{
    static const char *const ops[] = {"sum", "prod", "max", "min", "avg", "mulsum"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(w, ops[i]))
            return 1;
    return 0;
}

/* A collective's name (len characters of it): 0 for all_reduce, 1 for all_gather or
 * reduce_scatter (half an all-reduce's ring traffic and steps), -1 for another. */
static int half_of(const char *name, size_t len)
{
    static const char *const names[] = {"all_reduce", "all_gather", "reduce_scatter"};
    for (int i = 0; i < 3; i++)
        if (strlen(names[i]) == len && !strncmp(name, names[i], len))
            return i > 0;
    return -1;
}

/* nccl-tests' "# Collective test starting: NAME_perf" line (from version 2.17): half_of NAME,
 * -1 with a message for another collective, 2 for a line that is not this one. */
static int collective_line(char **tok, int nt, int k, const char *path, int lineno, sm_status *st)
{
    if (nt < k + 4 || strcmp(tok[k], "Collective") || strcmp(tok[k + 1], "test") ||
        strcmp(tok[k + 2], "starting:"))
        return 2;
    const char *name = tok[k + 3];
    size_t len = strlen(name);
    int half = len > 5 && !strcmp(name + len - 5, "_perf") ? half_of(name, len - 5) : -1;
    if (half >= 0)
        return half;
    return sm_fail(st,
                   "%s:%d: a run of %s; fit-comm reads all_reduce_perf, all_gather_perf and "
                   "reduce_scatter_perf",
                   path, lineno, name);
}

/* A #wrong column: 0, or N/A where nccl-tests ran without checking (-c 0). Versions before
 * #wrong print an error column, the largest deviation found ("0e+00", "2e-07"), a '*' after it
 * where that is beyond the type's tolerance (the earliest only say so in their "Out of bounds
 * values" line). */
static int wrong_ok(const char *w, int error_column)
{
    double delta;
    if (error_column)
        return !strcmp(w, "N/A") || (!parse_double(w, &delta) && delta >= 0);
    return !strcmp(w, "0") || !strcmp(w, "N/A");
}

/* The bytes of one element of an nccl-tests type name (its test_typenames), 0 for a name it
 * does not print. */
static long type_bytes(const char *name)
{
    static const struct {
        const char *name;
        long bytes;
    } types[] = {{"int8", 1},   {"uint8", 1},    {"int32", 4},  {"uint32", 4},
                 {"int64", 8},  {"uint64", 8},   {"half", 2},   {"float", 4},
                 {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (!strcmp(name, types[i].name))
            return types[i].bytes;
    return 0;
}

/* nccl-tests' closing "# Out of bounds values : N OK" (or FAILED) line: 1 for FAILED. */
static int out_of_bounds(char **tok, int nt, int k)
{
    return nt >= k + 6 && !strcmp(tok[k], "Out") && !strcmp(tok[k + 1], "of") &&
           !strcmp(tok[k + 2], "bounds") && !strcmp(tok[nt - 1], "FAILED");
}

/* nccl-tests: "#  Rank  0 Group  0 Pid 123 on host1 device  0 [0x18] NVIDIA H100 ..." names
 * each rank's host; a data row is "size count type redop [root] time algbw busbw #wrong ...",
 * times in microseconds, the out-of-place ones first. */
static int read_nccl_tests(sm_comm_runs *r, line_source *src, int nodes, int source, sm_status *st)
{
    const char *path = src->path;
    char *line = NULL;
    size_t cap = 0;
    int has_root = 1, error_column = 0, lineno = 0, rc = 0, first = r->n, half = 0;
    nccl_run run = {.first = r->n, .line = 1};
    int more = 0;
    while (!rc && (more = next_line(src, &line, &cap, &lineno, st)) > 0) {
        char *tok[MAX_TOKENS];
        int nt = split_words(line, tok);
        if (nt == 0)
            continue;
        if (tok[0][0] == '#') {
            /* "#" may stand alone or start the first word ("#wrong") */
            int k = strcmp(tok[0], "#") ? 0 : 1, op = collective_line(tok, nt, k, path, lineno, st);
            if (op < 0) {
                rc = -1;
                break;
            }
            if (op < 2) {
                half = op;
            } else if (out_of_bounds(tok, nt, k)) {
                rc = sm_fail(st,
                             "%s:%d: nccl-tests found %s values out of bounds (FAILED); the "
                             "timings of a failing run are not fitted",
                             path, lineno, tok[nt - 2]);
                break;
            } else if (starts_run(tok, nt) && (run.ranks || r->n > run.first)) {
                if ((rc = run_finish(r, &run, path, nodes, st)))
                    break;
                run_reset(&run, r->n, lineno);
            } else if (nt > k + 1 && !strcmp(tok[k], "Rank")) {
                long id;
                if (run.ranks == run.room) { /* doubled: one more a line copied them all */
                    int room = !run.room ? 64 : run.room > INT_MAX / 2 ? INT_MAX : 2 * run.room;
                    long *grown = realloc(run.ids, (size_t)room * sizeof *grown);
                    if (!grown) {
                        rc = sm_fail(st, "out of memory");
                        break;
                    }
                    run.ids = grown, run.room = room;
                }
                if (parse_int(tok[k + 1], &id) || run.ranks == INT_MAX - 1) {
                    rc = sm_fail(st, "%s:%d: expected '# Rank N ...' with N in decimal digits",
                                 path, lineno);
                    break;
                }
                run.ids[run.ranks++] = id;
                for (int i = k + 2; i + 1 < nt; i++)
                    if (!strcmp(tok[i], "on")) {
                        short *slot = host_slot(&run, tok[i + 1]);
                        if (!*slot && run.n_hosts == MAX_HOSTS)
                            rc = sm_fail(st,
                                         "%s:%d: a run on more than %d hosts (the nodes it "
                                         "counts would be wrong); split the file or fit fewer "
                                         "nodes",
                                         path, lineno, MAX_HOSTS);
                        else if (!*slot) {
                            if (!(run.hosts[run.n_hosts] = strdup(tok[i + 1])))
                                rc = sm_fail(st, "out of memory");
                            else
                                run.host_ranks[run.n_hosts] = 0, *slot = (short)++run.n_hosts;
                        }
                        if (*slot)
                            run.host_ranks[*slot - 1]++;
                        break;
                    }
            } else {
                /* the column header says whether this version prints a root column */
                int redop = 0, root = 0, error = 0;
                for (int i = 0; i < nt; i++)
                    redop |= !strcmp(tok[i], "redop"), root |= !strcmp(tok[i], "root"),
                        error |= !strcmp(tok[i], "error");
                if (redop)
                    has_root = root, error_column = error;
            }
            continue;
        }
        long size, count;
        int numbers = nt >= 2 && !parse_int(tok[0], &size) && !parse_int(tok[1], &count);
        if (!numbers && !(nt > 3 && is_redop(tok[3])))
            continue; /* not a data row: NCCL's INFO/WARN lines, a banner */
        long elem = nt > 2 ? type_bytes(tok[2]) : 0; /* a row of two numbers has no type */
        int gathers = half || (nt > 3 && !strcmp(tok[3], "none"));
        /* all_gather_perf and reduce_scatter_perf give each rank size / ranks bytes, rounded
         * down: below one element a rank, they print "0 0" rows, timing nothing to fit */
        if (numbers && gathers && size == 0 && count == 0)
            continue;
        int t = has_root ? 5 : 4;
        double us, algbw, busbw;
        /* every version prints time, algbw, busbw and #wrong out of place and in place: a row
         * cut short (a log truncated mid-number) would fit a wrong time */
        if (!numbers || nt < t + 8 || parse_double(tok[t], &us) ||
            parse_double(tok[t + 1], &algbw) || parse_double(tok[t + 2], &busbw) || size <= 0 ||
            us <= 0) {
            rc = sm_fail(st,
                         "%s:%d: expected 'size count type redop%s' and time, algbw, busbw and "
                         "#wrong out of place and in place, with a size and count in decimal "
                         "digits and a positive time (us)",
                         path, lineno, has_root ? " root" : "");
            break;
        }
        /* reduce_perf and broadcast_perf print the root they timed, the others -1: before
         * "Collective test starting" lines a reduce's rows read as an all-reduce's */
        if (has_root && strcmp(tok[4], "-1")) {
            rc = sm_fail(st,
                         "%s:%d: a row of root %s, a rooted collective (reduce_perf, "
                         "broadcast_perf); fit-comm reads all_reduce_perf, all_gather_perf and "
                         "reduce_scatter_perf, whose root is -1",
                         path, lineno, tok[4]);
            break;
        }
        /* an all-reduce's row is count elements of its type, size bytes: a row whose two
         * disagree (262143 floats in 1048576 bytes, a double with a float's count) was edited
         * or cut, and which of the two was timed cannot be told. all_gather_perf and
         * reduce_scatter_perf print a rank's part of the count: size is count elements times
         * the ranks its "# Rank" lines list. */
        long parts = gathers ? run.ranks : 1;
        if (elem && parts > 0 &&
            (count > LONG_MAX / elem / parts || count * elem * parts != size)) {
            if (gathers)
                rc = sm_fail(st,
                             "%s:%d: %ld bytes are not the row's count of %ld %s elements (%ld "
                             "bytes each) on each of its %ld ranks; keep nccl-tests' rows as "
                             "it printed them",
                             path, lineno, size, count, tok[2], elem, parts);
            else
                rc = sm_fail(st,
                             "%s:%d: %ld bytes are not the row's count of %ld %s elements (%ld "
                             "bytes each); keep nccl-tests' rows as it printed them",
                             path, lineno, size, count, tok[2], elem);
            break;
        }
        /* one collective, as the runs CSV's one pass: 1e308 us would be fitted as data */
        if (us > SM_MAX_RUN_SECONDS * 1e6) {
            rc = sm_fail(st, "%s:%d: a time of %s us is above %g s (11.6 days): not one collective",
                         path, lineno, tok[t], SM_MAX_RUN_SECONDS);
            break;
        }
        if (us < SM_MIN_RUN_SECONDS * 1e6) {
            rc = sm_fail(st,
                         "%s:%d: a time of %s us is below %g s (a nanosecond): not one "
                         "collective",
                         path, lineno, tok[t], SM_MIN_RUN_SECONDS);
            break;
        }
        /* a run that summed wrongly timed something else than the all-reduce asked for */
        for (int w = t + 3; w < nt && w <= t + 7; w += 4)
            if (!wrong_ok(tok[w], error_column)) {
                rc = sm_fail(st,
                             error_column
                                 ? "%s:%d: nccl-tests found an error of %s (error) at %ld "
                                   "bytes; the timings of a failing run are not fitted"
                                 : "%s:%d: nccl-tests counted %s wrong values (#wrong) at %ld "
                                   "bytes; the timings of a failing run are not fitted",
                             path, lineno, tok[w], size);
                break;
            }
        if (rc)
            break;
        /* all_gather_perf's rows have no reduction: "none" (older versions print no
         * "Collective test starting" line) */
        sm_comm_sample s = {(double)size,
                            us * 1e-6,
                            0,
                            0,
                            source,
                            lineno,
                            half || (nt > 3 && !strcmp(tok[3], "none"))};
        rc = add_sample(r, &s, st);
    }
    free(line);
    if (more < 0) /* a line refused: its message is in st */
        rc = -1;
    if (!rc)
        rc = run_finish(r, &run, path, nodes, st);
    run_reset(&run, 0, 0);
    if (!rc && r->n == first)
        rc = sm_fail(st,
                     "%s: no data rows (nccl-tests all_reduce_perf output or a "
                     "`scalemeter allreduce --format csv` file expected)",
                     path);
    return rc;
}

/* The op column of `scalemeter allreduce --device --format csv`: half_of it, -1 with a message
 * for another collective. */
static int csv_op(const char *op, const char *path, int lineno, sm_status *st)
{
    int half = half_of(op, strlen(op));
    if (half >= 0)
        return half;
    return sm_fail(st, "%s:%d: op '%s'; fit-comm reads all_reduce, all_gather and reduce_scatter",
                   path, lineno, op);
}

/* `scalemeter allreduce --format csv`: bytes,impl,ranks[,nodes],time_s,...[,op] (no op:
 * all-reduces) */
static int read_allreduce_csv(sm_comm_runs *r, line_source *src, int nodes, const char *impl,
                              int source, sm_status *st)
{
    const char *path = src->path;
    char *line = NULL;
    size_t cap = 0;
    int col_bytes = -1, col_impl = -1, col_ranks = -1, col_nodes = -1, col_time = -1, col_op = -1;
    int lineno = 0, rc = 0, first = r->n, header = 0;
    int one_rank_line = 0; /* the first row of one rank, which has nothing to fit */
    char seen_impl[64] = "";
    int more = 0;
    while (!rc && (more = next_line(src, &line, &cap, &lineno, st)) > 0) {
        char *tok[MAX_TOKENS];
        const char *text = line + strspn(line, " \t\r\n");
        if (!*text || *text == '#')
            continue; /* blank, or a comment (before the header, most likely) */
        int nt = split_csv(line, tok);
        if (nt < 0) {
            rc = sm_fail(st, "%s:%d: more than %d fields, the most this CSV takes", path, lineno,
                         MAX_TOKENS);
            break;
        }
        if (!header) {
            header = nt;
            for (int i = 0; i < nt; i++) {
                col_bytes = !strcmp(tok[i], "bytes") ? i : col_bytes;
                col_impl = !strcmp(tok[i], "impl") ? i : col_impl;
                col_ranks = !strcmp(tok[i], "ranks") ? i : col_ranks;
                col_nodes = !strcmp(tok[i], "nodes") ? i : col_nodes;
                col_time = !strcmp(tok[i], "time_s") ? i : col_time;
                col_op = !strcmp(tok[i], "op") ? i : col_op;
            }
            if (col_bytes < 0 || col_ranks < 0 || col_time < 0)
                rc = sm_fail(st, "%s:%d: expected the columns bytes, ranks and time_s", path,
                             lineno);
            continue;
        }
        /* the header again: two files joined with cat ("expected positive bytes, ..." said
         * nothing of it) */
        if (col_bytes < nt && !strcmp(tok[col_bytes], "bytes")) {
            rc = sm_fail(st,
                         "%s:%d: the header again (files joined?): the first one stands for "
                         "the whole file; delete this one, or give the files apart",
                         path, lineno);
            break;
        }
        /* a row cut short (a file truncated mid-number) or one with a field too many */
        if (nt != header) {
            rc = sm_fail(st, "%s:%d: %d fields where the header has %d", path, lineno, nt, header);
            break;
        }
        int need = col_bytes > col_ranks ? col_bytes : col_ranks;
        need = col_time > need ? col_time : need;
        need = col_impl > need ? col_impl : need;
        need = col_nodes > need ? col_nodes : need;
        need = col_op > need ? col_op : need;
        long bytes, ranks, file_nodes = 1;
        double t;
        const int cols[] = {col_bytes, col_ranks, col_time, col_nodes, col_impl, col_op};
        const char *names[] = {"bytes", "ranks", "time_s", "nodes", "impl", "op"};
        int empty = -1;
        for (int i = 0; i < 6 && nt > need && empty < 0; i++)
            empty = cols[i] >= 0 && !*tok[cols[i]] ? i : -1;
        if (empty >= 0) {
            rc = sm_fail(st, "%s:%d: the %s field is empty", path, lineno, names[empty]);
            break;
        }
        /* one rank all-reduces nothing: `scalemeter allreduce` on one rank times no
         * communication, where the clock may not move (time_s 0); such a row adds nothing to
         * the fit, and a file of them alone is said so below */
        if (nt > need && !parse_int(tok[col_bytes], &bytes) && bytes > 0 &&
            !parse_int(tok[col_ranks], &ranks) && ranks == 1 && !parse_double(tok[col_time], &t) &&
            t >= 0 && t <= SM_MAX_RUN_SECONDS) {
            if (!one_rank_line)
                one_rank_line = lineno;
            continue;
        }
        if (nt <= need || parse_int(tok[col_bytes], &bytes) || parse_int(tok[col_ranks], &ranks) ||
            parse_double(tok[col_time], &t) ||
            (col_nodes >= 0 && parse_int(tok[col_nodes], &file_nodes)) || bytes <= 0 || ranks < 1 ||
            ranks > 1 << 24 || t <= 0 || file_nodes < 1 || file_nodes > 1 << 24) {
            rc = sm_fail(st, "%s:%d: expected positive bytes, ranks%s and time_s", path, lineno,
                         col_nodes >= 0 ? ", nodes" : "");
            break;
        }
        if (t > SM_MAX_RUN_SECONDS) {
            rc = sm_fail(st, "%s:%d: time_s %s is above %g s (11.6 days): not one collective", path,
                         lineno, tok[col_time], SM_MAX_RUN_SECONDS);
            break;
        }
        if (t < SM_MIN_RUN_SECONDS) {
            rc = sm_fail(st, "%s:%d: time_s %s is below %g s (a nanosecond): not one collective",
                         path, lineno, tok[col_time], SM_MIN_RUN_SECONDS);
            break;
        }
        if (col_impl >= 0) {
            if (impl && strcmp(tok[col_impl], impl))
                continue;
            if (!impl && seen_impl[0] && strcmp(seen_impl, tok[col_impl])) {
                rc = sm_fail(st, "%s:%d: rows of both '%s' and '%s': choose one with --impl", path,
                             lineno, seen_impl, tok[col_impl]);
                break;
            }
            snprintf(seen_impl, sizeof seen_impl, "%s", tok[col_impl]);
        }
        int half = col_op >= 0 ? csv_op(tok[col_op], path, lineno, st) : 0;
        if (half < 0) {
            rc = -1;
            break;
        }
        /* `scalemeter allreduce` counts its nodes by shared memory (MPI_COMM_TYPE_SHARED),
         * which hosts of one name do not fool: @NODES against its column turned one node's
         * links into the network's, and --device-out wrote them */
        if (col_nodes >= 0 && nodes > 0 && nodes != file_nodes) {
            rc = sm_fail(st,
                         "%s:%d: the file's ranks sit on %ld node%s (its nodes column), and "
                         "@%d says %d; give @NODES only where the file does not tell it",
                         path, lineno, file_nodes, file_nodes == 1 ? "" : "s", nodes, nodes);
            break;
        }
        int n = 0, g = 0;
        if ((rc = layout(path, (int)ranks, (int)file_nodes, nodes, &n, &g, st)))
            break;
        sm_comm_sample s = {(double)bytes, t, n, g, source, lineno, half};
        rc = add_sample(r, &s, st);
    }
    free(line);
    if (more < 0) /* a line refused: its message is in st */
        rc = -1;
    if (!rc && r->n == first && one_rank_line)
        rc = sm_fail(st,
                     "%s:%d: every row is of one rank (ranks = 1), and one rank has no all-reduce "
                     "to fit; give runs over several ranks: one node's devices, and across "
                     "nodes (scalemeter allreduce under mpirun -np N, or nccl-tests' output)",
                     path, one_rank_line);
    if (!rc && r->n == first)
        rc = sm_fail(st, "%s: no rows%s%s", path, impl ? " of --impl " : "", impl ? impl : "");
    return rc;
}

enum { FORMAT_NCCL_TESTS, FORMAT_CSV };

#define MAX_HELD_LINES 100000
#define MAX_HELD_BYTES (16 << 20)

/* What one line says of the format: FORMAT_*, or -1 for nothing yet. only_comments_before:
 * whether no line but blanks and comments came before it. */
static int line_format(const char *line, int only_comments_before)
{
    char copy[512], *tok[MAX_TOKENS];
    snprintf(copy, sizeof copy, "%s", line);
    const char *text = line + strspn(line, " \t\r\n");
    if (!*text)
        return -1;
    int nt = split_words(copy, tok);
    if (nt == 0) /* blanks past the copy's end */
        return -1;
    if (*text == '#') {
        /* nccl-tests' own comment lines: the start of a run, a rank */
        int k = strcmp(tok[0], "#") ? 0 : 1;
        if (starts_run(tok, nt) || (nt > k && !strcmp(tok[k], "Rank")))
            return FORMAT_NCCL_TESTS;
        return -1;
    }
    /* the CSV's header: its first line of text, a column "bytes" */
    if (only_comments_before && strchr(text, ',')) {
        snprintf(copy, sizeof copy, "%s", text);
        char *fields[MAX_TOKENS];
        int nf = split_csv(copy, fields);
        if (nf < 0)
            return FORMAT_CSV; /* too many fields for one: the reader says so at its line */
        for (int i = 0; i < nf; i++) {
            char *name = fields[i] + strspn(fields[i], " \t");
            name[strcspn(name, " \t")] = '\0';
            if (!strcmp(name, "bytes"))
                return FORMAT_CSV;
        }
    }
    /* a data row of nccl-tests, or NCCL's log (mpirun's may come first: read on) */
    long v;
    if ((nt >= 2 && !parse_int(tok[0], &v) && !parse_int(tok[1], &v)) || strstr(text, "NCCL"))
        return FORMAT_NCCL_TESTS;
    return -1;
}

/* Tells the format from the file's first lines, past blank lines and comments, which it keeps
 * for the reader: FORMAT_*, or -1 with a message. */
static int detect_format(line_source *src, sm_status *st)
{
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, more, format = -1, first_text = 0, held_cap = 0;
    while (format < 0 && (more = next_line(src, &line, &cap, &lineno, st)) > 0) {
        /* lines ended by CR alone read as one line, whatever the format */
        if (sm_refuse_cr_line_ends(line, 0, src->path, lineno, "unix.txt", st)) {
            more = -1;
            break;
        }
        size_t len = strlen(line);
        if (src->n_held == held_cap) {
            held_cap = held_cap ? 2 * held_cap : 16;
            char **grown = realloc(src->held, (size_t)held_cap * sizeof *grown);
            if (!grown) {
                more = sm_fail(st, "out of memory");
                break;
            }
            src->held = grown;
        }
        if (!(src->held[src->n_held] = strdup(line))) {
            more = sm_fail(st, "out of memory");
            break;
        }
        src->next_held = ++src->n_held; /* handed out again only once the format is known */
        src->held_bytes += len;
        const char *text = line + strspn(line, " \t\r\n");
        format = line_format(line, !first_text);
        if (*text && *text != '#' && !first_text)
            first_text = lineno;
        /* a long preamble of comments: read on as nccl-tests, as before */
        if (format < 0 && (src->n_held == MAX_HELD_LINES || src->held_bytes > MAX_HELD_BYTES))
            format = FORMAT_NCCL_TESTS;
    }
    free(line);
    if (more < 0)
        return -1;
    if (format < 0 && first_text)
        return sm_fail(st,
                       "%s:%d: not a format fit-comm reads: expected nccl-tests' "
                       "all_reduce_perf output as it prints it ('# nThread ...' and '# Rank N "
                       "... on HOST' lines, then rows 'size count type redop ...') or "
                       "`scalemeter allreduce --format csv` (header bytes,impl,ranks,nodes,"
                       "time_s)",
                       src->path, first_text);
    src->next_held = 0; /* the reader starts at line 1 */
    /* only blank lines and comments: nccl-tests' reader says there are no data rows */
    return format < 0 ? FORMAT_NCCL_TESTS : format;
}

int sm_comm_runs_read(sm_comm_runs *r, const char *path, int nodes, const char *impl, sm_status *st)
{
    if (!r || !path)
        return sm_null_arg(st, __func__, !r ? "runs" : "path");
    FILE *f = sm_input_open(&path);
    if (!f)
        return sm_fail(st, "%s: %s", path, strerror(errno));
    char **grown = realloc(r->sources, (size_t)(r->n_sources + 1) * sizeof *grown);
    if (!grown) {
        sm_input_close(f);
        return sm_fail(st, "out of memory");
    }
    r->sources = grown;
    if (!(r->sources[r->n_sources] = strdup(path))) {
        sm_input_close(f);
        return sm_fail(st, "out of memory");
    }
    int source = r->n_sources++;
    line_source src = {f, path, NULL, 0, 0, 0, 0};
    int format = detect_format(&src, st);
    /* nccl-tests time NCCL alone: another implementation asked of it was ignored */
    int rc = format < 0 ? -1
             : format != FORMAT_CSV && impl && strcmp(impl, "nccl")
                 ? sm_fail(st,
                           "%s: nccl-tests output, NCCL's all-reduce: --impl %s names another "
                           "implementation (of `scalemeter allreduce --format csv` runs)",
                           path, impl)
             : format == FORMAT_CSV ? read_allreduce_csv(r, &src, nodes, impl, source, st)
                                    : read_nccl_tests(r, &src, nodes, source, st);
    if (!rc && ferror(f))
        rc = sm_fail(st, "%s: read error", path);
    source_free(&src);
    sm_input_close(f);
    return rc;
}

void sm_comm_runs_free(sm_comm_runs *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_sources; i++)
        free(r->sources[i]);
    free(r->sources);
    free(r->samples);
    memset(r, 0, sizeof *r);
}
