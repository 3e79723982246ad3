/* The fit recovers coefficients chosen here from synthetic measurements of the tiny networks of
 * tests/data/fit/: exactly from exact times, closely from noisy ones; the coefficient file
 * round-trips; the predictor answers with the chosen equations.
 *
 * Usage: test_fit OUTDIR (where the synthetic CSV and coefficient files are written). */
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
/* (nodes, gpus_per_node) of the runs; the first is one device */
static const int layouts[][2] = {{1, 1}, {2, 1}, {2, 2}, {4, 2}};

/* Chosen coefficients: seconds per FLOP, per conv input/output element, intercept. */
static const double c_infer[4] = {2e-10, 3e-9, 5e-9, 1e-4};
static const double c_fwd[4] = {2.5e-10, 4e-9, 8e-9, 2e-4};
static const double c_bwd[4] = {5e-10, 6e-9, 2e-9, 3e-4};
/* grad: per layer, per weight (N > 1), per device (N > 1) */
static const double c_grad[3] = {2e-5, 1e-7, 1e-5};
/* with --weight-term and --update-term: per weight and pass (infer, fwd, bwd), per weight update */
static const double c_pass_w[3] = {2e-8, 3e-8, 5e-8};
static const double c_update = 4e-8;
/* hierarchical ring: per layer, per byte inside a node, per byte between nodes, per ring step
 * inside a node, per ring step between nodes */
static const double c_ring[5] = {2e-5, 1e-8, 4e-8, 3e-6, 1e-5};

static sm_registry *reg;

/* Hand-checked metrics of tiny_a at 8x8 (conv1 5x5: 3x8x8 in, 4x8x8 out; fc 4 -> 2). */
static void test_tiny_metrics(void)
{
    sm_network *net;
    sm_network_options opt = {.image = 8};
    sm_status st;
    sm_metrics m;
    CHECK(sm_network_load(reg, nets[0], &opt, &net, &st) == 0);
    CHECK(sm_network_metrics(net, 1, &m, &st) == 0);
    CHECK_EQ(m.inputs, 3 * 8 * 8);
    CHECK_EQ(m.outputs, 4 * 8 * 8);
    CHECK_EQ(m.weights, 4 * 3 * 5 * 5 + 4 * 2 + 2);
    CHECK_EQ(m.layers, 2);
    sm_network_free(net);
}

static double fwd_eq(const double c[4], const sm_metrics *m, int b)
{
    return b * (c[0] * (double)m->flops + c[1] * (double)m->inputs + c[2] * (double)m->outputs) +
           c[3];
}

static double grad_linear(const sm_metrics *m, int n)
{
    double t = c_grad[0] * (double)m->layers;
    return n > 1 ? t + c_grad[1] * (double)m->weights + c_grad[2] * n : t;
}

/* N nodes of G devices: reduce-scatter in the node, ring across nodes on 1/G, all-gather */
static double grad_ring(const sm_metrics *m, int nodes, int g)
{
    double bytes = 4.0 * (double)m->weights, k = ceil(bytes / (25.0 * 1024 * 1024));
    return c_ring[0] * (double)m->layers + c_ring[1] * 2.0 * (g - 1) / g * bytes +
           c_ring[2] * 2.0 * (nodes - 1) / nodes * bytes / g + c_ring[3] * 2.0 * (g - 1) * k +
           c_ring[4] * 2.0 * (nodes - 1) * k;
}

/* Fixed-seed multiplicative noise, uniform in [1 - amp, 1 + amp]. */
#ifndef NOISE_SEED
#define NOISE_SEED 42u
#endif
static unsigned noise_seed;
static double noise(double amp)
{
    noise_seed = noise_seed * 1103515245u + 12345u;
    double u = (double)(noise_seed >> 8 & 0xffffff) / 16777216.0;
    return 1.0 + amp * (2 * u - 1);
}

/* Writes the synthetic CSV: every network x image x batch x layout (fwd/bwd/infer times do not
 * depend on the layout: b is per device). ring selects the gradient form; wterms adds the weight
 * terms of the passes and of the update. */
static int write_csv_terms(const char *path, int ring, int multi, double amp, int wterms)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    noise_seed = NOISE_SEED;
    fprintf(f, "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,note\n");
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 3; s++) {
            sm_metrics m;
            if (network_metrics(reg, nets[k], images[s], &m))
                return fclose(f), -1;
            for (int b = 0; b < 4; b++)
                for (int l = 0; l < (multi ? 4 : 1); l++) {
                    int n = layouts[l][0] * layouts[l][1];
                    double W = wterms ? (double)m.weights : 0.0;
                    double ti = (fwd_eq(c_infer, &m, batches[b]) + c_pass_w[0] * W) * noise(amp);
                    double tf = (fwd_eq(c_fwd, &m, batches[b]) + c_pass_w[1] * W) * noise(amp);
                    double tb = (fwd_eq(c_bwd, &m, batches[b]) + c_pass_w[2] * W) * noise(amp);
                    double tg =
                        (ring ? grad_ring(&m, layouts[l][0], layouts[l][1]) : grad_linear(&m, n)) +
                        c_update * W;
                    tg *= noise(amp);
                    /* t_step left empty: the step target is then the sum of the parts */
                    fprintf(f, "%s,%d,%d,%d,%d,%.17g,%.17g,%.17g,%.17g,,\"an, ignored\"\n", nets[k],
                            images[s], batches[b], layouts[l][0], layouts[l][1], ti, tf, tb, tg);
                }
        }
    return fclose(f);
}

static int write_csv(const char *path, int ring, int multi, double amp)
{
    return write_csv_terms(path, ring, multi, amp, 0);
}

static void test_exact(const char *dir)
{
    char csv[4096];
    snprintf(csv, sizeof csv, "%s/fit_exact.csv", dir);
    CHECK(write_csv(csv, 0, 1, 0.0) == 0);
    sm_runs *runs = runs_with_metrics(reg, csv);
    CHECK(runs != NULL);
    if (!runs)
        return;
    CHECK_EQ(runs->n, 3 * 3 * 4 * 4);
    /* every weighting and constraint recovers exact data exactly */
    for (int variant = 0; variant < 4; variant++) {
        sm_fit_options opt;
        sm_fit_options_default(&opt);
        opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
        opt.contention = 0;           /* ... where no pass slows with G */
        opt.grad_form = SM_GRAD_LINEAR;
        opt.relative = variant & 1;
        opt.nonneg = variant >> 1 & 1;
        sm_fit fit;
        sm_status st;
        CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
        CHECK(fit.multi_device);
        CHECK_EQ(fit.devices_max, 8);
        CHECK_EQ(fit.batch_max, 8);
        check_coeffs(&fit.phase[SM_PHASE_INFER], c_infer, 4, 1e-7);
        check_coeffs(&fit.phase[SM_PHASE_FWD], c_fwd, 4, 1e-7);
        check_coeffs(&fit.phase[SM_PHASE_BWD], c_bwd, 4, 1e-7);
        check_coeffs(&fit.phase[SM_PHASE_GRAD], c_grad, 3, 1e-7);
        /* backward and gradient together: the bwd coefficients followed by the grad ones */
        double both[7] = {c_bwd[0], c_bwd[1], c_bwd[2], c_bwd[3], c_grad[0], c_grad[1], c_grad[2]};
        check_coeffs(&fit.phase[SM_PHASE_BWD_GRAD], both, 7, 1e-6);
        CHECK(fit.phase[SM_PHASE_FWD].stats.mape < 1e-9);
        CHECK(fit.phase[SM_PHASE_GRAD].stats.r2 > 1 - 1e-12);
    }
    sm_runs_free(runs);
}

static void test_ring(const char *dir)
{
    char csv[4096];
    snprintf(csv, sizeof csv, "%s/fit_ring.csv", dir);
    CHECK(write_csv(csv, 1, 1, 0.0) == 0);
    sm_runs *runs = runs_with_metrics(reg, csv);
    if (!runs)
        return;
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
    opt.contention = 0;           /* ... where no pass slows with G */
    opt.grad_form = SM_GRAD_RING;
    sm_fit fit;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    /* layouts (1,1) (2,1) (2,2) (4,2): both levels seen, all four communication terms */
    CHECK(fit.multi_gpu && fit.multi_node && !fit.flat_ring);
    check_coeffs(&fit.phase[SM_PHASE_GRAD], c_ring, 5, 1e-7);
    char name[32];
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_GRAD, 1, name, sizeof name), "c2_intra_bytes");
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_GRAD, 4, name, sizeof name), "c5_inter_steps");
    /* the linear form cannot express these times exactly */
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
    opt.contention = 0;           /* ... where no pass slows with G */
    opt.grad_form = SM_GRAD_LINEAR;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(fit.phase[SM_PHASE_GRAD].stats.mape > 1e-3);
    sm_runs_free(runs);
}

/* The weight terms: W once per pass and per update; in bwd_grad the two are one term, their
 * coefficients added. */
static void test_weight_terms(const char *dir)
{
    char csv[4096];
    snprintf(csv, sizeof csv, "%s/fit_weights.csv", dir);
    CHECK(write_csv_terms(csv, 0, 1, 0.0, 1) == 0);
    sm_runs *runs = runs_with_metrics(reg, csv);
    if (!runs)
        return;
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
    opt.contention = 0;           /* ... where no pass slows with G */
    opt.grad_form = SM_GRAD_LINEAR;
    opt.weight_term = opt.update_term = 1;
    sm_fit fit;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    double infer[5] = {c_infer[0], c_infer[1], c_infer[2], c_infer[3], c_pass_w[0]};
    double bwd[5] = {c_bwd[0], c_bwd[1], c_bwd[2], c_bwd[3], c_pass_w[2]};
    double grad[4] = {c_grad[0], c_update, c_grad[1], c_grad[2]};
    double both[8] = {c_bwd[0],  c_bwd[1],  c_bwd[2], c_bwd[3], c_pass_w[2] + c_update,
                      c_grad[0], c_grad[1], c_grad[2]};
    check_coeffs(&fit.phase[SM_PHASE_INFER], infer, 5, 1e-7);
    check_coeffs(&fit.phase[SM_PHASE_BWD], bwd, 5, 1e-7);
    check_coeffs(&fit.phase[SM_PHASE_GRAD], grad, 4, 1e-7);
    check_coeffs(&fit.phase[SM_PHASE_BWD_GRAD], both, 8, 1e-6);
    char name[32];
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_FWD, 4, name, sizeof name), "c5_pass_weights");
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_GRAD, 1, name, sizeof name), "c2_update");
    /* without the options the same times cannot be fitted exactly */
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
    opt.contention = 0;           /* ... where no pass slows with G */
    opt.grad_form = SM_GRAD_LINEAR;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(fit.phase[SM_PHASE_INFER].stats.mape > 1e-3);
    sm_runs_free(runs);
}

/* 1% noise: coefficients within 5%, 8% fitted together (the largest errors over noise seeds 1
 * to 20 were 3.2% and 6.2%), the fit's MAPE about the noise's mean (0.5%). */
static void test_noisy(const char *dir)
{
    char csv[4096];
    snprintf(csv, sizeof csv, "%s/fit_noisy.csv", dir);
    CHECK(write_csv(csv, 0, 1, 0.01) == 0);
    sm_runs *runs = runs_with_metrics(reg, csv);
    if (!runs)
        return;
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
    opt.contention = 0;           /* ... where no pass slows with G */
    opt.grad_form = SM_GRAD_LINEAR;
    sm_fit fit;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    check_coeffs(&fit.phase[SM_PHASE_INFER], c_infer, 4, 0.05);
    check_coeffs(&fit.phase[SM_PHASE_FWD], c_fwd, 4, 0.05);
    check_coeffs(&fit.phase[SM_PHASE_BWD], c_bwd, 4, 0.05);
    check_coeffs(&fit.phase[SM_PHASE_GRAD], c_grad, 3, 0.05);
    double both[7] = {c_bwd[0], c_bwd[1], c_bwd[2], c_bwd[3], c_grad[0], c_grad[1], c_grad[2]};
    check_coeffs(&fit.phase[SM_PHASE_BWD_GRAD], both, 7, 0.08);
    for (int ph = 0; ph < SM_N_FIT_PHASES; ph++) {
        CHECK(fit.phase[ph].stats.mape > 0.002);
        CHECK(fit.phase[ph].stats.mape < 0.008);
    }
    sm_runs_free(runs);
}

/* Single-device rows: grad is c1 L alone; the file round-trips; the predictor gives the chosen
 * equations and warns about several devices. */
static void test_file_and_predictor(const char *dir)
{
    char csv[4096], ini[4096];
    snprintf(csv, sizeof csv, "%s/fit_single.csv", dir);
    snprintf(ini, sizeof ini, "%s/fit_single.ini", dir);
    CHECK(write_csv(csv, 0, 0, 0.0) == 0);
    sm_runs *runs = runs_with_metrics(reg, csv);
    if (!runs)
        return;
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
    opt.contention = 0;           /* ... where no pass slows with G */
    opt.grad_form = SM_GRAD_LINEAR;
    sm_fit fit, back;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(!fit.multi_device);
    check_coeffs(&fit.phase[SM_PHASE_GRAD], c_grad, 1, 1e-9);
    CHECK_EQ(fit.phase[SM_PHASE_BWD_GRAD].n_coeffs, 5);
    sm_fit_meta meta = {"test device", "2026-01-01", "synthetic", "0"}, meta_back;
    CHECK(sm_fit_write(&fit, &meta, ini, &st) == 0);
    CHECK(sm_fit_read(ini, &back, &meta_back, &st) == 0);
    CHECK_CONTAINS(meta_back.device, "test device");
    for (int ph = 0; ph < SM_N_FIT_PHASES; ph++) {
        CHECK_EQ(back.phase[ph].n_coeffs, fit.phase[ph].n_coeffs);
        for (int k = 0; k < fit.phase[ph].n_coeffs; k++)
            CHECK(back.phase[ph].c[k] == fit.phase[ph].c[k]); /* %.17g is exact */
        CHECK_EQ(back.phase[ph].stats.n, fit.phase[ph].stats.n);
    }
    sm_runs_free(runs);

    sm_predictor *p;
    CHECK(sm_predictor_from_coeffs(ini, &p, &st) == 0);
    CHECK_CONTAINS(sm_predictor_describe(p), "test device");
    sm_network *net;
    sm_network_options nopt = {.image = 16};
    CHECK(sm_network_load(reg, nets[1], &nopt, &net, &st) == 0);
    sm_metrics m;
    CHECK(sm_network_metrics(net, 1, &m, &st) == 0);
    sm_layout l = {4, 1, 1, 1};
    sm_prediction t;
    CHECK(sm_predict(p, net, &l, &t, &st) == 0);
    CHECK(NEAR(t.t_infer, fwd_eq(c_infer, &m, 4), 1e-7));
    CHECK(NEAR(t.t_fwd, fwd_eq(c_fwd, &m, 4), 1e-7));
    CHECK(NEAR(t.t_bwd, fwd_eq(c_bwd, &m, 4), 1e-7));
    CHECK(NEAR(t.t_grad, c_grad[0] * 3, 1e-7)); /* tiny_b: L = 3 */
    CHECK(NEAR(t.t_step, t.t_fwd + t.t_bwd + t.t_grad, 1e-12));
    /* blocks: the forward equation on each block, the intercept shared by FLOPs; they add up */
    double sum = 0, all[16];
    CHECK(net->n_blocks <= 16 && sm_predict_blocks(p, net, &l, all, &st) == 0);
    for (int b = 0; b < net->n_blocks; b++) {
        double tb;
        sm_metrics bm;
        CHECK(sm_predict_block(p, net, b, &l, &tb, &st) == 0);
        CHECK(all[b] == tb); /* every block at once: the same number */
        CHECK(sm_block_metrics(net, b, 1, &bm, &st) == 0);
        double expect = 4 * (c_fwd[0] * (double)bm.flops + c_fwd[1] * (double)bm.inputs +
                             c_fwd[2] * (double)bm.outputs) +
                        c_fwd[3] * (double)bm.flops / (double)m.flops;
        CHECK(NEAR(tb, expect, 1e-7));
        sum += tb;
    }
    CHECK(NEAR(sum, t.t_fwd, 1e-9));
    char warn[512];
    CHECK(sm_predictor_warning(p, &l, warn, sizeof warn) == 0);
    sm_layout many = {4, 2, 4, 1};
    CHECK(sm_predictor_warning(p, &many, warn, sizeof warn) == 1);
    CHECK_CONTAINS(warn, "single-device runs only");
    sm_layout big = {64, 1, 1, 1};
    CHECK(sm_predictor_warning(p, &big, warn, sizeof warn) == 1);
    CHECK_CONTAINS(warn, "a batch beyond the calibrated range (1 to 8)");
    sm_network_free(net);
    sm_predictor_free(p);
}

/* The dispatch form (the default): a cost per kernel K in every pass, and an update of a cost
 * per parameter tensor P, per weight and a constant; written as tf32 runs. */
static const double c_kernel[3] = {3e-5, 4e-5, 6e-5};   /* infer, fwd, bwd: seconds per kernel */
static const double c_update_p[3] = {5e-6, 2e-9, 1e-4}; /* per tensor, per weight, constant */

static int write_dispatch_csv(const char *path, int n_nets)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,"
               "precision\n");
    for (int k = 0; k < n_nets; k++)
        for (int s = 0; s < 3; s++) {
            sm_metrics m;
            if (network_metrics(reg, nets[k], images[s], &m))
                return fclose(f), -1;
            double K = (double)m.kernels;
            double tg = c_update_p[0] * (double)m.param_tensors +
                        c_update_p[1] * (double)m.weights + c_update_p[2];
            for (int b = 0; b < 4; b++)
                fprintf(f, "%s,%d,%d,1,1,%.17g,%.17g,%.17g,%.17g,,tf32\n", nets[k], images[s],
                        batches[b], fwd_eq(c_infer, &m, batches[b]) + c_kernel[0] * K,
                        fwd_eq(c_fwd, &m, batches[b]) + c_kernel[1] * K,
                        fwd_eq(c_bwd, &m, batches[b]) + c_kernel[2] * K, tg);
        }
    return fclose(f);
}

static void test_dispatch_form(const char *dir)
{
    char csv[4096], ini[4096];
    snprintf(csv, sizeof csv, "%s/fit_dispatch.csv", dir);
    snprintf(ini, sizeof ini, "%s/fit_dispatch.ini", dir);
    CHECK(write_dispatch_csv(csv, 3) == 0);
    sm_runs *runs = runs_with_metrics(reg, csv);
    if (!runs)
        return;
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    CHECK(opt.form == SM_FORM_DISPATCH);
    sm_fit fit, back;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK_CONTAINS(fit.precision, "tf32");
    double infer[5] = {c_infer[0], c_infer[1], c_infer[2], c_infer[3], c_kernel[0]};
    double bwd[5] = {c_bwd[0], c_bwd[1], c_bwd[2], c_bwd[3], c_kernel[2]};
    check_coeffs(&fit.phase[SM_PHASE_INFER], infer, 5, 1e-6);
    check_coeffs(&fit.phase[SM_PHASE_BWD], bwd, 5, 1e-6);
    check_coeffs(&fit.phase[SM_PHASE_GRAD], c_update_p, 3, 1e-6);
    CHECK_EQ(fit.phase[SM_PHASE_GRAD].dropped, 0);
    char name[32];
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_FWD, 4, name, sizeof name), "c5_kernels");
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_GRAD, 0, name, sizeof name), "c1_param_tensors");
    /* ConvMeter's form cannot express these times */
    opt.form = SM_FORM_CONVMETER;
    sm_fit plain;
    CHECK(sm_fit_runs(runs, NULL, &opt, &plain, &st) == 0);
    CHECK(plain.phase[SM_PHASE_FWD].stats.mape > 1e-3);

    /* the file keeps form and precision; the predictor refuses another precision */
    sm_fit_meta meta = {"test device", "2026-01-01", "synthetic", "0"}, meta_back;
    CHECK(sm_fit_write(&fit, &meta, ini, &st) == 0);
    CHECK(sm_fit_read(ini, &back, &meta_back, &st) == 0);
    CHECK(back.opt.form == SM_FORM_DISPATCH);
    CHECK_CONTAINS(back.precision, "tf32");
    sm_predictor *p;
    CHECK(sm_predictor_from_coeffs(ini, &p, &st) == 0);
    CHECK_CONTAINS(sm_predictor_precision(p), "tf32");
    CHECK(sm_predictor_check_precision(p, "tf32", &st) == 0);
    CHECK(sm_predictor_check_precision(p, NULL, &st) == 0);
    CHECK(sm_predictor_check_precision(p, "bf16", &st) == -1);
    CHECK_CONTAINS(st.msg, "fit --precision bf16");
    sm_predictor_free(p);
    sm_runs_free(runs);

    /* two networks cannot separate the update's constant from its per-tensor and per-weight
     * terms (three unknowns, two values): the fit leaves the constant out and says so */
    CHECK(write_dispatch_csv(csv, 2) == 0);
    runs = runs_with_metrics(reg, csv);
    if (!runs)
        return;
    sm_fit_options_default(&opt);
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(fit.phase[SM_PHASE_GRAD].fitted);
    CHECK_EQ(fit.phase[SM_PHASE_GRAD].dropped, 1u << 2); /* c3_intercept */
    CHECK(fit.phase[SM_PHASE_GRAD].c[2] == 0.0);
    sm_runs_free(runs);
}

/* Devices sharing a node slow each other: passes made with cc log2(G) b F on top of ConvMeter's
 * terms, at G = 1, 2 and 4 devices of one node. The fit recovers cc; the term is left out when
 * every row has one G (it would be a multiple of b F) or when asked; the file keeps it and a
 * prediction at G = 16 is the chosen equation's (log2 16 = 4). */
static const double c_contention = 6e-11;

static int write_contention_csv(const char *path, int one_g)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n");
    static const int gs[] = {1, 2, 4};
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 3; s++) {
            sm_metrics m;
            if (network_metrics(reg, nets[k], images[s], &m))
                return fclose(f), -1;
            for (int b = 0; b < 4; b++)
                for (int l = 0; l < 3; l++) {
                    int g = one_g ? 2 : gs[l];
                    double slow = c_contention * log2(g) * batches[b] * (double)m.flops;
                    fprintf(f, "%s,%d,%d,1,%d,%.17g,%.17g,%.17g,,\n", nets[k], images[s],
                            batches[b], g, fwd_eq(c_infer, &m, batches[b]) + slow,
                            fwd_eq(c_fwd, &m, batches[b]) + slow,
                            fwd_eq(c_bwd, &m, batches[b]) + slow);
                }
        }
    return fclose(f);
}

static void test_contention(const char *dir)
{
    char csv[4096], ini[4096];
    snprintf(csv, sizeof csv, "%s/fit_contention.csv", dir);
    snprintf(ini, sizeof ini, "%s/fit_contention.ini", dir);
    CHECK(write_contention_csv(csv, 0) == 0);
    sm_runs *runs = runs_with_metrics(reg, csv);
    if (!runs)
        return;
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER; /* the equations these times were made with */
    sm_fit fit, back;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(fit.contention);
    double fwd[5] = {c_fwd[0], c_fwd[1], c_fwd[2], c_fwd[3], c_contention};
    double bwd[5] = {c_bwd[0], c_bwd[1], c_bwd[2], c_bwd[3], c_contention};
    check_coeffs(&fit.phase[SM_PHASE_FWD], fwd, 5, 1e-7);
    check_coeffs(&fit.phase[SM_PHASE_BWD], bwd, 5, 1e-7);
    char name[32];
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_INFER, 4, name, sizeof name), "c5_contention");
    CHECK_CONTAINS(sm_fit_term_formula(&fit, SM_PHASE_INFER, 4), "log2(G)*b*F");

    sm_fit_meta meta = {"test device", "2026-01-01", "synthetic", "0"}, meta_back;
    CHECK(sm_fit_write(&fit, &meta, ini, &st) == 0);
    CHECK(sm_fit_read(ini, &back, &meta_back, &st) == 0);
    CHECK(back.contention);
    check_coeffs(&back.phase[SM_PHASE_FWD], fwd, 5, 1e-12);
    sm_metrics m;
    CHECK(network_metrics(reg, nets[1], 16, &m) == 0);
    const sm_layout sixteen = {8, 1, 16, 1};
    double want = fwd_eq(c_fwd, &m, 8) + c_contention * 4.0 * 8 * (double)m.flops;
    CHECK(NEAR(sm_fit_eval(&back, SM_PHASE_FWD, &m, &sixteen), want, 1e-6));

    opt.contention = 0; /* asked to leave it out: these times cannot be fitted exactly */
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(!fit.contention);
    CHECK_EQ(fit.phase[SM_PHASE_FWD].n_coeffs, 4);
    CHECK(fit.phase[SM_PHASE_FWD].stats.mape > 1e-3);
    sm_runs_free(runs);

    CHECK(write_contention_csv(csv, 1) == 0); /* every row at G = 2 */
    runs = runs_with_metrics(reg, csv);
    if (!runs)
        return;
    sm_fit_options_default(&opt);
    opt.form = SM_FORM_CONVMETER;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(!fit.contention);
    CHECK_EQ(fit.phase[SM_PHASE_FWD].n_coeffs, 4);
    sm_runs_free(runs);
}

/* The default weight term is chosen by held-out networks: in for times made with a weight read
 * per pass, out for times made without one (where it can only fit noise), with the MAPEs it
 * compared; too few networks to hold one out: out, NAN. */
static void test_choose_weight_term(const char *dir)
{
    char csv[4096];
    snprintf(csv, sizeof csv, "%s/fit_choose.csv", dir);
    for (int made_with = 0; made_with <= 1; made_with++) {
        CHECK(write_csv_terms(csv, 0, 1, 0.01, made_with) == 0);
        sm_runs *runs = runs_with_metrics(reg, csv);
        if (!runs)
            return;
        sm_fit_options opt;
        sm_fit_options_default(&opt);
        opt.form = SM_FORM_CONVMETER;
        opt.grad_form = SM_GRAD_LINEAR;
        opt.update_term = made_with;
        opt.weight_term = !made_with; /* the chooser sets it either way */
        double mape[2];
        sm_status st;
        CHECK(sm_fit_choose_weight_term(runs, &opt, mape, NULL, &st) == 0);
        CHECK_EQ(opt.weight_term, made_with);
        CHECK(isfinite(mape[0]) && isfinite(mape[1]));
        if (made_with)
            CHECK(mape[1] < mape[0] - SM_WEIGHT_TERM_GAIN);
        else
            CHECK(mape[1] > mape[0] - SM_WEIGHT_TERM_GAIN);
        /* the validation of the form chosen comes back: what sm_fit_loo gives for that form */
        sm_loo chosen, direct;
        opt.weight_term = !made_with;
        CHECK(sm_fit_choose_weight_term(runs, &opt, mape, &chosen, &st) == 0);
        CHECK(sm_fit_loo(runs, &opt, &direct, &st) == 0);
        CHECK_EQ(chosen.n_models, 3);
        CHECK_EQ(sm_runs_models(runs), 3);
        CHECK(chosen.overall[SM_PHASE_STEP].mape == mape[made_with]);
        CHECK(chosen.overall[SM_PHASE_STEP].mape == direct.overall[SM_PHASE_STEP].mape);
        CHECK(chosen.overall[SM_PHASE_GRAD].rmse == direct.overall[SM_PHASE_GRAD].rmse);
        sm_loo_free(&chosen);
        sm_loo_free(&direct);
        sm_runs_free(runs);
    }
    /* two networks: nothing to choose by */
    FILE *f = fopen(csv, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f,
            "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n"
            "%s,8,1,1,1,1e-3,,,,\n%s,8,2,1,1,2e-3,,,,\n%s,8,1,1,1,3e-3,,,,\n",
            nets[0], nets[0], nets[1]);
    fclose(f);
    sm_runs *runs = runs_with_metrics(reg, csv);
    if (!runs)
        return;
    sm_fit_options opt;
    sm_fit_options_default(&opt);
    opt.weight_term = 1;
    double mape[2];
    sm_status st;
    CHECK_EQ(sm_runs_models(runs), 2);
    sm_loo none;
    CHECK(sm_fit_choose_weight_term(runs, &opt, mape, &none, &st) == 0);
    CHECK_EQ(opt.weight_term, 0);
    CHECK(isnan(mape[0]) && isnan(mape[1]));
    CHECK_EQ(none.n_models, 0);
    sm_loo_free(&none);
    sm_runs_free(runs);
}

/* The machine a CSV's rows name in their device column, as `fit` records it by default. */
static void test_device_column(const char *dir)
{
    static const struct {
        const char *devices[3]; /* the three rows' device fields; NULL: no device column */
        const char *machine;
    } cases[] = {
        {{"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"},
         "NVIDIA H100 80GB HBM3"},
        {{"NVIDIA H100 80GB HBM3", "", "NVIDIA H100 80GB HBM3"}, "NVIDIA H100 80GB HBM3"},
        {{"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"}, ""},
        {{"cuda", "cuda", "cuda"}, ""}, /* measure.py's backend words name no machine */
        {{"cuda:1", "cuda:1", "cuda:1"}, ""},
        {{"", "", ""}, ""},
        {{NULL, NULL, NULL}, ""},
    };
    char path[4096];
    snprintf(path, sizeof path, "%s/device_column.csv", dir);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (!f)
            return;
        int with = cases[c].devices[0] != NULL;
        fprintf(f, "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step%s\n",
                with ? ",device" : "");
        for (int i = 0; i < 3; i++)
            fprintf(f, "%s,8,%d,1,1,0.1,0.1,0.2,0.01,0.31%s%s\n", nets[i], 1 << i, with ? "," : "",
                    with ? cases[c].devices[i] : "");
        fclose(f);
        sm_runs *runs;
        sm_status st;
        CHECK_EQ(sm_runs_read(path, &runs, &st), 0);
        CHECK_EQ(strcmp(runs->device, cases[c].machine), 0);
        sm_runs_free(runs);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_fit OUTDIR\n");
        return 2;
    }
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_tiny_metrics();
    test_exact(argv[1]);
    test_ring(argv[1]);
    test_weight_terms(argv[1]);
    test_noisy(argv[1]);
    test_file_and_predictor(argv[1]);
    test_dispatch_form(argv[1]);
    test_contention(argv[1]);
    test_choose_weight_term(argv[1]);
    test_device_column(argv[1]);
    sm_registry_free(reg);
    return check_summary();
}
