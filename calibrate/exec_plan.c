/*
 * The plan both executors share (exec_plan.h): shapes, readers, weight offsets, wiring, and the
 * host's deterministic generator for initial values.
 */
#include "exec_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor.h"

int64_t sm_plan_tensor_bytes(const sm_tensor *t)
{
    int64_t b = sm_mul(sm_mul(t->n, sm_shape_elems(&t->shape)), 4);
    return b == SM_OVERFLOW ? -1 : b;
}

static int is_loss(const sm_layer *l) { return (l->type->traits & SM_TRAIT_LOSS) != 0; }

int sm_plan_layers(const sm_network *net, sm_status *st)
{
    int n = net->n_layers;
    if (n < 1)
        return sm_fail(st, "%s: the network has no layers", net->path);
    for (int i = 0; i < n - 1; i++) {
        const sm_layer *l = &net->layers[i];
        if (is_loss(l))
            return sm_fail(st,
                           "%s:%d: layer '%s' of type '%s' is a loss (SM_TRAIT_LOSS), which the "
                           "executors compute themselves only as the network's last layer",
                           net->path, l->line, l->name, l->type->name);
    }
    const sm_layer *l = &net->layers[n - 1];
    if (!is_loss(l))
        return n;
    if (n == 1)
        return sm_fail(st,
                       "%s:%d: layer '%s' of type '%s' is a loss (SM_TRAIT_LOSS), which the "
                       "executors compute on the layer before it, and it is the only layer",
                       net->path, l->line, l->name, l->type->name);
    const sm_layer *prev = &net->layers[n - 2];
    if (l->n_inputs != 1 || l->inputs[0] != n - 2) {
        char reads[SM_ERROR_LEN] = "more than one input";
        if (l->n_inputs == 1 && l->inputs[0] == SM_NETWORK_INPUT)
            snprintf(reads, sizeof reads, "the network's input");
        else if (l->n_inputs == 1)
            snprintf(reads, sizeof reads, "layer '%s'", net->layers[l->inputs[0]].name);
        return sm_fail(st,
                       "%s:%d: layer '%s' of type '%s' is a loss (SM_TRAIT_LOSS), which the "
                       "executors compute on the layer before it ('%s'), but it reads %s",
                       net->path, l->line, l->name, l->type->name, prev->name, reads);
    }
    return n - 1;
}

int sm_plan_init(sm_plan *p, const sm_network *net, int64_t batch, sm_status *st)
{
    *p = (sm_plan){.net = net, .batch = batch, .input_last_reader = -1};
    if (batch < 1)
        return sm_fail(st, "batch %lld is not a positive number of samples", (long long)batch);
    int n = sm_plan_layers(net, st);
    if (n < 0)
        return -1;
    p->n = n;
    if (!(p->layers = calloc((size_t)p->n, sizeof *p->layers))) {
        sm_fail(st, "out of host memory planning %s", net->name);
        return SM_EXECUTOR_NOMEM;
    }
    p->input = (sm_tensor){NULL, batch, net->input};
    p->input_grad = p->input;
    int overflow = sm_plan_tensor_bytes(&p->input) < 0;
    for (int i = 0; i < p->n; i++) {
        const sm_layer *l = &net->layers[i];
        sm_plan_layer *e = &p->layers[i];
        size_t k = (size_t)(l->n_inputs ? l->n_inputs : 1);
        e->in = calloc(k, sizeof(sm_tensor));
        e->din = calloc(k, sizeof(sm_tensor));
        if (!e->in || !e->din) {
            sm_fail(st, "out of host memory planning %s", net->name);
            return SM_EXECUTOR_NOMEM;
        }
        e->last_reader = -1;
        e->out = (sm_tensor){NULL, batch, l->out};
        e->dout = e->out;
        overflow |= sm_plan_tensor_bytes(&e->out) < 0;
        for (int j = 0; j < l->n_inputs; j++) {
            int src = l->inputs[j];
            e->in[j] = src == SM_NETWORK_INPUT ? p->input : p->layers[src].out;
            e->din[j] = e->in[j];
            if (src == SM_NETWORK_INPUT)
                p->input_last_reader = i;
            else
                p->layers[src].last_reader = i;
        }
        e->w_offset = p->n_weights;
        p->n_weights = sm_add(p->n_weights, l->m.weights);
        e->call = (sm_layer_io){
            .struct_size = sizeof(sm_layer_io),
            .params = l->params,
            .n_in = l->n_inputs,
            .in = e->in,
            .out = &e->out,
            .dout = &e->dout,
            .din = e->din,
            .n_w = l->m.weights,
        };
    }
    const sm_shape *o = &net->layers[p->n - 1].out;
    p->classes = o->ndim ? o->dim[o->ndim - 1] : 1;
    p->rows = sm_mul(batch, sm_shape_elems(o)) / p->classes;
    if (overflow || p->n_weights == SM_OVERFLOW || sm_mul(p->n_weights, 8) == SM_OVERFLOW) {
        sm_fail(st, "%s at batch %lld: the buffers' size overflows 64 bits", net->name,
                (long long)batch);
        return SM_EXECUTOR_NOMEM;
    }
    return 0;
}

void sm_plan_free(sm_plan *p)
{
    for (int i = 0; p->layers && i < p->n; i++) {
        free(p->layers[i].in);
        free(p->layers[i].din);
        free(p->layers[i].forward_what);
        free(p->layers[i].backward_what);
        free(p->layers[i].setup_what);
    }
    free(p->layers);
    p->layers = NULL;
}

/* The file of the plugin of l's type, or NULL (a network put together by hand). */
static const char *plugin_file(const sm_network *net, const sm_layer *l)
{
    for (int k = 0; net->registry && k < sm_registry_count(net->registry); k++)
        if (sm_registry_type(net->registry, k) == l->type)
            return sm_registry_path(net->registry, k);
    return NULL;
}

static char *kernel_what(const char *device, const char *kernel, const sm_layer *l,
                         const char *plugin, const char *where)
{
    if (!plugin)
        plugin = "?";
    size_t n = strlen(device) + strlen(kernel) + strlen(l->type->name) + strlen(plugin) +
               strlen(where) + 48;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "the %s %s of layer type '%s' (plugin %s) in %s", device, kernel,
                 l->type->name, plugin, where);
    return s;
}

int sm_plan_name_kernels(sm_plan *p, const char *device, const char *where)
{
    for (int i = 0; i < p->n; i++) {
        sm_plan_layer *e = &p->layers[i];
        const sm_layer *l = &p->net->layers[i];
        const char *plugin = plugin_file(p->net, l);
        e->forward_what = kernel_what(device, "forward kernel", l, plugin, where);
        e->backward_what = kernel_what(device, "backward kernel", l, plugin, where);
        /* the CPU's kernels size and fill their state, the GPU's plan theirs */
        const char *setup = strcmp(device, "GPU") == 0
                                ? "kernels' state_size, init, setup or work_size"
                                : "kernels' state_size, work_size or init";
        e->setup_what = kernel_what(device, setup, l, plugin, where);
        if (!e->forward_what || !e->backward_what || !e->setup_what)
            return -1;
    }
    return 0;
}

void sm_plan_wire(sm_plan *p, float *weights, float *grads)
{
    for (int i = 0; i < p->n; i++) {
        const sm_layer *l = &p->net->layers[i];
        sm_plan_layer *e = &p->layers[i];
        for (int j = 0; j < l->n_inputs; j++) {
            int src = l->inputs[j];
            e->in[j] = src == SM_NETWORK_INPUT ? p->input : p->layers[src].out;
            e->din[j] = src == SM_NETWORK_INPUT ? p->input_grad : p->layers[src].dout;
        }
        e->call.w = l->m.weights ? weights + e->w_offset : NULL;
        e->call.dw = l->m.weights ? grads + e->w_offset : NULL;
    }
}

/* Whether layer i's backward must zero the gradient of its input j first: it is the last
 * reader of that tensor, so the first to add into it (gradients are accumulated). */
static int zeroes(const sm_plan *p, int i, int j)
{
    int src = p->net->layers[i].inputs[j];
    return (src == SM_NETWORK_INPUT ? p->input_last_reader : p->layers[src].last_reader) == i;
}

/* Whether layer i's output gradient must be zeroed before a backward pass: nothing reads the
 * output, and it is not the network's. */
static int unread(const sm_plan *p, int i) { return i < p->n - 1 && p->layers[i].last_reader < 0; }

/* The seed of layer i's random parts (dropout) in a step whose seed is step_seed. */
static uint64_t layer_seed(uint64_t step_seed, int i)
{
    return step_seed ^ ((uint64_t)(i + 1) * UINT64_C(0x9E3779B97F4A7C15));
}

int sm_plan_kernel(int (*kernel)(const sm_layer_io *l, sm_error *err), const sm_layer_io *call,
                   const char *what, int name_only, sm_error *err)
{
    if (!what)
        return kernel(call, err);
    if (name_only) {
        const char *before = sm_plugin_kernel_name(what);
        int rc = kernel(call, err);
        sm_plugin_kernel_name(before);
        return rc;
    }
    const char *outer = sm_plugin_call_begin(what);
    int rc = kernel(call, err);
    sm_plugin_call_end(outer);
    return rc;
}

int sm_plan_forward(sm_plan *p, uint64_t step_seed, int training, int *failed, sm_error *err)
{
    for (int i = 0; i < p->n; i++) {
        sm_plan_layer *e = &p->layers[i];
        e->call.training = training;
        e->call.seed = layer_seed(step_seed, i);
        if (sm_plan_kernel(e->forward, &e->call, e->forward_what, p->name_only, err)) {
            *failed = i;
            return -1;
        }
    }
    return 0;
}

int sm_plan_backward(sm_plan *p, int (*zero)(void *ctx, const sm_tensor *t), void *ctx, int *failed,
                     sm_error *err)
{
    *failed = -1;
    for (int i = 0; i < p->n; i++)
        if (unread(p, i) && zero(ctx, &p->layers[i].dout))
            return -1;
    for (int i = p->n - 1; i >= 0; i--) {
        sm_plan_layer *e = &p->layers[i];
        for (int j = 0; j < e->call.n_in; j++)
            if (zeroes(p, i, j) && zero(ctx, &e->din[j])) /* read twice: before both */
                return -1;
        if (sm_plan_kernel(e->backward, &e->call, e->backward_what, p->name_only, err)) {
            *failed = i;
            return -1;
        }
    }
    return 0;
}

/* ---- the host's generator: splitmix64 ------------------------------------------------------- */

static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static float uniform(uint64_t *s)
{
    return (float)((double)(next_random(s) >> 40) / 8388608.0 - 1.0);
}

void sm_plan_next_seed(uint64_t *step_seed) { next_random(step_seed); }

void sm_plan_weights_of(const sm_plan *p, uint64_t seed, int i, float *w)
{
    uint64_t s = seed ^ ((uint64_t)(i + 1) * UINT64_C(0xD1B54A32D192ED03));
    for (int64_t k = 0; k < p->layers[i].call.n_w; k++)
        w[k] = uniform(&s);
}

uint64_t sm_plan_inputs(const sm_plan *p, uint64_t seed, float *x, int32_t *labels)
{
    uint64_t s = seed;
    int64_t n_in = p->input.n * sm_shape_elems(&p->input.shape);
    for (int64_t k = 0; k < n_in; k++)
        x[k] = uniform(&s);
    for (int64_t r = 0; r < p->rows; r++)
        labels[r] = (int32_t)(next_random(&s) % (uint64_t)p->classes);
    return next_random(&s);
}
