/* scalemeter calibrate: one batch job that calibrates a machine. It measures a default set of
 * networks (bench), fits the coefficients (fit) and validates them leave-one-model-out, so that
 * an operator runs one command under mpirun and gets a CSV, a coefficient file and a report.
 * The steps are the bench and fit commands themselves: calibrate only chooses what they do. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_module.h"
#include "commands.h"
#include "launcher.h"
#include "option_values.h"
#include "output.h"
#include "util/escape.h"

/* Networks that run at 32 and 64 pixels and differ in what dominates them: plain and residual
 * convolutions, depthwise and grouped ones, squeeze-excitation, a heavy dense head. */
#define DEFAULT_MODELS                                                                             \
    "resnet18,mobilenet_v2,squeezenet1_0,shufflenet_v2_x1_0,vgg11,regnet_y_400mf,mnasnet1_0"
#define DEFAULT_IMAGES "32,64"
#define DEFAULT_BATCHES "1,2,4,8"
/* With --backend cuda: sizes at which a GPU is busy rather than waiting on kernel launches. */
#define DEFAULT_GPU_IMAGES "64,128,224"
#define DEFAULT_GPU_BATCHES "8,32,64"
#define MAX_ARGS 64

static void usage(void)
{
    printf(
        "usage: scalemeter calibrate [MODEL[,MODEL...]] [-o PREFIX] [--image LIST]\n"
        "                            [--batch LIST] [--device-name NAME] [bench options]\n"
        "       mpirun -np N scalemeter calibrate ...   (a cluster: data parallel over N ranks)\n\n"
        "Calibrates this machine in one job: measures the networks (scalemeter bench), fits\n"
        "the coefficients (scalemeter fit --weight-term --update-term) and validates them\n"
        "leave-one-model-out. Writes\n"
        "  PREFIX.csv       the measurements (rows are kept if the job is interrupted; run the\n"
        "                   same command again to measure only what is missing)\n"
        "  PREFIX.ini       the coefficients: scalemeter predict MODEL --coeffs PREFIX.ini\n"
        "  PREFIX-loo.json  the leave-one-model-out validation (also printed as a table)\n\n"
        "  -o PREFIX      file names (default: calibration)\n"
        "  MODEL,...      networks, also --model LIST (default: %s)\n"
        "  --image LIST   image sizes (default: %s)\n"
        "  --batch LIST   per-rank batch sizes (default: %s)\n"
        "  --device-name NAME  the machine's name in the coefficient file (default: the CPU\n"
        "                 model)\n"
        "  -q, --quiet    no progress line (there is none when stderr is not a terminal)\n"
        "Other options (--backend, --reps, --min-time, --threads, --bucket-mib, --allreduce,\n"
        "--max-memory, --warmup, --precision, --conv-algo) go to scalemeter bench; see\n"
        "scalemeter bench --help. With --backend cuda (one rank per GPU, docs/gpu.md) the\n"
        "defaults are --image %s --batch %s and the device is the GPU.\n"
        "The defaults take a few minutes on one CPU core. For the communication terms, run it\n"
        "again with another rank count and the same -o: the rows add up in one CSV.\n",
        DEFAULT_MODELS, DEFAULT_IMAGES, DEFAULT_BATCHES, DEFAULT_GPU_IMAGES, DEFAULT_GPU_BATCHES);
}

/* The value of a bench option among the arguments calibrate passes on ("--name V" or
 * "--name=V"), the last where it is given twice, as bench takes it (the first chose the
 * defaults of one backend while bench ran the other); NULL when absent. */
static const char *passed_on(char **args, int n, const char *name)
{
    size_t len = strlen(name);
    const char *value = NULL;
    for (int i = 0; i < n; i++)
        if (!strncmp(args[i], name, len)) {
            if (args[i][len] == '=')
                value = args[i] + len + 1;
            else if (!args[i][len] && i + 1 < n)
                value = args[++i];
        }
    return value;
}

/* Runs a command with its standard output into fd (left open). */
static int run_with_stdout(int fd, int (*run)(int, char **), int argc, char **argv)
{
    output_flush();
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    int rc = run(argc, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    return rc;
}

/* Runs a command with its standard output into path. */
static int run_into_file(const char *path, int (*run)(int, char **), int argc, char **argv)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        fprintf(stderr, "scalemeter calibrate: cannot write %s\n", path);
        return 1;
    }
    int rc = run_with_stdout(fd, run, argc, argv);
    close(fd);
    return rc;
}

/* The leave-one-model-out validation (fit --cv loo, argv), computed once: its table on the
 * standard output, its JSON into path, written whole after the table, or left as it was where
 * anything fails (sm_atomic_open): a validation that fails must not leave half a report, nor
 * the earlier one as if it were of these rows. */
static int validate_into(const char *path, int argc, char **argv)
{
    char *json = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&json, &len);
    if (!mem) {
        fprintf(stderr, "scalemeter calibrate: out of memory\n");
        return 1;
    }
    int rc = cmd_fit_loo(argc, argv, mem);
    if (fclose(mem) && !rc) {
        fprintf(stderr, "scalemeter calibrate: out of memory\n");
        rc = 1;
    }
    if (rc) {
        free(json);
        return rc;
    }
    sm_status st;
    char tmp[4200];
    FILE *f = sm_atomic_open(path, tmp, sizeof tmp, NULL, &st);
    if (!f) {
        free(json);
        fprintf(stderr, "scalemeter calibrate: %s\n", st.msg);
        return 1;
    }
    fwrite(json, 1, len, f);
    free(json);
    if (sm_atomic_commit(f, tmp, path, &st)) {
        fprintf(stderr, "scalemeter calibrate: %s\n", st.msg);
        return 1;
    }
    return 0;
}

/* The rows of a measurement CSV (its lines after the header, comments and blank lines left
 * out); -1 where there is no such file. */
static int csv_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int rows = -1, c, at_start = 1, skip = 0, blank = 1;
    while ((c = getc(f)) != EOF) {
        if (at_start) {
            skip = c == '#';
            blank = 1;
            at_start = 0;
        }
        if (c == '\n') {
            rows += !skip && !blank;
            at_start = 1;
        } else if (c != '\r') {
            blank = 0;
        }
    }
    rows += !at_start && !skip && !blank;
    fclose(f);
    return rows < 0 ? 0 : rows;
}

/* After a step failed: which of the fit's files are still there from an earlier run, so that
 * they are not taken for results of these rows. */
static void earlier_line(const char *ini, const char *loo, char *line, size_t size)
{
    int have_ini = access(ini, F_OK) == 0, have_loo = access(loo, F_OK) == 0;
    line[0] = 0;
    if (have_ini || have_loo)
        snprintf(line, size,
                 "scalemeter calibrate: %s%s%s %s from an earlier run, not of the rows measured "
                 "now\n",
                 have_ini ? ini : "", have_ini && have_loo ? " and " : "", have_loo ? loo : "",
                 have_ini && have_loo ? "are" : "is");
}

static void say_earlier(const char *ini, const char *loo)
{
    char line[8500];
    earlier_line(ini, loo, line, sizeof line);
    fputs(line, stderr);
}

/* 1 after a message where a file of -o PREFIX is one of the networks (a comma list, or one
 * network file whose path has a comma), named or by path. */
static int prefix_names_a_network(const char *models, const char *csv, const char *ini,
                                  const char *loo)
{
    char *items[OPTION_MAX_LIST];
    int n = 0;
    sm_status st;
    struct stat sb;
    if (stat(models, &sb) == 0 && S_ISREG(sb.st_mode)) {
        if (!(items[0] = strdup(models)))
            return 0; /* out of memory: bench says so */
        n = 1;
    } else if (split_list("--model", models, items, &n, &st)) {
        return 0; /* bench refuses the list, saying why */
    }
    const char *const files[] = {csv, ini, loo};
    static const char *const what[] = {"-o (PREFIX.csv)", "-o (PREFIX.ini)",
                                       "-o (PREFIX-loo.json)"};
    for (int k = 0; k < n; k++)
        output_reads("models", items[k]);
    int bad = 0;
    for (int f = 0; f < 3 && !bad; f++)
        bad = output_named_refuse("calibrate", what[f], files[f]) != 0;
    for (int k = 0; k < n; k++)
        free(items[k]);
    return bad;
}

int cmd_calibrate(int argc, char **argv)
{
    const char *prefix = "calibration", *models = DEFAULT_MODELS, *images = DEFAULT_IMAGES;
    const char *batches = DEFAULT_BATCHES, *device = NULL;
    int images_given = 0, batches_given = 0, quiet = 0;
    char *bench[MAX_ARGS] = {"bench"};
    int n_bench = 1;
    /* calibrate's own options, then every other option of bench, passed on as given */
    enum { MODEL = 256, IMAGE, BATCH, DEVICE_NAME, DEVICE_OLD, PASS = 1000 };
    const sm_backend_module *cpu = cpu_module("calibrate"); /* bench's options are there */
    if (!cpu)
        return 1;
    const struct option *bench_opts = cpu->bench_options;
    struct option opts[64] = {{"help", no_argument, 0, 'h'},
                              {"output", required_argument, 0, 'o'},
                              {"model", required_argument, 0, MODEL},
                              {"image", required_argument, 0, IMAGE},
                              {"batch", required_argument, 0, BATCH},
                              {"device-name", required_argument, 0, DEVICE_NAME},
                              {"device", required_argument, 0, DEVICE_OLD}};
    int n_opts = 7;
    for (int k = 0; bench_opts[k].name && n_opts < 63; k++) {
        int own = 0;
        for (int m = 0; m < n_opts; m++)
            own |= !strcmp(opts[m].name, bench_opts[k].name);
        if (!own) {
            opts[n_opts] = bench_opts[k];
            opts[n_opts].flag = NULL;
            opts[n_opts++].val = PASS + k;
        }
    }
    opts[n_opts] = (struct option){0, 0, 0, 0};
    char msg[512];
    for (int c; (c = next_option(argc, argv, "ho:q", opts, msg, sizeof msg)) != -1;) {
        if (n_bench >= MAX_ARGS - 12)
            return usage_error("calibrate", "too many options");
        switch (c) {
        case 'h':
            usage();
            return 0;
        case 'o':
            prefix = optarg;
            break;
        case 'q':
            quiet = 1;
            bench[n_bench++] = "--quiet";
            break;
        case MODEL:
            models = optarg;
            break;
        case IMAGE:
            images = optarg;
            images_given = 1;
            break;
        case BATCH:
            batches = optarg;
            batches_given = 1;
            break;
        case DEVICE_NAME:
            device = optarg;
            break;
        case DEVICE_OLD:
            return usage_error("calibrate", "--device is --device-name NAME (the machine's name "
                                            "in the coefficient file); --device names a device "
                                            "description in curve, predict and validate");
        default:
            if (c < PASS)
                return usage_error("calibrate", msg);
            { /* "--name", then its value */
                static char names[MAX_ARGS][40];
                snprintf(names[n_bench], sizeof names[n_bench], "--%s", bench_opts[c - PASS].name);
                bench[n_bench] = names[n_bench];
                n_bench++;
            }
            if (bench_opts[c - PASS].has_arg != no_argument)
                bench[n_bench++] = optarg;
        }
    }
    if (optind < argc) {
        if (optind + 1 < argc)
            return usage_error("calibrate", "networks are one comma-separated list (--model "
                                            "LIST or one operand)");
        models = argv[optind];
    }
    if (!strcmp(prefix, "-"))
        return usage_error("calibrate", "-o -: -o is a prefix of the files written (PREFIX.csv, "
                                        "PREFIX.ini, PREFIX-loo.json), not the standard output");
    /* '' or cal/ wrote .csv, .ini and -loo.json: hidden files of no name */
    if (!prefix[0] || prefix[strlen(prefix) - 1] == '/')
        return usage_error("calibrate", "-o: a prefix names the files (-o cal/h100 writes "
                                        "cal/h100.csv, .ini and -loo.json); give the name after "
                                        "the folder");
    const char *backend = passed_on(bench, n_bench, "--backend");
    int cuda = backend && !strcmp(backend, "cuda");
    if (cuda && !images_given)
        images = DEFAULT_GPU_IMAGES;
    if (cuda && !batches_given)
        batches = DEFAULT_GPU_BATCHES;
    char csv[4096], ini[4096], loo[4096];
    if (snprintf(csv, sizeof csv, "%s.csv", prefix) >= (int)sizeof csv ||
        snprintf(ini, sizeof ini, "%s.ini", prefix) >= (int)sizeof ini ||
        snprintf(loo, sizeof loo, "%s-loo.json", prefix) >= (int)sizeof loo) {
        fprintf(stderr, "scalemeter calibrate: -o %s: name too long\n", prefix);
        return 2;
    }
    /* what would stop the job after the measurements, said before them: a device name the
     * coefficient file cannot hold as given, an output that is a folder */
    if (device) {
        char *shown = sm_escape_ini_value(device);
        int bad = !device[0] || (shown && strcmp(shown, device));
        free(shown);
        if (bad)
            return usage_error("calibrate",
                               !device[0] ? "--device-name '': an empty name"
                                          : "--device-name: it would not read back from the "
                                            "coefficient file as given (a control character, a "
                                            "blank at an end, or ' ;', which starts a comment)");
    }
    const char *const outputs[] = {csv, ini, loo};
    struct stat sb;
    for (int k = 0; k < 3; k++)
        if (stat(outputs[k], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            fprintf(stderr,
                    "scalemeter calibrate: %s is a folder: calibrate writes a file "
                    "there; give another -o PREFIX\n",
                    outputs[k]);
            return 2;
        }
    /* a file written that is a network measured: `calibrate net.ini,... -o net` measured for
     * minutes, then fit wrote the coefficients over net.ini */
    if (launcher_rank() == 0 && prefix_names_a_network(models, csv, ini, loo))
        return 2;
    const char *more[] = {"--model", models, "--image", images, "--batch", batches, "-o", csv};
    for (int k = 0; k < 8; k++)
        bench[n_bench++] = (char *)more[k];
    /* bench's rows go to the CSV only: calibrate's standard output is its report */
    int rows_before = launcher_rank() == 0 ? csv_rows(csv) : 0;
    /* a signal ends the job inside bench, which says what the CSV keeps: and that the fit's
     * files there are not of these rows (nothing writes them while bench runs) */
    char earlier[8500];
    earlier_line(ini, loo, earlier, sizeof earlier);
    bench_interrupt_note(earlier);
    int rc = run_into_file("/dev/null", cmd_bench, n_bench, bench);
    bench_interrupt_note(NULL);
    if (launcher_rank() != 0) /* the measuring was collective; the rest is rank 0's */
        return rc;
    if (rc && launcher_srun_without_pmix(NULL, 0))
        return rc; /* nothing measured: bench said what to run instead */
    if (rc) {
        int rows = csv_rows(csv), now = rows - (rows_before > 0 ? rows_before : 0);
        if (rows <= 0)
            fprintf(stderr, "scalemeter calibrate: measuring stopped before any row was "
                            "measured\n");
        else if (now <= 0)
            fprintf(stderr,
                    "scalemeter calibrate: measuring stopped before any row was measured in "
                    "this run; %s keeps its %d earlier row%s, and the same command resumes "
                    "from there\n",
                    csv, rows, rows == 1 ? "" : "s");
        else
            fprintf(stderr,
                    "scalemeter calibrate: measuring stopped; the %d row%s measured so far (%d "
                    "in this run) %s in %s, and the same command resumes from there\n",
                    rows, rows == 1 ? "" : "s", now, rows == 1 ? "is" : "are", csv);
        say_earlier(ini, loo);
        return rc;
    }

    char *fit[16] = {"fit", csv, "--weight-term", "--update-term", "-o", ini};
    int n_fit = 6;
    /* the coefficient file names the GPU and the arithmetic, not the host's CPU (bench has
     * loaded the cuda module already) */
    char gpu[400], name[256];
    sm_status st;
    const sm_backend_module *m = cuda ? sm_backend_module_load("cuda", &st) : NULL;
    if (m && !device && m->device_name(name, sizeof name, &st) == 0) {
        const char *precision = passed_on(bench, n_bench, "--precision");
        snprintf(gpu, sizeof gpu, "%.256s, cuda %s", name, precision ? precision : "fp32");
        device = gpu;
    }
    if (device) {
        fit[n_fit++] = "--device-name";
        fit[n_fit++] = (char *)device;
    }
    fprintf(stderr, "scalemeter calibrate: fitting %s\n", csv);
    if ((rc = cmd_fit(n_fit, fit))) {
        say_earlier(ini, loo);
        return rc;
    }
    char *cv[] = {"fit", csv, "--weight-term", "--update-term", "--cv", "loo"};
    if ((rc = validate_into(loo, 6, cv))) {
        /* the coefficients are new: an earlier validation would pass for theirs */
        if (unlink(loo) == 0)
            fprintf(stderr,
                    "scalemeter calibrate: no validation of %s: removed %s, an earlier run's "
                    "validation of other coefficients\n",
                    ini, loo);
        else if (errno != ENOENT)
            fprintf(stderr,
                    "scalemeter calibrate: no validation of %s, and %s (an earlier run's) "
                    "cannot be removed: %s\n",
                    ini, loo, strerror(errno));
        else
            fprintf(stderr, "scalemeter calibrate: no validation of %s (%s not written)\n", ini,
                    loo);
        return rc;
    }
    if (!quiet)
        fprintf(stderr,
                "scalemeter calibrate: wrote %s, %s and %s\nnext: scalemeter predict "
                "resnet50 --coeffs %s --batch 32\n",
                csv, ini, loo, ini);
    return 0;
}
