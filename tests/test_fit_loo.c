/* Leave-one-model-out on a set small enough to work by hand: only t_grad is measured, and on one
 * device its model is t = c L, whose least-squares fit has a closed form:
 *   unweighted:  c = sum(L t) / sum(L^2)
 *   relative:    c = sum(L / t) / sum(L^2 / t^2)      (rows scaled by 1/t)
 * tiny_a has L = 2, tiny_b L = 3, tiny_c L = 4 (their weight layers, see the files).
 *
 * Usage: test_fit_loo OUTDIR */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fit_tests.h"
#include "scalemeter/fit.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (1 + fabs(b)))

/* rows: tiny_a 0.30 and 0.36 s; tiny_b 0.40 s; tiny_c 0.90 s */
static const char csv_text[] =
    "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n"
    "tests/data/fit/tiny_a.ini,8,1,1,1,,,,0.30,\n"
    "tests/data/fit/tiny_a.ini,16,2,1,1,,,,0.36,\n"
    "tests/data/fit/tiny_b.ini,8,1,1,1,,,,0.40,\n"
    "tests/data/fit/tiny_c.ini,8,4,1,1,,,,0.90,\n";

static sm_runs *load(sm_registry *reg, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fit_loo.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(csv_text, f);
    fclose(f);
    return runs_with_metrics(reg, path);
}

static void test_unweighted(const sm_runs *runs)
{
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
    opt.grad_form = SM_GRAD_LINEAR;
    opt.relative = 0;
    sm_loo loo;
    sm_status st;
    CHECK(sm_fit_loo(runs, &opt, &loo, &st) == 0);
    CHECK_EQ(loo.n_models, 3);
    /* leave out tiny_a: c = (3*0.40 + 4*0.90) / (9 + 16) = 4.8 / 25 = 0.192; predicts 0.384
     * for both rows: errors +0.084 and +0.024 */
    double ca = (3 * 0.40 + 4 * 0.90) / (9.0 + 16.0), pa = 2 * ca;
    sm_fit_stats *a = &loo.per_model[0][SM_PHASE_GRAD];
    CHECK_EQ(a->n, 2);
    CHECK(NEAR(a->mape, (fabs(pa - 0.30) / 0.30 + fabs(pa - 0.36) / 0.36) / 2)); /* 0.173333 */
    CHECK(NEAR(a->mape, (0.084 / 0.30 + 0.024 / 0.36) / 2));
    double rmse_a = sqrt((0.084 * 0.084 + 0.024 * 0.024) / 2);
    CHECK(NEAR(a->rmse, rmse_a));
    CHECK(NEAR(a->nrmse, rmse_a / (0.36 - 0.30)));
    /* R2 = 1 - SS_res / SS_tot, mean 0.33: SS_tot = 2 * 0.03^2 */
    CHECK(NEAR(a->r2, 1 - (0.084 * 0.084 + 0.024 * 0.024) / (2 * 0.03 * 0.03)));
    /* leave out tiny_b: c = (2*0.30 + 2*0.36 + 4*0.90) / (4 + 4 + 16) = 4.92 / 24 = 0.205;
     * predicts 0.615 */
    double cb = (2 * 0.30 + 2 * 0.36 + 4 * 0.90) / 24.0;
    sm_fit_stats *b = &loo.per_model[1][SM_PHASE_GRAD];
    CHECK_EQ(b->n, 1);
    CHECK(NEAR(b->mape, fabs(3 * cb - 0.40) / 0.40)); /* 0.5375 */
    CHECK(NEAR(b->rmse, 0.215));
    CHECK(isnan(b->r2) && isnan(b->nrmse)); /* one point: no spread */
    /* leave out tiny_c: c = (0.6 + 0.72 + 1.2) / (4 + 4 + 9) = 2.52 / 17; predicts 0.592941 */
    double cc = (2 * 0.30 + 2 * 0.36 + 3 * 0.40) / 17.0;
    sm_fit_stats *c = &loo.per_model[2][SM_PHASE_GRAD];
    CHECK(NEAR(c->mape, fabs(4 * cc - 0.90) / 0.90));
    /* overall: the four held-out predictions pooled */
    double y[4] = {0.30, 0.36, 0.40, 0.90}, p[4] = {pa, pa, 3 * cb, 4 * cc};
    double ape = 0, se = 0, mean = (0.30 + 0.36 + 0.40 + 0.90) / 4, tot = 0;
    for (int i = 0; i < 4; i++) {
        ape += fabs(p[i] - y[i]) / y[i];
        se += (p[i] - y[i]) * (p[i] - y[i]);
        tot += (y[i] - mean) * (y[i] - mean);
    }
    const sm_fit_stats *all = &loo.overall[SM_PHASE_GRAD];
    CHECK_EQ(all->n, 4);
    CHECK(NEAR(all->mape, ape / 4));
    CHECK(NEAR(all->rmse, sqrt(se / 4)));
    CHECK(NEAR(all->nrmse, sqrt(se / 4) / (0.90 - 0.30)));
    CHECK(NEAR(all->r2, 1 - se / tot));
    /* no other phase was measured */
    CHECK_EQ(loo.overall[SM_PHASE_FWD].n, 0);
    CHECK_EQ(loo.overall[SM_PHASE_STEP].n, 0);
    sm_loo_free(&loo);
}

static void test_relative(const sm_runs *runs)
{
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
    opt.grad_form = SM_GRAD_LINEAR;
    sm_loo loo;
    sm_status st;
    CHECK(sm_fit_loo(runs, &opt, &loo, &st) == 0);
    /* leave out tiny_a: c = (3/0.4 + 4/0.9) / (9/0.16 + 16/0.81) */
    double ca = (3 / 0.40 + 4 / 0.90) / (9 / 0.16 + 16 / 0.81);
    CHECK(NEAR(loo.per_model[0][SM_PHASE_GRAD].mape,
               (fabs(2 * ca - 0.30) / 0.30 + fabs(2 * ca - 0.36) / 0.36) / 2));
    /* leave out tiny_c: c = (2/0.3 + 2/0.36 + 3/0.4) / (4/0.09 + 4/0.1296 + 9/0.16) */
    double cc = (2 / 0.30 + 2 / 0.36 + 3 / 0.40) / (4 / 0.09 + 4 / 0.1296 + 9 / 0.16);
    CHECK(NEAR(loo.per_model[2][SM_PHASE_GRAD].mape, fabs(4 * cc - 0.90) / 0.90));
    sm_loo_free(&loo);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_fit_loo OUTDIR\n");
        return 2;
    }
    sm_registry *reg;
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    sm_runs *runs = load(reg, argv[1]);
    CHECK(runs != NULL);
    if (runs) {
        test_unweighted(runs);
        test_relative(runs);
        sm_runs_free(runs);
    }
    sm_registry_free(reg);
    return check_summary();
}
