/*
 * Ring all-reduce as one stream of messages. The buffer is split into n segments (sizes differ
 * by at most one element); step s of 2(n-1) sends one segment to the right neighbour and
 * receives another from the left: reduce-scatter steps add what arrives, all-gather steps copy
 * it. Each step is cut into K chunks, so message p is chunk p % K of step p / K, and the stream
 * runs as a pipeline: a chunk is forwarded as soon as it has been reduced, without waiting for
 * the rest of its step. RING_DEPTH chunks per direction are in flight at once.
 */
#include "allreduce_ring.h"

#include <limits.h>
#include <stdlib.h>

#define RING_DEPTH 4

typedef struct ring {
    float *buf, *scratch; /* scratch: RING_DEPTH chunks, one per receive slot */
    size_t count, chunk;
    int rank, n, left, right;
    size_t per_step, total; /* chunks per step (K), messages each way (2(n-1)K) */
} ring;

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* The largest segment decides the chunk count, so every rank agrees on K. */
static size_t effective_chunk(size_t count, int n, size_t chunk_elems)
{
    size_t largest = count / (size_t)n + (count % (size_t)n != 0);
    size_t chunk = chunk_elems ? chunk_elems : SM_RING_DEFAULT_CHUNK_ELEMS;
    return min_size(min_size(chunk, largest), (size_t)INT_MAX);
}

size_t sm_ring_scratch_elems(size_t count, int ranks, size_t chunk_elems)
{
    if (ranks < 2 || count == 0)
        return 0;
    return RING_DEPTH * effective_chunk(count, ranks, chunk_elems);
}

/* Message p's elements of buf, [*off, *off + *len); a chunk past its segment's end is empty
 * (segments differ by one element), but it is still sent so that both ends count alike. */
static void message_range(const ring *r, size_t p, int sending, size_t *off, size_t *len)
{
    int s = (int)(p / r->per_step), n = r->n, k;
    if (s < n - 1) /* reduce-scatter: after it, rank r holds the sum of segment r + 1 */
        k = sending ? r->rank - s : r->rank - s - 1;
    else /* all-gather: that sum travels once around the ring */
        k = sending ? r->rank + 1 - (s - (n - 1)) : r->rank - (s - (n - 1));
    k = ((k % n) + n) % n;
    size_t base = r->count / (size_t)n, rem = r->count % (size_t)n, uk = (size_t)k;
    size_t seg_off = uk * base + min_size(uk, rem), seg_len = base + (uk < rem);
    size_t start = (p % r->per_step) * r->chunk;
    *off = seg_off + min_size(start, seg_len);
    *len = start < seg_len ? min_size(r->chunk, seg_len - start) : 0;
}

static int is_reducing(const ring *r, size_t p) { return p < (size_t)(r->n - 1) * r->per_step; }

static void add(float *restrict dst, const float *restrict src, size_t len)
{
    for (size_t i = 0; i < len; i++)
        dst[i] += src[i];
}

/* Message p's chunk goes out once the chunk it carries is final for its step: step 0 sends the
 * rank's own data; later steps forward what message p - K brought in. */
static int may_send(const ring *r, size_t p, size_t recv_done)
{
    return p < r->per_step || p - r->per_step < recv_done;
}

/* An all-gather receive overwrites a segment this rank sent during the reduce-scatter, n - 1
 * steps earlier; that send must have completed before its buffer is reused. */
static int may_receive(const ring *r, size_t p, size_t send_done)
{
    size_t lag = (size_t)(r->n - 1) * r->per_step;
    return p < lag || p - lag < send_done;
}

static int post_receive(const ring *r, size_t p, MPI_Comm comm, MPI_Request *req)
{
    size_t off, len;
    message_range(r, p, 0, &off, &len);
    float *dst = is_reducing(r, p) ? r->scratch + (p % RING_DEPTH) * r->chunk : r->buf + off;
    return MPI_Irecv(dst, (int)len, MPI_FLOAT, r->left, 0, comm, req);
}

static int post_send(const ring *r, size_t p, MPI_Comm comm, MPI_Request *req)
{
    size_t off, len;
    message_range(r, p, 1, &off, &len);
    return MPI_Isend(r->buf + off, (int)len, MPI_FLOAT, r->right, 0, comm, req);
}

/* Requests 0..DEPTH-1 are receive slots, DEPTH..2 DEPTH-1 send slots; message p uses slot
 * p % DEPTH. Completions may come in any order; *_done count the finished prefix of the stream.
 * On an MPI error the requests in flight are abandoned with the communicator, as after a failed
 * MPI collective. */
static int run_stream(ring *r, MPI_Comm comm)
{
    MPI_Request req[2 * RING_DEPTH];
    size_t slot_msg[2 * RING_DEPTH];
    unsigned char finished[2 * RING_DEPTH] = {0};
    for (int i = 0; i < 2 * RING_DEPTH; i++)
        req[i] = MPI_REQUEST_NULL;
    size_t recv_posted = 0, recv_done = 0, send_posted = 0, send_done = 0;
    int rc;
    while (recv_done < r->total || send_done < r->total) {
        while (recv_posted < r->total && recv_posted < recv_done + RING_DEPTH &&
               may_receive(r, recv_posted, send_done)) {
            int slot = (int)(recv_posted % RING_DEPTH);
            slot_msg[slot] = recv_posted;
            if ((rc = post_receive(r, recv_posted++, comm, &req[slot])))
                return rc;
        }
        while (send_posted < r->total && send_posted < send_done + RING_DEPTH &&
               may_send(r, send_posted, recv_done)) {
            int slot = RING_DEPTH + (int)(send_posted % RING_DEPTH);
            slot_msg[slot] = send_posted;
            if ((rc = post_send(r, send_posted++, comm, &req[slot])))
                return rc;
        }
        int idx;
        if ((rc = MPI_Waitany(2 * RING_DEPTH, req, &idx, MPI_STATUS_IGNORE)))
            return rc;
        if (idx == MPI_UNDEFINED)
            return MPI_ERR_INTERN; /* nothing in flight yet not finished: a bug here */
        finished[idx] = 1;
        if (idx < RING_DEPTH && is_reducing(r, slot_msg[idx])) {
            size_t off, len;
            message_range(r, slot_msg[idx], 0, &off, &len);
            add(r->buf + off, r->scratch + (size_t)idx * r->chunk, len);
        }
        while (recv_done < recv_posted && finished[recv_done % RING_DEPTH])
            finished[recv_done++ % RING_DEPTH] = 0;
        while (send_done < send_posted && finished[RING_DEPTH + send_done % RING_DEPTH])
            finished[RING_DEPTH + send_done++ % RING_DEPTH] = 0;
    }
    return MPI_SUCCESS;
}

int sm_ring_allreduce_scratch(float *buf, size_t count, MPI_Comm comm, size_t chunk_elems,
                              float *scratch)
{
    ring r = {.buf = buf, .scratch = scratch, .count = count};
    int rc;
    if ((rc = MPI_Comm_size(comm, &r.n)) || (rc = MPI_Comm_rank(comm, &r.rank)))
        return rc;
    if (r.n == 1 || count == 0)
        return MPI_SUCCESS;
    r.left = (r.rank + r.n - 1) % r.n;
    r.right = (r.rank + 1) % r.n;
    r.chunk = effective_chunk(count, r.n, chunk_elems);
    size_t largest = count / (size_t)r.n + (count % (size_t)r.n != 0);
    r.per_step = (largest + r.chunk - 1) / r.chunk;
    r.total = 2 * (size_t)(r.n - 1) * r.per_step;
    return run_stream(&r, comm);
}

int sm_ring_allreduce(float *buf, size_t count, MPI_Comm comm, size_t chunk_elems)
{
    int n, rc;
    if ((rc = MPI_Comm_size(comm, &n)))
        return rc;
    size_t elems = sm_ring_scratch_elems(count, n, chunk_elems);
    float *scratch = elems ? malloc(elems * sizeof *scratch) : NULL;
    if (elems && !scratch)
        return MPI_ERR_NO_MEM;
    rc = sm_ring_allreduce_scratch(buf, count, comm, chunk_elems, scratch);
    free(scratch);
    return rc;
}
