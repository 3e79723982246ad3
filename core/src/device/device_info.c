/* A device description's figures for listing (`scalemeter devices`), in the file's units. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "device/device_file.h"
#include "scalemeter/device.h"
#include "util/util.h"

int sm_device_describe(const char *name_or_path, sm_device_info *out, sm_status *st)
{
    if (!name_or_path || !out)
        return sm_null_arg(st, __func__, !name_or_path ? "name_or_path" : "out");
    memset(out, 0, sizeof *out);
    char path[4096];
    sm_device v;
    if (sm_device_find(name_or_path, path, sizeof path, st) || sm_device_load(path, &v, st))
        return -1;
    snprintf(out->name, sizeof out->name, "%s", v.name);
    snprintf(out->description, sizeof out->description, "%s", v.description);
    snprintf(out->source, sizeof out->source, "%s", v.source);
    snprintf(out->tensor_cores, sizeof out->tensor_cores, "%s", v.tensor_cores);
    snprintf(out->memory_type, sizeof out->memory_type, "%s", v.memory_type);
    for (int p = 0; p < SM_N_PRECISIONS; p++) {
        out->peak_tflops[p] = v.peak[p] / 1e12;
        out->efficiency[p] = v.peak[p] > 0 ? v.efficiency[p] : 0;
        out->conv_efficiency[p] = v.peak[p] > 0 ? v.conv_efficiency[p] : 0;
    }
    out->peak_fp8_tflops = v.peak_fp8 / 1e12;
    out->memory_gib = v.memory_capacity / 1073741824.0;
    out->memory_bandwidth_gb_s = v.memory_bandwidth / 1e9;
    out->memory_efficiency = v.memory_efficiency;
    out->stream_efficiency = v.stream_efficiency;
    out->fp8_tensor_cores = v.tensor_cores[0] ? sm_device_has_fp8(v.tensor_cores) : -1;
    out->boost_clock_mhz = v.boost_clock / 1e6;
    out->l2_mib = v.l2_bytes / 1048576.0;
    out->power_limit_w = v.power_limit;
    out->sm_count = v.sm_count;
    out->fp32_lanes_per_sm = v.fp32_lanes;
    out->devices_per_node = v.devices_per_node;
    out->sustained_clock_mhz = sm_device_sustained_clock(&v) / 1e6;
    out->light_clock_mhz = sm_device_light_clock(&v) / 1e6;
    out->launch_overhead_us = v.launch_overhead * 1e6;
    out->max_devices_per_node = v.max_devices_per_node;
    out->inter_node_ports = v.inter_ports;
    out->intra_node_bandwidth_gb_s = v.intra.bandwidth / 1e9;
    /* a node of one device may give no link inside it (its bandwidth 0): no latency either,
     * where 0 us would read as one given */
    out->intra_node_latency_us = v.intra.bandwidth > 0 ? v.intra.latency * 1e6 : NAN;
    out->inter_node_bandwidth_gb_s = v.inter.bandwidth / 1e9;
    out->inter_node_latency_us = v.inter.latency * 1e6;
    snprintf(out->framework, sizeof out->framework, "%s", v.framework);
    snprintf(out->framework_base, sizeof out->framework_base, "%s", v.framework_base);
    return 0;
}
