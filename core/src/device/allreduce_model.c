/* The ring all-reduce model of gradient synchronisation, beyond ConvMeter's term linear in N:
 * bandwidth terms that saturate at 2x the gradient as N grows and a latency that grows with the
 * number of ring steps and buckets, so that a model fitted on few nodes extrapolates to many. */
#include <math.h>
#include <string.h>

#include "device/allreduce_model.h"

int sm_collective_parse(const char *name, sm_collective *out, sm_status *st)
{
    if (!name || !strcmp(name, "ring"))
        *out = SM_COLLECTIVE_RING;
    else if (!strcmp(name, "nccl"))
        *out = SM_COLLECTIVE_NCCL;
    else
        return sm_fail(st, "--collective %s: expected ring or nccl", name);
    return 0;
}

/* NCCL's choice for one bucket of `bytes`, among what the config leaves it. */
static sm_nccl_choice nccl_bucket(const sm_ring_config *a, double bytes)
{
    return sm_nccl_allreduce_only(bytes, a->nodes, a->gpus_per_node, &a->intra, &a->inter,
                                  &a->system,
                                  a->algorithms ? a->algorithms : SM_NCCL_ALL_ALGORITHMS,
                                  a->protocols ? a->protocols : SM_NCCL_ALL_PROTOCOLS);
}

double sm_bucket_count(double bytes, double bucket_bytes, double max_buckets)
{
    if (!(bytes > 0))
        return 0;
    double k = ceil(bytes / bucket_bytes);
    return max_buckets >= 1 && k > max_buckets ? max_buckets : k;
}

/* The equal buckets a's gradient goes in; 0 when nothing is sent (no bytes, one device). A
 * double: callers keep the bucket in SM_MIN_BUCKET_MIB..SM_MAX_BUCKET_MIB, yet a gradient of
 * 2^63 bytes or a NaN would still overflow int64_t (undefined behaviour). */
static double bucket_count_real(const sm_ring_config *a)
{
    if (a->nodes <= 1 && a->gpus_per_node <= 1)
        return 0;
    return sm_bucket_count(a->bytes, a->bucket_bytes, a->max_buckets);
}

/* The count as sm_ring_time reports it: saturated at 2^62, where the times, computed from the
 * double, stay right. */
static int64_t bucket_count(const sm_ring_config *a)
{
    double k = bucket_count_real(a);
    return k < 0x1p62 ? (int64_t)k : INT64_C(1) << 62;
}

sm_ring_time sm_ring_allreduce_time(const sm_ring_config *a)
{
    sm_ring_time t = {0, 0, 0, 0};
    double n = a->nodes, g = a->gpus_per_node;
    double k = bucket_count_real(a);
    t.buckets = bucket_count(a);
    if (t.buckets == 0)
        return t;
    if (a->collective == SM_COLLECTIVE_NCCL) {
        /* equal buckets, each NCCL's choice for its size: no split into bandwidth and latency */
        t.total = k * nccl_bucket(a, a->bytes / k).seconds;
        t.bandwidth = t.latency = NAN;
        return t;
    }
    /* Summed over buckets the bytes add up to the whole gradient; every bucket pays the steps.
     * A node of one device has no intra-node link to divide by (device_file.c need not read
     * one): 0 / 0 was NaN. */
    t.bandwidth = (g > 1 ? 2 * (g - 1) / g * a->bytes / a->intra.bandwidth : 0) +
                  2 * (n - 1) / n * (a->bytes / g) / a->inter.bandwidth;
    t.latency = k * (2 * (g - 1) * a->intra.latency + 2 * (n - 1) * a->inter.latency);
    t.total = t.bandwidth + t.latency;
    return t;
}

sm_nccl_choice sm_ring_allreduce_choice(const sm_ring_config *a)
{
    double k = bucket_count_real(a);
    if (k == 0)
        return (sm_nccl_choice){"none", a->collective == SM_COLLECTIVE_NCCL ? "none" : "-", 0};
    if (a->collective == SM_COLLECTIVE_NCCL)
        return nccl_bucket(a, a->bytes / k);
    return (sm_nccl_choice){"ring", "-", sm_ring_allreduce_time(a).total / k};
}

sm_nccl_choice sm_collective_choice(const sm_ring_config *a, sm_collective_op op, double bytes)
{
    sm_ring_config one = *a;
    one.bytes = one.bucket_bytes = bytes;
    if (op == SM_OP_ALL_REDUCE || bucket_count_real(&one) == 0)
        return sm_ring_allreduce_choice(&one);
    if (a->collective == SM_COLLECTIVE_NCCL)
        return sm_nccl_gather_scatter_only(bytes, a->nodes, a->gpus_per_node, &a->intra, &a->inter,
                                           &a->system,
                                           a->algorithms ? a->algorithms : SM_NCCL_ALL_ALGORITHMS,
                                           a->protocols ? a->protocols : SM_NCCL_ALL_PROTOCOLS);
    return (sm_nccl_choice){"ring", "-", sm_ring_allreduce_time(&one).total / 2};
}

/* A ring all-reduce of one bucket of `bytes`. */
static double bucket_time(const sm_ring_config *a, double bytes)
{
    sm_ring_config one = *a;
    one.bytes = bytes;
    one.bucket_bytes = bytes;
    return sm_ring_allreduce_time(&one).total;
}

double sm_allreduce_overlapped(const sm_grad_layer *layers, int n, double first_bucket_bytes,
                               double bucket_bytes, sm_bucket_cost cost, const void *ctx)
{
    double now = 0, link_free = 0, filled = 0, cap = first_bucket_bytes;
    for (int i = 0; i < n; i++) {
        now += layers[i].t_bwd;
        filled += layers[i].bytes;
        if (filled > 0 && (filled >= cap || i == n - 1)) {
            /* sent when ready and when the link has finished the bucket before */
            link_free = fmax(now, link_free) + cost(ctx, filled);
            filled = 0;
            cap = bucket_bytes;
        }
    }
    return fmax(link_free - now, 0);
}

static double ring_bucket_cost(const void *ctx, double bytes) { return bucket_time(ctx, bytes); }

double sm_ring_allreduce_overlapped(const sm_ring_config *a, const sm_grad_layer *layers, int n,
                                    double first_bucket_bytes)
{
    return sm_allreduce_overlapped(layers, n, first_bucket_bytes, a->bucket_bytes, ring_bucket_cost,
                                   a);
}
