/* The subcommands of `scalemeter`, one file each (cmd_NAME.c). */
#ifndef SCALEMETER_CLI_COMMANDS_H
#define SCALEMETER_CLI_COMMANDS_H

#include <getopt.h>
#include <stdio.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name; returns the exit code */
    const char *summary;
} command;

/* bench's options (cmd_bench.c), which calibrate passes on. */
extern const struct option bench_options[];
/* A line bench adds to what it says when a signal ends it (calibrate's: which of its files
 * are an earlier run's); "" or NULL for none. */
void bench_interrupt_note(const char *note);

/* The cpu backend module (cmd_measure.c), which holds bench and allreduce; NULL after printing
 * why it does not load, as `scalemeter COMMAND: ...`. */
const struct sm_backend_module *cpu_module(const char *cmd);

int cmd_allreduce(int argc, char **argv);
int cmd_backends(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_check_plugin(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_curve(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_fit_comm(int argc, char **argv);
/* cmd_fit with --cv loo among argv, its validation also written to json as JSON (what
 * --format json prints): calibrate's table and report from one validation. */
int cmd_fit_loo(int argc, char **argv, FILE *json);
int cmd_metrics(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_plugins(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_validate(int argc, char **argv);

#endif
