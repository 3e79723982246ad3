/*
 * test_gpu_host: what of the GPU backend can be checked without a GPU, run wherever it is
 * built (CI has the CUDA toolkit but no device):
 *   - every layer type with kernels (tests/layer_types.h) has GPU kernels, of this header's
 *     struct size, in companion modules the registry loads only when asked;
 *   - the GPU kernels' host parts: the initial weights and state they write (PyTorch's
 *     initialisation, batch norm's running variance of 1) and the state sizes they ask for;
 *   - the GPU executor's refusals: a layer without GPU kernels (file and line named), a
 *     precision not implemented, and, where no device is visible, a clean error, no crash;
 *   - a network that ends in its loss (cross_entropy, SM_TRAIT_LOSS: GPT-2) passes its check,
 *     the executor computing that loss itself, and a loss anywhere else is refused by line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_device.h"
#include "executor_cuda.h"
#include "layer_types.h"
#include "net_file.h"

static sm_registry *reg;

/* The GPU kernels of a type, from its companion module; NULL without (or on a load failure,
 * reported). */
static const struct sm_gpu_kernels *gpu_of(const sm_layer_type *t)
{
    const struct sm_gpu_kernels *k = NULL;
    sm_status st;
    if (sm_registry_gpu_kernels(reg, t, &k, &st))
        fprintf(stderr, "%s: %s\n", t->name, st.msg);
    return k;
}

static const struct sm_cpu_kernels *cpu_of(const sm_layer_type *t)
{
    const struct sm_cpu_kernels *k = NULL;
    sm_status st;
    if (sm_registry_cpu_kernels(reg, t, &k, &st))
        fprintf(stderr, "%s: %s\n", t->name, st.msg);
    return k;
}

#define NET(input, layers) "[network]\nname = t\ninput = " input "\n[layers]\n" layers

/* Every type of tests/layer_types.h that has kernels has them for the GPU and the CPU. */
static void test_gpu_kernels_present(void)
{
    for (int i = 0; i < N_TEST_LAYER_TYPES; i++) {
        if (!test_layer_types[i].kernels)
            continue;
        const sm_layer_type *t = sm_registry_find(reg, test_layer_types[i].name);
        CHECK(t != NULL);
        if (!t)
            continue;
        const struct sm_gpu_kernels *g = gpu_of(t);
        const struct sm_cpu_kernels *c = cpu_of(t);
        if (!g || !c)
            fprintf(stderr, "%s: GPU kernels %p, CPU kernels %p\n", t->name, (const void *)g,
                    (const void *)c);
        CHECK(g != NULL && c != NULL);
        if (g) {
            CHECK_EQ(g->abi_version, SM_PLUGIN_ABI_VERSION);
            CHECK_EQ(g->struct_size, sizeof(struct sm_gpu_kernels));
            CHECK(g->forward != NULL && g->backward != NULL);
            CHECK(gpu_of(t) == g); /* loaded once */
        }
    }
    /* every type of ours with CPU kernels has GPU kernels too (a fake plugin of
     * SCALEMETER_PLUGIN_PATH may have neither) */
    printf("CPU kernels only:");
    for (int i = 0; i < sm_registry_count(reg); i++) {
        const sm_layer_type *t = sm_registry_type(reg, i);
        if (cpu_of(t) && !gpu_of(t)) {
            printf(" %s", t->name);
            CHECK(!"a type with CPU kernels and none for the GPU");
        }
    }
    printf("\n");
}

/* The layer `name` of a loaded network, as its GPU kernels see it (host pointers only). */
typedef struct host_layer {
    sm_network *net;
    sm_layer_io call;
    sm_tensor in, out;
} host_layer;

static int host_layer_of(host_layer *h, const char *text, int64_t batch)
{
    sm_status st;
    memset(h, 0, sizeof *h);
    if (!(h->net = net_load(reg, text, 0, &st))) {
        fprintf(stderr, "network: %s\n", st.msg);
        return -1;
    }
    const sm_layer *l = &h->net->layers[h->net->n_layers - 1];
    h->in = (sm_tensor){NULL, batch,
                        l->n_inputs && l->inputs[0] >= 0 ? h->net->layers[l->inputs[0]].out
                                                         : h->net->input};
    h->out = (sm_tensor){NULL, batch, l->out};
    static const sm_gpu_context ctx = {.struct_size = sizeof(sm_gpu_context)};
    h->call = (sm_layer_io){.struct_size = sizeof(sm_layer_io),
                            .params = l->params,
                            .n_in = 1,
                            .in = &h->in,
                            .out = &h->out,
                            .dout = &h->out,
                            .din = &h->in,
                            .n_w = l->m.weights,
                            .gpu = &ctx};
    return 0;
}

static void test_init_and_state(void)
{
    host_layer h;
    /* conv2d: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) from the host's U(-1, 1) */
    if (host_layer_of(&h, NET("4x5x5", "c = conv2d out=6 kernel=3 groups=2\n"), 2) == 0) {
        const struct sm_gpu_kernels *k = gpu_of(h.net->layers[0].type);
        float w[6 * 2 * 9 + 6];
        for (int i = 0; i < 6 * 2 * 9 + 6; i++)
            w[i] = i % 2 ? 1.0f : -1.0f;
        CHECK_EQ(h.call.n_w, 6 * 2 * 9 + 6);
        k->init(&h.call, w, NULL);
        CHECK(fabs(w[0] + 1 / sqrt(18.0)) < 1e-6 && fabs(w[113] - 1 / sqrt(18.0)) < 1e-6);
        CHECK(k->state_size == NULL);
    }
    sm_network_free(h.net);
    /* conv_transpose2d: fan_in is the weight's size(1) x taps, out/groups x kh x kw = 3 x 9
     * (a convolution's rule, C/groups x taps, would give 18) */
    if (host_layer_of(&h, NET("4x5x5", "t = conv_transpose2d out=6 kernel=3 groups=2\n"), 2) == 0) {
        const struct sm_gpu_kernels *k = gpu_of(h.net->layers[0].type);
        float w[4 * 3 * 9 + 6];
        for (int i = 0; i < 4 * 3 * 9 + 6; i++)
            w[i] = i % 2 ? 1.0f : -1.0f;
        CHECK_EQ(h.call.n_w, 4 * 3 * 9 + 6);
        CHECK(k && k->init);
        if (k && k->init) {
            k->init(&h.call, w, NULL);
            CHECK(fabs(w[0] + 1 / sqrt(27.0)) < 1e-6 && fabs(w[113] - 1 / sqrt(27.0)) < 1e-6);
        }
    }
    sm_network_free(h.net);
    /* linear: 1/sqrt(in features) */
    if (host_layer_of(&h, NET("3x8", "fc = linear out=5\n"), 2) == 0) {
        const struct sm_gpu_kernels *k = gpu_of(h.net->layers[0].type);
        float w[45];
        for (int i = 0; i < 45; i++)
            w[i] = 1.0f;
        k->init(&h.call, w, NULL);
        CHECK(fabs(w[44] - 1 / sqrt(8.0)) < 1e-6);
    }
    sm_network_free(h.net);
    /* batchnorm2d: 8 C floats of state; running variance 1, the ones 1, gamma 1, beta 0 */
    if (host_layer_of(&h, NET("3x4x4", "bn = batchnorm2d\n"), 2) == 0) {
        const struct sm_gpu_kernels *k = gpu_of(h.net->layers[0].type);
        CHECK_EQ(k->state_size(&h.call), 8 * 3 * sizeof(float));
        float w[6] = {5, 5, 5, 5, 5, 5}, s[24] = {0};
        k->init(&h.call, w, s);
        CHECK(w[0] == 1 && w[2] == 1 && w[3] == 0 && w[5] == 0);
        CHECK(s[0] == 0 && s[3 * 3] == 1 && s[3 * 3 + 2] == 1 && s[4 * 3] == 1 && s[5 * 3] == 0);
        CHECK(s[2 * 3] == 0); /* running mean */
    }
    sm_network_free(h.net);
    /* dropout: a byte of mask per element; layernorm: mean and rstd per row */
    if (host_layer_of(&h, NET("5x6", "d = dropout p=0.5\n"), 3) == 0)
        CHECK_EQ(gpu_of(h.net->layers[0].type)->state_size(&h.call), 3 * 5 * 6);
    sm_network_free(h.net);
    if (host_layer_of(&h, NET("5x6", "ln = layernorm\n"), 3) == 0)
        CHECK_EQ(gpu_of(h.net->layers[0].type)->state_size(&h.call), 2 * 3 * 5 * sizeof(float));
    sm_network_free(h.net);
    if (host_layer_of(&h, NET("4x3x2", "ln = layernorm channels=true\n"), 2) == 0)
        CHECK_EQ(gpu_of(h.net->layers[0].type)->state_size(&h.call), 2 * 2 * 6 * sizeof(float));
    sm_network_free(h.net);
    /* rmsnorm: rstd alone per row (3 x 5 rows of 6); groupnorm: mean and rstd per sample and
     * group (3 x 2) */
    if (host_layer_of(&h, NET("5x6", "r = rmsnorm\n"), 3) == 0)
        CHECK_EQ(gpu_of(h.net->layers[0].type)->state_size(&h.call), 3 * 5 * sizeof(float));
    sm_network_free(h.net);
    if (host_layer_of(&h, NET("4x3x2", "g = groupnorm groups=2\n"), 3) == 0)
        CHECK_EQ(gpu_of(h.net->layers[0].type)->state_size(&h.call), 2 * 3 * 2 * sizeof(float));
    sm_network_free(h.net);
    /* max pooling keeps an argmax only where cuDNN's windows do not fit (ceil_mode adds one) */
    if (host_layer_of(&h, NET("2x7x7", "p = maxpool2d kernel=3 stride=2 padding=1\n"), 2) == 0)
        CHECK_EQ(gpu_of(h.net->layers[0].type)->state_size(&h.call), 0);
    sm_network_free(h.net);
    if (host_layer_of(&h, NET("2x8x8", "p = maxpool2d kernel=3 stride=2 ceil_mode=true\n"), 2) ==
        0) {
        CHECK_EQ(h.out.shape.dim[1], 4); /* floor mode would give 3 */
        CHECK_EQ(gpu_of(h.net->layers[0].type)->state_size(&h.call), 2 * 2 * 4 * 4 * 4);
    }
    sm_network_free(h.net);
}

static void test_refusals(void)
{
    sm_status st;
    /* every type of ours has GPU kernels; tests/fake_plugin.c's test_identity has none (ctest
     * sets SCALEMETER_PLUGIN_PATH to it) */
    sm_network *net = NULL;
    if (getenv("SCALEMETER_PLUGIN_PATH"))
        net = net_load(reg, NET("5x8", "fc = linear out=8\na = test_identity\n"), 0, &st);
    else
        printf("refusal of a type without GPU kernels: not checked (SCALEMETER_PLUGIN_PATH "
               "names no folder with tests/fake_plugin.c's test_identity)\n");
    if (net) {
        CHECK(sm_cuda_executor_check(net, &st) == -1);
        CHECK_CONTAINS(st.msg, ":6: layer 'a' of type 'test_identity' has no GPU kernel");
        CHECK_CONTAINS(st.msg, "cannot run on the cuda backend");
        sm_network_free(net);
    } else if (getenv("SCALEMETER_PLUGIN_PATH")) {
        fprintf(stderr, "test_identity: %s\n", st.msg);
        CHECK(0);
    }
    CHECK_EQ(sm_gpu_precision_parse("tf32"), SM_GPU_TF32);
    CHECK_EQ(sm_gpu_precision_parse("bf16"), SM_GPU_BF16);
    CHECK_EQ(sm_gpu_precision_parse("fp64"), -1);
    CHECK(sm_gpu_precision_check(SM_GPU_FP32, &st) == 0);
    CHECK(sm_gpu_precision_check(SM_GPU_TF32, &st) == 0);
    CHECK(sm_gpu_precision_check(SM_GPU_FP16, &st) == 0);
    CHECK(sm_gpu_precision_check(SM_GPU_BF16, &st) == 0);
    CHECK(sm_gpu_precision_check(4, &st) == -1);
    CHECK_CONTAINS(st.msg, "precision 4 is not one of the GPU backend's");
    net = net_load(reg, NET("3x8x8", "c = conv2d out=4 kernel=3\n"), 0, &st);
    if (!net) {
        CHECK(0);
        return;
    }
    sm_cuda_executor *ex = NULL;
    sm_cuda_executor_options opt = {.batch = 2, .precision = 9};
    CHECK(sm_cuda_executor_new(net, &opt, &ex, &st) == -1 && ex == NULL);
    CHECK_CONTAINS(st.msg, "precision 9 is not one of the GPU backend's");
    opt.precision = SM_GPU_FP32;
    opt.batch = 0;
    CHECK(sm_cuda_executor_new(net, &opt, &ex, &st) == -1);
    CHECK_CONTAINS(st.msg, "batch 0 is not a positive number");
    sm_cuda_info info;
    if (sm_cuda_probe(&info, &st)) {
        /* no device here: the executor fails cleanly at its first CUDA call */
        CHECK_CONTAINS(st.msg, "no CUDA device");
        opt.batch = 2;
        CHECK(sm_cuda_executor_new(net, &opt, &ex, &st) == -1 && ex == NULL);
        printf("without a device: %s\n", st.msg);
        CHECK_CONTAINS(st.msg, "cudaSetDevice");
        CHECK_EQ(sm_cuda_device_count(), 0);
    }
    sm_network_free(net);
}

/* GPT-2's zoo file ends in cross_entropy, which has no GPU kernels: the executor computes that
 * loss itself (an H100's zoo test said "gpt2 not run: ...: layer 'loss' of type
 * 'cross_entropy' has no GPU kernel" before SM_TRAIT_LOSS). A loss before the last layer has
 * none to stand for it. */
static void test_loss_layer(void)
{
    sm_status st;
    sm_network *net = NULL;
    sm_network_options opt = {.image = 16};
    CHECK_MSG(sm_network_load(reg, "gpt2", &opt, &net, &st) == 0, "%s", st.msg);
    if (net) {
        CHECK(!strcmp(net->layers[net->n_layers - 1].type->name, "cross_entropy"));
        CHECK_MSG(sm_cuda_executor_check(net, &st) == 0, "%s", st.msg);
        sm_network_free(net);
    }
    net = net_load(
        reg, NET("3x5", "fc = linear out=4\nloss = cross_entropy\nafter = linear out=2\n"), 0, &st);
    CHECK_MSG(net != NULL, "%s", st.msg);
    if (net) {
        CHECK(sm_cuda_executor_check(net, &st) == -1);
        CHECK_CONTAINS(st.msg,
                       ":6: layer 'loss' of type 'cross_entropy' is a loss (SM_TRAIT_LOSS)");
        sm_network_free(net);
    }
}

int main(void)
{
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "registry: %s\n", st.msg);
        return 1;
    }
    test_gpu_kernels_present();
    test_init_and_state();
    test_refusals();
    test_loss_layer();
    sm_registry_free(reg);
    return check_summary();
}
