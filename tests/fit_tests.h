/* What the fit tests share, which build synthetic measurements from the tiny networks and fit
 * them: a model's whole-network counts, a measurement CSV read with those counts, and the check
 * of a fitted phase's coefficients against the ones the times were made with. */
#ifndef SCALEMETER_TEST_FIT_TESTS_H
#define SCALEMETER_TEST_FIT_TESTS_H

#include <math.h>
#include <stdio.h>

#include "check.h"
#include "scalemeter/fit.h"
#include "scalemeter/scalemeter.h"

/* The counts of a model at one image size and batch 1: 0, or -1 after printing why the model
 * did not load or count. */
static inline int network_metrics(const sm_registry *reg, const char *model, int image,
                                  sm_metrics *m)
{
    sm_network *net;
    sm_network_options opt = {.image = image};
    sm_status st;
    if (sm_network_load(reg, model, &opt, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return -1;
    }
    int rc = sm_network_metrics(net, 1, m, &st);
    sm_network_free(net);
    return rc;
}

/* The rows of a measurement CSV with their networks' counts; NULL after printing why. */
static inline sm_runs *runs_with_metrics(const sm_registry *reg, const char *path)
{
    sm_runs *runs;
    sm_status st;
    if (sm_runs_read(path, &runs, &st) || sm_runs_metrics(runs, reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return NULL;
    }
    return runs;
}

/* The phase was fitted with n coefficients, each within tol of c relative to it (exactly where
 * c is 0); prints each that is not. */
static inline void check_coeffs(const sm_phase_fit *pf, const double *c, int n, double tol)
{
    CHECK(pf->fitted);
    CHECK_EQ(pf->n_coeffs, n);
    for (int k = 0; k < n && k < pf->n_coeffs; k++)
        if (!(fabs(pf->c[k] - c[k]) <= tol * fabs(c[k]))) {
            fprintf(stderr, "  coefficient %d: %.9g, expected %.9g (tolerance %g)\n", k + 1,
                    pf->c[k], c[k], tol);
            CHECK_NEAR(pf->c[k], c[k], tol);
        }
}

#endif
