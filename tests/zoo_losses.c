/*
 * zoo_losses: the CPU executor's losses at the first two SGD steps of a zoo network, batch 4 and
 * seed 3 (tests/test_gpu_executor.c's test_zoo compares the GPU's with them), and, with
 * --kernels, how far they spread when only OpenBLAS's kernels change. Built with the tests;
 * not a test itself (it asserts nothing, and takes minutes for the larger networks).
 *
 *   zoo_losses NETWORK INPUT LR [THREADS]
 *       one run: "NETWORK input INPUT lr LR core CORE threads THREADS: STEP0 STEP1", CORE the
 *       OpenBLAS kernels' (openblas_get_corename; OPENBLAS_CORETYPE picks them)
 *   zoo_losses --kernels NETWORK INPUT LR [THREADS]
 *       the run again under OPENBLAS_CORETYPE=Haswell, SkylakeX, Sandybridge and Prescott (a
 *       process each: OpenBLAS reads it when it loads), then each step's least and greatest
 *       loss, their spread and the spread over step 0's loss (test_zoo's unit)
 *
 * THREADS: OpenBLAS's threads, 1 by default. Run from the source tree (models/, plugins), as
 * the tests are: build/bin/zoo_losses --kernels mobilenet_v2 64 0.05.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cblas.h>

#include "executor.h"

static int usage(void)
{
    fprintf(stderr, "usage: zoo_losses [--kernels] NETWORK INPUT LR [THREADS]\n");
    return 2;
}

/* One run in this process: prints the line and returns 0, or 1 with a message. */
static int run(const char *name, long long input, float lr, int threads)
{
    sm_status st;
    sm_registry *reg = NULL;
    sm_network *net = NULL;
    sm_executor *ex = NULL;
    double loss[2] = {0, 0};
    int rc = 1;
    sm_cpu_set_threads(threads);
    sm_network_options opt = {.image = input};
    sm_executor_options co = {.batch = 4, .seed = 3};
    if (sm_registry_open(&reg, &st) == 0 && sm_network_load(reg, name, &opt, &net, &st) == 0 &&
        sm_executor_new(net, &co, &ex, &st) == 0 && sm_executor_step(ex, lr, &loss[0], &st) == 0 &&
        sm_executor_step(ex, lr, &loss[1], &st) == 0)
        rc = 0;
    if (rc)
        fprintf(stderr, "zoo_losses: %s\n", st.msg);
    else
        printf("%s input %lld lr %g core %s threads %d: %.6f %.6f\n", name, input, (double)lr,
               openblas_get_corename(), threads, loss[0], loss[1]);
    sm_executor_free(ex);
    sm_network_free(net);
    sm_registry_free(reg);
    return rc;
}

/* argv (this program's own arguments, less --kernels) run again under each core type. */
static int kernels(char **argv)
{
    static const char *const cores[] = {"Haswell", "SkylakeX", "Sandybridge", "Prescott"};
    double lo[2] = {0, 0}, hi[2] = {0, 0};
    int runs = 0;
    for (size_t k = 0; k < sizeof cores / sizeof cores[0]; k++) {
        int fd[2];
        if (pipe(fd)) {
            perror("zoo_losses: pipe");
            return 1;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("zoo_losses: fork");
            return 1;
        }
        if (pid == 0) {
            dup2(fd[1], STDOUT_FILENO);
            close(fd[0]);
            close(fd[1]);
            setenv("OPENBLAS_CORETYPE", cores[k], 1);
            execv("/proc/self/exe", argv);
            perror("zoo_losses: execv");
            _exit(127);
        }
        close(fd[1]);
        char line[1024] = "";
        FILE *in = fdopen(fd[0], "r");
        if (!in || !fgets(line, sizeof line, in))
            line[0] = '\0';
        if (in)
            fclose(in);
        int status = 0;
        waitpid(pid, &status, 0);
        fputs(line, stdout);
        const char *colon = strrchr(line, ':');
        double l[2];
        if (!WIFEXITED(status) || WEXITSTATUS(status) || !colon ||
            sscanf(colon + 1, "%lf %lf", &l[0], &l[1]) != 2) {
            fprintf(stderr, "zoo_losses: the run under OPENBLAS_CORETYPE=%s failed\n", cores[k]);
            return 1;
        }
        for (int s = 0; s < 2; s++) {
            lo[s] = runs == 0 || l[s] < lo[s] ? l[s] : lo[s];
            hi[s] = runs == 0 || l[s] > hi[s] ? l[s] : hi[s];
        }
        runs++;
    }
    for (int s = 0; s < 2; s++)
        printf("step %d: %.6f .. %.6f, spread %.2g, %.2g of step 0's loss\n", s, lo[s], hi[s],
               hi[s] - lo[s], (hi[s] - lo[s]) / lo[0]);
    return 0;
}

int main(int argc, char **argv)
{
    int spread = argc > 1 && !strcmp(argv[1], "--kernels");
    char **args = argv + spread; /* args[0] stands for the program in the runs of --kernels */
    int n = argc - spread;
    if (n < 4 || n > 5)
        return usage();
    char *end;
    long long input = strtoll(args[2], &end, 10);
    float lr = strtof(args[3], &end);
    int threads = n == 5 ? atoi(args[4]) : 1;
    if (input < 1 || threads < 1)
        return usage();
    if (spread) {
        args[0] = argv[0];
        return kernels(args);
    }
    return run(args[1], input, lr, threads);
}
