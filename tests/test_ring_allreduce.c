/*
 * Our ring all-reduce (calibrate/allreduce_ring.c) under mpirun with any rank count: for element
 * counts around and below the rank count and chunk sizes from one element to more than the
 * buffer, the result equals the exact sum and MPI_Allreduce's result bit for bit, and the floats
 * after the buffer stay untouched. Rank 0 prints the totals; every rank exits with their status.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "allreduce_ring.h"
#include "check.h"

#define GUARD 8 /* floats after the buffer that must not change */
#define GUARD_VALUE 12345.5f

static int rank, ranks;

/* Small integers, different per rank and index: every order of summation is exact. */
static float exact_value(int r, size_t i)
{
    return (float)((int)((i * 37 + (size_t)r * 11 + (i >> 4)) % 41) - 20);
}

/* Arbitrary floats of mixed magnitude: sums depend on the order of summation. */
static float inexact_value(int r, size_t i)
{
    uint32_t h = (uint32_t)(i * 2654435761u) ^ (uint32_t)((r + 1) * 40503u);
    h ^= h >> 13;
    return (float)(h % 100003) / 7.0f * (h & 1 ? 1e-3f : 1e3f);
}

static int bits_equal(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Reports the first element where got differs from want; returns 1 when they all match. */
static int same_bits(const char *what, const float *got, const float *want, size_t count,
                     size_t chunk)
{
    for (size_t i = 0; i < count; i++)
        if (!bits_equal(got[i], want[i])) {
            fprintf(stderr,
                    "rank %d/%d, count %zu, chunk %zu: %s: element %zu is %g, "
                    "expected %g\n",
                    rank, ranks, count, chunk, what, i, got[i], want[i]);
            return 0;
        }
    return 1;
}

static float *filled(size_t count, float (*value)(int, size_t), int r)
{
    float *buf = malloc((count + GUARD) * sizeof *buf);
    for (size_t i = 0; i < count; i++)
        buf[i] = value(r, i);
    for (size_t i = count; i < count + GUARD; i++)
        buf[i] = GUARD_VALUE;
    return buf;
}

static void test_exact(size_t count, size_t chunk, MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    float *buf = filled(count, exact_value, me), *ref = filled(count, exact_value, me);
    float *want = malloc((count + 1) * sizeof *want);
    for (size_t i = 0; i < count; i++) {
        long sum = 0;
        for (int r = 0; r < n; r++)
            sum += (long)exact_value(r, i);
        want[i] = (float)sum;
    }
    CHECK_EQ(sm_ring_allreduce(buf, count, comm, chunk), MPI_SUCCESS);
    CHECK(same_bits("exact sum", buf, want, count, chunk));
    CHECK_EQ(MPI_Allreduce(MPI_IN_PLACE, ref, (int)count, MPI_FLOAT, MPI_SUM, comm), MPI_SUCCESS);
    CHECK(same_bits("MPI_Allreduce", buf, ref, count, chunk));
    int guard_ok = 1;
    for (size_t i = count; i < count + GUARD; i++)
        guard_ok &= buf[i] == GUARD_VALUE;
    CHECK(guard_ok);
    free(buf);
    free(ref);
    free(want);
}

/* A ring reduces each element once and then copies it, so even sums that depend on the order
 * come out bit for bit the same on every rank: what data-parallel training relies on. */
static void test_ranks_agree(size_t count, size_t chunk)
{
    float *buf = filled(count, inexact_value, rank), *root = malloc((count + 1) * sizeof *root);
    CHECK_EQ(sm_ring_allreduce(buf, count, MPI_COMM_WORLD, chunk), MPI_SUCCESS);
    memcpy(root, buf, count * sizeof *buf);
    MPI_Bcast(root, (int)count, MPI_FLOAT, 0, MPI_COMM_WORLD);
    CHECK(same_bits("same as rank 0", buf, root, count, chunk));
    /* Not bitwise: another order of summation. Checks the values are sums at all. */
    float *ref = filled(count, inexact_value, rank);
    MPI_Allreduce(MPI_IN_PLACE, ref, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    int close = 1;
    for (size_t i = 0; i < count; i++) {
        float scale = ref[i] < 0 ? -ref[i] : ref[i];
        float diff = buf[i] - ref[i];
        close &= (diff < 0 ? -diff : diff) <= 1e-5f * scale + 1e-6f;
    }
    CHECK(close);
    free(buf);
    free(root);
    free(ref);
}

/* The caller's scratch buffer, of the size the library asks for, gives the same sums. */
static void test_scratch(size_t count, size_t chunk)
{
    float *buf = filled(count, exact_value, rank), *ref = filled(count, exact_value, rank);
    size_t elems = sm_ring_scratch_elems(count, ranks, chunk);
    CHECK(ranks == 1 || count == 0 || elems > 0);
    float *scratch = malloc((elems + 1) * sizeof *scratch);
    CHECK_EQ(sm_ring_allreduce_scratch(buf, count, MPI_COMM_WORLD, chunk, scratch), MPI_SUCCESS);
    MPI_Allreduce(MPI_IN_PLACE, ref, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(same_bits("with caller's scratch", buf, ref, count, chunk));
    free(buf);
    free(ref);
    free(scratch);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    static const size_t counts[] = {0, 1, 2, 3, 5, 7, 63, 64, 65, 1000, 4097, 100003};
    static const size_t chunks[] = {1, 3, 64, 1000, 0 /* default */, 1 << 20};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
            /* Tiny chunks of big buffers are millions of messages: slow, and no new case. */
            if (chunks[k] && chunks[k] < 64 && counts[c] > 5000)
                continue;
            test_exact(counts[c], chunks[k], MPI_COMM_WORLD);
        }
    /* Two default chunks and a bit per step: the pipeline with the default chunk size. */
    test_exact((size_t)2 * SM_RING_DEFAULT_CHUNK_ELEMS * (size_t)ranks + 17, 0, MPI_COMM_WORLD);
    test_ranks_agree(100003, 1000);
    test_ranks_agree(4097, 0);
    test_scratch(100003, 777);
    test_scratch(5, 0);

    /* A communicator other than MPI_COMM_WORLD, where ranks are numbered differently: the odd
     * and even world ranks, each in reverse order. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, ranks - rank, &half);
    test_exact(1000, 7, half);
    test_exact(100003, 0, half);
    MPI_Comm_free(&half);

    int failed = 0, passed = 0;
    MPI_Allreduce(&check_failed, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&check_passed, &passed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks: %d passed, %d failed\n", ranks, passed, failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
