/*
 * test_conformance_device: the harness's device mode (conformance.h), without a GPU. The
 * "device" here is the CPU executor again: given the reference's input, weights and output
 * gradient it must reproduce the reference's output and gradients exactly (one thread, the
 * same kernels, the same numbers), so every difference is 0 unless the harness hands over the
 * wrong buffers. A device that disagrees must fail every compared case, and one that cannot
 * run a network must leave the cases passing, uncompared.
 *
 * plugins/linear/cases.ini holds 2 cases (both gradient-checked: linear has CPU kernels) and
 * 1 refusal. Run from the source tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conformance.h"
#include "executor.h"

#define CASES "plugins/linear/cases.ini"

/* Largest |got - want| over n, relative to the largest |want| (at least 1e-3). */
static double rel_diff(const float *got, const float *want, int64_t n)
{
    double worst = 0, scale = 1e-3;
    for (int64_t i = 0; i < n; i++) {
        double d = got[i] > want[i] ? got[i] - want[i] : want[i] - got[i];
        double m = want[i] < 0 ? -want[i] : want[i];
        worst = d > worst ? d : worst;
        scale = m > scale ? m : scale;
    }
    return worst / scale;
}

static int cpu_again(const sm_conformance_reference *ref, double err[3], char *line, size_t len)
{
    sm_executor_options opt = {.batch = ref->batch, .seed = ref->seed, .input_grad = 1};
    sm_executor *ex = NULL;
    sm_status st;
    if (sm_executor_new(ref->net, &opt, &ex, &st)) {
        snprintf(line, len, "%s", st.msg);
        return -1;
    }
    int64_t nw = 0;
    float *w = sm_executor_weights(ex, &nw);
    CHECK_EQ(nw, ref->n_weights);
    memcpy(sm_executor_input(ex).data, ref->input, (size_t)ref->n_input * sizeof(float));
    memcpy(w, ref->weights, (size_t)nw * sizeof(float));
    int rc = sm_executor_forward(ex, 1, &st);
    if (rc == 0) {
        err[0] = rel_diff(sm_executor_output(ex).data, ref->output, ref->n_output);
        memcpy(sm_executor_output_grad(ex).data, ref->output_grad,
               (size_t)ref->n_output * sizeof(float));
        rc = sm_executor_backward(ex, &st);
    }
    if (rc == 0) {
        err[1] = rel_diff(sm_executor_input_grad(ex).data, ref->input_grad, ref->n_input);
        err[2] = rel_diff(sm_executor_weight_grads(ex, &nw), ref->weight_grads, nw);
    } else {
        snprintf(line, len, "%s", st.msg);
    }
    sm_executor_free(ex);
    return rc ? -1 : 0;
}

static int disagrees(const sm_conformance_reference *ref, double err[3], char *line, size_t len)
{
    (void)ref, (void)line, (void)len;
    err[0] = err[2] = 0;
    err[1] = 0.5; /* above the cases' default tolerance, 1e-2 */
    return 0;
}

static int absent(const sm_conformance_reference *ref, double err[3], char *line, size_t len)
{
    (void)ref, (void)err;
    snprintf(line, len, "type linear has no kernels here");
    return 1;
}

/* Runs the linear cases with dev into a fresh tally; its output into out (a temporary file). */
static sm_conformance_tally run(const sm_registry *reg, const sm_conformance_device *dev,
                                char *text, size_t len)
{
    sm_conformance_tally t = {0};
    t.device = dev;
    sm_status st;
    FILE *out = tmpfile();
    CHECK(out != NULL);
    CHECK_MSG(sm_conformance_run(reg, CASES, out, &t, &st) == 0, "%s", st.msg);
    rewind(out);
    size_t n = fread(text, 1, len - 1, out);
    text[n] = '\0';
    fclose(out);
    return t;
}

int main(void)
{
    sm_status st;
    sm_registry *reg = NULL;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    sm_cpu_set_threads(1);
    char text[8192];

    static const sm_conformance_device same = {"cpu-again", cpu_again};
    sm_conformance_tally t = run(reg, &same, text, sizeof text);
    CHECK_EQ(t.cases, 3);
    CHECK_EQ(t.refusals, 1);
    CHECK_EQ(t.gradients, 3);
    CHECK_EQ(t.device_checks, 3);
    CHECK_EQ(t.failures, 0);
    CHECK_CONTAINS(text, "cpu-again against cpu: output 0.00e+00, input grad 0.00e+00, weight "
                         "grads 0.00e+00");

    static const sm_conformance_device bad = {"bad", disagrees};
    t = run(reg, &bad, text, sizeof text);
    CHECK_EQ(t.device_checks, 3);
    CHECK_EQ(t.failures, 3);
    CHECK_CONTAINS(text, "bad against cpu: output 0.00e+00, input grad 5.00e-01, weight grads "
                         "0.00e+00: too large");

    static const sm_conformance_device none = {"none", absent};
    t = run(reg, &none, text, sizeof text);
    CHECK_EQ(t.device_checks, 0);
    CHECK_EQ(t.failures, 0);
    CHECK_CONTAINS(text, "none: not compared (type linear has no kernels here)");

    sm_registry_free(reg);
    return check_summary();
}
