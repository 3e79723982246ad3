/*
 * test_gpu_executor: the GPU kernels of the plugins, run by the GPU executor
 * (calibrate/executor_cuda.c), against the CPU kernels run by the CPU executor, whose own test
 * (test_executor.c) checks them against finite differences and direct loops.
 *
 * Both executors start from the same weights, input and labels (the same generator and seed)
 * and drop the same elements in dropout, so for every small network below the GPU must give
 * the CPU's numbers: the training forward pass, the loss and its gradient, the input and
 * weight gradients after backward, the weights after an SGD step, and the inference pass that
 * follows (batch norm's running statistics). Differences are the largest absolute one relative
 * to the largest value compared: cuDNN's algorithms (Winograd, FFT, implicit GEMM) sum in
 * other orders, TF32 rounds its inputs to 10 bits.
 *
 * Needs a CUDA device; without one it prints why and exits 77, which ctest reports as skipped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_device.h"
#include "executor_cuda.h"
#include "net_file.h"
#include "executor.h"

static sm_registry *reg;

static int64_t elems(const sm_tensor *t) { return t->n * sm_shape_elems(&t->shape); }

/* Largest |gpu - cpu| relative to the largest |cpu| (at least 1e-3). */
static double rel_diff(const float *gpu, const float *cpu, int64_t n)
{
    double d = 0, scale = 1e-3;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs((double)gpu[i] - cpu[i]);
        d = e > d || e != e ? e : d;
        scale = fabs(cpu[i]) > scale ? fabs(cpu[i]) : scale;
    }
    return d / scale;
}

/* A device buffer against a host one. */
static double against(sm_cuda_executor *g, const float *device, const float *host, int64_t n)
{
    if (n == 0)
        return 0;
    float *copy = malloc((size_t)n * sizeof *copy);
    sm_status st;
    double d = 1e30;
    if (copy && sm_cuda_executor_download(g, device, copy, n, &st) == 0)
        d = rel_diff(copy, host, n);
    else if (copy)
        fprintf(stderr, "download: %s\n", st.msg);
    free(copy);
    return d;
}

typedef struct pair {
    sm_network *net;
    sm_executor *cpu;
    sm_cuda_executor *gpu;
} pair;

static int open_pair(pair *p, const char *text, int64_t batch, int precision, int algo)
{
    sm_status st;
    memset(p, 0, sizeof *p);
    if (!(p->net = net_load(reg, text, 0, &st))) {
        fprintf(stderr, "network: %s\n", st.msg);
        return -1;
    }
    sm_executor_options co = {.batch = batch, .seed = 7, .input_grad = 1};
    sm_cuda_executor_options go = {.batch = batch, .seed = 7, .input_grad = 1, .device = 0,
                                   .precision = precision, .algo_search = algo};
    if (sm_executor_new(p->net, &co, &p->cpu, &st)) {
        fprintf(stderr, "cpu executor: %s\n", st.msg);
        return -1;
    }
    if (sm_cuda_executor_new(p->net, &go, &p->gpu, &st)) {
        fprintf(stderr, "gpu executor: %s\n", st.msg);
        return -1;
    }
    return 0;
}

static void close_pair(pair *p)
{
    sm_cuda_executor_free(p->gpu);
    sm_executor_free(p->cpu);
    sm_network_free(p->net);
}

/* Forward (training), loss, backward, SGD, inference on both; every difference within tol. */
static void compare(const char *what, const char *text, int64_t batch, int precision, int algo,
                    double tol)
{
    pair p;
    if (open_pair(&p, text, batch, precision, algo)) {
        fprintf(stderr, "%s: could not set up\n", what);
        CHECK(!what);
        close_pair(&p);
        return;
    }
    sm_status st;
    double d[7] = {0}, cpu_loss = 0, gpu_loss = 0;
    int ok = sm_executor_forward(p.cpu, 1, &st) == 0 &&
             sm_cuda_executor_forward(p.gpu, 1, &st) == 0;
    sm_tensor yc = sm_executor_output(p.cpu), yg = sm_cuda_executor_output(p.gpu);
    if (ok)
        d[0] = against(p.gpu, yg.data, yc.data, elems(&yc));
    ok = ok && sm_executor_loss(p.cpu, &cpu_loss, &st) == 0 &&
         sm_cuda_executor_loss(p.gpu, &gpu_loss, &st) == 0;
    if (ok) {
        d[1] = fabs(gpu_loss - cpu_loss) / (fabs(cpu_loss) > 1e-3 ? fabs(cpu_loss) : 1e-3);
        sm_tensor gc = sm_executor_output_grad(p.cpu), gg = sm_cuda_executor_output_grad(p.gpu);
        d[2] = against(p.gpu, gg.data, gc.data, elems(&gc));
    }
    ok = ok && sm_executor_backward(p.cpu, &st) == 0 &&
         sm_cuda_executor_backward(p.gpu, &st) == 0;
    int64_t nw = 0;
    if (ok) {
        sm_tensor xc = sm_executor_input_grad(p.cpu), xg = sm_cuda_executor_input_grad(p.gpu);
        d[3] = against(p.gpu, xg.data, xc.data, elems(&xc));
        const float *wc = sm_executor_weight_grads(p.cpu, &nw);
        d[4] = against(p.gpu, sm_cuda_executor_weight_grads(p.gpu, &nw), wc, nw);
    }
    if (ok) {
        sm_executor_sgd(p.cpu, 0.1f);
        ok = sm_cuda_executor_sgd(p.gpu, 0.1f, &st) == 0;
        const float *wc = sm_executor_weights(p.cpu, &nw);
        d[5] = against(p.gpu, sm_cuda_executor_weights(p.gpu, &nw), wc, nw);
    }
    ok = ok && sm_executor_forward(p.cpu, 0, &st) == 0 &&
         sm_cuda_executor_forward(p.gpu, 0, &st) == 0 && sm_cuda_executor_sync(p.gpu, &st) == 0;
    if (ok)
        d[6] = against(p.gpu, yg.data, yc.data, elems(&yc));
    if (!ok)
        fprintf(stderr, "%s: %s\n", what, st.msg);
    CHECK(ok);
    static const char *const names[] = {"forward", "loss", "dloss", "dinput", "dweights",
                                        "weights after SGD", "inference"};
    printf("%-40s %s fwd %.1e loss %.1e dy %.1e dx %.1e dw %.1e sgd %.1e infer %.1e\n", what,
           sm_gpu_precision_name(precision), d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
    for (int k = 0; k < 7; k++) {
        if (!(d[k] <= tol))
            fprintf(stderr, "%s (%s): %s differs by %.3g (tolerance %.3g)\n", what,
                    sm_gpu_precision_name(precision), names[k], d[k], tol);
        CHECK(d[k] <= tol);
    }
    close_pair(&p);
}

#define NET(input, layers) "[network]\nname = t\ninput = " input "\n[layers]\n" layers

static void test_layers(int precision, int algo, double tol)
{
    /* convolutions: cuDNN forward, backward data and filter, bias, groups */
    compare("conv2d 3x3 pad 1 bias", NET("3x6x7", "c = conv2d out=4 kernel=3 padding=1\n"), 2,
            precision, algo, tol);
    compare("conv2d stride 2 pad 1x2 dilation 2",
            NET("2x9x8", "c = conv2d out=3 kernel=3 stride=2 padding=1x2 dilation=2 bias=false\n"),
            2, precision, algo, tol);
    compare("conv2d groups 2 kernel 3x2", NET("4x5x6", "c = conv2d out=6 kernel=3x2 groups=2 "
                                                       "stride=1x2\n"),
            3, precision, algo, tol);
    compare("conv2d depthwise x2 stride 2",
            NET("4x7x7", "c = conv2d out=8 kernel=3 groups=4 stride=2 padding=1\n"), 2, precision,
            algo, tol);
    compare("conv2d 1x1", NET("5x9x9", "c = conv2d out=6 kernel=1\n"), 3, precision, algo, tol);
    compare("conv2d 16 -> 32 3x3 at 20x20", NET("16x20x20", "c = conv2d out=32 kernel=3 "
                                                            "padding=1\n"),
            4, precision, algo, tol);
    /* linear: cuBLAS */
    compare("linear vector", NET("10", "fc = linear out=7\n"), 3, precision, algo, tol);
    compare("linear sequence no bias", NET("5x6", "fc = linear out=4 bias=false\n"), 2, precision,
            algo, tol);
    /* pooling: cuDNN where its windows fit, the kernels where they do not */
    compare("maxpool2d 3 stride 2 pad 1 (cuDNN)",
            NET("2x7x7", "p = maxpool2d kernel=3 stride=2 padding=1\n"), 2, precision, algo, tol);
    compare("maxpool2d ceil_mode dilation 2 (kernel)",
            NET("2x9x8", "p = maxpool2d kernel=2 stride=2 dilation=2 ceil_mode=true\n"), 2,
            precision, algo, tol);
    compare("avgpool2d 3 stride 2 pad 1 (cuDNN)",
            NET("2x8x7", "p = avgpool2d kernel=3 stride=2 padding=1\n"), 2, precision, algo, tol);
    compare("avgpool2d 3 stride 2 pad 1 ceil_mode (kernel)",
            NET("2x8x7", "p = avgpool2d kernel=3 stride=2 padding=1 ceil_mode=true\n"), 2,
            precision, algo, tol);
    compare("adaptive_avgpool2d 1 of 5x7 (cuDNN)", NET("3x5x7", "p = adaptive_avgpool2d size=1\n"),
            2, precision, algo, tol);
    compare("adaptive_avgpool2d 2x3 of 5x7 (kernel)",
            NET("3x5x7", "p = adaptive_avgpool2d size=2x3\n"), 2, precision, algo, tol);
    /* normalisation */
    compare("batchnorm2d", NET("3x4x5", "bn = batchnorm2d\n"), 3, precision, algo, tol);
    compare("conv2d + batchnorm2d", NET("2x5x5", "c = conv2d out=3 kernel=3\nbn = batchnorm2d\n"),
            2, precision, algo, tol);
    compare("batchnorm2d no affine (1d use)", NET("6", "bn = batchnorm2d affine=false\n"), 4,
            precision, algo, tol);
    compare("layernorm last dim", NET("4x6", "ln = layernorm\n"), 2, precision, algo, tol);
    compare("linear + layernorm dims 2", NET("3x5", "fc = linear out=4\nln = layernorm dims=2\n"),
            2, precision, algo, tol);
    compare("layernorm channels", NET("4x3x2", "ln = layernorm channels=true\n"), 2, precision,
            algo, tol);
    /* activations: cuDNN's four, the kernels' four; after a linear layer, so values spread */
    static const char *const acts[] = {"relu", "relu6", "sigmoid", "tanh",
                                       "silu", "gelu",  "hardswish", "hardsigmoid"};
    for (int i = 0; i < 8; i++) {
        char text[160], what[64];
        snprintf(text, sizeof text, NET("40", "fc = linear out=40\na = %s\n"), acts[i]);
        snprintf(what, sizeof what, "linear + %s", acts[i]);
        compare(what, text, 2, precision, algo, tol);
    }
    /* element-wise with broadcasting, squeeze-and-excitation, concatenation */
    compare("add residual + broadcast C x 1 x 1",
            NET("3x4x4", "a = conv2d out=3 kernel=3 padding=1\n"
                         "p = adaptive_avgpool2d size=1 from=@input\n"
                         "s = add from=a,@input,p\n"),
            2, precision, algo, tol);
    compare("mul squeeze-excitation (C vector)",
            NET("4x3x3", "p = adaptive_avgpool2d size=1\nf = flatten\nfc = linear out=4\n"
                         "g = sigmoid\ns = mul from=@input,g\n"),
            2, precision, algo, tol);
    compare("mul broadcast last dim", NET("3x5", "fc = linear out=5 from=@input\n"
                                                 "p = linear out=1 from=@input\n"
                                                 "m = mul from=fc,p\n"),
            2, precision, algo, tol);
    compare("concat channels of two branches", NET("2x4x4", "a = conv2d out=3 kernel=3 padding=1\n"
                                                            "b = conv2d out=2 kernel=1 "
                                                            "from=@input\n"
                                                            "c = concat from=a,b,@input\n"),
            2, precision, algo, tol);
    compare("concat last axis", NET("3x4", "a = linear out=2\nc = concat axis=-1 from=a,@input\n"),
            2, precision, algo, tol);
    /* softmax, shapes, dropout (the same mask on both) */
    compare("softmax last axis", NET("3x5", "s = softmax\n"), 2, precision, algo, tol);
    compare("softmax channel axis", NET("4x2x3", "s = softmax axis=0\n"), 2, precision, algo,
            tol);
    compare("channel_shuffle 3 groups", NET("6x2x2", "s = channel_shuffle groups=3\n"), 2,
            precision, algo, tol);
    compare("permute 1,2,0", NET("2x3x4", "p = permute order=1,2,0\n"), 2, precision, algo, tol);
    compare("flatten + identity", NET("2x3x4", "f = flatten\ni = identity\n"), 2, precision, algo,
            tol);
    compare("chunk pieces 0 and 2 of 3, re-joined",
            NET("5x2x2", "a = chunk chunks=3 index=0\nb = chunk chunks=3 index=2 from=@input\n"
                         "c = concat from=b,a\n"),
            2, precision, algo, tol);
    compare("chunk last axis", NET("3x7", "a = chunk chunks=2 index=1 axis=-1\n"), 2, precision,
            algo, tol);
    compare("layer_scale channels after conv",
            NET("3x4x4", "c = conv2d out=4 kernel=3\ns = layer_scale\n"), 2, precision, algo, tol);
    compare("layer_scale last axis", NET("3x6", "s = layer_scale axis=-1\n"), 2, precision, algo,
            tol);
    compare("dropout p 0.3 (training mask)", NET("50", "d = dropout p=0.3\n"), 2, precision, algo,
            tol);
    compare("residual block: conv bn add pool fc",
            NET("2x6x6", "c1 = conv2d out=2 kernel=3 padding=1 bias=false\n"
                         "b1 = batchnorm2d\nc2 = conv2d out=2 kernel=3 padding=1\n"
                         "s = add from=c2,@input\np = adaptive_avgpool2d size=1\n"
                         "f = flatten\nfc = linear out=3\n"),
            2, precision, algo, tol);
}

/* Zoo networks at a small image, whole: a few SGD steps lower the loss on a fixed batch. */
static void test_zoo(void)
{
    static const char *const models[] = {"resnet18", "mobilenet_v2", "squeezenet1_0",
                                         "efficientnet_b0", "shufflenet_v2_x1_0",
                                         "convnext_tiny", "googlenet"};
    for (int m = 0; m < 7; m++) {
        sm_status st;
        sm_network *net = NULL;
        sm_network_options opt = {64};
        if (sm_network_load(reg, models[m], &opt, &net, &st) ||
            sm_cuda_executor_check(net, &st)) {
            printf("%-40s not run: %s\n", models[m], st.msg);
            sm_network_free(net);
            continue;
        }
        sm_cuda_executor_options go = {.batch = 4, .seed = 3, .precision = SM_GPU_FP32};
        sm_cuda_executor *g = NULL;
        int ok = sm_cuda_executor_new(net, &go, &g, &st) == 0;
        double first = 0, loss = 0;
        for (int i = 0; ok && i < 8; i++)
            ok = sm_cuda_executor_step(g, 0.05f, i == 0 ? &first : &loss, &st) == 0;
        if (!ok)
            fprintf(stderr, "%s: %s\n", models[m], st.msg);
        CHECK(ok);
        /* 1000 classes: the loss starts near ln 1000 = 6.9 and falls on a fixed batch */
        printf("%-40s loss %.4f -> %.4f after 8 SGD steps\n", models[m], first, loss);
        CHECK(ok && first > 4 && first < 10);
        CHECK(ok && loss < first);
        sm_cuda_executor_free(g);
        sm_network_free(net);
    }
}

/* test_executor.c's training test on the GPU: examples/tiny_resnet.ini fits a fixed batch of 4
 * in 8 SGD steps, and then predicts every label. */
static void test_tiny_resnet(void)
{
    sm_status st;
    sm_network *net = NULL;
    sm_network_options nopt = {16};
    if (sm_network_load(reg, "examples/tiny_resnet.ini", &nopt, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        CHECK(0);
        return;
    }
    sm_cuda_executor_options opt = {.batch = 4, .seed = 3};
    sm_cuda_executor *g = NULL;
    int ok = sm_cuda_executor_new(net, &opt, &g, &st) == 0;
    double first = 0, loss = 0;
    for (int step = 0; ok && step < 8; step++)
        ok = sm_cuda_executor_step(g, 0.1f, step == 0 ? &first : &loss, &st) == 0;
    float y[4 * 10];
    ok = ok && sm_cuda_executor_forward(g, 1, &st) == 0 &&
         sm_cuda_executor_download(g, sm_cuda_executor_output(g).data, y, 40, &st) == 0;
    if (!ok)
        fprintf(stderr, "tiny_resnet: %s\n", st.msg);
    CHECK(ok);
    printf("tiny_resnet batch 4: loss %.4f at step 0, %.4f after 8 SGD steps\n", first, loss);
    CHECK(fabs(first - log(10.0)) < 0.5);
    CHECK(loss < 0.5 * first);
    /* the labels are the CPU executor's (same generator and seed): recompute them here */
    sm_executor *c = NULL;
    sm_executor_options co = {.batch = 4, .seed = 3};
    if (ok && sm_executor_new(net, &co, &c, &st) == 0) {
        int64_t rows, classes, hits = 0;
        const int32_t *labels = sm_executor_labels(c, &rows, &classes);
        for (int64_t r = 0; r < rows && classes == 10; r++) {
            int64_t best = 0;
            for (int64_t k = 1; k < classes; k++)
                best = y[r * classes + k] > y[r * classes + best] ? k : best;
            hits += best == labels[r];
        }
        CHECK_EQ(hits, 4);
        sm_executor_free(c);
    }
    sm_cuda_executor_free(g);
    sm_network_free(net);
}

/* A batch that cannot fit is SM_EXECUTOR_NOMEM (what bench records as status=oom), not an
 * error, and leaves the device usable. */
static void test_out_of_memory(void)
{
    sm_status st;
    sm_network *net = net_load(reg, NET("3x224x224", "c = conv2d out=64 kernel=3 padding=1\n"), 0,
                               &st);
    if (!net) {
        CHECK(0);
        return;
    }
    sm_cuda_executor_options go = {.batch = 1 << 20, .seed = 1};
    sm_cuda_executor *g = NULL;
    int rc = sm_cuda_executor_new(net, &go, &g, &st);
    CHECK_EQ(rc, SM_EXECUTOR_NOMEM);
    CHECK_CONTAINS(st.msg, "GB of device memory");
    go.batch = 2;
    go.max_bytes = 1000;
    CHECK_EQ(sm_cuda_executor_new(net, &go, &g, &st), SM_EXECUTOR_NOMEM);
    CHECK_CONTAINS(st.msg, "more than the");
    go.max_bytes = 0;
    CHECK(sm_cuda_executor_new(net, &go, &g, &st) == 0);
    sm_cuda_executor_free(g);
    sm_network_free(net);
}

int main(void)
{
    sm_status st;
    sm_cuda_info info;
    if (sm_cuda_probe(&info, &st)) {
        printf("no CUDA device: skipped (%s)\n", st.msg);
        return 77;
    }
    printf("%s, %.1f GB, sm_%d%d\n", info.name, info.memory_gb, info.major, info.minor);
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "registry: %s\n", st.msg);
        return 1;
    }
    test_layers(SM_GPU_FP32, SM_GPU_ALGO_MEASURE, 2e-3);
    test_layers(SM_GPU_FP32, SM_GPU_ALGO_HEURISTIC, 2e-3);
    test_layers(SM_GPU_TF32, SM_GPU_ALGO_MEASURE, 3e-2);
    test_tiny_resnet();
    test_zoo();
    test_out_of_memory();
    sm_registry_free(reg);
    return check_summary();
}
