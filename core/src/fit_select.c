/* Choosing a term of the fitted form by cross-validation: a term stays only when the networks
 * each fit left out are predicted better with it (leave-one-model-out, fit_loo.c). */
#include <math.h>
#include <string.h>

#include "scalemeter/fit.h"

/* The held-out MAPE of the step, or of inference where no row measures the step; NAN when the
 * validation fails or leaves a network out (then the two forms are not compared on the same
 * networks). */
static double held_out_mape(const sm_runs *runs, const sm_fit_options *opt, int *oom)
{
    sm_loo loo;
    sm_status st;
    if (sm_fit_loo(runs, opt, &loo, &st)) {
        *oom = strstr(st.msg, "out of memory") != NULL;
        return NAN;
    }
    double mape = loo.overall[SM_PHASE_STEP].n > 0 ? loo.overall[SM_PHASE_STEP].mape
                                                  : loo.overall[SM_PHASE_INFER].mape;
    if (loo.n_not_validated)
        mape = NAN;
    sm_loo_free(&loo);
    return mape;
}

int sm_fit_choose_weight_term(const sm_runs *runs, sm_fit_options *opt, double mape[2],
                              sm_status *st)
{
    mape[0] = mape[1] = NAN;
    opt->weight_term = 0;
    int models = 0;
    for (int i = 0; i < runs->n && models < 3; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(runs->rows[j].model, runs->rows[i].model) == 0;
        models += !seen;
    }
    if (models < 3) /* a fit on one network cannot tell a pass's weights from its intercept */
        return 0;
    int oom = 0;
    for (int with = 0; with <= 1 && !oom; with++) {
        sm_fit_options o = *opt;
        o.weight_term = with;
        mape[with] = held_out_mape(runs, &o, &oom);
    }
    if (oom)
        return sm_fail(st, "choosing the weight term: out of memory");
    opt->weight_term = mape[1] <= mape[0] - SM_WEIGHT_TERM_GAIN; /* false with a NAN */
    return 0;
}
