/*
 * The CPU backend of the step benchmark (bench.h): the CPU executor's phases, gradients summed
 * by our ring (allreduce_ring.h) or MPI_Allreduce, timestamps from MPI_Wtime. Everything runs
 * at once, so sync has nothing to wait for. And the cpu row of bench's backend table.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce_ring.h"
#include "bench_backend.h"
#include "scalemeter/fit.h"

typedef struct cpu_bench {
    sm_executor *ex;
    const sm_bench_config *cfg;
    MPI_Comm comm;
    float *scratch; /* the ring's, for the largest bucket */
    double *marks;
    int n_marks;
} cpu_bench;

static int forward(void *self, int training, sm_status *st)
{
    return sm_executor_forward(((cpu_bench *)self)->ex, training, st);
}

static int loss(void *self, double *value, sm_status *st)
{
    return sm_executor_loss(((cpu_bench *)self)->ex, value, st);
}

static int backward(void *self, sm_status *st)
{
    return sm_executor_backward(((cpu_bench *)self)->ex, st);
}

static void next_seed(void *self) { sm_executor_next_seed(((cpu_bench *)self)->ex); }

static float *grads(void *self, int64_t *n)
{
    return sm_executor_weight_grads(((cpu_bench *)self)->ex, n);
}

static int allreduce(void *self, float *g, size_t n, sm_status *st)
{
    cpu_bench *b = self;
    int rc = b->cfg->allreduce == SM_BENCH_RING
                 ? sm_ring_allreduce_scratch(g, n, b->comm, 0, b->scratch)
                 : MPI_Allreduce(MPI_IN_PLACE, g, (int)n, MPI_FLOAT, MPI_SUM, b->comm);
    if (rc == MPI_SUCCESS)
        return 0;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return sm_fail(st, "gradient all-reduce failed: %s", msg);
}

static int sgd(void *self, float lr, sm_status *st)
{
    (void)st;
    sm_executor_sgd(((cpu_bench *)self)->ex, lr);
    return 0;
}

static int sample(void *self, const float *g, int64_t stride, int k, float *out, sm_status *st)
{
    (void)self;
    (void)st;
    for (int i = 0; i < k; i++)
        out[i] = g[i * stride];
    return 0;
}

static int sync_nothing(void *self, sm_status *st)
{
    (void)self;
    (void)st;
    return 0;
}

static int clocks(void *self, int n, sm_status *st)
{
    cpu_bench *b = self;
    if (n <= b->n_marks)
        return 0;
    double *m = realloc(b->marks, (size_t)n * sizeof *m);
    if (!m)
        return sm_fail(st, "out of host memory");
    b->marks = m;
    b->n_marks = n;
    return 0;
}

static int mark(void *self, int i, sm_status *st)
{
    (void)st;
    ((cpu_bench *)self)->marks[i] = MPI_Wtime();
    return 0;
}

static int seconds(void *self, int a, int b, double *s, sm_status *st)
{
    (void)st;
    const cpu_bench *c = self;
    *s = c->marks[b] - c->marks[a];
    return 0;
}

int sm_bench_cpu(sm_executor *ex, const sm_bench_config *cfg, MPI_Comm comm,
                 sm_bench_progress_fn progress, void *ctx, sm_bench_result *out, sm_status *st)
{
    sm_bench_ops ops = {
        .collective = cfg->allreduce == SM_BENCH_RING ? "ring" : "MPI",
        .check_tolerance = 1e-5,
        .forward = forward,
        .loss = loss,
        .backward = backward,
        .next_seed = next_seed,
        .grads = grads,
        .allreduce = allreduce,
        .sgd = sgd,
        .sample = sample,
        .sync = sync_nothing,
        .clocks = clocks,
        .mark = mark,
        .seconds = seconds,
    };
    cpu_bench b = {ex, cfg, comm, NULL, NULL, 0};
    int ranks;
    MPI_Comm_size(comm, &ranks);
    size_t scratch = sm_ring_scratch_elems(cfg->bucket_floats, ranks, 0);
    int failed = scratch && !(b.scratch = malloc(scratch * sizeof(float))), any = failed;
    if (ranks > 1)
        MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
    int rc = -1;
    if (failed)
        sm_fail(st, "out of memory for the all-reduce's scratch");
    else if (any)
        st->msg[0] = '\0';
    else
        rc = sm_bench_run(&ops, &b, cfg, NULL, comm, progress, ctx, out, st);
    free(b.scratch);
    free(b.marks);
    return rc;
}

/* ---- the cpu row of bench's backend table (bench_backend.h) ------------------------------- */

/* MemAvailable of /proc/meminfo in bytes; 0 when unknown. */
static double available_memory(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

static int cpu_open(MPI_Comm comm, void **job, char *note, size_t note_len, sm_status *st)
{
    (void)comm;
    (void)st;
    *job = NULL;
    if (note_len)
        note[0] = '\0';
    return 0;
}

static void cpu_close(void *job) { (void)job; }

static const char *cpu_device(const void *job)
{
    (void)job;
    return NULL;
}

/* Without a limit asked for, nine tenths of the memory available to each rank of this host. */
static int cpu_executor_new(void *job, const sm_network *net, const sm_bench_options *o, void **ex,
                            sm_status *st)
{
    (void)job;
    double limit = o->max_bytes > 0 ? (double)o->max_bytes
                                    : 0.9 * available_memory() / (o->per_node ? o->per_node : 1);
    sm_executor_options opt = {
        .batch = o->batch, .seed = 1, .max_bytes = (int64_t)limit, .name_faults = 1};
    return sm_executor_new(net, &opt, (sm_executor **)ex, st);
}

static void cpu_executor_free(void *ex) { sm_executor_free(ex); }

static const char *cpu_collective(const sm_bench_config *cfg)
{
    return cfg->allreduce == SM_BENCH_RING ? "ring" : "mpi";
}

static int cpu_run(void *job, void *ex, const sm_bench_config *cfg, MPI_Comm comm,
                   sm_bench_progress_fn progress, void *ctx, sm_bench_result *out, sm_status *st)
{
    (void)job;
    return sm_bench_cpu(ex, cfg, comm, progress, ctx, out, st);
}

const sm_bench_backend sm_bench_backend_cpu = {
    .name = "cpu",
    .n_columns = SM_N_CPU_COLS,
    .open = cpu_open,
    .close = cpu_close,
    .device = cpu_device,
    .collective = cpu_collective,
    .check = sm_executor_check,
    .executor_new = cpu_executor_new,
    .executor_free = cpu_executor_free,
    .run = cpu_run,
};
