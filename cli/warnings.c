/* Warnings gathered over the points of a command and said once each (warnings.h). */
#include "warnings.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"

#define WARNING_LEN 2048

/* A growing set of distinct integers, kept in order of arrival. */
typedef struct int_set {
    int64_t *v;
    int n, cap;
} int_set;

static int set_add(int_set *s, int64_t x)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == x)
            return 0;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        int64_t *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* One text and what it applies to: models (a network's warning), or batches, node counts
 * and devices per node (a layout's). */
typedef struct entry {
    char *text;
    int of_network;
    const char **models;
    int n_models, cap_models;
    int_set batches, nodes, gpus;
    char *line; /* "SUBJECT: TEXT", made when asked for */
} entry;

struct warnings {
    entry *e;
    int n, cap;
    int multi_device; /* a point of more than one device */
    int attention;    /* a network with an attention layer */
    int linear;       /* a network with linear products beside its output projection */
    /* a pass's power above the description's limit (sm_energy_phase): 1 + its entry, whose
     * text names the highest power of the points (0: none yet), and that power */
    int power_entry[SM_N_ENERGY];
    double power_worst[SM_N_ENERGY];
};

warnings *warnings_new(void) { return calloc(1, sizeof(warnings)); }

void warnings_free(warnings *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->n; i++) {
        free(w->e[i].text);
        free(w->e[i].models);
        free(w->e[i].batches.v);
        free(w->e[i].nodes.v);
        free(w->e[i].gpus.v);
        free(w->e[i].line);
    }
    free(w->e);
    free(w);
}

static entry *find(warnings *w, const char *text, int of_network)
{
    for (int i = 0; i < w->n; i++)
        if (w->e[i].of_network == of_network && !strcmp(w->e[i].text, text))
            return &w->e[i];
    if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 4;
        entry *e = realloc(w->e, (size_t)cap * sizeof *e);
        if (!e)
            return NULL;
        w->e = e;
        w->cap = cap;
    }
    entry *e = &w->e[w->n];
    *e = (entry){.text = strdup(text), .of_network = of_network};
    if (!e->text)
        return NULL;
    w->n++;
    return e;
}

static int add_model(entry *e, const char *model)
{
    for (int i = 0; i < e->n_models; i++)
        if (!strcmp(e->models[i], model))
            return 0;
    if (e->n_models == e->cap_models) {
        int cap = e->cap_models ? 2 * e->cap_models : 4;
        const char **m = realloc(e->models, (size_t)cap * sizeof *m);
        if (!m)
            return -1;
        e->models = m;
        e->cap_models = cap;
    }
    e->models[e->n_models++] = model;
    return 0;
}

/* The layout's batch, node count and devices a node into e's subject. */
static int add_layout(entry *e, const sm_layout *l)
{
    return set_add(&e->batches, l->batch) || set_add(&e->nodes, l->nodes) ||
           set_add(&e->gpus, l->gpus_per_node);
}

/* Each "; "-separated warning of text (the library's joint) into its entry. */
static int add_each(warnings *w, char *text, int of_network, const char *model, const sm_layout *l)
{
    for (char *t = text, *next; t; t = next) {
        next = strstr(t, "; ");
        if (next) {
            *next = '\0';
            next += 2;
        }
        entry *e = find(w, t, of_network);
        if (!e)
            return -1;
        if (of_network ? add_model(e, model) : add_layout(e, l))
            return -1;
        free(e->line); /* its subject has grown */
        e->line = NULL;
    }
    return 0;
}

/* The first batch norm (batch statistics) of net whose input holds one value per channel at
 * the per-device batch: PyTorch refuses to train it ("Expected more than 1 value per channel
 * when training"), though inference, on the running statistics, runs. Its index, or -1. */
static int single_value_norm(const sm_network *net, int64_t batch)
{
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        if (!(l->type->traits & SM_TRAIT_BATCH_STATISTICS) || l->n_inputs < 1)
            continue;
        const sm_shape *in =
            l->inputs[0] == SM_NETWORK_INPUT ? &net->input : &net->layers[l->inputs[0]].out;
        int64_t per_channel = batch; /* the channels are the first dimension of a sample */
        for (int d = 1; d < in->ndim; d++)
            per_channel *= in->dim[d];
        if (per_channel == 1)
            return i;
    }
    return -1;
}

/* What the layout asks of the network that no predictor can price: a training step PyTorch
 * refuses, an epoch shorter than one global batch. */
static int add_run(warnings *w, const char *model, const sm_network *net, const sm_layout *l,
                   int64_t dataset)
{
    char text[WARNING_LEN];
    int norm = single_value_norm(net, l->batch);
    if (norm >= 0) {
        snprintf(text, sizeof text,
                 "training at batch %lld: layer '%s' (%s) normalises one value per channel, "
                 "which PyTorch refuses (\"Expected more than 1 value per channel when "
                 "training\"): the step's times are of a run that cannot be made (give a larger "
                 "batch per device)",
                 (long long)l->batch, net->layers[norm].name, net->layers[norm].type->name);
        if (add_each(w, text, 1, model, l))
            return -1;
    }
    if (dataset > 0 && sm_layout_global_batch(l) > dataset) {
        snprintf(text, sizeof text,
                 "the global batch (the batch x the micro-batches x the devices) is more than "
                 "the dataset's %lld samples: an epoch is one step of fewer samples, priced as "
                 "a whole one",
                 (long long)dataset);
        if (add_each(w, text, 0, model, l))
            return -1;
    }
    return 0;
}

int warnings_add(warnings *w, const sm_predictor *p, const char *model, const sm_network *net,
                 const sm_layout *layout, int64_t dataset)
{
    char text[WARNING_LEN];
    if (add_run(w, model, net, layout, dataset))
        return -1;
    w->multi_device |= sm_layout_devices(layout) > 1;
    for (int i = 0; i < net->n_layers && !(w->attention && w->linear); i++) {
        const sm_layer *l = &net->layers[i];
        w->attention |= (l->type->traits & SM_TRAIT_ATTENTION) != 0;
        w->linear |= l->m.linear_products > 0 && !l->output_projection;
    }
    if (sm_predictor_network_warning(p, net, text, sizeof text) > 0 &&
        add_each(w, text, 1, model, layout))
        return -1;
    if (sm_predictor_warning(p, layout, text, sizeof text) > 0 &&
        add_each(w, text, 0, model, layout))
        return -1;
    return 0;
}

void warnings_idle_options(const warnings *w, const predictor_choice *c)
{
    const struct {
        int given;
        const char *option;
    } collective[] = {{c->overlap, "--overlap"},
                      {c->bucket_mib > 0, "--bucket-mib"},
                      {c->collective != NULL, "--collective"},
                      {c->algorithms != NULL, "--algorithm"},
                      {c->protocols != NULL, "--protocol"}};
    for (size_t k = 0; !w->multi_device && k < sizeof collective / sizeof *collective; k++)
        if (collective[k].given)
            say_warning("%s changes nothing on one device: there are no gradients to "
                        "all-reduce (give more devices with -g or --nodes)",
                        collective[k].option);
    if (c->attention && !w->attention)
        say_warning("--attention %s changes nothing: no network here has an attention layer",
                    c->attention);
    if (c->fp8 && !w->linear)
        say_warning("--fp8 changes nothing: no network here has linear products but its output "
                    "projection, which stays at 16 bits (a float8 recipe converts nn.Linear, "
                    "not convolutions)");
}

/* "64, 128" of a set, in increasing order. */
static void list(const int_set *s, char *buf, size_t len)
{
    int64_t v[s->n > 0 ? s->n : 1];
    memcpy(v, s->v, (size_t)s->n * sizeof *v);
    qsort(v, (size_t)s->n, sizeof *v, by_value);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->n && used < len; i++) {
        int k = snprintf(buf + used, len - used, "%s%lld", i ? ", " : "", (long long)v[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

const char *warnings_line(warnings *w, int i)
{
    if (i < 0 || i >= w->n)
        return NULL;
    entry *e = &w->e[i];
    if (e->line)
        return e->line;
    char subject[WARNING_LEN];
    size_t used = 0;
    subject[0] = '\0';
    if (e->of_network) {
        for (int k = 0; k < e->n_models && used < sizeof subject; k++) {
            int n = snprintf(subject + used, sizeof subject - used, "%s%s", k ? ", " : "",
                             e->models[k]);
            if (n < 0)
                break;
            used += (size_t)n;
        }
    } else {
        char batches[512], nodes[512], gpus[512];
        list(&e->batches, batches, sizeof batches);
        list(&e->nodes, nodes, sizeof nodes);
        list(&e->gpus, gpus, sizeof gpus);
        int one_node = e->nodes.n == 1 && e->nodes.v[0] == 1;
        int one_gpu = e->gpus.n == 1 && e->gpus.v[0] == 1;
        snprintf(subject, sizeof subject, "batch %s on %s node%s%s%s%s", batches, nodes,
                 one_node ? "" : "s", one_gpu ? "" : " x ", one_gpu ? "" : gpus,
                 one_gpu ? "" : " devices");
    }
    size_t n = strlen(subject) + strlen(e->text) + 3;
    e->line = malloc(n);
    if (!e->line)
        return e->text;
    snprintf(e->line, n, "%s: %s", subject, e->text);
    return e->line;
}

void warnings_print(warnings *w, const char *cmd)
{
    const char *line;
    for (int i = 0; (line = warnings_line(w, i)); i++)
        fprintf(stderr, "scalemeter %s: warning: %s\n", cmd, line);
}

void warnings_json(warnings *w, json_writer *out)
{
    size_t len = 1;
    for (int i = 0; i < w->n; i++)
        len += strlen(warnings_line(w, i)) + 2;
    char *all = malloc(len);
    if (!all) {
        json_warning_member(out, w->n ? warnings_line(w, 0) : ""); /* the first at least */
        return;
    }
    all[0] = '\0';
    for (int i = 0; i < w->n; i++) {
        if (i)
            strcat(all, "; ");
        strcat(all, warnings_line(w, i));
    }
    /* and what the command said before (an option's, a list's) */
    json_warning_member(out, all);
    free(all);
}

/* A device drawing more than its description's power limit over a pass: one warning a pass,
 * its text naming the highest power of the points that exceed the limit by more than 10% (a
 * board holds its limit, with short excursions: 10% leaves room for the limit's rounding and
 * a calibration's noise), its subject their batches and node counts. */
static int power_above(warnings *w, sm_energy_phase phase, double joules, double seconds,
                       double limit, const sm_layout *l)
{
    double watts = joules / seconds;
    if (!(limit > 0) || !isfinite(watts) || !(watts > 1.1 * limit))
        return 0;
    int at = w->power_entry[phase] - 1;
    if (at < 0 || watts > w->power_worst[phase]) {
        char text[WARNING_LEN];
        snprintf(text, sizeof text,
                 "the average power of a device over %s (%s) reaches %.0f W, more than 10%% "
                 "above the description's power_limit_w of %.0f W: the calibration's energy "
                 "rows are not of this device or are suspect (recalibrate energy with bench on "
                 "it, docs/energy.md)",
                 phase == SM_ENERGY_STEP ? "a training step" : "an inference pass",
                 phase == SM_ENERGY_STEP ? "e_step / t_step" : "e_infer / t_infer", watts, limit);
        if (at < 0) {
            entry *e = find(w, text, 0);
            if (!e)
                return -1;
            at = (int)(e - w->e);
            w->power_entry[phase] = at + 1;
        } else {
            char *grown = strdup(text);
            if (!grown)
                return -1;
            free(w->e[at].text);
            w->e[at].text = grown;
        }
        w->power_worst[phase] = watts;
    }
    entry *e = &w->e[at];
    if (add_layout(e, l))
        return -1;
    free(e->line); /* its subject or its text has grown */
    e->line = NULL;
    return 0;
}

int warnings_energy(warnings *w, const sm_predictor *p, const char *model, const sm_layout *layout,
                    const sm_prediction *t)
{
    double limit = sm_predictor_power_limit(p);
    if (power_above(w, SM_ENERGY_INFER, t->e_infer, t->t_infer, limit, layout) ||
        power_above(w, SM_ENERGY_STEP, t->e_step, t->t_step, limit, layout))
        return -1;
    if (!(t->e_infer > t->e_step) || !isfinite(t->e_infer) || sm_layout_accumulate(layout) > 1)
        return 0;
    char text[WARNING_LEN];
    snprintf(text, sizeof text,
             "e_infer is above e_step, where an inference pass costs less energy than a "
             "training step (which runs a forward pass and more): the calibration's energy rows "
             "are suspect (an energy counter read over too short a window, docs/energy.md)");
    return add_each(w, text, 0, model, layout);
}
