/*
 * scalemeter backends: what this binary can measure with, and whether it can here and now.
 * Compute backends (cpu, cuda: what `bench --backend` takes), collectives (ring, mpi, nccl:
 * what `allreduce --impl` takes) and the energy meter (nvml). "built" is fixed when the binary
 * is built (the GPU parts only where CUDA, cuDNN and NCCL were found); "usable" is asked now
 * (a GPU visible, NVML loadable). Starts no MPI job: safe on a login node.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "allreduce.h"
#include "commands.h"
#include "nvml_energy.h"
#include "output.h"
#ifdef SM_HAVE_CUDA
#include "cuda_device.h"
#endif

static void usage(void)
{
    printf("usage: scalemeter backends [--format table|json] [-o FILE]\n\n"
           "Lists the compute backends (cpu, cuda), the all-reduce implementations (ring, mpi,\n"
           "nccl) and the energy meter (nvml) of this binary: whether each is built in, and\n"
           "whether it is usable on this machine now (for cuda and nccl: a CUDA device is\n"
           "visible; for nvml: libnvidia-ml.so.1 loads and reads a device), with a detail.\n");
}

typedef struct backend {
    const char *name, *kind;
    int built, usable;
    char detail[512];
} backend;

enum { N_BACKENDS = 6 };

static void describe(backend *b)
{
    sm_status st = {""};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    b[0] = (backend){"cpu", "compute", 1, 1, ""};
    snprintf(b[0].detail, sizeof b[0].detail,
             "the plugins' CPU kernels, OpenBLAS for GEMMs; %ld cores", cores);
    b[1] = (backend){"cuda", "compute", 0, 0, "not built in (needs CUDA, cuDNN and NCCL to build)"};
    b[2] = (backend){"ring", "collective", 1, 1, "our ring all-reduce over MPI point-to-point"};
    b[3] = (backend){"mpi", "collective", 1, 1, ""};
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len); /* one of the calls allowed before MPI_Init */
    version[strcspn(version, ",\n")] = '\0';
    snprintf(b[3].detail, sizeof b[3].detail, "MPI_Allreduce of %s", version);
    b[4] = (backend){"nccl", "collective", 0, 0, "not built in (needs CUDA, cuDNN and NCCL to build)"};
#ifdef SM_HAVE_CUDA
    b[1].built = b[4].built = 1;
    char what[400];
    if (sm_cuda_describe(what, sizeof what, &st) == 0) {
        b[1].usable = b[4].usable = 1;
        snprintf(b[1].detail, sizeof b[1].detail, "cuDNN, cuBLAS; %s", what);
        snprintf(b[4].detail, sizeof b[4].detail, "ncclAllReduce, one GPU per rank");
    } else {
        snprintf(b[1].detail, sizeof b[1].detail, "%.400s", st.msg);
        snprintf(b[4].detail, sizeof b[4].detail, "needs a CUDA device");
    }
#endif
    b[5] = (backend){"nvml", "energy", 1, 0, ""};
    sm_energy_meter *m = NULL;
    if (sm_energy_open(NULL, &m, &st) == 0) {
        b[5].usable = 1;
        snprintf(b[5].detail, sizeof b[5].detail, "GPU energy by %s",
                 strcmp(sm_energy_method(m), "counter") == 0
                     ? "its counter (nvmlDeviceGetTotalEnergyConsumption)"
                     : "sampling its power (nvmlDeviceGetPowerUsage)");
        sm_energy_close(m);
    } else {
        snprintf(b[5].detail, sizeof b[5].detail, "%.400s", st.msg);
    }
}

static void print_table(const backend *b)
{
    static const char *const headers[] = {"backend", "kind", "built", "usable", "detail"};
    text_table *t = table_new(5, headers);
    for (int i = 0; i < N_BACKENDS; i++) {
        const char *cells[] = {b[i].name, b[i].kind, b[i].built ? "yes" : "no",
                               b[i].usable ? "yes" : "no", b[i].detail};
        table_add(t, cells);
    }
    table_print(t, stdout);
    table_free(t);
}

static void print_json(const backend *b)
{
    printf("{\"backends\": [");
    for (int i = 0; i < N_BACKENDS; i++) {
        printf("%s\n  {\"name\": ", i ? "," : "");
        json_string(stdout, b[i].name);
        printf(", \"kind\": ");
        json_string(stdout, b[i].kind);
        printf(", \"built\": %s, \"usable\": %s, \"detail\": ", b[i].built ? "true" : "false",
               b[i].usable ? "true" : "false");
        json_string(stdout, b[i].detail);
        printf("}");
    }
    printf("\n]}\n");
}

int cmd_backends(int argc, char **argv)
{
    output_format format = FORMAT_TABLE;
    int rc = format_options(argc, argv, 1u << FORMAT_TABLE | 1u << FORMAT_JSON, &format, usage);
    if (rc)
        return rc == 1 ? 0 : rc;
    backend b[N_BACKENDS];
    describe(b);
    if (format == FORMAT_JSON)
        print_json(b);
    else
        print_table(b);
    return 0;
}
