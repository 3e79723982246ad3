/* A device description's efficiency and dispatch keys fitted to measured runs: the
 * calibration-free model of predictor_device.c is linear in its unknowns once each layer is
 * known to be compute- or memory-bound,
 *
 *   t_phase = d_phase L + u_c C + u_m M + R      (u_c = 1 / compute efficiency of the
 *                                                  precision, u_m = 1 / memory efficiency)
 *
 * with L the kernels launched (the plugins' counts per pass, and autocast's casts), C the
 * matrix layers' compute-bound seconds at the base's efficiencies (convolutions at
 * conv_efficiency_P, the other matrix products at compute_efficiency_P), so that u_c scales
 * the pair: runs of CNNs or of transformers alone can't tell the two apart, and the ratio of
 * the base's stands (Hopper's convolutions at half its matrix products' rate at fp16 and
 * bf16, device_arch.c); M the memory-bound layers' seconds at full bandwidth (NCHW
 * convolutions' transposes at fp16/bf16 among them), R the fp32 compute of compute-bound
 * element-wise layers at the base file's fp32 efficiency and the layers the SMs bind below the
 * DRAM's rate at their rate (batch norm, [framework] batchnorm_*). A non-negative relative
 * least-squares fit over the infer, fwd and bwd rows gives d_infer, d_fwd, d_bwd, u_c, u_m; the
 * layers are then reclassified at the new efficiencies until nothing changes. Where the base's
 * framework runs the host ahead (host_runs_ahead: a queue per pass), a row holds the launches up
 * to the layer where the queue binds and the device terms from it on (queued_row), and the rounds
 * move that layer with the keys as they reclassify. The update is fitted alone: t_grad =
 * d_update P + u 20 W / bandwidth. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_file.h"
#include "network/network_internal.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "util/escape.h"
#include "util/fnv.h"
#include "util/ini_reader.h"

enum { U_DINFER, U_DFWD, U_DBWD, U_C, U_M, N_UNKNOWNS };

/* The design row of one phase (0 infer, 1 fwd, 2 bwd) of a network at a batch at the current
 * efficiencies, and the fixed part R. */
/* One layer's share of a design row: launches (casts included), compute-bound seconds at the
 * base's efficiencies, memory-bound seconds at full bandwidth, and the fixed seconds. */
typedef struct layer_row {
    double launches, compute, memory, fixed;
} layer_row;

/* The largest fraction of the peak v's matrix products and convolutions reach at p, any
 * kind or pass: what the fit's one scale of them all stops at 1. */
static double top_efficiency(const sm_device *v, int p, char *key, size_t len)
{
    static const char *const kinds[2][2] = {{"conv_fwd", "conv_bwd"},
                                            {"conv1x1_fwd", "conv1x1_bwd"}};
    const char *pn = sm_precision_names[p];
    double top = v->efficiency[p];
    snprintf(key, len, "compute_efficiency_%s", pn);
    if (v->conv_efficiency[p] > top) {
        top = v->conv_efficiency[p];
        snprintf(key, len, "conv_efficiency_%s", pn);
    }
    for (int kind = 0; kind < 2; kind++)
        for (int pass = 0; pass < 2; pass++)
            if (v->conv_kind_efficiency[p][kind][pass] > top) {
                top = v->conv_kind_efficiency[p][kind][pass];
                snprintf(key, len, "%s_efficiency_%s", kinds[kind][pass], pn);
            }
    return top;
}

/* The design row of a queued phase (host_runs_ahead): the pass ends when the GPU runs the last
 * kernel, max over j of the host's issue of layers 1..j plus the GPU's time of layers j..n (the
 * queue of predictor_device.c's queue_pass, unrolled), so with the j that bounds it at the
 * current keys the row is linear again: the launches before j and the device time from j on.
 * The fit's rounds move j as they move the keys, as they reclassify the layers. */
static void queued_row(const layer_row *lr, int n, int phase, double dispatch, double scale,
                       double eff_m, double *x, double *fixed)
{
    double device = 0, host = 0, best = -1;
    int from = 0;
    for (int k = 0; k < n; k++)
        device += lr[k].compute / scale + lr[k].memory / eff_m + lr[k].fixed;
    for (int k = 0; k < n; k++) { /* in the order the host issues them */
        const layer_row *r = &lr[phase == 2 ? n - 1 - k : k];
        host += r->launches * dispatch;
        if (host + device > best)
            best = host + device, from = k;
        device -= r->compute / scale + r->memory / eff_m + r->fixed;
    }
    for (int k = 0; k < n; k++) {
        const layer_row *r = &lr[phase == 2 ? n - 1 - k : k];
        if (k <= from)
            x[U_DINFER + phase] += r->launches;
        if (k >= from) {
            x[U_C] += r->compute, x[U_M] += r->memory;
            *fixed += r->fixed;
        }
    }
}

/* A plain element-wise kernel's fraction of the bandwidth over the step's memory-bound
 * kernels': the base's, which a fitted memory_efficiency keeps (device_fit_write) */
static double stream_ratio(const sm_device *v)
{
    return v->stream_efficiency > 0 && v->memory_efficiency > 0
               ? v->stream_efficiency / v->memory_efficiency
               : 1;
}

static int design(const sm_device *v, sm_precision p, int64_t batch, const sm_network *net,
                  int phase, double scale, double eff_m, double dispatch, double *x, double *fixed,
                  sm_status *st)
{
    int half = sm_precision_is_half(p), n = 0;
    memset(x, 0, N_UNKNOWNS * sizeof *x);
    *fixed = 0;
    unsigned char *fused = malloc((size_t)net->n_layers + 1);
    layer_row *lr = calloc((size_t)net->n_layers + 1, sizeof *lr);
    if (!fused || !lr || sm_network_fused(v, net, fused)) {
        free(fused), free(lr);
        return sm_fail(st, "out of memory");
    }
    for (int i = 0; i < net->n_layers; i++) {
        sm_metrics m;
        if (sm_layer_metrics_at(&net->layers[i], batch, &m, st)) {
            free(fused), free(lr);
            return -1;
        }
        /* the kernels this phase launches, as the predictor counts them */
        int64_t k = sm_layer_kernels(v, &m, phase);
        /* an activation in an addition's epilogue: its gradient in the fused kernel's
         * backward pass, launched with it (the predictor's) */
        int gradient = fused[i] == SM_FUSED_GRADIENT && phase == 2;
        if (!k || (fused[i] && !gradient))
            continue;
        if (gradient)
            k = 0;
        layer_row *r = &lr[n++];
        int mm = sm_layer_is_matmul(&net->layers[i]);
        /* the matrix products at the base's efficiencies (scaled by the fit), the rest at
         * its fp32 vector rate */
        sm_layer_work w =
            sm_layer_pass_work(v, &net->layers[i], &m, batch, p, phase == 2, phase > 0);
        double c_mm =
            sm_layer_compute_seconds(v, p,
                                     (sm_layer_work){.matmul_flops = w.matmul_flops,
                                                     .conv_flops = w.conv_flops,
                                                     .conv_efficiency = w.conv_efficiency});
        /* a plain element-wise kernel streams at stream_efficiency: the fit's memory unknown
         * scales it with the rest, their ratio the base's (stream_ratio) */
        double mem = w.bytes / v->memory_bandwidth / (w.elementwise ? stream_ratio(v) : 1);
        double t_vec =
            sm_layer_compute_seconds(v, p, (sm_layer_work){.vector_flops = w.vector_flops});
        /* a kernel the SMs bind below the DRAM's rate (batch norm) takes their time, which the
         * memory efficiency does not scale */
        double by_sms = w.sm_stream > 0 && w.sm_stream < eff_m * v->memory_bandwidth
                            ? w.bytes / w.sm_stream
                            : 0;
        if (c_mm / scale + t_vec >= (by_sms > 0 ? by_sms : mem / eff_m)) {
            r->compute += c_mm;
            r->fixed += t_vec;
        } else if (by_sms > 0) {
            r->fixed += by_sms;
        } else {
            r->memory += mem;
        }
        r->memory += w.serial_bytes / v->memory_bandwidth;
        /* cuDNN's transposes: the DRAM's bytes, which the memory efficiency scales, or where
         * the SMs bound them their time, which it does not */
        double transposed = sm_layer_transpose_bytes(v, &net->layers[i], &m, p, phase == 2);
        if (sm_transpose_sm_bound(v))
            r->fixed += sm_transpose_seconds(v, transposed);
        else
            r->memory += transposed / v->memory_bandwidth;
        /* kernels the SMs bound apart (a convolution's bias): their time, unscaled */
        r->fixed += w.sm_seconds;
        /* eager attention's score products, bound by their own arithmetic or score matrix, or
         * on the CUDA cores by both, one after the other (sm_scores_unhidden) */
        double c_s = sm_layer_compute_seconds(v, p, (sm_layer_work){.matmul_flops = w.score_flops});
        double m_s = w.score_bytes / v->memory_bandwidth;
        if (sm_scores_unhidden(v, p))
            r->compute += c_s, r->memory += m_s;
        else if (c_s > 0 && c_s / scale >= m_s / eff_m)
            r->compute += c_s;
        else
            r->memory += m_s;
        r->launches = (double)k + (half && mm ? v->autocast_casts : 0);
        /* each launch's start and drain on the device, a key the fit keeps ([framework]
         * kernel_device_us) */
        r->fixed += r->launches * v->kernel_device;
        /* a library's own launches inside the call, at the base's bare launch (the predictor's) */
        r->fixed += (double)(phase == 2 ? net->layers[i].m.library_kernels_bwd
                                        : net->layers[i].m.library_kernels_fwd) *
                    v->launch_overhead;
    }
    free(fused);
    if (v->host_runs_ahead) {
        queued_row(lr, n, phase, dispatch, scale, eff_m, x, fixed);
    } else {
        for (int k = 0; k < n; k++) {
            x[U_DINFER + phase] += lr[k].launches;
            x[U_C] += lr[k].compute, x[U_M] += lr[k].memory;
            *fixed += lr[k].fixed;
        }
    }
    free(lr);
    return 0;
}

static double target(const sm_run *r, int phase)
{
    return phase == 0 ? r->t_infer : phase == 1 ? r->t_fwd : r->t_bwd;
}

/* The rows' networks and configurations, each found once by hashing: a network per (model,
 * image), loaded at its first row, and a configuration per (network, batch), whose design rows
 * every row of it shares. Looked up row by row against all found before, and designed row by
 * row, rows of many networks cost rows x networks and rows x layers each reclassification. */
typedef struct fit_net {
    sm_network *net;
    int row;     /* its first row */
    int totaled; /* total holds its metrics at batch 1 */
    sm_metrics total;
} fit_net;

typedef struct fit_config {
    int net;
    int64_t batch;
    int designed[3]; /* the iteration + 1 whose design x[phase], fixed[phase] are */
    double x[3][N_UNKNOWNS], fixed[3];
} fit_config;

typedef struct fit_rows {
    fit_net *nets;
    fit_config *configs;
    int *config_of; /* of each row */
    int n_nets, n_configs;
} fit_rows;

static uint64_t hash_model(const char *model, int64_t image)
{
    return sm_fnv1a_u64(sm_fnv1a_str(SM_FNV1A_OFFSET, model), (uint64_t)image);
}

static void fit_rows_free(fit_rows *f)
{
    for (int k = 0; f->nets && k < f->n_nets; k++)
        sm_network_free(f->nets[k].net);
    free(f->nets), free(f->configs), free(f->config_of);
}

static int fit_rows_find(const sm_runs *runs, const sm_registry *reg, fit_rows *f, sm_status *st)
{
    size_t n = (size_t)runs->n, cap = 16; /* a power of two, at least twice the rows */
    while (cap < 2 * n)
        cap *= 2;
    f->nets = calloc(n + 1, sizeof *f->nets);
    f->configs = calloc(n + 1, sizeof *f->configs);
    f->config_of = malloc((n + 1) * sizeof *f->config_of);
    int *net_slot = malloc(cap * sizeof *net_slot),
        *config_slot = malloc(cap * sizeof *config_slot);
    int rc = 0;
    if (!f->nets || !f->configs || !f->config_of || !net_slot || !config_slot) {
        rc = sm_fail(st, "out of memory");
        goto done;
    }
    for (size_t h = 0; h < cap; h++)
        net_slot[h] = config_slot[h] = -1;
    for (int i = 0; i < runs->n; i++) {
        const sm_run *r = &runs->rows[i];
        size_t h = (size_t)hash_model(r->model, r->image) & (cap - 1);
        for (; net_slot[h] >= 0; h = (h + 1) & (cap - 1)) {
            const sm_run *first = &runs->rows[f->nets[net_slot[h]].row];
            if (first->image == r->image && strcmp(first->model, r->model) == 0)
                break;
        }
        if (net_slot[h] < 0) {
            fit_net *fn = &f->nets[f->n_nets];
            sm_network_options opt = {.image = r->image};
            sm_status inner;
            if (sm_network_load(reg, r->model, &opt, &fn->net, &inner)) {
                rc = sm_fail(st, "%s:%d: model %s: %s", runs->path, r->line, r->model, inner.msg);
                goto done;
            }
            fn->row = i;
            net_slot[h] = f->n_nets++;
        }
        int net = net_slot[h];
        h = (size_t)sm_fnv1a_u64(sm_fnv1a_u64(SM_FNV1A_OFFSET, (uint64_t)net), (uint64_t)r->batch) &
            (cap - 1);
        for (; config_slot[h] >= 0; h = (h + 1) & (cap - 1)) {
            const fit_config *c = &f->configs[config_slot[h]];
            if (c->net == net && c->batch == r->batch)
                break;
        }
        if (config_slot[h] < 0) {
            f->configs[f->n_configs] = (fit_config){.net = net, .batch = r->batch};
            config_slot[h] = f->n_configs++;
        }
        f->config_of[i] = config_slot[h];
    }
done:
    free(net_slot), free(config_slot);
    return rc;
}

int sm_device_fit(const sm_runs *runs, const sm_registry *reg, const char *base,
                  sm_device_fit_result *out, sm_status *st)
{
    if (!runs || !reg || !base || !out)
        return sm_null_arg(st, __func__, !runs ? "runs" : !reg ? "reg" : !base ? "base" : "out");
    memset(out, 0, sizeof *out);
    char path[4096];
    if (sm_device_find(base, path, sizeof path, st))
        return -1;
    sm_device v;
    if (sm_device_load(path, &v, st))
        return -1;
    int p = sm_precision_parse(runs->n ? runs->rows[0].precision : "fp32");
    if (p < 0 || v.peak[p] <= 0)
        return sm_fail(st, "%s: no peak for precision %s (peak_%s_tflops)", path,
                       runs->rows[0].precision, runs->rows[0].precision);
    snprintf(out->precision, sizeof out->precision, "%s", sm_precision_names[p]);
    /* a row of more devices a node than the base's node holds: the description written would
     * be refused on the very rows it was fitted to (validate --device) */
    for (int i = 0; i < runs->n; i++) {
        sm_status inner;
        if (sm_device_check_layout(&v, runs->rows[i].gpus_per_node, &inner))
            return sm_fail(st,
                           "%s:%d: %s: the description would not describe this row (give a "
                           "base whose node holds its devices, or leave the row out)",
                           runs->path, runs->rows[i].line, inner.msg);
    }

    fit_rows fr = {0};
    double *A = malloc((size_t)runs->n * 3 * N_UNKNOWNS * sizeof *A);
    double *b = malloc((size_t)runs->n * 3 * sizeof *b);
    double *G = malloc((size_t)runs->n * 2 * sizeof *G), *g = malloc((size_t)runs->n * sizeof *g);
    int rc = -1;
    if (!A || !b || !G || !g) {
        sm_fail(st, "out of memory");
        goto done;
    }
    if (fit_rows_find(runs, reg, &fr, st))
        goto done;
    double scale = 1, eff_m = v.memory_efficiency, u[N_UNKNOWNS];
    /* the dispatch a queued phase's rows split at: the base's, then each round's */
    double dispatch[3] = {v.dispatch_infer, v.dispatch_fwd, v.dispatch_bwd};
    /* the description each round writes (the round's dispatch, the efficiencies it fitted),
     * scored on the next round's rows, which classify the layers at those efficiencies as the
     * predictor does: where the rounds never settle (the H100 tf32 runs flip between two
     * classifications), the one that predicts the runs best, not the last */
    double best_u[N_UNKNOWNS], best_scale = 1, best_m = eff_m, best_err = INFINITY;
    int settled = 0;
    for (int iter = 0; iter < 20; iter++) {
        int m = 0;
        /* fill column-major after counting rows: first pass into a row buffer */
        double(*rows)[N_UNKNOWNS] = (double(*)[N_UNKNOWNS])A;
        for (int i = 0; i < runs->n; i++)
            for (int ph = 0; ph < 3; ph++) {
                double t = target(&runs->rows[i], ph);
                if (!isfinite(t))
                    continue;
                fit_config *c = &fr.configs[fr.config_of[i]];
                if (c->designed[ph] != iter + 1) {
                    if (design(&v, (sm_precision)p, c->batch, fr.nets[c->net].net, ph, scale, eff_m,
                               dispatch[ph], c->x[ph], &c->fixed[ph], st))
                        goto done;
                    c->designed[ph] = iter + 1;
                }
                b[m] = (t - c->fixed[ph]) / t;
                for (int k = 0; k < N_UNKNOWNS; k++)
                    rows[m][k] = c->x[ph][k] / t;
                m++;
            }
        if (m < N_UNKNOWNS) {
            sm_fail(st, "%s: %d pass times for %d device keys: too few", runs->path, m, N_UNKNOWNS);
            goto done;
        }
        if (iter > 0) {
            /* the last round's description: its relative errors, rows and b being relative */
            double written[N_UNKNOWNS] = {u[U_DINFER], u[U_DFWD], u[U_DBWD], 1 / scale, 1 / eff_m};
            double err = 0;
            for (int r = 0; r < m; r++) {
                double e = -b[r];
                for (int k = 0; k < N_UNKNOWNS; k++)
                    e += rows[r][k] * written[k];
                err += e * e;
            }
            if (err < best_err) {
                best_err = err;
                memcpy(best_u, u, sizeof best_u);
                best_scale = scale;
                best_m = eff_m;
            }
        }
        /* an unknown no row weighs (no row measures t_fwd): named, where the solver's message
         * would give its index ("term 2") */
        static const char *const unknown_why[N_UNKNOWNS][2] = {
            {"no row measures t_infer", "dispatch_infer_us"},
            {"no row measures t_fwd", "dispatch_fwd_us"},
            {"no row measures t_bwd", "dispatch_bwd_us"},
            {"no layer of these rows is compute-bound", "the compute efficiency"},
            {"no layer of these rows is memory-bound", "memory_efficiency"}};
        for (int k = 0; k < N_UNKNOWNS; k++) {
            int weighed = 0;
            for (int r = 0; r < m && !weighed; r++)
                weighed = rows[r][k] != 0;
            if (!weighed) {
                sm_fail(st,
                        "%s: device keys: %s, so nothing fits %s (rows of several networks and "
                        "batches, every pass measured, fit every key)",
                        runs->path, unknown_why[k][0], unknown_why[k][1]);
                goto done;
            }
        }
        double *colmajor = malloc((size_t)m * N_UNKNOWNS * sizeof *colmajor);
        if (!colmajor) {
            sm_fail(st, "out of memory");
            goto done;
        }
        for (int r = 0; r < m; r++)
            for (int k = 0; k < N_UNKNOWNS; k++)
                colmajor[(size_t)k * (size_t)m + (size_t)r] = rows[r][k];
        sm_status inner;
        int solved = sm_lstsq(colmajor, b, m, N_UNKNOWNS, 1, u, &inner);
        free(colmajor);
        if (solved) {
            sm_fail(st,
                    "%s: device keys: %s (rows of several networks and batches separate "
                    "dispatch from compute and memory)",
                    runs->path, inner.msg);
            goto done;
        }
        /* no efficiency above 1: the scale stops where the larger of the pair reaches it */
        char key[48];
        double top = top_efficiency(&v, p, key, sizeof key);
        double new_c = u[U_C] > top ? 1 / u[U_C] : 1 / top;
        double new_m = u[U_M] > 1 ? 1 / u[U_M] : 1;
        out->iterations = iter + 1;
        int stable = fabs(new_c - scale) < 1e-4 * scale && fabs(new_m - eff_m) < 1e-4 * eff_m;
        for (int ph = 0; ph < 3; ph++) {
            if (v.host_runs_ahead && fabs(u[U_DINFER + ph] - dispatch[ph]) > 1e-4 * dispatch[ph])
                stable = 0;
            dispatch[ph] = u[U_DINFER + ph];
        }
        scale = new_c;
        eff_m = new_m;
        if (stable) {
            settled = 1;
            break;
        }
    }
    out->settled = settled;
    if (!settled && isfinite(best_err)) {
        memcpy(u, best_u, sizeof best_u);
        scale = best_scale;
        eff_m = best_m;
    }
    out->dispatch_infer = u[U_DINFER];
    out->dispatch_fwd = u[U_DFWD];
    out->dispatch_bwd = u[U_DBWD];
    out->compute_efficiency = scale * v.efficiency[p];
    out->conv_efficiency = scale * v.conv_efficiency[p];
    out->memory_efficiency = eff_m;
    double top = top_efficiency(&v, p, out->compute_asked_key, sizeof out->compute_asked_key);
    out->compute_asked = u[U_C] > 0 ? top / u[U_C] : INFINITY;
    out->memory_asked = u[U_M] > 0 ? 1 / u[U_M] : INFINITY;

    /* the update: d_update P on the single-device t_grad rows less the optimizer's 20 W bytes
     * (SGD with momentum) at the memory efficiency just fitted, as the predictor prices them:
     * a free coefficient on the bytes, left behind, fitted the dispatch to another price */
    int m = 0;
    for (int i = 0; i < runs->n; i++) {
        const sm_run *r = &runs->rows[i];
        if (!isfinite(r->t_grad) || r->nodes * r->gpus_per_node != 1)
            continue;
        fit_net *fn = &fr.nets[fr.configs[fr.config_of[i]].net];
        if (!fn->totaled && sm_network_metrics(fn->net, 1, &fn->total, st))
            goto done;
        fn->totaled = 1;
        g[m] = 1.0 - 20.0 * (double)fn->total.weights / (v.memory_bandwidth * eff_m) / r->t_grad;
        G[m] = (double)fn->total.param_tensors / r->t_grad;
        m++;
    }
    out->dispatch_update = v.dispatch_update;
    double c;
    sm_status inner;
    if (m >= 1 && sm_lstsq(G, g, m, 1, 1, &c, &inner) == 0 && c >= 0)
        out->dispatch_update = c;
    snprintf(out->base, sizeof out->base, "%s", path);
    rc = 0;
done:
    fit_rows_free(&fr);
    free(A), free(b), free(G), free(g);
    return rc;
}

static int device_fit_write(const sm_device_fit_result *f, const char *source, const char *path,
                            sm_status *st)
{
    sm_device v;
    if (sm_device_load(f->base, &v, st))
        return -1;
    /* the keys fitted; everything else is the base's, as it stands */
    char efficiency[64], conv[64], kinds[4][64];
    snprintf(efficiency, sizeof efficiency, "compute_efficiency_%s", f->precision);
    snprintf(conv, sizeof conv, "conv_efficiency_%s", f->precision);
    struct {
        const char *section, *key;
        int digits;
        double value;
    } fitted[] = {
        {"device", efficiency, 6, f->compute_efficiency},
        {"device", conv, 6, f->conv_efficiency},
        {"device", "memory_efficiency", 6, f->memory_efficiency},
        {"device", "stream_efficiency", 6, fmin(1, stream_ratio(&v) * f->memory_efficiency)},
        {"framework", "dispatch_infer_us", 4, f->dispatch_infer * 1e6},
        {"framework", "dispatch_fwd_us", 4, f->dispatch_fwd * 1e6},
        {"framework", "dispatch_bwd_us", 4, f->dispatch_bwd * 1e6},
        {"framework", "dispatch_update_us", 4, f->dispatch_update * 1e6},
        {0},
        {0},
        {0},
        {0}};
    enum { N_FITTED = sizeof fitted / sizeof fitted[0] };
    /* the fit scales the base's convolutions by one factor: the kinds and passes its framework
     * prices apart ([framework] conv_*_efficiency_P) keep their ratio to conv_efficiency_P */
    int n_fitted = N_FITTED - 4, p = sm_precision_parse(f->precision);
    if (p >= 0 && v.conv_efficiency[p] > 0) {
        double scale = f->conv_efficiency / v.conv_efficiency[p];
        static const char *const names[2][2] = {{"conv_fwd", "conv_bwd"},
                                                {"conv1x1_fwd", "conv1x1_bwd"}};
        for (int k = 0; k < 4; k++) {
            double own = v.conv_kind_efficiency[p][k / 2][k % 2];
            if (!(own > 0))
                continue;
            snprintf(kinds[k], sizeof kinds[k], "%s_efficiency_%s", names[k / 2][k % 2],
                     f->precision);
            fitted[n_fitted].section = "framework";
            fitted[n_fitted].key = kinds[k];
            fitted[n_fitted].digits = 6;
            fitted[n_fitted++].value = fmin(1, scale * own);
        }
    }
    sm_device_key keys[N_FITTED + 4] = {{"device", "name", "", NULL},
                                        {"device", "description", "", NULL},
                                        {"device", "precision", "", NULL},
                                        {"framework", "name", "", NULL}};
    /* a base fitted before keeps one suffix of each, and both keys within what the loader
     * takes (a name of 63 characters, one line after "description = "): fitting the fitted
     * description again grew them past it, and what was written could not be read */
    size_t name_len = strlen(v.name), suffix = strlen("-fitted");
    if (name_len >= suffix && !strcmp(v.name + name_len - suffix, "-fitted"))
        v.name[name_len - suffix] = '\0';
    char *before = strstr(v.description, ", keys fitted to ");
    if (before)
        *before = '\0';
    const char *file = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
    snprintf(keys[0].value, sizeof v.name, "%.*s-fitted", (int)(sizeof v.name - 1 - suffix),
             v.name);
    /* a base without a description: its name stands for it (not ", keys fitted to") */
    snprintf(keys[1].value, sizeof keys[1].value, "%s, keys fitted to %s",
             v.description[0] ? v.description : v.name, file);
    keys[1].value[SM_INI_MAX_LINE - strlen("description = ")] = '\0';
    snprintf(keys[2].value, sizeof keys[2].value, "%s", f->precision);
    snprintf(keys[3].value, sizeof keys[3].value, "%s", v.framework[0] ? v.framework : "fitted");
    for (int i = 0; i < n_fitted; i++) {
        /* the ranges device_file.c loads: a description no command could read is not
         * written */
        char why[96];
        if (sm_device_check_value(fitted[i].section, fitted[i].key, fitted[i].value, why,
                                  sizeof why))
            return sm_fail(st,
                           "%s: the fitted %s = %.6g is outside a device description's "
                           "range (%s); %s not written",
                           source, fitted[i].key, fitted[i].value, why, path);
        keys[4 + i] = (sm_device_key){fitted[i].section, fitted[i].key, "", NULL};
        snprintf(keys[4 + i].value, sizeof keys[0].value, "%.*g", fitted[i].digits,
                 fitted[i].value);
    }
    char header[8192];
    snprintf(
        header, sizeof header,
        "; Device description written by `scalemeter fit --device-out` from %s:\n"
        "; the dispatch times and the %s compute and memory efficiencies fitted to those runs\n"
        "; (%d reclassifications), everything else from %s.\n",
        source, f->precision, f->iterations, f->base);
    return sm_device_write_replacing(f->base, keys, n_fitted + 4, header, path, st);
}

int sm_device_fit_write(const sm_device_fit_result *f, const char *source, const char *path,
                        sm_status *st)
{
    if (!f || !source || !path)
        return sm_null_arg(st, __func__, !f ? "fit" : !source ? "source" : "path");
    /* the runs' name in a comment and in description: one that reads back as written */
    char *shown = sm_escape_ini_value(source);
    if (!shown)
        return sm_fail(st, "%s: out of memory", path);
    sm_locale before = sm_locale_c_begin(); /* '.' in numbers, whatever the program's locale */
    int rc = device_fit_write(f, shown, path, st);
    free(shown);
    sm_locale_c_end(before);
    return rc;
}
