/* `fit-comm`: the device model's all-reduce terms (bandwidth and per-step latency inside a
 * node and between nodes) fitted to measured all-reduces, and written into a device
 * description. Two stages, so that each level is fitted where it is seen alone: the intra-node
 * terms on runs inside one node, then the inter-node terms on what runs across nodes take
 * beyond the intra-node part. Two forms: the hierarchical ring, and NCCL's ring on Simple
 * (scalemeter/comm.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_file.h"
#include "network/network_internal.h"
#include "scalemeter/comm.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"

static int ring_ports(const sm_comm_fit_result *f, int g)
{
    return f->inter_ports > 0 && f->inter_ports < g ? f->inter_ports : g;
}

/* NCCL's ring on Simple: one ring over the nodes' devices, as fast as its slowest link; a node
 * of one device has no link inside it (nccl_model.c) */
static double nccl_bus(const sm_comm_fit_result *f, int nodes, int g)
{
    double net = ring_ports(f, g) * f->inter_bandwidth;
    return nodes > 1 && (g == 1 || net < f->intra_bandwidth) ? net : f->intra_bandwidth;
}

double sm_comm_time(const sm_comm_fit_result *f, double s, int nodes, int g)
{
    if (f->nccl) {
        sm_nccl_ring_terms r = sm_nccl_ring_simple_terms(s, nodes, g);
        return nodes * g < 2
                   ? 0
                   : r.base + r.intra_steps * f->intra_latency + r.inter_steps * f->inter_latency +
                         r.bus_bytes / nccl_bus(f, nodes, g);
    }
    double n = nodes, t = 0;
    if (g > 1)
        t += 2 * (g - 1.0) / g * s / f->intra_bandwidth + 2 * (g - 1.0) * f->intra_latency;
    if (nodes > 1)
        t += 2 * (n - 1) / n * s / (ring_ports(f, g) * f->inter_bandwidth) +
             2 * (n - 1) * f->inter_latency;
    return t;
}

/* A sample's time in the fitted model: an all-reduce's, or for an all-gather or reduce-scatter
 * half its ring's part (NCCL's base latency whole). */
static double sample_time(const sm_comm_fit_result *f, const sm_comm_sample *s)
{
    double t = sm_comm_time(f, s->bytes, s->nodes, s->gpus_per_node);
    if (!s->half || s->nodes * s->gpus_per_node < 2)
        return t;
    double base =
        f->nccl ? sm_nccl_ring_simple_terms(s->bytes, s->nodes, s->gpus_per_node).base : 0;
    return base + 0.5 * (t - base);
}

/* Fits t - known = x0 * bw_feature + x1 * steps over the samples of one level, relative to t;
 * needs two message sizes to tell bandwidth from latency. In NCCL's form x0 is 1 / bus, the
 * whole ring's bandwidth, on the runs across nodes too. */
static int fit_level(const sm_comm_runs *r, const sm_comm_fit_result *f, double min_bytes,
                     int inter, double *inv_bw, double *lat, int *used, sm_status *st)
{
    double *A = malloc((size_t)r->n * 2 * sizeof *A), *b = malloc((size_t)r->n * sizeof *b);
    if (!A || !b) {
        free(A), free(b);
        return sm_fail(st, "out of memory");
    }
    int m = 0;
    double smallest = INFINITY, largest = 0;
    for (int i = 0; i < r->n; i++) {
        const sm_comm_sample *s = &r->samples[i];
        double n = s->nodes, g = s->gpus_per_node;
        if (s->bytes < min_bytes || (inter ? s->nodes < 2 : s->nodes != 1 || g < 2))
            continue;
        /* t - known = x0 bw + x1 steps, in the form's terms; an all-gather or reduce-scatter
         * sends half an all-reduce's bytes in half its steps around the same ring */
        double known, bw, steps, k = s->half ? 0.5 : 1.0;
        if (f->nccl) {
            sm_nccl_ring_terms ring = sm_nccl_ring_simple_terms(s->bytes, s->nodes, (int)g);
            known = ring.base + (inter ? k * ring.intra_steps * f->intra_latency : 0);
            bw = k * ring.bus_bytes;
            steps = k * (inter ? ring.inter_steps : ring.intra_steps);
        } else if (inter) {
            known = k * sm_comm_time(f, s->bytes, 1, s->gpus_per_node);
            bw = k * 2 * (n - 1) / n * s->bytes / ring_ports(f, s->gpus_per_node);
            steps = k * 2 * (n - 1);
        } else {
            known = 0;
            bw = k * 2 * (g - 1) / g * s->bytes;
            steps = k * 2 * (g - 1);
        }
        /* row-major here; turned column-major for sm_lstsq below */
        A[2 * m] = bw / s->time_s, A[2 * m + 1] = steps / s->time_s;
        b[m++] = (s->time_s - known) / s->time_s;
        smallest = fmin(smallest, s->bytes), largest = fmax(largest, s->bytes);
    }
    int rc = 0;
    const char *level = inter ? "inter-node" : "intra-node";
    if (m == 0)
        rc = sm_fail(st,
                     "no %s samples of %.0f bytes or more: need two sizes or more to tell "
                     "bandwidth from latency (a smaller --min-bytes, or runs of larger sizes)",
                     level, min_bytes);
    else if (m < 2 || largest <= smallest)
        rc = sm_fail(st,
                     "%d %s sample%s of %.0f bytes or more, all of one size (%.0f bytes): need "
                     "two sizes or more to tell bandwidth from latency",
                     m, level, m == 1 ? "" : "s", min_bytes, smallest);
    double *Acol = rc ? NULL : malloc((size_t)m * 2 * sizeof *Acol);
    if (!rc && !Acol)
        rc = sm_fail(st, "out of memory");
    if (!rc) {
        for (int i = 0; i < m; i++)
            Acol[i] = A[2 * i], Acol[m + i] = A[2 * i + 1];
        double x[2];
        rc = sm_lstsq(Acol, b, m, 2, 1, x, st);
        *inv_bw = x[0], *lat = x[1], *used += m;
        if (!rc && !(x[0] > 0))
            rc = sm_fail(st,
                         "the %s times do not grow with the message size: no bandwidth can "
                         "be fitted (are the sizes large enough? see --min-bytes)",
                         inter ? "inter-node" : "intra-node");
    }
    free(A), free(b), free(Acol);
    return rc;
}

/* A run on one node of more devices than the base's node holds: a CSV without a nodes column
 * (or nccl-tests' ranks whose hosts share a name) is read as one node, and 4 nodes of 8 A100s
 * read so fitted NVLink at the network's 200 GB/s for the base's 240, written into
 * --device-out. Runs across nodes say their nodes (hosts, or @NODES checked against them). */
static int check_layouts(const sm_comm_runs *r, const sm_device *v, sm_status *st)
{
    for (int i = 0; i < r->n; i++) {
        const sm_comm_sample *s = &r->samples[i];
        if (s->nodes > 1 || s->gpus_per_node <= v->max_devices_per_node)
            continue;
        const char *file = s->source < r->n_sources ? r->sources[s->source] : "a run";
        return sm_fail(st,
                       "%s:%d: %d ranks on one node, more than a node of %s holds (%d, %s in "
                       "%s): give the run's node count as %s@NODES, or --device-base a "
                       "description of its nodes",
                       file, s->line, s->gpus_per_node, v->name, v->max_devices_per_node,
                       v->max_devices_per_node > v->devices_per_node ? "max_devices_per_node"
                                                                     : "devices_per_node",
                       v->path, file);
    }
    return 0;
}

int sm_comm_fit(const sm_comm_runs *r, double min_bytes, const char *base, const char *collective,
                sm_comm_fit_result *out, sm_status *st)
{
    if (!r || !out)
        return sm_null_arg(st, __func__, !r ? "runs" : "out");
    memset(out, 0, sizeof *out);
    sm_collective form = SM_COLLECTIVE_RING;
    if (!base && sm_collective_parse(collective, &form, st))
        return -1;
    if (base) {
        char path[4096];
        sm_device v;
        if (sm_device_find(base, path, sizeof path, st) || sm_device_load(path, &v, st) ||
            sm_device_collective(&v, collective, &form, st))
            return -1;
        out->intra_bandwidth = v.intra.bandwidth, out->intra_latency = v.intra.latency;
        out->inter_bandwidth = v.inter.bandwidth, out->inter_latency = v.inter.latency;
        out->inter_ports = v.inter_ports;
        if (check_layouts(r, &v, st))
            return -1;
    }
    out->nccl = form == SM_COLLECTIVE_NCCL;
    int intra = 0, inter = 0, inter_shared = 0; /* runs across nodes of several devices */
    for (int i = 0; i < r->n; i++) {
        intra |= r->samples[i].nodes == 1 && r->samples[i].gpus_per_node > 1;
        inter |= r->samples[i].nodes > 1;
        inter_shared |= r->samples[i].nodes > 1 && r->samples[i].gpus_per_node > 1;
    }
    if (!intra && !inter) {
        const sm_comm_sample *s = r->n ? &r->samples[0] : NULL;
        const char *file = s && s->source < r->n_sources ? r->sources[s->source] : NULL;
        if (file)
            return sm_fail(st,
                           "%s:%d: every run is on one rank, and one rank has no all-reduce "
                           "to fit; give runs over several ranks: one node's devices, and "
                           "across nodes",
                           file, s->line);
        return sm_fail(st, "every run is on one rank: nothing is communicated (run the "
                           "all-reduce over the devices of a node, and across nodes)");
    }
    /* a node of one device has no link inside it: its runs across nodes need no intra terms */
    if (inter_shared && !intra && !base)
        return sm_fail(st, "runs across nodes but none inside one node: the intra-node terms "
                           "cannot be told apart; add a run on one node's devices or name a "
                           "device description with --device-base to take them from");
    double inv_bw, lat;
    if (intra) {
        if (fit_level(r, out, min_bytes, 0, &inv_bw, &lat, &out->used, st))
            return -1;
        out->intra_bandwidth = 1 / inv_bw, out->intra_latency = lat, out->intra_fitted = 1;
    }
    if (inter) {
        if (fit_level(r, out, min_bytes, 1, &inv_bw, &lat, &out->used, st))
            return -1;
        out->inter_latency = lat, out->inter_fitted = 1;
        /* NCCL's form fits the ring's bus: the network's, shared by the node's ports (for the
         * runs' devices per node), where it is the slowest link (always with one device a
         * node: no link inside it); at NVLink's pace (within 2%, the runs' noise) the network
         * is at least as fast and the runs tell no more */
        int g = 0;
        for (int i = 0; i < r->n; i++)
            if (r->samples[i].nodes > 1 && r->samples[i].gpus_per_node > g)
                g = r->samples[i].gpus_per_node;
        if (!out->nccl)
            out->inter_bandwidth = 1 / inv_bw;
        else if (g == 1 || 1 / inv_bw < 0.98 * out->intra_bandwidth)
            out->inter_bandwidth = 1 / inv_bw / ring_ports(out, g);
        else {
            out->inter_bandwidth_hidden = 1;
            out->inter_bandwidth =
                fmax(out->inter_bandwidth, out->intra_bandwidth / ring_ports(out, g));
        }
    }
    double sum = 0;
    int n = 0;
    for (int i = 0; i < r->n; i++) {
        const sm_comm_sample *s = &r->samples[i];
        if (s->bytes < min_bytes || (s->nodes < 2 && s->gpus_per_node < 2))
            continue;
        sum += fabs(sample_time(out, s) - s->time_s) / s->time_s;
        n++;
    }
    out->mape = n ? sum / n : 0;
    return 0;
}

static int comm_fit_write_device(const sm_comm_fit_result *f, const char *base, const char *sources,
                                 const char *path, sm_status *st)
{
    /* the links of the levels fitted, and the collective whose equation they were fitted to */
    const double value[] = {f->intra_bandwidth / 1e9, f->intra_latency * 1e6,
                            f->inter_bandwidth / 1e9, f->inter_latency * 1e6};
    static const char *const names[] = {"intra_node_bandwidth_gb_s", "intra_node_latency_us",
                                        "inter_node_bandwidth_gb_s", "inter_node_latency_us"};
    sm_device_key keys[5];
    int n = 0;
    for (int k = 0; k < 4; k++)
        if (k < 2 ? f->intra_fitted : f->inter_fitted) {
            /* the ranges device_file.c loads: a description no command could read is not
             * written (runs of seconds per step fit latencies beyond them) */
            char why[96];
            if (sm_device_check_value("node", names[k], value[k], why, sizeof why))
                return sm_fail(st,
                               "%s: the fitted %s = %.6g is outside a device description's "
                               "range (%s); %s not written",
                               sources, names[k], value[k], why, path);
            keys[n] = (sm_device_key){"node", names[k], "", "fitted by fit-comm"};
            snprintf(keys[n++].value, sizeof keys[0].value, "%.6g", value[k]);
        }
    keys[n] = (sm_device_key){"node", "collective", "", "the form fitted by fit-comm"};
    snprintf(keys[n++].value, sizeof keys[0].value, "%s", f->nccl ? "nccl" : "ring");
    char base_path[4096], header[8192];
    if (sm_device_find(base, base_path, sizeof base_path, st))
        return -1;
    snprintf(header, sizeof header,
             "; Device description written by `scalemeter fit-comm` from %s: the all-reduce\n"
             "; terms of [node] fitted to those runs (%s%s%s), everything else from %s.\n",
             sources, f->intra_fitted ? "intra-node" : "",
             f->intra_fitted && f->inter_fitted ? ", " : "", f->inter_fitted ? "inter-node" : "",
             base_path);
    return sm_device_write_replacing(base_path, keys, n, header, path, st);
}

int sm_comm_fit_write_device(const sm_comm_fit_result *f, const char *base, const char *sources,
                             const char *path, sm_status *st)
{
    if (!f || !base || !sources || !path)
        return sm_null_arg(st, __func__,
                           !f         ? "fit"
                           : !base    ? "base"
                           : !sources ? "sources"
                                      : "path");
    sm_locale before = sm_locale_c_begin(); /* '.' in numbers, whatever the program's locale */
    int rc = comm_fit_write_device(f, base, sources, path, st);
    sm_locale_c_end(before);
    return rc;
}
