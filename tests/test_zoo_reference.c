/* The model zoo (models/NAME.ini) against PyTorch and against torchvision's published numbers.
 *
 * tests/data/reference/torchvision.json is written by tools/torch_reference.py, which runs every
 * torchvision model with forward hooks and counts parameters, MACs and convolution inputs and
 * outputs from the real tensors, independently of scalemeter. For every model and image size in
 * it, the zoo file loaded with --image must give exactly those counts, every leaf module called
 * once must be a layer of the same name and output shape, and every size PyTorch rejects must be
 * refused. The published parameter counts and GFLOPS of torchvision's documentation are checked
 * on top (MACs within 1%, or within the published figure's rounding to 0.001 GFLOPS). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scalemeter/scalemeter.h"

#define REFERENCE "tests/data/reference/torchvision.json"

/* ---- a minimal JSON reader: objects, arrays, strings without escapes but \" \\ \/, numbers,
 * true, false, null; enough for the reference file ---------------------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype type;
    double num;
    int64_t integer; /* exact value of an integral number */
    char *str;
    int n;               /* array items or object members */
    char **keys;         /* object */
    struct jval **items; /* array items or object values */
} jval;

typedef struct jparser {
    const char *p;
    int line;
    const char *error;
} jparser;

static void skip_space(jparser *j)
{
    for (; *j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'; j->p++)
        if (*j->p == '\n')
            j->line++;
}

static jval *jnew(jtype t)
{
    jval *v = calloc(1, sizeof *v);
    if (v)
        v->type = t;
    return v;
}

static jval *parse_value(jparser *j);

static char *parse_string(jparser *j)
{
    if (*j->p != '"')
        return j->error = "expected a string", NULL;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    for (j->p++; *j->p && *j->p != '"'; j->p++) {
        char c = *j->p;
        if (c == '\\') {
            c = *++j->p;
            if (c != '"' && c != '\\' && c != '/') {
                free(s);
                return j->error = "unsupported escape in a string", NULL;
            }
        }
        if (n + 2 > cap)
            s = realloc(s, cap *= 2);
        s[n++] = c;
    }
    if (*j->p != '"') {
        free(s);
        return j->error = "unterminated string", NULL;
    }
    j->p++;
    s[n] = '\0';
    return s;
}

static int append(jval *v, char *key, jval *item)
{
    void *k = realloc(v->keys, (size_t)(v->n + 1) * sizeof *v->keys);
    void *i = realloc(v->items, (size_t)(v->n + 1) * sizeof *v->items);
    if (k)
        v->keys = k;
    if (i)
        v->items = i;
    if (!k || !i)
        return -1;
    v->keys[v->n] = key;
    v->items[v->n++] = item;
    return 0;
}

static jval *parse_compound(jparser *j, int object)
{
    jval *v = jnew(object ? J_OBJ : J_ARR);
    char close = object ? '}' : ']';
    j->p++;
    skip_space(j);
    if (*j->p == close) {
        j->p++;
        return v;
    }
    for (;;) {
        char *key = NULL;
        skip_space(j);
        if (object) {
            if (!(key = parse_string(j)))
                return v;
            skip_space(j);
            if (*j->p != ':') {
                free(key);
                j->error = "expected ':'";
                return v;
            }
            j->p++;
        }
        jval *item = parse_value(j);
        if (!item || append(v, key, item)) {
            free(key);
            return v;
        }
        if (j->error)
            return v;
        skip_space(j);
        if (*j->p == ',') {
            j->p++;
        } else if (*j->p == close) {
            j->p++;
            return v;
        } else {
            j->error = object ? "expected ',' or '}'" : "expected ',' or ']'";
            return v;
        }
    }
}

static jval *parse_value(jparser *j)
{
    skip_space(j);
    char c = *j->p;
    if (c == '{' || c == '[')
        return parse_compound(j, c == '{');
    if (c == '"') {
        char *s = parse_string(j);
        jval *v = s ? jnew(J_STR) : NULL;
        if (v)
            v->str = s;
        return v;
    }
    if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
        jval *v = jnew(J_BOOL);
        v->num = c == 't';
        j->p += c == 't' ? 4 : 5;
        return v;
    }
    if (!strncmp(j->p, "null", 4)) {
        j->p += 4;
        return jnew(J_NULL);
    }
    char *end;
    double d = strtod(j->p, &end);
    if (end == j->p) {
        j->error = "expected a value";
        return NULL;
    }
    jval *v = jnew(J_NUM);
    v->num = d;
    v->integer = strtoll(j->p, NULL, 10); /* exact for integers beyond 2^53 too */
    j->p = end;
    return v;
}

static void jfree(jval *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->n; i++) {
        if (v->keys)
            free(v->keys[i]);
        jfree(v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->str);
    free(v);
}

static const jval *jget(const jval *obj, const char *key)
{
    if (!obj || obj->type != J_OBJ)
        return NULL;
    for (int i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

/* An integer member; records a failure (and returns -1) when it is missing. */
static int64_t jint(const jval *obj, const char *key, const char *where)
{
    const jval *v = jget(obj, key);
    if (!v || v->type != J_NUM) {
        check_failed++;
        fprintf(stderr, "%s: %s: no number '%s' in the reference\n", REFERENCE, where, key);
        return -1;
    }
    return v->integer;
}

static jval *read_reference(void)
{
    FILE *f = fopen(REFERENCE, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open (run from the source root)\n", REFERENCE);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)len + 1);
    size_t got = fread(text, 1, (size_t)len, f);
    fclose(f);
    text[got] = '\0';
    jparser j = {text, 1, NULL};
    jval *root = parse_value(&j);
    skip_space(&j);
    if (!j.error && *j.p)
        j.error = "text after the value";
    if (j.error) {
        fprintf(stderr, "%s:%d: %s\n", REFERENCE, j.line, j.error);
        jfree(root);
        root = NULL;
    }
    free(text);
    return root;
}

/* ---- torchvision's published numbers ------------------------------------------------------ */

/* From the documentation of torchvision.models (the table "Table of all available classification
 * weights", https://pytorch.org/vision/stable/models.html, whose Params and GFLOPS columns are
 * the weights' meta "num_params" and "_ops" in torchvision/models/NAME.py; "GFLOPS" there are
 * multiply-accumulates at the weights' crop size: 224, 299 for Inception v3, 240 to 600 for the
 * EfficientNets, the native size of each zoo file). Where a model has several weights, those of
 * IMAGENET1K_V1; RegNetY-128GF has only SWAG weights: IMAGENET1K_SWAG_LINEAR_V1, at 224.
 * The JSON's "published" carries torchvision 0.14's meta["num_params"] as well (written by
 * tools/torch_reference.py from the installed torchvision); both must agree. */
typedef struct published {
    const char *model;
    int64_t params;
    double gmacs;
} published;

static const published PUBLISHED[] = {
    {"alexnet", 61100840, 0.714},
    {"vgg11", 132863336, 7.609},
    {"vgg11_bn", 132868840, 7.609},
    {"vgg13", 133047848, 11.308},
    {"vgg13_bn", 133053736, 11.308},
    {"vgg16", 138357544, 15.47},
    {"vgg16_bn", 138365992, 15.47},
    {"vgg19", 143667240, 19.632},
    {"vgg19_bn", 143678248, 19.632},
    {"resnet18", 11689512, 1.814},
    {"resnet34", 21797672, 3.664},
    {"resnet50", 25557032, 4.089},
    {"resnet101", 44549160, 7.801},
    {"resnet152", 60192808, 11.514},
    {"resnext50_32x4d", 25028904, 4.23},
    {"resnext101_32x8d", 88791336, 16.414},
    {"resnext101_64x4d", 83455272, 15.46},
    {"wide_resnet50_2", 68883240, 11.398},
    {"wide_resnet101_2", 126886696, 22.753},
    {"mobilenet_v2", 3504872, 0.301},
    {"mobilenet_v3_large", 5483032, 0.217},
    {"mobilenet_v3_small", 2542856, 0.057},
    {"squeezenet1_0", 1248424, 0.819},
    {"squeezenet1_1", 1235496, 0.349},
    {"efficientnet_b0", 5288548, 0.386},
    {"efficientnet_b1", 7794184, 0.687},
    {"efficientnet_b2", 9109994, 1.088},
    {"efficientnet_b3", 12233232, 1.827},
    {"efficientnet_b4", 19341616, 4.394},
    {"efficientnet_b5", 30389784, 10.266},
    {"efficientnet_b6", 43040704, 19.068},
    {"efficientnet_b7", 66347960, 37.746},
    {"efficientnet_v2_s", 21458488, 8.366},
    {"efficientnet_v2_m", 54139356, 24.582},
    {"efficientnet_v2_l", 118515272, 56.08},
    {"regnet_y_400mf", 4344144, 0.402},
    {"regnet_y_800mf", 6432512, 0.834},
    {"regnet_y_1_6gf", 11202430, 1.612},
    {"regnet_y_3_2gf", 19436338, 3.176},
    {"regnet_y_8gf", 39381472, 8.473},
    {"regnet_y_16gf", 83590140, 15.912},
    {"regnet_y_32gf", 145046770, 32.28},
    {"regnet_y_128gf", 644812894, 127.518},
    {"regnet_x_400mf", 5495976, 0.414},
    {"regnet_x_800mf", 7259656, 0.8},
    {"regnet_x_1_6gf", 9190136, 1.603},
    {"regnet_x_3_2gf", 15296552, 3.177},
    {"regnet_x_8gf", 39572648, 7.995},
    {"regnet_x_16gf", 54278536, 15.941},
    {"regnet_x_32gf", 107811560, 31.736},
    {"densenet121", 7978856, 2.834},
    {"densenet161", 28681000, 7.728},
    {"densenet169", 14149480, 3.36},
    {"densenet201", 20013928, 4.291},
    {"shufflenet_v2_x0_5", 1366792, 0.04},
    {"shufflenet_v2_x1_0", 2278604, 0.145},
    {"shufflenet_v2_x1_5", 3503624, 0.296},
    {"shufflenet_v2_x2_0", 7393996, 0.583},
    {"mnasnet0_5", 2218512, 0.104},
    {"mnasnet0_75", 3170208, 0.215},
    {"mnasnet1_0", 4383312, 0.314},
    {"mnasnet1_3", 6282256, 0.526},
    {"googlenet", 6624904, 1.498},
    /* published with the auxiliary classifier AuxLogits, which the zoo leaves out (it runs in
     * training only); see INCEPTION_AUX_PARAMS */
    {"inception_v3", 27161264, 5.713},
    {"convnext_tiny", 28589128, 4.456},
    {"convnext_small", 50223688, 8.684},
    {"convnext_base", 88591464, 15.355},
    {"convnext_large", 197767336, 34.361},
};
#define N_PUBLISHED ((int)(sizeof PUBLISHED / sizeof PUBLISHED[0]))

/* Inception v3's AuxLogits (torchvision InceptionAux(768, 1000)), by hand:
 *   conv0 = BasicConv2d(768, 128, 1x1): 768*128 weights + BN 2*128         =    98,560
 *   conv1 = BasicConv2d(128, 768, 5x5): 128*768*25 weights + BN 2*768       = 2,459,136
 *   fc    = Linear(768, 1000): 768*1000 + 1000                              =   769,000
 *                                                                    total  = 3,326,696 */
#define INCEPTION_AUX_PARAMS 3326696

/* ---- the checks --------------------------------------------------------------------------- */

#define CHECK_MODEL_EQ(actual, expected, what)                                                     \
    do {                                                                                           \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                            \
        if (a_ == e_) {                                                                            \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s at %s: %s = %lld, PyTorch gives %lld\n", path, size, what, a_,     \
                    e_);                                                                           \
        }                                                                                          \
    } while (0)

/* Output shapes of the layers named after a leaf module, at the native size. */
static int check_layers(const sm_network *net, const jval *layers, const char *path,
                        const char *size)
{
    int checked = 0;
    for (int i = 0; layers && i < layers->n; i++) {
        const char *name = layers->keys[i];
        const jval *shape = layers->items[i];
        const sm_layer *l = sm_network_layer(net, name);
        if (!l) {
            check_failed++;
            fprintf(stderr, "%s: no layer %s (a module of the PyTorch model)\n", path, name);
            continue;
        }
        int same = shape->type == J_ARR && shape->n == l->out.ndim;
        for (int d = 0; same && d < shape->n; d++)
            same = shape->items[d]->integer == l->out.dim[d];
        if (same) {
            check_passed++;
        } else {
            char s[64];
            check_failed++;
            fprintf(stderr, "%s at %s: layer %s gives %s, PyTorch another shape\n", path, size,
                    name, sm_shape_str(&l->out, s, sizeof s));
        }
        checked++;
    }
    return checked;
}

static void check_model(const sm_registry *reg, const char *model, const jval *ref,
                        const published *pub)
{
    char path[256];
    snprintf(path, sizeof path, "models/%s.ini", model);
    sm_status st;
    int64_t native = jint(ref, "native", model);
    const jval *sizes = jget(ref, "sizes");
    CHECK(sizes && sizes->n > 0);
    int layers_checked = 0;

    /* the file's own input is the native size */
    sm_network *net;
    sm_network_options opt = {0};
    if (sm_network_load(reg, path, &opt, &net, &st)) {
        check_failed++;
        fprintf(stderr, "%s: %s\n", path, st.msg);
        return;
    }
    CHECK_EQ(net->input.ndim, 3);
    CHECK_EQ(net->input.dim[0], 3);
    CHECK_EQ(net->input.dim[1], native);
    CHECK_EQ(net->input.dim[2], native);
    sm_network_free(net);

    for (int s = 0; sizes && s < sizes->n; s++) {
        const char *size = sizes->keys[s];
        const jval *t = sizes->items[s];
        opt.image = atoll(size);
        if (sm_network_load(reg, path, &opt, &net, &st)) {
            check_failed++;
            fprintf(stderr, "%s at %s: %s\n", path, size, st.msg);
            continue;
        }
        sm_metrics m;
        CHECK_EQ(sm_network_metrics(net, 1, &m, &st), 0);
        CHECK_MODEL_EQ(m.weights, jint(t, "params", model), "weights");
        CHECK_MODEL_EQ(m.macs, jint(t, "macs", model), "macs");
        CHECK_MODEL_EQ(m.inputs, jint(t, "conv_inputs", model), "conv inputs (I)");
        CHECK_MODEL_EQ(m.outputs, jint(t, "conv_outputs", model), "conv outputs (O)");
        CHECK_MODEL_EQ(m.layers, jint(t, "layers_with_weights", model), "layers with weights");
        CHECK_MODEL_EQ(m.param_tensors, jint(t, "param_tensors", model), "parameter tensors");
        if (opt.image == native) {
            layers_checked = check_layers(net, jget(ref, "layers"), path, size);
            /* torchvision's published numbers, at the native size */
            int64_t params = pub->params;
            if (strcmp(model, "inception_v3") == 0)
                params -= INCEPTION_AUX_PARAMS;
            CHECK_MODEL_EQ(m.weights, params, "weights (published)");
            /* within 1%, or within the rounding of the published figure (three decimals:
             * ShuffleNetV2 x0.5's 0.040 is 40,476,448 MACs, 1.2% above 0.040) */
            double off = fabs((double)m.macs / 1e9 - pub->gmacs), rel = off / pub->gmacs;
            if (rel <= 0.01 || off <= 0.0005) {
                check_passed++;
            } else {
                check_failed++;
                fprintf(stderr, "%s: %.4f GMACs, torchvision publishes %.3f (%.2f%% off)\n", path,
                        (double)m.macs / 1e9, pub->gmacs, 100 * rel);
            }
        }
        sm_network_free(net);
    }
    /* sizes PyTorch refuses (a feature map below 1x1) are refused here too */
    const jval *rejected = jget(ref, "rejected");
    for (int r = 0; rejected && r < rejected->n; r++) {
        opt.image = atoll(rejected->keys[r]);
        int rc = sm_network_load(reg, path, &opt, &net, &st);
        if (rc == 0) {
            sm_network_free(net);
            check_failed++;
            fprintf(stderr, "%s at %s: loads, but PyTorch refuses this size\n", path,
                    rejected->keys[r]);
        } else {
            check_passed++;
        }
    }
    CHECK(layers_checked > 0);

    /* torchvision's published parameter count as the installed torchvision records it (the
     * weights' meta["num_params"], not a count), at the weights' crop size: the native size */
    const jval *recorded = jget(ref, "published");
    if (!recorded) {
        check_failed++;
        fprintf(stderr, "%s: %s: no \"published\" record\n", REFERENCE, model);
    } else {
        CHECK_EQ(jint(recorded, "crop_size", model), native);
        if (jint(recorded, "num_params", model) == pub->params) {
            check_passed++;
        } else {
            check_failed++;
            fprintf(stderr, "%s: torchvision's meta num_params %lld, PUBLISHED here %lld\n", model,
                    (long long)jint(recorded, "num_params", model), (long long)pub->params);
        }
    }
    printf("%-20s %d sizes, %d rejected, %d layer shapes\n", model, sizes ? sizes->n : 0,
           rejected ? rejected->n : 0, layers_checked);
}

int main(void)
{
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    jval *root = read_reference();
    const jval *models = jget(root, "models");
    CHECK(models != NULL);
    CHECK_EQ(models ? models->n : 0, N_PUBLISHED);
    for (int i = 0; i < N_PUBLISHED; i++) {
        const jval *ref = jget(models, PUBLISHED[i].model);
        if (!ref) {
            check_failed++;
            fprintf(stderr, "%s: no model %s\n", REFERENCE, PUBLISHED[i].model);
            continue;
        }
        check_model(reg, PUBLISHED[i].model, ref, &PUBLISHED[i]);
    }
    jfree(root);
    sm_registry_free(reg);
    return check_summary();
}
