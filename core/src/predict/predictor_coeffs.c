/* A predictor made from a coefficient file of `scalemeter fit` (ConvMeter's equations).
 *
 * Block-wise forward time: the forward equation on the block's F, I, O (and W, when the fit has
 * a weight term); the intercept c4 is a per-pass cost with no block of its own, so each block
 * gets the share of it that its FLOPs are of the network's, and the blocks add up to the whole
 * forward pass.
 *
 * With a device description beside the coefficients (curve --coeffs FILE --device NAME), the
 * passes and the local update stay the fit's and the gradients are all-reduced by the
 * description's collective: a calibration made on one node, or on one device, then scales as
 * the cluster's links and NCCL's choice of algorithm do, where the fitted communication terms
 * would extrapolate one algorithm's equation (docs/scaling.md, "Fitted passes, the cluster's
 * all-reduce"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/allreduce_model.h"
#include "device/device_file.h"
#include "predict/predictor.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "util/util.h"

/* The all-reduce of a description: its links, its devices per node and its collective. */
typedef struct comm_model {
    sm_device dev;
    double bucket_bytes;
    sm_collective collective;
} comm_model;

typedef struct coeffs {
    sm_fit fit;
    sm_fit_meta meta;
    int overlap;      /* buckets all-reduced while the backward pass runs */
    comm_model *comm; /* NULL: the fit's own communication terms */
    char path[4096];  /* the coefficient file, for messages */
} coeffs;

typedef struct bucket_ctx {
    const sm_fit *fit;
    const sm_layout *layout;
} bucket_ctx;

static double fitted_bucket(const void *ctx, double bytes)
{
    const bucket_ctx *b = ctx;
    return sm_fit_bucket_seconds(b->fit, b->layout, bytes);
}

/* The layers' gradient bytes and fitted backward times in backward order (last layer first),
 * for the overlapped schedule: each layer's time by the bwd equation on its own metrics, with
 * its FLOPs' share of the intercept. NULL (st set) on failure; the caller frees. */
static sm_grad_layer *fitted_grads(const sm_fit *fit, const sm_network *net,
                                   const sm_metrics *whole, const sm_layout *layout,
                                   double bytes_per_weight, sm_status *st)
{
    sm_grad_layer *grads = malloc((size_t)(net->n_layers ? net->n_layers : 1) * sizeof *grads);
    if (!grads) {
        sm_fail(st, "out of memory");
        return NULL;
    }
    for (int i = 0; i < net->n_layers; i++) {
        sm_metrics m;
        if (sm_layer_metrics_at(&net->layers[net->n_layers - 1 - i], 1, &m, st)) {
            free(grads);
            return NULL;
        }
        double share =
            whole->flops > 0 ? (double)m.flops / (double)whole->flops : 1.0 / net->n_layers;
        grads[i] = (sm_grad_layer){bytes_per_weight * (double)m.weights,
                                   sm_fit_eval_share(fit, SM_PHASE_BWD, &m, share, layout)};
    }
    return grads;
}

/* What the step waits for after the backward pass when DDP's buckets are all-reduced during
 * it, as predictor_device.c schedules them, with the fitted times: the layers' fitted backward
 * times, each bucket's all-reduce by grad's communication terms. */
static int overlapped_comm(const sm_fit *fit, const sm_network *net, const sm_metrics *whole,
                           const sm_layout *layout, double *exposed, sm_status *st)
{
    sm_grad_layer *grads = fitted_grads(fit, net, whole, layout, 4.0, st);
    if (!grads)
        return -1;
    bucket_ctx ctx = {fit, layout};
    *exposed = sm_allreduce_overlapped(grads, net->n_layers, SM_DDP_FIRST_BUCKET_BYTES,
                                       fit->opt.bucket_bytes, fitted_bucket, &ctx);
    free(grads);
    return 0;
}

/* t_grad with the description's all-reduce: the fit's local update (its grad phase without
 * communication terms; the linear form has none on single-device runs) plus the collective,
 * after the backward pass or, with overlap, scheduled through it on the layers' fitted
 * backward times. */
static int described_grad(const coeffs *c, const sm_network *net, const sm_metrics *m,
                          const sm_layout *layout, double *t_grad, sm_status *st)
{
    const sm_device *v = &c->comm->dev;
    if (sm_device_check_layout(v, layout->gpus_per_node, st))
        return -1;
    double local = c->fit.opt.grad_form == SM_GRAD_LINEAR
                       ? sm_fit_eval(&c->fit, SM_PHASE_GRAD, m, layout)
                       : sm_fit_grad_local(&c->fit, m, layout);
    sm_ring_config a = sm_device_ring(v, v->grad_bytes * (double)m->weights, c->comm->bucket_bytes,
                                      (double)m->param_tensors, layout->nodes,
                                      layout->gpus_per_node, c->comm->collective);
    double sync = sm_ring_allreduce_time(&a).total;
    if (sm_device_check_allreduce(v, sync, layout->nodes, layout->gpus_per_node, st))
        return -1;
    if (c->overlap && sm_layout_devices(layout) > 1) {
        sm_grad_layer *grads = fitted_grads(&c->fit, net, m, layout, v->grad_bytes, st);
        if (!grads)
            return -1;
        sync = sm_ring_allreduce_overlapped(&a, grads, net->n_layers, SM_DDP_FIRST_BUCKET_BYTES);
        free(grads);
    }
    *t_grad = local + sync;
    return 0;
}

/* Passes faster than the description's dense peak at the calibration's precision allows:
 * no device runs them (mfu would come out above 1), so the calibration extrapolates past what
 * it measured (other networks, larger batches), or the description is not the device
 * calibrated (an H100's calibration beside the cpu's description). */
static int check_peak(const coeffs *c, const sm_network *net, const sm_layout *layout,
                      const sm_prediction *out, sm_status *st)
{
    int p = sm_precision_parse(c->fit.precision);
    if (!c->comm || p < 0 || !(c->comm->dev.peak[p] > 0))
        return 0;
    sm_metrics m;
    if (sm_network_metrics(net, layout->batch, &m, st))
        return -1;
    const sm_device *v = &c->comm->dev;
    double peak = sm_device_dense_peak(v, (sm_precision)p);
    const char *what[] = {"t_infer", "t_fwd + t_bwd"};
    const double flops[] = {(double)m.flops, (double)m.flops + (double)m.bwd_flops};
    const double t[] = {out->t_infer, out->t_fwd + out->t_bwd};
    for (int k = 0; k < 2; k++)
        if (t[k] > 0 && flops[k] / t[k] > peak) /* NaN: a phase not fitted */
            return sm_fail(st,
                           "%s predicts %s = %g s for %s at batch %lld: %.4g TFLOP/s, above "
                           "%s's dense %s peak of %g TFLOP/s (peak_%s_tflops in %s): the "
                           "calibration extrapolates past what it measured, or the "
                           "description is not of the device calibrated",
                           c->path, what[k], t[k], net->name, (long long)layout->batch,
                           flops[k] / t[k] / 1e12, v->name, c->fit.precision, peak / 1e12,
                           peak > v->peak[p] ? "fp32" : c->fit.precision, v->path);
    return 0;
}

static int predict(const void *impl, const sm_network *net, const sm_layout *layout,
                   sm_prediction *out, double *per_micro, sm_status *st)
{
    const coeffs *c = impl;
    *per_micro = 0; /* DDP's all-reduce: once per step, whatever the micro-batches */
    sm_metrics m;
    if (sm_network_metrics(net, 1, &m, st))
        return -1;
    out->t_infer = sm_fit_eval(&c->fit, SM_PHASE_INFER, &m, layout);
    out->t_fwd = sm_fit_eval(&c->fit, SM_PHASE_FWD, &m, layout);
    out->t_bwd = sm_fit_eval(&c->fit, SM_PHASE_BWD, &m, layout);
    out->t_grad = sm_fit_eval(&c->fit, SM_PHASE_GRAD, &m, layout);
    if (check_peak(c, net, layout, out, st))
        return -1;
    if (c->comm) {
        if (described_grad(c, net, &m, layout, &out->t_grad, st))
            return -1;
    } else if (c->overlap && sm_layout_devices(layout) > 1 && c->fit.phase[SM_PHASE_GRAD].fitted) {
        double exposed = 0;
        if (overlapped_comm(&c->fit, net, &m, layout, &exposed, st))
            return -1;
        out->t_grad = sm_fit_grad_local(&c->fit, &m, layout) + exposed;
    }
    out->t_step = out->t_fwd + out->t_bwd + out->t_grad;
    /* over the times printed beside them: a step of K micro-batches (sm_predict's accumulate,
     * which adds nothing per micro-batch here) draws the idle power over all of it, runs the
     * passes K times and sums the gradients once; an all-reduce from a description or
     * overlapped takes its own time, the device idle meanwhile */
    int k = sm_layout_accumulate(layout);
    out->e_infer = sm_fit_energy_at(&c->fit, SM_ENERGY_INFER, &m, layout, out->t_infer, 1);
    out->e_step = sm_fit_energy_at(&c->fit, SM_ENERGY_STEP, &m, layout,
                                   k * (out->t_fwd + out->t_bwd) + out->t_grad, k);
    return 0;
}

/* Forward coefficients of the training pass, or of inference when training was not fitted. */
static sm_phase forward_phase(const sm_fit *fit)
{
    return fit->phase[SM_PHASE_FWD].fitted ? SM_PHASE_FWD : SM_PHASE_INFER;
}

/* The forward time of block b, its metrics part and the network's whole: the equation on the
 * block's F, I, O, with the intercept shared out in proportion to its FLOPs. */
static double block_time(const coeffs *c, sm_phase ph, const sm_network *net,
                         const sm_metrics *whole, const sm_metrics *part, const sm_layout *layout)
{
    double share =
        whole->flops > 0 ? (double)part->flops / (double)whole->flops : 1.0 / net->n_blocks;
    return sm_fit_eval_share(&c->fit, ph, part, share, layout);
}

static int predict_block(const void *impl, const sm_network *net, int block,
                         const sm_layout *layout, double *t_fwd, sm_status *st)
{
    const coeffs *c = impl;
    sm_phase ph = forward_phase(&c->fit);
    if (!c->fit.phase[ph].fitted) {
        *t_fwd = NAN;
        return 0;
    }
    sm_metrics whole, part;
    if (sm_network_metrics(net, 1, &whole, st) || sm_block_metrics(net, block, 1, &part, st))
        return -1;
    *t_fwd = block_time(c, ph, net, &whole, &part, layout);
    return 0;
}

/* Every block's, from the blocks' metrics in one walk over the layers. */
static int predict_blocks(const void *impl, const sm_network *net, const sm_layout *layout,
                          double *t_fwd, sm_status *st)
{
    const coeffs *c = impl;
    sm_phase ph = forward_phase(&c->fit);
    if (!c->fit.phase[ph].fitted) {
        for (int b = 0; b < net->n_blocks; b++)
            t_fwd[b] = NAN;
        return 0;
    }
    sm_metrics whole, *parts = malloc(((size_t)net->n_blocks + 1) * sizeof *parts);
    if (!parts)
        return sm_fail(st, "out of memory");
    int rc = sm_network_metrics(net, 1, &whole, st) || sm_blocks_metrics(net, 1, parts, st);
    for (int b = 0; !rc && b < net->n_blocks; b++)
        t_fwd[b] = block_time(c, ph, net, &whole, &parts[b], layout);
    free(parts);
    return rc ? -1 : 0;
}

static void coeffs_free(void *impl)
{
    coeffs *c = impl;
    free(c->comm);
    free(c);
}

/* The description's all-reduce for one bucket, as described_grad sends them; 1 without one. */
static int coeffs_allreduce(const void *impl, const sm_network *net, const sm_layout *layout,
                            sm_allreduce_estimate *out, sm_status *st)
{
    const coeffs *c = impl;
    if (!c->comm)
        return 1;
    return sm_device_bucket_choice(&c->comm->dev, net, c->comm->bucket_bytes, c->comm->collective,
                                   SM_OP_ALL_REDUCE, layout, out, st);
}

static const predictor_ops coeffs_ops = {
    predict, predict_block, predict_blocks, coeffs_free, coeffs_allreduce, NULL, NULL};

int sm_predictor_from_coeffs(const char *path, sm_predictor **out, sm_status *st)
{
    if (!path || !out)
        return sm_null_arg(st, __func__, !path ? "path" : "out");
    return sm_predictor_from_coeffs_opts(path, 0, out, st);
}

/* What one device keeps: the description's where there is one; else, for a calibration of
 * CPU ranks, what PyTorch's CPU kernels keep (the shipped cpu description's memory facts: a
 * float dropout mask, no library workspace), its capacity unknown; else CUDA's kernels' (a
 * bool mask, FlashAttention's own dropout), the precision's alone. */
static int coeffs_memory(const coeffs *c, const comm_model *comm, sm_precision p,
                         sm_memory_config *out, sm_status *st)
{
    *out = (sm_memory_config){
        .optimizer = SM_OPTIMIZER_MOMENTUM, .mask_bytes = 1, .optimizer_is_default = 1};
    if (comm) {
        sm_device_memory_config(&comm->dev, p, out);
        return 0;
    }
    if (c->fit.backend == SM_BACKEND_CPU) {
        char path[4096];
        sm_device *cpu = malloc(sizeof *cpu);
        if (!cpu)
            return sm_fail(st, "out of memory");
        int rc = sm_device_find("cpu", path, sizeof path, st) || sm_device_load(path, cpu, st);
        if (!rc) {
            sm_device_memory_config(cpu, p, out);
            out->capacity_bytes = 0; /* of the machine calibrated, not of the description */
        }
        free(cpu);
        return rc ? -1 : 0;
    }
    out->half = sm_precision_is_half(p);
    out->fp16 = p == SM_FP16;
    out->autocast = out->half; /* half-precision calibrations are AMP runs */
    return 0;
}

/* Reads path into a predictor; comm (owned from now on, may be NULL) replaces the fit's
 * communication terms. */
static int open_coeffs(const char *path, int overlap, comm_model *comm, sm_predictor **out,
                       sm_status *st)
{
    *out = NULL;
    coeffs *c = malloc(sizeof *c);
    if (!c) {
        free(comm);
        return sm_fail(st, "%s: out of memory", path);
    }
    c->comm = comm;
    snprintf(c->path, sizeof c->path, "%s", path);
    if (sm_fit_read(path, &c->fit, &c->meta, st)) {
        coeffs_free(c);
        return -1;
    }
    c->overlap = overlap != 0;
    int linear = c->fit.opt.grad_form == SM_GRAD_LINEAR;
    const char *problem = NULL;
    if (overlap && linear && !comm)
        problem = "overlap needs the ring form's communication terms, per bucket; this "
                  "calibration has the linear form (refit with --grad-model ring)";
    else if (comm && linear && c->fit.multi_device)
        problem = "the linear form's t_grad does not tell the local update from communication, "
                  "which the device description replaces (refit with --grad-model ring, or on "
                  "single-device runs)";
    else if (comm && c->fit.comm_unidentified)
        problem = "its t_grad holds the communication of the one layout its runs had, which the "
                  "device description would add again (refit with single-device runs among "
                  "the rows, or on them alone)";
    if (problem) {
        coeffs_free(c);
        return sm_fail(st, "%s: %s", path, problem);
    }
    int fitted_at = sm_precision_parse(c->fit.precision);
    if (comm && fitted_at >= 0 && !(comm->dev.peak[fitted_at] > 0)) {
        /* a part without the calibration's precision cannot be the part calibrated: its
         * all-reduce and memory would be priced for another device than the times */
        sm_fail(st,
                "%s: fitted at %s, but device %s has no %s peak (peak_%s_tflops in %s): the "
                "description is not of the device calibrated; give that device's description",
                path, c->fit.precision, comm->dev.name, c->fit.precision, c->fit.precision,
                comm->dev.path);
        coeffs_free(c);
        return -1;
    }
    char calibration[256], desc[640];
    int points = 0;
    for (int ph = 0; ph < SM_N_FIT_PHASES; ph++)
        if (c->fit.phase[ph].stats.n > points)
            points = c->fit.phase[ph].stats.n;
    char sync[512] = "", restriction[256];
    if (comm)
        snprintf(
            sync, sizeof sync, "; gradients all-reduced by %.63s's %s%s in %g MiB buckets",
            comm->dev.name, comm->collective == SM_COLLECTIVE_NCCL ? "NCCL model" : "ring",
            sm_device_restriction(&comm->dev, comm->collective, restriction, sizeof restriction),
            comm->bucket_bytes / 1048576.0);
    snprintf(calibration, sizeof calibration, "%.180s (%s, fit %.10s, %d points)",
             c->meta.device[0] ? c->meta.device : "unknown device", c->fit.precision, c->meta.date,
             points);
    /* single-device rows and no description: there is no all-reduce to overlap */
    int overlaps = overlap && (comm || c->fit.multi_device);
    snprintf(desc, sizeof desc, "%s%.240s%s", calibration, sync,
             overlaps ? ", buckets all-reduced during the backward pass" : "");
    char precision[8];
    snprintf(precision, sizeof precision, "%s", c->fit.precision);
    int devices_per_node = comm ? comm->dev.devices_per_node : 0;
    int p = sm_precision_parse(precision);
    sm_memory_config memory;
    if (coeffs_memory(c, comm, p < 0 ? SM_FP32 : (sm_precision)p, &memory, st)) {
        coeffs_free(c);
        return -1;
    }
    *out = predictor_new(&coeffs_ops, c, desc);
    if (!*out)
        return sm_fail(st, "%s: out of memory", path);
    snprintf((*out)->precision, sizeof(*out)->precision, "%s", precision);
    snprintf((*out)->calibration, sizeof(*out)->calibration, "%s", calibration);
    snprintf((*out)->source, sizeof(*out)->source, "%s", path);
    (*out)->devices_per_node = devices_per_node;
    (*out)->memory = memory;
    /* beside a description, its dense peak at the calibration's precision: the device the
     * all-reduce runs between is the one calibrated, so mfu has a denominator */
    if (comm && p >= 0)
        (*out)->peak_flops = sm_device_dense_peak(&comm->dev, (sm_precision)p);
    /* and its power limit, which the calibration's energy per time is held to */
    (*out)->power_limit = comm ? comm->dev.power_limit : 0;
    return 0;
}

int sm_predictor_from_coeffs_opts(const char *path, int overlap, sm_predictor **out, sm_status *st)
{
    if (!path || !out)
        return sm_null_arg(st, __func__, !path ? "path" : "out");
    return open_coeffs(path, overlap, NULL, out, st);
}

int sm_predictor_from_coeffs_device(const char *coeffs_path, const char *device,
                                    const sm_device_options *opt, sm_predictor **out, sm_status *st)
{
    if (!out)
        return sm_null_arg(st, __func__, "out");
    if (!coeffs_path || !device) {
        *out = NULL;
        return sm_null_arg(st, __func__, !coeffs_path ? "coeffs_path" : "device");
    }
    static const sm_device_options defaults = {0};
    *out = NULL;
    if (!opt)
        opt = &defaults;
    if (opt->framework)
        return sm_fail(st,
                       "framework %s: with coefficients the passes are the calibration's; "
                       "a framework applies to --device alone",
                       opt->framework);
    comm_model *comm = calloc(1, sizeof *comm);
    if (!comm)
        return sm_fail(st, "out of memory");
    if (sm_device_open_allreduce(device, opt, &comm->dev, &comm->collective, &comm->bucket_bytes,
                                 st)) {
        free(comm);
        return -1;
    }
    return open_coeffs(coeffs_path, opt->overlap, comm, out, st);
}

static void append(char *buf, size_t len, const char *text)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

int sm_predictor_warning(const sm_predictor *p, const sm_layout *layout, char *buf, size_t len)
{
    if (!len)
        return 0;
    if (!buf)
        return -1;
    buf[0] = '\0';
    if (!p || !layout)
        return -1;
    if (p->ops != &coeffs_ops)
        return 0;
    const sm_fit *fit = &((const coeffs *)p->impl)->fit;
    int64_t n = sm_layout_devices(layout);
    /* with a description's all-reduce, the fit's communication terms are not used */
    int grad = fit->phase[SM_PHASE_GRAD].fitted && !((const coeffs *)p->impl)->comm;
    int ring = fit->opt.grad_form == SM_GRAD_RING;
    char text[320];
    if (grad && fit->comm_unidentified && n != fit->devices_max) {
        snprintf(text, sizeof text,
                 "the calibration's runs could not separate communication from the rest: t_grad "
                 "is as measured on %d devices (calibrate with one rank and with several, into "
                 "one CSV)",
                 fit->devices_max);
        append(buf, len, text);
    } else if (n > 1 && !fit->multi_device && grad && !fit->comm_unidentified) {
        snprintf(text, sizeof text,
                 "the calibration saw single-device runs only: t_grad on several devices is the "
                 "local update alone, without communication%s (calibrate with several devices, "
                 "or add --device NAME: a description's all-reduce)",
                 ((const coeffs *)p->impl)->overlap ? ", and the overlap has nothing to hide" : "");
        append(buf, len, text);
    } else if (grad && ring && !fit->flat_ring) {
        /* the hierarchical ring form fits a level's terms only when the rows had that level */
        if (layout->gpus_per_node > 1 && !fit->multi_gpu)
            append(buf, len,
                   "the calibration saw one device per node only: t_grad with several devices "
                   "per node leaves out the intra-node terms of the ring all-reduce (calibrate "
                   "with several devices per node)");
        if (layout->nodes > 1 && !fit->multi_node)
            append(buf, len,
                   "the calibration saw single-node runs only: t_grad on several nodes leaves "
                   "out the inter-node terms of the ring all-reduce (calibrate on several "
                   "nodes)");
    } else if (grad && ring && fit->flat_ring && layout->gpus_per_node > 1 && n > 1) {
        append(buf, len,
               "the coefficients are of the flat ring form (one ring over all devices), written "
               "before the hierarchical form: refit to tell the intra-node from the inter-node "
               "terms");
    }
    if (n > fit->devices_max && fit->multi_device && (grad || fit->contention)) {
        snprintf(text, sizeof text, "more devices than calibrated (at most %d): %s extrapolates",
                 fit->devices_max, grad ? "t_grad" : "the passes' contention term");
        append(buf, len, text);
    }
    /* the energy terms hold the idle power only over the times the calibration measured: an
     * all-reduce the description or the overlap times anew leaves the devices waiting for it
     * at no cost (a step of 64 devices at 35 W each, below an H100's idle draw) */
    const coeffs *cf = p->impl;
    if (n > 1 && fit->energy[SM_ENERGY_STEP].fitted && !(fit->opt.idle_watts > 0) &&
        (cf->comm || cf->overlap))
        append(buf, len,
               "the energy calibration has no idle power (fit --idle-watts W): the all-reduce "
               "timed by the description or the overlap costs no energy in e_step while the "
               "devices wait, so the energy per step and epoch is low");
    if (fit->batch_max > 0 && layout->batch > fit->batch_max) {
        snprintf(text, sizeof text,
                 "a batch beyond the calibrated range (%lld to %lld): times extrapolate",
                 (long long)fit->batch_min, (long long)fit->batch_max);
        append(buf, len, text);
    }
    return buf[0] != '\0';
}

int sm_predictor_network_warning(const sm_predictor *p, const sm_network *net, char *buf,
                                 size_t len)
{
    if (!len)
        return 0;
    if (!buf)
        return -1;
    buf[0] = '\0';
    if (!p || !net)
        return -1;
    if (p->ops != &coeffs_ops)
        return 0;
    const sm_fit *fit = &((const coeffs *)p->impl)->fit;
    char text[400];
    sm_family family = sm_network_family(net);
    if (fit->families && !(fit->families & (1u << family))) {
        int used = snprintf(text, sizeof text, "the calibration was fitted on");
        for (int k = 0, n = 0; k < SM_N_FAMILIES && used > 0 && (size_t)used < sizeof text; k++)
            if (fit->families & (1u << k))
                used += snprintf(text + used, sizeof text - (size_t)used, "%s%s",
                                 n++ ? " and " : " ", sm_family_name((sm_family)k));
        if (used > 0 && (size_t)used < sizeof text)
            snprintf(text + used, sizeof text - (size_t)used,
                     " networks only, and the layers of %s networks cost differently "
                     "(calibrate with %s networks, or use --device)",
                     sm_family_name(family), sm_family_name(family));
        append(buf, len, text);
    }
    int64_t image = sm_network_image(net);
    if (fit->image_min > 0 && fit->image_max > 0 &&
        (image < fit->image_min || image > fit->image_max)) {
        snprintf(text, sizeof text,
                 "%s %lld is outside the calibrated range (%lld to %lld): times extrapolate",
                 net->input.ndim >= 3 ? "image" : "sequence length", (long long)image,
                 (long long)fit->image_min, (long long)fit->image_max);
        append(buf, len, text);
    }
    return buf[0] != '\0';
}
