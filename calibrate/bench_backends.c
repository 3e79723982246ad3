/*
 * bench's compute backends by name (cpu here, cuda from its module) and what every
 * configuration does alike whichever runs it (bench_backend.h): executor, agreement over the
 * ranks, measurement.
 */
#include "bench_backend.h"

#include <stdio.h>
#include <string.h>

#include "backend_module.h"

const sm_bench_backend *sm_bench_backend_find(const char *name, sm_status *st)
{
    if (!strcmp(name, "cpu"))
        return &sm_bench_backend_cpu;
    if (strcmp(name, "cuda") != 0) {
        sm_fail(st, "--backend %s: expected cpu%s", name,
                sm_backend_module_built("cuda") ? " or cuda" : "");
        return NULL;
    }
    if (!sm_backend_module_built("cuda")) {
        sm_fail(st, "--backend cuda: expected cpu (the GPU backend is not built into this "
                    "binary: it needs CUDA, cuDNN and NCCL at build time; scalemeter backends)");
        return NULL;
    }
    const sm_backend_module *m = sm_backend_module_load("cuda", st);
    return m ? m->bench : NULL;
}

/* A GPU library that ran out of device memory inside a call (cuDNN's algorithm search, cuBLAS's
 * workspace) says so only in its message: the configuration does not fit, like
 * SM_EXECUTOR_NOMEM. */
static int out_of_memory(const char *msg)
{
    return strstr(msg, "out of memory") || strstr(msg, "ALLOC_FAILED") ||
           strstr(msg, "ALLOCATION_FAILED");
}

/* The largest of every rank's code. */
static int agree_max(MPI_Comm comm, int code)
{
    int worst = code;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm);
    return worst;
}

int sm_bench_measure(const sm_bench_backend *b, void *job, const sm_network *net,
                     const sm_bench_options *o, const sm_bench_config *cfg, MPI_Comm comm,
                     sm_bench_progress_fn progress, void *ctx, sm_bench_result *out, sm_status *st)
{
    void *ex = NULL;
    int rc = b->executor_new(job, net, o, &ex, st);
    if (rc == -1 && out_of_memory(st->msg))
        rc = SM_EXECUTOR_NOMEM;
    int code = agree_max(comm, rc == 0 ? 0 : rc == SM_EXECUTOR_NOMEM ? 1 : 2);
    if (code) {
        b->executor_free(ex);
        if (code == 1)
            return SM_BENCH_NOMEM;
        if (rc == 0 || rc == SM_EXECUTOR_NOMEM)
            st->msg[0] = '\0'; /* another rank failed: its message comes from it */
        return -1;
    }
    rc = b->run(job, ex, cfg, comm, progress, ctx, out, st);
    b->executor_free(ex);
    /* the warm-up failed on every rank together: for want of memory on any, the same as not
     * fitting */
    if (rc == -1 && agree_max(comm, out_of_memory(st->msg) ? 1 : 0))
        return SM_BENCH_NOMEM;
    return rc;
}
