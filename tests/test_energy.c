/* Energy as a modelled quantity (fit.c, coeffs_file.c, predictor_coeffs.c): from synthetic
 * measurements of the tiny networks of tests/data/fit/, made with the equations and the
 * coefficients chosen here, the fit recovers the energy coefficients once the idle power is
 * taken off; the coefficient file round-trips them; the predictor answers with the chosen
 * equation; the idle power can not exceed what was measured; 0 J reads as not measured.
 *
 * Usage: test_energy OUTDIR (where the synthetic CSV and coefficient files are written). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fit_tests.h"
#include "scalemeter/fit.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol)*fabs(b))

static const char *const nets[] = {"tests/data/fit/tiny_a.ini", "tests/data/fit/tiny_b.ini",
                                   "tests/data/fit/tiny_c.ini"};
static const int images[] = {8, 16, 24};
static const int batches[] = {1, 2, 4, 8};

/* Times (ConvMeter's form, seconds): per FLOP, conv input, conv output, intercept; grad per
 * weight layer. */
static const double c_infer[4] = {2e-10, 3e-9, 5e-9, 1e-4};
static const double c_fwd[4] = {2.5e-10, 4e-9, 8e-9, 2e-4};
static const double c_bwd[4] = {5e-10, 6e-9, 2e-9, 3e-4};
static const double c_grad = 2e-5;
/* Energy of one device beyond the idle power (joules): an inference pass per FLOP, input,
 * output and pass; a training step the same and per weight layer (the terms of bwd_grad in
 * ConvMeter's form with the linear gradient model after multi-device rows: b F, b I, b O, 1,
 * L, W [N>1], N [N>1]; the energy here has none of the last two). */
static const double e_infer[4] = {4e-9, 5e-8, 2e-8, 0.01};
static const double e_step[7] = {1.2e-8, 1e-7, 6e-8, 0.03, 0.002, 0, 0};
#define IDLE_WATTS 60.0

static sm_registry *reg;

static double pass(const double c[4], const sm_metrics *m, int b)
{
    return b * (c[0] * (double)m->flops + c[1] * (double)m->inputs + c[2] * (double)m->outputs) +
           c[3];
}

/* Joules of one device: idle power over the time, plus the work. */
static double infer_joules(const sm_metrics *m, int b)
{
    return IDLE_WATTS * pass(c_infer, m, b) + pass(e_infer, m, b);
}

static double step_time(const sm_metrics *m, int b)
{
    return pass(c_fwd, m, b) + pass(c_bwd, m, b) + c_grad * (double)m->layers;
}

static double step_joules(const sm_metrics *m, int b)
{
    return IDLE_WATTS * step_time(m, b) + pass(e_step, m, b) + e_step[4] * (double)m->layers;
}

/* Every network x image x batch on one device, and the same on 2 nodes x 2 devices with the
 * job's energy 4 times a device's (the fit divides it back); zero_rows rows read 0 J. */
static int write_csv(const char *path, int zero_rows)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,"
               "energy_j,energy_infer_j\n");
    int row = 0;
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 3; s++) {
            sm_metrics m;
            if (network_metrics(reg, nets[k], images[s], &m))
                return fclose(f), -1;
            for (int bi = 0; bi < 4; bi++)
                for (int devices = 1; devices <= 4; devices += 3, row++) {
                    int b = batches[bi], nodes = devices == 4 ? 2 : 1, g = nodes;
                    double zero = row < zero_rows ? 0 : 1;
                    fprintf(f, "%s,%d,%d,%d,%d,%.17g,%.17g,%.17g,%.17g,,%.17g,%.17g\n", nets[k],
                            images[s], b, nodes, g, pass(c_infer, &m, b), pass(c_fwd, &m, b),
                            pass(c_bwd, &m, b), c_grad * (double)m.layers,
                            zero * devices * step_joules(&m, b),
                            zero * devices * infer_joules(&m, b));
                }
        }
    return fclose(f);
}

static void check_energy_coeffs(const sm_phase_fit *pf, const double *c, int n, double tol)
{
    CHECK(pf->fitted);
    CHECK_EQ(pf->n_coeffs, n);
    for (int k = 0; k < n && k < pf->n_coeffs; k++)
        if (c[k] == 0 ? fabs(pf->c[k]) > 1e-12 : !NEAR(pf->c[k], c[k], tol)) {
            fprintf(stderr, "  coefficient %d: %.9g, expected %.9g\n", k + 1, pf->c[k], c[k]);
            CHECK(0);
        }
}

static void options(sm_fit_options *opt, double idle)
{
    sm_fit_options_default(opt);
    opt->form = SM_FORM_CONVMETER; /* the equations the measurements were made with */
    opt->grad_form = SM_GRAD_LINEAR;
    opt->idle_watts = idle;
    opt->contention = 0; /* as made: the passes do not slow with G */
}

static void test_recovery(const char *dir)
{
    char csv[4096], ini[4096];
    snprintf(csv, sizeof csv, "%s/energy_exact.csv", dir);
    snprintf(ini, sizeof ini, "%s/energy_coeffs.ini", dir);
    CHECK(write_csv(csv, 0) == 0);
    sm_runs *runs = runs_with_metrics(reg, csv);
    CHECK(runs != NULL);
    if (!runs)
        return;
    CHECK_EQ(runs->n, 72);
    CHECK_EQ(runs->energy_zero, 0);
    sm_fit_options opt;
    options(&opt, IDLE_WATTS);
    sm_fit fit;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    check_energy_coeffs(&fit.energy[SM_ENERGY_INFER], e_infer, 4, 1e-6);
    check_energy_coeffs(&fit.energy[SM_ENERGY_STEP], e_step, 7, 1e-6);
    CHECK(fit.energy[SM_ENERGY_STEP].stats.mape < 1e-7);
    CHECK_EQ(fit.energy[SM_ENERGY_STEP].stats.n, 72);

    /* the coefficient file keeps them, and the predictor answers with the equations above:
     * tiny_b at 16x16, batch 3 (not a fitted row), 2 nodes of 2 devices */
    sm_fit_meta meta = {"test", "2026-11-23", "energy_exact.csv", "test"};
    CHECK(sm_fit_write(&fit, &meta, ini, &st) == 0);
    sm_fit back;
    sm_fit_meta back_meta;
    CHECK(sm_fit_read(ini, &back, &back_meta, &st) == 0);
    CHECK(back.opt.idle_watts == IDLE_WATTS);
    check_energy_coeffs(&back.energy[SM_ENERGY_STEP], fit.energy[SM_ENERGY_STEP].c, 7, 1e-15);
    check_energy_coeffs(&back.energy[SM_ENERGY_INFER], fit.energy[SM_ENERGY_INFER].c, 4, 1e-15);
    sm_predictor *p;
    CHECK(sm_predictor_from_coeffs(ini, &p, &st) == 0);
    sm_network *net;
    sm_network_options nopt = {.image = 16};
    CHECK(sm_network_load(reg, nets[1], &nopt, &net, &st) == 0);
    sm_metrics m;
    CHECK(network_metrics(reg, nets[1], 16, &m) == 0);
    sm_layout l = {3, 2, 2, 1};
    sm_prediction pr;
    CHECK(sm_predict(p, net, &l, &pr, &st) == 0);
    CHECK(NEAR(pr.e_infer, infer_joules(&m, 3), 1e-6));
    CHECK(NEAR(pr.e_step, step_joules(&m, 3), 1e-6));
    sm_network_free(net);
    sm_predictor_free(p);

    /* an idle power above what a row measured is refused, naming the row */
    options(&opt, 1e5);
    st.msg[0] = '\0';
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == -1);
    CHECK(strstr(st.msg, "energy_exact.csv:2:") && strstr(st.msg, "lower --idle-watts"));

    /* without the idle power the terms take it all: a worse fit, never an error */
    options(&opt, 0);
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(fit.energy[SM_ENERGY_STEP].fitted);
    sm_runs_free(runs);
}

/* A counter that did not advance reads 0 J: those fields are not measurements. */
static void test_zero_energy(const char *dir)
{
    char csv[4096];
    snprintf(csv, sizeof csv, "%s/energy_zero.csv", dir);
    CHECK(write_csv(csv, 10) == 0);
    sm_runs *runs = runs_with_metrics(reg, csv);
    CHECK(runs != NULL);
    if (!runs)
        return;
    CHECK_EQ(runs->energy_zero, 20); /* 10 rows, two energy fields each */
    CHECK(isnan(sm_run_energy(&runs->rows[0], SM_ENERGY_STEP)));
    sm_fit_options opt;
    options(&opt, IDLE_WATTS);
    sm_fit fit;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK_EQ(fit.energy[SM_ENERGY_STEP].stats.n, 62);
    check_energy_coeffs(&fit.energy[SM_ENERGY_STEP], e_step, 7, 1e-6);
    sm_runs_free(runs);
}

/* A CSV without energy columns fits no energy, and the predictor says NAN. */
static void test_no_energy(void)
{
    sm_runs *runs = runs_with_metrics(reg, "tests/data/fit/validate_hand.csv");
    CHECK(runs != NULL);
    if (!runs)
        return;
    CHECK(isnan(runs->rows[0].e_step) && isnan(runs->rows[0].e_infer));
    sm_runs_free(runs);
    sm_predictor *p;
    sm_status st;
    CHECK(sm_predictor_from_coeffs("tests/data/fit/tiny_coeffs.ini", &p, &st) == 0);
    sm_network *net;
    CHECK(sm_network_load(reg, nets[0], NULL, &net, &st) == 0);
    sm_layout l = {2, 1, 1, 1};
    sm_prediction pr;
    CHECK(sm_predict(p, net, &l, &pr, &st) == 0);
    CHECK(isnan(pr.e_step) && isnan(pr.e_infer) && isfinite(pr.t_step));
    sm_network_free(net);
    sm_predictor_free(p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_energy OUTDIR\n");
        return 2;
    }
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_recovery(argv[1]);
    test_zero_energy(argv[1]);
    test_no_energy();
    sm_registry_free(reg);
    return check_summary();
}
