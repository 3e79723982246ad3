/*
 * The GPU executor: runs a network on one CUDA device, layer by layer, with the GPU kernels of
 * its plugins (kernels.h, struct sm_gpu_kernels, from each type's companion module NAME_gpu.so,
 * loaded through the network's registry when first needed); the device twin of executor.h,
 * with the same calls in the same order:
 *
 *   sm_cuda_executor_check    every layer has GPU kernels (else an error naming the first),
 *                             but a last loss (SM_TRAIT_LOSS), which is the executor's own
 *   sm_cuda_executor_new      device memory for a batch, weights and input, kernel setup
 *                             (cuDNN algorithm search)
 *   sm_cuda_executor_step     forward, softmax cross-entropy on random labels, backward, SGD
 *                             (at fp16 with the loss scaled, as torch.amp.GradScaler does)
 *   sm_cuda_executor_forward  the forward pass alone
 *
 * It knows no layer: what a layer computes lives in its plugin. Weights, input and labels come
 * from the CPU executor's generator with the same seed, so both executors start from the same
 * numbers (the GPU tests compare them). Every call enqueues work on the executor's stream and
 * returns without waiting, except where it says it waits; errors of the kernels themselves
 * surface at the next wait. Nothing here prints.
 */
#ifndef SCALEMETER_EXECUTOR_CUDA_H
#define SCALEMETER_EXECUTOR_CUDA_H

#include <stdint.h>

#include "executor.h"
#include "scalemeter/scalemeter.h"

typedef struct sm_cuda_executor sm_cuda_executor;

typedef struct sm_cuda_executor_options {
    int64_t batch;        /* samples per step, > 0 */
    uint64_t seed;        /* of the weights, the input and the labels */
    int input_grad;       /* 1: also compute the gradient of the network's input (tests) */
    int64_t max_bytes;    /* > 0: refuse larger plans with SM_EXECUTOR_NOMEM before allocating */
    int device;           /* CUDA device ordinal */
    int precision;        /* sm_gpu_precision: fp32, tf32, fp16 or bf16 (kernels.h) */
    int algo_search;      /* sm_gpu_algo_search */
    int64_t search_bytes; /* workspace convolution algorithms may be timed with; 0: 1 GiB. Less
                            is used when less device memory is free */
    float loss_scale;     /* fp16: the loss scale to start from; 0: GradScaler's 65536 */
    int name_faults;      /* 1: a fault in a plugin's host code (its kernels' launches, setup)
                            names the plugin, by a pointer store a call (sm_plugin_kernel_name):
                            bench's */
} sm_cuda_executor_options;

/* "fp32", "tf32", "fp16", "bf16"; and back (-1 for another name). */
const char *sm_gpu_precision_name(int precision);
int sm_gpu_precision_parse(const char *name);
/* 0 for the precisions the GPU backend runs (fp32, tf32, fp16, bf16); -1 saying which are. */
int sm_gpu_precision_check(int precision, sm_status *st);

/* 0 when every layer of net has GPU kernels, but a last loss (exec_plan.h's sm_plan_layers:
 * its input is the output whose loss sm_cuda_executor_loss takes); otherwise -1 naming the
 * first layer without, its type and the line of the network file that defines it (and the
 * module, when one is there but cannot load), or a loss the executors cannot take. Loads the
 * companion modules of net's types. */
int sm_cuda_executor_check(const sm_network *net, sm_status *st);

/* Allocates and initialises everything a step needs on opt->device and sets up every layer:
 * 0, -1 (the message says why) or SM_EXECUTOR_NOMEM (the plan exceeds max_bytes or the
 * device's free memory, or an allocation failed). Waits. net must outlive the executor. */
int sm_cuda_executor_new(const sm_network *net, const sm_cuda_executor_options *opt,
                         sm_cuda_executor **out, sm_status *st);
void sm_cuda_executor_free(sm_cuda_executor *ex);

/* The forward pass of every layer in network order (training = 1 keeps what backward needs). */
int sm_cuda_executor_forward(sm_cuda_executor *ex, int training, sm_status *st);
/* Softmax cross-entropy of the output against the labels, averaged over its rows (as
 * sm_executor_loss); writes the gradient of the output. With loss not NULL it waits for the
 * value and fails when it is not finite; with NULL it does not wait. */
int sm_cuda_executor_loss(sm_cuda_executor *ex, double *loss, sm_status *st);
/* The backward pass of every layer in reverse order, from the output gradient. At fp16 the
 * output gradient is multiplied by the loss scale first and the gradients (weights', input's)
 * divided by it after. */
int sm_cuda_executor_backward(sm_cuda_executor *ex, sm_status *st);
/* w -= lr * dw over all weights; at fp16 nothing where a gradient is not finite (checked
 * here, after any all-reduce of them), then the loss scale halves (skipped) or doubles (after
 * 2000 steps not skipped). */
int sm_cuda_executor_sgd(sm_cuda_executor *ex, float lr, sm_status *st);
/* The loss scale now: fp16's (waits), 1 at the other precisions. */
int sm_cuda_executor_loss_scale(sm_cuda_executor *ex, float *scale, sm_status *st);
/* Forward, loss, backward, SGD, then a new seed; loss may be NULL (no wait). */
int sm_cuda_executor_step(sm_cuda_executor *ex, float lr, double *loss, sm_status *st);
void sm_cuda_executor_next_seed(sm_cuda_executor *ex);
/* Waits for everything enqueued; fails with the error of a kernel that failed. */
int sm_cuda_executor_sync(sm_cuda_executor *ex, sm_status *st);

/* The stream every call enqueues on (a cudaStream_t), for the caller's own work on the same
 * timeline (events, the gradient all-reduce). */
void *sm_cuda_executor_stream(const sm_cuda_executor *ex);
int sm_cuda_executor_device(const sm_cuda_executor *ex);
/* The algorithm search's workspace and the scratch the chosen kernels keep, in bytes. */
int64_t sm_cuda_executor_work_bytes(const sm_cuda_executor *ex);

/* Buffers in device memory (data pointers are device pointers), as sm_executor_* gives them. */
sm_tensor sm_cuda_executor_input(const sm_cuda_executor *ex);
sm_tensor sm_cuda_executor_input_grad(const sm_cuda_executor *ex);
sm_tensor sm_cuda_executor_output(const sm_cuda_executor *ex);
sm_tensor sm_cuda_executor_output_grad(const sm_cuda_executor *ex);
sm_tensor sm_cuda_executor_activation(const sm_cuda_executor *ex, int layer);
float *sm_cuda_executor_weights(const sm_cuda_executor *ex, int64_t *count);
float *sm_cuda_executor_weight_grads(const sm_cuda_executor *ex, int64_t *count);
int64_t sm_cuda_executor_weight_offset(const sm_cuda_executor *ex, int layer);

/* n floats between host and device memory, waiting for the executor's stream first. */
int sm_cuda_executor_download(sm_cuda_executor *ex, const float *device, float *host, int64_t n,
                              sm_status *st);
int sm_cuda_executor_upload(sm_cuda_executor *ex, float *device, const float *host, int64_t n,
                            sm_status *st);

#endif
