/*
 * test_kernel_counts: the kernels eager PyTorch launches per pass (plugin.h ABI 5), counted by
 * hand from PyTorch's and torchvision's sources and torch.profiler on torch 1.13, and the
 * dispatch the device model charges for them.
 *
 * The block: a 3x3 convolution with bias, a batch norm, stochastic depth (p 0.1) and dropout.
 *   conv   forward 2 (cuDNN, then the bias's add_), backward 2 (cuDNN, the bias's sum);
 *          inference 2
 *   bn     forward 2 (cuDNN's batch norm, num_batches_tracked.add_(1)), backward 1;
 *          inference 1
 *   sd     forward 3 (bernoulli_, div_, mul), backward 1 (mul); inference 0
 *   drop   forward 1 (native_dropout), backward 1; inference 0
 *   total  inference 3, forward 8, backward 5
 * tests/data/curve/framework_device.ini dispatches 20, 30 and 40 us per kernel (inference,
 * forward, backward), round_device.ini 10 us in every pass, with the same roofline at fp32:
 * the difference is 3 x 10 = 30 us at inference, 8 x 20 = 160 us forward, 5 x 30 = 150 us
 * backward.
 */
#include "check.h"
#include "net_file.h"
#include "scalemeter/device.h"

static const char *const NET = "[network]\nname = k\ninput = 16x8x8\n[layers]\n"
                               "conv = conv2d out=16 kernel=3 padding=1\n"
                               "bn = batchnorm2d\n"
                               "sd = identity stochastic_depth=0.1\n"
                               "drop = dropout p=0.5\n";

static int predict(const char *device, const sm_network *net, sm_prediction *out)
{
    sm_status st;
    sm_predictor *p = NULL;
    sm_layout one = {4, 1, 1, 1};
    int rc = sm_predictor_from_device(device, &p, &st) || sm_predict(p, net, &one, out, &st);
    if (rc)
        fprintf(stderr, "%s: %s\n", device, st.msg);
    sm_predictor_free(p);
    return rc;
}

int main(void)
{
    sm_status st;
    sm_registry *reg;
    sm_network *net;
    if (sm_registry_open(&reg, &st) || sm_network_load(reg, net_file(NET), NULL, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    sm_metrics m;
    CHECK_EQ(sm_network_metrics(net, 4, &m, &st), 0);
    CHECK_EQ(m.kernels_infer, 3);
    CHECK_EQ(m.kernels_fwd, 8);
    CHECK_EQ(m.kernels_bwd, 5);
    /* ConvMeter's K stays the working layers: the convolution and the batch norm */
    CHECK_EQ(m.kernels, 2);

    sm_prediction fw, round;
    CHECK_EQ(predict("tests/data/curve/framework_device.ini", net, &fw), 0);
    CHECK_EQ(predict("tests/data/curve/round_device.ini", net, &round), 0);
    CHECK_NEAR(fw.t_infer - round.t_infer, 30e-6, 1e-12);
    CHECK_NEAR(fw.t_fwd - round.t_fwd, 160e-6, 1e-12);
    CHECK_NEAR(fw.t_bwd - round.t_bwd, 150e-6, 1e-12);
    sm_network_free(net);

    /* Without bias, stochastic depth at p = 0 (torchvision returns its input) and dropout at
     * p = 0: one kernel each way for the convolution, the batch norm's two forward. */
    const char *plain = "[network]\nname = k\ninput = 16x8x8\n[layers]\n"
                        "conv = conv2d out=16 kernel=3 padding=1 bias=false\n"
                        "bn = batchnorm2d\nsd = identity\ndrop = dropout p=0\n";
    CHECK_EQ(sm_network_load(reg, net_file(plain), NULL, &net, &st), 0);
    CHECK_EQ(sm_network_metrics(net, 4, &m, &st), 0);
    CHECK_EQ(m.kernels_infer, 2);
    CHECK_EQ(m.kernels_fwd, 3);
    CHECK_EQ(m.kernels_bwd, 2);
    sm_network_free(net);

    /* A depthwise convolution with bias adds it inside its fp32 kernel (conv_depthwise2d):
     * one forward, and still the bias's sum backward. */
    const char *dw = "[network]\nname = k\ninput = 16x8x8\n[layers]\n"
                     "conv = conv2d out=16 kernel=7 padding=3 groups=16\n";
    CHECK_EQ(sm_network_load(reg, net_file(dw), NULL, &net, &st), 0);
    CHECK_EQ(sm_network_metrics(net, 1, &m, &st), 0);
    CHECK_EQ(m.kernels_fwd, 1);
    CHECK_EQ(m.kernels_bwd, 2);
    sm_network_free(net);
    sm_registry_free(reg);
    return check_summary();
}
