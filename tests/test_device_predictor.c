/* The calibration-free device predictor (predictor_device.c) against roofline times worked out
 * by hand for one convolution and one ReLU on a device with round numbers
 * (tests/data/curve/round_device.ini: 5e12 FLOP/s and 5e11 bytes/s after the 0.5 efficiencies,
 * 10 us launch overhead). */
#include <string.h>

#include "check.h"
#include "device/device_file.h"
#include "net_file.h"
#include "scalemeter/comm.h"
#include "scalemeter/device.h"
#include "scalemeter/memory.h"

#define DEVICE "tests/data/curve/round_device.ini"

/* conv_bn_relu.ini's passes under fused_framework.ini (the norms and ReLUs in the convolution's
 * kernels) and bn_relu_framework.ini (each norm a kernel with the ReLU after it), as main
 * works them out */
#define FUSED_FWD 1.7152723712e-3
#define FUSED_BWD 3.3491645184e-3
#define BN_RELU_FWD (1.12760448e-4 + 2 * 1.12761472e-4 + 1.4897504512e-3)
#define BN_RELU_BWD (1.64140672e-4 + 2 * 2.15522944e-4 + 2.9695009024e-3)

/* net at layout one on the description at path with the options o: its passes' times (infer
 * and bwd NAN: not checked) */
static void check_passes_on(const char *path, const sm_device_options *o, const sm_network *net,
                            const sm_layout *one, double fwd, double infer, double bwd)
{
    sm_predictor *p;
    sm_prediction pr;
    sm_status st;
    CHECK_EQ(sm_predictor_from_device_opts(path, o, &p, &st), 0);
    CHECK_EQ(sm_predict(p, net, one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, fwd, 1e-9);
    if (!isnan(infer))
        CHECK_NEAR(pr.t_infer, infer, 1e-9);
    if (!isnan(bwd))
        CHECK_NEAR(pr.t_bwd, bwd, 1e-9);
    sm_predictor_free(p);
}

/* the same on DEVICE */
static void check_passes(const sm_device_options *o, const sm_network *net, const sm_layout *one,
                         double fwd, double infer, double bwd)
{
    check_passes_on(DEVICE, o, net, one, fwd, infer, bwd);
}

/* net's layers at layout one on the description at path with the options o (NULL: its own) */
static void layers_on(const char *path, const sm_device_options *o, const sm_network *net,
                      const sm_layout *one, sm_layer_prediction *out)
{
    sm_predictor *p = NULL;
    sm_status st;
    const sm_device_options none = {0};
    CHECK_EQ(sm_predictor_from_device_opts(path, o ? o : &none, &p, &st), 0);
    if (!p)
        return;
    CHECK_EQ(sm_predict_layers(p, net, one, out, &st), 0);
    sm_predictor_free(p);
}

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
    /* mfu's denominator: the file's peak_fp32_tflops = 10, before its efficiency */
    CHECK_NEAR(sm_predictor_peak_flops(p), 10e12, 1e-12);
    /* the file gives no power_limit_w */
    CHECK(sm_predictor_power_limit(p) == 0);

    /* Batch 32, one device.
     * conv 64->64, 3x3, 56x56: 200,704 outputs x 64 x 9 = 115,605,504 MACs, 231,211,008 FLOPs
     * a sample; x 32 = 7,398,752,256 FLOPs. Bytes: 4 x (200,704 + 200,704) x 32 = 51,380,224 of
     * activations + 4 x 36,864 weights = 51,527,680.
     *   forward  compute 7,398,752,256 / 5e12 = 1.4797504512e-3 s > memory 1.0305536e-4 s;
     *            + 10 us = 1.4897504512e-3 s
     *   backward 2 x FLOPs: 2.9595009024e-3 s > 2 x bytes: 2.0611072e-4 s; + 10 us
     *            = 2.9695009024e-3 s
     * relu: 1 FLOP per element, 6,422,528 FLOPs: 1.28e-6 s < bytes 51,380,224 / 5e11
     *   = 1.02760448e-4 s: memory-bound; forward 1.12760448e-4 s, backward (1.5 x bytes:
     *   it reads the output's gradient and the output, writes the
     *   input's) 1.54140672e-4 + 10 us = 1.64140672e-4 s
     * update: 20 bytes per weight, 737,280 / 5e11 = 1.47456e-6 s, + 10 us for the one layer
     *   with weights = 1.147456e-5 s; nothing to all-reduce on one device. */
    sm_layout one = {32, 1, 1, 1};
    sm_prediction pr;
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 1.4897504512e-3 + 1.12760448e-4, 1e-9);
    CHECK_NEAR(pr.t_infer, pr.t_fwd, 0);
    CHECK_NEAR(pr.t_bwd, 2.9695009024e-3 + 1.64140672e-4, 1e-9);
    CHECK_NEAR(pr.t_grad, 1.147456e-5, 1e-9);
    CHECK_NEAR(pr.t_step, 4.7476270336e-3, 1e-9);
    /* Layer by layer, the same terms: the conv compute-bound, the relu memory-bound, each pass
     * with its one kernel's 10 us of dispatch (no framework: the bare launch). At batch 1 the
     * relu's 51,380,224 / 32 bytes take 3.2112640e-6 s, less than its dispatch: host-bound;
     * the conv's 231,211,008 FLOPs 4.62422016e-5 s, still compute-bound. */
    sm_layer_prediction lp[2];
    CHECK_EQ(sm_predict_layers(p, net, &one, lp, &st), 0);
    CHECK_NEAR(lp[0].t_fwd, 1.4897504512e-3, 1e-12);
    CHECK_NEAR(lp[0].t_bwd, 2.9695009024e-3, 1e-12);
    CHECK_NEAR(lp[0].host_fwd, 10e-6, 1e-15);
    CHECK_NEAR(lp[0].host_bwd, 10e-6, 1e-15);
    CHECK_EQ(lp[0].bound_fwd, SM_BOUND_COMPUTE);
    CHECK_EQ(lp[0].bound_bwd, SM_BOUND_COMPUTE);
    CHECK_NEAR(lp[1].t_fwd, 1.12760448e-4, 1e-12);
    CHECK_NEAR(lp[1].t_bwd, 1.64140672e-4, 1e-12);
    CHECK_EQ(lp[1].bound_fwd, SM_BOUND_MEMORY);
    CHECK_EQ(lp[1].bound_bwd, SM_BOUND_MEMORY);
    CHECK_EQ(lp[0].fused + lp[1].fused, 0);
    sm_layout batch1 = {1, 1, 1, 1};
    CHECK_EQ(sm_predict_layers(p, net, &batch1, lp, &st), 0);
    CHECK_NEAR(lp[0].t_fwd, 4.62422016e-5 + 10e-6, 1e-12);
    CHECK_EQ(lp[0].bound_fwd, SM_BOUND_COMPUTE);
    CHECK_NEAR(lp[1].t_fwd, 3.211264e-6 + 10e-6, 1e-12);
    CHECK_EQ(lp[1].bound_fwd, SM_BOUND_HOST);
    CHECK_EQ(strcmp(sm_bound_name(SM_BOUND_HOST), "host"), 0);
    /* The optimizer's update streams its fp32 state: plain SGD reads weight and gradient and
     * writes the weight, 12 x 36,864 / 5e11 = 8.84736e-7 s; Adam reads and writes two moments
     * beside them, 28 x 36,864 / 5e11 = 2.064384e-6 s; each + 10 us. The passes are the same. */
    sm_predictor_set_optimizer(p, SM_OPTIMIZER_SGD);
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 1.0884736e-5, 1e-9);
    CHECK_NEAR(pr.t_fwd, 1.4897504512e-3 + 1.12760448e-4, 1e-9);
    sm_predictor_set_optimizer(p, SM_OPTIMIZER_ADAMW);
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 1.2064384e-5, 1e-9);
    sm_predictor_set_optimizer(p, SM_OPTIMIZER_MOMENTUM);

    double block, block0;
    CHECK_EQ(sm_predict_block(p, net, 0, &one, &block0, &st), 0);
    CHECK_NEAR(block0, 1.4897504512e-3, 1e-9);
    CHECK_EQ(sm_predict_block(p, net, 1, &one, &block, &st), 0);
    CHECK_NEAR(block, 1.12760448e-4, 1e-9);
    double blocks[2]; /* every block at once: the same numbers */
    CHECK_EQ(net->n_blocks, 2);
    CHECK_EQ(sm_predict_blocks(p, net, &one, blocks, &st), 0);
    CHECK_NEAR(blocks[0], block0, 0);
    CHECK_NEAR(blocks[1], block, 0);

    /* 3 nodes x 4 devices, gradient 4 x 36,864 = 147,456 bytes in one 25 MiB bucket; two ports
     * for four rings: 10 GB/s x 2/4 = 5 GB/s each.
     *   inside  2 x 3/4 x 147,456 / 100e9          = 2.21184e-6 s
     *   between 2 x 2/3 x (147,456 / 4) / 5e9      = 9.8304e-6 s
     *   latency 1 x (2 x 3 x 2 us + 2 x 2 x 5 us)   = 3.2e-5 s
     *   sync 4.404224e-5 s + update 1.147456e-5 s  = 5.55168e-5 s */
    sm_layout cluster = {32, 3, 4, 1};
    CHECK_EQ(sm_predict(p, net, &cluster, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 5.55168e-5, 1e-9);
    CHECK_NEAR(pr.t_fwd, 1.4897504512e-3 + 1.12760448e-4, 1e-9); /* weak scaling: unchanged */
    sm_predictor_free(p);

    /* 0.05 MiB buckets = 52,428.8 bytes, smaller than the convolution's one weight tensor
     * (147,456 bytes): DDP never splits a parameter, so it is one bucket still, and t_grad is
     * the 25 MiB bucket's 5.55168e-5 s (equal buckets of 0.05 MiB made 3 and 1.195168e-4). */
    sm_device_options opt = {.bucket_mib = 0.05};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &opt, &p, &st), 0);
    CHECK_NEAR(sm_predictor_peak_flops(p), 10e12, 1e-12);
    CHECK_EQ(sm_predict(p, net, &cluster, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 5.55168e-5, 1e-9);
    sm_predictor_free(p);
    /* Overlapped, DDP never splits a layer's gradient: the convolution's is one bucket, ready
     * only when the backward pass ends (the ReLU runs first), so the whole all-reduce of
     * 147,456 bytes shows, as in one 25 MiB bucket: t_grad 5.55168e-5 s. */
    opt.overlap = 1;
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &opt, &p, &st), 0);
    CHECK_EQ(sm_predict(p, net, &cluster, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 5.55168e-5, 1e-9);
    CHECK_CONTAINS(sm_predictor_describe(p), "overlapped");
    sm_predictor_free(p);

    /* tests/data/curve/two_conv.ini, batch 32 on 3 nodes x 4: each conv 256->256, 3x3, 8x8,
     * 16,384 outputs x 256 x 9 = 37,748,736 MACs a sample, 2,415,919,104 FLOPs at batch 32;
     * backward 2 x that / 5e12 = 9.663676416e-4 s (bytes 2 x 6,553,600 / 5e11 = 2.62e-5 s
     * less) + 10 us = 9.763676416e-4 s. Each holds 589,824 weights, 2,359,296 bytes of
     * gradient, whose all-reduce takes 2 x 3/4 x 2,359,296 / 100e9 = 3.538944e-5 s inside
     * the node, 2 x 2/3 x 589,824 / 5e9 = 1.572864e-4 s between nodes and 3.2e-5 s of
     * latency: 2.2467584e-4 s. Update: 20 x 1,179,648 / 5e11 + 2 x 10 us = 6.718592e-5 s.
     * Not overlapped, one 25 MiB bucket of both: 2 x (3.538944e-5 + 1.572864e-4) + 3.2e-5
     * = 4.1735168e-4 s; t_grad 4.845376e-4 s.
     * Overlapped: conv2's gradient (2.36 MB, over DDP's 1 MiB first bucket) is sent from
     * 9.763676416e-4 s to 1.2010434816e-3 s while conv1's backward runs; conv1's is sent
     * when the pass ends at 1.9527352832e-3 s: exposed 2.2467584e-4, t_grad 2.9186176e-4 s. */
    sm_network *two;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/two_conv.ini", NULL, &two, &st), 0);
    CHECK_EQ(sm_predictor_from_device(DEVICE, &p, &st), 0);
    CHECK_EQ(sm_predict(p, two, &cluster, &pr, &st), 0);
    CHECK_NEAR(pr.t_bwd, 2 * 9.763676416e-4, 1e-9);
    CHECK_NEAR(pr.t_grad, 4.845376e-4, 1e-9);
    sm_predictor_free(p);
    opt = (sm_device_options){.overlap = 1};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &opt, &p, &st), 0);
    CHECK_EQ(sm_predict(p, two, &cluster, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 2.9186176e-4, 1e-9);
    sm_predictor_free(p);
    sm_network_free(two);

    /* bf16: 2e13 FLOP/s, half the bytes. The file stores activations NCHW (no [framework]
     * channels_last), so cuDNN transposes around the convolution: its input and output,
     * 2 x 200,704 x 32 = 12,845,056 elements of 2 bytes, each read and written once more:
     * 51,380,224 bytes / 5e11 = 1.02760448e-4 s forward, twice that backward (data and weight
     * gradients transpose again).
     *   conv  7,398,752,256 / 2e13 = 3.699376128e-4 s > 25,763,840 / 5e11;
     *         + 1.02760448e-4 + 10 us = 4.826980608e-4 s
     *   relu  25,690,112 / 5e11 = 5.1380224e-5 s; + 10 us
     *   forward 4.826980608e-4 + 6.1380224e-5 = 5.440782848e-4 s
     *   backward conv 7.398752256e-4 + 2.05520896e-4 + 10 us, relu 7.7070336e-5 + 10 us
     *            = 1.0424664576e-3 s */
    sm_device_options bf16 = {.precision = "bf16"};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &bf16, &p, &st), 0);
    CHECK_NEAR(sm_predictor_peak_flops(p), 40e12, 1e-12); /* peak_bf16_tflops */
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 5.440782848e-4, 1e-9);
    CHECK_NEAR(pr.t_infer, pr.t_fwd, 0);
    CHECK_NEAR(pr.t_bwd, 1.0424664576e-3, 1e-9);
    /* the transposes are said of networks with convolutions alone; without a network, the
     * layout as the file sets it */
    CHECK_CONTAINS(sm_predictor_describe_for(p, 1),
                   "roofline at bf16 NCHW (cuDNN transposes around convolutions), ");
    CHECK_CONTAINS(sm_predictor_describe_for(p, 0), "roofline at bf16, ");
    CHECK_CONTAINS(sm_predictor_describe(p), "roofline at bf16 NCHW, ");
    /* channels-last (tests/data/curve/channels_last_framework.ini, 10 us per kernel as the
     * device's launch): no transposes, forward 3.799376128e-4 + 6.1380224e-5 = 4.413178368e-4 s,
     * backward 7.498752256e-4 + 8.7070336e-5 = 8.369455616e-4 s; and at fp32 the layout costs
     * nothing (the times at the top) */
    sm_device_options last = {.precision = "bf16",
                              .framework = "tests/data/curve/channels_last_framework.ini"};
    sm_predictor *q;
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &last, &q, &st), 0);
    CHECK_EQ(sm_predict(q, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 4.413178368e-4, 1e-9);
    CHECK_NEAR(pr.t_bwd, 8.369455616e-4, 1e-9);
    CHECK_CONTAINS(sm_predictor_describe(q), "roofline at bf16 channels-last, test-channels-last");
    CHECK_CONTAINS(sm_predictor_describe_for(q, 1), "roofline at bf16 channels-last, ");
    CHECK_CONTAINS(sm_predictor_describe_for(q, 0), "roofline at bf16, test-channels-last");
    sm_predictor_free(q);
    last.precision = "fp32";
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &last, &q, &st), 0);
    CHECK_EQ(sm_predict(q, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 1.4897504512e-3 + 1.12760448e-4, 1e-9);
    sm_predictor_free(q);
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0); /* p again: bf16, NCHW */

    /* more devices in a node than the description has */
    sm_layout five = {32, 1, 5, 1};
    st.msg[0] = '\0';
    CHECK_EQ(sm_predict(p, net, &five, &pr, &st), -1);
    CHECK_CONTAINS(st.msg, "a node has 4 devices, not 5");
    sm_predictor_free(p);

    /* a precision the file gives no peak for, and one that does not exist */
    sm_device_options fp16 = {.precision = "fp16"};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &fp16, &p, &st), -1);
    CHECK_CONTAINS(st.msg, "precision fp16: device round has no fp16 peak ([device] "
                           "peak_fp16_tflops in ");
    CHECK_CONTAINS(st.msg, "it has peaks for fp32, bf16 only");
    sm_device_options fp8 = {.precision = "fp8"};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &fp8, &p, &st), -1);
    CHECK_CONTAINS(st.msg, "precision fp8");

    /* A framework's dispatch per kernel and phase (framework_device.ini: 20, 30, 40 us; 3 us
     * per parameter tensor), the same two layers (K = 2 kernels, P = 1 tensor), batch 32:
     *   infer 1.4797504512e-3 + 1.02760448e-4 + 2 x 20 us = 1.6225108992e-3 s
     *   fwd   the same + 2 x 30 us                         = 1.6425108992e-3 s
     *   bwd   2.9595009024e-3 + 1.54140672e-4 + 2 x 40 us  = 3.1936415744e-3 s
     *   grad  1.47456e-6 + 1 x 3 us                         = 4.47456e-6 s */
    const char *framework = "tests/data/curve/framework_device.ini";
    CHECK_EQ(sm_predictor_from_device(framework, &p, &st), 0);
    CHECK_CONTAINS(sm_predictor_describe(p), "test-eager dispatch");
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_infer, 1.6225108992e-3, 1e-9);
    CHECK_NEAR(pr.t_fwd, 1.6425108992e-3, 1e-9);
    CHECK_NEAR(pr.t_bwd, 3.1936415744e-3, 1e-9);
    CHECK_NEAR(pr.t_grad, 4.47456e-6, 1e-9);
    sm_predictor_free(p);
    /* The same with the host running ahead (queued_device.ini: host_runs_ahead = 1): the host
     * issues each layer's kernels in order, a layer's kernels start once issued and once the
     * GPU is done with those before. Batch 32, the GPU busier than the host: a pass is the
     * first layer's dispatch and then every layer's device time,
     *   infer 20 us + 1.4797504512e-3 + 1.02760448e-4 = 1.6025108992e-3 s
     *   fwd   30 us + the same                         = 1.6125108992e-3 s
     *   bwd   40 us + 1.54140672e-4 (relu, issued first) + 2.9595009024e-3 = 3.1536415744e-3 s
     * and a layer's time is what it adds to its pass (the relu's backward 40 us + its device
     * time, the conv's its device time), the layers summing to the pass; its host time what of
     * that the GPU waited for the host: the first layer's dispatch, none of the second's. */
    CHECK_EQ(sm_predictor_from_device("tests/data/curve/queued_device.ini", &p, &st), 0);
    CHECK_CONTAINS(sm_predictor_describe(p), "test-eager dispatch queued ahead of the kernels");
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_infer, 1.6025108992e-3, 1e-12);
    CHECK_NEAR(pr.t_fwd, 1.6125108992e-3, 1e-12);
    CHECK_NEAR(pr.t_bwd, 3.1536415744e-3, 1e-12);
    CHECK_NEAR(pr.t_grad, 4.47456e-6, 1e-12);
    CHECK_EQ(sm_predict_layers(p, net, &one, lp, &st), 0);
    CHECK_NEAR(lp[0].t_fwd, 30e-6 + 1.4797504512e-3, 1e-12);
    CHECK_NEAR(lp[1].t_fwd, 1.02760448e-4, 1e-12);
    CHECK_NEAR(lp[1].t_bwd, 40e-6 + 1.54140672e-4, 1e-12);
    CHECK_NEAR(lp[0].t_bwd, 2.9595009024e-3, 1e-12);
    CHECK_NEAR(lp[0].host_fwd, 30e-6, 1e-15);
    CHECK_NEAR(lp[1].host_fwd, 0, 1e-15);
    CHECK_NEAR(lp[1].host_bwd, 40e-6, 1e-15);
    CHECK_NEAR(lp[0].host_bwd, 0, 1e-15);
    CHECK_EQ(lp[0].bound_fwd, SM_BOUND_COMPUTE);
    CHECK_EQ(lp[1].bound_fwd, SM_BOUND_MEMORY);
    /* Batch 1, backward: the relu (issued first) takes 4.816896e-6 s on the GPU, done before
     * the host has issued the conv at 80 us, so the GPU waits for the host: the pass is both
     * layers' dispatch and then the conv's 9.24844032e-5 s; the relu, which the GPU waited for
     * longer than it ran, is bound by the host, the conv by its arithmetic. */
    CHECK_EQ(sm_predict(p, net, &batch1, &pr, &st), 0);
    CHECK_NEAR(pr.t_bwd, 80e-6 + 9.24844032e-5, 1e-12);
    CHECK_EQ(sm_predict_layers(p, net, &batch1, lp, &st), 0);
    CHECK_EQ(lp[1].bound_bwd, SM_BOUND_HOST);
    CHECK_EQ(lp[0].bound_bwd, SM_BOUND_COMPUTE);
    /* the GPU idles 40 us for the relu, then from its end (40 us + 4.816896e-6 s) until the
     * conv is issued at 80 us */
    CHECK_NEAR(lp[1].host_bwd, 40e-6, 1e-15);
    CHECK_NEAR(lp[0].host_bwd, 80e-6 - 40e-6 - 4.816896e-6, 1e-15);
    CHECK_NEAR(lp[0].t_bwd + lp[1].t_bwd, pr.t_bwd, 1e-15);
    sm_predictor_free(p);
    /* bf16 at its own efficiency, 40e12 x 0.25 = 1e13 FLOP/s for the convolution (a matrix
     * layer); the ReLU stays at fp32 arithmetic and half the bytes; autocast adds 2 cast
     * kernels for the one convolution: 4 launches.
     *   conv 7,398,752,256 / 1e13 = 7.398752256e-4 s > 25,763,840 / 5e11; NCHW: the
     *        transposes above, 1.02760448e-4 s
     *   relu 25,690,112 / 5e11 = 5.1380224e-5 s > 6,422,528 / 5e12
     *   fwd  7.398752256e-4 + 1.02760448e-4 + 5.1380224e-5 + 4 x 30 us = 1.0140158976e-3 s */
    CHECK_EQ(sm_predictor_from_device_opts(framework, &bf16, &p, &st), 0);
    CHECK_CONTAINS(sm_predictor_precision(p), "bf16");
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 1.0140158976e-3, 1e-9);
    sm_predictor_free(p);

    /* Fusion (tests/data/curve/fused_framework.ini: fuse_epilogues = 1, 10 us per kernel) on
     * conv_bn_relu.ini, batch 32, 64 x 56 x 56 = 6,422,528 elements:
     *   relu_in  as the ReLU above: fwd 1.02760448e-4 + 10 us = 1.12760448e-4 s,
     *            bwd 1.54140672e-4 + 10 us = 1.64140672e-4 s
     *   bn_in    12,845,056 FLOPs / 5e12 = 2.569e-6 s < bytes 51,380,224 + 4 x 128 (gamma and
     *            beta) = 51,380,736 / 5e11 = 1.02761472e-4 s; + 10 us = 1.12761472e-4 s;
     *            bwd 2.05522944e-4 + 10 us = 2.15522944e-4 s
     *   conv     fwd 1.4897504512e-3 s, bwd 2.9695009024e-3 s (above)
     *   bn, relu fused into the convolution: nothing.
     * In training a batch norm launches a second kernel forward (num_batches_tracked.add_(1)
     * in nn.BatchNorm2d.forward): 10 us more forward for each that runs, none at inference;
     * the fusing frameworks (MXNet's MLPerf code) launch one kernel per layer, no update.
     * Not fused (round_device.ini, 10 us launches), bn and relu cost what bn_in and relu_in do.
     * The update is the same either way: the fused batch norm keeps its weights. 20 x (36,864
     * + 2 x 128) bytes / 5e11 = 1.4848e-6 s + 5 parameter tensors x 10 us = 5.14848e-5 s. */
    sm_network *cbr;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/conv_bn_relu.ini", NULL, &cbr, &st), 0);
    CHECK_EQ(sm_predictor_from_device(DEVICE, &p, &st), 0);
    CHECK_EQ(sm_predict(p, cbr, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 2 * (1.12760448e-4 + 1.12761472e-4) + 1.4897504512e-3 + 2e-5, 1e-9);
    CHECK_NEAR(pr.t_infer, 2 * (1.12760448e-4 + 1.12761472e-4) + 1.4897504512e-3, 1e-9);
    CHECK_NEAR(pr.t_bwd, 2 * (1.64140672e-4 + 2.15522944e-4) + 2.9695009024e-3, 1e-9);
    CHECK_NEAR(pr.t_grad, 5.14848e-5, 1e-9);
    sm_predictor_free(p);
    sm_device_options fuse = {.framework = "tests/data/curve/fused_framework.ini"};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &fuse, &p, &st), 0);
    CHECK_CONTAINS(sm_predictor_describe(p), "test-fused dispatch");
    CHECK_EQ(sm_predict(p, cbr, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 1.7152723712e-3, 1e-9);
    CHECK_NEAR(pr.t_infer, 1.7152723712e-3, 1e-9);
    CHECK_NEAR(pr.t_bwd, 3.3491645184e-3, 1e-9);
    CHECK_NEAR(pr.t_grad, 5.14848e-5, 1e-9);
    /* 2 bytes per weight (fused_framework.ini), conv_relu.ini on 3 nodes x 4 as above: the
     * gradient is 2 x 36,864 = 73,728 bytes.
     *   inside  2 x 3/4 x 73,728 / 100e9      = 1.10592e-6 s
     *   between 2 x 2/3 x (73,728 / 4) / 5e9  = 4.9152e-6 s
     *   latency                                = 3.2e-5 s
     *   update (as above)                      = 1.147456e-5 s; t_grad 4.949568e-5 s */
    CHECK_EQ(sm_predict(p, net, &cluster, &pr, &st), 0);
    CHECK_NEAR(pr.t_grad, 4.949568e-5, 1e-9);
    sm_predictor_free(p);
    /* BN-ReLU kernels (bn_relu_framework.ini: fuse_bn_relu = 1): both batch norms run, the
     * ReLU fed by the input stays, the ReLU after the last norm rides in its kernel:
     *   fwd relu_in + bn_in + conv + bn = 1.12760448e-4 + 2 x 1.12761472e-4 + 1.4897504512e-3
     *   bwd 1.64140672e-4 + 2 x 2.15522944e-4 + 2.9695009024e-3 */
    sm_device_options bn_relu = {.framework = "tests/data/curve/bn_relu_framework.ini"};
    check_passes(&bn_relu, cbr, &one, BN_RELU_FWD, NAN, BN_RELU_BWD);
    /* Identities between them (conv_bn_relu_identity.ini: nn.Identity, dropout of p = 0)
     * launch nothing and fuse nothing away: both frameworks' times as above. They stood
     * between a convolution and its norm before, and the norm and the ReLU ran. */
    sm_network *cbr_id;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/conv_bn_relu_identity.ini", NULL, &cbr_id, &st),
             0);
    check_passes(&fuse, cbr_id, &one, FUSED_FWD, FUSED_FWD, FUSED_BWD);
    check_passes(&bn_relu, cbr_id, &one, BN_RELU_FWD, NAN, BN_RELU_BWD);
    /* Both flags (bn_relu_both_framework.ini) on bn_relu_unfed.ini, conv_bn_relu.ini with a
     * ReLU (relu_bn, the size of relu_in) after bn_in, which no convolution feeds. fused
     * alone: bn_in runs and relu_bn after it too (fuse_epilogues fuses an activation into a
     * convolution, a linear layer, an addition or a fused layer, none of which feeds it):
     * conv_bn_relu.ini's times above plus relu_in's 1.12760448e-4 forward and 1.64140672e-4
     * backward. Both: bn_in's kernel takes relu_bn (BN-ReLU), and bn and relu fuse into the
     * convolution as under fused: conv_bn_relu.ini's times under fused, 1.7152723712e-3 and
     * 3.3491645184e-3. Before, fuse_bn_relu did nothing beside fuse_epilogues. */
    sm_network *unfed;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/bn_relu_unfed.ini", NULL, &unfed, &st), 0);
    check_passes(&fuse, unfed, &one, FUSED_FWD + 1.12760448e-4, NAN, FUSED_BWD + 1.64140672e-4);
    sm_device_options both = {.framework = "tests/data/curve/bn_relu_both_framework.ini"};
    check_passes(&both, unfed, &one, FUSED_FWD, FUSED_FWD, FUSED_BWD);
    /* and on conv_bn_relu.ini, where every norm but bn_in is fed by the convolution, as
     * fused alone */
    check_passes(&both, cbr, &one, FUSED_FWD, NAN, FUSED_BWD);
    sm_network_free(unfed);
    sm_network_free(cbr_id);

    /* Batch norm bound by the SMs (bn_sm_device.ini: round_device.ini's part with 10 SMs at
     * 1 GHz; [framework] 20 bytes per SM per clock in training, 40 at inference, at bf16 10 and
     * 100), conv_bn_relu.ini at batch 32: bn_in moves 51,380,736 bytes forward (above).
     *   fp32 train  20 x 10 x 1e9 = 2e11 bytes/s < 5e11: 2.5690368e-4 s + 2 kernels x 10 us
     *        infer  4e11 < 5e11: 1.2845184e-4 s + 10 us
     *        bwd    102,761,472 / 2e11 = 5.1380736e-4 s + 10 us
     *   bf16 train  half the bytes, 25,690,368 / 1e11 = 2.5690368e-4 s + 20 us
     *        infer  1e12 > 5e11: the DRAM binds, 25,690,368 / 5e11 = 5.1380736e-5 s + 10 us
     * The ReLU before it is no batch norm: at the DRAM, 1.02760448e-4 s + 10 us forward. */
    sm_layer_prediction lcbr[5];
    CHECK_EQ(sm_predictor_from_device("tests/data/curve/bn_sm_device.ini", &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, cbr, &one, lcbr, &st), 0);
    CHECK_NEAR(lcbr[1].t_fwd, 2.5690368e-4 + 20e-6, 1e-12);
    CHECK_NEAR(lcbr[1].t_infer, 1.2845184e-4 + 10e-6, 1e-12);
    CHECK_NEAR(lcbr[1].t_bwd, 5.1380736e-4 + 10e-6, 1e-12);
    CHECK_EQ(lcbr[1].bound_fwd, SM_BOUND_MEMORY);
    CHECK_NEAR(lcbr[0].t_fwd, 1.02760448e-4 + 10e-6, 1e-12);
    sm_predictor_free(p);
    /* The same part held to 500 MHz under dense work (bn_sm_power_device.ini: sustained_clock_mhz
     * = 500): its batch norms still run at the boost clock, in the keys' unit 1000 x 1830 /
     * 1980 = 924.24 MHz: 51,380,736 / (20 x 10 x 9.2424e8) = 2.7796136e-4 s forward, not
     * 5.1380736e-4 s at 500 MHz; the ReLU at the DRAM's rate does not move */
    CHECK_EQ(sm_predictor_from_device("tests/data/curve/bn_sm_power_device.ini", &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, cbr, &one, lcbr, &st), 0);
    CHECK_NEAR(lcbr[1].t_fwd, 2.7796136e-4 + 20e-6, 1e-7);
    CHECK_NEAR(lcbr[0].t_fwd, 1.02760448e-4 + 10e-6, 1e-12);
    sm_predictor_free(p);
    CHECK_EQ(sm_predictor_from_device_opts("tests/data/curve/bn_sm_device.ini", &bf16, &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, cbr, &one, lcbr, &st), 0);
    CHECK_NEAR(lcbr[1].t_fwd, 2.5690368e-4 + 20e-6, 1e-12);
    CHECK_NEAR(lcbr[1].t_infer, 5.1380736e-5 + 10e-6, 1e-12);
    sm_predictor_free(p);
    sm_network_free(cbr);
    /* Fewer channels than SMs (bn_four_channels.ini, 4 x 56 x 56 at batch 32: read and write
     * 4 bytes an element, 3,211,264 bytes, and its 8 parameters, 32: 3,211,296 forward, twice
     * that backward): a training kernel reduces each channel in a block of its own, so 4 of the
     * 10 SMs stream; inference takes all 10. cuDNN's kernel at fp16 takes an element a clock as
     * at fp32: half the bytes a clock on half the bytes. PyTorch's own at bf16 has its own key.
     *   fp32 train  20 x 4 x 1e9 = 8e10: 4.01412e-5 s + 2 kernels x 10 us; bwd 8.02824e-5 + 10 us
     *        infer  40 x 10 x 1e9 = 4e11: 8.02824e-6 s + 10 us
     *   fp16 train  10 x 4 x 1e9 = 4e10 on 1,605,648 bytes: 4.01412e-5 s + 20 us, fp32's time
     *        infer  20 x 10 x 1e9 = 2e11 on 1,605,648 bytes: 8.02824e-6 s + 10 us, fp32's time
     *               too (an H100's fp16 profiles: 0.89-0.96 of that price, 1.8 at 4e11)
     *   bf16 train  10 x 4 x 1e9 = 4e10 on 1,605,648 bytes: the same */
    sm_network *four;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/bn_four_channels.ini", NULL, &four, &st), 0);
    sm_layer_prediction lfour[1];
    const char *precisions[] = {"fp32", "fp16", "bf16"};
    for (int k = 0; k < 3; k++) {
        sm_device_options o = {.precision = precisions[k]};
        CHECK_EQ(sm_predictor_from_device_opts("tests/data/curve/bn_sm_device.ini", &o, &p, &st),
                 0);
        CHECK_EQ(sm_predict_layers(p, four, &one, lfour, &st), 0);
        CHECK_NEAR(lfour[0].t_fwd, 4.01412e-5 + 20e-6, 1e-12);
        if (k == 0)
            CHECK_NEAR(lfour[0].t_bwd, 8.02824e-5 + 10e-6, 1e-12);
        if (k < 2)
            CHECK_NEAR(lfour[0].t_infer, 8.02824e-6 + 10e-6, 1e-12);
        sm_predictor_free(p);
    }
    sm_network_free(four);
    /* Grouped and depthwise convolutions bound by the SMs (direct_conv_device.ini: 10 SMs at
     * 1 GHz; [framework] depthwise 2 elements and 4 MACs a clock forward, 0.5 and 2 backward;
     * grouped 1 and 0.25 elements a clock at fp32, 2 and 0.5 at bf16), direct_convs.ini at
     * batch 32: each layer's input and output are 64 x 56 x 56 = 200,704 elements a sample,
     * 12,845,056 elements over the batch.
     *   dw       MACs 200,704 x 1 x 9 x 32 = 57,802,752 (backward twice)
     *            fwd 12,845,056 / 2 + 57,802,752 / 4 = 20,873,216 clocks / 1e10 = 2.0873216e-3 s
     *            bwd 12,845,056 / 0.5 + 115,605,504 / 2 = 83,492,864 clocks: 8.3492864e-3 s
     *   grouped  4 channels a group: fwd 12,845,056 / 1 clocks: 1.2845056e-3 s, bwd / 0.25:
     *            5.1380224e-3 s; at bf16 / 2 and / 0.5: 6.422528e-4 and 2.5690112e-3 s
     * each far above its bytes at the DRAM (51.4 MB at 5e11 B/s: 1.03e-4 s) and its FLOPs,
     * plus the 10 us launch a kernel. The dense convolution prices as on a part without the
     * keys; so does the depthwise one at fp16 and on channels-last tensors, which PyTorch
     * hands to cuDNN. At bf16 the depthwise one runs on NCHW, no transposes around it (the
     * grouped one, cuDNN's, takes them: 4 x 12,845,056 bytes / 5e11 = 1.02760448e-4 s). */
    sm_network *dconv;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/direct_convs.ini", NULL, &dconv, &st), 0);
    sm_layer_prediction ld[3], lr[3];
    const char *direct_device = "tests/data/curve/direct_conv_device.ini";
    CHECK_EQ(sm_predictor_from_device(direct_device, &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, dconv, &one, ld, &st), 0);
    sm_predictor_free(p);
    CHECK_NEAR(ld[0].t_fwd, 2.0873216e-3 + 10e-6, 1e-12);
    CHECK_NEAR(ld[0].t_infer, 2.0873216e-3 + 10e-6, 1e-12);
    CHECK_NEAR(ld[0].t_bwd, 8.3492864e-3 + 10e-6, 1e-12);
    CHECK_EQ(ld[0].bound_fwd, SM_BOUND_MEMORY);
    CHECK_NEAR(ld[1].t_fwd, 1.2845056e-3 + 10e-6, 1e-12);
    CHECK_NEAR(ld[1].t_bwd, 5.1380224e-3 + 10e-6, 1e-12);
    CHECK_EQ(sm_predictor_from_device(DEVICE, &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, dconv, &one, lr, &st), 0);
    sm_predictor_free(p);
    CHECK_NEAR(ld[2].t_fwd, lr[2].t_fwd, 1e-12);
    CHECK_NEAR(ld[2].t_bwd, lr[2].t_bwd, 1e-12);
    CHECK(lr[0].t_fwd < 2e-4 && lr[1].t_fwd < 2e-4); /* without the keys: the DRAM's rate */
    CHECK_EQ(sm_predictor_from_device_opts(direct_device, &bf16, &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, dconv, &one, ld, &st), 0);
    sm_predictor_free(p);
    CHECK_NEAR(ld[0].t_fwd, 2.0873216e-3 + 10e-6, 1e-12);
    CHECK_NEAR(ld[1].t_fwd, 6.422528e-4 + 1.02760448e-4 + 10e-6, 1e-12);
    CHECK_NEAR(ld[1].t_bwd, 2.5690112e-3 + 2 * 1.02760448e-4 + 10e-6, 1e-12);
    /* each beside the same part and layout without the keys (fp16: transpose_share's
     * framework at fp16 on NCHW, its transposes for the grouped and dense layers alone) */
    const sm_device_options cudnn_runs[][2] = {
        {{.precision = "fp16"},
         {.precision = "fp16", .framework = "tests/data/curve/transpose_share_framework.ini"}},
        {{.framework = "tests/data/curve/direct_nhwc_framework.ini"},
         {.framework = "tests/data/curve/channels_last_framework.ini"}}};
    for (int k = 0; k < 2; k++) {
        CHECK_EQ(sm_predictor_from_device_opts(direct_device, &cudnn_runs[k][0], &p, &st), 0);
        CHECK_EQ(sm_predict_layers(p, dconv, &one, ld, &st), 0);
        sm_predictor_free(p);
        CHECK_EQ(sm_predictor_from_device_opts(direct_device, &cudnn_runs[k][1], &p, &st), 0);
        CHECK_EQ(sm_predict_layers(p, dconv, &one, lr, &st), 0);
        sm_predictor_free(p);
        CHECK_NEAR(ld[0].t_fwd, lr[0].t_fwd, 1e-12);
        CHECK_NEAR(ld[0].t_bwd, lr[0].t_bwd, 1e-12);
    }
    sm_network_free(dconv);
    /* Depthwise convolutions on channels-last tensors (permuted_depthwise.ini): dw_nchw reads
     * the contiguous input, priced by the keys as above; dw_nhwc reads the sum of a permuted
     * tensor (the permutes, layer_scale, dropout and the sum keep its channels-last steps),
     * dw_after a convolution's output of one (cuDNN keeps the layout), dw_ln a LayerNorm2d's:
     * PyTorch hands each to cuDNN, priced as on the part without the keys. */
    sm_network *perm;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/permuted_depthwise.ini", NULL, &perm, &st), 0);
    sm_layer_prediction lperm[11], lq[11];
    CHECK_EQ(perm->n_layers, 11);
    CHECK_EQ(sm_predictor_from_device(direct_device, &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, perm, &one, lperm, &st), 0);
    sm_predictor_free(p);
    CHECK_EQ(sm_predictor_from_device(DEVICE, &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, perm, &one, lq, &st), 0);
    sm_predictor_free(p);
    CHECK_NEAR(lperm[0].t_fwd, 2.0873216e-3 + 10e-6, 1e-12);
    const int cudnn_layers[] = {7, 8, 10}; /* dw_nhwc, dw_after, dw_ln */
    for (int k = 0; k < 3; k++) {
        int i = cudnn_layers[k];
        CHECK(perm->layers[i].input_channels_last);
        CHECK_NEAR(lperm[i].t_fwd, lq[i].t_fwd, 1e-12);
        CHECK_NEAR(lperm[i].t_bwd, lq[i].t_bwd, 1e-12);
    }
    CHECK(!perm->layers[0].input_channels_last);
    sm_network_free(perm);
    /* A residual sum (residual_relu.ini on round_device.ini at batch 32: each tensor 6,422,528
     * elements, 25,690,112 bytes at fp32, 5e11 bytes/s): forward it reads two and writes one,
     * 1.54140672e-4 s; backward no kernel of its own, autograd's sum of the two gradients its
     * shortcut's tensor receives, the same traffic (an H100's profiles: no kernel under the
     * sum's backward); each plus the 10 us launch. The ReLU after it: 1.02760448e-4 s forward,
     * 1.54140672e-4 backward (three tensors). With fuse_epilogues (fused_framework.ini, 10 us
     * a kernel) the ReLU runs in the sum's epilogue: nothing forward, and its gradient's
     * 1.54140672e-4 s in the fused kernel's backward pass, launched with it. */
    sm_network *res;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/residual_relu.ini", NULL, &res, &st), 0);
    sm_layer_prediction lres[3];
    layers_on(DEVICE, NULL, res, &one, lres);
    CHECK_NEAR(lres[1].t_fwd, 1.54140672e-4 + 10e-6, 1e-12);
    CHECK_NEAR(lres[1].t_bwd, 1.54140672e-4 + 10e-6, 1e-12);
    CHECK_NEAR(lres[2].t_fwd, 1.02760448e-4 + 10e-6, 1e-12);
    CHECK_NEAR(lres[2].t_bwd, 1.54140672e-4 + 10e-6, 1e-12);
    layers_on(DEVICE, &fuse, res, &one, lres);
    CHECK_NEAR(lres[1].t_bwd, 1.54140672e-4 + 10e-6, 1e-12);
    CHECK_NEAR(lres[2].t_fwd, 0, 1e-15);
    CHECK_NEAR(lres[2].t_bwd, 1.54140672e-4, 1e-12);
    CHECK(lres[2].fused == 1);
    sm_network_free(res);
    /* cuDNN's depthwise kernels priced by the SMs too (cudnn_depthwise_device.ini: the part
     * above with cuDNN's rates: 4 elements and 8 MACs a clock forward, 1 and 4 backward at fp16
     * and bf16; 1 and 4, 0.5 and 1 at tf32; 1 and 2, 0.25 and 0.5 at fp32), at batch 32.
     * depthwise_rule.ini at fp16 on NCHW tensors, as ATen's use_cudnn_depthwise hands them out:
     *   dw_s1, 3 x 3 of stride 1 on 64 x 56 x 56 (cuDNN): 12,845,056 elements, 57,802,752 MACs:
     *     fwd 12,845,056 / 4 + 57,802,752 / 8 = 10,436,608 clocks / 1e10 = 1.0436608e-3 s,
     *     bwd 12,845,056 / 1 + 115,605,504 / 4 = 41,746,432 clocks: 4.1746432e-3 s
     *   dw_s2, stride 2 over 64 channels (PyTorch's): 64 x 28 x 28 out, 8,028,160 elements,
     *     14,450,688 MACs: fwd 8,028,160 / 2 + 14,450,688 / 4 = 7,626,752 clocks: 7.626752e-4 s
     *   dw_k7, 7 x 7 (PyTorch's): 12,845,056 elements, 314,703,872 MACs: fwd 12,845,056 / 2 +
     *     314,703,872 / 4 = 85,098,496 clocks: 8.5098496e-3 s
     *   dw_wide_s2, stride 2 over 512 channels of 56 x 56 (cuDNN): 64,225,280 elements,
     *     115,605,504 MACs: fwd 64,225,280 / 4 + 115,605,504 / 8 = 30,507,008 clocks:
     *     3.0507008e-3 s; bwd 64,225,280 / 1 + 231,211,008 / 4 = 122,028,032: 1.22028032e-2 s
     * and permuted_depthwise.ini's dw_nhwc (channels-last: cuDNN's at every precision) at fp32:
     *   fwd 12,845,056 / 1 + 57,802,752 / 2 = 41,746,432 clocks: 4.1746432e-3 s, bwd
     *   12,845,056 / 0.25 + 115,605,504 / 0.5 = 282,591,232: 2.82591232e-2 s; at tf32 fwd
     *   12,845,056 + 57,802,752 / 4 = 27,295,744: 2.7295744e-3 s, bwd 12,845,056 / 0.5 +
     *   115,605,504 = 141,295,616: 1.41295616e-2 s
     * each above its bytes at the DRAM (fp32: 51.4 MB at 5e11 B/s, 1.03e-4 s), plus the 10 us
     * launch a kernel. At bf16 dw_s1 stays PyTorch's (2.0873216e-3 s, as above). */
    const char *cudnn_device = "tests/data/curve/cudnn_depthwise_device.ini";
    const sm_device_options tf32 = {.precision = "tf32"};
    sm_network *rule;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/depthwise_rule.ini", NULL, &rule, &st), 0);
    sm_layer_prediction lrule[5];
    layers_on(cudnn_device, &fp16, rule, &one, lrule);
    CHECK_NEAR(lrule[0].t_fwd, 1.0436608e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lrule[0].t_bwd, 4.1746432e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lrule[1].t_fwd, 7.626752e-4 + 10e-6, 1e-12);
    CHECK_NEAR(lrule[2].t_fwd, 8.5098496e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lrule[4].t_fwd, 3.0507008e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lrule[4].t_bwd, 1.22028032e-2 + 10e-6, 1e-12);
    layers_on(cudnn_device, &bf16, rule, &one, lrule);
    CHECK_NEAR(lrule[0].t_fwd, 2.0873216e-3 + 10e-6, 1e-12);
    sm_network_free(rule);
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/permuted_depthwise.ini", NULL, &perm, &st), 0);
    layers_on(cudnn_device, NULL, perm, &one, lperm);
    CHECK_NEAR(lperm[7].t_fwd, 4.1746432e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lperm[7].t_bwd, 2.82591232e-2 + 10e-6, 1e-12);
    CHECK_NEAR(lperm[0].t_fwd, 2.0873216e-3 + 10e-6, 1e-12); /* NCHW: PyTorch's */
    layers_on(cudnn_device, &tf32, perm, &one, lperm);
    CHECK_NEAR(lperm[7].t_fwd, 2.7295744e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lperm[7].t_bwd, 1.41295616e-2 + 10e-6, 1e-12);
    sm_network_free(perm);
    /* Poolings bound by the SMs (pooling_device.ini: 10 SMs at 1 GHz; [framework] pooling 1
     * input element a clock forward, 0.25 backward), poolings.ini at batch 32:
     *   max 3 x 3 / 2 on 64 x 56 x 56: 6,422,528 input elements: fwd 6.422528e-4 s, bwd
     *     2.5690112e-3 s
     *   avg 2 x 2 / 2 on 64 x 28 x 28: 1,605,632: fwd 1.605632e-4 s, bwd 6.422528e-4 s
     *   global on 64 x 14 x 14: 401,408: fwd 4.01408e-5 s; its backward pass, a broadcast, the
     *     DRAM's, as on the part without the keys
     * each above its bytes at the DRAM (the max pooling's 32.1 MB at 5e11 B/s: 6.4e-5 s), plus
     * the 10 us launch a kernel; at bf16 the same (the SMs' rate is the kernel's, whatever the
     * bytes), with no transposes (no convolution) */
    sm_network *pools;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/poolings.ini", NULL, &pools, &st), 0);
    CHECK_EQ(pools->n_layers, 3);
    sm_layer_prediction lpool[3], lbare[3];
    layers_on(DEVICE, NULL, pools, &one, lbare);
    for (int k = 0; k < 2; k++) {
        sm_device_options o = {.precision = k ? "bf16" : "fp32"};
        layers_on("tests/data/curve/pooling_device.ini", &o, pools, &one, lpool);
        CHECK_NEAR(lpool[0].t_fwd, 6.422528e-4 + 10e-6, 1e-12);
        CHECK_NEAR(lpool[0].t_infer, 6.422528e-4 + 10e-6, 1e-12);
        CHECK_NEAR(lpool[0].t_bwd, 2.5690112e-3 + 10e-6, 1e-12);
        CHECK_EQ(lpool[0].bound_bwd, SM_BOUND_MEMORY);
        CHECK_NEAR(lpool[1].t_fwd, 1.605632e-4 + 10e-6, 1e-12);
        CHECK_NEAR(lpool[1].t_bwd, 6.422528e-4 + 10e-6, 1e-12);
        CHECK_NEAR(lpool[2].t_fwd, 4.01408e-5 + 10e-6, 1e-12);
        if (!k)
            CHECK_NEAR(lpool[2].t_bwd, lbare[2].t_bwd, 1e-12);
    }
    CHECK(lbare[0].t_fwd < 1e-4 && lbare[0].t_bwd < 2e-4); /* without the keys: the DRAM's */
    /* 2 us of the device's own a kernel (kernel_device_framework.ini, beside the 10 us
     * dispatch round_device.ini's launch gives): each pooling's one kernel a pass adds 2 us
     * to each pass, none of it the host's */
    sm_device_options grid = {.framework = "tests/data/curve/kernel_device_framework.ini"};
    layers_on(DEVICE, &grid, pools, &one, lpool);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(lpool[i].t_infer, lbare[i].t_infer + 2e-6, 1e-12);
        CHECK_NEAR(lpool[i].t_fwd, lbare[i].t_fwd + 2e-6, 1e-12);
        CHECK_NEAR(lpool[i].t_bwd, lbare[i].t_bwd + 2e-6, 1e-12);
        CHECK_NEAR(lpool[i].host_fwd, lbare[i].host_fwd, 1e-15);
    }
    sm_device_options twice = {.framework =
                                   "tests/data/curve/kernel_device_on_device_framework.ini"};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &twice, &p, &st), -1);
    CHECK_CONTAINS(st.msg, "kernel_device_on_device_framework.ini:9: kernel_device_us beside "
                           "dispatch_on_device = 1 (line 8)");
    /* and the file alone, as the loader reads it: what it takes the predictor takes
     * (fuzz_framework found the two apart) */
    sm_device alone;
    CHECK_EQ(sm_device_load(DEVICE, &alone, &st), 0);
    CHECK_EQ(sm_device_load_framework("tests/data/curve/kernel_device_on_device_framework.ini",
                                      &alone, &st),
             -1);
    CHECK_CONTAINS(st.msg, ":9: kernel_device_us beside dispatch_on_device = 1");
    sm_network_free(pools);
    /* Layer norms bound by the SMs (rownorm_device.ini: 10 SMs at 1 GHz; [framework] 100
     * clocks a row and 2 input elements a clock forward, 50 and 0.5 backward), layernorms.ini at
     * batch 32, each pass rows x clocks + elements / rate over 1e10 SM clocks a second:
     *   over channels: 32 x 3,136 = 100,352 rows of 96, 9,633,792 elements:
     *     fwd 10,035,200 + 4,816,896 clocks = 1.4852096e-3 s
     *     bwd 5,017,600 + 19,267,584 clocks = 2.4285184e-3 s
     *   over 56 x 56 maps: 32 x 96 = 3,072 rows of 3,136, the same elements:
     *     fwd 307,200 + 4,816,896 clocks = 5.124096e-4 s
     *     bwd 153,600 + 19,267,584 clocks = 1.9421184e-3 s
     * each above its bytes at the DRAM (input and output, 77.1 MB at 5e11 B/s: 1.5e-4 s
     * forward) and its 48 MFLOPs (9.6e-6 s), plus the 10 us launch a kernel; at bf16 the same
     * (the rows are the kernel's, whatever the bytes) */
    sm_network *norms;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/layernorms.ini", NULL, &norms, &st), 0);
    CHECK_EQ(norms->n_layers, 2);
    CHECK_EQ(norms->layers[0].m.norm_rows, 3136);
    CHECK_EQ(norms->layers[1].m.norm_rows, 96);
    sm_layer_prediction lnorm[2], lnbare[2];
    layers_on(DEVICE, NULL, norms, &one, lnbare);
    for (int k = 0; k < 2; k++) {
        sm_device_options o = {.precision = k ? "bf16" : "fp32"};
        layers_on("tests/data/curve/rownorm_device.ini", &o, norms, &one, lnorm);
        CHECK_NEAR(lnorm[0].t_fwd, 1.4852096e-3 + 10e-6, 1e-12);
        CHECK_NEAR(lnorm[0].t_infer, 1.4852096e-3 + 10e-6, 1e-12);
        CHECK_NEAR(lnorm[0].t_bwd, 2.4285184e-3 + 10e-6, 1e-12);
        CHECK_NEAR(lnorm[1].t_fwd, 5.124096e-4 + 10e-6, 1e-12);
        CHECK_NEAR(lnorm[1].t_bwd, 1.9421184e-3 + 10e-6, 1e-12);
    }
    /* without the keys: the DRAM's (forward 1.5e-4 s of bytes) */
    CHECK(lnbare[0].t_fwd < 2e-4 && lnbare[1].t_fwd < 2e-4);
    /* The 16-bit kernel (rownorm_half_device.ini: 4 elements a clock forward, 1 backward, the
     * rows' clocks as above) where the norm runs at 16 bits (bf16, no autocast):
     *   over channels: fwd 10,035,200 + 9,633,792 / 4 = 12,443,648 clocks = 1.2443648e-3 s
     *                  bwd 5,017,600 + 9,633,792 / 1 = 14,651,392 clocks = 1.4651392e-3 s
     *   over maps:     fwd 307,200 + 2,408,448 = 2,715,648 clocks = 2.715648e-4 s
     *                  bwd 153,600 + 9,633,792 = 9,787,392 clocks = 9.787392e-4 s
     * at fp32 the fp32 kernel's as above; under autocast (rownorm_autocast_device.ini) the norm
     * runs in fp32 at bf16 too: at least the fp32 kernel's time, not the 16-bit one's */
    sm_device_options at_bf16 = {.precision = "bf16"}, at_fp32 = {.precision = "fp32"};
    layers_on("tests/data/curve/rownorm_half_device.ini", &at_bf16, norms, &one, lnorm);
    CHECK_NEAR(lnorm[0].t_fwd, 1.2443648e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lnorm[0].t_infer, 1.2443648e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lnorm[0].t_bwd, 1.4651392e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lnorm[1].t_fwd, 2.715648e-4 + 10e-6, 1e-12);
    CHECK_NEAR(lnorm[1].t_bwd, 9.787392e-4 + 10e-6, 1e-12);
    layers_on("tests/data/curve/rownorm_half_device.ini", &at_fp32, norms, &one, lnorm);
    CHECK_NEAR(lnorm[0].t_fwd, 1.4852096e-3 + 10e-6, 1e-12);
    CHECK_NEAR(lnorm[0].t_bwd, 2.4285184e-3 + 10e-6, 1e-12);
    layers_on("tests/data/curve/rownorm_autocast_device.ini", &at_bf16, norms, &one, lnorm);
    CHECK(lnorm[0].t_fwd >= 1.4852096e-3 + 10e-6 - 1e-12);
    CHECK(lnorm[0].t_bwd >= 2.4285184e-3 + 10e-6 - 1e-12);
    sm_network_free(norms);
    /* A stem and a bias bound by the SMs (stem_device.ini: 10 SMs at 1 GHz; [framework] stem 2
     * elements and 50 MACs a clock forward, 1 and 100 backward; bias 1 output element a clock
     * forward, 2 backward), stem.ini at batch 32: 3 x 32 x 32 in, 16 x 32 x 32 out, 3 x 3:
     *   elements 32 x (3,072 + 16,384) = 622,592; MACs 32 x 16,384 x 27 = 14,155,776
     *   stem fwd 311,296 + 283,115.52 clocks = 5.9441152e-5 s, its bias 524,288 outputs at 1:
     *     5.24288e-5 s; bwd 622,592 + 2 x 14,155,776 / 100 = 905,707.52 clocks = 9.0570752e-5 s,
     *     its bias's gradient 524,288 / 2 = 2.62144e-5 s
     * each above its FLOPs (28.8 M at 5e12: 5.8e-6 s) and bytes (2.5 MB at 5e11 B/s), plus the
     * 10 us launch of each of its two kernels a pass; at bf16 the same, with no transposes */
    sm_network *stem;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/stem.ini", NULL, &stem, &st), 0);
    CHECK_EQ(stem->layers[0].conv_channels, 3);
    CHECK_EQ(stem->layers[0].conv_bias, 1);
    CHECK_EQ(stem->layers[1].conv_channels, 16);
    CHECK_EQ(stem->layers[1].conv_bias, 0);
    sm_layer_prediction lstem[2], lsbare[2];
    layers_on(DEVICE, NULL, stem, &one, lsbare);
    for (int k = 0; k < 2; k++) {
        sm_device_options o = {.precision = k ? "bf16" : "fp32"};
        layers_on("tests/data/curve/stem_device.ini", &o, stem, &one, lstem);
        CHECK_NEAR(lstem[0].t_fwd, 5.9441152e-5 + 5.24288e-5 + 20e-6, 1e-12);
        CHECK_NEAR(lstem[0].t_infer, 5.9441152e-5 + 5.24288e-5 + 20e-6, 1e-12);
        CHECK_NEAR(lstem[0].t_bwd, 9.0570752e-5 + 2.62144e-5 + 20e-6, 1e-12);
    }
    /* the layer after the stem, of 16 channels and no bias, is priced as without the keys */
    layers_on("tests/data/curve/stem_device.ini", NULL, stem, &one, lstem);
    CHECK_NEAR(lstem[1].t_fwd, lsbare[1].t_fwd, 1e-15);
    CHECK_NEAR(lstem[1].t_bwd, lsbare[1].t_bwd, 1e-15);
    CHECK(lsbare[0].t_fwd < 5e-5); /* without the keys: its FLOPs and launches */
    /* 5 us a convolution's kernel beyond its arithmetic (conv_pass_device.ini: stem_device.ini
     * and conv_pass_us = 5): the dense convolution after the stem takes 5 us more forward and
     * at inference, 10 backward (its data and weight gradients); the stem, a direct kernel,
     * none */
    sm_layer_prediction lpass[2];
    for (int k = 0; k < 2; k++) {
        sm_device_options o = {.precision = k ? "bf16" : "fp32"};
        layers_on("tests/data/curve/stem_device.ini", &o, stem, &one, lstem);
        layers_on("tests/data/curve/conv_pass_device.ini", &o, stem, &one, lpass);
        CHECK_NEAR(lpass[1].t_fwd, lstem[1].t_fwd + 5e-6, 1e-15);
        CHECK_NEAR(lpass[1].t_infer, lstem[1].t_infer + 5e-6, 1e-15);
        CHECK_NEAR(lpass[1].t_bwd, lstem[1].t_bwd + 10e-6, 1e-15);
        CHECK_NEAR(lpass[0].t_fwd, lstem[0].t_fwd, 1e-15);
        CHECK_NEAR(lpass[0].t_bwd, lstem[0].t_bwd, 1e-15);
    }
    sm_network_free(stem);
    /* on a part that gives no SMs the bound cannot hold: refused, not dropped */
    sm_device_options kernels = {.framework = "configs/frameworks/pytorch-eager-kernels.ini"};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &kernels, &p, &st), -1);
    CHECK_CONTAINS(st.msg, "pytorch-eager-kernels.ini:");
    CHECK_CONTAINS(st.msg, "gives no sm_count");

    /* A quarter of the transposes (transpose_share_framework.ini: nchw_transpose_share = 0.25,
     * 10 us a kernel), the convolution and ReLU at bf16 above:
     *   fwd conv 3.699376128e-4 + 0.25 x 1.02760448e-4 + 10 us, relu 5.1380224e-5 + 10 us
     *       = 4.670079488e-4 s
     *   bwd conv 7.398752256e-4 + 0.25 x 2.05520896e-4 + 10 us, relu 7.7070336e-5 + 10 us
     *       = 8.883257856e-4 s */
    sm_device_options quarter = {.precision = "bf16",
                                 .framework = "tests/data/curve/transpose_share_framework.ini"};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &quarter, &p, &st), 0);
    CHECK_EQ(sm_predict(p, net, &one, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 4.670079488e-4, 1e-12);
    CHECK_NEAR(pr.t_bwd, 8.883257856e-4, 1e-12);
    CHECK_CONTAINS(sm_predictor_describe_for(p, 1),
                   "roofline at bf16 NCHW (cuDNN transposes 25% of the convolutions' tensors)");
    sm_predictor_free(p);

    /* sm_device_allreduce of a size below zero or not a number predicted 0 s and succeeded:
     * refused, naming the size; a size of its own beside them still predicts */
    sm_allreduce_layout al = {.nodes = 2};
    sm_allreduce_estimate est[2];
    const double negative[2] = {1e6, -5}, not_a_number[1] = {NAN}, endless[1] = {INFINITY};
    CHECK_EQ(sm_device_allreduce("h100", &al, negative, 2, est, &st), -1);
    CHECK_MSG(strstr(st.msg, "size 2 of the all-reduce, -5 bytes: expected a finite size"), "%s",
              st.msg);
    CHECK_EQ(sm_device_allreduce("h100", &al, not_a_number, 1, est, &st), -1);
    CHECK_MSG(strstr(st.msg, "size 1 of the all-reduce, nan bytes"), "%s", st.msg);
    CHECK_EQ(sm_device_allreduce("h100", &al, endless, 1, est, &st), -1);
    CHECK_EQ(sm_device_allreduce("h100", &al, negative, 1, est, &st), 0);
    CHECK(est[0].seconds > 0);

    /* A recurrence: one LSTM layer, S = 4 steps of E = 8 into H = 8 (G = 4 gates), batch 1.
     * FLOPs 2 x 4 x 32 x 16 (the gates' products) + 32 units x (26 + 8) = 5,184; bytes 4 x 4 x
     * (8 + 64 + 8) + 4 x 576 weights = 3,584: memory-bound, 7.168e-9 s forward (compute
     * 1.0368e-9), 1.4336e-8 backward. Its one kernel dispatched at the 10 us launch, and the
     * kernels cuDNN launches inside the call at 10 us each: 2 S + 1 = 9 forward, 2 S + 2 = 10
     * backward, one after another.
     *   forward  7.168e-9 + 10 us + 90 us = 1.00007168e-4 s (inference the same)
     *   backward 1.4336e-8 + 10 us + 100 us = 1.10014336e-4 s */
    sm_network *lstm;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/lstm_tiny.ini", NULL, &lstm, &st), 0);
    CHECK_EQ(sm_predictor_from_device(DEVICE, &p, &st), 0);
    sm_layout single = {1, 1, 1, 1};
    CHECK_EQ(sm_predict(p, lstm, &single, &pr, &st), 0);
    CHECK_NEAR(pr.t_fwd, 1.00007168e-4, 1e-12);
    CHECK_NEAR(pr.t_infer, 1.00007168e-4, 1e-12);
    CHECK_NEAR(pr.t_bwd, 1.10014336e-4, 1e-12);
    sm_predictor_free(p);
    sm_network_free(lstm);

    /* A dropout does no arithmetic: in training its kernel streams the input, the output and a
     * 1-byte mask, 200,704 elements a sample x 32 x (4 + 4 + 1) = 57,802,752 bytes each pass,
     * 1.15605504e-4 s at 5e11 bytes/s, then its 10 us dispatch. What limits it is its memory:
     * it was named compute, its bytes being serial ones, which the comparison left out. */
    sm_network *drop = net_load(reg,
                                "[network]\nname = relu_dropout\ninput = 64x56x56\n[layers]\n"
                                "relu = relu\ndrop = dropout p=0.1\n",
                                0, &st);
    CHECK(drop != NULL);
    CHECK_EQ(sm_predictor_from_device(DEVICE, &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, drop, &one, lp, &st), 0);
    CHECK_NEAR(lp[1].t_fwd, 1.15605504e-4 + 10e-6, 1e-12);
    CHECK_NEAR(lp[1].t_bwd, 1.15605504e-4 + 10e-6, 1e-12);
    CHECK_EQ(lp[1].bound_fwd, SM_BOUND_MEMORY);
    CHECK_EQ(lp[1].bound_bwd, SM_BOUND_MEMORY);
    CHECK_EQ(lp[1].bound_infer, SM_BOUND_NONE);
    sm_predictor_free(p);
    sm_network_free(drop);
    /* A loss is of training alone too, under a fusing framework as well, whose one kernel a
     * working layer and pass took its dispatch and stream at inference: a fusing framework
     * made GPT-2's inference slower than eager's (round 7) */
    drop = net_load(reg,
                    "[network]\nname = loss\ninput = 16x64\n[layers]\n"
                    "head = linear out=1000\nloss = cross_entropy\n",
                    0, &st);
    CHECK(drop != NULL);
    sm_device_options fusing = {.framework = "tests/data/curve/fused_framework.ini"};
    CHECK_EQ(sm_predictor_from_device_opts(DEVICE, &fusing, &p, &st), 0);
    CHECK_EQ(sm_predict_layers(p, drop, &one, lp, &st), 0);
    CHECK_EQ(lp[1].fused, 0);
    CHECK(lp[1].t_infer == 0);
    CHECK(lp[1].t_fwd > 10e-6 && lp[1].t_bwd > 10e-6 && lp[0].t_infer > 10e-6);
    sm_predictor_free(p);
    sm_network_free(drop);

    /* Convolutions priced by kind and pass (conv_kinds_device.ini's [framework], batch 32, the
     * launch's 10 us a kernel). conv_relu.ini's 3 x 3 (9 taps) at conv_fwd_efficiency 0.25 and
     * conv_bwd_efficiency 0.125 of the 10 TFLOP/s peak:
     *   fwd 7,398,752,256 / 2.5e12 = 2.9595009024e-3 + 10 us, relu 1.12760448e-4
     *       = 3.0822613504e-3 s
     *   bwd 14,797,504,512 / 1.25e12 = 1.18380036096e-2 + 10 us, relu 1.64140672e-4
     *       = 1.20121442816e-2 s
     * conv1x1_relu.ini's 1 x 1 (1 tap): 200,704 x 64 MACs a sample, 822,083,584 FLOPs at 32,
     * at conv1x1_fwd_efficiency 0.4 and conv1x1_bwd_efficiency 0.2, beside its 51,396,608
     * bytes (activations and 4,096 weights) at 5e11:
     *   fwd 822,083,584 / 4e12 = 2.05520896e-4 > 1.02793216e-4; + 10 us, relu 1.12760448e-4
     *       = 3.28281344e-4 s
     *   bwd 1,644,167,168 / 2e12 = 8.22083584e-4 > 2.05586432e-4; + 10 us, relu 1.64140672e-4
     *       = 9.96224256e-4 s
     * and on round_device.ini, which gives no kinds, the 1 x 1 at conv_efficiency's 0.5:
     *   fwd 1.644167168e-4 + 10 us + 1.12760448e-4 = 2.87177165e-4 s */
    sm_network *pointwise;
    CHECK_EQ(sm_network_load(reg, "tests/data/curve/conv1x1_relu.ini", NULL, &pointwise, &st), 0);
    CHECK_EQ(sm_network_layer(net, "conv")->kernel_taps, 9);
    CHECK_EQ(sm_network_layer(pointwise, "conv")->kernel_taps, 1);
    CHECK_EQ(sm_network_layer(pointwise, "relu")->kernel_taps, 0);
    const sm_device_options own = {0};
    check_passes_on("tests/data/curve/conv_kinds_device.ini", &own, net, &one, 3.0822613504e-3, NAN,
                    1.20121442816e-2);
    check_passes_on("tests/data/curve/conv_kinds_device.ini", &own, pointwise, &one, 3.28281344e-4,
                    NAN, 9.96224256e-4);
    check_passes(&own, pointwise, &one, 2.87177165e-4, NAN, NAN);
    /* a framework given for the part prices the kinds as it says: one that says nothing of
     * them, conv_efficiency (the 3 x 3 at the top's times) */
    const sm_device_options eager = {.framework = "tests/data/curve/transpose_share_framework.ini"};
    check_passes_on("tests/data/curve/conv_kinds_device.ini", &eager, net, &one,
                    1.4897504512e-3 + 1.12760448e-4, NAN, 2.9695009024e-3 + 1.64140672e-4);

    /* cuDNN 9's transposes at bf16 (transpose_sm_device.ini: 5 elements per SM and clock on 10
     * SMs at 1 GHz, 5e10 elements a second, each 2 bytes read and 2 written: 2e11 bytes a
     * second, below the DRAM's 5e11). conv_relu.ini's 3 x 3 is transposed: its input and
     * output, 12,845,056 elements, take 2.5690112e-4 s forward (at the DRAM's rate
     * 1.02760448e-4, the bf16 times above), twice backward:
     *   fwd 3.699376128e-4 + 2.5690112e-4 + 10 us, relu 5.1380224e-5 + 10 us
     *       = 6.982189568e-4 s
     *   bwd 7.398752256e-4 + 5.1380224e-4 + 10 us, relu 7.7070336e-5 + 10 us
     *       = 1.3507478016e-3 s
     * conv1x1_relu.ini's 1 x 1 of stride 1 over 56 x 56 = 3,136 positions runs on NCHW, as its
     * channels-last form: bytes 25,698,304 / 5e11 = 5.1396608e-5 > 822,083,584 / 2e13
     *   fwd 5.1396608e-5 + 10 us, relu 5.1380224e-5 + 10 us = 1.22776832e-4 s
     *   bwd 1.02793216e-4 + 10 us, relu 7.7070336e-5 + 10 us = 1.99863552e-4 s
     * and from 3,137 positions (transpose_sm_wide_device.ini) it is transposed as the 3 x 3 */
    const sm_device_options half = {.precision = "bf16"};
    check_passes_on("tests/data/curve/transpose_sm_device.ini", &half, net, &one, 6.982189568e-4,
                    6.982189568e-4, 1.3507478016e-3);
    check_passes_on("tests/data/curve/transpose_sm_device.ini", &half, pointwise, &one,
                    1.22776832e-4, 1.22776832e-4, 1.99863552e-4);
    check_passes_on("tests/data/curve/transpose_sm_wide_device.ini", &half, pointwise, &one,
                    1.22776832e-4 + 2.5690112e-4, NAN, 1.99863552e-4 + 5.1380224e-4);
    /* a rate above the DRAM's leaves the DRAM to bound them (the bf16 times above) */
    const sm_device_options fast = {.precision = "bf16",
                                    .framework = "tests/data/curve/transpose_fast_framework.ini"};
    check_passes_on("tests/data/curve/transpose_sm_device.ini", &fast, net, &one, 5.440782848e-4,
                    NAN, 1.0424664576e-3);
    sm_predictor *tp = NULL;
    CHECK_EQ(
        sm_predictor_from_device_opts("tests/data/curve/transpose_sm_device.ini", &half, &tp, &st),
        0);
    CHECK_CONTAINS(sm_predictor_describe_for(tp, 1),
                   "roofline at bf16 NCHW (cuDNN transposes around convolutions, not dense 1 x 1 "
                   "ones of stride 1 over 3136 positions or more), ");
    sm_predictor_free(tp);
    sm_network_free(pointwise);

    /* the power limit an energy per time is held to: configs/devices/h100.ini's power_limit_w
     * = 700, alone and beside a calibration; a calibration alone has none */
    CHECK_EQ(sm_predictor_from_device("h100", &tp, &st), 0);
    CHECK(sm_predictor_power_limit(tp) == 700);
    sm_predictor_free(tp);
    tp = NULL;
    CHECK_EQ(
        sm_predictor_from_coeffs_device("tests/data/fit/energy_coeffs.ini", "h100", NULL, &tp, &st),
        0);
    CHECK(sm_predictor_power_limit(tp) == 700);
    sm_predictor_free(tp);
    tp = NULL;
    CHECK_EQ(sm_predictor_from_coeffs("tests/data/fit/energy_coeffs.ini", &tp, &st), 0);
    CHECK(sm_predictor_power_limit(tp) == 0);
    sm_predictor_free(tp);

    sm_network_free(net);
    sm_registry_free(reg);
    return check_summary();
}
