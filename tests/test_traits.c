/*
 * test_traits: the core prices, fuses and classifies layers by their plugins' traits (plugin.h,
 * ABI 3), never by their type names: a user's matrix product that declares SM_TRAIT_MATMUL is
 * priced as linear is at every precision, the same plugin built for ABI 2 still loads and is
 * priced at the fp32 vector peak with the documented default of what it keeps, one built for
 * ABI 4 launches the default kernel counts, and the in-tree
 * window_attention and lstm run their products on tensor cores at bf16.
 *
 * Expected times are hand-derived on tests/data/curve/round_device.ini: fp32 at 10 TFLOP/s x
 * 0.5 = 5e12 FLOP/s, bf16 at 40 x 0.5 = 2e13, 10 us launch per kernel, memory 5e11 bytes/s.
 * The products are 256 rows x 1024 -> 1024: 268,435,456 MACs, 536,870,912 FLOPs: 107.37 us at
 * fp32 and 26.84 us at bf16, each above its memory time (at most 12.6 us), plus 10 us.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "net_file.h"
#include "scalemeter/device.h"
#include "scalemeter/memory.h"
#include "scalemeter/predict.h"

#define ROUND "tests/data/curve/round_device.ini"
#define FLOPS 536870912.0

static sm_registry *reg;

static sm_network *load(const char *layers)
{
    char text[512];
    snprintf(text, sizeof text, "[network]\nname = t\ninput = %s\n[layers]\n%s\n",
             strstr(layers, "window_attention") ? "14x14x384" : "256x1024", layers);
    sm_status st;
    sm_network *net = NULL;
    if (sm_network_load(reg, net_file(text), NULL, &net, &st))
        fprintf(stderr, "%s\n", st.msg);
    return net;
}

/* The forward time of one training pass of net at a batch and precision. */
static double t_fwd_at(const char *layers, const char *precision, int64_t batch)
{
    sm_network *net = load(layers);
    sm_device_options opt = {.precision = precision};
    sm_predictor *p = NULL;
    sm_status st;
    sm_prediction out = {0};
    sm_layout one = {batch, 1, 1, 1};
    if (!net || sm_predictor_from_device_opts(ROUND, &opt, &p, &st) ||
        sm_predict(p, net, &one, &out, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        out.t_fwd = -1;
    }
    sm_predictor_free(p);
    sm_network_free(net);
    return out.t_fwd;
}

static double t_fwd(const char *layers, const char *precision)
{
    return t_fwd_at(layers, precision, 1);
}

static void test_matmul_trait(void)
{
    const char *linear = "y = linear out=1024 bias=false";
    const char *user = "y = user_matmul out=1024";
    CHECK_NEAR(t_fwd(linear, "fp32"), FLOPS / 5e12 + 10e-6, 1e-9);
    CHECK_NEAR(t_fwd(linear, "bf16"), FLOPS / 2e13 + 10e-6, 1e-9);
    CHECK_NEAR(t_fwd(user, "fp32"), FLOPS / 5e12 + 10e-6, 1e-9);
    CHECK_NEAR(t_fwd(user, "bf16"), FLOPS / 2e13 + 10e-6, 1e-9);
}

static void test_abi2_defaults(void)
{
    const char *old = "y = user_abi2 out=1024";
    /* no traits: the vector peak at every precision */
    CHECK_NEAR(t_fwd(old, "fp32"), FLOPS / 5e12 + 10e-6, 1e-9);
    CHECK_NEAR(t_fwd(old, "bf16"), FLOPS / 5e12 + 10e-6, 1e-9);
    const sm_layer_type *t = sm_registry_find(reg, "user_abi2");
    CHECK(t && t->abi_version == 2 && t->traits == 0 && t->saved == NULL);
    /* what it keeps by default: its input and its output, 256 x 1024 fp32 each; linear keeps
     * its input alone, and the network's output (its own), which the loss reads, is held
     * beside it all the same. The backward pass adds the output's gradient (the input, the
     * network's, needs none) */
    sm_network *net = load(old);
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory m;
    sm_status st;
    CHECK(net && sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_NEAR(m.activations, 2 * 256 * 1024 * 4.0, 1e-12);
    CHECK_NEAR(m.backward, 256 * 1024 * 4.0, 1e-12);
    CHECK_NEAR(m.weights, 1024 * 1024 * 4.0, 1e-12);
    sm_network_free(net);
    net = load("y = linear out=1024 bias=false");
    CHECK(net && sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_NEAR(m.activations, 2 * 256 * 1024 * 4.0, 1e-12);
    CHECK_NEAR(m.backward, 256 * 1024 * 4.0, 1e-12);
    sm_network_free(net);
}

/* A plugin of ABI 4 loads, and a layer that costs anything launches the default one kernel
 * per pass: 1 x 10 us on the round device, as before ABI 5. */
static void test_abi4_defaults(void)
{
    const char *old = "y = user_abi4 out=1024";
    const sm_layer_type *t = sm_registry_find(reg, "user_abi4");
    CHECK(t && t->abi_version == 4);
    CHECK_NEAR(t_fwd(old, "fp32"), FLOPS / 5e12 + 10e-6, 1e-9);
    sm_network *net = load(old);
    sm_metrics m = {0};
    sm_status st;
    CHECK(net && sm_network_metrics(net, 1, &m, &st) == 0);
    CHECK(m.kernels_infer == 1 && m.kernels_fwd == 1 && m.kernels_bwd == 1);
    sm_network_free(net);
}

/* A plugin of ABI 16, the version before SM_TRAIT_LOSS, loads and is priced as this version's
 * user_matmul: ABI 17 added a trait and no field. */
static void test_abi16_loads(void)
{
    const sm_layer_type *t = sm_registry_find(reg, "user_abi16");
    CHECK(t && t->abi_version == 16 && t->traits == SM_TRAIT_MATMUL);
    CHECK_NEAR(t_fwd("y = user_abi16 out=1024", "fp32"), FLOPS / 5e12 + 10e-6, 1e-9);
    CHECK_NEAR(t_fwd("y = user_abi16 out=1024", "bf16"), FLOPS / 2e13 + 10e-6, 1e-9);
}

/* A network of the one layer line, which the host refuses with want in its message. */
static void check_refused(const char *layer, const char *want)
{
    char text[256];
    snprintf(text, sizeof text, "[network]\nname = t\ninput = 256x1024\n[layers]\n%s\n", layer);
    sm_status st;
    sm_network *net = NULL;
    CHECK(sm_network_load(reg, net_file(text), NULL, &net, &st) != 0 && net == NULL);
    CHECK_MSG(strstr(st.msg, want) != NULL, "%s", st.msg);
}

/* ABI 6's serial_bytes: a product declaring half its 2 x 256 x 1024 x 4 bytes per sample as
 * element-wise kernels between products pays them after its roofline, 1,048,576 bytes at
 * 5e11 bytes/s (halved at bf16); one declaring more than its bytes is refused by name. */
static void test_serial_bytes(void)
{
    const char *plain = "y = user_matmul out=1024", *serial = "y = user_serial out=1024";
    CHECK_NEAR(t_fwd(serial, "fp32") - t_fwd(plain, "fp32"), 1048576 / 5e11, 1e-12);
    CHECK_NEAR(t_fwd(serial, "bf16") - t_fwd(plain, "bf16"), 524288 / 5e11, 1e-12);
    check_refused("y = user_badserial out=1024",
                  ":5: layer y (user_badserial): the plugin's serial_bytes 2097153 is not within "
                  "its 2097152 bytes");
}

/* ABI 7's upcast_bytes: a product of 256 rows x 1024 -> 1 (memory-bound: 524,288 FLOPs, at
 * most 0.11 us, against 4 x (262,144 + 256) + 4 x 1024 weights = 1,053,696 bytes, 2.1 us at
 * fp32) that computes in fp32 moves its 1,049,600 activation bytes more at bf16, 2.0992 us at
 * 5e11 bytes/s, and nothing more at fp32; trained at bf16 it keeps its 256 x 1024 input at 2
 * bytes, the bf16 copy of its 1024 weights autocast makes, and 4 bytes more per output element
 * (256 x 4), beside the network's output (256 elements), and its backward pass the output's
 * gradient (256 elements; the network's input needs none). Negative bytes, more
 * passes over attention scores than 16, a softmax form ABI 8 does not know, an ABI 10
 * scores_fused other than 0 or 1, ABI 11 library kernels below 0 and a counts_io flag other than 0
 * or 1 (which counted the layer's I and O as 1 does) are refused by name. */
static void test_upcast_bytes(void)
{
    const char *plain = "y = user_matmul out=1", *upcast = "y = user_upcast out=1";
    CHECK_NEAR(t_fwd(upcast, "fp32") - t_fwd(plain, "fp32"), 0, 1e-12);
    CHECK_NEAR(t_fwd(upcast, "bf16") - t_fwd(plain, "bf16"), 1049600 / 5e11, 1e-12);
    sm_network *net = load(upcast);
    sm_memory_config c = {.half = 1, .optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory m;
    sm_status st;
    CHECK(net && sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_NEAR(m.activations, 256 * 1024 * 2.0 + 1024 * 2.0 + 256 * 4.0 + 256 * 2.0, 1e-12);
    CHECK_NEAR(m.backward, 256 * 2.0, 1e-12);
    c.half = 0;
    CHECK(net && sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_NEAR(m.activations, 256 * 1024 * 4.0 + 256 * 4.0, 1e-12);
    CHECK_NEAR(m.backward, 256 * 4.0, 1e-12);
    sm_network_free(net);
    check_refused("y = user_badupcast out=1",
                  ":5: layer y (user_badupcast): the plugin's upcast_bytes -1 is negative or "
                  "overflows");
    check_refused("y = user_badpasses out=1",
                  ":5: layer y (user_badpasses): the plugin's score passes (forward 17, backward "
                  "0) are not within 0 to 16");
    check_refused("y = user_badsoftmax out=1",
                  ":5: layer y (user_badsoftmax): the plugin's scores_softmax 3 is not one of "
                  "plugin.h's SM_SOFTMAX_ (0 to 2)");
    check_refused("y = user_badfused out=1",
                  ":5: layer y (user_badfused): the plugin's scores_fused 2 is not 0 or 1");
    check_refused("y = user_badlibrary out=1",
                  ":5: layer y (user_badlibrary): the plugin's library kernels (forward 0, "
                  "backward -3) are not within 0 to 1099511627776");
    check_refused("y = user_badio out=1",
                  ":5: layer y (user_badio): the plugin's counts_io 2 is not 0 or 1");
}

static void test_families(void)
{
    sm_network *net = load("y = user_attention out=1024");
    CHECK(net && sm_network_family(net) == SM_FAMILY_TRANSFORMER);
    sm_network_free(net);
    net = load("y = user_matmul out=1024");
    CHECK(net && sm_network_family(net) == SM_FAMILY_MLP);
    sm_network_free(net);
    net = load("r = lstm hidden=512");
    CHECK(net && sm_network_family(net) == SM_FAMILY_RECURRENT);
    sm_network_free(net);
}

/* The in-tree types whose products were priced at the fp32 peak at every precision before the
 * traits: their matrix products (most of their FLOPs, compute-bound at batch 32) now run at
 * bf16's peak, 4 times fp32's on this device, so bf16 takes well under half fp32's time. The
 * lstm's 256 steps launch 2 x 256 + 1 = 513 kernels inside cuDNN's call at the round device's
 * 10 us each (plugin.h's library kernels), the same at every precision: left out. */
static void test_in_tree_products(void)
{
    const char *nets[] = {"r = lstm hidden=512",
                          "g = window_attention dim=384 heads=12 window=7 shift=3"};
    const double launches[] = {513 * 10e-6, 0};
    for (int i = 0; i < 2; i++) {
        double fp32 = t_fwd_at(nets[i], "fp32", 32) - launches[i],
               bf16 = t_fwd_at(nets[i], "bf16", 32) - launches[i];
        CHECK_MSG(fp32 > 0 && bf16 > 0 && bf16 < 0.5 * fp32, "%s: fp32 %g s, bf16 %g s", nets[i],
                  fp32, bf16);
    }
}

/* The default keeps every input, more than 32 too (bit 31 stands for input 31 and every later
 * one): 40 linear layers of 16 outputs from a 16-element input, all read by one user_many of
 * out=4. Kept per sample at fp32: the input (the linear layers'), the 40 outputs and user_many's
 * output (the default, and the network's): (16 + 40 x 16 + 4) x 4 = 2640 B, where inputs 32
 * to 39 were once left out (2128 B). The backward pass's peak is user_many's, all of it still
 * kept: beside it the output's gradient and the 40 inputs' new ones, (4 + 40 x 16) x 4. */
static void test_many_inputs(void)
{
    char text[2048] = "[network]\nname = t\ninput = 16\n[layers]\n", from[512] = "";
    size_t used = strlen(text), listed = 0;
    for (int i = 0; i < 40; i++) {
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "l%d = linear out=16 from=@input\n", i);
        listed += (size_t)snprintf(from + listed, sizeof from - listed, "%sl%d", i ? "," : "", i);
    }
    snprintf(text + used, sizeof text - used, "m = user_many out=4 from=%s\n", from);
    sm_status st;
    sm_network *net = NULL;
    CHECK(sm_network_load(reg, net_file(text), NULL, &net, &st) == 0);
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory m;
    CHECK(net && sm_network_memory(net, 1, 1, 1, &c, &m, &st) == 0);
    CHECK_NEAR(m.activations, (16 + 40 * 16 + 4) * 4.0, 1e-12);
    CHECK_NEAR(m.backward, (4 + 40 * 16) * 4.0, 1e-12);
    sm_network_free(net);
}

int main(int argc, char **argv)
{
    sm_status st;
    if (argc < 2 || sm_registry_open(&reg, &st) || sm_registry_load_dir(reg, argv[1], &st)) {
        fprintf(stderr, "usage: test_traits PLUGIN_DIR (%s)\n", argc < 2 ? "" : st.msg);
        return 2;
    }
    test_matmul_trait();
    test_abi2_defaults();
    test_abi4_defaults();
    test_abi16_loads();
    test_serial_bytes();
    test_upcast_bytes();
    test_families();
    test_in_tree_products();
    test_many_inputs();
    sm_registry_free(reg);
    return check_summary();
}
