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
 * element-wise layers at the base file's fp32 efficiency. A non-negative relative
 * least-squares fit over the infer, fwd and bwd rows gives d_infer, d_fwd, d_bwd, u_c, u_m; the
 * layers are then reclassified at the new efficiencies until nothing changes. The update is fitted
 * alone: t_grad = d_update P + u 20 W / bandwidth. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_file.h"
#include "network/network_internal.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"

enum { U_DINFER, U_DFWD, U_DBWD, U_C, U_M, N_UNKNOWNS };

typedef struct row_net {
    const sm_run *run;
    sm_network *net;
} row_net;

/* The design row of one phase (0 infer, 1 fwd, 2 bwd) of one run at the current efficiencies,
 * and the fixed part R. */
static int design(const sm_device *v, sm_precision p, const sm_run *r, const sm_network *net,
                  int phase, double scale, double eff_m, double *x, double *fixed, sm_status *st)
{
    int half = sm_precision_is_half(p);
    double launches = 0, matmuls = 0;
    memset(x, 0, N_UNKNOWNS * sizeof *x);
    *fixed = 0;
    unsigned char *fused = malloc((size_t)net->n_layers + 1);
    if (!fused)
        return sm_fail(st, "out of memory");
    sm_network_fused(v, net, fused);
    for (int i = 0; i < net->n_layers; i++) {
        sm_metrics m;
        if (sm_layer_metrics_at(&net->layers[i], r->batch, &m, st)) {
            free(fused);
            return -1;
        }
        /* the kernels this phase launches, as the predictor counts them */
        int64_t k = sm_layer_kernels(v, &m, phase);
        if (!k || fused[i])
            continue;
        int mm = sm_layer_is_matmul(&net->layers[i]);
        /* the matrix products at the base's efficiencies (scaled by the fit), the rest at
         * its fp32 vector rate */
        sm_layer_work w = sm_layer_pass_work(v, &net->layers[i], &m, p, phase == 2, phase > 0);
        double c_mm = sm_layer_compute_seconds(
            v, p, (sm_layer_work){.matmul_flops = w.matmul_flops, .conv_flops = w.conv_flops});
        double mem = w.bytes / v->memory_bandwidth;
        double t_vec =
            sm_layer_compute_seconds(v, p, (sm_layer_work){.vector_flops = w.vector_flops});
        if (c_mm / scale + t_vec >= mem / eff_m) {
            x[U_C] += c_mm;
            *fixed += t_vec;
        } else {
            x[U_M] += mem;
        }
        x[U_M] +=
            (w.serial_bytes + sm_layer_transpose_bytes(v, &net->layers[i], &m, p, phase == 2)) /
            v->memory_bandwidth;
        launches += (double)k;
        matmuls += mm;
    }
    free(fused);
    x[U_DINFER + phase] = launches + (half ? v->autocast_casts * matmuls : 0);
    return 0;
}

static double target(const sm_run *r, int phase)
{
    return phase == 0 ? r->t_infer : phase == 1 ? r->t_fwd : r->t_bwd;
}

int sm_device_fit(const sm_runs *runs, const sm_registry *reg, const char *base,
                  sm_device_fit_result *out, sm_status *st)
{
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

    row_net *rn = calloc((size_t)runs->n, sizeof *rn);
    double *A = malloc((size_t)runs->n * 3 * N_UNKNOWNS * sizeof *A);
    double *b = malloc((size_t)runs->n * 3 * sizeof *b);
    double *G = malloc((size_t)runs->n * 2 * sizeof *G), *g = malloc((size_t)runs->n * sizeof *g);
    int rc = -1;
    if (!rn || !A || !b || !G || !g) {
        sm_fail(st, "out of memory");
        goto done;
    }
    for (int i = 0; i < runs->n; i++) { /* networks shared by the rows of one (model, image) */
        const sm_run *r = &runs->rows[i];
        rn[i].run = r;
        for (int j = 0; j < i && !rn[i].net; j++)
            if (rn[j].net && runs->rows[j].image == r->image &&
                strcmp(runs->rows[j].model, r->model) == 0)
                rn[i].net = rn[j].net;
        sm_network_options opt = {r->image};
        sm_status inner;
        if (!rn[i].net && sm_network_load(reg, r->model, &opt, &rn[i].net, &inner)) {
            sm_fail(st, "%s:%d: model %s: %s", runs->path, r->line, r->model, inner.msg);
            goto done;
        }
    }
    double scale = 1, eff_m = v.memory_efficiency, u[N_UNKNOWNS];
    for (int iter = 0; iter < 20; iter++) {
        int m = 0;
        /* fill column-major after counting rows: first pass into a row buffer */
        double(*rows)[N_UNKNOWNS] = (double(*)[N_UNKNOWNS])A;
        for (int i = 0; i < runs->n; i++)
            for (int ph = 0; ph < 3; ph++) {
                double t = target(rn[i].run, ph), fixed;
                if (!isfinite(t))
                    continue;
                if (design(&v, (sm_precision)p, rn[i].run, rn[i].net, ph, scale, eff_m, rows[m],
                           &fixed, st))
                    goto done;
                b[m] = (t - fixed) / t;
                for (int k = 0; k < N_UNKNOWNS; k++)
                    rows[m][k] /= t;
                m++;
            }
        if (m < N_UNKNOWNS) {
            sm_fail(st, "%s: %d pass times for %d device keys: too few", runs->path, m, N_UNKNOWNS);
            goto done;
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
        double top = fmax(v.efficiency[p], v.conv_efficiency[p]);
        double new_c = u[U_C] > top ? 1 / u[U_C] : 1 / top;
        double new_m = u[U_M] > 1 ? 1 / u[U_M] : 1;
        out->iterations = iter + 1;
        int stable = fabs(new_c - scale) < 1e-4 * scale && fabs(new_m - eff_m) < 1e-4 * eff_m;
        scale = new_c;
        eff_m = new_m;
        if (stable)
            break;
    }
    out->dispatch_infer = u[U_DINFER];
    out->dispatch_fwd = u[U_DFWD];
    out->dispatch_bwd = u[U_DBWD];
    out->compute_efficiency = scale * v.efficiency[p];
    out->conv_efficiency = scale * v.conv_efficiency[p];
    out->memory_efficiency = eff_m;

    /* the update: d_update P + u 20 W / bandwidth on the single-device t_grad rows */
    int m = 0;
    for (int i = 0; i < runs->n; i++) {
        const sm_run *r = rn[i].run;
        if (!isfinite(r->t_grad) || r->nodes * r->gpus_per_node != 1)
            continue;
        sm_metrics total;
        if (sm_network_metrics(rn[i].net, 1, &total, st))
            goto done;
        g[m] = 1.0;
        G[m] = (double)total.param_tensors / r->t_grad;
        G[runs->n + m] = 20.0 * (double)total.weights / v.memory_bandwidth / r->t_grad;
        m++;
    }
    out->dispatch_update = v.dispatch_update;
    if (m >= 2) {
        /* pack the second column right after the first m rows */
        memmove(G + m, G + runs->n, (size_t)m * sizeof *G);
        double c[2];
        sm_status inner;
        if (sm_lstsq(G, g, m, 2, 1, c, &inner) == 0)
            out->dispatch_update = c[0];
    }
    snprintf(out->base, sizeof out->base, "%s", path);
    rc = 0;
done:
    for (int i = 0; rn && i < runs->n; i++) {
        int shared = 0;
        for (int j = i + 1; j < runs->n && !shared; j++)
            shared = rn[j].net == rn[i].net;
        if (!shared)
            sm_network_free(rn[i].net); /* the last row holding it frees it */
    }
    free(rn), free(A), free(b), free(G), free(g);
    return rc;
}

static int device_fit_write(const sm_device_fit_result *f, const char *source, const char *path,
                            sm_status *st)
{
    sm_device v;
    if (sm_device_load(f->base, &v, st))
        return -1;
    /* the keys fitted; everything else is the base's, as it stands */
    char efficiency[64], conv[64];
    snprintf(efficiency, sizeof efficiency, "compute_efficiency_%s", f->precision);
    snprintf(conv, sizeof conv, "conv_efficiency_%s", f->precision);
    struct {
        const char *section, *key;
        int digits;
        double value;
    } fitted[] = {{"device", efficiency, 6, f->compute_efficiency},
                  {"device", conv, 6, f->conv_efficiency},
                  {"device", "memory_efficiency", 6, f->memory_efficiency},
                  {"framework", "dispatch_infer_us", 4, f->dispatch_infer * 1e6},
                  {"framework", "dispatch_fwd_us", 4, f->dispatch_fwd * 1e6},
                  {"framework", "dispatch_bwd_us", 4, f->dispatch_bwd * 1e6},
                  {"framework", "dispatch_update_us", 4, f->dispatch_update * 1e6}};
    enum { N_FITTED = sizeof fitted / sizeof fitted[0] };
    sm_device_key keys[N_FITTED + 4] = {{"device", "name", "", NULL},
                                        {"device", "description", "", NULL},
                                        {"device", "precision", "", NULL},
                                        {"framework", "name", "", NULL}};
    snprintf(keys[0].value, sizeof keys[0].value, "%s-fitted", v.name);
    snprintf(keys[1].value, sizeof keys[1].value, "%s, keys fitted to %s", v.description, source);
    snprintf(keys[2].value, sizeof keys[2].value, "%s", f->precision);
    snprintf(keys[3].value, sizeof keys[3].value, "%s", v.framework[0] ? v.framework : "fitted");
    for (int i = 0; i < N_FITTED; i++) {
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
    return sm_device_write_replacing(f->base, keys, N_FITTED + 4, header, path, st);
}

int sm_device_fit_write(const sm_device_fit_result *f, const char *source, const char *path,
                        sm_status *st)
{
    sm_locale before = sm_locale_c_begin(); /* '.' in numbers, whatever the program's locale */
    int rc = device_fit_write(f, source, path, st);
    sm_locale_c_end(before);
    return rc;
}
