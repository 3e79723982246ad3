/*
 * lib/scalemeter/backends/cpu.so (calibrate/backend_module.h): the commands that measure,
 * bench and allreduce, with everything they link (MPI, the CPU executor over OpenBLAS, the
 * ring all-reduce, NVML's energy meter), so that the `scalemeter` program itself links none
 * of it. cuda.so is loaded from here when --backend cuda or --impl nccl asks for it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "backend_module.h"
#include "commands.h"
#include "nvml_energy.h"
#include "output.h"

static int describe(sm_backend_row *rows, int max)
{
    if (max < 4)
        return 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    rows[0] = (sm_backend_row){"cpu", "compute", 1, 1, ""};
    snprintf(rows[0].detail, sizeof rows[0].detail,
             "the plugins' CPU kernels, OpenBLAS for GEMMs; %ld cores", cores);
    rows[1] =
        (sm_backend_row){"ring", "collective", 1, 1, "our ring all-reduce over MPI point-to-point"};
    rows[2] = (sm_backend_row){"mpi", "collective", 1, 1, ""};
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len); /* one of the calls allowed before MPI_Init */
    version[strcspn(version, ",\n")] = '\0';
    snprintf(rows[2].detail, sizeof rows[2].detail, "MPI_Allreduce of %s", version);
    rows[3] = (sm_backend_row){"nvml", "energy", 1, 0, ""};
    sm_status st = {""};
    sm_energy_meter *m = NULL;
    if (sm_energy_open(NULL, &m, &st) == 0) {
        rows[3].usable = 1;
        snprintf(rows[3].detail, sizeof rows[3].detail, "GPU energy by %s",
                 strcmp(sm_energy_method(m), "counter") == 0
                     ? "its counter (nvmlDeviceGetTotalEnergyConsumption)"
                     : "sampling its power (nvmlDeviceGetPowerUsage)");
        sm_energy_close(m);
    } else {
        snprintf(rows[3].detail, sizeof rows[3].detail, "%.400s", st.msg);
    }
    return 4;
}

/* This module has its own copy of output.c, whose -o file only it can put in place: the
 * program's output_finish sees none; nor its report_error the command the program runs, which
 * it names as the program's does ("scalemeter: h100: no algorithm ..." named no command). */
static int allreduce_main(int argc, char **argv)
{
    report_as("allreduce");
    return output_finish("allreduce", cmd_allreduce(argc, argv));
}

static int bench_main(int argc, char **argv)
{
    report_as("bench");
    return output_finish("bench", cmd_bench(argc, argv)); /* its rows' flushes are this copy's */
}

static int check_plugin_main(int argc, char **argv)
{
    report_as("check-plugin");
    return output_finish("check-plugin", cmd_check_plugin(argc, argv));
}

const sm_backend_module sm_backend_table_cpu = {
    .abi_version = SM_BACKEND_MODULE_ABI,
    .struct_size = sizeof(sm_backend_module),
    .name = "cpu",
    .describe = describe,
    .bench_main = bench_main,
    .allreduce_main = allreduce_main,
    .bench_options = bench_options,
    .check_plugin_main = check_plugin_main,
    .bench_interrupt_note = bench_interrupt_note,
};
