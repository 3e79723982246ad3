/* One all-reduce as a device description predicts it, size by size, for comparing a
 * description with nccl-tests run on the cluster it describes (`scalemeter allreduce
 * --device`). The same links and collective as the step's gradient phase, one bucket. */
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "device/allreduce_model.h"
#include "device/device_file.h"
#include "scalemeter/comm.h"
#include "scalemeter/device.h"
#include "util/util.h"

int sm_device_allreduce(const char *device, sm_allreduce_layout *layout, const double *bytes, int n,
                        sm_allreduce_estimate *out, sm_status *st)
{
    if (!device || !layout || (n > 0 && (!bytes || !out)))
        return sm_null_arg(st, __func__,
                           !device   ? "device"
                           : !layout ? "layout"
                           : !bytes  ? "bytes"
                                     : "out");
    sm_collective c = SM_COLLECTIVE_RING;
    sm_device v;
    const sm_device_options opt = {.collective = layout->collective,
                                   .algorithms = layout->algorithms,
                                   .protocols = layout->protocols};
    /* each size one whole message: no buckets */
    if (sm_device_open_allreduce(device, &opt, &v, &c, NULL, st))
        return -1;
    static const char *const ops[] = {"all_reduce", "all_gather", "reduce_scatter"};
    int op = 0;
    while (layout->op && op < 3 && strcmp(layout->op, ops[op]))
        op++;
    if (op == 3)
        return sm_fail(st, "op %s: expected all_reduce, all_gather or reduce_scatter", layout->op);
    int nodes = layout->nodes;
    int g = layout->gpus_per_node > 0 ? layout->gpus_per_node : v.devices_per_node;
    if (sm_device_check_layout(&v, g, st))
        return -1;
    if (nodes < 1)
        return sm_fail(st, "%d nodes: expected at least 1", nodes);
    layout->gpus_per_node = g;
    layout->collective = c == SM_COLLECTIVE_NCCL ? "nccl" : "ring";
    sm_device_restriction(&v, c, layout->restriction, sizeof layout->restriction);
    /* a size below zero or not a number was sent as if it were nothing: 0 s, silently */
    for (int i = 0; i < n; i++)
        if (!(bytes[i] >= 0) || !isfinite(bytes[i]))
            return sm_fail(st,
                           "size %d of the all-reduce, %g bytes: expected a finite size of "
                           "at least 0",
                           i + 1, bytes[i]);
    for (int i = 0; i < n; i++) {
        sm_ring_config a = sm_device_ring(&v, bytes[i], bytes[i], 0, nodes, g, c);
        sm_nccl_choice choice = sm_collective_choice(&a, (sm_collective_op)op, bytes[i]);
        if (sm_device_check_allreduce(&v, choice.seconds, nodes, g, st))
            return -1;
        sm_allreduce_estimate_of(choice, &out[i]);
    }
    return 0;
}
