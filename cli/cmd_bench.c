/*
 * scalemeter bench: measures training steps and inference of networks on this machine and
 * appends one row per configuration (model x image x batch) to a measurement CSV
 * (docs/calibration.md), the input of `scalemeter fit`. Under mpirun every rank runs its own batch
 * and the gradients are all-reduced (data parallel); without it, one rank.
 *
 * Nothing measured is lost: rank 0 appends each row as soon as it is measured (one write, then
 * fsync); a second run of the same command measures only the configurations the file lacks.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "bench_job.h"
#include "commands.h"
#include "launcher.h"
#include "same_arguments.h"
#include "option_values.h"
#include "output.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "util/escape.h"
#include "executor.h"

#define MAX_LIST OPTION_MAX_LIST

static void usage(void)
{
    printf(
        "usage: scalemeter bench MODEL[,MODEL...]... -o RUNS.csv [options]\n"
        "       mpirun -np N scalemeter bench ...    (data parallel over N ranks)\n\n"
        "Runs training steps and inference of each network at each image size and batch size\n"
        "on this machine, and appends one row per configuration to RUNS.csv: the measurement\n"
        "CSV that `scalemeter fit` reads (model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,\n"
        "t_bwd,t_grad,t_step, then backend,threads,reps,status). Times are seconds, the median\n"
        "over the repetitions of the slowest rank's time. Each row is on disk as soon as it is\n"
        "measured; run the same command again to measure only what the file lacks.\n\n"
        "  MODEL             networks of the zoo or files, comma-separated (resnet18,vgg16);\n"
        "                    --model LIST is the same\n"
        "  -o, --output FILE the measurement CSV to append to (created with its header)\n"
        "  -q, --quiet       no progress line (there is none when stderr is not a terminal)\n"
        "  --backend NAME    cpu (default): the plugins' CPU kernels, OpenBLAS for GEMMs;\n"
        "                    cuda: their GPU kernels (cuDNN, cuBLAS), one GPU per rank,\n"
        "                    gradients summed with NCCL; adds the columns precision,\n"
        "                    conv_algo, device, energy_j, energy_infer_j (docs/gpu.md)\n"
        "  --precision P     cuda: fp32 (default), tf32 (TF32 tensor cores), or fp16 or\n"
        "                    bf16 as torch.autocast runs them: products and convolutions\n"
        "                    on half-type operands, fp32 tensors and master weights, fp16's\n"
        "                    loss scaled as GradScaler does (docs/precision.md)\n"
        "  --conv-algo A     cuda: measure (default: time cuDNN's algorithms, as PyTorch's\n"
        "                    cudnn.benchmark) or heuristic (cuDNN's first suggestion)\n"
        "  --image LIST      input heights and widths (default: each network's own)\n"
        "  --batch LIST      per-rank batch sizes (default 1,2,4,8)\n"
        "  --reps N          timed repetitions at most (default 10; at least 3 unless N < 3)\n"
        "  --min-time S      seconds of timed steps to aim for; a step that takes longer gets\n"
        "                    fewer repetitions (default 1)\n"
        "  --warmup N        untimed steps first (default 2; at least 1: the first checks the\n"
        "                    all-reduce's sums and times a step, which sets the repetitions)\n"
        "  --threads N       OpenBLAS threads per rank (default: the CPUs its affinity mask\n"
        "                    and cgroup quota allow, shared with the node's ranks that have\n"
        "                    the same CPUs; the CSV's threads column)\n"
        "  --bucket-mib MB   gradients all-reduced per message, in MiB (default 25, as\n"
        "                    PyTorch's DistributedDataParallel)\n"
        "  --allreduce NAME  ring (default, calibrate/allreduce_ring.c) or mpi (MPI_Allreduce);\n"
        "                    cuda: always NCCL\n"
        "  --max-memory GB   per rank; larger configurations are recorded as status=oom\n"
        "                    (default: 90%% of the available memory / ranks on the node; cuda:\n"
        "                    the GPU's free memory)\n\n"
        "t_fwd: training-mode forward pass and the loss; t_bwd: backward pass; t_grad: gradient\n"
        "all-reduce and SGD update; t_step: the three timed together; t_infer: inference.\n"
        "nodes and gpus_per_node record the layout: hosts, and ranks per host.\n");
}

typedef struct bench_args {
    const char *output;
    const sm_bench_backend *backend; /* --backend's row of calibrate/bench_backends.c */
    char *models[MAX_LIST];
    int n_models;
    int64_t images[MAX_LIST], batches[MAX_LIST];
    int n_images, n_batches;
    int64_t reps, warmup, threads;
    double min_time, bucket_mb, max_memory_gb;
    sm_bench_allreduce allreduce;
    int allreduce_given, bucket_given;
    int cuda;                          /* --backend cuda */
    int quiet, help;                   /* --quiet: no progress line; --help */
    const char *precision, *conv_algo; /* cuda only: NULL when not given */
} bench_args;

/* -1 with the reason where a network's name cannot be written to a row and read back as the
 * same name: a quote or line break, or a blank at either end, which fit and validate trim (a
 * file ' lead.ini' was read as 'lead.ini', another network or none). */
static int unwritable_name(const char *name, sm_status *st)
{
    size_t n = strlen(name);
    if (strpbrk(name, "\"\n\r"))
        return sm_fail(st, "network '%s': a name with a quote or line break", name);
    /* the writer refuses a control byte in a row, after the configuration was measured: each
     * run measured it again and threw it away */
    if (sm_has_controls(name)) {
        char *shown = sm_escape_controls(name);
        sm_fail(st,
                "network '%s': a name with a control character, which a row of the measurement "
                "CSV cannot keep (rename the file)",
                shown ? shown : "?");
        free(shown);
        return -1;
    }
    /* the standard input is no name fit or validate can read back, and a second network
     * given as - stood in the CSV for the first */
    if (!strcmp(name, "-"))
        return sm_fail(st, "network '-': the standard input is no name the measurement CSV can "
                           "keep, for fit and validate to read the network back; give a file");
    if (n && (isspace((unsigned char)name[0]) || isspace((unsigned char)name[n - 1])))
        return sm_fail(st,
                       "network '%s': a name beginning or ending with a blank, which the "
                       "measurement CSV's readers trim (rename the file)",
                       name);
    return 0;
}

/* A comma-separated list of networks, added to those given before (operands and --model); a
 * network file whose path has a comma in it is one network. */
static int add_models(bench_args *a, const char *text, sm_status *st)
{
    char *items[MAX_LIST];
    int n;
    struct stat sb;
    if (strchr(text, ',') && stat(text, &sb) == 0 && S_ISREG(sb.st_mode)) {
        if (a->n_models == MAX_LIST)
            return sm_fail(st, "more than %d networks", MAX_LIST);
        if (unwritable_name(text, st))
            return -1;
        if (!(a->models[a->n_models] = strdup(text)))
            return sm_fail(st, "out of memory");
        a->n_models++;
        return 0;
    }
    if (split_list("--model", text, items, &n, st)) {
        for (int k = 0; k < n; k++) /* none: split_list frees what it made when it fails */
            free(items[k]);
        return -1;
    }
    int rc = 0;
    for (int k = 0; k < n; k++) {
        if (!rc && unwritable_name(items[k], st))
            rc = -1;
        else if (!rc && a->n_models == MAX_LIST)
            rc = sm_fail(st, "more than %d networks", MAX_LIST);
        if (rc) {
            free(items[k]);
            continue;
        }
        a->models[a->n_models++] = items[k];
    }
    return rc;
}

enum {
    OPT_MODEL = 256,
    OPT_BACKEND,
    OPT_PRECISION,
    OPT_CONV_ALGO,
    OPT_IMAGE,
    OPT_BATCH,
    OPT_REPS,
    OPT_WARMUP,
    OPT_THREADS,
    OPT_MIN_TIME,
    OPT_BUCKET,
    OPT_MAX_MEMORY,
    OPT_ALLREDUCE
};

/* Also what calibrate passes on to bench (cmd_calibrate.c reads this table). */
const struct option bench_options[] = {
    {"help", no_argument, 0, 'h'},
    {"quiet", no_argument, 0, 'q'},
    {"output", required_argument, 0, 'o'},
    {"model", required_argument, 0, OPT_MODEL},
    {"backend", required_argument, 0, OPT_BACKEND},
    {"precision", required_argument, 0, OPT_PRECISION},
    {"conv-algo", required_argument, 0, OPT_CONV_ALGO},
    {"image", required_argument, 0, OPT_IMAGE},
    {"batch", required_argument, 0, OPT_BATCH},
    {"reps", required_argument, 0, OPT_REPS},
    {"warmup", required_argument, 0, OPT_WARMUP},
    {"threads", required_argument, 0, OPT_THREADS},
    {"min-time", required_argument, 0, OPT_MIN_TIME},
    {"bucket-mib", required_argument, 0, OPT_BUCKET},
    {"bucket-mb", required_argument, 0, OPT_BUCKET}, /* the name of earlier releases */
    {"max-memory", required_argument, 0, OPT_MAX_MEMORY},
    {"allreduce", required_argument, 0, OPT_ALLREDUCE},
    {0, 0, 0, 0}};

static int parse_option(int c, const char *v, bench_args *a, sm_status *st)
{
    switch (c) {
    case 'q':
        a->quiet = 1;
        return 0;
    case 'o':
        a->output = v;
        return 0;
    case OPT_MODEL:
        return add_models(a, v, st);
    case OPT_BACKEND:
        if (!(a->backend = sm_bench_backend_find(v, st)))
            return -1;
        a->cuda = !strcmp(v, "cuda");
        return 0;
    case OPT_PRECISION:
        if (strcmp(v, "fp32") && strcmp(v, "tf32") && strcmp(v, "fp16") && strcmp(v, "bf16"))
            return sm_fail(st, "--precision %s: expected fp32, tf32, fp16 or bf16", v);
        a->precision = v;
        return 0;
    case OPT_CONV_ALGO:
        if (strcmp(v, "measure") && strcmp(v, "heuristic"))
            return sm_fail(st, "--conv-algo %s: expected measure or heuristic", v);
        a->conv_algo = v;
        return 0;
    case OPT_IMAGE:
        return parse_int_list("--image", v, 1 << 16, a->images, &a->n_images, st);
    case OPT_BATCH:
        return parse_int_list("--batch", v, 1 << 20, a->batches, &a->n_batches, st);
    case OPT_REPS:
        return parse_int("--reps", v, 1, SM_BENCH_MAX_REPS, &a->reps, st);
    case OPT_WARMUP:
        /* the first warm-up step is not optional: it checks the all-reduce's sums and its
         * time sets the repetitions (calibrate/bench_step.c warm_up) */
        if (parse_int("--warmup", v, 1, 1000, &a->warmup, st) == 0)
            return 0;
        if (parse_int("--warmup", v, 0, 0, &a->warmup, &(sm_status){""}) == 0)
            return sm_fail(st,
                           "--warmup %s: expected an integer from 1 to 1000: the first untimed "
                           "step checks the all-reduce's sums and times a step to choose the "
                           "repetitions (--warmup 1 is that step alone)",
                           v);
        return -1;
    case OPT_THREADS:
        return parse_int("--threads", v, 1, 4096, &a->threads, st);
    case OPT_MIN_TIME:
        return parse_real("--min-time", v, &a->min_time, st);
    case OPT_BUCKET:
        a->bucket_given = 1;
        return bucket_mib_value(v, &a->bucket_mb, st);
    case OPT_MAX_MEMORY:
        if (parse_real("--max-memory", v, &a->max_memory_gb, st))
            return -1;
        /* bytes as int64_t: 1e6 GB leaves room, 1e10 would overflow the conversion; below a
         * byte the limit was 0 bytes, read as none, and every configuration ran */
        if (a->max_memory_gb > 1e6 || a->max_memory_gb * 1e9 < 1)
            return sm_fail(st, "--max-memory %s: expected from 1e-9 (a byte) to 1000000 GB", v);
        return 0;
    case OPT_ALLREDUCE:
        if (!strcmp(v, "ring"))
            a->allreduce = SM_BENCH_RING;
        else if (!strcmp(v, "mpi"))
            a->allreduce = SM_BENCH_MPI;
        else
            return sm_fail(st, "--allreduce %s: expected ring or mpi", v);
        a->allreduce_given = 1;
        return 0;
    }
    return -1;
}

static int parse_args(int argc, char **argv, bench_args *a, sm_status *st)
{
    memset(a, 0, sizeof *a);
    a->backend = &sm_bench_backend_cpu;
    a->batches[0] = 1, a->batches[1] = 2, a->batches[2] = 4, a->batches[3] = 8;
    a->n_batches = 4;
    a->reps = 10;
    a->warmup = 2;
    a->min_time = 1.0;
    a->bucket_mb = 25;
    a->allreduce = SM_BENCH_RING;
    for (int c;
         (c = next_option(argc, argv, "hqo:", bench_options, st->msg, sizeof st->msg)) != -1;) {
        if (c == 'h') {
            a->help = 1;
            return 0;
        }
        if (c == '?' || parse_option(c, optarg, a, st))
            return -1;
    }
    for (int i = optind; i < argc; i++)
        if (add_models(a, argv[i], st))
            return -1;
    if (!a->n_models)
        return sm_fail(st, "which networks? (scalemeter bench resnet18,mobilenet_v2 -o runs.csv)");
    if (!a->output)
        return sm_fail(st, "where to? (-o RUNS.csv; rows are appended, the file is resumable)");
    if (!strcmp(a->output, "-"))
        return sm_fail(st, "-o -: the rows go to a file that a second run reads back to resume "
                           "(and are echoed on the standard output anyway); name a file");
    if (!a->output[0])
        return sm_fail(st, "-o '': an empty name; name the CSV file (-o runs.csv)");
    if (!a->cuda && a->precision)
        return sm_fail(st, "--precision: only with --backend cuda (the CPU backend computes in "
                           "fp32)");
    if (!a->cuda && a->conv_algo)
        return sm_fail(st, "--conv-algo: only with --backend cuda (cuDNN's algorithms; the CPU "
                           "backend has one)");
    if (a->cuda && a->allreduce_given)
        return sm_fail(st, "--allreduce: with --backend cuda the gradients go through NCCL");
    if (a->cuda && !a->precision)
        a->precision = "fp32";
    if (a->cuda && !a->conv_algo)
        a->conv_algo = "measure";
    return 0;
}

static void free_args(bench_args *a)
{
    for (int k = 0; k < a->n_models; k++)
        free(a->models[k]);
}

/* ---- showing the job: progress, rows, interruption ---------------------------------------- */

/* Argument errors come before MPI starts; the launcher's environment says which rank we are,
 * so that a job prints one message, not one per rank. */
typedef struct view {
    const bench_args *a;
    const sm_bench_layout *l;
    const sm_bench_item *c; /* being measured */
    int tty;                /* rank 0 draws a progress line */
    int index, total;       /* configurations: this one (of those to measure), how many */
    double work_done, work_left, seconds_done, started, job_started;
} view;

/* A collective call's message: the rank that has it prints it (bench_job.h). */
static void report(const sm_bench_layout *l, const sm_status *st)
{
    if (!st->msg[0])
        return;
    if (l->rank)
        fprintf(stderr, "scalemeter bench: rank %d: %s\n", l->rank, st->msg);
    else
        report_error(st->msg);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *eta(const view *p, char *buf, size_t len)
{
    if (p->work_done <= 0) {
        snprintf(buf, len, "time left unknown yet");
        return buf;
    }
    double s = p->seconds_done / p->work_done * p->work_left - (now() - p->started);
    if (s < 1)
        s = 1;
    if (s < 120)
        snprintf(buf, len, "about %.0f s left", s);
    else if (s < 7200)
        snprintf(buf, len, "about %.0f min left", s / 60);
    else
        snprintf(buf, len, "about %.1f h left", s / 3600);
    return buf;
}

static void show(void *ctx, const char *phase, int reps)
{
    const view *p = ctx;
    if (!p->tty)
        return;
    char ranks[32] = "", left[64];
    if (p->l->ranks > 1)
        snprintf(ranks, sizeof ranks, " on %d ranks", p->l->ranks);
    fprintf(stderr, "\r\033[K[%d/%d] %s image %lld batch %lld%s: %s", p->index + 1, p->total,
            p->c->model, (long long)p->c->image, (long long)p->c->batch, ranks, phase);
    if (strcmp(phase, "warm-up") != 0)
        fprintf(stderr, ", %d reps", reps);
    char elapsed[32];
    double e = now() - p->job_started;
    if (e < 120)
        snprintf(elapsed, sizeof elapsed, "%.0f s", e);
    else if (e < 7200)
        snprintf(elapsed, sizeof elapsed, "%.0f min", e / 60);
    else
        snprintf(elapsed, sizeof elapsed, "%.1f h", e / 3600);
    fprintf(stderr, "; %s elapsed, %s", elapsed, eta(p, left, sizeof left));
    fflush(stderr);
}

typedef struct tally {
    int measured, skipped, oom;
} tally;

/* What a SIGINT or SIGTERM (Ctrl-C, mpirun passing it on, a batch system's time limit), a
 * SIGHUP or a SIGPIPE says as the job ends: every stored row is already on disk, written and
 * synced one by one. While a row is stored and counted, the handler holds the signal over
 * (`storing`), so that the message always says what the file holds. Not sigprocmask: Linux hands a
 * process's signal to its main thread unless that thread blocks it, and then to another
 * (OpenBLAS's, MPI's), where the handler would print the count of before the row. */
static char interrupted_msg[13000], interrupted_note[8500];
static volatile sig_atomic_t interrupted_len, storing, held_signal;

void bench_interrupt_note(const char *note)
{
    snprintf(interrupted_note, sizeof interrupted_note, "%s", note ? note : "");
}

static void on_interrupt(int sig)
{
    if (storing) {
        held_signal = sig;
        return;
    }
    if (interrupted_len)
        (void)!write(STDERR_FILENO, interrupted_msg, (size_t)interrupted_len);
    _exit(128 + sig);
}

/* Called before the handler is set, or while `storing`: the handler never reads it half made. */
static void interrupt_message(const sm_bench_layout *l, const char *file, const tally *t)
{
    if (l->rank != 0)
        return; /* one message per job */
    int all = t->measured + t->oom + t->skipped, now = t->measured + t->oom;
    int n = all == 0 ? snprintf(interrupted_msg, sizeof interrupted_msg,
                                "\nscalemeter bench: interrupted before any row: nothing was "
                                "measured into %s; the same command starts it again\n",
                                file)
                     : snprintf(interrupted_msg, sizeof interrupted_msg,
                                "\nscalemeter bench: interrupted: %s keeps this job's %d rows "
                                "measured so far (%d in this run); the same command resumes "
                                "from there\n",
                                file, all, now);
    if (n >= 0 && n < (int)sizeof interrupted_msg)
        n += snprintf(interrupted_msg + n, sizeof interrupted_msg - (size_t)n, "%s",
                      interrupted_note);
    interrupted_len = n < 0                             ? 0
                      : n < (int)sizeof interrupted_msg ? n
                                                        : (int)sizeof interrupted_msg - 1;
}

static void catch_interrupts(int on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on ? on_interrupt : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* a hang-up (the ssh session gone) and a reader of the echoed rows gone (bench | head)
     * ended the job without a word: said as an interruption */
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
}

/* One configuration measured and stored; its row echoed. Returns 0 or an exit status. */
static int measure(sm_bench_job *job, int i, const char *file, view *p, tally *t)
{
    const sm_bench_layout *l = p->l;
    sm_status st = {""};
    const char *const *row;
    int oom;
    int rc = sm_bench_job_measure(job, i, show, p, &oom, &st);
    if (l->rank == 0 && p->tty)
        fprintf(stderr, "\r\033[K"); /* the row may go to the same terminal */
    if (rc == SM_BENCH_RANK_FAILED && l->ranks > 1) {
        fprintf(stderr, "\nscalemeter bench: rank %d: %s\n", l->rank, st.msg);
        MPI_Abort(MPI_COMM_WORLD, 1); /* the other ranks wait in a collective */
    }
    if (rc) {
        report(l, &st);
        return 1;
    }
    /* stored and counted as one step: a signal meanwhile ends the job after it */
    storing = 1;
    rc = sm_bench_job_store(job, i, &row, &st);
    if (!rc) {
        if (oom)
            t->oom++;
        else
            t->measured++;
        interrupt_message(l, file, t);
    }
    storing = 0;
    if (held_signal)
        on_interrupt(held_signal);
    if (rc) {
        report(l, &st);
        return 1;
    }
    if (!row)
        return 0; /* ranks other than 0 */
    if (oom)
        fprintf(stderr,
                "scalemeter bench: %s image %s batch %s: out of memory, recorded as "
                "status=oom\n",
                row[SM_COL_MODEL], row[SM_COL_IMAGE], row[SM_COL_BATCH]);
    for (int k = 0; k < sm_bench_job_columns(job); k++) {
        if (k)
            putchar(',');
        csv_field(stdout, row[k]); /* as the file has it: a path may hold a comma */
    }
    printf("\n");
    output_flush();
    return 0;
}

static int run_all(const bench_args *a, const sm_bench_layout *l, sm_bench_job *job, int tty)
{
    int n = sm_bench_job_count(job), left = 0, rc = 0;
    for (int i = 0; i < n; i++)
        left += !sm_bench_job_item(job, i)->stored;
    tally t = {0, n - left, 0};
    view p = {a, l, NULL, tty, 0, left, 0, 0, 0, now(), now()};
    for (int i = 0; i < n; i++)
        if (!sm_bench_job_item(job, i)->stored)
            p.work_left += sm_bench_job_item(job, i)->work;
    if (l->rank == 0) {
        for (int k = 0; sm_bench_job_note(job, k); k++)
            fprintf(stderr, "scalemeter bench: %s\n", sm_bench_job_note(job, k));
        if (tty && t.skipped)
            fprintf(stderr, "scalemeter bench: %d of %d configurations already in %s\n", t.skipped,
                    n, a->output);
        if (left) {
            for (int k = 0; k < sm_bench_job_columns(job); k++)
                printf("%s%s", k ? "," : "", sm_bench_job_header(job)[k]);
            printf("\n");
            output_flush();
        }
    }
    interrupt_message(l, a->output, &t);
    catch_interrupts(1);
    for (int i = 0; i < n && !rc; i++) {
        const sm_bench_item *c = sm_bench_job_item(job, i);
        if (c->stored)
            continue;
        p.c = c;
        double t0 = now();
        rc = measure(job, i, a->output, &p, &t);
        p.index++;
        p.seconds_done += now() - t0;
        p.work_done += c->work;
        p.work_left -= c->work;
        p.started = now();
    }
    if (l->rank == 0) {
        if (tty)
            fprintf(stderr, "\r\033[K");
        fprintf(stderr,
                "scalemeter bench: %s: %d configurations measured, %d out of memory, %d "
                "already there\n",
                a->output, t.measured, t.oom, t.skipped);
        /* a file written before the allreduce and bucket_mib columns keys its rows without
         * them: rows of another --allreduce stood for these, and a comparison got one twice */
        if (t.skipped && l->ranks > 1 && (a->allreduce_given || a->bucket_given) &&
            !sm_bench_job_records_allreduce(job))
            say_warning("%s: the %d configurations already there were not measured again: the "
                        "file was written before bench recorded the all-reduce and bucket size "
                        "of a row, so rows of another --allreduce or --bucket-mib would stand "
                        "for these; to compare them, write each to a file of its own (-o)",
                        a->output, t.skipped);
    }
    catch_interrupts(0);
    return rc;
}

static int bench(const bench_args *a, const sm_bench_layout *l, int tty)
{
    /* learning rate 0: the update costs the same, and the weights (so the numbers the kernels
     * see, and their speed) stay those of the first step however long it runs */
    sm_bench_spec s = {
        .backend = a->backend,
        .output = a->output,
        .models = a->models,
        .n_models = a->n_models,
        .images = a->images,
        .n_images = a->n_images,
        .batches = a->batches,
        .n_batches = a->n_batches,
        .cfg = {(int)a->warmup, (int)a->reps, a->min_time, (size_t)(a->bucket_mb * 1048576.0 / 4),
                a->allreduce, 0.0f},
        .opt = {.max_bytes = a->max_memory_gb > 0 ? (int64_t)(a->max_memory_gb * 1e9) : 0,
                .precision = a->precision,
                .conv_algo = a->conv_algo},
        .threads = a->threads,
        .layout = *l,
    };
    sm_status st = {""};
    sm_bench_job *job = NULL;
    int rc = 1;
    if (sm_bench_job_open(&s, MPI_COMM_WORLD, &job, &st))
        report(l, &st);
    else
        rc = run_all(a, l, job, tty);
    sm_bench_job_close(job);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    bench_args a;
    sm_status st = {""};
    char **given = launcher_argv_copy(argc, argv);
    if (!given)
        return report_error("out of memory");
    int bad = parse_args(argc, argv, &a, &st);
    if (a.help) {
        if (launcher_rank() == 0)
            usage();
        free_args(&a);
        free(given);
        return 0;
    }
    /* under a launcher of several ranks, said once the ranks' arguments are compared: a rank
     * whose options alone were refused left without a word, only rank 0 speaking */
    if (bad && launcher_ranks() < 2) {
        if (launcher_rank() == 0)
            fprintf(stderr, "scalemeter bench: %s\n", st.msg);
        free_args(&a);
        free(given);
        return 2;
    }
#ifdef OPEN_MPI /* MPICH talks PMI-2 to srun; Debian's Open MPI, PMIx alone */
    char why[400];
    if (launcher_srun_without_pmix(why, sizeof why)) {
        if (launcher_rank() == 0)
            fprintf(stderr, "scalemeter bench: %s\n", why);
        free_args(&a);
        free(given);
        return 1;
    }
#endif
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        free_args(&a);
        free(given);
        return report_error("MPI_Init failed");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    sm_bench_layout l;
    int rc = 1, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sm_status same;
    if (sm_same_arguments(MPI_COMM_WORLD, argc, given, &same)) {
        if (same.msg[0])
            fprintf(stderr, "scalemeter bench: rank %d: %s\n", rank, same.msg);
        rc = 2;
    } else if (bad) {
        if (rank == 0)
            fprintf(stderr, "scalemeter bench: %s\n", st.msg);
        rc = 2;
    } else if (sm_bench_layout_of(MPI_COMM_WORLD, &l, &st)) {
        report(&l, &st);
    } else {
        if (!a.threads)
            a.threads = sm_bench_default_threads(MPI_COMM_WORLD);
        /* the threads OpenBLAS runs go in the CSV's threads column: 100 and 4096 asked of a
         * build capped at 64 were three rows of one run, which fit then refused */
        int took = sm_cpu_set_threads((int)a.threads);
        if (took > 0 && took < a.threads) {
            if (l.rank == 0)
                say_warning("--threads %lld: OpenBLAS runs %d at most (its build's "
                            "MAX_THREADS); the rows say %d",
                            (long long)a.threads, took, took);
            a.threads = took;
        }
        rc = bench(&a, &l, l.rank == 0 && !a.quiet && isatty(STDERR_FILENO));
    }
    MPI_Finalize();
    free_args(&a);
    free(given);
    return rc;
}
