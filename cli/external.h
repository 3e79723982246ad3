/* External commands, git's way: `scalemeter NAME ARGS` runs the program scalemeter-NAME that
 * lies beside the scalemeter binary (installed or built there), so a command written in another
 * language, the PyTorch exporter scalemeter-export-torch, is one of scalemeter's. */
#ifndef SCALEMETER_CLI_EXTERNAL_H
#define SCALEMETER_CLI_EXTERNAL_H

#include <stdio.h>

/* Runs scalemeter-NAME with ARGS (argv[0] is NAME); returns -1 where there is no such program
 * beside the binary, else (exec failing) prints why and returns 1. */
int external_command(int argc, char **argv);

/* The known external commands found beside the binary, as lines of `scalemeter --help`. */
void external_usage(FILE *out);

#endif
