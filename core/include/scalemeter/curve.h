/*
 * scalemeter/curve.h: scaling curves, a prediction per node count, with throughput, scaling
 * efficiency and the turning point past which more nodes stop paying.
 *
 * Weak scaling keeps the per-device batch; strong scaling keeps the global batch, so the
 * per-device batch shrinks as devices grow (rounded down where it does not divide). With
 * gradient accumulation the per-device batch is a micro-batch, K of them a step.
 */
#ifndef SCALEMETER_CURVE_H
#define SCALEMETER_CURVE_H

#include "scalemeter/memory.h"
#include "scalemeter/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SM_DEFAULT_THRESHOLD 0.10 /* a doubling that gains less than 10% does not pay */

typedef struct sm_curve_point {
    sm_layout layout;     /* layout.batch: per device, one micro-batch */
    int64_t global_batch; /* of an optimizer step: layout.batch x accumulate x devices */
    sm_prediction pred;
    double images_per_s; /* global_batch / t_step */
    double efficiency;   /* images_per_s / (nodes / nodes[b] x images_per_s[b]), b the first
                          * point that fits (fits_from; 0 where none does); NAN before b */
    sm_memory memory;    /* one device's training memory; memory.fits 0: it cannot run */
} sm_curve_point;

typedef struct sm_curve_spec {
    int64_t batch;        /* weak scaling: per-device batch; 0 under strong scaling */
    int64_t global_batch; /* strong scaling: the global batch; 0 under weak scaling */
    int gpus_per_node;
    const int *nodes; /* ascending, no repeats */
    int n_nodes;
    double threshold; /* (0, 1]: gain per doubling below which the curve turns */
    int accumulate;   /* micro-batches per optimizer step (sm_layout.accumulate); 0 or 1:
                         none. Strong scaling splits global_batch into this many first,
                         which it must divide. */
} sm_curve_spec;

typedef struct sm_curve {
    int n_points;
    sm_curve_point *points;
    int turning;   /* index of the turning point in points, -1 where the curve never turns;
                      among the points that run (memory.fits != 0) */
    int fits_from; /* index of the first point whose memory fits (or is not known), -1: none */
} sm_curve;

/* A prediction at every node count of the spec. */
int sm_curve_compute(const sm_predictor *p, const sm_network *net, const sm_curve_spec *spec,
                     sm_curve *out, sm_status *st);
void sm_curve_free(sm_curve *c);
/* The index of the last point of the run of points that fit from fits_from on, among which the
 * turning point is found (the nodes a curve is judged up to); -1 where none fits. */
int sm_curve_fits_to(const sm_curve *c);

/* The first index i whose next point gains less than threshold in throughput per doubling of
 * nodes: (ips[i+1] / ips[i]) ^ (1 / log2(nodes[i+1] / nodes[i])) - 1 < threshold; -1 when none
 * does. nodes ascending; nodes and images_per_s required, n entries each. */
int sm_curve_turning_point(const int *nodes, const double *images_per_s, int n, double threshold);

#ifdef __cplusplus
}
#endif
#endif
