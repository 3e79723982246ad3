/*
 * The all-reduce implementations the benchmark knows. Both here keep their buffer in host
 * memory, so load, store and wait are trivial; they differ only in run. Where the cuda module
 * was built (CUDA, cuDNN and NCCL found) and loads, a third, nccl, keeps it on the GPU
 * (allreduce_nccl.c).
 */
#include "allreduce.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce_ring.h"
#include "backend_module.h"

typedef struct host_ctx {
    MPI_Comm comm;
    float *buf;
    size_t max_count;
    size_t chunk_elems;
    float *scratch; /* ring only */
} host_ctx;

static int mpi_failed(sm_status *st, const char *what, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    return sm_fail(st, "%s: %s", what, text);
}

/* Collective: fails on every rank when any rank could not allocate, naming the first. */
static int open_host(void **out, size_t max_count, MPI_Comm comm, const sm_allreduce_options *opt,
                     size_t scratch_elems, sm_status *st)
{
    int rank, bad = 0, rc;
    MPI_Comm_rank(comm, &rank);
    host_ctx *c = calloc(1, sizeof *c);
    if (c) {
        *c = (host_ctx){comm, calloc(max_count ? max_count : 1, sizeof(float)), max_count,
                        opt ? opt->chunk_elems : 0,
                        scratch_elems ? calloc(scratch_elems, sizeof(float)) : NULL};
        if (!c->buf || (scratch_elems && !c->scratch))
            bad = rank + 1;
    } else {
        bad = rank + 1;
    }
    int first_bad = 0;
    if ((rc = MPI_Allreduce(&bad, &first_bad, 1, MPI_INT, MPI_MAX, comm)) == MPI_SUCCESS &&
        first_bad == 0) {
        *out = c;
        return 0;
    }
    if (c) {
        free(c->buf);
        free(c->scratch);
        free(c);
    }
    if (rc != MPI_SUCCESS)
        return mpi_failed(st, "all-reduce buffers", rc);
    return sm_fail(st, "cannot allocate %zu bytes for the all-reduce buffer on rank %d",
                   max_count * sizeof(float), first_bad - 1);
}

static int open_ring(void **ctx, size_t max_count, MPI_Comm comm, const sm_allreduce_options *opt,
                     sm_status *st)
{
    int n;
    MPI_Comm_size(comm, &n);
    /* The scratch a run needs grows with count up to one chunk per slot, so max_count's is
     * enough for every smaller count. */
    return open_host(ctx, max_count, comm, opt,
                     sm_ring_scratch_elems(max_count, n, opt ? opt->chunk_elems : 0), st);
}

static int open_mpi(void **ctx, size_t max_count, MPI_Comm comm, const sm_allreduce_options *opt,
                    sm_status *st)
{
    return open_host(ctx, max_count, comm, opt, 0, st);
}

static int load_host(void *ctx, const float *host, size_t count, sm_status *st)
{
    host_ctx *c = ctx;
    if (count > c->max_count)
        return sm_fail(st, "%zu floats exceed the %zu the buffer was opened for", count,
                       c->max_count);
    memcpy(c->buf, host, count * sizeof *host);
    return 0;
}

static int store_host(void *ctx, float *host, size_t count, sm_status *st)
{
    host_ctx *c = ctx;
    if (count > c->max_count)
        return sm_fail(st, "%zu floats exceed the %zu the buffer was opened for", count,
                       c->max_count);
    memcpy(host, c->buf, count * sizeof *host);
    return 0;
}

static int wait_host(void *ctx, sm_status *st)
{
    (void)ctx;
    (void)st;
    return 0;
}

static void close_host(void *ctx)
{
    host_ctx *c = ctx;
    if (!c)
        return;
    free(c->buf);
    free(c->scratch);
    free(c);
}

static int run_ring(void *ctx, size_t count, sm_status *st)
{
    host_ctx *c = ctx;
    int rc = sm_ring_allreduce_scratch(c->buf, count, c->comm, c->chunk_elems, c->scratch);
    return rc == MPI_SUCCESS ? 0 : mpi_failed(st, "ring all-reduce", rc);
}

static int run_mpi(void *ctx, size_t count, sm_status *st)
{
    host_ctx *c = ctx;
    /* MPI counts are int: a buffer beyond INT_MAX floats goes in pieces. */
    for (size_t done = 0; done < count;) {
        int piece = count - done > INT_MAX ? INT_MAX : (int)(count - done);
        int rc = MPI_Allreduce(MPI_IN_PLACE, c->buf + done, piece, MPI_FLOAT, MPI_SUM, c->comm);
        if (rc != MPI_SUCCESS)
            return mpi_failed(st, "MPI_Allreduce", rc);
        done += (size_t)piece;
    }
    return 0;
}

static const sm_allreduce_impl impls[] = {
    {"ring", "our ring all-reduce over MPI point-to-point, pipelined in chunks", open_ring,
     load_host, run_ring, wait_host, store_host, close_host},
    {"mpi", "MPI_Allreduce of the MPI library (the reference)", open_mpi, load_host, run_mpi,
     wait_host, store_host, close_host},
};
#define N_HOST_IMPLS ((int)(sizeof impls / sizeof impls[0]))

/* Ranks the launcher starts on this host (Open MPI, MPICH), before MPI_Init; 1 without one. */
static int launcher_local_ranks(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0)
            return atoi(v);
    }
    return 1;
}

static sm_status nccl_why = {""};

/* nccl, the cuda module's, counts only where it can run: a GPU for every rank of this host
 * (NCCL refuses two ranks on one GPU), or GPUs srun gave each rank. Elsewhere `--impl all` keeps
 * meaning what runs here, and `scalemeter backends` says whether nccl is built in. */
static const sm_allreduce_impl *nccl_impl(void)
{
    static const sm_allreduce_impl *nccl;
    static int asked;
    if (!asked) {
        asked = 1;
        const sm_backend_module *m = NULL;
        if (!sm_backend_module_built("cuda"))
            sm_fail(&nccl_why, "the cuda backend is not built");
        else if ((m = sm_backend_module_load("cuda", &nccl_why)) != NULL) {
            int devices = m->device_count(), ranks = launcher_local_ranks();
            /* srun gives each task its devices (--gpus-per-task) through CUDA_VISIBLE_DEVICES:
             * whether they are its own, the device choice (gpu_choice.h) tells after MPI_Init */
            const char *step = getenv("SLURM_STEP_ID"), *cvd = getenv("CUDA_VISIBLE_DEVICES");
            int per_task = step && *step && cvd && *cvd && devices >= 1;
            if (devices >= ranks || per_task)
                nccl = m->allreduce;
            else
                sm_fail(&nccl_why, "%d rank%s on this host, %d CUDA device%s", ranks,
                        ranks == 1 ? "" : "s", devices, devices == 1 ? "" : "s");
        }
    }
    return nccl;
}

const char *sm_allreduce_nccl_why(void) { return nccl_impl() ? "" : nccl_why.msg; }

int sm_allreduce_impl_count(void) { return N_HOST_IMPLS + (nccl_impl() != NULL); }

const sm_allreduce_impl *sm_allreduce_impl_at(int i)
{
    if (i >= 0 && i < N_HOST_IMPLS)
        return &impls[i];
    return i == N_HOST_IMPLS ? nccl_impl() : NULL;
}

const sm_allreduce_impl *sm_allreduce_impl_find(const char *name)
{
    for (int i = 0; i < sm_allreduce_impl_count(); i++)
        if (strcmp(sm_allreduce_impl_at(i)->name, name) == 0)
            return sm_allreduce_impl_at(i);
    return NULL;
}
