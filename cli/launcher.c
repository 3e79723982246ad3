/* The rank from the launcher's environment, and srun without PMIx (launcher.h). */
#include "launcher.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int launcher_rank(void)
{
    /* SLURM_PROCID last: srun sets it whatever its --mpi, and mpirun inside sbatch, which
     * sets the others, leaves the batch script's 0 */
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    for (int i = 0; i < 4; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return 0;
}

int launcher_ranks(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0)
            return atoi(v);
    }
    return 1;
}

static int set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

int launcher_srun_without_pmix(char *msg, size_t len)
{
    /* a job step (srun), not the batch script (where a singleton MPI_Init works), and neither
     * PMIx's server (srun --mpi=pmix) nor mpirun's environment */
    if (!set("SLURM_STEP_ID") && !set("SLURM_STEPID"))
        return 0;
    if (set("PMIX_RANK") || set("PMIX_NAMESPACE") || set("OMPI_COMM_WORLD_SIZE"))
        return 0;
    if (msg && len) {
        const char *n = getenv("SLURM_STEP_NUM_TASKS"), *type = getenv("SLURM_MPI_TYPE");
        if (!n || !*n)
            n = getenv("SLURM_NTASKS");
        int ranks = n && atoi(n) > 0 ? atoi(n) : 1;
        char how[64] = "";
        if (type && *type)
            snprintf(how, sizeof how, " (--mpi=%.40s)", type);
        snprintf(msg, len,
                 "srun%s started %d rank%s without PMIx: run `srun --mpi=pmix ...` "
                 "(Debian's Open MPI talks to Slurm through PMIx), or mpirun inside "
                 "sbatch",
                 how, ranks, ranks == 1 ? "" : "s");
    }
    return 1;
}

char **launcher_argv_copy(int argc, char **argv)
{
    char **given = calloc((size_t)argc + 1, sizeof *given);
    if (given)
        memcpy(given, argv, (size_t)argc * sizeof *given);
    return given;
}
