/*
 * The gradient kit of the kernel tests: a tiny network run by the CPU executor, and its backward
 * pass checked against central finite differences of the forward pass. With a fixed random r,
 * R = sum(y * r) has dR/dy = r, so after backward from r the gradient of every input element and
 * every weight must equal (R(v + e) - R(v - e)) / 2e. Inputs are spread values (distinct, 1/N
 * apart, none near 0), so that no difference crosses a kink of relu or max.
 *
 * Also what every kernel test needs around it: the metrics of the layer under test and the
 * check that a network is refused with a message naming the layer.
 *
 * The including test opens `reg` (sm_registry_open) before its first check_gradients().
 */
#ifndef SCALEMETER_TEST_GRADIENT_CHECK_H
#define SCALEMETER_TEST_GRADIENT_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "net_file.h"
#include "executor.h"
static sm_registry *reg;

static uint64_t rng = 12345;
static double rnd(void) /* uniform in [-1, 1) */
{
    rng = rng * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

static int64_t elems(const sm_tensor *t) { return t->n * sm_shape_elems(&t->shape); }

/* Largest |a[i] - b[i]| over n elements. */
static inline double max_diff(const float *a, const float *b, int64_t n)
{
    double d = 0;
    for (int64_t i = 0; i < n; i++)
        d = fabs((double)a[i] - b[i]) > d ? fabs((double)a[i] - b[i]) : d;
    return d;
}

/* Input values spread evenly over [-s, s) in a shuffled order: no two within s/n of each
 * other, none near 0. */
static double spread_scale = 1;
static void spread(float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)(spread_scale * ((2.0 * (double)i + 1.0) / (double)n - 1.0));
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)((rnd() + 1) / 2 * (double)(i + 1)) % (i + 1);
        float t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* Weights uniform in [-1, 1) instead of the layers' own initialisation (layer_scale's 1e-6
 * would make every gradient through it too small to tell right from wrong). */
static int random_weights;

typedef struct fixture {
    sm_network *net;
    sm_executor *ex;
    float *r; /* the weights of R = sum(y * r) */
} fixture;

static int setup(fixture *f, const char *text, int64_t batch)
{
    sm_status st;
    memset(f, 0, sizeof *f);
    f->net = net_load(reg, text, 0, &st);
    if (!f->net) {
        fprintf(stderr, "network: %s\n", st.msg);
        return -1;
    }
    sm_executor_options opt = {.batch = batch, .seed = 7, .input_grad = 1};
    if (sm_executor_new(f->net, &opt, &f->ex, &st)) {
        fprintf(stderr, "executor: %s\n", st.msg);
        sm_network_free(f->net);
        return -1;
    }
    sm_tensor in = sm_executor_input(f->ex), out = sm_executor_output(f->ex);
    spread(in.data, elems(&in));
    if (random_weights) {
        int64_t nw;
        float *w = sm_executor_weights(f->ex, &nw);
        for (int64_t i = 0; i < nw; i++)
            w[i] = (float)rnd();
    }
    f->r = malloc((size_t)elems(&out) * sizeof *f->r);
    for (int64_t i = 0; i < elems(&out); i++)
        f->r[i] = (float)rnd();
    return 0;
}

static void teardown(fixture *f)
{
    sm_executor_free(f->ex);
    sm_network_free(f->net);
    free(f->r);
}

static double objective(fixture *f)
{
    sm_status st;
    if (sm_executor_forward(f->ex, 1, &st)) {
        fprintf(stderr, "forward: %s\n", st.msg);
        exit(1);
    }
    sm_tensor y = sm_executor_output(f->ex);
    double s = 0;
    for (int64_t i = 0; i < elems(&y); i++)
        s += (double)y.data[i] * f->r[i];
    return s;
}

/* Largest |analytic - numeric| over the elements of v, relative to the largest |numeric|. */
static double compare(fixture *f, float *v, const float *grad, int64_t n, double eps)
{
    double worst = 0, scale = 1e-3;
    for (int64_t i = 0; i < n; i++) {
        float keep = v[i];
        v[i] = keep + (float)eps;
        double up = objective(f);
        v[i] = keep - (float)eps;
        double down = objective(f);
        v[i] = keep;
        double numeric = (up - down) / (2 * eps);
        double d = fabs(numeric - grad[i]);
        if (!isfinite(d)) /* a NaN loses every comparison: it would read 0 */
            return INFINITY;
        worst = d > worst ? d : worst;
        scale = fabs(numeric) > scale ? fabs(numeric) : scale;
    }
    return worst / scale;
}

/* Backward from r, then the input gradient and every weight gradient against differences. */
static void check_gradients(const char *what, const char *text, int64_t batch, double eps,
                            double tol)
{
    fixture f;
    if (setup(&f, text, batch)) {
        CHECK(!what);
        return;
    }
    sm_status st;
    objective(&f);
    sm_tensor dy = sm_executor_output_grad(f.ex);
    memcpy(dy.data, f.r, (size_t)elems(&dy) * sizeof(float));
    if (sm_executor_backward(f.ex, &st)) {
        fprintf(stderr, "%s: backward: %s\n", what, st.msg);
        CHECK(!what);
        teardown(&f);
        return;
    }
    sm_tensor x = sm_executor_input(f.ex), dx = sm_executor_input_grad(f.ex);
    int64_t nw;
    float *w = sm_executor_weights(f.ex, &nw), *g = sm_executor_weight_grads(f.ex, &nw);
    float *dx_copy = malloc((size_t)elems(&dx) * sizeof(float));
    float *dw_copy = malloc((size_t)(nw ? nw : 1) * sizeof(float));
    memcpy(dx_copy, dx.data, (size_t)elems(&dx) * sizeof(float));
    memcpy(dw_copy, g, (size_t)nw * sizeof(float));
    double ein = compare(&f, x.data, dx_copy, elems(&x), eps);
    double ew = nw ? compare(&f, w, dw_copy, nw, eps) : 0;
    printf("%-36s input %.2e  weights %.2e  (%lld weights)\n", what, ein, ew, (long long)nw);
    if (ein > tol || ew > tol)
        fprintf(stderr, "%s: gradient error input %.3g, weights %.3g (tolerance %.3g)\n", what, ein,
                ew, tol);
    CHECK(ein <= tol);
    CHECK(ew <= tol);
    free(dx_copy);
    free(dw_copy);
    teardown(&f);
}

/* The metrics of layer `name` of a network text; 0 when it loaded. */
static __attribute__((unused)) int layer_metrics(const char *text, const char *name,
                                                 sm_layer_metrics *m)
{
    sm_status st;
    sm_network *net = net_load(reg, text, 0, &st);
    if (!net) {
        fprintf(stderr, "network: %s\n", st.msg);
        CHECK(0);
        return -1;
    }
    const sm_layer *l = sm_network_layer(net, name);
    CHECK(l != NULL);
    if (l)
        *m = l->m;
    sm_network_free(net);
    return l ? 0 : -1;
}

/* The layer under test is "g" in the kernel tests' networks. */
static __attribute__((unused)) int metrics_of(const char *text, sm_layer_metrics *m)
{
    return layer_metrics(text, "g", m);
}

/* Loading text must fail with a message holding the phrase and naming the place, e.g.
 * ":5: layer g (lstm)" (line 5 is a NET's first layer). */
static __attribute__((unused)) void expect_refusal_at(const char *text, const char *where,
                                                      const char *phrase)
{
    sm_status st;
    sm_network *net = net_load(reg, text, 0, &st);
    CHECK(net == NULL);
    if (net) {
        sm_network_free(net);
        return;
    }
    CHECK_CONTAINS(st.msg, phrase);
    CHECK_CONTAINS(st.msg, where);
}

#define NET(input, layers) "[network]\nname = t\ninput = " input "\n[layers]\n" layers

#endif /* SCALEMETER_TEST_GRADIENT_CHECK_H */
