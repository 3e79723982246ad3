/*
 * scalemeter/predict.h: time predictions for a network, from fitted coefficients (ConvMeter) or
 * from a device description (PALEO-style roofline, no calibration needed).
 *
 * Both kinds of predictor answer the same question: for a network, a per-device batch b, N nodes
 * and G devices per node, how long does one step take and of what is it made.
 */
#ifndef SCALEMETER_PREDICT_H
#define SCALEMETER_PREDICT_H

#include <math.h>

#include "scalemeter/scalemeter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds per step of one device; a phase a predictor cannot tell is NAN. */
typedef struct sm_prediction {
    double t_infer; /* inference forward pass */
    double t_fwd;   /* training forward pass */
    double t_bwd;   /* backward pass */
    double t_grad;  /* gradient synchronisation and update not hidden behind the backward pass,
                       per step (all its micro-batches: sm_layout.accumulate) */
    double t_step;  /* K (t_fwd + t_bwd) + t_grad, K = sm_layout_accumulate; t_fwd and t_bwd
                       are one micro-batch's */
    double e_infer; /* joules of one device for an inference pass; NAN: not modelled */
    double e_step;  /* joules of one device for a training step; NAN: not modelled */
} sm_prediction;

typedef struct sm_layout {
    int64_t batch;     /* per device: one micro-batch */
    int nodes;         /* N */
    int gpus_per_node; /* G: devices per node */
    int accumulate;    /* K: micro-batches per optimizer step (gradient accumulation); 0 (a
                          layout written before it) or 1: none */
} sm_layout;

typedef struct sm_predictor sm_predictor;

/* A coefficient file written by `scalemeter fit`; path, or a name in the configs folder. */
int sm_predictor_from_coeffs(const char *path, sm_predictor **out, sm_status *st);
/* The same; overlap = 1: gradient buckets all-reduced during the backward pass, as DDP does
 * (the ring forms only: their communication terms give each bucket's time). */
int sm_predictor_from_coeffs_opts(const char *path, int overlap, sm_predictor **out, sm_status *st);
/* A device and cluster description (configs/devices/NAME.ini), or a path to one. */
int sm_predictor_from_device(const char *name_or_path, sm_predictor **out, sm_status *st);
/* Where the predictor came from, for reports: "cpu-xeon (fit 2026-11-22, 240 points)"; this,
 * sm_predictor_describe_for and sm_predictor_precision: NULL for a NULL p. */
const char *sm_predictor_describe(const sm_predictor *p);
/* The same for a report on networks with convolutions (convolutions = 1: one at least has a
 * layer of SM_TRAIT_CONVOLUTION, sm_network_has_trait) or without (0). A device model at fp16
 * and bf16 names its activations' layout, and cuDNN's transposes around NCHW convolutions,
 * only for the first: for a transformer neither applies. */
const char *sm_predictor_describe_for(const sm_predictor *p, int convolutions);
/* "fp32", "tf32", "fp16" or "bf16": the precision of the runs a calibration was fitted to, or
 * the one a device predictor models. */
const char *sm_predictor_precision(const sm_predictor *p);
/* 0 when precision is NULL or p's; else -1 with a message saying what to do. */
int sm_predictor_check_precision(const sm_predictor *p, const char *precision, sm_status *st);
void sm_predictor_free(sm_predictor *p);

int sm_predict(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
               sm_prediction *out, sm_status *st);
/* Forward time of one block of the network (block-wise prediction). */
int sm_predict_block(const sm_predictor *p, const sm_network *net, int block,
                     const sm_layout *layout, double *t_fwd, sm_status *st);
/* The same of every block: t_fwd[b] for each of net->n_blocks blocks, in one walk over the
 * layers (sm_predict_block for each block walks them once per block); a time that is not
 * physical is refused naming the first such block, as sm_predict_block block by block. */
int sm_predict_blocks(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
                      double *t_fwd, sm_status *st);

/* What limits a layer's pass on a device description: its arithmetic, its memory traffic, the
 * host, whose dispatch of its kernels takes longer than they run, or kernel launches on the
 * device (a library's own inside the layer's call, one after another: cuDNN's recurrent steps;
 * each kernel's start and drain, a framework's kernel_device_us), where they take longer than
 * its arithmetic and its bytes; none: no work. */
typedef enum {
    SM_BOUND_NONE,
    SM_BOUND_COMPUTE,
    SM_BOUND_MEMORY,
    SM_BOUND_HOST,
    SM_BOUND_LAUNCH
} sm_bound;
/* "-", "compute", "memory", "host", "launch". */
const char *sm_bound_name(sm_bound b);

/* One layer's part of a micro-batch's passes (sm_predict_layers): the layers' t_infer, t_fwd
 * and t_bwd add up to sm_predict's. Each splits into the device's kernels (their roofline,
 * cuDNN's layout transposes, a library's launches, and in t_bwd what checkpointing
 * recomputes) and the host's dispatch of them, which the model adds (docs/calibration.md). */
typedef struct sm_layer_prediction {
    double t_infer, t_fwd, t_bwd;          /* seconds; 0 for a fused layer */
    double host_infer, host_fwd, host_bwd; /* of them, the framework's dispatch */
    sm_bound bound_infer, bound_fwd, bound_bwd;
    int fused; /* 1: the framework runs it inside a neighbour's kernel */
} sm_layer_prediction;
/* Every layer's part, into out[net->n_layers], in the network's order: for a predictor of a
 * device description; a calibration, which prices whole passes, is refused saying so. */
int sm_predict_layers(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
                      sm_layer_prediction *out, sm_status *st);

/* The largest global batch (per-device batch x micro-batches x devices) a prediction takes:
 * integers up to 2^53 are exact in a double. */
#define SM_MAX_GLOBAL_BATCH (INT64_C(1) << 53)

/* The inline helpers below require l (sm_layout_check it first). */
static inline int64_t sm_layout_devices(const sm_layout *l)
{
    return (int64_t)l->nodes * l->gpus_per_node;
}
/* K, the micro-batches of a step: 1 where the layout leaves accumulate 0. */
static inline int sm_layout_accumulate(const sm_layout *l)
{
    return l->accumulate > 1 ? l->accumulate : 1;
}
/* Samples of one optimizer step, all devices: batch x K x devices (after sm_layout_check). */
static inline int64_t sm_layout_global_batch(const sm_layout *l)
{
    return l->batch * sm_layout_accumulate(l) * sm_layout_devices(l);
}
/* 0 for a layout every prediction takes (a batch and devices of at least 1, accumulate not
 * negative, a global batch of at most SM_MAX_GLOBAL_BATCH); else -1 with a message saying
 * what to change. */
int sm_layout_check(const sm_layout *l, sm_status *st);
/* Samples per second of the whole cluster. */
static inline double sm_images_per_s(const sm_layout *l, double t_step)
{
    return (double)sm_layout_global_batch(l) / t_step;
}
/* Steps per epoch of dataset_size samples: whole steps, the last one partly filled as a data
 * loader without drop_last runs it (so never less than one step); NAN for a dataset of no
 * samples, whose epoch is not known. Any int64 size (a ceiling formed as size + per_step - 1
 * overflowed past 2^63 - per_step). */
static inline double sm_epoch_steps(const sm_layout *l, int64_t dataset_size)
{
    int64_t per_step = sm_layout_global_batch(l);
    if (dataset_size < 1 || per_step < 1)
        return NAN;
    return (double)(dataset_size / per_step + (dataset_size % per_step != 0));
}
/* Seconds per epoch. */
static inline double sm_epoch_time(const sm_layout *l, double t_step, int64_t dataset_size)
{
    return sm_epoch_steps(l, dataset_size) * t_step;
}
/* The bounds sm_predict holds a phase's time and energy to (1e17 s, three billion years, and
 * a megawatt over it), held to an epoch of dataset_size samples and to epochs of them too (0:
 * none asked for) by the whole job's energy, all its devices: 0, or -1 with a message saying
 * which total and what to change, naming model where not NULL. A step of 1e16 s passes
 * sm_predict and its epoch did not. */
int sm_check_totals(const char *model, const sm_layout *l, const sm_prediction *t,
                    int64_t dataset_size, int epochs, sm_status *st);

#ifdef __cplusplus
}
#endif
#endif
