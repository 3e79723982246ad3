/*
 * scalemeter/memory.h: what one device holds while it trains or runs a network, and whether
 * that fits the device.
 *
 * Training holds the weights, their gradients and the optimizer's state, the activations that
 * autograd keeps for the backward pass at the end of the forward pass (each layer's plugin
 * says what it keeps; a tensor kept by two layers counts once), the libraries' workspace and,
 * outside the allocator, the framework's context. Inference holds the weights and the peak of
 * the tensors alive at once during the forward pass. docs/memory.md has the model, its
 * sources and where it differs from what PyTorch allocates.
 */
#ifndef SCALEMETER_MEMORY_H
#define SCALEMETER_MEMORY_H

#include "scalemeter/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SM_OPTIMIZER_SGD,      /* plain SGD: no state */
    SM_OPTIMIZER_MOMENTUM, /* SGD with momentum: one fp32 buffer per weight */
    SM_OPTIMIZER_ADAM,     /* Adam: two (exp_avg, exp_avg_sq) */
    SM_OPTIMIZER_ADAMW,    /* AdamW: two */
    SM_N_OPTIMIZERS
} sm_optimizer;

/* "sgd", "momentum", "adam", "adamw"; sm_optimizer_parse: -1 for another name. */
const char *sm_optimizer_name(sm_optimizer o);
int sm_optimizer_parse(const char *name);

/* What the framework and the device add to the network's own tensors. */
typedef struct sm_memory_config {
    int half;               /* 1: fp16/bf16 autocast: activations of 2 bytes, else 4 */
    sm_optimizer optimizer;
    double mask_bytes;      /* per dropout mask element: 1 (CUDA's bool mask), 4 (CPU's) */
    double workspace_bytes; /* the libraries' workspace (cuBLAS, cuDNN) */
    double context_bytes;   /* outside the allocator: CUDA context, the framework's kernels */
    double capacity_bytes;  /* the device's memory; 0: not known */
} sm_memory_config;

/* Bytes of one device. peak = weights + gradients + optimizer + activations + workspace, what
 * the framework's allocator holds at most (torch.cuda.max_memory_allocated); fits compares
 * peak + context with capacity. */
typedef struct sm_memory {
    double weights;     /* fp32 (AMP keeps fp32 master weights) */
    double gradients;   /* fp32, and DDP's bucket copy of them on more than one device */
    double optimizer;
    double activations; /* training: kept for backward; inference: the peak of live tensors */
    double workspace;
    double context;
    double peak;
    double capacity;    /* 0: not known */
    int fits;           /* 1, 0, or -1 where the capacity is not known */
} sm_memory;

/* Training memory of net at a per-device batch on `devices` devices (DDP: one replica each);
 * training = 0: inference. */
int sm_network_memory(const sm_network *net, int64_t batch, int64_t devices, int training,
                      const sm_memory_config *c, sm_memory *out, sm_status *st);

/* The largest per-device batch whose memory fits (training or inference), searched up to
 * 2^40: 0 where even batch 1 does not fit; -1 with a message where the capacity is not known. */
int sm_network_max_batch(const sm_network *net, int64_t devices, int training,
                         const sm_memory_config *c, int64_t *out, sm_status *st);

/* The memory configuration of a predictor: its description's (capacity, workspace, context,
 * the framework's optimizer and masks) at its precision; a calibration alone knows only its
 * precision (no capacity). */
int sm_predictor_memory_config(const sm_predictor *p, sm_memory_config *out);
/* Replaces the predictor's optimizer (`--optimizer`). */
void sm_predictor_set_optimizer(sm_predictor *p, sm_optimizer o);
/* sm_network_memory with the predictor's configuration, on the layout. */
int sm_predict_memory(const sm_predictor *p, const sm_network *net, const sm_layout *layout,
                      int training, sm_memory *out, sm_status *st);

#ifdef __cplusplus
}
#endif
#endif
