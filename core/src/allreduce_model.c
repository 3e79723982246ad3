/* The ring all-reduce model of gradient synchronisation, beyond ConvMeter's term linear in N:
 * bandwidth terms that saturate at 2x the gradient as N grows and a latency that grows with the
 * number of ring steps and buckets, so that a model fitted on few nodes extrapolates to many. */
#include <math.h>

#include "allreduce_model.h"

sm_ring_time sm_ring_allreduce_time(const sm_ring_config *a)
{
    sm_ring_time t = {0, 0, 0, 0};
    double n = a->nodes, g = a->gpus_per_node;
    if (a->bytes <= 0 || (a->nodes <= 1 && a->gpus_per_node <= 1))
        return t;
    t.buckets = (int64_t)ceil(a->bytes / a->bucket_bytes);
    /* Summed over buckets the bytes add up to the whole gradient; every bucket pays the steps. */
    t.bandwidth = 2 * (g - 1) / g * a->bytes / a->intra.bandwidth +
                  2 * (n - 1) / n * (a->bytes / g) / a->inter.bandwidth;
    t.latency = (double)t.buckets * (2 * (g - 1) * a->intra.latency + 2 * (n - 1) * a->inter.latency);
    t.total = t.bandwidth + t.latency;
    return t;
}

double sm_ring_allreduce_exposed(double t_sync, int64_t buckets, double t_bwd)
{
    if (buckets < 1 || t_sync <= 0)
        return 0;
    double k = (double)buckets;
    return fmax(t_sync / k, t_sync - (k - 1) / k * t_bwd);
}
