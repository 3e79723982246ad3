/* ConvMeter's phase models as design-matrix rows, their least-squares fit and evaluation.
 *
 *   infer, fwd, bwd   b (c1 F + c2 I + c3 O) + c4  [+ c5 W: weights read once per pass]
 *                     [+ ck K: dispatch form, K kernels launched per pass]
 *                     [+ cc log2(G) b F: devices of one node share its memory system, caches
 *                      and power, so each one computes slower the more run beside it; fitted
 *                      when the rows have at least two values of G]
 *   grad              convmeter form: c1 L  [+ cu W: the update]
 *                     dispatch form:  cp P + cu W + c0  (P parameter tensors, each one an
 *                                     optimizer launch; W the update's memory traffic)
 *                     [+ communication terms when the fit saw several devices]
 *                       linear: c W [D>1] + c D [D>1]   (ConvMeter, section 3.3; D = N G devices)
 *                       ring:   hierarchical, as core/src/device/allreduce_model.c: a
 * reduce-scatter in the node, a ring across the N nodes on 1/G of the data, an all-gather in the
 * node (k = ceil(4W / bucket) buckets) intra bytes  2(G-1)/G 4W        intra steps  2(G-1) k inter
 * bytes  2(N-1)/N 4W / G    inter steps  2(N-1) k the intra terms only when the fit saw rows with G
 * > 1, the inter terms only when it saw N > 1: a term whose column is 0 on every row would make the
 * system rank-deficient flat ring (coefficient files written before the hierarchical form, read
 *                               only): c 2(D-1)/D 4W + c 2(D-1) k
 *   bwd_grad          the bwd terms followed by the grad terms (they overlap in practice); one
 *                     W term when both the pass and the update have one, since they coincide
 *
 * With relative weighting each row is divided by its measured time, so the fit minimises the
 * squared relative error: MAPE is the headline metric and runs span three orders of magnitude. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/allreduce_model.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "util/util.h"

static const char *const phase_names[SM_N_PHASES] = {"infer", "fwd",      "bwd",
                                                     "grad",  "bwd_grad", "step"};

const char *sm_phase_name(sm_phase ph)
{
    return ph >= 0 && ph < SM_N_PHASES ? phase_names[ph] : "?";
}

const char *sm_backend_name(sm_backend b)
{
    return b == SM_BACKEND_CPU ? "cpu" : b == SM_BACKEND_GPU ? "gpu" : NULL;
}

void sm_fit_options_default(sm_fit_options *opt)
{
    opt->form = SM_FORM_DISPATCH;
    opt->relative = 1;
    opt->nonneg = 1;
    opt->weight_term = 0;
    opt->update_term = 0;
    opt->grad_form = SM_GRAD_RING; /* extrapolates to more ranks (docs/scaling.md) */
    opt->bucket_bytes = 25.0 * 1024 * 1024;
    opt->idle_watts = 0;
    opt->contention = 1;
    opt->grad_column = 0;
}

enum {
    T_FLOPS,
    T_INPUTS,
    T_OUTPUTS,
    T_INTERCEPT,
    T_PASS_WEIGHTS,
    T_LAYERS,
    T_UPDATE,
    T_WEIGHTS,
    T_DEVICES,
    T_RING_BYTES,
    T_RING_STEPS,
    T_INTRA_BYTES,
    T_INTER_BYTES,
    T_INTRA_STEPS,
    T_INTER_STEPS,
    T_KERNELS,
    T_PARAM_TENSORS,
    T_CONTENTION,
    T_INTRA_BYTES_SHARED
};
static const char *const term_names[] = {
    "flops",      "inputs",        "outputs",     "intercept",         "pass_weights",
    "layers",     "update",        "weights",     "devices",           "ring_bytes",
    "ring_steps", "intra_bytes",   "inter_bytes", "intra_steps",       "inter_steps",
    "kernels",    "param_tensors", "contention",  "intra_bytes_shared"};

/* The kinds of term of a phase, in order; returns their number. */
static int phase_terms(const sm_fit *fit, sm_phase ph, int *kind)
{
    int n = 0, dispatch = fit->opt.form == SM_FORM_DISPATCH;
    if (ph == SM_PHASE_INFER || ph == SM_PHASE_FWD || ph == SM_PHASE_BWD ||
        ph == SM_PHASE_BWD_GRAD) {
        kind[n++] = T_FLOPS;
        kind[n++] = T_INPUTS;
        kind[n++] = T_OUTPUTS;
        kind[n++] = T_INTERCEPT;
        if (fit->opt.weight_term)
            kind[n++] = T_PASS_WEIGHTS;
        if (dispatch)
            kind[n++] = T_KERNELS;
        if (fit->contention)
            kind[n++] = T_CONTENTION;
    }
    if (ph == SM_PHASE_GRAD || ph == SM_PHASE_BWD_GRAD) {
        kind[n++] = dispatch ? T_PARAM_TENSORS : T_LAYERS;
        if ((dispatch || fit->opt.update_term) &&
            !(ph == SM_PHASE_BWD_GRAD && fit->opt.weight_term))
            kind[n++] = T_UPDATE;
        if (dispatch && ph == SM_PHASE_GRAD)
            kind[n++] = T_INTERCEPT;
        if (fit->opt.grad_form == SM_GRAD_LINEAR) {
            if (fit->multi_device) {
                kind[n++] = T_WEIGHTS;
                kind[n++] = T_DEVICES;
            }
        } else if (fit->flat_ring) {
            if (fit->multi_device) {
                kind[n++] = T_RING_BYTES;
                kind[n++] = T_RING_STEPS;
            }
        } else {
            if (fit->multi_gpu)
                kind[n++] = fit->comm_contention ? T_INTRA_BYTES_SHARED : T_INTRA_BYTES;
            if (fit->multi_node)
                kind[n++] = T_INTER_BYTES;
            if (fit->multi_gpu)
                kind[n++] = T_INTRA_STEPS;
            if (fit->multi_node)
                kind[n++] = T_INTER_STEPS;
        }
    }
    return n;
}

/* The communication terms of the ring forms for `bytes` of gradient sent in `buckets`; NAN for
 * every other kind. */
static double comm_value(int kind, const sm_layout *l, double bytes, double buckets)
{
    double D = (double)sm_layout_devices(l), N = l->nodes, G = l->gpus_per_node;
    switch (kind) {
    case T_RING_BYTES:
        return 2.0 * (D - 1) / D * bytes;
    case T_RING_STEPS:
        return 2.0 * (D - 1) * buckets;
    case T_INTRA_BYTES:
        return 2.0 * (G - 1) / G * bytes;
    case T_INTRA_BYTES_SHARED:
        return log2(G) * 2.0 * (G - 1) / G * bytes;
    case T_INTER_BYTES:
        return 2.0 * (N - 1) / N * bytes / G;
    case T_INTRA_STEPS:
        return 2.0 * (G - 1) * buckets;
    case T_INTER_STEPS:
        return 2.0 * (N - 1) * buckets;
    default:
        return NAN;
    }
}

static int is_comm(int kind)
{
    return (kind >= T_RING_BYTES && kind <= T_INTER_STEPS) || kind == T_INTRA_BYTES_SHARED;
}

static double term_value(const sm_fit *fit, int kind, const sm_metrics *m, const sm_layout *l)
{
    int64_t devices = sm_layout_devices(l);
    double b = (double)l->batch, D = (double)devices, W = (double)m->weights;
    double G = l->gpus_per_node; /* devices per node */
    double bytes = 4.0 * W;      /* fp32 gradients */
    double buckets = sm_bucket_count(bytes, fit->opt.bucket_bytes, (double)m->param_tensors);
    if (l->nodes < 1 || l->gpus_per_node < 1)
        return NAN;
    switch (kind) {
    case T_FLOPS:
        return b * (double)m->flops;
    case T_INPUTS:
        return b * (double)m->inputs;
    case T_OUTPUTS:
        return b * (double)m->outputs;
    case T_INTERCEPT:
        return 1.0;
    case T_PASS_WEIGHTS:
        return W;
    case T_LAYERS:
        return (double)m->layers;
    case T_KERNELS:
        return (double)m->kernels;
    case T_PARAM_TENSORS:
        return (double)m->param_tensors;
    case T_CONTENTION:
        return log2(G) * b * (double)m->flops;
    case T_UPDATE:
        return W;
    case T_WEIGHTS:
        return devices > 1 ? W : 0.0;
    case T_DEVICES:
        return devices > 1 ? D : 0.0;
    default:
        return is_comm(kind) ? comm_value(kind, l, bytes, buckets) : NAN;
    }
}

int sm_fit_terms(const sm_fit *fit, sm_phase ph, const sm_metrics *m, const sm_layout *layout,
                 double *x)
{
    int kind[SM_MAX_COEFFS];
    int n = phase_terms(fit, ph, kind);
    for (int k = 0; k < n; k++)
        x[k] = term_value(fit, kind[k], m, layout);
    return n;
}

const char *sm_fit_term_formula(const sm_fit *fit, sm_phase ph, int k)
{
    /* linear and flat ring: N = nodes x G devices; hierarchical ring: N nodes of G devices */
    static const char *const formulas[] = {"b*F",
                                           "b*I",
                                           "b*O",
                                           "1",
                                           "W",
                                           "L",
                                           "W",
                                           "W*[N>1]",
                                           "N*[N>1]",
                                           "2(N-1)/N*4W",
                                           "2(N-1)*ceil(4W/bucket)",
                                           "2(G-1)/G*4W",
                                           "2(N-1)/N*4W/G",
                                           "2(G-1)*ceil(4W/bucket)",
                                           "2(N-1)*ceil(4W/bucket)",
                                           "K",
                                           "P",
                                           "log2(G)*b*F",
                                           "log2(G)*2(G-1)/G*4W"};
    int kind[SM_MAX_COEFFS];
    int n = phase_terms(fit, ph, kind);
    return k >= 0 && k < n ? formulas[kind[k]] : NULL;
}

const char *sm_fit_term_name(const sm_fit *fit, sm_phase ph, int k, char *buf, size_t len)
{
    int kind[SM_MAX_COEFFS];
    int n = phase_terms(fit, ph, kind);
    if (k < 0 || k >= n)
        return NULL;
    snprintf(buf, len, "c%d_%s", k + 1, term_names[kind[k]]);
    return buf;
}

/* The phase's terms x (kind[k] the kind of x[k]) times its coefficients, the intercept's times
 * `share`, the communication terms left out where without_comm. */
static double sum_terms(const sm_fit *fit, sm_phase ph, const int *kind, int n, const double *x,
                        double share, int without_comm)
{
    double t = 0;
    for (int k = 0; k < n; k++)
        if (!without_comm || !is_comm(kind[k]))
            t += fit->phase[ph].c[k] * x[k] * (kind[k] == T_INTERCEPT ? share : 1.0);
    return t;
}

static double eval_terms(const sm_fit *fit, sm_phase ph, const sm_metrics *m,
                         const sm_layout *layout, double share, int without_comm)
{
    if (ph < 0 || ph >= SM_N_FIT_PHASES || !fit->phase[ph].fitted)
        return NAN;
    int kind[SM_MAX_COEFFS];
    double x[SM_MAX_COEFFS];
    int n = phase_terms(fit, ph, kind);
    sm_fit_terms(fit, ph, m, layout, x);
    return sum_terms(fit, ph, kind, n, x, share, without_comm);
}

double sm_fit_eval(const sm_fit *fit, sm_phase ph, const sm_metrics *m, const sm_layout *layout)
{
    if (ph == SM_PHASE_STEP)
        return sm_fit_eval(fit, SM_PHASE_FWD, m, layout) +
               sm_fit_eval(fit, SM_PHASE_BWD, m, layout) +
               sm_fit_eval(fit, SM_PHASE_GRAD, m, layout);
    return eval_terms(fit, ph, m, layout, 1.0, 0);
}

double sm_fit_eval_share(const sm_fit *fit, sm_phase ph, const sm_metrics *part, double share,
                         const sm_layout *layout)
{
    return eval_terms(fit, ph, part, layout, share, 0);
}

double sm_fit_bucket_seconds(const sm_fit *fit, const sm_layout *layout, double bytes)
{
    const sm_phase_fit *pf = &fit->phase[SM_PHASE_GRAD];
    if (!pf->fitted || fit->opt.grad_form == SM_GRAD_LINEAR)
        return NAN;
    int kind[SM_MAX_COEFFS];
    int n = phase_terms(fit, SM_PHASE_GRAD, kind);
    double t = 0;
    for (int k = 0; k < n; k++)
        if (is_comm(kind[k]))
            t += pf->c[k] * comm_value(kind[k], layout, bytes, 1);
    return t;
}

double sm_fit_grad_local(const sm_fit *fit, const sm_metrics *m, const sm_layout *layout)
{
    if (fit->opt.grad_form == SM_GRAD_LINEAR)
        return NAN;
    return eval_terms(fit, SM_PHASE_GRAD, m, layout, 1.0, 1);
}

void sm_fit_stats_of(const double *y, const double *p, int n, sm_fit_stats *out)
{
    out->n = n;
    out->rmse = out->nrmse = out->mape = out->r2 = NAN;
    if (n < 1)
        return;
    double lo = y[0], hi = y[0], mean = 0, ss_res = 0, ss_tot = 0, ape = 0;
    for (int i = 0; i < n; i++) {
        lo = y[i] < lo ? y[i] : lo;
        hi = y[i] > hi ? y[i] : hi;
        mean += y[i] / n;
    }
    for (int i = 0; i < n; i++) {
        ss_res += (p[i] - y[i]) * (p[i] - y[i]);
        ss_tot += (y[i] - mean) * (y[i] - mean);
        ape += fabs(p[i] - y[i]) / y[i];
    }
    out->rmse = sqrt(ss_res / n);
    out->mape = ape / n;
    if (hi > lo) {
        out->nrmse = out->rmse / (hi - lo);
        out->r2 = 1.0 - ss_res / ss_tot;
    }
}

/* Terms beyond ConvMeter's that a fit may leave out when the rows cannot tell them from the
 * others, in the order they are given up: with two networks, the update's intercept and the
 * dispatch term are constant per network, like the pass intercept. */
static int droppable(const sm_fit *fit, sm_phase ph, int kind)
{
    if (kind == T_INTERCEPT)
        return fit->opt.form == SM_FORM_DISPATCH && ph == SM_PHASE_GRAD ? 1 : 0;
    return kind == T_KERNELS        ? 2
           : kind == T_PASS_WEIGHTS ? 3
           : kind == T_UPDATE       ? 4
           : kind == T_CONTENTION   ? 5
                                    : 0;
}

/* Solves A c = b (m x n, column-major) for the terms of phase ph; on a rank-deficient system,
 * leaves out the droppable terms one rank after another until it solves. The coefficients of
 * left-out terms are 0. Messages name `what` ("phase fwd"). */
static int solve_dropping(const sm_fit *fit, sm_phase ph, const char *what, const double *A,
                          const double *b, int m, int n, sm_phase_fit *pf, sm_status *st)
{
    int kind[SM_MAX_COEFFS];
    phase_terms(fit, ph, kind);
    double *sub = NULL; /* the columns kept, once a term is dropped: A itself until then */
    unsigned dropped = 0;
    int rc;
    for (int rank = 0;; rank++) {
        if (rank > 0) {
            unsigned more = 0;
            for (int k = 0; k < n; k++)
                if (droppable(fit, ph, kind[k]) == rank)
                    more |= 1u << k;
            if (!more && rank <= 5)
                continue;
            dropped |= more;
        }
        if (dropped && !sub && !(sub = malloc((size_t)m * (size_t)n * sizeof *sub)))
            return sm_fail(st, "%s: out of memory", what);
        int cols = 0;
        for (int k = 0; k < n; k++)
            if (!(dropped >> k & 1)) {
                if (sub)
                    memcpy(sub + (size_t)m * (size_t)cols, A + (size_t)m * (size_t)k,
                           (size_t)m * sizeof *A);
                cols++;
            }
        double c[SM_MAX_COEFFS];
        sm_status inner;
        rc = cols <= m ? sm_lstsq(sub ? sub : A, b, m, cols, fit->opt.nonneg, c, &inner)
                       : (sm_fail(&inner,
                                  "%d point%s for %d coefficients: too few points "
                                  "(measure more models, image or batch sizes)",
                                  m, m == 1 ? "" : "s", cols),
                          SM_LSTSQ_RANK_DEFICIENT);
        if (rc == 0) {
            for (int k = 0, j = 0; k < n; k++)
                pf->c[k] = dropped >> k & 1 ? 0.0 : c[j++];
            pf->dropped = dropped;
            break;
        }
        if (rc != SM_LSTSQ_RANK_DEFICIENT || rank >= 5) {
            sm_fail(st, "%s: %s", what, inner.msg);
            break;
        }
    }
    free(sub);
    return rc;
}

/* What one least-squares fit is fitted to: phase ph's time, or energy phase e's joules. */
typedef struct fit_target {
    sm_phase terms; /* the phase whose terms the fit takes */
    int energy;     /* 0: the time of phase `terms`; 1: the energy of e */
    sm_energy_phase e;
} fit_target;

static sm_phase energy_time_phase(sm_energy_phase e);

/* A row's measured value y (what the statistics compare with) and the part of it the terms
 * must reproduce (rhs: an energy less the idle power over the measured time). 1 for a row that
 * measured it, 0 for one that did not, -1 with st set when the row cannot be fitted. */
static int target_value(const fit_target *t, const sm_fit *fit, const sm_runs *runs,
                        const sm_run *run, double *y, double *rhs, sm_status *st)
{
    if (!t->energy) {
        *y = *rhs = sm_run_target(run, t->terms);
        if (fit->opt.grad_column && t->terms == SM_PHASE_GRAD) /* the form before */
            *y = *rhs = run->t_grad;
        else if (fit->opt.grad_column && t->terms == SM_PHASE_BWD_GRAD)
            *y = *rhs = run->t_bwd + run->t_grad;
        return isfinite(*y);
    }
    double j = sm_run_energy(run, t->e), time = sm_run_target(run, energy_time_phase(t->e));
    if (!isfinite(j) || !isfinite(time))
        return 0;
    *y = j;
    *rhs = j - fit->opt.idle_watts * time;
    if (*rhs < 0)
        return sm_fail(st,
                       "%s:%d: %g J per device in %g s is less than the idle power of %g W "
                       "would use: lower --idle-watts",
                       runs->path, run->line, j, time, fit->opt.idle_watts);
    return 1;
}

/* The buffers of fit_rows, kept across the fits of one sm_fit_runs: on 10^6 rows, fresh ones
 * for every phase cost about as much in page faults as filling them. */
typedef struct fit_scratch {
    int *row;              /* the rows fitted, of runs->n */
    double *ys, *b, *pred; /* runs->n each */
    double *A, *X;         /* `cap` doubles each: m x n */
    size_t cap;
} fit_scratch;

static int scratch_alloc(fit_scratch *s, const sm_runs *runs)
{
    size_t rows = (size_t)(runs->n > 0 ? runs->n : 1);
    memset(s, 0, sizeof *s);
    s->row = malloc(rows * sizeof *s->row);
    s->ys = malloc(rows * sizeof *s->ys);
    s->b = malloc(rows * sizeof *s->b);
    s->pred = malloc(rows * sizeof *s->pred);
    return s->row && s->ys && s->b && s->pred ? 0 : -1;
}

static void scratch_free(fit_scratch *s)
{
    free(s->row), free(s->ys), free(s->b), free(s->pred), free(s->A), free(s->X);
}

/* A and X of `need` doubles each at least. */
static int scratch_reserve(fit_scratch *s, size_t need)
{
    if (need <= s->cap)
        return 0;
    free(s->A), free(s->X);
    s->A = malloc(need * sizeof *s->A);
    s->X = malloc(need * sizeof *s->X);
    s->cap = s->A && s->X ? need : 0;
    return s->cap ? 0 : -1;
}

/* Fits pf to target t over the rows in use (all when use is NULL), each weighted by 1 / y with
 * opt.relative; left unfitted when no row measured it. Messages name `what`. */
static int fit_rows(const sm_runs *runs, const int *use, sm_fit *fit, const fit_target *t,
                    const char *what, sm_phase_fit *pf, fit_scratch *s, sm_status *st)
{
    memset(pf, 0, sizeof *pf);
    /* the rows that measured t with their y and rhs, found once: each target_value again
     * costs a pass over rows that may number 10^6, and a fit is repeated per held-out network */
    int *row = s->row;
    double *ys = s->ys, *b = s->b, *pred = s->pred;
    int m = 0;
    for (int i = 0; i < runs->n; i++) {
        double y, rhs;
        int v = !use || use[i] ? target_value(t, fit, runs, &runs->rows[i], &y, &rhs, st) : 0;
        if (v < 0)
            return -1;
        if (v == 1) {
            row[m] = i;
            ys[m] = y;
            b[m++] = rhs;
        }
    }
    if (m == 0)
        return 0; /* not measured: left out */
    int kind[SM_MAX_COEFFS];
    int n = phase_terms(fit, t->terms, kind);
    if (scratch_reserve(s, (size_t)m * (size_t)n))
        return sm_fail(st, "%s: out of memory", what);
    /* X: each row's terms unweighted (row-major), kept for the predictions after the fit */
    double *A = s->A, *X = s->X;
    for (int r = 0; r < m; r++) {
        const sm_run *run = &runs->rows[row[r]];
        double *x = X + (size_t)n * (size_t)r;
        const sm_layout l = {run->batch, run->nodes, run->gpus_per_node, 1};
        sm_fit_terms(fit, t->terms, &run->m, &l, x);
        double w = fit->opt.relative ? 1.0 / ys[r] : 1.0;
        for (int k = 0; k < n; k++)
            A[(size_t)m * (size_t)k + (size_t)r] = x[k] * w;
        b[r] *= w;
    }
    int rc = solve_dropping(fit, t->terms, what, A, b, m, n, pf, st);
    if (rc)
        return rc;
    pf->fitted = 1;
    pf->n_coeffs = n;
    for (int r = 0; r < m; r++) {
        if (!t->energy) { /* as sm_fit_eval, from the terms at hand: no pass over the rows */
            pred[r] = sum_terms(fit, t->terms, kind, n, X + (size_t)n * (size_t)r, 1.0, 0);
            continue;
        }
        const sm_run *run = &runs->rows[row[r]];
        const sm_layout l = {run->batch, run->nodes, run->gpus_per_node, 1};
        pred[r] = sm_fit_energy_eval(fit, t->e, &run->m, &l);
    }
    pf->not_positive = 0;
    for (int r = 0; r < m; r++)
        if (!(pred[r] > 0) && !pf->not_positive++) {
            pf->not_positive_line = runs->rows[row[r]].line;
            pf->not_positive_value = pred[r];
        }
    sm_fit_stats_of(ys, pred, m, &pf->stats);
    return 0;
}

static int fit_phase(const sm_runs *runs, const int *use, sm_fit *fit, sm_phase ph, fit_scratch *s,
                     sm_status *st)
{
    const fit_target t = {ph, 0, SM_ENERGY_INFER};
    char what[32];
    snprintf(what, sizeof what, "phase %s", sm_phase_name(ph));
    return fit_rows(runs, use, fit, &t, what, &fit->phase[ph], s, st);
}

const char *sm_energy_phase_name(sm_energy_phase e)
{
    return e == SM_ENERGY_INFER ? "infer" : e == SM_ENERGY_STEP ? "step" : "unknown";
}

/* The time an energy phase spends (its idle energy) and the phase whose terms it takes. */
static sm_phase energy_time_phase(sm_energy_phase e)
{
    return e == SM_ENERGY_INFER ? SM_PHASE_INFER : SM_PHASE_STEP;
}

sm_phase sm_energy_terms_phase(sm_energy_phase e)
{
    return e == SM_ENERGY_INFER ? SM_PHASE_INFER : SM_PHASE_BWD_GRAD;
}

double sm_run_energy(const sm_run *r, sm_energy_phase e)
{
    double j = e == SM_ENERGY_INFER ? r->e_infer : r->e_step;
    return isfinite(j) && j > 0 ? j / ((double)r->nodes * r->gpus_per_node) : NAN;
}

double sm_fit_energy_eval(const sm_fit *fit, sm_energy_phase e, const sm_metrics *m,
                          const sm_layout *layout)
{
    return sm_fit_energy_at(fit, e, m, layout, NAN, 1);
}

double sm_fit_energy_at(const sm_fit *fit, sm_energy_phase e, const sm_metrics *m,
                        const sm_layout *layout, double t, int k)
{
    if (e < 0 || e >= SM_N_ENERGY || !fit->energy[e].fitted)
        return NAN;
    if (isnan(t))
        t = sm_fit_eval(fit, energy_time_phase(e), m, layout);
    if (!isfinite(t) || k < 1)
        return NAN;
    double x[SM_MAX_COEFFS], joules = fit->opt.idle_watts * t;
    int kind[SM_MAX_COEFFS];
    /* a step's terms: the passes' (the forward pass's are the backward pass's), then grad's */
    int passes = e == SM_ENERGY_STEP ? phase_terms(fit, SM_PHASE_BWD, kind) : 0;
    int n = sm_fit_terms(fit, sm_energy_terms_phase(e), m, layout, x);
    for (int j = 0; j < n; j++)
        joules += fit->energy[e].c[j] * x[j] * (j < passes ? k : 1);
    return joules;
}

/* The energy of phase e on the rows that measured it and its time: what is left after the
 * idle power over the measured time, fitted on the time's terms. */
static int fit_energy(const sm_runs *runs, const int *use, sm_fit *fit, sm_energy_phase e,
                      fit_scratch *s, sm_status *st)
{
    memset(&fit->energy[e], 0, sizeof fit->energy[e]);
    const sm_phase_fit *ph = fit->phase;
    int have_time = e == SM_ENERGY_INFER
                        ? ph[SM_PHASE_INFER].fitted
                        : ph[SM_PHASE_FWD].fitted && ph[SM_PHASE_BWD].fitted &&
                              ph[SM_PHASE_GRAD].fitted && ph[SM_PHASE_BWD_GRAD].fitted;
    if (!have_time)
        return 0; /* no time to attach the energy to */
    const fit_target t = {sm_energy_terms_phase(e), 1, e};
    char what[32];
    snprintf(what, sizeof what, "energy of %s", sm_energy_phase_name(e));
    return fit_rows(runs, use, fit, &t, what, &fit->energy[e], s, st);
}

/* s after the text of buf, as much as fits. */
static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    while (*s && used + 1 < len)
        buf[used++] = *s++;
    buf[used] = '\0';
}

/* Whether a row's device column names a machine (a GPU's or a CPU's name), not only a backend
 * (measure.py's cpu, cuda, cuda:1) or nothing: runs_csv.c's common_device reads it alike. */
static int names_machine(const char *d)
{
    return *d && strcmp(d, "cpu") && strcmp(d, "cuda") && strncmp(d, "cuda:", 5);
}

/* A row of several devices beside the first to name its all-reduce and bucket size: -1 where
 * they differ, whose t_grad are of two collectives, which bench keeps apart as configurations
 * and no one grad equation is of. */
static int mixed_allreduce(const sm_runs *runs, const sm_run *r, const sm_run *first, sm_status *st)
{
    if (strcmp(r->allreduce, first->allreduce) != 0)
        return sm_fail(st,
                       "%s:%d: a row of all-reduce '%s' among rows of '%s' (line %d): fit one "
                       "all-reduce at a time (write each to a file of its own)",
                       runs->path, r->line, r->allreduce, first->allreduce, first->line);
    int a = r->bucket_mib > 0, b = first->bucket_mib > 0;
    if (a == b && (!a || r->bucket_mib == first->bucket_mib))
        return 0;
    char mine[32] = "", theirs[32] = "";
    if (a)
        snprintf(mine, sizeof mine, "%g", r->bucket_mib);
    if (b)
        snprintf(theirs, sizeof theirs, "%g", first->bucket_mib);
    return sm_fail(st,
                   "%s:%d: a row of bucket_mib '%s' among rows of '%s' (line %d): fit one "
                   "bucket size at a time (write each to a file of its own)",
                   runs->path, r->line, mine, theirs, first->line);
}

/* sm_fit_runs with its buffers at hand. */
static int fit_runs(const sm_runs *runs, const int *use, const sm_fit_options *opt, sm_fit *out,
                    fit_scratch *s, sm_status *st)
{
    memset(out, 0, sizeof *out);
    st->msg[0] = '\0';
    out->opt = *opt;
    if (opt->grad_form == SM_GRAD_RING && !SM_BUCKET_MIB_OK(opt->bucket_bytes / 1048576))
        return sm_fail(st,
                       "ring gradient model: bucket size %g bytes: expected from 4 bytes "
                       "to %.0f MiB",
                       opt->bucket_bytes, SM_MAX_BUCKET_MIB);
    int first = 1, g_seen = 0, gpu_ranks = 0; /* rows of several devices per node not CPU */
    int backend_row = 0;                      /* the first row that said its backend */
    int threads_row[16];                      /* per ranks per node, the first to say */
    int n_threads = 0;
    int device_row = -1; /* the first row that named its machine */
    int comm_row = -1;   /* the first of several devices that named its all-reduce or bucket */
    for (int i = 0; i < runs->n; i++) {
        const sm_run *r = &runs->rows[i];
        if (use && !use[i])
            continue;
        /* two values of G at least, or log2(G) b F is a multiple of b F */
        if (!g_seen)
            g_seen = r->gpus_per_node;
        else if (g_seen != r->gpus_per_node)
            out->contention = opt->contention;
        int devices = r->nodes * r->gpus_per_node;
        if (isfinite(r->t_grad)) { /* the communication terms are fitted on t_grad rows */
            out->multi_device |= devices > 1;
            out->multi_gpu |= r->gpus_per_node > 1;
            out->multi_node |= r->nodes > 1;
            gpu_ranks |= r->gpus_per_node > 1 && r->backend != SM_BACKEND_CPU;
        }
        if (first || r->batch < out->batch_min)
            out->batch_min = r->batch;
        if (first || r->batch > out->batch_max)
            out->batch_max = r->batch;
        /* an empty image field is the network file's own size, not 0: the range the
         * coefficient file records, and predict warns outside of */
        int64_t image = r->image_run > 0 ? r->image_run : r->image;
        if (first || image < out->image_min)
            out->image_min = image;
        if (first || image > out->image_max)
            out->image_max = image;
        if (first || devices > out->devices_max)
            out->devices_max = devices;
        out->families |= r->family_bit;
        if (first || !out->backend)
            backend_row = i, out->backend = r->backend;
        else if (r->backend && out->backend != r->backend)
            return sm_fail(st, "%s:%d: a %s row among %s rows (line %d): fit one backend at a time",
                           runs->path, r->line, sm_backend_name(r->backend),
                           sm_backend_name(out->backend), runs->rows[backend_row].line);
        /* rows of an H100 and an A100 fitted as one machine: coefficients of neither, and
         * labelled with this machine's CPU, as no one name was common */
        if (names_machine(r->device) && device_row < 0)
            device_row = i;
        else if (names_machine(r->device) && strcmp(r->device, runs->rows[device_row].device))
            return sm_fail(st,
                           "%s:%d: a row of %s among rows of %s (line %d): a calibration is of "
                           "one device; fit each device's rows apart",
                           runs->path, r->line, r->device, runs->rows[device_row].device,
                           runs->rows[device_row].line);
        /* ranks of 1 and of 16 threads on one layout are two machines to the equations, as
         * bench's configurations keep them apart (calibrate gives each layout's ranks their
         * share of the cores: another layout, other threads) */
        if (r->threads) {
            int k = 0;
            while (k < n_threads && runs->rows[threads_row[k]].gpus_per_node != r->gpus_per_node)
                k++;
            if (k == n_threads && n_threads < 16)
                threads_row[n_threads++] = i;
            else if (k < n_threads && runs->rows[threads_row[k]].threads != r->threads)
                return sm_fail(st,
                               "%s:%d: a row of %d threads among rows of %d at %d rank%s a node "
                               "(line %d): fit one thread count a layout",
                               runs->path, r->line, r->threads, runs->rows[threads_row[k]].threads,
                               r->gpus_per_node, r->gpus_per_node == 1 ? "" : "s",
                               runs->rows[threads_row[k]].line);
        }
        if (devices > 1 && (r->allreduce[0] || r->bucket_mib > 0)) {
            if (comm_row < 0)
                comm_row = i;
            else if (mixed_allreduce(runs, r, &runs->rows[comm_row], st))
                return -1;
        }
        if (first)
            snprintf(out->precision, sizeof out->precision, "%s", r->precision);
        else if (strcmp(out->precision, r->precision) != 0)
            return sm_fail(st,
                           "%s:%d: a %s row among %s rows: fit one precision at a time "
                           "(--precision P keeps the rows of P)",
                           runs->path, r->line, r->precision, out->precision);
        out->rows++;
        first = 0;
    }
    if (out->rows == 0)
        return sm_fail(st, "%s: no rows to fit", runs->path);
    /* the ring model's buckets are the ones the rows' gradients were summed in: k = ceil(4W /
     * bucket) messages of other sizes fitted other latencies and bandwidths (bench quantises
     * a size to whole floats and writes 6 digits) */
    const sm_run *c = comm_row < 0 ? NULL : &runs->rows[comm_row];
    if (c && opt->grad_form == SM_GRAD_RING && c->bucket_mib > 0 &&
        fabs(opt->bucket_bytes - c->bucket_mib * 1048576) > 4 + 1e-5 * c->bucket_mib * 1048576)
        return sm_fail(st,
                       "%s:%d: the rows summed their gradients in %g MiB buckets (bucket_mib), "
                       "the ring model's are %g MiB: give --bucket-mib %g",
                       runs->path, c->line, c->bucket_mib, opt->bucket_bytes / 1048576,
                       c->bucket_mib);
    /* the CPU ranks of a node copy through the memory system their passes share: the same
     * log2(G) contention slows their all-reduce (GPUs copy over links of their own) */
    out->comm_contention = out->contention && out->multi_gpu && !gpu_ranks &&
                           opt->grad_form == SM_GRAD_RING && !opt->grad_column;
    /* t_grad rows of a single layout cannot separate communication from the update: every
     * communication term is then a multiple of a term of the update */
    int layout_n = 0, layout_g = 0, layouts = 0;
    for (int i = 0; i < runs->n && layouts < 2; i++) {
        const sm_run *r = &runs->rows[i];
        if ((use && !use[i]) || !isfinite(r->t_grad))
            continue;
        if (!layouts || r->nodes != layout_n || r->gpus_per_node != layout_g)
            layouts++;
        layout_n = r->nodes;
        layout_g = r->gpus_per_node;
    }
    if (out->multi_device && layouts < 2) {
        out->multi_device = out->multi_gpu = out->multi_node = 0;
        out->comm_unidentified = 1;
    }
    int fitted = 0;
    for (int ph = 0; ph < SM_N_FIT_PHASES; ph++) {
        int rc = fit_phase(runs, use, out, (sm_phase)ph, s, st);
        if (rc) {
            /* Rows of one device count, or none beside single-device ones, cannot tell the
             * communication terms from the update and the intercept: fit grad as measured at
             * the device counts seen, and let predict say so. Refitting from the first phase
             * keeps grad and bwd_grad of one form. */
            int comm_phase = ph == SM_PHASE_GRAD || ph == SM_PHASE_BWD_GRAD;
            if (rc != SM_LSTSQ_RANK_DEFICIENT || !comm_phase || !out->multi_device)
                return -1;
            out->multi_device = out->multi_gpu = out->multi_node = 0;
            out->comm_unidentified = 1;
            fitted = 0;
            ph = -1;
            continue;
        }
        fitted += out->phase[ph].fitted;
    }
    if (!fitted)
        return sm_fail(st, "%s: no phase has measurements", runs->path);
    if (!(opt->idle_watts >= 0 && isfinite(opt->idle_watts)))
        return sm_fail(st, "idle power %g W: expected a number of watts, 0 or more",
                       opt->idle_watts);
    char why[SM_STATUS_LEN] = "";
    for (int e = 0; e < SM_N_ENERGY; e++) {
        int rc = fit_energy(runs, use, out, (sm_energy_phase)e, s, st);
        if (rc && rc != SM_LSTSQ_RANK_DEFICIENT)
            return -1;
        if (rc) { /* the times stand; this energy is left out, and said */
            int measured = 0;
            for (int i = 0; i < runs->n; i++) {
                const sm_run *r = &runs->rows[i];
                measured += (!use || use[i]) && isfinite(sm_run_energy(r, (sm_energy_phase)e)) &&
                            isfinite(sm_run_target(r, energy_time_phase((sm_energy_phase)e)));
            }
            memset(&out->energy[e], 0, sizeof out->energy[e]);
            out->energy[e].stats.n = measured;
            append(why, sizeof why, why[0] ? "; " : "");
            append(why, sizeof why, st->msg);
        }
    }
    memcpy(st->msg, why, sizeof why);
    return 0;
}

/* On success st->msg is empty, or says why an energy phase that rows measured was left
 * unfitted: energy too few or too alike to separate its terms (rank-deficient) costs the energy
 * phase alone, not the times fitted beside it. Such a phase keeps fitted = 0 with stats.n the
 * rows that measured it, so that a caller tells it from energy no row measured (stats.n 0). */
int sm_fit_runs(const sm_runs *runs, const int *use, const sm_fit_options *opt, sm_fit *out,
                sm_status *st)
{
    if (!runs || !opt || !out)
        return sm_null_arg(st, __func__, !runs ? "runs" : !opt ? "opt" : "out");
    fit_scratch s;
    if (scratch_alloc(&s, runs)) {
        scratch_free(&s);
        memset(out, 0, sizeof *out);
        return sm_fail(st, "%s: out of memory", runs->path);
    }
    int rc = fit_runs(runs, use, opt, out, &s, st);
    scratch_free(&s);
    return rc;
}
