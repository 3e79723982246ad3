/* What the MPI launcher tells a process before MPI_Init: its rank, so that only rank 0 prints
 * a usage error and only rank 0 goes on to the steps after a collective command; and whether
 * srun started it without the PMIx that Open MPI needs, which MPI_Init would answer with
 * twenty lines and an abort. */
#ifndef SCALEMETER_CLI_LAUNCHER_H
#define SCALEMETER_CLI_LAUNCHER_H

#include <stddef.h>

/* This process's rank in the job (0 when not started by mpirun or srun). */
int launcher_rank(void);

/* How many ranks the launcher started (1 when not started by mpirun or srun). */
int launcher_ranks(void);

/* 1 where srun started this process without PMIx (plain srun, --mpi=pmi2 or none) and
 * mpirun did not either, with the one-line message saying what to run instead in msg (NULL:
 * none); 0 otherwise. */
int launcher_srun_without_pmix(char *msg, size_t len);

/* A copy of argv[0..argc) as given, NULL-terminated, for sm_same_arguments: getopt_long moves
 * the operands behind the options. NULL when out of memory; free() it. */
char **launcher_argv_copy(int argc, char **argv);

#endif
