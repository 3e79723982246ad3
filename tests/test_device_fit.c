/* `fit --device-out` (device_fit.c) recovers the dispatch and efficiency keys of a device
 * description from runs that description itself predicts: tests/data/curve/framework_device.ini
 * (dispatch 20/30/40 us per kernel, 3 us per parameter tensor, efficiencies 0.5) generates the
 * times, and the fit starts from round_device.ini (10 us everywhere). Then the same with a
 * framework that fuses (fused_device.ini from round_fused_device.ini): the fit must leave out
 * the ReLUs and the batch norm that follow convolutions, as the predictor does. And from a
 * description whose ReLUs stream faster than its other memory-bound kernels
 * (stream_device.ini), both fractions.
 *
 * Usage: test_device_fit OUTDIR */
#include <stdio.h>
#include <unistd.h>

#include "../core/src/device/device_file.h"
#include "check.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"

static const char *const nets[] = {"tests/data/fit/tiny_a.ini", "tests/data/fit/tiny_b.ini",
                                   "tests/data/fit/tiny_c.ini", "tests/data/curve/conv_relu.ini"};

/* TRUTH's times of every network at several images and batches, as runs at precision (the
 * file's default, fp32, where NULL) */
static int write_runs(const char *path, sm_registry *reg, const sm_predictor *truth,
                      const char *precision)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step%s\n",
            precision ? ",precision" : "");
    for (int k = 0; k < 4; k++)
        for (int image = 8; image <= (k < 3 ? 32 : 8); image += 8)
            for (int b = 1; b <= 256; b *= 4) {
                sm_network *net;
                sm_network_options opt = {.image = k < 3 ? image : 0};
                sm_status st;
                sm_prediction p;
                const sm_layout l = {b, 1, 1, 1};
                if (sm_network_load(reg, nets[k], &opt, &net, &st) ||
                    sm_predict(truth, net, &l, &p, &st)) {
                    fprintf(stderr, "%s\n", st.msg);
                    fclose(f);
                    return -1;
                }
                char size[32] = ""; /* empty: the network file's own input */
                if (opt.image)
                    snprintf(size, sizeof size, "%lld", (long long)opt.image);
                fprintf(f, "%s,%s,%d,1,1,%.17g,%.17g,%.17g,%.17g,%s%s\n", nets[k], size, b,
                        p.t_infer, p.t_fwd, p.t_bwd, p.t_grad, precision ? "," : "",
                        precision ? precision : "");
                sm_network_free(net);
            }
    return fclose(f);
}

/* Fits TRUTH's times from BASE, in OUTDIR/TAG.csv and .ini, and checks the keys. */
static void check_recovery(sm_registry *reg, const char *truth_path, const char *base,
                           const char *outdir, const char *tag)
{
    char csv[4096], ini[4096];
    snprintf(csv, sizeof csv, "%s/%s.csv", outdir, tag);
    snprintf(ini, sizeof ini, "%s/%s.ini", outdir, tag);
    sm_status st;
    sm_predictor *truth;
    sm_runs *runs;
    if (sm_predictor_from_device(truth_path, &truth, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        CHECK(0);
        return;
    }
    CHECK_EQ(write_runs(csv, reg, truth, NULL), 0);
    if (sm_runs_read(csv, &runs, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        CHECK(0);
        sm_predictor_free(truth);
        return;
    }
    sm_device_fit_result d;
    CHECK_EQ(sm_device_fit(runs, reg, base, &d, &st), 0);
    CHECK_NEAR(d.dispatch_infer, 20e-6, 1e-6);
    CHECK_NEAR(d.dispatch_fwd, 30e-6, 1e-6);
    CHECK_NEAR(d.dispatch_bwd, 40e-6, 1e-6);
    CHECK_NEAR(d.dispatch_update, 3e-6, 1e-6);
    CHECK_NEAR(d.compute_efficiency, 0.5, 1e-6);
    CHECK_NEAR(d.conv_efficiency, 0.5, 1e-6);
    CHECK_NEAR(d.memory_efficiency, 0.5, 1e-6);
    CHECK_CONTAINS(d.precision, "fp32");

    /* the written description predicts what the truth predicts */
    CHECK_EQ(sm_device_fit_write(&d, csv, ini, &st), 0);
    sm_predictor *fitted;
    CHECK_EQ(sm_predictor_from_device(ini, &fitted, &st), 0);
    sm_network *net;
    sm_network_options opt = {.image = 16};
    CHECK_EQ(sm_network_load(reg, nets[2], &opt, &net, &st), 0);
    const sm_layout l = {32, 1, 1, 1};
    sm_prediction a, b;
    CHECK_EQ(sm_predict(truth, net, &l, &a, &st), 0);
    CHECK_EQ(sm_predict(fitted, net, &l, &b, &st), 0);
    CHECK_NEAR(b.t_step, a.t_step, 1e-5);
    /* and keeps the base's framework and node keys that the fit does not touch */
    sm_device vb, vw;
    CHECK_EQ(sm_device_load(base, &vb, &st), 0);
    CHECK_EQ(sm_device_load(ini, &vw, &st), 0);
    CHECK_NEAR(vw.conv_efficiency[SM_FP32], 0.5, 1e-6);
    CHECK_EQ(vw.fuse_epilogues, vb.fuse_epilogues);
    CHECK_EQ(vw.fuse_bn_relu, vb.fuse_bn_relu);
    CHECK_NEAR(vw.grad_bytes, vb.grad_bytes, 0);
    CHECK_NEAR(vw.kernel_device, vb.kernel_device, 0);
    CHECK_EQ(vw.collective, vb.collective);
    CHECK_NEAR(vw.nvls_efficiency, vb.nvls_efficiency, 0);
    CHECK_NEAR(vw.inter.latency, vb.inter.latency, 1e-15);
    sm_network_free(net);
    sm_predictor_free(fitted);
    sm_predictor_free(truth);
    sm_runs_free(runs);
}

/* A fit beyond what a description holds (1.1 s per parameter tensor: 1.1e6 us, the loader
 * takes at most 1e6) is refused, naming the key, and nothing is written: the file would be
 * refused by every command (found by fuzz/fuzz_fit.c). */
static void check_out_of_range(const char *outdir)
{
    char ini[4096];
    snprintf(ini, sizeof ini, "%s/device_fit_out_of_range.ini", outdir);
    remove(ini);
    sm_device_fit_result d = {.precision = "fp32",
                              .dispatch_infer = 20e-6,
                              .dispatch_fwd = 30e-6,
                              .dispatch_bwd = 40e-6,
                              .dispatch_update = 1.1,
                              .compute_efficiency = 0.5,
                              .conv_efficiency = 0.5,
                              .memory_efficiency = 0.5};
    snprintf(d.base, sizeof d.base, "tests/data/curve/round_device.ini");
    sm_status st;
    CHECK_EQ(sm_device_fit_write(&d, "runs.csv", ini, &st), -1);
    CHECK_CONTAINS(st.msg, "runs.csv: the fitted dispatch_update_us = 1.1e+06 is outside");
    CHECK_CONTAINS(st.msg, "not written");
    CHECK_EQ(access(ini, F_OK), -1);
    /* an efficiency of 0 likewise */
    d.dispatch_update = 3e-6, d.memory_efficiency = 0;
    CHECK_EQ(sm_device_fit_write(&d, "runs.csv", ini, &st), -1);
    CHECK_CONTAINS(st.msg, "memory_efficiency = 0 is outside");
    CHECK_EQ(access(ini, F_OK), -1);
}

/* A base whose framework prices convolutions by kind and pass (conv_kinds_device.ini: 0.25,
 * 0.125, 0.4 and 0.2 beside conv_efficiency 0.5): the fit's one scale of the convolutions,
 * here half (0.5 to 0.25), keeps their ratios, written to the framework's keys. */
static void check_conv_kinds(const char *outdir)
{
    char ini[4096];
    snprintf(ini, sizeof ini, "%s/device_fit_conv_kinds.ini", outdir);
    sm_device_fit_result d = {.precision = "fp32",
                              .dispatch_infer = 20e-6,
                              .dispatch_fwd = 30e-6,
                              .dispatch_bwd = 40e-6,
                              .dispatch_update = 3e-6,
                              .compute_efficiency = 0.25,
                              .conv_efficiency = 0.25,
                              .memory_efficiency = 0.5};
    snprintf(d.base, sizeof d.base, "tests/data/curve/conv_kinds_device.ini");
    sm_status st;
    CHECK_EQ(sm_device_fit_write(&d, "runs.csv", ini, &st), 0);
    sm_device v;
    CHECK_EQ(sm_device_load(ini, &v, &st), 0);
    CHECK_NEAR(v.conv_efficiency[SM_FP32], 0.25, 1e-9);
    CHECK_NEAR(v.conv_kind_efficiency[SM_FP32][0][0], 0.125, 1e-9);
    CHECK_NEAR(v.conv_kind_efficiency[SM_FP32][0][1], 0.0625, 1e-9);
    CHECK_NEAR(v.conv_kind_efficiency[SM_FP32][1][0], 0.2, 1e-9);
    CHECK_NEAR(v.conv_kind_efficiency[SM_FP32][1][1], 0.1, 1e-9);
    /* a precision the framework gives no kinds for keeps none */
    CHECK(v.conv_kind_efficiency[SM_BF16][0][0] == 0);
}

/* cuDNN's transposes bound by the SMs (transpose_truth_device.ini) take their time whatever
 * the memory efficiency: the fit keeps it apart and recovers the bf16 truth's keys. Taken as
 * memory traffic (which the DRAM's rate would price at 2.5 times less), it fitted a memory
 * efficiency and dispatch of other values. */
static void check_transposes(sm_registry *reg, const char *outdir)
{
    char csv[4096];
    snprintf(csv, sizeof csv, "%s/device_fit_transposes.csv", outdir);
    sm_status st;
    sm_predictor *truth;
    sm_runs *runs;
    CHECK_EQ(sm_predictor_from_device("tests/data/curve/transpose_truth_device.ini", &truth, &st),
             0);
    if (!truth)
        return;
    CHECK_EQ(write_runs(csv, reg, truth, "bf16"), 0);
    sm_predictor_free(truth);
    CHECK_EQ(sm_runs_read(csv, &runs, &st), 0);
    if (!runs)
        return;
    sm_device_fit_result d;
    CHECK_EQ(sm_device_fit(runs, reg, "tests/data/curve/transpose_base_device.ini", &d, &st), 0);
    CHECK_CONTAINS(d.precision, "bf16");
    CHECK_NEAR(d.dispatch_infer, 20e-6, 1e-6);
    CHECK_NEAR(d.dispatch_fwd, 30e-6, 1e-6);
    CHECK_NEAR(d.dispatch_bwd, 40e-6, 1e-6);
    CHECK_NEAR(d.compute_efficiency, 0.25, 1e-6);
    CHECK_NEAR(d.memory_efficiency, 0.5, 1e-6);
    sm_runs_free(runs);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_device_fit OUTDIR\n");
        return 2;
    }
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    check_recovery(reg, "tests/data/curve/framework_device.ini",
                   "tests/data/curve/round_device.ini", argv[1], "device_fit");
    check_recovery(reg, "tests/data/curve/fused_device.ini",
                   "tests/data/curve/round_fused_device.ini", argv[1], "device_fit_fused");
    /* where the host runs ahead (a queue per pass), the rows split where the queue binds */
    check_recovery(reg, "tests/data/curve/queued_device.ini",
                   "tests/data/curve/round_queued_device.ini", argv[1], "device_fit_queued");
    /* with the device's own 4 us a kernel beside the host's dispatch (kernel_device_us), a
     * key of the base's that the fit keeps and the queue's device time holds */
    check_recovery(reg, "tests/data/curve/queued_grid_device.ini",
                   "tests/data/curve/round_queued_grid_device.ini", argv[1],
                   "device_fit_queued_grid");
    /* plain element-wise kernels at 0.8 beside 0.5: the fit scales the two together, their
     * ratio the base's, and writes both (stream_efficiency 1.6 x the memory fitted) */
    check_recovery(reg, "tests/data/curve/stream_device.ini",
                   "tests/data/curve/round_stream_device.ini", argv[1], "device_fit_stream");
    char stream_ini[4096];
    snprintf(stream_ini, sizeof stream_ini, "%s/device_fit_stream.ini", argv[1]);
    sm_device written;
    CHECK_EQ(sm_device_load(stream_ini, &written, &st), 0);
    CHECK_NEAR(written.stream_efficiency, 0.8, 1e-5);
    check_transposes(reg, argv[1]);
    check_out_of_range(argv[1]);
    check_conv_kinds(argv[1]);
    sm_registry_free(reg);
    return check_summary();
}
