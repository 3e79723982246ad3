/*
 * exec_plan.h: what both executors (executor.h on the CPU, executor_cuda.h on the GPU) agree on
 * before either allocates a byte: every tensor's shape, who reads whom, where each layer's
 * weights sit in the one weight array, the loss's rows and classes, the rule for zeroing
 * gradient buffers, and the seeded initial values. An executor adds only its memory and its
 * kernels, so the two run the same network the same way from the same numbers (the GPU tests
 * compare them).
 *
 *   sm_plan_layers       the layers the executors run: all but a last loss (SM_TRAIT_LOSS)
 *   sm_plan_init         shapes, readers and offsets of a network at one batch size
 *   sm_plan_wire         points every layer's inputs, gradients and weights at the buffers
 *   sm_plan_forward      every layer's forward pass in order
 *   sm_plan_backward     every layer's backward pass in reverse order, gradients zeroed first
 *   sm_plan_weights_of   a layer's initial weights; sm_plan_inputs the input and labels
 */
#ifndef SCALEMETER_EXEC_PLAN_H
#define SCALEMETER_EXEC_PLAN_H

#include <stdint.h>

#include "scalemeter/kernels.h"
#include "scalemeter/scalemeter.h"

typedef struct sm_plan_layer {
    sm_layer_io call;    /* what the layer's kernels are given */
    sm_tensor *in, *din; /* n_in each, pointed to by call */
    sm_tensor out, dout; /* data NULL until an executor sets them */
    int last_reader;     /* the last layer that reads this one's output; -1: none */
    int64_t w_offset;    /* of its weights within all weights */
    /* the layer's kernels on the executor's device, set by the executor */
    int (*forward)(const sm_layer_io *l, sm_error *err);
    int (*backward)(const sm_layer_io *l, sm_error *err);
    /* what each is, and the kernels' setup (state_size, work_size, init; the GPU's setup), for
     * the plugin guard around them (sm_plugin_call_begin or sm_plugin_kernel_name); NULL:
     * unguarded. sm_plan_name_kernels writes them; sm_plan_free frees them */
    char *forward_what, *backward_what, *setup_what;
} sm_plan_layer;

typedef struct sm_plan {
    const sm_network *net;
    int64_t batch;
    int n;                 /* layers run: net's, less a last loss (sm_plan_layers) */
    sm_plan_layer *layers; /* net->layers' order */
    sm_tensor input, input_grad;
    int input_last_reader; /* the last layer that reads the network's input; -1: none */
    int64_t n_weights;     /* all layers' together */
    int64_t rows, classes; /* of the loss: the output's last dimension holds the classes */
    /* 1: the layers' whats name their kernels by a pointer store (sm_plugin_kernel_name), not
     * the guard's system calls, which would change a timed kernel's time: bench */
    int name_only;
} sm_plan;

/* How many of net's layers the executors run, first to last: all of them, or all but the last
 * where its type is a loss (SM_TRAIT_LOSS), the softmax cross-entropy the executors compute
 * themselves on the output of the layer before it (executor.h's loss), which needs no kernels
 * and is not run. -1, with a message naming the file and line, when a loss is anywhere but
 * last, reads anything but the layer just before it, or is the only layer; or net has none. */
int sm_plan_layers(const sm_network *net, sm_status *st);

/* Plans net at batch, its layers sm_plan_layers': 0; -1 when batch is not positive or
 * sm_plan_layers refuses the network; or
 * SM_EXECUTOR_NOMEM (executor.h) when host memory ran out or a size overflows 64 bits. The
 * message says which. net must outlive the plan; sm_plan_free it whatever the result. */
int sm_plan_init(sm_plan *p, const sm_network *net, int64_t batch, sm_status *st);
void sm_plan_free(sm_plan *p);

/* Names every layer's kernels for the guard, "the CPU forward kernel of layer type 'conv2d'
 * (plugin PATH) in WHERE" (device "CPU" or "GPU"): a kernel that faulted ended the command
 * with a backtrace or "Segmentation fault" alone, naming no plugin. -1: out of memory. */
int sm_plan_name_kernels(sm_plan *p, const char *device, const char *where);

/* n x elements x 4 bytes of a tensor, or -1 when that overflows. */
int64_t sm_plan_tensor_bytes(const sm_tensor *t);

/* Once the executor has set input, input_grad and every out and dout: each layer's inputs and
 * their gradients point at their sources' buffers, its weights and weight gradients into
 * weights and grads (n_weights floats each). */
void sm_plan_wire(sm_plan *p, float *weights, float *grads);

/* kernel(call, err), inside the plugin guard where what is not NULL (sm_plugin_call_begin), or
 * with name_only named by sm_plugin_kernel_name alone. */
int sm_plan_kernel(int (*kernel)(const sm_layer_io *l, sm_error *err), const sm_layer_io *call,
                   const char *what, int name_only, sm_error *err);
/* The forward pass of every layer in network order (training = 1 keeps what backward needs),
 * each with its seed from step_seed. 0; or -1 with *failed the layer and err its message. */
int sm_plan_forward(sm_plan *p, uint64_t step_seed, int training, int *failed, sm_error *err);
/* The backward pass of every layer in reverse order, each gradient buffer zeroed by zero(ctx,
 * tensor) just before the first to add into it (and those no gradient flows into, first).
 * 0; -1 with *failed the layer and err its message; or -1 with *failed -1 when zero failed. */
int sm_plan_backward(sm_plan *p, int (*zero)(void *ctx, const sm_tensor *t), void *ctx, int *failed,
                     sm_error *err);

/* The next step's seed after *step_seed (splitmix64). */
void sm_plan_next_seed(uint64_t *step_seed);
/* Layer i's weights before its kernels' init: uniform in [-1, 1), from seed. */
void sm_plan_weights_of(const sm_plan *p, uint64_t seed, int i, float *w);
/* The input (batch x input elements) uniform in [-1, 1), and every row's label, from seed;
 * returns the first step's seed. */
uint64_t sm_plan_inputs(const sm_plan *p, uint64_t seed, float *x, int32_t *labels);

#endif
