/*
 * executor.h: runs a network on the CPU, layer by layer, with the kernels of its plugins
 * (kernels.h, struct sm_cpu_kernels), for benchmarks and for tests of the kernels. Its twin on
 * the GPU is executor_cuda.h; both run the plan of exec_plan.h.
 *
 *   sm_executor_check    every layer has CPU kernels (else an error naming the first without)
 *                        but a last loss (SM_TRAIT_LOSS), which is the executor's own
 *   sm_executor_new      allocates activations, gradients, weights, state and scratch for a batch
 *   sm_executor_step     one training step: forward, softmax cross-entropy on random labels,
 *                        backward through every layer in reverse order, SGD update
 *   sm_executor_forward  the forward pass alone (inference or training mode)
 *
 * A network that ends in a loss (plugin.h's SM_TRAIT_LOSS: cross_entropy) is run without it:
 * its input is the output whose loss sm_executor_loss takes, which is that loss (exec_plan.h,
 * sm_plan_layers), so a step's time holds the loss's as the model's does.
 *
 * The executor knows no layer: what a layer computes lives in its plugin. Weights, input and
 * labels are random but deterministic (from options.seed). Functions that can fail return 0, or
 * -1 with a one-line message in an sm_status; nothing here prints.
 */
#ifndef SCALEMETER_EXECUTOR_H
#define SCALEMETER_EXECUTOR_H

#include <stdint.h>

#include "scalemeter/kernels.h"
#include "scalemeter/scalemeter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returned instead of -1 when the buffers of a batch do not fit in memory (an allocation failed,
 * or they would exceed options.max_bytes): a benchmark records it and goes on. */
#define SM_EXECUTOR_NOMEM (-2)

typedef struct sm_executor sm_executor;

typedef struct sm_executor_options {
    int64_t batch;     /* samples per step, > 0 */
    uint64_t seed;     /* of the weights, the input and the labels */
    int input_grad;    /* 1: also compute the gradient of the network's input (tests) */
    int64_t max_bytes; /* > 0: refuse larger plans with SM_EXECUTOR_NOMEM before allocating */
    /* where the kernels run, for the plugin guard (sm_plugin_call_begin): a crash, an exit()
     * or a hang inside a kernel names it, its layer type and plugin, and this ("case b
     * (cases.ini:6)", check-plugin's); NULL: unguarded, as bench runs them, whose timing the
     * guard's system calls would change */
    const char *guard;
    /* with no guard, 1: a crash or an exit() inside a kernel still names it, its layer type and
     * plugin, by a pointer store a call (sm_plugin_kernel_name): bench's */
    int name_faults;
} sm_executor_options;

/* 0 when every layer of net has CPU kernels, but a last loss (sm_plan_layers); otherwise -1
 * naming the first layer without, its type and the line of the network file that defines it,
 * or the loss that is not last, or does not read the layer before it. */
int sm_executor_check(const sm_network *net, sm_status *st);
/* Bytes sm_executor_new would allocate for this batch (activations, gradients, weights, state,
 * scratch); SM_EXECUTOR_NOMEM when the count overflows. */
int sm_executor_bytes(const sm_network *net, int64_t batch, int input_grad, int64_t *bytes,
                      sm_status *st);

/* Allocates and initialises everything a step needs: 0, -1 (the message says why) or
 * SM_EXECUTOR_NOMEM. net must outlive the executor. */
int sm_executor_new(const sm_network *net, const sm_executor_options *opt, sm_executor **out,
                    sm_status *st);
void sm_executor_free(sm_executor *ex);

/* The forward pass of every layer in network order; training = 1 keeps what backward needs
 * (batch statistics, argmax, dropout masks) and updates running statistics, 0 is inference. */
int sm_executor_forward(sm_executor *ex, int training, sm_status *st);
/* Softmax cross-entropy of the output against the labels, averaged over its rows (the last
 * dimension holds the classes, every other position of every sample is a row, as
 * nn.CrossEntropyLoss on a (rows x classes) view); writes the gradient of the output. Of a
 * network that ends in a loss layer, the output is that layer's input. */
int sm_executor_loss(sm_executor *ex, double *loss, sm_status *st);
/* The backward pass of every layer in reverse order, from the output gradient; after a
 * training forward. Fills the weight gradients (and the input gradient when asked for). */
int sm_executor_backward(sm_executor *ex, sm_status *st);
/* Layer i's backward pass alone, from the buffers as they are: nothing is zeroed first, so its
 * input gradients receive what it adds to them. After a training forward; for the conformance
 * harness, which checks that a backward adds into its input gradients and reads only what the
 * layer declares it keeps (sm_layer_saved). */
int sm_executor_layer_backward(sm_executor *ex, int layer, sm_status *st);
/* Layer i's kernel call as the executor wired it: its inputs, output and their gradients. */
const sm_layer_io *sm_executor_layer_call(const sm_executor *ex, int layer);
/* w -= lr * dw over all weights (torch.optim.SGD without momentum). */
void sm_executor_sgd(sm_executor *ex, float lr);
/* One training step: forward, loss, backward, SGD; then a new seed for the next step's dropout.
 * loss may be NULL. */
int sm_executor_step(sm_executor *ex, float lr, double *loss, sm_status *st);
/* A new seed for the random parts of the next forward (dropout masks). */
void sm_executor_next_seed(sm_executor *ex);

/* Buffers, for callers that set inputs or read results (tests, gradient exchange). The output
 * gradient is what backward starts from: sm_executor_loss writes it, or the caller does. The
 * input gradient has data NULL unless options.input_grad was set. */
sm_tensor sm_executor_input(const sm_executor *ex);
sm_tensor sm_executor_input_grad(const sm_executor *ex);
sm_tensor sm_executor_output(const sm_executor *ex);
sm_tensor sm_executor_output_grad(const sm_executor *ex);
/* The output of layer i (sm_network.layers[i]; not a last loss, which is not run). */
sm_tensor sm_executor_activation(const sm_executor *ex, int layer);
/* All weights and all weight gradients, each one contiguous array of *count floats in layer
 * order (what a data-parallel step all-reduces); *offset of layer i's within them. */
float *sm_executor_weights(const sm_executor *ex, int64_t *count);
float *sm_executor_weight_grads(const sm_executor *ex, int64_t *count);
int64_t sm_executor_weight_offset(const sm_executor *ex, int layer);
/* Class labels of the rows, in [0, classes). */
const int32_t *sm_executor_labels(const sm_executor *ex, int64_t *rows, int64_t *classes);

/* Threads of OpenBLAS, which runs the matrix products of every kernel (0 < n); returns the
 * threads it took, which its build caps (MAX_THREADS: 4096 asked ran 64). */
int sm_cpu_set_threads(int n);

#ifdef __cplusplus
}
#endif
#endif
