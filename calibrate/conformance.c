/*
 * The conformance harness (conformance.h): reads a cases.ini, builds each case's tiny network,
 * compares the layer named g with the expected values and checks its gradients on the CPU.
 *
 * The gradient check is tests/gradient_check.h's, installed: with a fixed random r,
 * R = sum(y * r) has dR/dy = r, so after backward from r the gradient of every input element
 * and every weight must equal (R(v + e) - R(v - e)) / 2e. Inputs are spread values (distinct,
 * none near 0) so that no difference crosses a kink of relu or max.
 *
 * With a device (conformance.h), the same input, weights and output gradient then run there,
 * and its output and gradients must match the CPU's within the case's tolerance.
 */
#include "conformance.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "executor.h"
#include "scalemeter/memory.h"

#define LINE_LEN 1024
#define TEXT_LEN 4096
#define SEED 7             /* of the executors' weights, input and dropout masks */
#define MAX_CASE_BATCH 256 /* a case is a few elements; its tensors are allocated whole */
/* The gradient check runs two forward passes per value it perturbs: past this many values x
 * forward work (docs/plugin-abi.md) a case runs for seconds to hours, so it is refused first.
 * The shipped cases stay under 2e7. */
#define MAX_CHECK_WORK 5e8

/* The expected values a case may give, each checked only when given. */
enum {
    X_MACS,
    X_FLOPS,
    X_WEIGHTS,
    X_PARAM_TENSORS,
    X_BWD_FLOPS,
    X_SAVED_INPUTS,
    X_SAVED_OUTPUT,
    X_ALIASES_INPUT,
    X_SAVED_EXTRA_ELEMS,
    X_SAVED_EXTRA_BYTES,
    X_BYTES,
    X_KERNELS_FWD,
    X_KERNELS_BWD,
    X_SERIAL_BYTES,
    X_UPCAST_BYTES,
    X_SAVED_UPCAST_BYTES,
    X_ACTIVATIONS,
    X_LINEAR_PRODUCTS,
    X_LINEAR_FLOPS,
    X_LINEAR_INPUT_ELEMS,
    X_LINEAR_OUTPUT_ELEMS,
    X_COUNT
};
static const char *const expect_keys[X_COUNT] = {
    "macs",
    "flops",
    "weights",
    "param_tensors",
    "bwd_flops",
    "saved_inputs",
    "saved_output",
    "aliases_input",
    "saved_extra_elems",
    "saved_extra_bytes",
    "bytes",
    "kernels_fwd",
    "kernels_bwd",
    "serial_bytes",
    "upcast_bytes",
    "saved_upcast_bytes",
    "activations",
    "linear_products",
    "linear_flops",
    "linear_input_elems",
    "linear_output_elems",
};
/* The other keys of a case; each may be given once, but net, repeated in order. */
static const char *const other_keys[] = {
    "layer",  "input",          "output",       "message",       "gradient",
    "device", "random_weights", "batch",        "eps",           "tolerance",
    "scale",  "torch",          "input_values", "output_values", "weight_values"};
#define N_KEYS (X_COUNT + (int)(sizeof other_keys / sizeof *other_keys))
/* input_values, output_values, weight_values: a line of at most 1023 characters holds fewer */
#define MAX_VALUES 512
/* the forward pass's values against the expected ones: relative to the largest expected */
#define VALUES_TOLERANCE 1e-4

/* A list of numbers a case gives: input_values, output_values, weight_values. */
typedef struct value_list {
    int n; /* 0: not given */
    float v[MAX_VALUES];
} value_list;

typedef struct conf_case {
    int refuse; /* [refuse NAME] rather than [case NAME] */
    int line;   /* of its section header */
    char name[128], type[64], input[64], output[64], message[256];
    char net[TEXT_LEN];
    int has[X_COUNT];
    long long want[X_COUNT];
    int gradient; /* 1: check it where the type has CPU kernels */
    int device;   /* 1: and compare it on the device, where one is given */
    long long batch;
    double eps, tolerance, scale;
    int random_weights;
    int key_line[N_KEYS]; /* where each key was given, 0: not yet */
    /* the forward pass at batch 1 (inference) from input_values (and weight_values) must give
     * output_values as layer g's output */
    value_list in_values, out_values, w_values;
    /* the cases file and the line of each of net's lines, for the network's errors */
    const char *file;
    int net_line[TEXT_LEN / 4];
    int n_net;
    int net_key_line; /* the first net line, 0: none (layer is the other way to give the layer) */
} conf_case;

static void case_reset(conf_case *c)
{
    memset(c, 0, sizeof *c);
    c->gradient = 1;
    c->device = 1;
    c->batch = 2;
    c->eps = 1e-3;
    c->tolerance = 1e-2;
    c->scale = 1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* The type of the layer named g in a line "g = TYPE ..." (or of "TYPE ..." for layer =). */
static void type_of(char *dst, size_t len, const char *line)
{
    const char *eq = strchr(line, '=');
    const char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == 'g' && eq && strspn(p + 1, " \t") == (size_t)(eq - p - 1))
        p = eq + 1;
    while (isspace((unsigned char)*p))
        p++;
    size_t n = strcspn(p, " \t");
    snprintf(dst, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* ---- the gradient check ------------------------------------------------------------------ */

typedef struct grad_run {
    sm_executor *ex;
    float *r;
    uint64_t rng;
} grad_run;

static double rnd(uint64_t *rng) /* uniform in [-1, 1) */
{
    *rng = *rng * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return (double)(*rng >> 11) / 4503599627370496.0 - 1.0;
}

static int64_t elems(const sm_tensor *t) { return t->n * sm_shape_elems(&t->shape); }

static void spread(float *x, int64_t n, double s, uint64_t *rng)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)(s * ((2.0 * (double)i + 1.0) / (double)n - 1.0));
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)((rnd(rng) + 1) / 2 * (double)(i + 1)) % (i + 1);
        float t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

static int objective(grad_run *g, double *value, sm_status *st)
{
    if (sm_executor_forward(g->ex, 1, st))
        return -1;
    sm_tensor y = sm_executor_output(g->ex);
    double s = 0;
    for (int64_t i = 0; i < elems(&y); i++)
        s += (double)y.data[i] * g->r[i];
    *value = s;
    return 0;
}

/* Largest |analytic - numeric| over v, relative to the largest |numeric| (at least 1e-3);
 * infinite where either is not finite (a NaN loses every comparison, so it would read 0). */
static int compare(grad_run *g, float *v, const float *grad, int64_t n, double eps, double *err,
                   sm_status *st)
{
    double worst = 0, scale = 1e-3;
    for (int64_t i = 0; i < n; i++) {
        float keep = v[i];
        double up, down;
        v[i] = keep + (float)eps;
        if (objective(g, &up, st))
            return -1;
        v[i] = keep - (float)eps;
        if (objective(g, &down, st))
            return -1;
        v[i] = keep;
        double numeric = (up - down) / (2 * eps);
        double d = fabs(numeric - grad[i]);
        if (!isfinite(d)) {
            *err = INFINITY;
            return 0;
        }
        worst = d > worst ? d : worst;
        scale = fabs(numeric) > scale ? fabs(numeric) : scale;
    }
    *err = worst / scale;
    return 0;
}

/* ---- what the backward pass of g adds and reads ------------------------------------------- */

/* Largest |a - b| over n, relative to the largest |b| (at least 1e-3); infinite where either is
 * not finite. */
static double rel_diff(const float *a, const float *b, int64_t n)
{
    double worst = 0, scale = 1e-3;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (!isfinite(d))
            return INFINITY;
        worst = d > worst ? d : worst;
        scale = fabs((double)b[i]) > scale ? fabs((double)b[i]) : scale;
    }
    return worst / scale;
}

/* Whether input j of l is what another input before it is (g = mul from=a,a). */
static int same_as_earlier(const sm_layer_io *call, int j)
{
    for (int k = 0; k < j; k++)
        if (call->in[k].data == call->in[j].data)
            return 1;
    return 0;
}

/* Whether l's saved() keeps nothing of its activations: no input, not its output, no tensor of
 * its own. A layer that keeps something may read in its backward what it does not keep where
 * what it keeps stands for it (relu keeps its output and reads the sign of its input; an
 * in-place activation keeps a copy of its input; embedding keeps its indices as bytes), so
 * only a layer that keeps nothing is held to reading nothing. */
static int keeps_nothing(const sm_layer *l)
{
    const sm_layer_saved *s = &l->saved;
    return !s->inputs && !s->output && !s->extra_elems && !s->mask_elems && !s->extra_bytes &&
           !s->extra_bytes_fixed && !s->upcast_bytes;
}

/* g's backward pass alone with each input gradient first set to base[j] (0 where base is NULL);
 * its input gradients and weight gradients then copied to din_out[j] and dw_out. */
static int backward_alone(grad_run *g, int gi, float *const *base, float **din_out, float *dw_out,
                          sm_status *st)
{
    const sm_layer_io *call = sm_executor_layer_call(g->ex, gi);
    for (int j = 0; j < call->n_in; j++)
        if (call->din[j].data && !same_as_earlier(call, j)) {
            size_t bytes = (size_t)elems(&call->din[j]) * sizeof(float);
            if (base)
                memcpy(call->din[j].data, base[j], bytes);
            else
                memset(call->din[j].data, 0, bytes);
        }
    if (sm_executor_layer_backward(g->ex, gi, st))
        return -1;
    for (int j = 0; j < call->n_in; j++)
        if (call->din[j].data && !same_as_earlier(call, j))
            memcpy(din_out[j], call->din[j].data, (size_t)elems(&call->din[j]) * sizeof(float));
    if (call->n_w)
        memcpy(dw_out, call->dw, (size_t)call->n_w * sizeof(float));
    return 0;
}

/* After a training forward and backward of the whole network: g's backward must add into its
 * input gradients (kernels.h; a tensor two layers read sums both), not overwrite them, and,
 * where its saved() keeps nothing, must give the same gradients with its inputs and output
 * made NaN, since the memory model counts only what saved() declares. Writes the first breach
 * into why (empty: none); the buffers are put back as they were. */
static int backward_contract(grad_run *g, const sm_layer *l, int gi, double tol, char *why,
                             size_t len, sm_status *st)
{
    const sm_layer_io *call = sm_executor_layer_call(g->ex, gi);
    int n = call->n_in, rc = -1;
    why[0] = '\0';
    float **keep = calloc((size_t)n, sizeof *keep), **base = calloc((size_t)n, sizeof *base);
    float **clean = calloc((size_t)n, sizeof *clean), **got = calloc((size_t)n, sizeof *got);
    int64_t nw = call->n_w;
    float *dw_keep = malloc((size_t)(nw ? nw : 1) * sizeof(float));
    float *dw_clean = malloc((size_t)(nw ? nw : 1) * sizeof(float));
    float *dw_got = malloc((size_t)(nw ? nw : 1) * sizeof(float)), *saved = NULL;
    if (!keep || !base || !clean || !got || !dw_keep || !dw_clean || !dw_got)
        goto oom;
    for (int j = 0; j < n; j++) {
        if (!call->din[j].data || same_as_earlier(call, j))
            continue;
        size_t bytes = (size_t)elems(&call->din[j]) * sizeof(float);
        if (!(keep[j] = malloc(bytes)) || !(base[j] = malloc(bytes)) ||
            !(clean[j] = malloc(bytes)) || !(got[j] = malloc(bytes)))
            goto oom;
        memcpy(keep[j], call->din[j].data, bytes);
        for (int64_t i = 0; i < elems(&call->din[j]); i++)
            base[j][i] = (float)rnd(&g->rng);
    }
    if (nw)
        memcpy(dw_keep, call->dw, (size_t)nw * sizeof(float));

    /* what it adds, from zeroed gradients; then from gradients already holding base */
    if (backward_alone(g, gi, NULL, clean, dw_clean, st) ||
        backward_alone(g, gi, base, got, dw_got, st))
        goto done;
    for (int j = 0; j < n && !why[0]; j++) {
        if (!base[j])
            continue;
        for (int64_t i = 0; i < elems(&call->din[j]); i++)
            got[j][i] -= base[j][i];
        double d = rel_diff(got[j], clean[j], elems(&call->din[j]));
        if (d > tol)
            snprintf(why, len,
                     "its backward overwrites the gradient of input %d instead of adding to it "
                     "(difference %.2e): kernels.h's backward adds into din, as a tensor two "
                     "layers read gets both gradients",
                     j, d);
    }

    /* what it reads, keeping nothing: each tensor made NaN in turn (input j, then the output) */
    for (int t = 0; t <= n && !why[0] && keeps_nothing(l); t++) {
        const sm_tensor *x = t < n ? &call->in[t] : call->out;
        if (t < n && same_as_earlier(call, t))
            continue;
        int64_t ne = elems(x);
        if (!(saved = malloc((size_t)ne * sizeof(float))))
            goto oom;
        memcpy(saved, x->data, (size_t)ne * sizeof(float));
        for (int64_t i = 0; i < ne; i++)
            x->data[i] = NAN;
        int failed = backward_alone(g, gi, NULL, got, dw_got, st);
        memcpy(x->data, saved, (size_t)ne * sizeof(float));
        free(saved);
        saved = NULL;
        if (failed)
            goto done;
        double d = nw ? rel_diff(dw_got, dw_clean, nw) : 0;
        for (int j = 0; j < n; j++)
            if (base[j]) {
                double dj = rel_diff(got[j], clean[j], elems(&call->din[j]));
                d = dj > d ? dj : d;
            }
        if (d > tol) {
            char what[32];
            snprintf(what, sizeof what, t < n ? "input %d" : "its output", t);
            char change[64];
            snprintf(change, sizeof change, isfinite(d) ? "change by %.2e" : "turn NaN", d);
            snprintf(why, len,
                     "its backward reads %s (its gradients %s when it is NaN), but its saved() "
                     "keeps nothing, so the memory model counts no activation for it: declare "
                     "what PyTorch keeps (%s)",
                     what, change, t < n ? "s->inputs, a bit per input" : "s->output = 1");
        }
    }
    rc = 0;
    goto done;
oom:
    sm_fail(st, "out of memory");
done:
    for (int j = 0; j < n; j++)
        if (keep && keep[j])
            memcpy(call->din[j].data, keep[j], (size_t)elems(&call->din[j]) * sizeof(float));
    if (nw && dw_keep)
        memcpy(call->dw, dw_keep, (size_t)nw * sizeof(float));
    for (int j = 0; j < n; j++) {
        if (keep)
            free(keep[j]);
        if (base)
            free(base[j]);
        if (clean)
            free(clean[j]);
        if (got)
            free(got[j]);
    }
    free(keep);
    free(base);
    free(clean);
    free(got);
    free(dw_keep);
    free(dw_clean);
    free(dw_got);
    free(saved);
    return rc;
}

/* What the device gave for a case: compare's return (2: not asked), errors and why. */
typedef struct device_result {
    int rc;
    double err[3];
    char line[512];
} device_result;

/* Runs the CPU's forward and backward of g again on dev, from the same numbers. */
static void device_compare(const sm_conformance_device *dev, const sm_network *net,
                           const conf_case *c, grad_run *g, const float *y, const float *dx,
                           const float *dw, int64_t nw, device_result *dr)
{
    sm_tensor in = sm_executor_input(g->ex), out = sm_executor_output(g->ex);
    int64_t n;
    sm_conformance_reference ref = {.net = net,
                                    .batch = c->batch,
                                    .seed = SEED,
                                    .n_input = elems(&in),
                                    .n_weights = nw,
                                    .n_output = elems(&out),
                                    .input = in.data,
                                    .weights = sm_executor_weights(g->ex, &n),
                                    .output_grad = g->r,
                                    .output = y,
                                    .input_grad = dx,
                                    .weight_grads = dw};
    dr->line[0] = '\0';
    dr->rc = dev->compare(&ref, dr->err, dr->line, sizeof dr->line);
}

/* Where c's kernels run, for the plugin guard: "case b (cases.ini:6)". */
static const char *case_where(const conf_case *c, char *buf, size_t len)
{
    snprintf(buf, len, "case %s (%s:%d)", c->name, c->file, c->line);
    return buf;
}

/* The relative errors of the input and weight gradients of net at c's batch; with dev, what
 * the device gave for the same forward and backward (dr). */
static int gradient_errors(const sm_network *net, const conf_case *c, double *ein, double *ew,
                           int64_t *n_weights, const sm_conformance_device *dev, device_result *dr,
                           char *contract, size_t contract_len, sm_status *st)
{
    grad_run g = {.rng = 12345};
    char where[4400];
    sm_executor_options opt = {.batch = c->batch,
                               .seed = SEED,
                               .input_grad = 1,
                               .guard = case_where(c, where, sizeof where)};
    /* the guard's signal handlers once for the many passes of the check (each kernel's call
     * then only names itself) */
    const char *outer = sm_plugin_call_begin(NULL);
    if (sm_executor_new(net, &opt, &g.ex, st)) {
        sm_plugin_call_end(outer);
        return -1;
    }
    int rc = -1;
    sm_tensor in = sm_executor_input(g.ex), out = sm_executor_output(g.ex);
    spread(in.data, elems(&in), c->scale, &g.rng);
    int64_t nw;
    float *w = sm_executor_weights(g.ex, &nw);
    if (c->random_weights)
        for (int64_t i = 0; i < nw; i++)
            w[i] = (float)rnd(&g.rng);
    g.r = malloc((size_t)elems(&out) * sizeof *g.r);
    float *dx = malloc((size_t)elems(&in) * sizeof(float));
    float *dw = malloc((size_t)(nw ? nw : 1) * sizeof(float));
    float *y = malloc((size_t)elems(&out) * sizeof(float));
    if (!g.r || !dx || !dw || !y) {
        sm_fail(st, "out of memory");
        goto done;
    }
    for (int64_t i = 0; i < elems(&out); i++)
        g.r[i] = (float)rnd(&g.rng);
    double r0;
    if (objective(&g, &r0, st))
        goto done;
    sm_tensor dy = sm_executor_output_grad(g.ex);
    memcpy(dy.data, g.r, (size_t)elems(&dy) * sizeof(float));
    if (sm_executor_backward(g.ex, st))
        goto done;
    memcpy(dx, sm_executor_input_grad(g.ex).data, (size_t)elems(&in) * sizeof(float));
    memcpy(dw, sm_executor_weight_grads(g.ex, &nw), (size_t)nw * sizeof(float));
    memcpy(y, sm_executor_output(g.ex).data, (size_t)elems(&out) * sizeof(float));
    const sm_layer *gl = sm_network_layer(net, "g");
    if (backward_contract(&g, gl, (int)(gl - net->layers), c->tolerance, contract, contract_len,
                          st))
        goto done;
    *ew = 0;
    *n_weights = nw;
    if (compare(&g, in.data, dx, elems(&in), c->eps, ein, st) ||
        (nw && compare(&g, w, dw, nw, c->eps, ew, st)))
        goto done;
    if (dev) /* compare() put every value back as it was */
        device_compare(dev, net, c, &g, y, dx, dw, nw, dr);
    rc = 0;
done:
    free(y);
    free(g.r);
    free(dx);
    free(dw);
    sm_executor_free(g.ex);
    sm_plugin_call_end(outer);
    return rc;
}

/* ---- one case ----------------------------------------------------------------------------- */

static int key_index(const char *key);

/* The cases file's line for line N of the temporary network file (written by load_case:
 * [network], name, input, [layers], then net's lines): a net line's own, input's, else the
 * case's header. */
static int case_line(const conf_case *c, long n)
{
    return n >= 5 && n - 5 < c->n_net                  ? c->net_line[n - 5]
           : n == 3 && c->key_line[key_index("input")] ? c->key_line[key_index("input")]
                                                       : c->line;
}

/* An error at line N of the temporary network file names the cases file's line instead, and
 * so does a line it points to ("layer name a is already used at line 5"). */
static void name_case_line(const conf_case *c, const char *tmp, sm_status *st)
{
    size_t len = strlen(tmp);
    char *end;
    if (!c->file || strncmp(st->msg, tmp, len) || st->msg[len] != ':')
        return;
    long n = strtol(st->msg + len + 1, &end, 10);
    if (end == st->msg + len + 1 || *end != ':')
        return;
    char out[sizeof st->msg];
    int h = snprintf(out, sizeof out, "%s:%d", c->file, case_line(c, n));
    if (h < 0 || (size_t)h >= sizeof out)
        return;
    size_t o = (size_t)h;
    static const char at[] = " at line ";
    for (const char *s = end; *s;) {
        const char *hit = strstr(s, at), *num = hit ? hit + strlen(at) : s + strlen(s);
        char *after = (char *)num;
        long m = hit && isdigit((unsigned char)*num) ? strtol(num, &after, 10) : 0;
        int w =
            m >= 1 && m <= 4 + c->n_net /* a line of the network file */
                ? snprintf(out + o, sizeof out - o, "%.*s%d", (int)(num - s), s, case_line(c, m))
                : snprintf(out + o, sizeof out - o, "%.*s", (int)(after - s), s);
        if (w < 0 || (size_t)w >= sizeof out - o)
            return;
        o += (size_t)w;
        s = after;
    }
    memcpy(st->msg, out, o + 1);
}

static sm_network *load_case(const sm_registry *reg, const conf_case *c, sm_status *st)
{
    char path[] = "/tmp/sm_conformance_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        sm_fail(st, "cannot write a temporary network file in /tmp");
        return NULL;
    }
    fprintf(f, "[network]\nname = %s\ninput = %s\n[layers]\n%s", c->name, c->input, c->net);
    fclose(f);
    sm_network *net = NULL;
    sm_network_options opt = {0};
    int rc = sm_network_load(reg, path, &opt, &net, st);
    unlink(path);
    if (rc)
        name_case_line(c, path, st);
    return rc ? NULL : net;
}

/* Bytes a sample of the case's network keeps for the backward pass at the end of a training
 * forward pass, its output included: the memory model's activations (predict --device cpu's:
 * fp32, 4-byte dropout masks), per sample as the difference between batches 4 and 2, so that
 * what a step keeps whatever its batch drops out, as in PyTorch's record of its saved tensors
 * (tests/test_conformance_torch.py). -1 where the model refuses the network. */
static long long activations_per_sample(const sm_network *net)
{
    sm_memory_config c = {.optimizer = SM_OPTIMIZER_SGD, .mask_bytes = 4};
    sm_memory m2, m4;
    sm_status st;
    if (sm_network_memory(net, 2, 1, 1, &c, &m2, &st) ||
        sm_network_memory(net, 4, 1, 1, &c, &m4, &st))
        return -1;
    return llround((m4.activations - m2.activations) / 2);
}

static long long got_value(const sm_network *net, const sm_layer *l, int k)
{
    switch (k) {
    case X_ACTIVATIONS:
        return activations_per_sample(net);
    case X_MACS:
        return l->m.macs;
    case X_FLOPS:
        return l->m.flops;
    case X_WEIGHTS:
        return l->m.weights;
    case X_PARAM_TENSORS:
        return l->m.param_tensors;
    case X_BWD_FLOPS:
        return l->m.bwd_flops;
    case X_SAVED_INPUTS:
        return l->saved.inputs;
    case X_SAVED_OUTPUT:
        return l->saved.output;
    case X_ALIASES_INPUT:
        return l->saved.aliases_input;
    case X_SAVED_EXTRA_ELEMS:
        return l->saved.extra_elems;
    case X_SAVED_EXTRA_BYTES:
        return l->saved.extra_bytes;
    case X_BYTES:
        return l->m.bytes;
    case X_KERNELS_FWD:
        return l->m.kernels_fwd;
    case X_SERIAL_BYTES:
        return l->m.serial_bytes;
    case X_UPCAST_BYTES:
        return l->m.upcast_bytes;
    case X_SAVED_UPCAST_BYTES:
        return l->saved.upcast_bytes;
    case X_LINEAR_PRODUCTS:
        return l->m.linear_products;
    case X_LINEAR_FLOPS:
        return l->m.linear_flops;
    case X_LINEAR_INPUT_ELEMS:
        return l->m.linear_input_elems;
    case X_LINEAR_OUTPUT_ELEMS:
        return l->m.linear_output_elems;
    default:
        return l->m.kernels_bwd;
    }
}

/* Appends the device's verdict on a case to line (at used); -1 when it failed. */
static int device_verdict(const sm_conformance_device *dev, const conf_case *c,
                          const device_result *dr, char *line, size_t len, size_t used)
{
    if (dr->rc == 1) {
        snprintf(line + used, len - used, "; %s: not compared (%s)", dev->name, dr->line);
        return 0;
    }
    if (dr->rc) {
        snprintf(line + used, len - used, "; %s: %s", dev->name, dr->line);
        return -1;
    }
    int bad = dr->err[0] > c->tolerance || dr->err[1] > c->tolerance || dr->err[2] > c->tolerance;
    snprintf(line + used, len - used,
             "; %s against cpu: output %.2e, input grad %.2e, weight grads %.2e%s", dev->name,
             dr->err[0], dr->err[1], dr->err[2], bad ? ": too large" : "");
    return bad ? -1 : 0;
}

/* Whether msg names the layer g itself: "layer g" not followed by more of a name ("layer
 * gate", "layer g2"), as the loader writes "layer g (TYPE): ..." and "layer g: ...". */
static int names_layer_g(const char *msg)
{
    for (const char *p = strstr(msg, "layer g"); p; p = strstr(p + 1, "layer g")) {
        char next = p[7];
        int word = p == msg || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        if (word && (next == '\0' || strchr(" \t:,;)", next)))
            return 1;
    }
    return 0;
}

/* 0 when the gradient check of net at c's batch is within MAX_CHECK_WORK; otherwise writes
 * why into line. In doubles, so that no sum saturates. */
static int check_work(const sm_network *net, const conf_case *c, char *line, size_t len)
{
    double values = (double)c->batch * (double)sm_shape_elems(&net->input), pass = 0;
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        values += (double)l->m.weights;
        pass += (double)c->batch * ((double)l->m.flops + (double)sm_shape_elems(&l->out));
    }
    if (values * pass <= MAX_CHECK_WORK)
        return 0;
    snprintf(line, len,
             "gradient check of %.0f values (batch x input elements, and weights) x %.0f per "
             "forward pass (batch x (FLOPs + output elements)) = %.0f, past the bound of %.0f "
             "(docs/plugin-abi.md): give a smaller input, batch or layer, or gradient = no",
             values, pass, values * pass, MAX_CHECK_WORK);
    return -1;
}

/* The forward pass of net at batch 1, at inference, from c's input_values (and weight_values):
 * layer g's output against output_values. Writes the verdict into why (prefixed "; ") and
 * returns -1 when they differ or cannot be compared. */
static int check_values(const sm_network *net, const sm_layer *l, const conf_case *c, char *why,
                        size_t len)
{
    sm_executor *ex = NULL;
    sm_status st = {{0}};
    char where[4400];
    sm_executor_options opt = {
        .batch = 1, .seed = SEED, .guard = case_where(c, where, sizeof where)};
    int rc = -1;
    if (sm_executor_new(net, &opt, &ex, &st)) {
        snprintf(why, len, "; values: %.600s", st.msg);
        return -1;
    }
    sm_tensor in = sm_executor_input(ex);
    int64_t nw;
    float *w = sm_executor_weights(ex, &nw);
    int gi = (int)(l - net->layers);
    sm_tensor y = sm_executor_activation(ex, gi);
    if (elems(&in) != c->in_values.n) {
        snprintf(why, len, "; input_values holds %d numbers, the input %lld elements",
                 c->in_values.n, (long long)elems(&in));
        goto done;
    }
    if (nw != c->w_values.n && (nw || c->w_values.n)) {
        snprintf(why, len,
                 "; weight_values holds %d numbers, the case's network %lld weights (every "
                 "layer's, in order, each in PyTorch's parameters() order)",
                 c->w_values.n, (long long)nw);
        goto done;
    }
    if (elems(&y) != c->out_values.n) {
        snprintf(why, len, "; output_values holds %d numbers, the output of g %lld elements",
                 c->out_values.n, (long long)elems(&y));
        goto done;
    }
    memcpy(in.data, c->in_values.v, (size_t)c->in_values.n * sizeof(float));
    if (nw)
        memcpy(w, c->w_values.v, (size_t)nw * sizeof(float));
    if (sm_executor_forward(ex, 0, &st)) {
        snprintf(why, len, "; values: %.600s", st.msg);
        goto done;
    }
    y = sm_executor_activation(ex, gi);
    int64_t worst = 0;
    for (int64_t i = 1; i < c->out_values.n; i++)
        if (!(fabsf(y.data[i] - c->out_values.v[i]) <=
              fabsf(y.data[worst] - c->out_values.v[worst])))
            worst = i;
    double d = rel_diff(y.data, c->out_values.v, c->out_values.n);
    if (d > VALUES_TOLERANCE) {
        snprintf(why, len,
                 "; forward values differ from output_values by %.2e of the largest (at most "
                 "%.0e): output %lld is %.7g, expected %.7g",
                 d, VALUES_TOLERANCE, (long long)worst, (double)y.data[worst],
                 (double)c->out_values.v[worst]);
        goto done;
    }
    snprintf(why, len, "; %d output values within %.2e", c->out_values.n, d);
    rc = 0;
done:
    sm_executor_free(ex);
    return rc;
}

/* Runs c (on dev too, when given); writes "ok ..." or the first failure into line; 0 when it
 * passed. */
static int run_case(const sm_registry *reg, const conf_case *c, const sm_conformance_device *dev,
                    int *gradient_done, int *device_done, char *line, size_t len)
{
    sm_status st = {{0}};
    sm_network *net = load_case(reg, c, &st);
    if (c->refuse) {
        if (net) {
            sm_network_free(net);
            snprintf(line, len, "loaded; expected a refusal holding \"%s\"", c->message);
            return -1;
        }
        if (!strstr(st.msg, c->message) || !names_layer_g(st.msg)) {
            snprintf(line, len, "refused with \"%.500s\"; expected \"%.200s\" naming layer g",
                     st.msg, c->message);
            return -1;
        }
        snprintf(line, len, "refused: %s", c->message);
        return 0;
    }
    if (!net) {
        snprintf(line, len, "does not load: %.700s", st.msg);
        return -1;
    }
    int rc = -1;
    const sm_layer *l = sm_network_layer(net, "g");
    char shape[96];
    if (!l) {
        snprintf(line, len, "the network has no layer named g (the layer under test)");
        goto done;
    }
    sm_shape_str(&l->out, shape, sizeof shape);
    if (c->output[0] && strcmp(shape, c->output)) {
        snprintf(line, len, "output %s, expected %s", shape, c->output);
        goto done;
    }
    for (int k = 0; k < X_COUNT; k++)
        if (c->has[k] && got_value(net, l, k) == SM_OVERFLOW) { /* the host refuses it */
            snprintf(line, len, "%s overflows 64 bits", expect_keys[k]);
            goto done;
        } else if (c->has[k] && got_value(net, l, k) != c->want[k]) {
            snprintf(line, len, "%s %lld, expected %lld", expect_keys[k], got_value(net, l, k),
                     c->want[k]);
            goto done;
        }
    int used = snprintf(line, len, "output %s", shape);
    const struct sm_cpu_kernels *cpu = NULL;
    if (c->gradient && sm_registry_cpu_kernels(reg, l->type, &cpu, &st)) {
        snprintf(line, len, "gradient check: %.700s", st.msg);
        goto done;
    }
    if (c->in_values.n) {
        char why[768];
        if (!cpu && !c->gradient) /* gradient = no did not ask for them */
            sm_registry_cpu_kernels(reg, l->type, &cpu, &st);
        if (!cpu) {
            snprintf(line + used, len - (size_t)used,
                     "; input_values and output_values need CPU kernels, and %s has none",
                     l->type->name);
            goto done;
        }
        int bad = check_values(net, l, c, why, sizeof why);
        snprintf(line + used, len - (size_t)used, "%s", why);
        used = (int)strlen(line);
        if (bad)
            goto done;
        if (!c->gradient)
            cpu = NULL; /* values checked; no gradient asked for */
    }
    if (cpu && check_work(net, c, line, len))
        goto done;
    if (cpu) {
        double ein = 0, ew = 0;
        int64_t nw = 0;
        device_result dr = {.rc = 2};
        char contract[512];
        if (gradient_errors(net, c, &ein, &ew, &nw, c->device ? dev : NULL, &dr, contract,
                            sizeof contract, &st)) {
            snprintf(line, len, "gradient check: %.700s", st.msg);
            goto done;
        }
        *gradient_done = 1;
        int bad = ein > c->tolerance || ew > c->tolerance;
        snprintf(line + used, len - (size_t)used,
                 "; gradient error input %.2e, weights %.2e (%lld weights), tolerance %.0e%s", ein,
                 ew, (long long)nw, c->tolerance, bad ? ": too large" : "");
        if (bad)
            goto done;
        if (contract[0]) {
            used = (int)strlen(line);
            snprintf(line + used, len - (size_t)used, "; %s", contract);
            goto done;
        }
        if (dr.rc != 2) {
            used = (int)strlen(line);
            *device_done = dr.rc == 0; /* compared, whatever the verdict */
            if (device_verdict(dev, c, &dr, line, len, (size_t)used))
                goto done;
        }
    } else if (c->gradient) {
        snprintf(line + used, len - (size_t)used, "; no CPU kernels: no gradient check");
    }
    rc = 0;
done:
    sm_network_free(net);
    return rc;
}

/* ---- the file ----------------------------------------------------------------------------- */

static int key_index(const char *key)
{
    for (int k = 0; k < N_KEYS; k++)
        if (!strcmp(key, k < X_COUNT ? expect_keys[k] : other_keys[k - X_COUNT]))
            return k;
    return -1;
}

static int set_key(conf_case *c, const char *key, const char *value, sm_status *st,
                   const char *path, int lineno)
{
    char *end;
    int ki = key_index(key);
    if (ki >= 0) { /* the last of two would win silently */
        if (c->key_line[ki])
            return sm_fail(st, "%s:%d: %s given twice in [%s %s] (first at line %d)", path, lineno,
                           key, c->refuse ? "refuse" : "case", c->name, c->key_line[ki]);
        c->key_line[ki] = lineno;
    }
    if (ki >= 0 && ki < X_COUNT) {
        /* a count; SM_OVERFLOW is the host's saturated value, never a true count, and strtoll
         * would clamp a larger one to it */
        errno = 0;
        long long v = strtoll(value, &end, 10);
        if (end == value || *end || errno == ERANGE || v < 0 || v >= SM_OVERFLOW)
            return sm_fail(st, "%s:%d: %s must be a whole number from 0 to %lld, not '%s'", path,
                           lineno, key, (long long)SM_OVERFLOW - 1, value);
        c->want[ki] = v;
        c->has[ki] = 1;
        return 0;
    }
    size_t used = strlen(c->net);
    if (!strcmp(key, "layer") || !strcmp(key, "net")) {
        int g = !strcmp(key, "layer");
        /* both would load as one network, g given twice or a layer beside g's that no one
         * asked for */
        int other = g ? c->net_key_line : c->key_line[key_index("layer")];
        if (other)
            return sm_fail(st,
                           "%s:%d: %s beside %s (line %d) in [%s %s]: give one of them, layer = "
                           "TYPE ... for the layer alone, or net = NAME = TYPE ... lines with the "
                           "one under test named g",
                           path, lineno, key, g ? "net" : "layer", other,
                           c->refuse ? "refuse" : "case", c->name);
        if (!g && !c->net_key_line)
            c->net_key_line = lineno;
        if (g || (value[0] == 'g' && (value[1] == '=' || isspace((unsigned char)value[1]))))
            type_of(c->type, sizeof c->type, value);
        int w = snprintf(c->net + used, sizeof c->net - used, "%s%s\n", g ? "g = " : "", value);
        if (w < 0 || (size_t)w >= sizeof c->net - used)
            return sm_fail(st, "%s:%d: the case's layers are too long", path, lineno);
        if (c->n_net < (int)(sizeof c->net_line / sizeof *c->net_line))
            c->net_line[c->n_net++] = lineno;
    } else if (!strcmp(key, "input") || !strcmp(key, "output") || !strcmp(key, "message")) {
        /* cut to its field, a shape read as another (1x00...055 as 1x5) and a message matched
         * on its first part alone */
        char *field = key[0] == 'i' ? c->input : key[0] == 'o' ? c->output : c->message;
        size_t cap = key[0] == 'm' ? sizeof c->message : sizeof c->input;
        if (strlen(value) >= cap)
            return sm_fail(st, "%s:%d: %s is longer than %zu characters", path, lineno, key,
                           cap - 1);
        memcpy(field, value, strlen(value) + 1);
    } else if (!strcmp(key, "gradient") || !strcmp(key, "device") ||
               !strcmp(key, "random_weights")) {
        if (strcmp(value, "yes") && strcmp(value, "no"))
            return sm_fail(st, "%s:%d: %s must be yes or no, not '%s'", path, lineno, key, value);
        int yes = !strcmp(value, "yes");
        if (key[0] == 'g')
            c->gradient = yes;
        else if (key[0] == 'd')
            c->device = yes;
        else
            c->random_weights = yes;
    } else if (!strcmp(key, "batch")) {
        long long v = strtoll(value, &end, 10);
        if (end == value || *end || v < 1 || v > MAX_CASE_BATCH)
            return sm_fail(st, "%s:%d: batch must be a whole number from 1 to %d, not '%s'", path,
                           lineno, MAX_CASE_BATCH, value);
        c->batch = v;
    } else if (!strcmp(key, "eps") || !strcmp(key, "tolerance") || !strcmp(key, "scale")) {
        errno = 0; /* ERANGE: past a double, or below its normal range (1e-400 reads as 0) */
        double v = strtod(value, &end);
        if (end == value || *end || errno == ERANGE || !(v > 0) || !isfinite(v))
            return sm_fail(st, "%s:%d: %s must be a positive finite number, not '%s'", path, lineno,
                           key, value);
        if (key[0] == 'e')
            c->eps = v;
        else if (key[0] == 't')
            c->tolerance = v;
        else
            c->scale = v;
    } else if (!strcmp(key, "input_values") || !strcmp(key, "output_values") ||
               !strcmp(key, "weight_values")) {
        value_list *vl = key[0] == 'i'   ? &c->in_values
                         : key[0] == 'o' ? &c->out_values
                                         : &c->w_values;
        for (const char *p = value; *p;) {
            while (isspace((unsigned char)*p) || *p == ',')
                p++;
            if (!*p)
                break;
            errno = 0;
            double v = strtod(p, &end);
            if (end == p || errno == ERANGE || !isfinite(v) || fabs(v) > 3e38 ||
                (*end && !isspace((unsigned char)*end) && *end != ','))
                return sm_fail(st, "%s:%d: %s must be finite numbers separated by spaces, not '%s'",
                               path, lineno, key, value);
            /* a float holds it, or the case checks another number than the one written:
             * 1e-50 read as 0, 1e-40 as a subnormal with its digits lost */
            if (v != 0 && fabs(v) < FLT_MIN)
                return sm_fail(st,
                               "%s:%d: %s: %.*s is below a float's smallest normal number "
                               "(%g) and would not be held as written: give 0 or a larger one",
                               path, lineno, key, (int)(end - p), p, FLT_MIN);
            if (vl->n == MAX_VALUES)
                return sm_fail(st, "%s:%d: %s holds more than %d numbers", path, lineno, key,
                               MAX_VALUES);
            vl->v[vl->n++] = (float)v;
            p = end;
        }
        if (!vl->n)
            return sm_fail(st, "%s:%d: %s holds no number", path, lineno, key);
    } else if (strcmp(key, "torch")) { /* torch: for tests/test_conformance_torch.py */
        return sm_fail(st, "%s:%d: unknown key '%s' (docs/plugin-abi.md lists a case's keys)", path,
                       lineno, key);
    }
    return 0;
}

static int registry_index(const sm_registry *reg, const char *type)
{
    for (int i = 0; i < sm_registry_count(reg); i++)
        if (!strcmp(sm_registry_type(reg, i)->name, type))
            return i;
    return -1;
}

/* Runs the case that ends here (if any), adding to tally. */
static int finish_case(const sm_registry *reg, const conf_case *c, const char *path, FILE *out,
                       sm_conformance_tally *t, sm_status *st)
{
    if (!c->line)
        return 0;
    if (!c->input[0] || !c->type[0])
        return sm_fail(st, "%s:%d: case %s needs input and layer (or net with a layer g)", path,
                       c->line, c->name);
    if (c->refuse && !c->message[0])
        return sm_fail(st, "%s:%d: refusal %s needs message", path, c->line, c->name);
    for (int k = 0; c->refuse && k < X_COUNT; k++) /* a refused layer has nothing to count */
        if (c->has[k])
            return sm_fail(st, "%s:%d: %s in refusal %s: a refused layer has no counts to check",
                           path, c->key_line[k], expect_keys[k], c->name);
    if (c->refuse && c->output[0])
        return sm_fail(st, "%s:%d: output in refusal %s: a refused layer has no output to check",
                       path, c->key_line[key_index("output")], c->name);
    if (!c->refuse && c->message[0])
        return sm_fail(st, "%s:%d: message in case %s: only a [refuse] section expects one", path,
                       c->key_line[key_index("message")], c->name);
    static const char *const values[] = {"input_values", "output_values", "weight_values"};
    for (int k = 0; k < 3; k++) {
        int at = c->key_line[key_index(values[k])];
        if (at && c->refuse)
            return sm_fail(st, "%s:%d: %s in refusal %s: a refused layer has no values to check",
                           path, at, values[k], c->name);
        if (at && (!c->in_values.n || !c->out_values.n))
            return sm_fail(st,
                           "%s:%d: %s in case %s without %s: give input_values and "
                           "output_values together (weight_values with them)",
                           path, at, values[k], c->name,
                           c->in_values.n ? "output_values" : "input_values");
    }
    char line[1024];
    int grad = 0, dev = 0;
    int rc = run_case(reg, c, t->device, &grad, &dev, line, sizeof line);
    int idx = registry_index(reg, c->type);
    if (idx < 0 && rc == 0) { /* a case of a type not loaded cannot pass */
        snprintf(line, sizeof line, "type %s is not loaded", c->type);
        rc = -1;
    }
    if (idx >= 0) {
        if (t->cases_of)
            t->cases_of[idx]++;
        if (t->gradients_of)
            t->gradients_of[idx] += grad;
        if (t->device_of)
            t->device_of[idx] += dev;
    }
    t->device_checks += dev;
    c->refuse ? t->refusals++ : t->cases++;
    t->gradients += grad;
    t->failures += rc != 0;
    fprintf(out, "%-4s %s:%d %s %s (%s): %s\n", rc ? "FAIL" : "ok", path, c->line,
            c->refuse ? "refuse" : "case", c->name, c->type, line);
    return 0;
}

/* One line of the cases file into buf, without its newline: 1, 0 at the end of the file, or -1
 * with a message naming path:lineno for a line longer than buf, a NUL byte or lines ended by
 * a carriage return alone. fgets cut a long line into two and read its tail as a line of its
 * own ("output = 9x9" at the end of a long `torch =` line became a key), and a NUL ended a
 * value silently. A UTF-8 byte-order mark before the first line is read past, as the INI
 * readers do. */
static int read_case_line(FILE *f, char *buf, size_t len, const char *path, int lineno,
                          sm_status *st)
{
    size_t n = 0;
    int ch, nul = 0;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        nul |= ch == '\0';
        if (n + 1 >= len)
            return sm_fail(st, "%s:%d: a line longer than %zu characters", path, lineno, len - 1);
        buf[n++] = (char)ch;
    }
    if (ch == EOF && n == 0)
        return 0;
    buf[n] = '\0';
    if (nul)
        return sm_fail(st, "%s:%d: a NUL byte in the line (is this a text file?)", path, lineno);
    if (lineno == 1 && n >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
        memmove(buf, buf + 3, n - 2);
    const char *cr = strchr(buf, '\r');
    if (cr && cr[1])
        return sm_fail(st,
                       "%s:%d: a carriage return inside the line (lines ended by CR alone?): "
                       "convert them to LF",
                       path, lineno);
    return 1;
}

int sm_conformance_run(const sm_registry *reg, const char *path, FILE *out,
                       sm_conformance_tally *tally, sm_status *st)
{
    /* "-": the standard input, as every other file a command reads; a folder or a FIFO is
     * said for what it is, not "no such file" or a reader blocked for ever */
    struct stat sb;
    int std_in = !strcmp(path, "-"), there = !std_in && stat(path, &sb) == 0;
    if (there && S_ISDIR(sb.st_mode))
        return sm_fail(st, "%s: is a folder, not a cases file (name the cases.ini in it)", path);
    if (there && !S_ISREG(sb.st_mode))
        return sm_fail(st,
                       "%s: not a regular file: give a cases file, or - and the file on the "
                       "standard input",
                       path);
    FILE *f = std_in ? stdin : fopen(path, "r");
    if (!f)
        return sm_fail(st, "%s: cannot read the cases file: %s", path, strerror(errno));
    if (std_in)
        path = "<stdin>";
    conf_case *c = malloc(sizeof *c);
    if (!c) {
        if (!std_in)
            fclose(f);
        return sm_fail(st, "out of memory");
    }
    case_reset(c);
    char buf[LINE_LEN];
    int lineno = 0, rc = 0;
    while (rc == 0 && (rc = read_case_line(f, buf, sizeof buf, path, lineno + 1, st)) == 1) {
        rc = 0;
        lineno++;
        char *s = trim(buf);
        if (!*s || *s == '#' || *s == ';')
            continue;
        if (*s == '[') {
            /* "[KIND NAME]", nothing after but a comment: sscanf's "%127[^]]]" cut a longer name
             * and took a header without its ']' */
            char name[sizeof c->name];
            size_t kind_len = strcspn(s + 1, " \t]");
            int refuse = kind_len == 6 && !strncmp(s + 1, "refuse", 6);
            char *name_at = s + 1 + kind_len, *close = strchr(s, ']');
            while (*name_at == ' ' || *name_at == '\t')
                name_at++;
            char *after = close ? close + 1 : NULL;
            while (after && isspace((unsigned char)*after))
                after++;
            /* as every INI file reads (ini_reader.c): a comment after the header begins with ';' */
            if (after && *after == '#') {
                rc = sm_fail(st,
                             "%s:%d: '%s' after the header: a comment after a header begins "
                             "with ';' ('#' only on a line of its own)",
                             path, lineno, after);
                break;
            }
            if (!close || name_at >= close || (*after && *after != ';') ||
                !(refuse || (kind_len == 4 && !strncmp(s + 1, "case", 4)))) {
                rc = sm_fail(st, "%s:%d: a section is [case NAME] or [refuse NAME], not %s", path,
                             lineno, s);
                break;
            }
            const char *kind = refuse ? "refuse" : "case";
            size_t name_len = (size_t)(close - name_at);
            while (name_len && isspace((unsigned char)name_at[name_len - 1]))
                name_len--;
            if (name_len >= sizeof name) {
                rc = sm_fail(st, "%s:%d: a [%s] name of %zu characters: at most %zu", path, lineno,
                             kind, name_len, sizeof name - 1);
                break;
            }
            memcpy(name, name_at, name_len);
            name[name_len] = '\0';
            rc = finish_case(reg, c, path, out, tally, st);
            case_reset(c);
            c->file = path;
            c->refuse = refuse;
            c->line = lineno;
            memcpy(c->name, name, name_len + 1);
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq || !c->line) {
            rc = sm_fail(st, "%s:%d: expected KEY = VALUE inside a [case] or [refuse] section",
                         path, lineno);
            break;
        }
        *eq = '\0';
        /* as every INI file reads (ini_reader.c): ';' after a blank begins a comment, '#' only
         * on a line of its own, where "output = 40 ; c" was compared as "40 ; c" and failed */
        char *value = eq + 1;
        for (char *h = value; *h; h++)
            if ((*h == ';' || *h == '#') && (h == value || isspace((unsigned char)h[-1]))) {
                if (*h == ';') {
                    *h = '\0';
                    break;
                }
                rc = sm_fail(st,
                             "%s:%d: %s = %s: '#' begins a comment on a line of its own only; "
                             "a comment after a value begins with ';'",
                             path, lineno, trim(s), trim(value));
                break;
            }
        if (rc)
            break;
        rc = set_key(c, trim(s), trim(value), st, path, lineno);
    }
    if (rc == 0)
        rc = finish_case(reg, c, path, out, tally, st);
    free(c);
    if (!std_in)
        fclose(f);
    return rc;
}
