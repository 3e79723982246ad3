/* The inside of an sm_predictor: a table of functions, so that fitted coefficients
 * (predictor_coeffs.c) and device descriptions (predictor_device.c) answer alike. */
#ifndef SCALEMETER_PREDICTOR_H
#define SCALEMETER_PREDICTOR_H

#include "scalemeter/device.h"
#include "scalemeter/memory.h"

typedef struct predictor_ops {
    /* One micro-batch's passes and the step's t_grad as without accumulation (t_step their
     * sum); *per_micro: the seconds of t_grad that recur with every micro-batch (FSDP's
     * gathers and reduce-scatters), 0 where all of it is once per step. sm_predict makes
     * the step of sm_layout_accumulate micro-batches from these. */
    int (*predict)(const void *impl, const sm_network *net, const sm_layout *layout,
                   sm_prediction *out, double *per_micro, sm_status *st);
    int (*predict_block)(const void *impl, const sm_network *net, int block,
                         const sm_layout *layout, double *t_fwd, sm_status *st);
    /* predict_block's of every block b into t_fwd[b] (net->n_blocks entries), in time that
     * grows with the layers, not with blocks x layers */
    int (*predict_blocks)(const void *impl, const sm_network *net, const sm_layout *layout,
                          double *t_fwd, sm_status *st);
    void (*free)(void *impl);
    /* what one gradient bucket's all-reduce runs (sm_predictor_allreduce); NULL: no
     * description's all-reduce behind the predictor */
    int (*allreduce)(const void *impl, const sm_network *net, const sm_layout *layout,
                     sm_allreduce_estimate *out, sm_status *st);
    /* the optimizer the update runs (sm_predictor_set_optimizer); NULL: the predictor's update
     * does not depend on it (a calibration measured its own) */
    void (*set_optimizer)(void *impl, sm_optimizer o);
    /* each layer's part of the passes (sm_predict_layers); NULL: the predictor prices whole
     * passes only (a calibration) */
    int (*predict_layers)(const void *impl, const sm_network *net, const sm_layout *layout,
                          sm_layer_prediction *out, sm_status *st);
} predictor_ops;

struct sm_predictor {
    const predictor_ops *ops;
    void *impl;
    char description[640];
    /* description for networks with convolutions and for networks without; "": description */
    char description_conv[640];
    char description_plain[640];
    char calibration[256]; /* the coefficient file's own part of it; "" for a device model */
    char source[256];      /* the coefficient file's path; "" for a device model */
    char precision[8];     /* of the calibration, or the device model's */
    int devices_per_node;  /* of the description behind it; 0: none */
    double peak_flops;  /* the description's dense peak at the precision; 0: a calibration alone */
    double power_limit; /* the description's power_limit_w; 0: none given, a calibration alone */
    sm_memory_config memory; /* its description's and precision's (sm_predict_memory) */
};

/* Wraps impl (owned from now on) into a new predictor; NULL when out of memory. */
sm_predictor *predictor_new(const predictor_ops *ops, void *impl, const char *description);

#endif
