/*
 * The conformance harness (as ggml's test-backend-ops): the cases a plugin folder carries in
 * its cases.ini, run against the registry. For each case: the layer's output shape and counts
 * against the expected ones (derived from PyTorch), what it saves for backward, and, where its
 * type has CPU kernels, its backward pass against central finite differences of its forward
 * pass; for each refusal, the message. tests/test_conformance.c runs every folder's file and
 * fails a type without cases; `scalemeter check-plugin` runs one out-of-tree plugin's.
 *
 * The file format is docs/plugins.md's "Conformance cases".
 */
#ifndef SCALEMETER_CONFORMANCE_H
#define SCALEMETER_CONFORMANCE_H

#include <stdio.h>

#include "scalemeter/scalemeter.h"

/* What running one cases file found, per registry type (indexed as sm_registry_type). */
typedef struct sm_conformance_tally {
    int cases, refusals, gradients; /* run */
    int failures;                   /* of those, failed */
    int *cases_of;                  /* sm_registry_count entries: cases naming each type */
    int *gradients_of;              /* of those, gradient-checked */
} sm_conformance_tally;

/* Runs every case of the file at path against reg, one line per case on out ("ok" or "FAIL"
 * with the reason; the gradient errors), adding to tally. -1 with st set when the file cannot
 * be read or a case is malformed (the message names the file and line); 0 otherwise, whatever
 * the cases gave. */
int sm_conformance_run(const sm_registry *reg, const char *path, FILE *out,
                       sm_conformance_tally *tally, sm_status *st);

#endif
