/* Whether every rank of a job was started with the same command line. mpirun starts one
 * command everywhere, but a wrapper script can give one rank other options: a rank with
 * another --bucket-mib sent messages the others never received (the job hung), one with
 * another --image or --threads failed the all-reduce's check with a sum nobody could explain,
 * and one whose options were refused left silently (only rank 0 reports a usage error). */
#ifndef SCALEMETER_SAME_ARGUMENTS_H
#define SCALEMETER_SAME_ARGUMENTS_H

#include <mpi.h>

#include "scalemeter/scalemeter.h"

/* Collective over comm: 0 where every rank's argv[1..argc) equals rank 0's (argv[0], the
 * program's path, may differ from host to host); else -1 on every rank, with the message
 * ("its arguments differ from rank 0's: ...") kept by the lowest rank whose arguments differ
 * and st->msg empty on the others. */
int sm_same_arguments(MPI_Comm comm, int argc, char **argv, sm_status *st);

#endif
