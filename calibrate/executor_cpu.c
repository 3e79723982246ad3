/*
 * The CPU executor (executor.h): owns every buffer of a network at one batch size and calls the
 * layers' kernels (kernels.h, struct sm_cpu_kernels) in order, darknet style: forward in network
 * order, backward in reverse. Shapes, wiring and initial values are the plan both executors
 * share (exec_plan.h); what a layer computes lives in its plugin; this file only allocates and
 * runs.
 *
 * Input gradients are accumulated by the kernels (a tensor read by two layers sums both
 * contributions), so each gradient buffer is zeroed just before the backward pass of the last
 * layer that reads it, the first to add into it, while it is still warm in cache.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "executor.h"
#include "exec_plan.h"

/* What the CPU adds to a planned layer: its kernels and its buffers' sizes. */
typedef struct cpu_layer {
    const struct sm_cpu_kernels *k;
    size_t state_bytes, work_bytes;
} cpu_layer;

struct sm_executor {
    sm_executor_options opt;
    sm_plan p;
    cpu_layer *layers;
    float *weights, *grads;
    void *work;
    size_t work_bytes;
    int32_t *labels;
    uint64_t step_seed;
    int kernels_named; /* 1: sm_plugin_kernels_named(1) was called, for sm_executor_free */
};

int sm_cpu_set_threads(int n)
{
    if (n > 0)
        openblas_set_num_threads(n);
    return openblas_get_num_threads();
}

/* The CPU kernels of a layer's type: the descriptor's own, or its companion module's (loaded
 * on first use through the network's registry); NULL when it has none usable, or when the
 * module failed to load (st says why, naming it). */
static const struct sm_cpu_kernels *kernels_of(const sm_network *net, const sm_layer *l,
                                               sm_status *st)
{
    const struct sm_cpu_kernels *k = NULL;
    const sm_layer_type *t = l->type;
    st->msg[0] = '\0';
    if (net->registry) {
        if (sm_registry_cpu_kernels(net->registry, t, &k, st))
            return NULL;
    } else if (t->struct_size >= offsetof(sm_layer_type, cpu) + sizeof t->cpu) {
        k = t->cpu; /* a network put together by hand: the descriptor's own kernels */
    }
    if (!k || k->struct_size < offsetof(struct sm_cpu_kernels, backward) + sizeof k->backward ||
        !k->forward || !k->backward)
        return NULL;
    return k;
}

int sm_executor_check(const sm_network *net, sm_status *st)
{
    /* a last loss (SM_TRAIT_LOSS) is the executor's own (sm_executor_loss): no kernels */
    int n = sm_plan_layers(net, st);
    for (int i = 0; i < n; i++) {
        const sm_layer *l = &net->layers[i];
        sm_status why;
        if (kernels_of(net, l, &why))
            continue;
        if (why.msg[0])
            return sm_fail(st, "%s:%d: layer '%s' of type '%s': %s", net->path, l->line, l->name,
                           l->type->name, why.msg);
        /* where they were looked for: a plugin author's companion may be misnamed or elsewhere */
        const char *plugin = NULL;
        for (int k = 0; net->registry && k < sm_registry_count(net->registry) && !plugin; k++)
            if (sm_registry_type(net->registry, k) == l->type)
                plugin = sm_registry_path(net->registry, k);
        if (!plugin)
            return sm_fail(st,
                           "%s:%d: layer '%s' of type '%s' has no CPU kernel, so %s cannot run "
                           "on the CPU backend",
                           net->path, l->line, l->name, l->type->name, net->name);
        size_t len = strlen(plugin);
        int stem = (int)(len > 3 && !strcmp(plugin + len - 3, ".so") ? len - 3 : len);
        return sm_fail(st,
                       "%s:%d: layer '%s' of type '%s' has no CPU kernel, so %s cannot run "
                       "on the CPU backend (its descriptor, %s, sets no cpu table, and there is "
                       "no %.*s_cpu.so beside it: docs/plugin-abi.md, \"Kernels and companion "
                       "modules\")",
                       net->path, l->line, l->name, l->type->name, net->name, plugin, stem, plugin);
    }
    return n < 0 ? -1 : 0;
}

/* ---- planning: every size, before anything is allocated ----------------------------------- */

/* The shared plan, then the kernels' state and scratch; *bytes the total, or -1 on overflow. */
static int new_plan(const sm_network *net, const sm_executor_options *opt, sm_executor **out,
                    int64_t *bytes, sm_status *st)
{
    *out = NULL;
    *bytes = -1;
    if (sm_executor_check(net, st))
        return -1;
    sm_executor *ex = calloc(1, sizeof *ex);
    if (!ex)
        return SM_EXECUTOR_NOMEM;
    *out = ex;
    ex->opt = *opt;
    int rc = sm_plan_init(&ex->p, net, opt->batch, st);
    if (rc)
        return rc;
    sm_plan *p = &ex->p;
    if (!(ex->layers = calloc((size_t)p->n, sizeof *ex->layers)))
        return SM_EXECUTOR_NOMEM;
    if ((opt->guard || opt->name_faults) &&
        sm_plan_name_kernels(p, "CPU", opt->guard ? opt->guard : "bench"))
        return SM_EXECUTOR_NOMEM;
    ex->p.name_only = !opt->guard && opt->name_faults;
    /* the plugin's state_size and work_size run here, its init later: the guard from here */
    const char *outer = opt->guard ? sm_plugin_call_begin(NULL) : NULL;
    int64_t total = sm_mul(sm_plan_tensor_bytes(&p->input), opt->input_grad ? 2 : 1);
    for (int i = 0; i < p->n; i++) {
        cpu_layer *c = &ex->layers[i];
        const sm_layer_io *call = &p->layers[i].call;
        sm_status ignored; /* checked before planning: found, cached by the registry */
        c->k = kernels_of(net, &net->layers[i], &ignored);
        ex->p.layers[i].forward = c->k->forward;
        ex->p.layers[i].backward = c->k->backward;
        const char *setup_what = p->layers[i].setup_what;
        const char *before = setup_what ? sm_plugin_call_begin(setup_what) : NULL;
        c->state_bytes = c->k->state_size ? c->k->state_size(call) : 0;
        c->work_bytes = c->k->work_size ? c->k->work_size(call) : 0;
        if (setup_what)
            sm_plugin_call_end(before);
        if (c->state_bytes > INT64_MAX / 2 || c->work_bytes > INT64_MAX / 2) /* SIZE_MAX too */
            total = SM_OVERFLOW;
        if (c->work_bytes > ex->work_bytes)
            ex->work_bytes = c->work_bytes;
        int64_t t = sm_plan_tensor_bytes(&p->layers[i].out);
        total = sm_add(total, sm_add(sm_mul(t, 2), (int64_t)c->state_bytes)); /* out, dout */
    }
    total = sm_add(total, sm_mul(p->n_weights, 8)); /* weights and their gradients */
    total = sm_add(total, (int64_t)ex->work_bytes);
    total = sm_add(total, sm_mul(p->rows, 4)); /* labels */
    if (opt->guard)
        sm_plugin_call_end(outer);
    if (total == SM_OVERFLOW) {
        sm_fail(st, "%s at batch %lld: the buffers' size overflows 64 bits", net->name,
                (long long)opt->batch);
        return SM_EXECUTOR_NOMEM;
    }
    *bytes = total;
    return 0;
}

int sm_executor_bytes(const sm_network *net, int64_t batch, int input_grad, int64_t *bytes,
                      sm_status *st)
{
    sm_executor_options opt = {.batch = batch, .input_grad = input_grad};
    sm_executor *ex;
    int rc = new_plan(net, &opt, &ex, bytes, st);
    sm_executor_free(ex);
    return rc;
}

/* ---- allocation and initial values -------------------------------------------------------- */

static float *alloc_floats(const sm_tensor *t)
{
    return calloc((size_t)(t->n * sm_shape_elems(&t->shape)), sizeof(float));
}

static int allocate(sm_executor *ex)
{
    sm_plan *p = &ex->p;
    if (!(p->input.data = alloc_floats(&p->input)))
        return -1;
    p->input_grad.data = NULL;
    if (ex->opt.input_grad && !(p->input_grad.data = alloc_floats(&p->input_grad)))
        return -1;
    for (int i = 0; i < p->n; i++) {
        sm_plan_layer *e = &p->layers[i];
        if (!(e->out.data = alloc_floats(&e->out)) || !(e->dout.data = alloc_floats(&e->dout)))
            return -1;
        if (ex->layers[i].state_bytes && !(e->call.state = calloc(1, ex->layers[i].state_bytes)))
            return -1;
    }
    size_t nw = (size_t)(p->n_weights ? p->n_weights : 1);
    if (!(ex->weights = calloc(nw, sizeof(float))) || !(ex->grads = calloc(nw, sizeof(float))))
        return -1;
    if (ex->work_bytes && !(ex->work = malloc(ex->work_bytes)))
        return -1;
    if (!(ex->labels = calloc((size_t)(p->rows ? p->rows : 1), sizeof *ex->labels)))
        return -1;
    sm_plan_wire(p, ex->weights, ex->grads);
    for (int i = 0; i < p->n; i++) {
        p->layers[i].call.work = ex->work;
        p->layers[i].call.work_bytes = ex->work_bytes;
    }
    return 0;
}

static void initialise(sm_executor *ex)
{
    sm_plan *p = &ex->p;
    for (int i = 0; i < p->n; i++) {
        sm_layer_io *call = &p->layers[i].call;
        sm_plan_weights_of(p, ex->opt.seed, i, call->w);
        const char *what = p->layers[i].setup_what;
        const char *outer = what ? sm_plugin_call_begin(what) : NULL;
        if (ex->layers[i].k->init)
            ex->layers[i].k->init(call, call->w, call->state);
        if (what)
            sm_plugin_call_end(outer);
    }
    ex->step_seed = sm_plan_inputs(p, ex->opt.seed, p->input.data, ex->labels);
}

int sm_executor_new(const sm_network *net, const sm_executor_options *opt, sm_executor **out,
                    sm_status *st)
{
    int64_t bytes;
    sm_executor *ex;
    *out = NULL;
    int rc = new_plan(net, opt, &ex, &bytes, st);
    if (rc) {
        sm_executor_free(ex);
        return rc;
    }
    if (opt->max_bytes > 0 && bytes > opt->max_bytes) {
        sm_executor_free(ex);
        sm_fail(st, "%s at batch %lld needs %.3g GB, more than the %.3g GB allowed", net->name,
                (long long)opt->batch, (double)bytes / 1e9, (double)opt->max_bytes / 1e9);
        return SM_EXECUTOR_NOMEM;
    }
    if (allocate(ex)) {
        sm_executor_free(ex);
        sm_fail(st, "%s at batch %lld: out of memory allocating %.3g GB", net->name,
                (long long)opt->batch, (double)bytes / 1e9);
        return SM_EXECUTOR_NOMEM;
    }
    initialise(ex);
    if (ex->p.name_only)
        sm_plugin_kernels_named(ex->kernels_named = 1);
    *out = ex;
    return 0;
}

void sm_executor_free(sm_executor *ex)
{
    if (!ex)
        return;
    if (ex->kernels_named)
        sm_plugin_kernels_named(0);
    sm_plan *p = &ex->p;
    for (int i = 0; p->layers && i < p->n; i++) {
        free(p->layers[i].out.data);
        free(p->layers[i].dout.data);
        free(p->layers[i].call.state);
    }
    free(p->input.data);
    free(p->input_grad.data);
    sm_plan_free(p);
    free(ex->layers);
    free(ex->weights);
    free(ex->grads);
    free(ex->work);
    free(ex->labels);
    free(ex);
}

/* ---- running -------------------------------------------------------------------------------- */

static int layer_failed(const sm_executor *ex, int i, const char *pass, const sm_error *err,
                        sm_status *st)
{
    const sm_layer *l = &ex->p.net->layers[i];
    /* the kernel's text, bounded: a kernel may fill msg without its NUL */
    return sm_fail(st, "%s: %s pass of layer '%s' (%s) failed: %.*s", ex->p.net->name, pass,
                   l->name, l->type->name, (int)sizeof err->msg - 1,
                   err->msg[0] ? err->msg : "no reason given");
}

int sm_executor_forward(sm_executor *ex, int training, sm_status *st)
{
    int failed;
    sm_error err = {{0}};
    if (sm_plan_forward(&ex->p, ex->step_seed, training, &failed, &err))
        return layer_failed(ex, failed, "forward", &err, st);
    return 0;
}

int sm_executor_loss(sm_executor *ex, double *loss, sm_status *st)
{
    const sm_plan *p = &ex->p;
    const sm_tensor *y = &p->layers[p->n - 1].out;
    float *dy = p->layers[p->n - 1].dout.data;
    double total = 0;
    for (int64_t r = 0; r < p->rows; r++) {
        const float *x = y->data + r * p->classes;
        float *d = dy + r * p->classes;
        float mx = x[0];
        for (int64_t c = 1; c < p->classes; c++)
            mx = x[c] > mx ? x[c] : mx;
        double sum = 0;
        for (int64_t c = 0; c < p->classes; c++)
            sum += exp((double)(x[c] - mx));
        double log_sum = log(sum);
        int32_t label = ex->labels[r];
        total += log_sum - (double)(x[label] - mx);
        double scale = 1.0 / (double)p->rows;
        for (int64_t c = 0; c < p->classes; c++)
            d[c] = (float)((exp((double)(x[c] - mx) - log_sum) - (c == label)) * scale);
    }
    total /= (double)p->rows;
    if (!isfinite(total))
        return sm_fail(st, "%s: the loss is %g (the forward pass gave non-finite values)",
                       p->net->name, total);
    if (loss)
        *loss = total;
    return 0;
}

static int zero(void *ctx, const sm_tensor *t)
{
    (void)ctx;
    if (t->data)
        memset(t->data, 0, (size_t)(t->n * sm_shape_elems(&t->shape)) * sizeof(float));
    return 0;
}

int sm_executor_backward(sm_executor *ex, sm_status *st)
{
    int failed;
    sm_error err = {{0}};
    if (sm_plan_backward(&ex->p, zero, NULL, &failed, &err))
        return layer_failed(ex, failed, "backward", &err, st);
    return 0;
}

int sm_executor_layer_backward(sm_executor *ex, int layer, sm_status *st)
{
    sm_error err = {{0}};
    sm_plan_layer *e = &ex->p.layers[layer];
    if (sm_plan_kernel(e->backward, &e->call, e->backward_what, ex->p.name_only, &err))
        return layer_failed(ex, layer, "backward", &err, st);
    return 0;
}

const sm_layer_io *sm_executor_layer_call(const sm_executor *ex, int layer)
{
    return &ex->p.layers[layer].call;
}

void sm_executor_sgd(sm_executor *ex, float lr)
{
    float *restrict w = ex->weights;
    const float *restrict g = ex->grads;
    for (int64_t i = 0; i < ex->p.n_weights; i++)
        w[i] -= lr * g[i];
}

void sm_executor_next_seed(sm_executor *ex) { sm_plan_next_seed(&ex->step_seed); }

int sm_executor_step(sm_executor *ex, float lr, double *loss, sm_status *st)
{
    if (sm_executor_forward(ex, 1, st) || sm_executor_loss(ex, loss, st) ||
        sm_executor_backward(ex, st))
        return -1;
    sm_executor_sgd(ex, lr);
    sm_executor_next_seed(ex);
    return 0;
}

/* ---- buffers -------------------------------------------------------------------------------- */

sm_tensor sm_executor_input(const sm_executor *ex) { return ex->p.input; }
sm_tensor sm_executor_input_grad(const sm_executor *ex) { return ex->p.input_grad; }
sm_tensor sm_executor_output(const sm_executor *ex) { return ex->p.layers[ex->p.n - 1].out; }
sm_tensor sm_executor_output_grad(const sm_executor *ex) { return ex->p.layers[ex->p.n - 1].dout; }
sm_tensor sm_executor_activation(const sm_executor *ex, int layer)
{
    return ex->p.layers[layer].out;
}

float *sm_executor_weights(const sm_executor *ex, int64_t *count)
{
    *count = ex->p.n_weights;
    return ex->weights;
}

float *sm_executor_weight_grads(const sm_executor *ex, int64_t *count)
{
    *count = ex->p.n_weights;
    return ex->grads;
}

int64_t sm_executor_weight_offset(const sm_executor *ex, int layer)
{
    return ex->p.layers[layer].w_offset;
}

const int32_t *sm_executor_labels(const sm_executor *ex, int64_t *rows, int64_t *classes)
{
    *rows = ex->p.rows;
    *classes = ex->p.classes;
    return ex->labels;
}
