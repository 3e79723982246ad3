/* One all-reduce as a device description predicts it, size by size, for comparing a
 * description with nccl-tests run on the cluster it describes (`scalemeter allreduce
 * --device`). The same links and collective as the step's gradient phase, one bucket. */
#include <math.h>
#include <stdio.h>

#include "allreduce_model.h"
#include "device_file.h"
#include "scalemeter/comm.h"
#include "scalemeter/device.h"

int sm_device_allreduce(const char *device, sm_allreduce_layout *layout, const double *bytes,
                        int n, sm_allreduce_estimate *out, sm_status *st)
{
    sm_collective c = SM_COLLECTIVE_RING;
    char path[4096];
    sm_device v;
    unsigned algorithms = SM_NCCL_ALL_ALGORITHMS, protocols = SM_NCCL_ALL_PROTOCOLS;
    int restricted = layout->algorithms || layout->protocols;
    if ((layout->algorithms && sm_nccl_parse_algorithms(layout->algorithms, &algorithms, st)) ||
        (layout->protocols && sm_nccl_parse_protocols(layout->protocols, &protocols, st)) ||
        sm_device_find(device, path, sizeof path, st) || sm_device_load(path, &v, st) ||
        sm_device_collective(&v, layout->collective, &c, st))
        return -1;
    /* a restriction of NCCL's choice runs NCCL's model; beside --collective ring it is an error */
    if (restricted && layout->collective && c != SM_COLLECTIVE_NCCL)
        return sm_fail(st, "an algorithm or protocol restricts NCCL's choice: it needs the nccl "
                           "collective, not %s", layout->collective);
    if (restricted)
        c = SM_COLLECTIVE_NCCL;
    int nodes = layout->nodes;
    int g = layout->gpus_per_node > 0 ? layout->gpus_per_node : v.devices_per_node;
    if (sm_device_check_layout(&v, g, st))
        return -1;
    if (nodes < 1)
        return sm_fail(st, "%d nodes: expected at least 1", nodes);
    layout->gpus_per_node = g;
    layout->collective = c == SM_COLLECTIVE_NCCL ? "nccl" : "ring";
    for (int i = 0; i < n; i++) {
        sm_ring_config a = sm_device_ring(&v, bytes[i], bytes[i], nodes, g, c);
        sm_allreduce_estimate *e = &out[i];
        if (c == SM_COLLECTIVE_NCCL) {
            sm_nccl_choice choice = sm_nccl_allreduce_only(bytes[i], nodes, g, &a.intra,
                                                           &a.inter, a.nvls_efficiency,
                                                           algorithms, protocols);
            if (!isfinite(choice.seconds))
                return sm_fail(st, "%s: no algorithm of %s on protocol %s runs on %d node%s of "
                                   "%d devices (NVLS runs inside one node, NVLSTree "
                                   "across nodes, both on Simple with two devices a node "
                                   "and nvls_efficiency in %s)",
                               v.name, layout->algorithms ? layout->algorithms : "any",
                               layout->protocols ? layout->protocols : "any", nodes,
                               nodes == 1 ? "" : "s", g, path);
            sm_allreduce_estimate_of(choice, e);
        } else {
            sm_allreduce_estimate_of(sm_ring_allreduce_choice(&a), e);
        }
    }
    return 0;
}
