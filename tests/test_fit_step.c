/* The step of several devices (core/src/fit/runs_csv.c, core/src/fit/fit.c):
 *
 * - bench's phase columns are each the slowest device's time in that phase, so on several
 *   devices t_grad also holds the wait of the devices that finished their backward pass first
 *   for the last one; the step holds that wait once, the sum of the columns twice. The gradient
 *   phase is fitted to, and validated against, what the step spends beyond its passes:
 *   t_step - t_fwd - t_bwd (bwd_grad: t_step - t_fwd), the column itself where t_step is empty.
 * - CPU ranks copy their all-reduce through the memory system their passes share, so where every
 *   row of several devices per node is a CPU rank (backend cpu) the intra-node bytes carry the
 *   passes' log2(G) contention: log2(G) 2(G-1)/G 4W in place of 2(G-1)/G 4W. GPUs keep the plain
 *   term (each copies over links of its own).
 *
 * Checked: the targets of hand-made rows; chosen coefficients recovered exactly from synthetic
 * runs whose t_grad column holds such a wait, with the shared term for CPU ranks and not for GPU
 * ones; the coefficient file round trip and a prediction at 16 ranks worked out by hand.
 *
 * Usage: test_fit_step OUTDIR (where the synthetic CSVs and coefficient files are written). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fit_tests.h"
#include "scalemeter/fit.h"

static const char *const nets[] = {"tests/data/fit/tiny_a.ini", "tests/data/fit/tiny_b.ini",
                                   "tests/data/fit/tiny_c.ini"};
static const int images[] = {8, 16, 24};
static const int batches[] = {1, 2, 4};
static const int ranks[] = {1, 2, 4}; /* devices of one node */

/* The tiny networks' gradients are 4W = 1240, 440 and 2216 bytes; buckets of 1 KiB make
 * k = 2, 1 and 3, so that bytes and steps are not proportional across networks. */
#define BUCKET 1024.0

/* Chosen, ConvMeter's form: per FLOP, conv input, conv output element, intercept, contention
 * (per log2(G) FLOP); grad: per layer, per byte inside the node (shared), per ring step. */
static const double c_pass[5] = {5e-10, 6e-9, 2e-9, 3e-4, 1e-10};
static const double c_grad[3] = {2e-5, 4e-8, 3e-6};
/* the wait for the slowest rank that each t_grad column holds at G > 1, as a share of the
 * passes: in no fitted quantity */
#define WAIT 0.3

static sm_registry *reg;

static double pass_eq(const sm_metrics *m, int b, int g)
{
    return b * (c_pass[0] * (double)m->flops + c_pass[1] * (double)m->inputs +
                c_pass[2] * (double)m->outputs) +
           c_pass[3] + c_pass[4] * log2(g) * b * (double)m->flops;
}

/* The gradient all-reduce of CPU ranks, written out independently of fit.c. */
static double grad_eq(const sm_metrics *m, int g)
{
    double bytes = 4.0 * (double)m->weights, k = ceil(bytes / BUCKET);
    return c_grad[0] * (double)m->layers + c_grad[1] * log2(g) * 2.0 * (g - 1) / g * bytes +
           c_grad[2] * 2.0 * (g - 1) * k;
}

static sm_runs *write_and_load(const char *dir, const char *backend)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fit_step_%s.csv", dir, backend);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fprintf(f, "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,"
               "backend\n");
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 3; s++) {
            sm_metrics m;
            if (network_metrics(reg, nets[k], images[s], &m))
                return fclose(f), NULL;
            for (int b = 0; b < 3; b++)
                for (int r = 0; r < 3; r++) {
                    int g = ranks[r];
                    double t = pass_eq(&m, batches[b], g), grad = grad_eq(&m, g);
                    double column = grad + (g > 1 ? WAIT * 2 * t : 0);
                    fprintf(f, "%s,%d,%d,1,%d,,%.17g,%.17g,%.17g,%.17g,%s\n", nets[k], images[s],
                            batches[b], g, t, t, column, 2 * t + grad, backend);
                }
        }
    fclose(f);
    return runs_with_metrics(reg, path);
}

static void options(sm_fit_options *opt)
{
    sm_fit_options_default(opt);
    opt->form = SM_FORM_CONVMETER;
    opt->bucket_bytes = BUCKET;
}

/* Rows made by hand: one device, four devices, a step shorter than its passes, no step. */
static void test_targets(void)
{
    sm_run one = {
        .nodes = 1, .gpus_per_node = 1, .t_fwd = 0.1, .t_bwd = 0.2, .t_grad = 0.05, .t_step = 0.34};
    CHECK_NEAR(sm_run_target(&one, SM_PHASE_GRAD), 0.05, 1e-12);
    CHECK_NEAR(sm_run_target(&one, SM_PHASE_BWD_GRAD), 0.25, 1e-12);
    CHECK_NEAR(sm_run_target(&one, SM_PHASE_STEP), 0.34, 1e-12);
    /* t_grad 0.15 holds 0.09 of waiting: the step spends 0.06 beyond 0.1 + 0.2 */
    sm_run four = {
        .nodes = 1, .gpus_per_node = 4, .t_fwd = 0.1, .t_bwd = 0.2, .t_grad = 0.15, .t_step = 0.36};
    CHECK_NEAR(sm_run_target(&four, SM_PHASE_GRAD), 0.06, 1e-12);
    CHECK_NEAR(sm_run_target(&four, SM_PHASE_BWD_GRAD), 0.26, 1e-12);
    CHECK_NEAR(sm_run_target(&four, SM_PHASE_STEP), 0.36, 1e-12);
    CHECK_NEAR(sm_run_target(&four, SM_PHASE_BWD), 0.2, 1e-12);
    sm_run nodes = four; /* 2 nodes of 2: devices, not devices per node, decide */
    nodes.nodes = nodes.gpus_per_node = 2;
    CHECK_NEAR(sm_run_target(&nodes, SM_PHASE_GRAD), 0.06, 1e-12);
    four.t_step = 0.29; /* shorter than the passes' columns: nothing left to fit */
    CHECK(isnan(sm_run_target(&four, SM_PHASE_GRAD)));
    CHECK_NEAR(sm_run_target(&four, SM_PHASE_BWD_GRAD), 0.19, 1e-12);
    four.t_step = NAN; /* no step: the columns, whose sum is the step */
    CHECK_NEAR(sm_run_target(&four, SM_PHASE_GRAD), 0.15, 1e-12);
    CHECK_NEAR(sm_run_target(&four, SM_PHASE_BWD_GRAD), 0.35, 1e-12);
    four.t_step = 0.36;
    four.t_grad = NAN; /* the phase was not measured */
    CHECK(isnan(sm_run_target(&four, SM_PHASE_GRAD)));
}

static void test_cpu_ranks(const char *dir)
{
    sm_runs *runs = write_and_load(dir, "cpu");
    CHECK(runs != NULL);
    if (!runs)
        return;
    CHECK_EQ(runs->rows[0].backend, SM_BACKEND_CPU);
    sm_fit_options opt;
    options(&opt);
    sm_fit fit, back;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(fit.contention && fit.comm_contention && fit.multi_gpu && !fit.multi_node);
    CHECK_EQ(fit.backend, SM_BACKEND_CPU);
    /* the wait in the t_grad column is not fitted: the chosen coefficients come back exactly */
    CHECK_EQ(fit.phase[SM_PHASE_GRAD].dropped, 0);
    check_coeffs(&fit.phase[SM_PHASE_GRAD], c_grad, 3, 1e-6);
    char name[32];
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_GRAD, 1, name, sizeof name),
                   "c2_intra_bytes_shared");
    CHECK_CONTAINS(sm_fit_term_formula(&fit, SM_PHASE_GRAD, 1), "log2(G)*2(G-1)/G*4W");
    CHECK(fit.phase[SM_PHASE_BWD_GRAD].fitted); /* t_step - t_fwd */

    char ini[4096];
    snprintf(ini, sizeof ini, "%s/fit_step_cpu.ini", dir);
    sm_fit_meta meta = {"test node", "2026-01-01", "synthetic", "0"}, meta_back;
    CHECK(sm_fit_write(&fit, &meta, ini, &st) == 0);
    CHECK(sm_fit_read(ini, &back, &meta_back, &st) == 0);
    CHECK(back.comm_contention);
    CHECK_EQ(back.backend, SM_BACKEND_CPU); /* written as backend = cpu, read back */
    CHECK_EQ(back.phase[SM_PHASE_GRAD].dropped, 0);
    check_coeffs(&back.phase[SM_PHASE_GRAD], c_grad, 3, 1e-12);
    /* 16 ranks of tiny_b (W = 110, 4W = 440 bytes, k = 1, L layers) by hand:
     *   bytes  log2(16) 2 x 15/16 x 440 = 4 x 1.875 x 440 = 3300
     *   steps  2 x 15 x 1 = 30 */
    sm_metrics m;
    CHECK(network_metrics(reg, nets[1], 16, &m) == 0);
    CHECK_EQ(m.weights, 110);
    const sm_layout sixteen = {2, 1, 16, 1};
    double want = c_grad[0] * (double)m.layers + c_grad[1] * 3300 + c_grad[2] * 30;
    CHECK_NEAR(sm_fit_eval(&back, SM_PHASE_GRAD, &m, &sixteen), want, 1e-9);
    /* the step: both passes and the all-reduce, without the wait */
    double step = 2 * pass_eq(&m, 2, 16) + want;
    CHECK_NEAR(sm_fit_eval(&back, SM_PHASE_STEP, &m, &sixteen), step, 1e-6);

    /* --grad-column, the form before: the column, waiting included, and the plain bytes; at
     * 4 ranks the fitted all-reduce then holds much of the wait (0.6 of the passes here) */
    opt.grad_column = 1;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(fit.contention && !fit.comm_contention);
    const sm_layout four = {2, 1, 4, 1};
    double grad4 = c_grad[0] * (double)m.layers + c_grad[1] * 2 * 1.5 * 440 + c_grad[2] * 6;
    CHECK(sm_fit_eval(&fit, SM_PHASE_GRAD, &m, &four) > grad4 + 0.1 * 2 * pass_eq(&m, 2, 4));
    opt.grad_column = 0;

    opt.contention = 0; /* --no-contention: neither the passes' term nor the shared bytes */
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(!fit.contention && !fit.comm_contention);
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_GRAD, 1, name, sizeof name), "c2_intra_bytes");
    sm_runs_free(runs);
}

/* The same times from GPUs: the plain intra-node bytes, which cannot express them exactly. */
static void test_gpu_ranks(const char *dir)
{
    sm_runs *runs = write_and_load(dir, "cuda");
    CHECK(runs != NULL);
    if (!runs)
        return;
    CHECK_EQ(runs->rows[0].backend, SM_BACKEND_GPU);
    sm_fit_options opt;
    options(&opt);
    sm_fit fit;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    CHECK(fit.contention && !fit.comm_contention);
    CHECK_EQ(fit.backend, SM_BACKEND_GPU);
    char name[32];
    CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_GRAD, 1, name, sizeof name), "c2_intra_bytes");
    CHECK(sm_fit_term_name(&fit, SM_PHASE_GRAD, 1, name, sizeof name) &&
          strstr(name, "shared") == NULL);
    CHECK(fit.phase[SM_PHASE_GRAD].stats.mape > 1e-3);
    sm_runs_free(runs);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_fit_step OUTDIR\n");
        return 2;
    }
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_targets();
    test_cpu_ranks(argv[1]);
    test_gpu_ranks(argv[1]);
    sm_registry_free(reg);
    return check_summary();
}
