/*
 * test_plugins: every layer-type plugin of plugins/, loaded the way a user's run loads them
 * (sm_registry_open) and driven through the core's public API on the small networks of
 * tests/data/plugins/. Every expected number is derived by hand in the comment beside it, from
 * the formulas of docs/plugins.md (PyTorch's definitions).
 *
 * Registered by tests/plugins.cmake; it runs from the source tree, where the relative paths
 * tests/data/plugins/... resolve. Checks are tests/check.h's; a network that does not load ends
 * the test (check_fatal), since every check after it would read it.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "layer_types.h"
#include "scalemeter/memory.h"
#include "scalemeter/scalemeter.h"

#define DATA "tests/data/plugins/"

#define EQ(got, want) CHECK_EQ(got, want)
#define STR_EQ(got, want) CHECK_STR_EQ(got, want)

/* ---- helpers over the public API ----------------------------------------------------------- */

static sm_registry *reg;

static sm_network *load_at(const char *path, int64_t image, const char *file, int line)
{
    sm_network_options opt = {.image = image};
    sm_network *net = NULL;
    sm_status st = {{0}};
    if (sm_network_load(reg, path, &opt, &net, &st) != 0)
        check_fatal(file, line, "cannot load %s: %s", path, st.msg);
    check_passed++;
    return net;
}
#define LOAD(path) load_at((path), 0, __FILE__, __LINE__)
#define LOAD_IMAGE(path, image) load_at((path), (image), __FILE__, __LINE__)

static const sm_layer *layer_at(const sm_network *net, const char *name, const char *file, int line)
{
    const sm_layer *l = sm_network_layer(net, name);
    if (l) {
        check_passed++;
        return l;
    }
    check_fatal(file, line, "no layer %s in %s", name, net->path);
    return NULL;
}
#define LAYER(net, name) layer_at((net), (name), __FILE__, __LINE__)

static const char *shape_of(const sm_layer *l)
{
    static char buf[96];
    return sm_shape_str(&l->out, buf, sizeof buf);
}

static sm_metrics totals_at(const sm_network *net, int64_t batch, const char *file, int line)
{
    sm_metrics m;
    sm_status st = {{0}};
    if (sm_network_metrics(net, batch, &m, &st) != 0)
        check_fatal(file, line, "sm_network_metrics: %s", st.msg);
    check_passed++;
    return m;
}
#define TOTALS(net, batch) totals_at((net), (batch), __FILE__, __LINE__)

/* Loading path must fail with a message naming the file, the line and the phrase. */
static void expect_fail_at(const char *path, int line, const char *phrase, const char *file,
                           int srcline)
{
    sm_network_options opt = {0};
    sm_network *net = NULL;
    sm_status st = {{0}};
    int rc = sm_network_load(reg, path, &opt, &net, &st);
    if (rc != -1) {
        sm_network_free(net);
        check_fatal(file, srcline, "loading %s succeeded; expected an error", path);
    }
    check_passed++;
    char at[512];
    snprintf(at, sizeof at, "%s:%d", path, line);
    const char *hit = strstr(st.msg, at);
    if (!hit || isdigit((unsigned char)hit[strlen(at)]))
        check_fatal(file, srcline, "message does not name %s: %s", at, st.msg);
    check_passed++;
    if (!strstr(st.msg, phrase))
        check_fatal(file, srcline, "message lacks \"%s\": %s", phrase, st.msg);
    check_passed++;
}
#define EXPECT_FAIL(path, line, phrase) expect_fail_at((path), (line), (phrase), __FILE__, __LINE__)

/* ---- the plugins are found ----------------------------------------------------------------- */

static void test_registry(void)
{
    /* every type of the list, with its kernels where the list says */
    for (int i = 0; i < N_TEST_LAYER_TYPES; i++) {
        const test_layer_type *want = &test_layer_types[i];
        const sm_layer_type *t = sm_registry_find(reg, want->name);
        if (!t)
            check_fatal(__FILE__, __LINE__, "layer type %s is not loaded", want->name);
        STR_EQ(t->name, want->name);
        const struct sm_cpu_kernels *cpu = NULL;
        sm_status st;
        EQ(sm_registry_cpu_kernels(reg, t, &cpu, &st), 0);
        if ((cpu != NULL) != want->kernels)
            check_fatal(__FILE__, __LINE__, "layer type %s: CPU kernels %s, the list says %s",
                        want->name, cpu ? "present" : "absent", want->kernels ? "1" : "0");
    }
    /* and nothing else of ours: one type per .so, its file named after it, of this ABI */
    int ours = 0;
    for (int i = 0; i < sm_registry_count(reg); i++) {
        const sm_layer_type *t = sm_registry_type(reg, i);
        const char *path = sm_registry_path(reg, i);
        char want[128];
        snprintf(want, sizeof want, "/%s.so", t->name);
        if (!strstr(path, "/lib/scalemeter/plugins/"))
            continue; /* a user's plugin from SCALEMETER_PLUGIN_PATH */
        ours++;
        if (!test_layer_type_find(t->name))
            check_fatal(__FILE__, __LINE__, "layer type %s (%s) is not in tests/layer_types.h",
                        t->name, path);
        CHECK(strlen(path) >= strlen(want) && !strcmp(path + strlen(path) - strlen(want), want));
        EQ(t->abi_version, SM_PLUGIN_ABI_VERSION);
        EQ(t->struct_size, sizeof(sm_layer_type));
        CHECK(t->summary && t->summary[0]);
    }
    EQ(ours, N_TEST_LAYER_TYPES);
}

/* ---- conv2d ---------------------------------------------------------------------------------- */

static void test_conv(void)
{
    sm_network *net = LOAD(DATA "conv.ini");
    EQ(net->n_layers, 5);

    /* c1: 3x32x32, out=8 kernel=3 stride=2 padding=1 */
    const sm_layer *l = LAYER(net, "c1");
    STR_EQ(shape_of(l), "8x16x16"); /* Ho = floor((32 + 2*1 - 1*(3-1) - 1) / 2) + 1 = 15 + 1 */
    EQ(l->m.macs, 55296);           /* out*Ho*Wo*(C/g)*kh*kw = 8*16*16*3*3*3 */
    EQ(l->m.flops, 112640);         /* 2*55296 + bias out*Ho*Wo = 110592 + 2048 */
    EQ(l->m.weights, 224);          /* 8*3*3*3 + 8 = 216 + 8 */
    EQ(l->m.param_tensors, 2);      /* weight, bias */
    EQ(l->m.input_elems, 3072);     /* 3*32*32 */
    EQ(l->m.output_elems, 2048);    /* 8*16*16 */
    EQ(l->m.bytes, 20480);          /* 4*(3072 + 2048) */
    EQ(l->m.bwd_flops, 225280);     /* 2*112640: input gradient + weight gradient */
    EQ(l->m.counts_io, 1);

    /* dw: depthwise, 8x16x16, out=8 kernel=3 padding=1 groups=8 bias=false */
    l = LAYER(net, "dw");
    STR_EQ(shape_of(l), "8x16x16"); /* floor((16 + 2 - 2 - 1) / 1) + 1 = 16 */
    EQ(l->m.macs, 18432);           /* 8*16*16*(8/8)*9 */
    EQ(l->m.flops, 36864);          /* 2*18432, no bias */
    EQ(l->m.weights, 72);           /* 8*(8/8)*9 */
    EQ(l->m.param_tensors, 1);      /* weight only */

    /* dil: 8x16x16, out=16 kernel=3 dilation=2 padding=0 */
    l = LAYER(net, "dil");
    STR_EQ(shape_of(l), "16x12x12"); /* floor((16 + 0 - 2*(3-1) - 1) / 1) + 1 = 11 + 1 */
    EQ(l->m.macs, 165888);           /* 16*12*12*8*9 = 2304*72 */
    EQ(l->m.flops, 334080);          /* 2*165888 + 16*12*12 = 331776 + 2304 */
    EQ(l->m.weights, 1168);          /* 16*8*9 + 16 = 1152 + 16 */

    /* grp: 16x12x12, out=32 kernel=1 groups=4 bias=false */
    l = LAYER(net, "grp");
    STR_EQ(shape_of(l), "32x12x12");
    EQ(l->m.macs, 18432);  /* 32*12*12*(16/4)*1*1 = 4608*4 */
    EQ(l->m.weights, 128); /* 32*(16/4)*1*1 */

    /* rect: 32x12x12, out=4 kernel=3x5 stride=1x2 padding=1x2 */
    l = LAYER(net, "rect");
    /* Ho = floor((12 + 2*1 - 1*(3-1) - 1) / 1) + 1 = 12;
     * Wo = floor((12 + 2*2 - 1*(5-1) - 1) / 2) + 1 = 6 */
    STR_EQ(shape_of(l), "4x12x6");
    EQ(l->m.macs, 138240);  /* 4*12*6*32*3*5 = 288*480 */
    EQ(l->m.flops, 276768); /* 2*138240 + 4*12*6 = 276480 + 288 */
    EQ(l->m.weights, 1924); /* 4*32*3*5 + 4 = 1920 + 4 */

    sm_metrics t = TOTALS(net, 1);
    EQ(t.flops, 797216);      /* 112640 + 36864 + 334080 + 36864 + 276768 */
    EQ(t.macs, 396288);       /* 55296 + 18432 + 165888 + 18432 + 138240 */
    EQ(t.inputs, 14080);      /* I: 3072 + 2048 + 2048 + 2304 + 4608 */
    EQ(t.outputs, 11296);     /* O: 2048 + 2048 + 2304 + 4608 + 288 */
    EQ(t.weights, 3516);      /* 224 + 72 + 1168 + 128 + 1924 */
    EQ(t.layers, 5);          /* every conv holds weights */
    EQ(t.param_tensors, 8);   /* 2 + 1 + 2 + 1 + 2 */
    EQ(t.bwd_flops, 1594432); /* 2*797216 */

    t = TOTALS(net, 4);
    EQ(t.flops, 3188864); /* 4*797216: per-sample counts scale with the batch */
    EQ(t.macs, 1585152);  /* 4*396288 */
    EQ(t.inputs, 56320);  /* 4*14080 */
    EQ(t.outputs, 45184); /* 4*11296 */
    EQ(t.weights, 3516);  /* weights do not */
    sm_network_free(net);

    /* --image 64 sets H = W = 64 */
    net = LOAD_IMAGE(DATA "conv.ini", 64);
    l = LAYER(net, "c1");
    STR_EQ(shape_of(l), "8x32x32"); /* floor((64 + 2 - 2 - 1) / 2) + 1 = 31 + 1 */
    EQ(l->m.macs, 221184);          /* 8*32*32*3*9 */
    sm_network_free(net);
}

/* ---- linear, layernorm over the last dim, softmax -------------------------------------------- */

static void test_linear(void)
{
    sm_network *net = LOAD(DATA "linear.ini");
    /* fc1: 197x768, out=3072 */
    const sm_layer *l = LAYER(net, "fc1");
    STR_EQ(shape_of(l), "197x3072");
    EQ(l->m.macs, 464781312);  /* rows*in*out = 197*768*3072 = 197*2359296 */
    EQ(l->m.flops, 930167808); /* 2*464781312 + 197*3072 = 929562624 + 605184 */
    EQ(l->m.weights, 2362368); /* 768*3072 + 3072 = 2359296 + 3072 */
    EQ(l->m.param_tensors, 2);
    EQ(l->m.bwd_flops, 1860335616); /* 2*930167808 */
    EQ(l->m.counts_io, 0);          /* only convolutions count towards I and O */

    /* fc2: 197x3072, out=10 bias=false */
    l = LAYER(net, "fc2");
    STR_EQ(shape_of(l), "197x10");
    EQ(l->m.macs, 6051840);   /* 197*3072*10 = 605184*10 */
    EQ(l->m.flops, 12103680); /* 2*6051840 */
    EQ(l->m.weights, 30720);  /* 3072*10 */
    EQ(l->m.param_tensors, 1);

    /* ln: layernorm over the last dim (768) of 197x768 */
    l = LAYER(net, "ln");
    STR_EQ(shape_of(l), "197x768");
    EQ(l->m.weights, 1536); /* 2*768: gamma and beta */
    EQ(l->m.param_tensors, 2);
    EQ(l->m.flops, 756480); /* 5 per element: 5*197*768 = 5*151296 */
    EQ(l->m.macs, 0);

    /* sm: softmax over the last axis */
    l = LAYER(net, "sm");
    EQ(l->m.flops, 453888); /* 3 per element: 3*151296 */

    sm_metrics t = TOTALS(net, 1);
    EQ(t.inputs, 0); /* no convolution: I = O = 0 */
    EQ(t.outputs, 0);
    EQ(t.macs, 470833152); /* 464781312 + 6051840 */
    EQ(t.layers, 3);       /* fc1, fc2, ln */
    sm_network_free(net);

    net = LOAD(DATA "linear_vec.ini");
    l = LAYER(net, "fc");
    STR_EQ(shape_of(l), "1000");
    EQ(l->m.macs, 768000);    /* 1*768*1000 */
    EQ(l->m.flops, 1537000);  /* 2*768000 + 1000 */
    EQ(l->m.weights, 769000); /* 768*1000 + 1000 */
    sm_network_free(net);
}

/* ---- pooling --------------------------------------------------------------------------------- */

static void test_pool(void)
{
    sm_network *net = LOAD(DATA "pool.ini");   /* input 1x5x5 */
    const sm_layer *l = LAYER(net, "mp_ceil"); /* kernel=2 stride=2 ceil_mode=true */
    /* floor((5 + 0 - 1*(2-1) - 1 + (2-1)) / 2) + 1 = floor(4/2) + 1 = 3; the last window starts
     * at (3-1)*2 = 4 < 5 + 0, inside the input, so it stays */
    STR_EQ(shape_of(l), "1x3x3");
    EQ(l->m.flops, 27); /* (2*2 - 1) comparisons * 9 outputs */
    EQ(l->m.macs, 0);
    EQ(l->m.weights, 0);
    EQ(l->m.param_tensors, 0);

    l = LAYER(net, "mp_floor");   /* kernel=2, stride defaults to the kernel */
    STR_EQ(shape_of(l), "1x2x2"); /* floor((5 - 1 - 1) / 2) + 1 = 1 + 1 */
    EQ(l->m.flops, 12);           /* 3 * 4 */

    l = LAYER(net, "mp_last"); /* kernel=1 stride=3 ceil_mode=true */
    /* floor((5 - 0 - 1 + (3-1)) / 3) + 1 = 2 + 1 = 3, but the third window would start at
     * (3-1)*3 = 6 >= 5 + 0, past the input: PyTorch drops it, 2 */
    STR_EQ(shape_of(l), "1x2x2");
    EQ(l->m.flops, 0); /* (1*1 - 1) comparisons */

    l = LAYER(net, "mp_dil");     /* kernel=2 stride=1 dilation=2 */
    STR_EQ(shape_of(l), "1x3x3"); /* floor((5 - 2*(2-1) - 1) / 1) + 1 = 2 + 1 */
    EQ(l->m.flops, 27);           /* (2*2 - 1) * 9: dilation does not change the window */

    l = LAYER(net, "ap");         /* avgpool2d kernel=3 stride=2 padding=1 */
    STR_EQ(shape_of(l), "1x3x3"); /* floor((5 + 2 - 2 - 1) / 2) + 1 = 2 + 1 */
    EQ(l->m.flops, 81);           /* 3*3 per output * 9 */
    EQ(l->m.bytes, 136);          /* 4*(25 + 9) */

    l = LAYER(net, "ap_ceil");    /* avgpool2d kernel=2 ceil_mode=true (stride 2) */
    STR_EQ(shape_of(l), "1x3x3"); /* floor((5 - 1 - 1 + 1) / 2) + 1 = 3; (3-1)*2 = 4 < 5 */
    EQ(l->m.flops, 36);           /* 2*2 * 9 */
    sm_network_free(net);

    net = LOAD(DATA "pool6.ini"); /* input 1x6x6, kernel=3 stride=2 padding=1 */
    l = LAYER(net, "mp_ceil");
    /* floor((6 + 2 - 2 - 1 + 1) / 2) + 1 = 3 + 1 = 4; (4-1)*2 = 6 < 6 + 1 keeps it */
    STR_EQ(shape_of(l), "1x4x4");
    EQ(l->m.flops, 128); /* (9 - 1) * 16 */
    l = LAYER(net, "mp_floor");
    STR_EQ(shape_of(l), "1x3x3"); /* floor((6 + 2 - 2 - 1) / 2) + 1 = 2 + 1 */
    EQ(l->m.flops, 72);           /* 8 * 9 */
    sm_network_free(net);

    net = LOAD(DATA "adaptive.ini"); /* input 16x7x5 */
    l = LAYER(net, "gap");
    STR_EQ(shape_of(l), "16x1x1");
    EQ(l->m.flops, 576); /* input elements + output elements = 16*7*5 + 16 = 560 + 16 */
    EQ(l->m.macs, 0);
    l = LAYER(net, "ap23");
    STR_EQ(shape_of(l), "16x2x3");
    EQ(l->m.flops, 656); /* 560 + 16*2*3 */
    sm_network_free(net);
}

/* ---- squeeze-and-excitation: broadcasting mul ------------------------------------------------ */

static void test_se(void)
{
    sm_network *net = LOAD(DATA "se.ini"); /* input 16x8x8 */
    const sm_layer *l = LAYER(net, "fc1");
    STR_EQ(shape_of(l), "4x1x1");
    EQ(l->m.weights, 68);  /* 4*16*1*1 + 4 */
    EQ(l->m.macs, 64);     /* 4*1*1*16 */
    l = LAYER(net, "act"); /* relu inplace=true: inplace is accepted and ignored */
    EQ(l->m.flops, 4);     /* 1 per element */
    l = LAYER(net, "fc2");
    EQ(l->m.weights, 80); /* 16*4 + 16 */
    l = LAYER(net, "gate");
    EQ(l->m.flops, 48); /* hardsigmoid, 3 per element * 16 */

    l = LAYER(net, "scale");       /* 16x1x1 * 16x8x8 */
    STR_EQ(shape_of(l), "16x8x8"); /* the larger, broadcast shape */
    EQ(l->m.flops, 1024);          /* output elements * (2 inputs - 1) = 16*8*8 */
    EQ(l->m.input_elems, 1040);    /* 16 + 1024 */
    EQ(l->m.bytes, 8256);          /* 4*(1040 + 1024) */
    EQ(l->m.macs, 0);              /* element-wise, not a multiply-accumulate */
    EQ(l->m.weights, 0);

    l = LAYER(net, "vflat");
    STR_EQ(shape_of(l), "16"); /* flatten of 16x1x1 */
    l = LAYER(net, "vfc");
    STR_EQ(shape_of(l), "16");
    EQ(l->m.weights, 272);    /* 16*16 + 16 */
    l = LAYER(net, "vscale"); /* 16x8x8 * a vector of 16 channels */
    STR_EQ(shape_of(l), "16x8x8");
    EQ(l->m.flops, 1024); /* 1024 * (2 - 1) */

    sm_metrics t = TOTALS(net, 1);
    EQ(t.layers, 3);    /* fc1, fc2, vfc */
    EQ(t.weights, 420); /* 68 + 80 + 272 */
    sm_network_free(net);
}

/* ---- concat, channel_shuffle ----------------------------------------------------------------- */

static void test_concat(void)
{
    sm_network *net = LOAD(DATA "concat.ini"); /* input 8x4x4 */
    const sm_layer *l = LAYER(net, "cat");     /* a 4x4x4, b 12x4x4, input 8x4x4 */
    STR_EQ(shape_of(l), "24x4x4");             /* 4 + 12 + 8 channels */
    EQ(l->m.flops, 0);
    EQ(l->m.input_elems, 384); /* 64 + 192 + 128 */
    EQ(l->m.bytes, 3072);      /* 4*(384 + 384) */
    EQ(l->n_inputs, 3);

    l = LAYER(net, "shuf"); /* channel_shuffle groups=4 of 24 channels */
    STR_EQ(shape_of(l), "24x4x4");
    EQ(l->m.flops, 0);
    EQ(l->m.bytes, 3072); /* a copy: 4*(384 + 384) */

    l = LAYER(net, "cat_w"); /* axis=2 of 4x4x4 and 4x4x4 */
    STR_EQ(shape_of(l), "4x4x8");
    l = LAYER(net, "cat_neg"); /* axis=-2 (= 1) of three 4x4x4 */
    STR_EQ(shape_of(l), "4x12x4");
    sm_network_free(net);
}

/* ---- flatten after permute: a copy, as torch.flatten of a permuted tensor ---------------------
 */

/*
 * tests/data/plugins/permute_flatten.ini, input 4x2x3 (24 elements). torch.flatten(x, 1) of
 * x.permute(0, 2, 3, 1) copies (its H, W, C steps are 3, 1, 6: no single step walks them), so
 * `flat` reads 24 and writes 24 elements, 4 x 48 = 192 bytes at fp32, one kernel forward and
 * one backward, and is a new storage; flattening one dim, a permutation of a dim of size 1
 * (1x1x4 -> its steps 4, 4, 1 skipping the size-1 dims: contiguous) or a contiguous tensor
 * stays a view. PyTorch 1.13 on the same network keeps 288 bytes a sample (the file's head):
 * conv's input, relu's output and the copy, 24 elements each; with the network's output (2
 * elements) 296. Counted as a view, the copy was relu's storage: 200.
 */
static void test_flatten_after_permute(void)
{
    sm_network *net = LOAD(DATA "permute_flatten.ini");
    const sm_layer *l = LAYER(net, "flat");
    STR_EQ(shape_of(l), "24");
    EQ(l->m.bytes, 192);
    EQ(l->m.kernels_fwd, 1);
    EQ(l->m.kernels_bwd, 1);
    EQ(l->saved.aliases_input, 0);
    const char *views[] = {"to_hwc", "last", "one", "pooled", "flat1", "plain"};
    for (size_t k = 0; k < sizeof views / sizeof *views; k++) {
        l = LAYER(net, views[k]);
        EQ(l->m.bytes, 0);
        EQ(l->m.kernels_fwd, 0);
        EQ(l->saved.aliases_input, 1);
    }
    l = LAYER(net, "flat2"); /* after relu of the permuted tensor: a copy as well */
    EQ(l->m.bytes, 192);
    EQ(l->saved.aliases_input, 0);
    sm_network_free(net);

    /* what autograd keeps, on the head of the file alone (conv to fc) */
    net = LOAD(DATA "permute_flatten_head.ini");
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 1};
    sm_memory mem;
    sm_status st;
    CHECK(sm_network_memory(net, 2, 1, 1, &c, &mem, &st) == 0);
    EQ((int64_t)mem.activations, 2 * 296);
    sm_network_free(net);
}

/* ---- permute, layernorm (last dims and channels), gelu --------------------------------------- */

static void test_permute(void)
{
    sm_network *net = LOAD(DATA "permute.ini"); /* input 8x4x6 */
    const sm_layer *l = LAYER(net, "to_hwc");   /* order=1,2,0 */
    STR_EQ(shape_of(l), "4x6x8");               /* (dim1, dim2, dim0) */
    EQ(l->m.flops, 0);
    EQ(l->m.bytes, 0); /* a view: no copy follows it in ConvNeXt (plugins/permute/cases.ini) */
    EQ(l->m.kernels_fwd, 0);

    l = LAYER(net, "ln"); /* normalises the last dim, 8 */
    EQ(l->m.weights, 16); /* 2*8 */
    EQ(l->m.flops, 960);  /* 5*192 */

    l = LAYER(net, "fc"); /* linear out=32 on 4x6x8 */
    STR_EQ(shape_of(l), "4x6x32");
    EQ(l->m.macs, 6144);   /* rows*in*out = (4*6)*8*32 */
    EQ(l->m.flops, 13056); /* 2*6144 + 24*32 = 12288 + 768 */
    EQ(l->m.weights, 288); /* 8*32 + 32 */

    l = LAYER(net, "act");
    EQ(l->m.flops, 6144); /* gelu, 8 per element * 768 */

    l = LAYER(net, "to_chw");      /* order=201 on 4x6x32 */
    STR_EQ(shape_of(l), "32x4x6"); /* (dim2, dim0, dim1) */

    l = LAYER(net, "ln2d"); /* channels=true: over dim 0, 32 channels */
    STR_EQ(shape_of(l), "32x4x6");
    EQ(l->m.weights, 64); /* 2*32 */
    EQ(l->m.param_tensors, 2);
    EQ(l->m.flops, 3840); /* 5*768 */

    l = LAYER(net, "ln_2");   /* dims=2 of 4x6x8: normalised shape 6x8 */
    EQ(l->m.weights, 96);     /* 2*6*8 */
    l = LAYER(net, "ln_2na"); /* affine=false */
    EQ(l->m.weights, 0);
    EQ(l->m.param_tensors, 0);
    sm_network_free(net);
}

/* ---- flatten, batchnorm ---------------------------------------------------------------------- */

static void test_flatten_norm(void)
{
    sm_network *net = LOAD(DATA "flatten.ini"); /* input 8x2x2 */
    const sm_layer *l = LAYER(net, "f0");
    STR_EQ(shape_of(l), "32"); /* torch.flatten(x, 1): 8*2*2 */
    EQ(l->m.flops, 0);
    EQ(l->m.bytes, 0); /* a view */
    l = LAYER(net, "f1");
    STR_EQ(shape_of(l), "8x4"); /* start=1: 8, 2*2 */
    l = LAYER(net, "fneg");
    STR_EQ(shape_of(l), "8x4"); /* start=-2 = 1 on 3 dims */
    sm_network_free(net);

    net = LOAD(DATA "norm.ini"); /* input 16x4x4 */
    l = LAYER(net, "bn");
    STR_EQ(shape_of(l), "16x4x4");
    EQ(l->m.weights, 32); /* 2*16: gamma and beta */
    EQ(l->m.param_tensors, 2);
    EQ(l->m.flops, 512); /* 2 per element * 256 */
    EQ(l->m.macs, 0);
    l = LAYER(net, "bn_na"); /* affine=false */
    EQ(l->m.weights, 0);
    EQ(l->m.param_tensors, 0);
    sm_metrics t = TOTALS(net, 1);
    EQ(t.layers, 1); /* only bn holds weights */
    sm_network_free(net);
}

/* ---- activations, dropout, identity, softmax, add of three ----------------------------------- */

static void test_elementwise(void)
{
    static const struct {
        const char *name;
        int64_t flops;
    } per_element[] = {
        /* FLOPs per element (docs/plugins.md) * 24 elements of 2x3x4 */
        {"relu", 24},        /* 1 * 24 */
        {"relu6", 48},       /* 2 * 24 */
        {"hardsigmoid", 72}, /* 3 * 24 */
        {"hardswish", 96},   /* 4 * 24 */
        {"sigmoid", 96},     /* 4 * 24 */
        {"silu", 120},       /* 5 * 24 */
        {"tanh", 120},       /* 5 * 24 */
        {"gelu", 192},       /* 8 * 24 */
        {"sm", 72},          /* softmax axis=0: 3 * 24 */
        {"drop", 0},         /* dropout: the identity at inference */
        {"id", 0},           /* identity */
        {"sum3", 48},        /* add of 3 inputs: 24 * (3 - 1) */
    };
    sm_network *net = LOAD(DATA "elementwise.ini");
    for (size_t i = 0; i < sizeof per_element / sizeof per_element[0]; i++) {
        const sm_layer *l = LAYER(net, per_element[i].name);
        STR_EQ(shape_of(l), "2x3x4");
        EQ(l->m.flops, per_element[i].flops);
        EQ(l->m.macs, 0);
        EQ(l->m.weights, 0);
        EQ(l->m.counts_io, 0);
    }
    EQ(LAYER(net, "drop")->m.bytes, 0); /* a no-op at inference */
    EQ(LAYER(net, "id")->m.bytes, 0);
    EQ(LAYER(net, "relu")->m.bytes, 192);      /* 4*(24 + 24) */
    EQ(LAYER(net, "sum3")->m.input_elems, 72); /* 3 * 24 */
    sm_metrics t = TOTALS(net, 1);
    EQ(t.flops, 888); /* 24+48+72+96+96+120+120+192+72+0+0+48 */
    EQ(t.layers, 0);
    EQ(t.weights, 0);
    sm_network_free(net);
}

/* ---- mistakes: one line naming the file, the line and the reason ----------------------------- */

static void test_failures(void)
{
    EXPECT_FAIL(DATA "bad_add.ini", 7, "cannot add 64x8x8 and 32x8x8");
    EXPECT_FAIL(DATA "bad_kernel.ini", 6,
                "kernel 7x7 larger than padded input 3x3 (input 64x1x1, padding 1)");
    EXPECT_FAIL(DATA "bad_groups.ini", 6, "input channels 30 are not divisible by groups 4");
    EXPECT_FAIL(DATA "bad_groups_out.ini", 6, "out 30 is not divisible by groups 4");
    EXPECT_FAIL(DATA "bad_param.ini", 6, "unknown parameter strides");
    EXPECT_FAIL(DATA "bad_zero.ini", 6, "out=0 out of range");
    /* 2^24 * 4096 * 65535 * 65535 ~ 2.9e20 multiply-accumulates > 9.2e18 = INT64_MAX, while the
     * shapes fit: 4096x1x1 padded to 4096x65535x65535, output 16777216x1x1 */
    EXPECT_FAIL(DATA "bad_overflow.ini", 6, "overflows 64 bits");
    EXPECT_FAIL(DATA "bad_avg_dilation.ini", 6, "unknown parameter dilation");
    EXPECT_FAIL(DATA "bad_pool_padding.ini", 6, "must be at most half the kernel 3x3");
    EXPECT_FAIL(DATA "bad_permute.ini", 6, "order 1,0 permutes 2 dims but input 3x8x8 has 3");
    EXPECT_FAIL(DATA "bad_shuffle.ini", 6, "channels 24 are not divisible by groups 5");
    EXPECT_FAIL(DATA "bad_concat.ini", 7, "cannot concatenate 4x4x4 and 4x2x2 along axis 0");
    EXPECT_FAIL(DATA "bad_mul_shapes.ini", 8, "cannot multiply 8x1x1 and 16x8x8");
    EXPECT_FAIL(DATA "bad_layernorm_dims.ini", 6, "dims=3 exceeds the 2 dims of input 197x768");
    EXPECT_FAIL(DATA "bad_dropout.ini", 6, "p must be below 1");
}

int main(void)
{
    sm_status st = {{0}};
    if (sm_registry_open(&reg, &st) != 0) {
        check_fatal(__FILE__, __LINE__, "sm_registry_open: %s", st.msg);
    }
    test_registry();
    test_conv();
    test_linear();
    test_pool();
    test_se();
    test_concat();
    test_permute();
    test_flatten_after_permute();
    test_flatten_norm();
    test_elementwise();
    test_failures();
    sm_registry_free(reg);
    return check_summary();
}
