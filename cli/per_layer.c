/* predict --per-layer (per_layer.h): the device model's passes split by layer, so that a
 * planner sees which layers a step spends its time in and whether the GPU's arithmetic, its
 * memory or the host's dispatch limits them, and so that a profiler's per-operator table
 * (tools/torch_layer_profile.py) can be set beside the model layer by layer. */
#include <math.h>
#include <stdlib.h>

#include "json_writer.h"
#include "per_layer.h"

static const char *const columns[] = {
    "layer",      "type",     "block",    "fused",       "t_infer",   "t_fwd",    "t_bwd",
    "host_infer", "host_fwd", "host_bwd", "bound_infer", "bound_fwd", "bound_bwd"};
#define N_COLUMNS ((int)(sizeof columns / sizeof *columns))

/* Column k of the six times (t_infer, t_fwd, t_bwd, host_infer, host_fwd, host_bwd): one of
 * training's, which an inference-only print leaves out. */
static int training_column(int k) { return k % 3 != 0; }

/* A pass's bound for CSV and JSON: NULL (an empty field, null) where the layer does no work,
 * which the library's and the table's "-" says. */
static const char *bound_of(sm_bound b) { return b == SM_BOUND_NONE ? NULL : sm_bound_name(b); }

static void print_csv(FILE *out, const sm_network *net, const sm_layer_prediction *lp,
                      int infer_only)
{
    for (int c = 0; c < N_COLUMNS; c++)
        fprintf(out, "%s%s", c ? "," : "", columns[c]);
    fputc('\n', out);
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        const sm_layer_prediction *x = &lp[i];
        csv_field(out, l->name);
        fputc(',', out);
        csv_field(out, l->type->name);
        fputc(',', out);
        csv_field(out, net->blocks[l->block]);
        fprintf(out, ",%d", x->fused);
        const double v[] = {x->t_infer,    x->t_fwd,    x->t_bwd,
                            x->host_infer, x->host_fwd, x->host_bwd};
        for (int k = 0; k < 6; k++) {
            if (infer_only && training_column(k))
                fputc(',', out);
            else
                csv_real(out, v[k]);
        }
        const sm_bound b[] = {x->bound_infer, x->bound_fwd, x->bound_bwd};
        for (int k = 0; k < 3; k++) {
            const char *name = k && infer_only ? NULL : bound_of(b[k]);
            fprintf(out, ",%s", name ? name : "");
        }
        fputc('\n', out);
    }
}

/* key: v, or null where an inference-only print leaves training out */
static void json_time(json_writer *w, const char *key, double v, int left_out)
{
    if (left_out)
        json_field_null(w, key);
    else
        json_field_number(w, key, v);
}

static void print_json(FILE *out, const char *model, const sm_network *net, const sm_predictor *p,
                       const sm_layout *layout, const sm_prediction *t,
                       const sm_layer_prediction *lp, int infer_only, warnings *warn)
{
    json_writer w;
    json_init(&w, out);
    json_begin_object(&w);
    json_field_string(&w, "model", model);
    json_field_string(
        &w, "predictor",
        sm_predictor_describe_for(p, sm_network_has_trait(net, SM_TRAIT_CONVOLUTION)));
    json_field_string(&w, "precision", sm_predictor_precision(p));
    json_field_int(&w, "batch", layout->batch);
    json_field_bool(&w, "training_fits", !infer_only);
    json_field_number(&w, "t_infer", t->t_infer);
    json_time(&w, "t_fwd", t->t_fwd, infer_only);
    json_time(&w, "t_bwd", t->t_bwd, infer_only);
    warnings_json(warn, &w);
    json_key(&w, "layers");
    json_begin_array(&w);
    json_one_per_line(&w);
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        const sm_layer_prediction *x = &lp[i];
        json_begin_object(&w);
        json_field_string(&w, "layer", l->name);
        json_field_string(&w, "type", l->type->name);
        json_field_string(&w, "block", net->blocks[l->block]);
        json_field_bool(&w, "fused", x->fused);
        const double v[] = {x->t_infer,    x->t_fwd,    x->t_bwd,
                            x->host_infer, x->host_fwd, x->host_bwd};
        for (int k = 0; k < 6; k++)
            json_time(&w, columns[4 + k], v[k], infer_only && training_column(k));
        json_field_string(&w, "bound_infer", bound_of(x->bound_infer));
        json_field_string(&w, "bound_fwd", infer_only ? NULL : bound_of(x->bound_fwd));
        json_field_string(&w, "bound_bwd", infer_only ? NULL : bound_of(x->bound_bwd));
        json_end(&w);
    }
    json_end(&w);
    json_end(&w);
    fputc('\n', out);
}

/* The tables' first lines: the network (named as predict's table names it), the batch, the
 * model, and what the rows are. */
static void print_heading(FILE *out, const char *model, const sm_network *net,
                          const sm_predictor *p, const sm_layout *layout, const char *rows)
{
    fprintf(out, "%s, batch %lld per device: %s\n%s\n\n", heading_name(net, model),
            (long long)layout->batch,
            sm_predictor_describe_for(p, sm_network_has_trait(net, SM_TRAIT_CONVOLUTION)), rows);
}

/* The inference pass alone, as print_table prints training's: where training does not fit. */
static void print_infer_table(FILE *out, const char *model, const sm_network *net,
                              const sm_predictor *p, const sm_layout *layout,
                              const sm_prediction *t, const sm_layer_prediction *lp)
{
    print_heading(out, model, net, p, layout,
                  "the inference pass, layer by layer: training does not fit the device at this "
                  "batch (predict without --per-layer says what it needs)");
    const char *h[] = {"layer", "type", "t_infer", "share", "host", "bound"};
    text_table *tab = table_new(6, h);
    time_unit unit = time_unit_of(0);
    for (int i = 0; i < net->n_layers; i++)
        time_unit_add(&unit, lp[i].t_infer);
    for (int i = 0; tab && i < net->n_layers; i++) {
        const sm_layer_prediction *x = &lp[i];
        char inf[32], share[32], host[32];
        snprintf(share, sizeof share, t->t_infer > 0 ? "%.1f%%" : "-",
                 100.0 * x->t_infer / t->t_infer);
        snprintf(host, sizeof host, x->t_infer > 0 ? "%.0f%%" : "-",
                 100.0 * x->host_infer / x->t_infer);
        const char *row[] = {net->layers[i].name,
                             net->layers[i].type->name,
                             x->fused ? "fused"
                                      : fmt_seconds_in(x->t_infer, &unit, inf, sizeof inf),
                             x->fused ? "" : share,
                             x->fused ? "" : host,
                             x->fused ? "" : sm_bound_name(x->bound_infer)};
        table_add(tab, row);
    }
    if (tab)
        table_print(tab, out);
    table_free(tab);
    char f[32];
    fprintf(out, "\nt_infer %s\n", fmt_seconds(t->t_infer, f, sizeof f));
}

/* The table: each layer's training passes, its share of them, the host's share of its own
 * time and what limits each pass; one unit a time column. */
static void print_table(FILE *out, const char *model, const sm_network *net, const sm_predictor *p,
                        const sm_layout *layout, const sm_prediction *t,
                        const sm_layer_prediction *lp)
{
    print_heading(out, model, net, p, layout,
                  "training passes, layer by layer (fused: run inside a neighbour's kernel; "
                  "host: what of it the device waits on the framework's dispatch)");
    const char *h[] = {"layer", "type", "t_fwd",     "t_bwd",
                       "share", "host", "fwd bound", "bwd bound"};
    text_table *tab = table_new(8, h);
    time_unit unit = time_unit_of(0);
    for (int i = 0; i < net->n_layers; i++) {
        time_unit_add(&unit, lp[i].t_fwd);
        time_unit_add(&unit, lp[i].t_bwd);
    }
    double passes = t->t_fwd + t->t_bwd;
    for (int i = 0; tab && i < net->n_layers; i++) {
        const sm_layer_prediction *x = &lp[i];
        char fwd[32], bwd[32], share[32], host[32];
        double own = x->t_fwd + x->t_bwd;
        snprintf(share, sizeof share, passes > 0 ? "%.1f%%" : "-", 100.0 * own / passes);
        snprintf(host, sizeof host, own > 0 ? "%.0f%%" : "-",
                 100.0 * (x->host_fwd + x->host_bwd) / own);
        const char *row[] = {net->layers[i].name,
                             net->layers[i].type->name,
                             x->fused ? "fused" : fmt_seconds_in(x->t_fwd, &unit, fwd, sizeof fwd),
                             x->fused ? "" : fmt_seconds_in(x->t_bwd, &unit, bwd, sizeof bwd),
                             x->fused ? "" : share,
                             x->fused ? "" : host,
                             x->fused ? "" : sm_bound_name(x->bound_fwd),
                             x->fused ? "" : sm_bound_name(x->bound_bwd)};
        table_add(tab, row);
    }
    if (tab)
        table_print(tab, out);
    table_free(tab);
    /* the step's passes by what limits them, and the host's dispatch in them */
    double host = 0, by_bound[SM_BOUND_LAUNCH + 1] = {0};
    for (int i = 0; i < net->n_layers; i++) {
        host += lp[i].host_fwd + lp[i].host_bwd;
        by_bound[lp[i].bound_fwd] += lp[i].t_fwd;
        by_bound[lp[i].bound_bwd] += lp[i].t_bwd;
    }
    char f[32], b[32];
    fprintf(out, "\nt_fwd %s, t_bwd %s", fmt_seconds(t->t_fwd, f, sizeof f),
            fmt_seconds(t->t_bwd, b, sizeof b));
    if (passes > 0)
        fprintf(out,
                ": the device waiting on the host's dispatch %.0f%% of them; passes limited by "
                "compute %.0f%%, by "
                "memory %.0f%%, by the host %.0f%%",
                100 * host / passes, 100 * by_bound[SM_BOUND_COMPUTE] / passes,
                100 * by_bound[SM_BOUND_MEMORY] / passes, 100 * by_bound[SM_BOUND_HOST] / passes);
    if (passes > 0 && by_bound[SM_BOUND_LAUNCH] > 0)
        fprintf(out, ", by kernel launches %.0f%%", 100 * by_bound[SM_BOUND_LAUNCH] / passes);
    fputc('\n', out);
}

int per_layer_print(FILE *out, output_format format, const char *model, const sm_network *net,
                    const sm_predictor *p, const sm_layout *layout, const sm_prediction *t,
                    int infer_only, warnings *warn, sm_status *st)
{
    sm_layer_prediction *lp = calloc((size_t)net->n_layers + 1, sizeof *lp);
    if (!lp)
        return sm_fail(st, "out of memory");
    if (sm_predict_layers(p, net, layout, lp, st)) {
        free(lp);
        return -1;
    }
    if (format == FORMAT_CSV)
        print_csv(out, net, lp, infer_only);
    else if (format == FORMAT_JSON)
        print_json(out, model, net, p, layout, t, lp, infer_only, warn);
    else if (infer_only)
        print_infer_table(out, model, net, p, layout, t, lp);
    else
        print_table(out, model, net, p, layout, t, lp);
    free(lp);
    return 0;
}
