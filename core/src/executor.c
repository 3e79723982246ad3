/*
 * The CPU executor: owns every buffer of a network at one batch size and calls the layers'
 * kernels (kernels.h, struct sm_cpu_kernels) in order, darknet style: forward in network order,
 * backward in reverse. What a layer computes lives in its plugin; this file only wires tensors.
 *
 * Input gradients are accumulated by the kernels (a tensor read by two layers sums both
 * contributions), so each gradient buffer is zeroed just before the backward pass of the last
 * layer that reads it, the first to add into it, while it is still warm in cache.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "scalemeter/executor.h"

typedef struct exec_layer {
    const struct sm_cpu_kernels *k;
    sm_layer_io call;
    sm_tensor *in, *din; /* n_in each, pointed to by call */
    sm_tensor out, dout;
    size_t state_bytes, work_bytes;
    int last_reader; /* the last layer that reads this one's output; -1: none */
    int64_t w_offset;
} exec_layer;

struct sm_executor {
    const sm_network *net;
    sm_executor_options opt;
    int n;
    exec_layer *layers;
    sm_tensor input, input_grad;
    int input_last_reader;
    float *weights, *grads;
    int64_t n_weights;
    void *work;
    size_t work_bytes;
    int32_t *labels;
    int64_t rows, classes;
    uint64_t step_seed;
};

/* splitmix64: the host's deterministic generator for weights, inputs, labels and seeds. */
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

void sm_cpu_set_threads(int n)
{
    if (n > 0)
        openblas_set_num_threads(n);
}

/* The kernels of a layer's type, or NULL when it has none usable. */
static const struct sm_cpu_kernels *kernels_of(const sm_layer_type *t)
{
    if (t->struct_size < offsetof(sm_layer_type, cpu) + sizeof t->cpu || !t->cpu)
        return NULL;
    const struct sm_cpu_kernels *k = t->cpu;
    if (k->struct_size < offsetof(struct sm_cpu_kernels, backward) + sizeof k->backward ||
        !k->forward || !k->backward)
        return NULL;
    return k;
}

int sm_executor_check(const sm_network *net, sm_status *st)
{
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        if (!kernels_of(l->type))
            return sm_fail(st,
                           "%s:%d: layer '%s' of type '%s' has no CPU kernel, so %s cannot run "
                           "on the CPU backend",
                           net->path, l->line, l->name, l->type->name, net->name);
    }
    if (net->n_layers == 0)
        return sm_fail(st, "%s: the network has no layers", net->path);
    return 0;
}

/* ---- planning: every size, before anything is allocated ----------------------------------- */

/* n x elems floats in bytes, or -1 when it overflows. */
static int64_t tensor_bytes(int64_t n, const sm_shape *s)
{
    int64_t b = sm_mul(sm_mul(n, sm_shape_elems(s)), 4);
    return b == SM_OVERFLOW ? -1 : b;
}

/* Fills the shapes of every layer's tensors and its sizes; returns the total bytes or -1. */
static int64_t plan(sm_executor *ex)
{
    const sm_network *net = ex->net;
    int64_t batch = ex->opt.batch, total = 0;
    ex->input = (sm_tensor){NULL, batch, net->input};
    ex->input_grad = ex->input;
    int64_t in_bytes = tensor_bytes(batch, &net->input);
    if (in_bytes < 0)
        return -1;
    total = sm_mul(in_bytes, ex->opt.input_grad ? 2 : 1);
    ex->input_last_reader = -1;
    ex->n_weights = 0;
    ex->work_bytes = 0;
    for (int i = 0; i < ex->n; i++) {
        const sm_layer *l = &net->layers[i];
        exec_layer *e = &ex->layers[i];
        e->k = kernels_of(l->type);
        e->last_reader = -1;
        e->out = (sm_tensor){NULL, batch, l->out};
        e->dout = e->out;
        for (int j = 0; j < l->n_inputs; j++) {
            int src = l->inputs[j];
            e->in[j] = src == SM_NETWORK_INPUT ? ex->input : ex->layers[src].out;
            e->din[j] = e->in[j];
            if (src == SM_NETWORK_INPUT)
                ex->input_last_reader = i;
            else
                ex->layers[src].last_reader = i;
        }
        e->w_offset = ex->n_weights;
        ex->n_weights = sm_add(ex->n_weights, l->m.weights);
        e->call = (sm_layer_io){
            .struct_size = sizeof(sm_layer_io), .params = l->params, .n_in = l->n_inputs, .in = e->in, .out = &e->out,
            .dout = &e->dout, .din = e->din, .n_w = l->m.weights,
        };
        e->state_bytes = e->k->state_size ? e->k->state_size(&e->call) : 0;
        e->work_bytes = e->k->work_size ? e->k->work_size(&e->call) : 0;
        if (e->state_bytes == SIZE_MAX || e->work_bytes == SIZE_MAX ||
            e->state_bytes > INT64_MAX / 2 || e->work_bytes > INT64_MAX / 2)
            return -1;
        if (e->work_bytes > ex->work_bytes)
            ex->work_bytes = e->work_bytes;
        int64_t t = tensor_bytes(batch, &l->out);
        if (t < 0)
            return -1;
        total = sm_add(total, sm_add(sm_mul(t, 2), (int64_t)e->state_bytes)); /* out, dout */
    }
    total = sm_add(total, sm_mul(ex->n_weights, 8)); /* weights and their gradients */
    total = sm_add(total, (int64_t)ex->work_bytes);
    const sm_shape *o = &net->layers[ex->n - 1].out;
    ex->classes = o->ndim ? o->dim[o->ndim - 1] : 1;
    ex->rows = sm_mul(batch, sm_shape_elems(o)) / ex->classes;
    total = sm_add(total, sm_mul(ex->rows, 4)); /* labels */
    return total == SM_OVERFLOW ? -1 : total;
}

static int new_plan(const sm_network *net, const sm_executor_options *opt, sm_executor **out,
                    int64_t *bytes, sm_status *st)
{
    *out = NULL;
    if (sm_executor_check(net, st))
        return -1;
    if (opt->batch < 1)
        return sm_fail(st, "batch %lld is not a positive number of samples", (long long)opt->batch);
    sm_executor *ex = calloc(1, sizeof *ex);
    if (!ex)
        return SM_EXECUTOR_NOMEM;
    ex->net = net;
    ex->opt = *opt;
    ex->n = net->n_layers;
    ex->layers = calloc((size_t)ex->n, sizeof *ex->layers);
    int ok = ex->layers != NULL;
    for (int i = 0; ok && i < ex->n; i++) {
        size_t k = (size_t)(net->layers[i].n_inputs ? net->layers[i].n_inputs : 1);
        ex->layers[i].in = calloc(k, sizeof(sm_tensor));
        ex->layers[i].din = calloc(k, sizeof(sm_tensor));
        ok = ex->layers[i].in && ex->layers[i].din;
    }
    if (!ok) {
        sm_executor_free(ex);
        return SM_EXECUTOR_NOMEM;
    }
    *bytes = plan(ex);
    *out = ex;
    if (*bytes < 0) {
        sm_fail(st, "%s at batch %lld: the buffers' size overflows 64 bits", net->name,
                (long long)opt->batch);
        return SM_EXECUTOR_NOMEM;
    }
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

/* Points every layer's input tensors at the buffers their sources now own. */
static void wire(sm_executor *ex)
{
    for (int i = 0; i < ex->n; i++) {
        const sm_layer *l = &ex->net->layers[i];
        exec_layer *e = &ex->layers[i];
        for (int j = 0; j < l->n_inputs; j++) {
            int src = l->inputs[j];
            e->in[j] = src == SM_NETWORK_INPUT ? ex->input : ex->layers[src].out;
            e->din[j] = src == SM_NETWORK_INPUT ? ex->input_grad : ex->layers[src].dout;
        }
        e->call.w = l->m.weights ? ex->weights + e->w_offset : NULL;
        e->call.dw = l->m.weights ? ex->grads + e->w_offset : NULL;
        e->call.work = ex->work;
        e->call.work_bytes = ex->work_bytes;
    }
}

static int allocate(sm_executor *ex)
{
    if (!(ex->input.data = alloc_floats(&ex->input)))
        return -1;
    ex->input_grad.data = NULL;
    if (ex->opt.input_grad && !(ex->input_grad.data = alloc_floats(&ex->input_grad)))
        return -1;
    for (int i = 0; i < ex->n; i++) {
        exec_layer *e = &ex->layers[i];
        if (!(e->out.data = alloc_floats(&e->out)) || !(e->dout.data = alloc_floats(&e->dout)))
            return -1;
        if (e->state_bytes && !(e->call.state = calloc(1, e->state_bytes)))
            return -1;
    }
    size_t nw = (size_t)(ex->n_weights ? ex->n_weights : 1);
    if (!(ex->weights = calloc(nw, sizeof(float))) || !(ex->grads = calloc(nw, sizeof(float))))
        return -1;
    if (ex->work_bytes && !(ex->work = malloc(ex->work_bytes)))
        return -1;
    if (!(ex->labels = calloc((size_t)(ex->rows ? ex->rows : 1), sizeof *ex->labels)))
        return -1;
    wire(ex);
    return 0;
}

static void initialise(sm_executor *ex)
{
    uint64_t s = ex->opt.seed;
    for (int i = 0; i < ex->n; i++) {
        exec_layer *e = &ex->layers[i];
        uint64_t ls = ex->opt.seed ^ ((uint64_t)(i + 1) * UINT64_C(0xD1B54A32D192ED03));
        for (int64_t k = 0; k < e->call.n_w; k++)
            e->call.w[k] = uniform(&ls);
        if (e->k->init)
            e->k->init(&e->call, e->call.w, e->call.state);
    }
    int64_t n_in = ex->input.n * sm_shape_elems(&ex->input.shape);
    for (int64_t k = 0; k < n_in; k++)
        ex->input.data[k] = uniform(&s);
    for (int64_t r = 0; r < ex->rows; r++)
        ex->labels[r] = (int32_t)(next_random(&s) % (uint64_t)ex->classes);
    ex->step_seed = next_random(&s);
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
    *out = ex;
    return 0;
}

void sm_executor_free(sm_executor *ex)
{
    if (!ex)
        return;
    for (int i = 0; ex->layers && i < ex->n; i++) {
        exec_layer *e = &ex->layers[i];
        free(e->out.data);
        free(e->dout.data);
        free(e->call.state);
        free(e->in);
        free(e->din);
    }
    free(ex->layers);
    free(ex->input.data);
    free(ex->input_grad.data);
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
    const sm_layer *l = &ex->net->layers[i];
    return sm_fail(st, "%s: %s pass of layer '%s' (%s) failed: %s", ex->net->name, pass, l->name,
                   l->type->name, err->msg[0] ? err->msg : "no reason given");
}

int sm_executor_forward(sm_executor *ex, int training, sm_status *st)
{
    for (int i = 0; i < ex->n; i++) {
        exec_layer *e = &ex->layers[i];
        sm_error err = {{0}};
        e->call.training = training;
        e->call.seed = ex->step_seed ^ ((uint64_t)(i + 1) * UINT64_C(0x9E3779B97F4A7C15));
        if (e->k->forward(&e->call, &err))
            return layer_failed(ex, i, "forward", &err, st);
    }
    return 0;
}

int sm_executor_loss(sm_executor *ex, double *loss, sm_status *st)
{
    const sm_tensor *y = &ex->layers[ex->n - 1].out;
    float *dy = ex->layers[ex->n - 1].dout.data;
    double total = 0;
    for (int64_t r = 0; r < ex->rows; r++) {
        const float *x = y->data + r * ex->classes;
        float *d = dy + r * ex->classes;
        float mx = x[0];
        for (int64_t c = 1; c < ex->classes; c++)
            mx = x[c] > mx ? x[c] : mx;
        double sum = 0;
        for (int64_t c = 0; c < ex->classes; c++)
            sum += exp((double)(x[c] - mx));
        double log_sum = log(sum);
        int32_t label = ex->labels[r];
        total += log_sum - (double)(x[label] - mx);
        double scale = 1.0 / (double)ex->rows;
        for (int64_t c = 0; c < ex->classes; c++)
            d[c] = (float)((exp((double)(x[c] - mx) - log_sum) - (c == label)) * scale);
    }
    total /= (double)ex->rows;
    if (!isfinite(total))
        return sm_fail(st, "%s: the loss is %g (the forward pass gave non-finite values)",
                       ex->net->name, total);
    if (loss)
        *loss = total;
    return 0;
}

static void zero(const sm_tensor *t)
{
    if (t->data)
        memset(t->data, 0, (size_t)(t->n * sm_shape_elems(&t->shape)) * sizeof(float));
}

int sm_executor_backward(sm_executor *ex, sm_status *st)
{
    /* outputs nobody reads, except the network's: no gradient flows into them */
    for (int i = 0; i < ex->n - 1; i++)
        if (ex->layers[i].last_reader < 0)
            zero(&ex->layers[i].dout);
    for (int i = ex->n - 1; i >= 0; i--) {
        exec_layer *e = &ex->layers[i];
        const sm_layer *l = &ex->net->layers[i];
        for (int j = 0; j < l->n_inputs; j++) {
            int src = l->inputs[j];
            int last = src == SM_NETWORK_INPUT ? ex->input_last_reader : ex->layers[src].last_reader;
            if (last == i)
                zero(&e->din[j]); /* an input read twice (add from=x,x) is zeroed before both */
        }
        sm_error err = {{0}};
        if (e->k->backward(&e->call, &err))
            return layer_failed(ex, i, "backward", &err, st);
    }
    return 0;
}

void sm_executor_sgd(sm_executor *ex, float lr)
{
    float *restrict w = ex->weights;
    const float *restrict g = ex->grads;
    for (int64_t i = 0; i < ex->n_weights; i++)
        w[i] -= lr * g[i];
}

void sm_executor_next_seed(sm_executor *ex) { next_random(&ex->step_seed); }

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

sm_tensor sm_executor_input(const sm_executor *ex) { return ex->input; }
sm_tensor sm_executor_input_grad(const sm_executor *ex) { return ex->input_grad; }
sm_tensor sm_executor_output(const sm_executor *ex) { return ex->layers[ex->n - 1].out; }
sm_tensor sm_executor_output_grad(const sm_executor *ex) { return ex->layers[ex->n - 1].dout; }
sm_tensor sm_executor_activation(const sm_executor *ex, int layer) { return ex->layers[layer].out; }

float *sm_executor_weights(const sm_executor *ex, int64_t *count)
{
    *count = ex->n_weights;
    return ex->weights;
}

float *sm_executor_weight_grads(const sm_executor *ex, int64_t *count)
{
    *count = ex->n_weights;
    return ex->grads;
}

int64_t sm_executor_weight_offset(const sm_executor *ex, int layer)
{
    return ex->layers[layer].w_offset;
}

const int32_t *sm_executor_labels(const sm_executor *ex, int64_t *rows, int64_t *classes)
{
    *rows = ex->rows;
    *classes = ex->classes;
    return ex->labels;
}
