/* The calibration-free device predictor (predictor_device.c) against roofline times worked out
 * by hand for one convolution and one ReLU on a device with round numbers
 * (tests/data/curve/round_device.ini: 5e12 FLOP/s and 5e11 bytes/s after the 0.5 efficiencies,
 * 10 us launch overhead). */
#include "check_near.h"
#include "scalemeter/device.h"

#define DEVICE "tests/data/curve/round_device.ini"

int main(void)
{
    sm_status st;
    sm_registry *reg;
    sm_network *net;
    sm_predictor *p;
    if (sm_registry_open(&reg, &st) ||
        sm_network_load(reg, "tests/data/curve/conv_relu.ini", NULL, &net, &st) ||
        sm_predictor_from_device(DEVICE, &p, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    CHECK_EQ(sm_predictor_devices_per_node(p), 4);
    CHECK_CONTAINS(sm_predictor_describe(p), "roofline at fp32");

    /* Batch 32, one device.
     * conv 64->64, 3x3, 56x56: 200,704 outputs x 64 x 9 = 115,605,504 MACs, 231,211,008 FLOPs
     * a sample; x 32 = 7,398,752,256 FLOPs. Bytes: 4 x (200,704 + 200,704) x 32 = 51,380,224 of
     * activations + 4 x 36,864 weights = 51,527,680.
     *   forward  compute 7,398,752,256 / 5e12 = 1.4797504512e-3 s > memory 1.0305536e-4 s;
     *            + 10 us = 1.4897504512e-3 s
     *   backward 2 x FLOPs: 2.9595009024e-3 s > 2 x bytes: 2.0611072e-4 s; + 10 us
     *            = 2.9695009024e-3 s
     * relu: 1 FLOP per element, 6,422,528 FLOPs: 1.28e-6 s < bytes 51,380,224 / 5e11
     *   = 1.02760448e-4 s: memory-bound; forward 1.12760448e-4 s, backward (2 x bytes)
     *   2.05520896e-4 + 10 us = 2.15520896e-4 s
     * update: 20 bytes per weight, 737,280 / 5e11 = 1.47456e-6 s, + 10 us for the one layer
     *   with weights = 1.147456e-5 s; nothing to all-reduce on one device. */
    sm_layout one = {32, 1, 1};
    sm_prediction pr;
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 1.4897504512e-3 + 1.12760448e-4, 1e-9);
    CHECK_NEAR(pr.t_infer, pr.t_fwd, 0);
    CHECK_NEAR(pr.t_bwd, 2.9695009024e-3 + 2.15520896e-4, 1e-9);
    CHECK_NEAR(pr.t_grad, 1.147456e-5, 1e-9);
    CHECK_NEAR(pr.t_step, 4.7990072576e-3, 1e-9);

    double block;
    CHECK_EQ(sm_predict_block(p, net, 0, &one, &block, &st), 0);
    CHECK_NEAR(block, 1.4897504512e-3, 1e-9);
    CHECK_EQ(sm_predict_block(p, net, 1, &one, &block, &st), 0);
    CHECK_NEAR(block, 1.12760448e-4, 1e-9);

    /* 3 nodes x 4 devices, gradient 4 x 36,864 = 147,456 bytes in one 25 MiB bucket; two ports
     * for four rings: 10 GB/s x 2/4 = 5 GB/s each.
     *   inside  2 x 3/4 x 147,456 / 100e9          = 2.21184e-6 s
     *   between 2 x 2/3 x (147,456 / 4) / 5e9      = 9.8304e-6 s
     *   latency 1 x (2 x 3 x 2 us + 2 x 2 x 5 us)   = 3.2e-5 s
     *   sync 4.404224e-5 s + update 1.147456e-5 s  = 5.55168e-5 s */
    sm_layout cluster = {32, 3, 4};
    CHECK_EQ(sm_predict(p, net, &cluster, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 5.55168e-5, 1e-9);
    CHECK_NEAR(pr.t_fwd, 1.4897504512e-3 + 1.12760448e-4, 1e-9); /* weak scaling: unchanged */
    sm_predictor_free(p);

    /* 0.05 MiB buckets = 52,428.8 bytes: 3 buckets, latency 3 x 32 us = 9.6e-5 s, sync
     * 1.204224e-5 + 9.6e-5 = 1.0804224e-4 s. Without overlap t_grad = 1.195168e-4 s; with it
     * the backward pass (3.185e-3 s) hides all but the last bucket: 1.0804224e-4 / 3
     * = 3.601408e-5 s, t_grad 4.748864e-5 s. */
    sm_device_options opt = {NULL, 0.05, 0, NULL};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &opt, &p, &st), 0);
    CHECK_EQ(sm_predict(p, net, &cluster, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 1.195168e-4, 1e-9);
    sm_predictor_free(p);
    opt.overlap = 1;
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &opt, &p, &st), 0);
    CHECK_EQ(sm_predict(p, net, &cluster, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 4.748864e-5, 1e-9);
    CHECK_CONTAINS(sm_predictor_describe(p), "overlapped");
    sm_predictor_free(p);

    /* bf16: 2e13 FLOP/s, half the bytes.
     *   conv  7,398,752,256 / 2e13 = 3.699376128e-4 s > 25,763,840 / 5e11; + 10 us
     *   relu  25,690,112 / 5e11 = 5.1380224e-5 s; + 10 us
     *   forward 3.799376128e-4 + 6.1380224e-5 = 4.413178368e-4 s */
    sm_device_options bf16 = {"bf16", 0, 0, NULL};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &bf16, &p, &st), 0);
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 4.413178368e-4, 1e-9);

    /* more devices in a node than the description has */
    sm_layout five = {32, 1, 5};
    st.msg[0] = '\0';
    CHECK_EQ(sm_predict(p, net, &five, &pr, &st), -1);
    CHECK_CONTAINS(st.msg, "a node has 4 devices, not 5");
    sm_predictor_free(p);

    /* a precision the file gives no peak for, and one that does not exist */
    sm_device_options fp16 = {"fp16", 0, 0, NULL};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &fp16, &p, &st), -1);
    CHECK_CONTAINS(st.msg, "peak_fp16_tflops is missing");
    sm_device_options fp8 = {"fp8", 0, 0, NULL};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &fp8, &p, &st), -1);
    CHECK_CONTAINS(st.msg, "precision fp8");

    /* A framework's dispatch per kernel and phase (framework_device.ini: 20, 30, 40 us; 3 us
     * per parameter tensor), the same two layers (K = 2 kernels, P = 1 tensor), batch 32:
     *   infer 1.4797504512e-3 + 1.02760448e-4 + 2 x 20 us = 1.6225108992e-3 s
     *   fwd   the same + 2 x 30 us                         = 1.6425108992e-3 s
     *   bwd   2.9595009024e-3 + 2.05520896e-4 + 2 x 40 us  = 3.2450217984e-3 s
     *   grad  1.47456e-6 + 1 x 3 us                         = 4.47456e-6 s */
    const char *framework = "tests/data/curve/framework_device.ini";
    CHECK_EQ(sm_predictor_from_device(framework, &p, &st), 0);
    CHECK_CONTAINS(sm_predictor_describe(p), "test-eager dispatch");
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_infer, 1.6225108992e-3, 1e-9);
    CHECK_NEAR(pr.t_fwd, 1.6425108992e-3, 1e-9);
    CHECK_NEAR(pr.t_bwd, 3.2450217984e-3, 1e-9);
    CHECK_NEAR(pr.t_grad, 4.47456e-6, 1e-9);
    sm_predictor_free(p);
    /* bf16 at its own efficiency, 40e12 x 0.25 = 1e13 FLOP/s for the convolution (a matrix
     * layer); the ReLU stays at fp32 arithmetic and half the bytes; autocast adds 2 cast
     * kernels for the one convolution: 4 launches.
     *   conv 7,398,752,256 / 1e13 = 7.398752256e-4 s > 25,763,840 / 5e11
     *   relu 25,690,112 / 5e11 = 5.1380224e-5 s > 6,422,528 / 5e12
     *   fwd  7.398752256e-4 + 5.1380224e-5 + 4 x 30 us = 9.112554496e-4 s */
    CHECK_EQ(sm_predictor_from_device_opts(framework, &bf16, &p, &st), 0);
    CHECK_CONTAINS(sm_predictor_precision(p), "bf16");
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 9.112554496e-4, 1e-9);
    sm_predictor_free(p);

    sm_network_free(net);
    sm_registry_free(reg);
    return check_summary();
}
