/*
 * The measuring backends as modules loaded at run time (as ggml's GGML_BACKEND_DL): the
 * `scalemeter` program links libscalemeter alone, so that counting and predicting never map
 * MPI, OpenBLAS's executor, CUDA, cuDNN, cuBLAS, NCCL or NVML. The commands that measure
 * load lib/scalemeter/backends/NAME.so (beside the plugins, found from libscalemeter's own
 * location) and call through the table it exports under SM_BACKEND_MODULE_SYMBOL:
 *
 *   cpu.so   the CPU executor over OpenBLAS, MPI, the ring all-reduce, NVML's energy meter,
 *            and the measuring commands bench and allreduce themselves
 *   cuda.so  the GPU executor (cuDNN, cuBLAS), NCCL; linked against cpu.so, loaded by it
 *
 * Like the plugin ABI: a module built for another ABI version, or with a smaller table, is
 * refused with a message that names its file.
 */
#ifndef SCALEMETER_BACKEND_MODULE_H
#define SCALEMETER_BACKEND_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "scalemeter/scalemeter.h"

#define SM_BACKEND_MODULE_ABI 2u
/* Each module exports its table as SM_BACKEND_MODULE_SYMBOL followed by its name
 * (sm_backend_table_cpu, sm_backend_table_cuda): cuda.so links cpu.so, and one name in both
 * would be two definitions of one global in the process (ASan's ODR check refuses it). */
#define SM_BACKEND_MODULE_SYMBOL "sm_backend_table_"

struct option;
struct sm_bench_backend;
struct sm_allreduce_impl;

/* One row of `scalemeter backends`. */
typedef struct sm_backend_row {
    const char *name, *kind;
    int built, usable;
    char detail[512];
} sm_backend_row;

typedef struct sm_backend_module {
    uint32_t abi_version; /* SM_BACKEND_MODULE_ABI */
    uint32_t struct_size; /* sizeof(sm_backend_module) as the module was built */
    const char *name;     /* cpu or cuda: the file's name */
    /* The rows of `scalemeter backends` this module answers for; returns how many. */
    int (*describe)(sm_backend_row *rows, int max);

    /* cpu: the measuring commands (argv[0] is the command's name; returns the exit code) and
     * bench's options, which calibrate passes on. NULL in cuda. */
    int (*bench_main)(int argc, char **argv);
    int (*allreduce_main)(int argc, char **argv);
    const struct option *bench_options;

    /* cuda: bench's backend row, the nccl all-reduce, the devices visible now, and the name
     * of device 0 (0, or -1 saying why there is none). NULL in cpu. */
    const struct sm_bench_backend *bench;
    const struct sm_allreduce_impl *allreduce;
    int (*device_count)(void);
    int (*device_name)(char *buf, size_t len, sm_status *st);

    /* cpu: `scalemeter check-plugin` (cli/cmd_check_plugin.c), which runs the executor. */
    int (*check_plugin_main)(int argc, char **argv);

    /* cpu: a line bench adds to what it says when a signal ends it (calibrate's). */
    void (*bench_interrupt_note)(const char *note);
} sm_backend_module;

/* The path of module name (lib/scalemeter/backends/NAME.so), and whether it exists: whether
 * this build has the backend at all. */
const char *sm_backend_module_path(const char *name, char *buf, size_t len);
int sm_backend_module_built(const char *name);

/* The table of module name, loaded once per process; NULL with a one-line message naming the
 * module, the library that is missing (dlerror) and what to do. */
const sm_backend_module *sm_backend_module_load(const char *name, sm_status *st);

#endif
