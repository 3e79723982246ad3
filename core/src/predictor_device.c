/* Predictions from a device description alone (PALEO-style): every layer takes its roofline
 * time, and gradients are all-reduced by the ring model of allreduce_model.c. No calibration,
 * so the numbers are as good as the description's efficiencies; docs/scaling.md says more. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_file.h"
#include "internal.h"
#include "predictor.h"
#include "scalemeter/device.h"

typedef struct device_predictor {
    sm_device dev;
    sm_precision precision;
    double bucket_bytes;
    int overlap;
} device_predictor;

/* SGD with momentum reads weight, gradient and momentum and writes weight and momentum, fp32. */
#define UPDATE_BYTES_PER_WEIGHT 20.0
/* DDP all-reduces the fp32 gradients of the fp32 master weights, also under mixed precision. */
#define GRAD_BYTES_PER_WEIGHT 4.0

/* Seconds of one kernel: bound by compute or by memory, plus its launch. A layer that moves
 * nothing (a view, an identity) launches nothing. */
static double roofline(const device_predictor *d, double flops, double bytes)
{
    const sm_device *v = &d->dev;
    if (flops <= 0 && bytes <= 0)
        return 0;
    double compute = flops / (v->peak[d->precision] * v->compute_efficiency);
    double memory = bytes / (v->memory_bandwidth * v->memory_efficiency);
    return fmax(compute, memory) + v->launch_overhead;
}

/* Forward and backward seconds of the layers of one block (all layers where block < 0). The
 * layers' bytes are counted at fp32; half precisions move half as many. The backward pass
 * reads the saved activations and the output gradient and writes the input gradient: twice
 * the forward traffic. */
static int pass_times(const device_predictor *d, const sm_network *net, int block, int64_t batch,
                      double *fwd, double *bwd, sm_status *st)
{
    double bytes_scale = d->precision == SM_FP16 || d->precision == SM_BF16 ? 0.5 : 1.0;
    *fwd = *bwd = 0;
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        if (block >= 0 && l->block != block)
            continue;
        sm_metrics m;
        if (sm_layer_metrics_at(l, batch, &m, st))
            return -1;
        double bytes = (double)m.bytes * bytes_scale;
        *fwd += roofline(d, (double)m.flops, bytes);
        *bwd += roofline(d, (double)m.bwd_flops, 2 * bytes);
    }
    return 0;
}

static int device_predict(const void *impl, const sm_network *net, const sm_layout *layout,
                          sm_prediction *out, sm_status *st)
{
    const device_predictor *d = impl;
    const sm_device *v = &d->dev;
    if (layout->gpus_per_node > v->devices_per_node)
        return sm_fail(st, "%s: a node has %d devices, not %d (devices_per_node in %s)", v->name,
                       v->devices_per_node, layout->gpus_per_node, v->path);
    double fwd, bwd;
    if (pass_times(d, net, -1, layout->batch, &fwd, &bwd, st))
        return -1;
    sm_metrics total;
    if (sm_network_metrics(net, 1, &total, st))
        return -1;

    /* G rings cross the network at once, each on 1/G of the data, sharing the node's ports. */
    int g = layout->gpus_per_node;
    sm_link inter = v->inter;
    inter.bandwidth *= (double)(v->inter_ports < g ? v->inter_ports : g) / g;
    sm_ring_config a = {GRAD_BYTES_PER_WEIGHT * (double)total.weights, d->bucket_bytes,
                      layout->nodes, g, v->intra, inter};
    sm_ring_time sync = sm_ring_allreduce_time(&a);
    double exposed =
        d->overlap ? sm_ring_allreduce_exposed(sync.total, sync.buckets, bwd) : sync.total;
    double update = UPDATE_BYTES_PER_WEIGHT * (double)total.weights /
                        (v->memory_bandwidth * v->memory_efficiency) +
                    (double)total.layers * v->launch_overhead;

    out->t_infer = fwd;
    out->t_fwd = fwd;
    out->t_bwd = bwd;
    out->t_grad = exposed + update;
    out->t_step = fwd + bwd + out->t_grad;
    return 0;
}

static int device_predict_block(const void *impl, const sm_network *net, int block,
                                const sm_layout *layout, double *t_fwd, sm_status *st)
{
    double bwd;
    return pass_times(impl, net, block, layout->batch, t_fwd, &bwd, st);
}

static void device_free(void *impl) { free(impl); }

static const predictor_ops device_ops = {device_predict, device_predict_block, device_free};

int sm_device_find(const char *name_or_path, char *path, size_t len, sm_status *st)
{
    return sm_data_find("device", "configs/devices", name_or_path, NULL, path, len, st);
}

int sm_predictor_from_device_opts(const char *name_or_path, const sm_device_options *opt,
                                  sm_predictor **out, sm_status *st)
{
    static const sm_device_options defaults = {NULL, 0, 0};
    if (!opt)
        opt = &defaults;
    if (opt->bucket_mib < 0 || !isfinite(opt->bucket_mib))
        return sm_fail(st, "bucket size %g MiB: expected a positive number", opt->bucket_mib);
    char path[4096];
    if (sm_device_find(name_or_path, path, sizeof path, st))
        return -1;
    device_predictor *d = calloc(1, sizeof *d);
    if (!d)
        return sm_fail(st, "out of memory");
    if (sm_device_load(path, &d->dev, st)) {
        free(d);
        return -1;
    }
    d->precision = d->dev.precision;
    if (opt->precision) {
        int p = sm_precision_parse(opt->precision);
        if (p < 0) {
            free(d);
            return sm_fail(st, "precision %s: expected fp32, tf32, fp16 or bf16", opt->precision);
        }
        d->precision = (sm_precision)p;
    }
    if (d->dev.peak[d->precision] <= 0) {
        sm_fail(st, "%s: [device] peak_%s_tflops is missing: no peak for precision %s", path,
                sm_precision_names[d->precision], sm_precision_names[d->precision]);
        free(d);
        return -1;
    }
    d->bucket_bytes = (opt->bucket_mib > 0 ? opt->bucket_mib : SM_DEFAULT_BUCKET_MIB) * 1048576.0;
    d->overlap = opt->overlap != 0;

    char description[512];
    snprintf(description, sizeof description,
             "%.63s (%.191s): roofline at %s, ring all-reduce in %g MiB buckets%s",
             d->dev.name, d->dev.description[0] ? d->dev.description : "no description",
             sm_precision_names[d->precision], d->bucket_bytes / 1048576.0,
             d->overlap ? " overlapped with the backward pass" : "");
    *out = predictor_new(&device_ops, d, description);
    return *out ? 0 : sm_fail(st, "out of memory");
}

int sm_predictor_from_device(const char *name_or_path, sm_predictor **out, sm_status *st)
{
    return sm_predictor_from_device_opts(name_or_path, NULL, out, st);
}

int sm_predictor_devices_per_node(const sm_predictor *p)
{
    return p->ops == &device_ops ? ((const device_predictor *)p->impl)->dev.devices_per_node : 0;
}
