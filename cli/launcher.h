/* What the MPI launcher tells a process before MPI_Init: its rank, so that only rank 0 prints
 * a usage error and only rank 0 goes on to the steps after a collective command. */
#ifndef SCALEMETER_CLI_LAUNCHER_H
#define SCALEMETER_CLI_LAUNCHER_H

/* This process's rank in the job (0 when not started by mpirun). */
int launcher_rank(void);

#endif
