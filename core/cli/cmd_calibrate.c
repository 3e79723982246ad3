/* scalemeter calibrate: one batch job that calibrates a machine. It measures a default set of
 * networks (bench), fits the coefficients (fit) and validates them leave-one-model-out, so that
 * an operator runs one command under mpirun and gets a CSV, a coefficient file and a report.
 * The steps are the bench and fit commands themselves: calibrate only chooses what they do. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "launcher.h"
#include "output.h"

/* Networks that run at 32 and 64 pixels and differ in what dominates them: plain and residual
 * convolutions, depthwise and grouped ones, squeeze-excitation, a heavy dense head. */
#define DEFAULT_MODELS                                                                           \
    "resnet18,mobilenet_v2,squeezenet1_0,shufflenet_v2_x1_0,vgg11,regnet_y_400mf,mnasnet1_0"
#define DEFAULT_IMAGES "32,64"
#define DEFAULT_BATCHES "1,2,4,8"
#define MAX_ARGS 64

static void usage(void)
{
    printf("usage: scalemeter calibrate [-o PREFIX] [--model LIST] [--image LIST] [--batch LIST]\n"
           "                            [--device NAME] [bench options]\n"
           "       mpirun -np N scalemeter calibrate ...   (a cluster: data parallel over N ranks)\n\n"
           "Calibrates this machine in one job: measures the networks (scalemeter bench), fits\n"
           "the coefficients (scalemeter fit --weight-term --update-term) and validates them\n"
           "leave-one-model-out. Writes\n"
           "  PREFIX.csv       the measurements (rows are kept if the job is interrupted; run the\n"
           "                   same command again to measure only what is missing)\n"
           "  PREFIX.ini       the coefficients: scalemeter predict MODEL --coeffs PREFIX.ini\n"
           "  PREFIX-loo.json  the leave-one-model-out validation (also printed as a table)\n\n"
           "  -o PREFIX      file names (default: calibration)\n"
           "  --model LIST   networks (default: %s)\n"
           "  --image LIST   image sizes (default: %s)\n"
           "  --batch LIST   per-rank batch sizes (default: %s)\n"
           "  --device NAME  the machine's name in the coefficient file (default: the CPU model)\n"
           "Other options (--backend, --reps, --min-time, --threads, --bucket-mb, --allreduce,\n"
           "--max-memory, --warmup) go to scalemeter bench; see scalemeter bench --help.\n"
           "The defaults take a few minutes on one CPU core. For the communication terms, run it\n"
           "again with another rank count and the same -o: the rows add up in one CSV.\n",
           DEFAULT_MODELS, DEFAULT_IMAGES, DEFAULT_BATCHES);
}

/* Runs a command with its standard output into path. */
static int run_into_file(const char *path, int (*run)(int, char **), int argc, char **argv)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        fprintf(stderr, "scalemeter calibrate: cannot write %s\n", path);
        return 1;
    }
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    int rc = run(argc, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    const char *prefix = "calibration", *models = DEFAULT_MODELS, *images = DEFAULT_IMAGES;
    const char *batches = DEFAULT_BATCHES, *device = NULL;
    char *bench[MAX_ARGS] = {"bench"};
    int n_bench = 1;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage();
            return 0;
        } else if ((v = option_value(argc, argv, &i, "-o", &missing)) ||
                   (v = option_value(argc, argv, &i, "--output", &missing))) {
            prefix = v;
        } else if ((v = option_value(argc, argv, &i, "--model", &missing))) {
            models = v;
        } else if ((v = option_value(argc, argv, &i, "--image", &missing))) {
            images = v;
        } else if ((v = option_value(argc, argv, &i, "--batch", &missing))) {
            batches = v;
        } else if ((v = option_value(argc, argv, &i, "--device", &missing))) {
            device = v;
        } else if (missing) {
            return 2;
        } else if (n_bench < MAX_ARGS - 12) {
            bench[n_bench++] = argv[i]; /* bench checks it, and names it if it is wrong */
        } else {
            fprintf(stderr, "scalemeter calibrate: too many options\n");
            return 2;
        }
    }
    char csv[4096], ini[4096], loo[4096];
    if (snprintf(csv, sizeof csv, "%s.csv", prefix) >= (int)sizeof csv ||
        snprintf(ini, sizeof ini, "%s.ini", prefix) >= (int)sizeof ini ||
        snprintf(loo, sizeof loo, "%s-loo.json", prefix) >= (int)sizeof loo) {
        fprintf(stderr, "scalemeter calibrate: -o %s: name too long\n", prefix);
        return 2;
    }
    const char *more[] = {"--model", models, "--image", images, "--batch", batches, "-o", csv};
    for (int k = 0; k < 8; k++)
        bench[n_bench++] = (char *)more[k];
    int rc = cmd_bench(n_bench, bench);
    if (launcher_rank() != 0) /* the measuring was collective; the rest is rank 0's */
        return rc;
    if (rc) {
        fprintf(stderr, "scalemeter calibrate: measuring stopped; every row measured so far is "
                        "in %s, and the same command resumes from there\n", csv);
        return rc;
    }

    char *fit[16] = {"fit", csv, "--weight-term", "--update-term", "-o", ini};
    int n_fit = 6;
    if (device) {
        fit[n_fit++] = "--device";
        fit[n_fit++] = (char *)device;
    }
    fprintf(stderr, "scalemeter calibrate: fitting %s\n", csv);
    if ((rc = cmd_fit(n_fit, fit)))
        return rc;
    char *cv[] = {"fit", csv, "--weight-term", "--update-term", "--cv", "loo", "--format", "json"};
    if ((rc = cmd_fit(6, cv))) /* the table, on the terminal */
        return rc;
    if ((rc = run_into_file(loo, cmd_fit, 8, cv)))
        return rc;
    printf("\nwrote %s, %s and %s\nnext: scalemeter predict resnet50 --coeffs %s --batch 32\n",
           csv, ini, loo, ini);
    return 0;
}
