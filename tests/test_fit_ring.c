/* The hierarchical ring form of the gradient term (`scalemeter fit --grad-model ring`,
 * core/src/fit/fit.c): N nodes of G devices, a reduce-scatter inside the node, a ring across the
 * nodes on 1/G of the data, an all-gather inside the node, in k = ceil(4W / bucket) buckets:
 *
 *   T_grad = c1 L [+ cu W] + ci 2(G-1)/G 4W + cn 2(N-1)/N 4W/G + cis 2(G-1) k + cns 2(N-1) k
 *
 * Checked here: the terms of one layout worked out by hand; with 1/bandwidth and latency as its
 * coefficients the form is the analytic model of core/src/device/allreduce_model.c; the fit
 * recovers chosen coefficients exactly from synthetic runs of the tiny networks over several (N, G)
 * layouts, and leaves out the terms of a level its rows never have (G = 1 only, N = 1 only);
 * the coefficient file records that, and the predictor warns when asked about such a level;
 * coefficient files of the flat ring form written before are read as that flat ring.
 *
 * Usage: test_fit_ring OUTDIR (where the synthetic CSV and coefficient files are written). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/src/device/allreduce_model.h"
#include "check.h"
#include "fit_tests.h"
#include "net_file.h"
#include "scalemeter/fit.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol)*fabs(b))

static const char *const nets[] = {"tests/data/fit/tiny_a.ini", "tests/data/fit/tiny_b.ini",
                                   "tests/data/fit/tiny_c.ini"};
static const int images[] = {8, 16, 24};
static const int batches[] = {1, 2, 4};

/* The tiny networks' gradients are 4W = 1240, 440 and 2216 bytes (W = 310, 110, 554); buckets of
 * 1 KiB make k = 2, 1 and 3, so that bytes and steps are not proportional across networks. */
#define BUCKET 1024.0

/* Chosen: backward pass per FLOP, conv input, conv output element, intercept, weight (read once
 * per pass); grad per layer, per weight updated, per byte inside a node, per byte between nodes,
 * per ring step inside a node, per ring step between nodes. */
static const double c_bwd[5] = {5e-10, 6e-9, 2e-9, 3e-4, 5e-8};
static const double c_grad[6] = {2e-5, 4e-8, 1e-8, 4e-8, 3e-6, 1e-5};
enum { G_LAYERS, G_UPDATE, G_INTRA_BYTES, G_INTER_BYTES, G_INTRA_STEPS, G_INTER_STEPS };

static sm_registry *reg;

/* The hierarchical ring form written out, independently of fit.c. */
static double grad_eq(const sm_metrics *m, int nodes, int g)
{
    double W = (double)m->weights, bytes = 4 * W, k = ceil(bytes / BUCKET);
    return c_grad[G_LAYERS] * (double)m->layers + c_grad[G_UPDATE] * W +
           c_grad[G_INTRA_BYTES] * 2.0 * (g - 1) / g * bytes +
           c_grad[G_INTER_BYTES] * 2.0 * (nodes - 1) / nodes * bytes / g +
           c_grad[G_INTRA_STEPS] * 2.0 * (g - 1) * k +
           c_grad[G_INTER_STEPS] * 2.0 * (nodes - 1) * k;
}

static double bwd_eq(const sm_metrics *m, int b)
{
    return b * (c_bwd[0] * (double)m->flops + c_bwd[1] * (double)m->inputs +
                c_bwd[2] * (double)m->outputs) +
           c_bwd[3] + c_bwd[4] * (double)m->weights;
}

/* Synthetic runs, exact: t_bwd and t_grad of every network x image x batch x layout (N, G); the
 * forward passes are not measured. */
static sm_runs *write_and_load(const char *dir, const char *name, const int (*layouts)[2],
                               int n_layouts)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fprintf(f, "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n");
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 3; s++) {
            sm_metrics m;
            if (network_metrics(reg, nets[k], images[s], &m))
                return fclose(f), NULL;
            for (int b = 0; b < 3; b++)
                for (int l = 0; l < n_layouts; l++)
                    fprintf(f, "%s,%d,%d,%d,%d,,,%.17g,%.17g,\n", nets[k], images[s], batches[b],
                            layouts[l][0], layouts[l][1], bwd_eq(&m, batches[b]),
                            grad_eq(&m, layouts[l][0], layouts[l][1]));
        }
    if (fclose(f))
        return NULL;
    return runs_with_metrics(reg, path);
}

static void ring_options(sm_fit_options *opt)
{
    sm_fit_options_default(opt);
    opt->form = SM_FORM_CONVMETER;
    opt->grad_form = SM_GRAD_RING;
    opt->bucket_bytes = BUCKET;
    opt->weight_term = opt->update_term = 1;
    opt->contention = 0; /* these passes do not slow with G: test_fit.c checks that term */
}

static void check_names(const sm_fit *fit, sm_phase ph, const char *const *names, int n)
{
    char name[32];
    for (int k = 0; k < n; k++)
        CHECK_CONTAINS(sm_fit_term_name(fit, ph, k, name, sizeof name), names[k]);
    CHECK(sm_fit_term_name(fit, ph, n, name, sizeof name) == NULL);
}

/* A ring fit as the coefficient file of a fit that saw both levels would hold it. */
static void hierarchical_fit(sm_fit *fit, double bucket_bytes)
{
    memset(fit, 0, sizeof *fit);
    sm_fit_options_default(&fit->opt);
    fit->opt.form = SM_FORM_CONVMETER;
    fit->opt.grad_form = SM_GRAD_RING;
    fit->opt.bucket_bytes = bucket_bytes;
    fit->multi_device = fit->multi_gpu = fit->multi_node = 1;
}

/* ResNet-50's gradient on 4 nodes of 8 GPUs, buckets of 25 MiB, worked out by hand:
 *   W = 25,557,032 weights, 4W = 102,228,128 bytes, L = 107 (ResNet-50's weight layers)
 *   k = ceil(102,228,128 / 26,214,400) = ceil(3.8998) = 4 buckets
 *   intra bytes  2(G-1)/G 4W   = 2 x 7/8 x 102,228,128     = 1.75 x 102,228,128 = 178,899,224
 *   inter bytes  2(N-1)/N 4W/G = 2 x 3/4 x 102,228,128 / 8 = 1.5 x 12,778,516  =  19,167,774
 *   intra steps  2(G-1) k      = 2 x 7 x 4 = 56
 *   inter steps  2(N-1) k      = 2 x 3 x 4 = 24
 * With the h100 description's links as coefficients (1 / 450 GB/s, 1 / 50 GB/s, 3.4 us and
 * 9.6 us per step, configs/devices/h100.ini) and no layer term:
 *   178,899,224 / 450e9 = 397.553831 us      19,167,774 / 50e9 = 383.35548 us
 *   56 x 3.4 us = 190.4 us                   24 x 9.6 us = 230.4 us
 *   total 1201.709311 us, which core/src/device/allreduce_model.c gives too. */
static void test_terms_by_hand(void)
{
    sm_fit fit;
    hierarchical_fit(&fit, 25.0 * 1024 * 1024);
    sm_metrics m = {0};
    m.weights = 25557032;
    m.layers = 107;
    sm_layout l = {64, 4, 8, 1};
    double x[SM_MAX_COEFFS];
    CHECK_EQ(sm_fit_terms(&fit, SM_PHASE_GRAD, &m, &l, x), 5);
    CHECK(x[0] == 107);
    CHECK(x[1] == 178899224.0); /* every step is exact in binary floating point */
    CHECK(x[2] == 19167774.0);
    CHECK(x[3] == 56);
    CHECK(x[4] == 24);
    const char *const names[] = {"c1_layers", "c2_intra_bytes", "c3_inter_bytes", "c4_intra_steps",
                                 "c5_inter_steps"};
    check_names(&fit, SM_PHASE_GRAD, names, 5);
    CHECK_CONTAINS(sm_fit_term_formula(&fit, SM_PHASE_GRAD, 2), "2(N-1)/N*4W/G");

    /* with the update term, W comes second: 25,557,032 */
    fit.opt.update_term = 1;
    CHECK_EQ(sm_fit_terms(&fit, SM_PHASE_GRAD, &m, &l, x), 6);
    CHECK(x[1] == 25557032.0 && x[2] == 178899224.0 && x[5] == 24);
    fit.opt.update_term = 0;

    fit.phase[SM_PHASE_GRAD].fitted = 1;
    fit.phase[SM_PHASE_GRAD].n_coeffs = 5;
    const double links[5] = {0, 1 / 450e9, 1 / 50e9, 3.4e-6, 9.6e-6};
    memcpy(fit.phase[SM_PHASE_GRAD].c, links, sizeof links);
    CHECK_NEAR(sm_fit_eval(&fit, SM_PHASE_GRAD, &m, &l), 1201.709311e-6, 1e-9);
    sm_ring_config a = {102228128.0,
                        25.0 * 1024 * 1024,
                        4,
                        8,
                        {450e9, 3.4e-6},
                        {50e9, 9.6e-6},
                        SM_COLLECTIVE_RING,
                        {0, SM_GPU_UNKNOWN, SM_HOST_OTHER, 0},
                        0,
                        0,
                        0};
    CHECK_NEAR(sm_ring_allreduce_time(&a).total, 1201.709311e-6, 1e-9);

    /* the form is the analytic model on every layout, one node or one device per node too */
    const int layouts[][2] = {{1, 1}, {1, 8}, {4, 1}, {2, 2}, {3, 5}, {64, 8}};
    for (int i = 0; i < 6; i++) {
        sm_layout li = {64, layouts[i][0], layouts[i][1], 1};
        a.nodes = li.nodes;
        a.gpus_per_node = li.gpus_per_node;
        double expect = sm_ring_allreduce_time(&a).total;
        if (expect == 0)
            CHECK(sm_fit_eval(&fit, SM_PHASE_GRAD, &m, &li) == 0);
        else
            CHECK_NEAR(sm_fit_eval(&fit, SM_PHASE_GRAD, &m, &li), expect, 1e-12);
    }
}

/* The flat ring of coefficient files written before (2(D-1)/D 4W and 2(D-1) k over D = N G
 * devices) is the hierarchical form's inter-node ring when G = 1, and differs when G > 1:
 * tiny_a (4W = 1240 bytes, k = 1 with 25 MiB, L = 2) on 2 nodes of 4, c = (1e-5, 1e-10, 1e-5):
 *   flat:          2e-5 + 1e-10 x 2 x 7/8 x 1240 + 1e-5 x 2 x 7 = 2e-5 + 2.17e-7 + 1.4e-4
 *                  = 1.60217e-4
 *   inter only:    2e-5 + 1e-10 x 2 x 1/2 x 1240 / 4 + 1e-5 x 2 x 1 = 4.0031e-5 */
static void test_flat_and_hierarchical(void)
{
    sm_fit flat, hier;
    hierarchical_fit(&hier, 25.0 * 1024 * 1024);
    hier.multi_gpu = 0; /* no intra terms: L, inter bytes, inter steps */
    memset(&flat, 0, sizeof flat);
    sm_fit_options_default(&flat.opt);
    flat.opt.form = SM_FORM_CONVMETER;
    flat.opt.grad_form = SM_GRAD_RING;
    flat.multi_device = flat.flat_ring = 1;
    const double c[3] = {1e-5, 1e-10, 1e-5};
    sm_fit *both[2] = {&flat, &hier};
    for (int i = 0; i < 2; i++) {
        both[i]->phase[SM_PHASE_GRAD].fitted = 1;
        both[i]->phase[SM_PHASE_GRAD].n_coeffs = 3;
        memcpy(both[i]->phase[SM_PHASE_GRAD].c, c, sizeof c);
    }
    const char *const flat_names[] = {"c1_layers", "c2_ring_bytes", "c3_ring_steps"};
    const char *const hier_names[] = {"c1_layers", "c2_inter_bytes", "c3_inter_steps"};
    check_names(&flat, SM_PHASE_GRAD, flat_names, 3);
    check_names(&hier, SM_PHASE_GRAD, hier_names, 3);
    sm_metrics m;
    CHECK(network_metrics(reg, nets[0], 8, &m) == 0);
    CHECK_EQ(m.weights, 310);
    for (int n = 1; n <= 64; n *= 2) {
        sm_layout l = {8, n, 1, 1};
        CHECK_NEAR(sm_fit_eval(&flat, SM_PHASE_GRAD, &m, &l),
                   sm_fit_eval(&hier, SM_PHASE_GRAD, &m, &l), 1e-15);
    }
    sm_layout l = {8, 2, 4, 1};
    CHECK_NEAR(sm_fit_eval(&flat, SM_PHASE_GRAD, &m, &l), 1.60217e-4, 1e-12);
    CHECK_NEAR(sm_fit_eval(&hier, SM_PHASE_GRAD, &m, &l), 4.0031e-5, 1e-12);
}

/* Exact runs on layouts with both levels: every weighting and constraint recovers the chosen
 * coefficients; backward and gradient together have 10 (the pass's and the update's W terms
 * are one, their coefficients added). */
static void test_recovery(const char *dir)
{
    const int layouts[][2] = {{1, 1}, {1, 4}, {2, 1}, {2, 4}, {4, 2}, {4, 4}};
    sm_runs *runs = write_and_load(dir, "fit_ring_levels.csv", layouts, 6);
    CHECK(runs != NULL);
    if (!runs)
        return;
    CHECK_EQ(runs->n, 3 * 3 * 3 * 6);
    const double both[10] = {c_bwd[0],
                             c_bwd[1],
                             c_bwd[2],
                             c_bwd[3],
                             c_bwd[4] + c_grad[G_UPDATE],
                             c_grad[G_LAYERS],
                             c_grad[G_INTRA_BYTES],
                             c_grad[G_INTER_BYTES],
                             c_grad[G_INTRA_STEPS],
                             c_grad[G_INTER_STEPS]};
    for (int variant = 0; variant < 4; variant++) {
        sm_fit_options opt;
        ring_options(&opt);
        opt.relative = variant & 1;
        opt.nonneg = variant >> 1 & 1;
        sm_fit fit;
        sm_status st;
        if (sm_fit_runs(runs, NULL, &opt, &fit, &st)) {
            fprintf(stderr, "%s\n", st.msg);
            CHECK(0);
            continue;
        }
        CHECK(fit.multi_device && fit.multi_gpu && fit.multi_node && !fit.flat_ring);
        CHECK(!fit.phase[SM_PHASE_FWD].fitted);
        check_coeffs(&fit.phase[SM_PHASE_BWD], c_bwd, 5, 1e-7);
        check_coeffs(&fit.phase[SM_PHASE_GRAD], c_grad, 6, 1e-7);
        check_coeffs(&fit.phase[SM_PHASE_BWD_GRAD], both, 10, 1e-6);
        CHECK(fit.phase[SM_PHASE_GRAD].stats.mape < 1e-9);
        const char *const names[] = {"c1_layers",      "c2_update",      "c3_intra_bytes",
                                     "c4_inter_bytes", "c5_intra_steps", "c6_inter_steps"};
        check_names(&fit, SM_PHASE_GRAD, names, 6);
        char name[32];
        CHECK_CONTAINS(sm_fit_term_name(&fit, SM_PHASE_BWD_GRAD, 9, name, sizeof name),
                       "c10_inter_steps");
    }
    sm_runs_free(runs);

    /* as a cluster of 8-GPU nodes is calibrated (and tools/scaling_study.py does): one device,
     * then 1, 2 and 4 whole nodes. Every multi-device row has G = 8, so the intra terms are
     * told apart from each other only because 4W / k differs across the networks (620, 440
     * and 739 bytes per bucket), and from the update only by the single-device rows. */
    const int whole_nodes[][2] = {{1, 1}, {1, 8}, {2, 8}, {4, 8}};
    runs = write_and_load(dir, "fit_ring_nodes.csv", whole_nodes, 4);
    CHECK(runs != NULL);
    if (!runs)
        return;
    sm_fit_options opt;
    ring_options(&opt);
    sm_fit fit;
    sm_status st;
    CHECK(sm_fit_runs(runs, NULL, &opt, &fit, &st) == 0);
    check_coeffs(&fit.phase[SM_PHASE_GRAD], c_grad, 6, 1e-6);
    sm_runs_free(runs);
}

/* Fits a CSV of the layouts, writes the coefficient file and reads it back into a predictor. */
static sm_predictor *fit_to_predictor(const char *dir, const char *name, const int (*layouts)[2],
                                      int n_layouts, sm_fit *fit)
{
    sm_runs *runs = write_and_load(dir, name, layouts, n_layouts);
    CHECK(runs != NULL);
    if (!runs)
        return NULL;
    sm_fit_options opt;
    ring_options(&opt);
    sm_status st;
    int rc = sm_fit_runs(runs, NULL, &opt, fit, &st);
    sm_runs_free(runs);
    if (rc) {
        fprintf(stderr, "%s\n", st.msg);
        CHECK(0);
        return NULL;
    }
    char ini[4096];
    snprintf(ini, sizeof ini, "%s/%s.ini", dir, name);
    sm_fit_meta meta = {"test device", "2026-01-01", "synthetic", "0"}, meta_back;
    sm_fit back;
    CHECK(sm_fit_write(fit, &meta, ini, &st) == 0);
    CHECK(sm_fit_read(ini, &back, &meta_back, &st) == 0);
    CHECK_EQ(back.multi_gpu, fit->multi_gpu);
    CHECK_EQ(back.multi_node, fit->multi_node);
    CHECK(!back.flat_ring);
    CHECK(back.opt.bucket_bytes == BUCKET);
    for (int ph = 0; ph < SM_N_FIT_PHASES; ph++) {
        CHECK_EQ(back.phase[ph].n_coeffs, fit->phase[ph].n_coeffs);
        for (int k = 0; k < fit->phase[ph].n_coeffs; k++)
            CHECK(back.phase[ph].c[k] == fit->phase[ph].c[k]); /* %.17g is exact */
    }
    sm_predictor *p;
    if (sm_predictor_from_coeffs(ini, &p, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        CHECK(0);
        return NULL;
    }
    return p;
}

static sm_network *load_net(const char *model, int image)
{
    sm_network *net;
    sm_network_options nopt = {.image = image};
    sm_status st;
    if (sm_network_load(reg, model, &nopt, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return NULL;
    }
    return net;
}

/* One device per node only (a cluster of single-GPU nodes): every intra column is 0, so the fit
 * leaves the intra terms out (with them the system would have rank 4 for 6 coefficients) and
 * still recovers the others exactly; asked about 8 devices per node, the predictor warns, and
 * its t_grad has the inter-node terms only. */
static void test_one_device_per_node(const char *dir)
{
    const int layouts[][2] = {{1, 1}, {2, 1}, {4, 1}, {8, 1}};
    sm_fit fit;
    sm_predictor *p = fit_to_predictor(dir, "fit_ring_g1.csv", layouts, 4, &fit);
    if (!p)
        return;
    CHECK(fit.multi_device && !fit.multi_gpu && fit.multi_node);
    const double grad[4] = {c_grad[G_LAYERS], c_grad[G_UPDATE], c_grad[G_INTER_BYTES],
                            c_grad[G_INTER_STEPS]};
    check_coeffs(&fit.phase[SM_PHASE_GRAD], grad, 4, 1e-7);
    const char *const names[] = {"c1_layers", "c2_update", "c3_inter_bytes", "c4_inter_steps"};
    check_names(&fit, SM_PHASE_GRAD, names, 4);
    CHECK_EQ(fit.phase[SM_PHASE_BWD_GRAD].n_coeffs, 8); /* 5 bwd + L + 2 inter */

    sm_network *net = load_net(nets[0], 8); /* tiny_a: W = 310, 4W = 1240 bytes, k = 2, L = 2 */
    if (net) {
        char warn[1024];
        sm_layout ok = {4, 2, 1, 1};
        CHECK(sm_predictor_warning(p, &ok, warn, sizeof warn) == 0);
        sm_layout eight = {4, 2, 8, 1};
        CHECK(sm_predictor_warning(p, &eight, warn, sizeof warn) == 1);
        CHECK_CONTAINS(warn, "one device per node only: t_grad with several devices per node "
                             "leaves out the intra-node terms");
        CHECK(strstr(warn, "single-node") == NULL);
        /* t_grad = 2e-5 x 2 + 4e-8 x 310 + 4e-8 x 2 x 1/2 x 1240 / 8 + 1e-5 x 2 x 1 x 2
         *        = 4e-5 + 1.24e-5 + 6.2e-6 + 4e-5 = 9.86e-5 (no intra term) */
        sm_prediction t;
        sm_status st;
        CHECK(sm_predict(p, net, &eight, &t, &st) == 0);
        CHECK_NEAR(t.t_grad, 9.86e-5, 1e-7);
        sm_network_free(net);
    }
    sm_predictor_free(p);
}

/* One node only: no inter columns, no inter terms; several nodes are warned about. */
static void test_one_node(const char *dir)
{
    const int layouts[][2] = {{1, 1}, {1, 2}, {1, 4}, {1, 8}};
    sm_fit fit;
    sm_predictor *p = fit_to_predictor(dir, "fit_ring_n1.csv", layouts, 4, &fit);
    if (!p)
        return;
    CHECK(fit.multi_device && fit.multi_gpu && !fit.multi_node);
    const double grad[4] = {c_grad[G_LAYERS], c_grad[G_UPDATE], c_grad[G_INTRA_BYTES],
                            c_grad[G_INTRA_STEPS]};
    check_coeffs(&fit.phase[SM_PHASE_GRAD], grad, 4, 1e-7);
    const char *const names[] = {"c1_layers", "c2_update", "c3_intra_bytes", "c4_intra_steps"};
    check_names(&fit, SM_PHASE_GRAD, names, 4);
    char warn[1024];
    sm_layout node = {4, 1, 8, 1};
    CHECK(sm_predictor_warning(p, &node, warn, sizeof warn) == 0);
    sm_layout two = {4, 2, 4, 1};
    CHECK(sm_predictor_warning(p, &two, warn, sizeof warn) == 1);
    CHECK_CONTAINS(warn, "single-node runs only: t_grad on several nodes leaves out the "
                         "inter-node");
    CHECK(strstr(warn, "one device per node") == NULL);
    sm_predictor_free(p);
}

/* A coefficient file of the flat ring form (written before the hierarchical one) is read as
 * that flat ring: tiny_a on 2 nodes of 4 gives 1.60217e-4 s (test_flat_and_hierarchical), and
 * several devices per node are warned about. Mixing the forms' names is refused. */
static void test_flat_file(void)
{
    sm_fit fit;
    sm_fit_meta meta;
    sm_status st;
    CHECK(sm_fit_read("tests/data/fit/ring_flat_coeffs.ini", &fit, &meta, &st) == 0);
    CHECK(fit.flat_ring && fit.multi_device && fit.opt.grad_form == SM_GRAD_RING);
    CHECK_EQ(fit.phase[SM_PHASE_GRAD].n_coeffs, 3);
    sm_predictor *p;
    CHECK(sm_predictor_from_coeffs("tests/data/fit/ring_flat_coeffs.ini", &p, &st) == 0);
    sm_network *net = load_net(nets[0], 8);
    if (net) {
        sm_layout l = {2, 2, 4, 1};
        sm_prediction t;
        CHECK(sm_predict(p, net, &l, &t, &st) == 0);
        CHECK_NEAR(t.t_grad, 1.60217e-4, 1e-12);
        char warn[1024];
        CHECK(sm_predictor_warning(p, &l, warn, sizeof warn) == 1);
        CHECK_CONTAINS(warn, "flat ring form (one ring over all devices)");
        sm_layout flat = {2, 8, 1, 1};
        CHECK(sm_predictor_warning(p, &flat, warn, sizeof warn) == 0);
        sm_network_free(net);
    }
    sm_predictor_free(p);
    CHECK(sm_fit_read("tests/data/fit/bad_coeffs_ring.ini", &fit, &meta, &st) == -1);
    CHECK_CONTAINS(st.msg, "bad_coeffs_ring.ini:21: [grad] c2_ring_bytes: expected "
                           "c2_intra_bytes here");
    CHECK(sm_fit_read("tests/data/fit/bad_coeffs_flat_names.ini", &fit, &meta, &st) == -1);
    CHECK_CONTAINS(st.msg, "c2_intra_bytes: expected c2_ring_bytes here");
    CHECK_CONTAINS(st.msg, "flat ring form of older versions: refit it");
    /* a coefficient file goes through the INI reader too: text after a header is refused */
    CHECK(sm_fit_read(net_file("[fit] precision = fp32\n"), &fit, &meta, &st) == -1);
    CHECK_CONTAINS(st.msg, ":1: 'precision = fp32' after the header [fit]");
}

/* Overlap with fitted coefficients (tests/data/fit/ring_coeffs.ini) on two_conv.ini, batch 1,
 * 2 nodes of 4 devices. Each conv: 75,497,472 FLOPs, backward 2e-6 x that + half the 0.002
 * intercept = 150.995944 s; 589,824 weights, 2,359,296 bytes of gradient.
 *   one bucket of 2,359,296 bytes: 1e-9 x 2 x 3/4 x 2,359,296 = 3.538944e-3 inside,
 *   1e-8 x 2 x 1/2 x 2,359,296 / 4 = 5.89824e-3 between, 1e-6 x 6 + 1e-5 x 2 = 2.6e-5 of steps:
 *   9.463184e-3 s
 *   conv2's gradient (over the 1 MiB first bucket) is sent from 150.995944 s, done long before
 *   conv1's backward ends at 301.991888 s; conv1's is the last bucket: exposed 9.463184e-3 s
 *   t_grad = 0.0005 x 2 layers + 9.463184e-3 = 1.0463184e-2 s
 * Not overlapped, one 25 MiB bucket of 4,718,592 bytes: 7.077888e-3 + 1.179648e-2 + 2.6e-5
 * + 0.001 = 1.9900368e-2 s. */
static void test_overlap(void)
{
    const char *file = "tests/data/fit/ring_coeffs.ini";
    sm_network *net = load_net("tests/data/curve/two_conv.ini", 0);
    sm_predictor *plain, *overlapped;
    sm_status st;
    if (!net)
        return;
    CHECK(sm_predictor_from_coeffs(file, &plain, &st) == 0);
    CHECK(sm_predictor_from_coeffs_opts(file, 1, &overlapped, &st) == 0);
    CHECK_CONTAINS(sm_predictor_describe(overlapped), "during the backward pass");
    sm_layout l = {1, 2, 4, 1};
    sm_prediction a, b;
    CHECK(sm_predict(plain, net, &l, &a, &st) == 0);
    CHECK(sm_predict(overlapped, net, &l, &b, &st) == 0);
    CHECK_NEAR(a.t_grad, 1.9900368e-2, 1e-12);
    CHECK_NEAR(b.t_grad, 1.0463184e-2, 1e-9); /* a difference of times near 302 s */
    CHECK_NEAR(b.t_bwd, 301.991888, 1e-9);
    CHECK_NEAR(b.t_step, b.t_fwd + b.t_bwd + b.t_grad, 1e-12);
    /* one device sends nothing: the same either way */
    sm_layout one = {1, 1, 1, 1};
    CHECK(sm_predict(plain, net, &one, &a, &st) == 0);
    CHECK(sm_predict(overlapped, net, &one, &b, &st) == 0);
    CHECK_NEAR(b.t_grad, a.t_grad, 0);
    sm_predictor_free(overlapped);
    /* ring_overlap_coeffs.ini: a backward of 1e-12 x 75,497,472 + 0.0001 = 1.75497472e-4 s a
     * layer, against 9.463184e-3 s a bucket. conv2's bucket is sent from 1.75497472e-4 s to
     * 9.638681472e-3 s; conv1's, ready at 3.50994944e-4 s, waits for it and ends at
     * 1.9101865472e-2 s: exposed 1.8750870528e-2 s, t_grad 1.9750870528e-2 s. */
    CHECK(sm_predictor_from_coeffs_opts("tests/data/fit/ring_overlap_coeffs.ini", 1, &overlapped,
                                        &st) == 0);
    CHECK(sm_predict(overlapped, net, &l, &b, &st) == 0);
    CHECK_NEAR(b.t_bwd, 3.50994944e-4, 1e-12);
    CHECK_NEAR(b.t_grad, 1.9750870528e-2, 1e-12);
    sm_predictor_free(plain);
    sm_predictor_free(overlapped);
    sm_network_free(net);
    /* the linear form has no per-bucket terms */
    CHECK(sm_predictor_from_coeffs_opts("tests/data/fit/tiny_coeffs.ini", 1, &plain, &st) == -1);
    CHECK_CONTAINS(st.msg, "tiny_coeffs.ini: overlap needs the ring form");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_fit_ring OUTDIR\n");
        return 2;
    }
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    test_terms_by_hand();
    test_flat_and_hierarchical();
    test_recovery(argv[1]);
    test_one_device_per_node(argv[1]);
    test_one_node(argv[1]);
    test_flat_file();
    test_overlap();
    sm_registry_free(reg);
    return check_summary();
}
