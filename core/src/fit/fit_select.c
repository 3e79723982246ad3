/* Choosing a term of the fitted form by cross-validation: a term stays only when the networks
 * each fit left out are predicted better with it (leave-one-model-out, fit_loo.c). */
#include <math.h>
#include <string.h>

#include "scalemeter/fit.h"
#include "util/util.h"

/* The held-out MAPE of the step, or of inference where no row measures the step; NAN when the
 * validation leaves a network out (then the two forms are not compared on the same networks). */
static double held_out_mape(const sm_loo *loo)
{
    if (loo->n_not_validated)
        return NAN;
    return loo->overall[SM_PHASE_STEP].n > 0 ? loo->overall[SM_PHASE_STEP].mape
                                             : loo->overall[SM_PHASE_INFER].mape;
}

int sm_fit_choose_weight_term(const sm_runs *runs, sm_fit_options *opt, double mape[2],
                              sm_loo *chosen, sm_status *st)
{
    if (!runs || !opt || !mape)
        return sm_null_arg(st, __func__, !runs ? "runs" : !opt ? "opt" : "mape");
    mape[0] = mape[1] = NAN;
    opt->weight_term = 0;
    if (chosen)
        memset(chosen, 0, sizeof *chosen);
    int models = sm_runs_models(runs);
    if (models < 0)
        return sm_fail(st, "choosing the weight term: out of memory");
    if (models < 3) /* a fit on one network cannot tell a pass's weights from its intercept */
        return 0;
    sm_loo loo[2] = {{0}};
    int failed[2] = {0, 0};
    for (int with = 0; with <= 1; with++) {
        sm_fit_options o = *opt;
        o.weight_term = with;
        sm_status inner;
        if ((failed[with] = sm_fit_loo(runs, &o, &loo[with], &inner)) != 0) {
            if (strstr(inner.msg, "out of memory")) {
                sm_loo_free(&loo[0]);
                return sm_fail(st, "choosing the weight term: out of memory");
            }
            continue;
        }
        mape[with] = held_out_mape(&loo[with]);
    }
    opt->weight_term = mape[1] <= mape[0] - SM_WEIGHT_TERM_GAIN; /* false with a NAN */
    int keep = opt->weight_term;
    if (chosen && !failed[keep]) {
        *chosen = loo[keep];
        memset(&loo[keep], 0, sizeof loo[keep]);
    }
    sm_loo_free(&loo[0]);
    sm_loo_free(&loo[1]);
    return 0;
}
