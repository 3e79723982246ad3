/*
 * scalemeter backends: what this binary can measure with, and whether it can here and now.
 * Compute backends (cpu, cuda: what `bench --backend` takes), collectives (ring, mpi, nccl:
 * what `allreduce --impl` takes) and the energy meter (nvml). "built" is whether the backend's
 * module (lib/scalemeter/backends/cpu.so, cuda.so; calibrate/backend_module.h) was built;
 * "usable" is asked now: the module loads (else the detail is the library it misses), a GPU is
 * visible, NVML loads. Starts no MPI job: safe on a login node.
 */
#include <stdio.h>
#include <string.h>

#include "backend_module.h"
#include "commands.h"
#include "output.h"

static void usage(void)
{
    printf("usage: scalemeter backends [--format table|csv|json] [-o FILE]\n\n"
           "Lists the compute backends (cpu, cuda), the all-reduce implementations (ring, mpi,\n"
           "nccl) and the energy meter (nvml) of this binary: whether each is built (its module\n"
           "lib/scalemeter/backends/cpu.so or cuda.so is there), and whether it is usable on\n"
           "this machine now (the module loads; for cuda and nccl: a CUDA device is visible;\n"
           "for nvml: libnvidia-ml.so.1 loads and reads a device), with a detail: why not.\n");
}

typedef sm_backend_row backend;

enum { N_BACKENDS = 6 };

/* Every row of module name's from what it says, or, where it does not load, why. */
static void ask(const char *name, backend *b)
{
    sm_status st = {""};
    int built = sm_backend_module_built(name);
    const sm_backend_module *m = built ? sm_backend_module_load(name, &st) : NULL;
    backend rows[N_BACKENDS];
    int n = m ? m->describe(rows, N_BACKENDS) : 0;
    for (int i = 0; i < N_BACKENDS; i++) {
        if (strcmp(b[i].detail, name) != 0) /* rows of another module */
            continue;
        b[i].built = built;
        if (!built)
            snprintf(b[i].detail, sizeof b[i].detail, "not built (needs %s to build)",
                     strcmp(name, "cuda") ? "Open MPI and OpenBLAS" : "CUDA, cuDNN and NCCL");
        else if (!m)
            snprintf(b[i].detail, sizeof b[i].detail, "%.500s", st.msg);
        for (int k = 0; k < n; k++)
            if (!strcmp(rows[k].name, b[i].name))
                b[i] = rows[k];
    }
}

static void describe(backend *b)
{
    /* the detail names the module until it answers */
    static const char *const rows[N_BACKENDS][3] = {
        {"cpu", "compute", "cpu"},    {"cuda", "compute", "cuda"},    {"ring", "collective", "cpu"},
        {"mpi", "collective", "cpu"}, {"nccl", "collective", "cuda"}, {"nvml", "energy", "cpu"}};
    for (int i = 0; i < N_BACKENDS; i++) {
        b[i] = (backend){rows[i][0], rows[i][1], 0, 0, ""};
        snprintf(b[i].detail, sizeof b[i].detail, "%s", rows[i][2]);
    }
    ask("cpu", b);
    ask("cuda", b);
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

/* name,kind,built,usable,detail: true and false, as predict's fits */
static void print_csv(const backend *b)
{
    printf("name,kind,built,usable,detail\n");
    for (int i = 0; i < N_BACKENDS; i++) {
        printf("%s,%s,%s,%s,", b[i].name, b[i].kind, b[i].built ? "true" : "false",
               b[i].usable ? "true" : "false");
        csv_field(stdout, b[i].detail);
        putchar('\n');
    }
}

static void print_json(const backend *b)
{
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_warning_member(&w, ""); /* an option's (given twice) */
    json_key(&w, "backends");
    json_begin_array(&w);
    json_one_per_line(&w);
    for (int i = 0; i < N_BACKENDS; i++) {
        json_begin_object(&w);
        json_field_string(&w, "name", b[i].name);
        json_field_string(&w, "kind", b[i].kind);
        json_field_bool(&w, "built", b[i].built);
        json_field_bool(&w, "usable", b[i].usable);
        json_field_string(&w, "detail", b[i].detail);
        json_end(&w);
    }
    json_end(&w);
    json_end(&w);
}

int cmd_backends(int argc, char **argv)
{
    output_format format = FORMAT_TABLE;
    int rc = format_options(argc, argv, 1u << FORMAT_TABLE | 1u << FORMAT_CSV | 1u << FORMAT_JSON,
                            &format, usage);
    if (rc)
        return rc < 0 ? 0 : rc;
    backend b[N_BACKENDS];
    describe(b);
    if (format == FORMAT_JSON)
        print_json(b);
    else if (format == FORMAT_CSV)
        print_csv(b);
    else
        print_table(b);
    return 0;
}
