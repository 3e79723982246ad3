/* Dispatch of predictions to the predictor's own kind, and the checks every kind shares. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predictor.h"
#include "util/util.h"

sm_predictor *predictor_new(const predictor_ops *ops, void *impl, const char *description)
{
    sm_predictor *p = calloc(1, sizeof *p);
    if (!p) {
        ops->free(impl);
        return NULL;
    }
    p->ops = ops;
    p->impl = impl;
    snprintf(p->description, sizeof p->description, "%s", description);
    return p;
}

const char *sm_predictor_describe(const sm_predictor *p) { return p ? p->description : NULL; }

const char *sm_predictor_describe_for(const sm_predictor *p, int convolutions)
{
    if (!p)
        return NULL;
    const char *d = convolutions ? p->description_conv : p->description_plain;
    return d[0] ? d : p->description;
}

const char *sm_predictor_precision(const sm_predictor *p) { return p ? p->precision : NULL; }

int sm_predictor_devices_per_node(const sm_predictor *p) { return p ? p->devices_per_node : -1; }

double sm_predictor_peak_flops(const sm_predictor *p) { return p ? p->peak_flops : NAN; }

double sm_predictor_power_limit(const sm_predictor *p) { return p ? p->power_limit : NAN; }

int sm_predictor_allreduce(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
                           sm_allreduce_estimate *out, sm_status *st)
{
    if (!p || !net || !layout || !out)
        return sm_null_arg(st, __func__, !p ? "p" : !net ? "net" : !layout ? "layout" : "out");
    if (!p->ops->allreduce)
        return 1;
    return p->ops->allreduce(p->impl, net, layout, out, st);
}

int sm_predictor_check_precision(const sm_predictor *p, const char *precision, sm_status *st)
{
    if (!p)
        return sm_null_arg(st, __func__, "p");
    if (!precision || strcmp(precision, p->precision) == 0)
        return 0;
    /* the calibration alone is named: a description's all-reduce beside it has no precision */
    return sm_fail(st,
                   "%s is a calibration of %s runs; it cannot predict %s (fit the %s rows of a "
                   "measurement CSV with `scalemeter fit --precision %s`, or leave the "
                   "calibration out: `--device NAME` alone models any precision)",
                   p->calibration[0] ? p->calibration : p->description, p->precision, precision,
                   precision, precision);
}

void sm_predictor_free(sm_predictor *p)
{
    if (!p)
        return;
    p->ops->free(p->impl);
    free(p);
}

int sm_layout_check(const sm_layout *l, sm_status *st)
{
    if (!l)
        return sm_null_arg(st, __func__, "l");
    if (l->batch < 1)
        return sm_fail(st, "batch %lld: the per-device batch must be at least 1",
                       (long long)l->batch);
    if (l->nodes < 1 || l->gpus_per_node < 1)
        return sm_fail(st, "nodes %d, devices per node %d: both must be at least 1", l->nodes,
                       l->gpus_per_node);
    if (l->accumulate < 0)
        return sm_fail(st, "accumulate %d: the micro-batches per step must be at least 1",
                       l->accumulate);
    /* Samples, steps and throughputs are counted in int64 and double: a global batch beyond
     * 2^53 would lose samples in the double, and one beyond 2^63 wrap around. Divided twice,
     * so that devices x K is never formed. */
    int k = sm_layout_accumulate(l);
    if (l->batch > SM_MAX_GLOBAL_BATCH / sm_layout_devices(l) / k) {
        char micro[48] = "";
        if (k > 1)
            snprintf(micro, sizeof micro, " x %d micro-batches", k);
        return sm_fail(st,
                       "batch %lld%s on %d node%s x %d devices: a global batch above 2^53 "
                       "samples is beyond what scalemeter counts; give fewer nodes%s or a "
                       "smaller batch",
                       (long long)l->batch, micro, l->nodes, l->nodes == 1 ? "" : "s",
                       l->gpus_per_node, k > 1 ? ", fewer micro-batches" : "");
    }
    return 0;
}

/* No prediction is longer than this: 1e17 s is three billion years. Beyond it a number
 * says only that a coefficient is wrong (a hand-edited 1e307), and an epoch of such steps
 * overflows to inf. */
#define SM_MAX_TIME_S 1e17
/* Nor does one device spend more energy on a pass than a megawatt over that time: beyond it
 * an epoch's energy (a step's times the steps and devices) overflows to inf, printed as
 * null, as a phase not known (idle_watts = 1e307 did) */
#define SM_MAX_ENERGY_J (SM_MAX_TIME_S * 1e6)

/* One rule for every command: a time below zero or without bound is refused, never printed,
 * naming the coefficient file where there is one. NaN stays: it is a phase the predictor
 * knows nothing of (a calibration without it). energy: t is joules (e_infer, e_step), told
 * apart by the caller: a block may be named "embed". */
static int check_physical(const sm_predictor *p, const sm_network *net, const sm_layout *l,
                          const char *phase, int energy, double t, sm_status *st)
{
    if (isnan(t) || (t >= 0 && t <= (energy ? SM_MAX_ENERGY_J : SM_MAX_TIME_S)))
        return 0;
    const char *from = p->source[0] ? p->source : p->description;
    if (t >= 0)
        return sm_fail(st,
                       "%s predicts %s = %g %s for %s at batch %lld on %d x %d devices: beyond "
                       "%s, no physical %s; a coefficient is out of range",
                       from, phase, t, energy ? "J" : "s", net->name, (long long)l->batch, l->nodes,
                       l->gpus_per_node,
                       energy ? "1e23 J (a megawatt for three billion years)"
                              : "1e17 s (three billion years)",
                       energy ? "energy" : "time");
    return sm_fail(st,
                   "%s predicts %s = %g %s for %s at batch %lld on %d x %d devices: not a "
                   "physical %s (coefficients fitted with `fit --no-nonneg` can do this; "
                   "refit without it)",
                   from, phase, t, energy ? "J" : "s", net->name, (long long)l->batch, l->nodes,
                   l->gpus_per_node, energy ? "energy" : "time");
}

int sm_check_totals(const char *model, const sm_layout *l, const sm_prediction *t,
                    int64_t dataset_size, int epochs, sm_status *st)
{
    if (!l || !t)
        return sm_null_arg(st, __func__, !l ? "l" : "t");
    double steps = sm_epoch_steps(l, dataset_size), devices = (double)sm_layout_devices(l);
    if (!(steps > 0))
        return 0; /* no epoch known */
    /* the longer of the two, an epoch's or the training's (NaN, a phase not known, passes) */
    double runs = epochs > 0 ? epochs : 1;
    double seconds = steps * runs * t->t_step, joules = steps * runs * t->e_step * devices;
    if (!(seconds > SM_MAX_TIME_S) && !(joules > SM_MAX_ENERGY_J))
        return 0;
    int time = seconds > SM_MAX_TIME_S;
    const char *total =
        time ? (epochs > 0 ? "t_train" : "t_epoch") : (epochs > 0 ? "e_train" : "e_epoch");
    return sm_fail(st,
                   "%s%sat batch %lld on %d x %d devices: %s = %g %s over %.0f steps: beyond %s, "
                   "no physical %s; %sa smaller --dataset (--tokens), or a coefficient is out of "
                   "range",
                   model ? model : "", model ? " " : "", (long long)l->batch, l->nodes,
                   l->gpus_per_node, total, time ? seconds : joules, time ? "s" : "J", steps * runs,
                   time ? "1e17 s (three billion years)"
                        : "1e23 J (a megawatt for three billion years)",
                   time ? "time" : "energy", epochs > 0 ? "fewer --epochs or " : "");
}

/* A pass takes time: a step, an inference or a training pass of 0 s (coefficients all zero,
 * say) is no prediction, and predict, curve and every other command refuse it alike. */
static int check_positive(const sm_network *net, const sm_layout *l, const char *what, double t,
                          sm_status *st)
{
    if (isnan(t) || t > 0)
        return 0;
    return sm_fail(st,
                   "%s at batch %lld on %d node%s x %d device%s: the predicted %s %g s is not "
                   "positive; the predictor does not fit this configuration",
                   net->name, (long long)l->batch, l->nodes, l->nodes == 1 ? "" : "s",
                   l->gpus_per_node, l->gpus_per_node == 1 ? "" : "s", what, t);
}

/* Gradient accumulation, for every predictor: each device runs K micro-batches, forward and
 * backward, and synchronises and updates once. DDP skips the all-reduce on all but the last
 * micro-batch (no_sync), so an all-reduce overlapped with the backward pass overlaps the last
 * one's, as without accumulation; ZeRO-1 reduce-scatters and gathers once per step. ZeRO-2
 * (FSDP's SHARD_GRAD_OP) keeps only its shard of the gradients, so it reduce-scatters them with
 * every micro-batch and gathers the weights once; FSDP's full sharding gathers the weights and
 * reduce-scatters the gradients with every micro-batch (its default, and torchtitan's):
 * per_micro recurs K times. A step's energy is the predictor's, of K micro-batches (the
 * calibration's: its passes' terms K times, its gradients' once, the idle power over the whole
 * step); it was the one micro-batch's scaled by the time, which kept the step's power where an
 * all-reduce's share of it shrank. */
static void accumulate(const sm_layout *layout, double per_micro, sm_prediction *out)
{
    int k = sm_layout_accumulate(layout);
    if (k == 1)
        return;
    out->t_grad += (k - 1) * per_micro;
    out->t_step = k * (out->t_fwd + out->t_bwd) + out->t_grad;
}

int sm_predict(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
               sm_prediction *out, sm_status *st)
{
    if (!p || !net || !layout || !out)
        return sm_null_arg(st, __func__, !p ? "p" : !net ? "net" : !layout ? "layout" : "out");
    if (sm_layout_check(layout, st))
        return -1;
    *out = (sm_prediction){NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    double per_micro = 0;
    if (p->ops->predict(p->impl, net, layout, out, &per_micro, st))
        return -1;
    accumulate(layout, per_micro, out);
    const char *const names[] = {"t_infer", "t_fwd",   "t_bwd", "t_grad",
                                 "t_step",  "e_infer", "e_step"};
    const double values[] = {out->t_infer, out->t_fwd,   out->t_bwd, out->t_grad,
                             out->t_step,  out->e_infer, out->e_step};
    for (int i = 0; i < 7; i++)
        if (check_physical(p, net, layout, names[i], i >= 5, values[i], st))
            return -1;
    if (check_positive(net, layout, "step time", out->t_step, st) ||
        check_positive(net, layout, "inference time", out->t_infer, st) ||
        check_positive(net, layout, "forward time", out->t_fwd, st) ||
        check_positive(net, layout, "backward time", out->t_bwd, st))
        return -1;
    return 0;
}

int sm_predict_block(const sm_predictor *p, const sm_network *net, int block,
                     const sm_layout *layout, double *t_fwd, sm_status *st)
{
    if (!p || !net || !layout || !t_fwd)
        return sm_null_arg(st, __func__, !p ? "p" : !net ? "net" : !layout ? "layout" : "t_fwd");
    if (sm_layout_check(layout, st))
        return -1;
    if (block < 0 || block >= net->n_blocks)
        return sm_fail(st, "%s has no block %d", net->name, block);
    if (p->ops->predict_block(p->impl, net, block, layout, t_fwd, st))
        return -1;
    return check_physical(p, net, layout, net->blocks[block], 0, *t_fwd, st);
}

const char *sm_bound_name(sm_bound b)
{
    static const char *const names[] = {"-", "compute", "memory", "host", "launch"};
    return b >= SM_BOUND_NONE && b <= SM_BOUND_LAUNCH ? names[b] : "unknown";
}

int sm_predict_layers(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
                      sm_layer_prediction *out, sm_status *st)
{
    if (!p || !net || !layout || !out)
        return sm_null_arg(st, __func__, !p ? "p" : !net ? "net" : !layout ? "layout" : "out");
    if (sm_layout_check(layout, st))
        return -1;
    if (!p->ops->predict_layers)
        return sm_fail(st, "per-layer times come from a device description (--device); a "
                           "calibration's coefficients price whole passes");
    return p->ops->predict_layers(p->impl, net, layout, out, st);
}

int sm_predict_blocks(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
                      double *t_fwd, sm_status *st)
{
    if (!p || !net || !layout || !t_fwd)
        return sm_null_arg(st, __func__, !p ? "p" : !net ? "net" : !layout ? "layout" : "t_fwd");
    if (sm_layout_check(layout, st))
        return -1;
    if (p->ops->predict_blocks(p->impl, net, layout, t_fwd, st))
        return -1;
    for (int b = 0; b < net->n_blocks; b++)
        if (check_physical(p, net, layout, net->blocks[b], 0, t_fwd[b], st))
            return -1;
    return 0;
}
