/*
 * The conformance harness (as ggml's test-backend-ops): the cases a plugin folder carries in
 * its cases.ini, run against the registry. For each case: the layer's output shape and counts
 * against the expected ones (derived from PyTorch), what it saves for backward, and, where its
 * type has CPU kernels, its backward pass against central finite differences of its forward
 * pass, and on a device where one is given (the GPU: conformance_cuda.c) the same forward and
 * backward against the CPU's; for each refusal, the message. tests/test_conformance.c runs
 * every folder's file and fails a type without cases; `scalemeter check-plugin` runs one
 * out-of-tree plugin's.
 *
 * The file format is docs/plugin-abi.md's "Conformance cases".
 */
#ifndef SCALEMETER_CONFORMANCE_H
#define SCALEMETER_CONFORMANCE_H

#include <stdint.h>
#include <stdio.h>

#include "scalemeter/scalemeter.h"

/* What a gradient-checked case computed on the CPU, for a device to compute again: the
 * network at a batch and seed, the input and weights it ran from, the output gradient its backward
 * started from, and what forward and backward gave (host memory, in executor.h's layouts). */
typedef struct sm_conformance_reference {
    const sm_network *net;
    int64_t batch;
    uint64_t seed; /* the executor's: of the random parts of forward (dropout masks) */
    int64_t n_input, n_weights, n_output;
    const float *input, *weights, *output_grad;
    const float *output, *input_grad, *weight_grads;
} sm_conformance_reference;

/* A device the cases are also run on, compared with the CPU (ggml's test-backend-ops). compare
 * runs ref's network there from ref's input, weights and output gradient (forward in training
 * mode, then backward) and sets err[0..2] to the largest difference from ref's output, input
 * gradient and weight gradients, each relative to the largest magnitude of ref's (at least
 * 1e-3). It returns 0 when compared, 1 when the device cannot run the network (a type without
 * kernels for it), -1 on a failure; line says why in both cases. The harness judges err
 * against the case's tolerance. */
typedef struct sm_conformance_device {
    const char *name; /* in the lines written: "gpu" */
    int (*compare)(const sm_conformance_reference *ref, double err[3], char *line, size_t len);
} sm_conformance_device;

/* What running one cases file found, per registry type (indexed as sm_registry_type). */
typedef struct sm_conformance_tally {
    int cases, refusals, gradients; /* run */
    int failures;                   /* of those, failed */
    int *cases_of;                  /* sm_registry_count entries: cases naming each type */
    int *gradients_of;              /* of those, gradient-checked */
    /* Set by the caller: also compare every gradient-checked case on this device (NULL: the
     * CPU alone). Counted in device_checks, per type in device_of (may be NULL). */
    const sm_conformance_device *device;
    int device_checks;
    int *device_of;
} sm_conformance_tally;

/* Runs every case of the file at path against reg, one line per case on out ("ok" or "FAIL"
 * with the reason; the gradient errors), adding to tally. -1 with st set when the file cannot
 * be read or a case is malformed (the message names the file and line); 0 otherwise, whatever
 * the cases gave. */
int sm_conformance_run(const sm_registry *reg, const char *path, FILE *out,
                       sm_conformance_tally *tally, sm_status *st);

#endif
