/* scalemeter: predicts how long a deep network takes to train and run, and how it scales. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "external.h"
#include "output.h"
#include "scalemeter/scalemeter.h"

static const command commands[] = {
    {"allreduce", cmd_allreduce, "time all-reduce over MPI ranks: our ring and MPI_Allreduce"},
    {"backends", cmd_backends, "compute backends and all-reduces built in, and usable here"},
    {"bench", cmd_bench, "measure training steps and inference of networks into a runs CSV"},
    {"calibrate", cmd_calibrate, "calibrate this machine in one job: bench, fit, validate"},
    {"check-plugin", cmd_check_plugin, "a plugin against its cases: counts, refusals, gradients"},
    {"compare", cmd_compare, "one network's step on several parts side by side: which to rent"},
    {"curve", cmd_curve, "scaling curves against node count: times, images/s, turning point"},
    {"devices", cmd_devices, "the device descriptions: peaks, memory and their sources"},
    {"fit", cmd_fit, "fit coefficients to a measurement CSV; --cv loo validates them"},
    {"fit-comm", cmd_fit_comm, "fit all-reduce bandwidths and latencies to nccl-tests output"},
    {"metrics", cmd_metrics, "FLOPs, conv inputs/outputs, weights and layers of a network"},
    {"models", cmd_models, "the networks of the zoo: input, weights and MACs of each"},
    {"plugins", cmd_plugins, "list the loaded layer types and their plugin files"},
    {"predict", cmd_predict, "step, epoch and throughput of a network from coefficients"},
    {"validate", cmd_validate, "errors of coefficients or a device model on measured runs"},
};
static const int n_commands = (int)(sizeof commands / sizeof commands[0]);

static void usage(FILE *out)
{
    fprintf(out, "usage: scalemeter COMMAND [options]   (scalemeter help COMMAND for more)\n\n"
                 "Predicts forward, backward and gradient-synchronisation time of deep networks\n"
                 "against batch size and node count (ConvMeter, PALEO).\n\ncommands:\n");
    for (int i = 0; i < n_commands; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    external_usage(out);
    fprintf(out,
            "\nEvery command takes --help. allreduce, backends, compare, curve, devices, fit,\n"
            "fit-comm, metrics, models, plugins, predict and validate take --format (table,\n"
            "csv or json; curve also svg; predict --per-block table or json; docs/output.md)\n"
            "and "
            "-o FILE; bench's -o is its runs CSV and calibrate's the prefix of its files,\n"
            "and check-plugin prints a line a case. \"--\" ends the options and \"-\" reads a\n"
            "file from the standard input.\n");
    fprintf(out, "\nenvironment:\n  SCALEMETER_PLUGIN_PATH  ':'-separated absolute folders of "
                 "extra layer plugins\n                          (*.so, native code: keep them "
                 "writable by you only)\n");
}

int main(int argc, char **argv)
{
    sm_plugin_stdout_to_stderr(1); /* a plugin's printf must not land in a JSON document */
    if (argc > 3 && !strcmp(argv[1], "help")) { /* help takes one command */
        fprintf(stderr,
                "scalemeter help: one command at a time ('%s' after %s; scalemeter help "
                "lists them)\n",
                argv[3], argv[2]);
        return 2;
    }
    if (argc >= 3 && !strcmp(argv[1], "help")) { /* help CMD: CMD --help */
        if (!strcmp(argv[2], "help") || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
            usage(stdout); /* help's own help is the command list */
            return output_finish("help", 0);
        }
        for (int i = 0; i < n_commands; i++)
            if (strcmp(argv[2], commands[i].name) == 0) {
                char *args[] = {argv[2], "--help", NULL};
                command_begin(argv[2]);
                return output_finish(argv[2], commands[i].run(2, args));
            }
        char *ext[] = {argv[2], "--help", NULL};
        int rc = external_command(2, ext);
        if (rc >= 0)
            return rc;
        fprintf(stderr, "scalemeter help: unknown command '%s' (scalemeter help lists them)\n",
                argv[2]);
        return 2;
    }
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : output_finish("help", 0);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("scalemeter %s\n", SCALEMETER_VERSION);
        return output_finish(argv[1], 0);
    }
    for (int i = 0; i < n_commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* output that never arrived is an error: a full disk, a closed pipe, /dev/full */
            command_begin(argv[1]);
            return output_finish(argv[1], commands[i].run(argc - 1, argv + 1));
        }
    int rc = external_command(argc - 1, argv + 1); /* scalemeter-NAME beside the binary */
    if (rc >= 0)
        return rc;
    fprintf(stderr, "scalemeter: unknown command '%s' (scalemeter --help lists them)\n", argv[1]);
    return 2;
}
