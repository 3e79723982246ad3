/* scalemeter validate: how far a predictor (coefficients or a device description) is from
 * measured runs it may never have seen: "train on these networks, predict those". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "util/fnv.h"

static void usage(void)
{
    printf("usage: scalemeter validate RUNS.csv (--coeffs FILE | --device NAME|FILE)\n"
           "                           [--precision P] [--per-row] [--format table|csv|json]\n"
           "                           [-o FILE]\n\n"
           "Predicts every measured row of RUNS.csv (the measurement CSV of `bench`, `fit`)\n"
           "and reports the error per phase and per network: MAPE (a fraction), RMSE, R2, and\n"
           "the median ratio predicted / measured (below 1: optimistic). Rows of networks that\n"
           "the calibration never saw test it as a planner uses it. Where the CSV measures energy\n"
           "(energy_infer_j, energy_j) and the coefficients model it, energy_infer and\n"
           "energy_step compare the joules of one device too.\n\n"
           "  --coeffs FILE      coefficients of `scalemeter fit`, or a name of\n"
           "                     configs/calibrations/; it must be of the rows' precision\n"
           "  --device NAME      calibration-free model of configs/devices/NAME.ini (or a file),\n"
           "                     at the rows' precision\n"
           "  --precision P      validate only the rows of precision P (fp32, tf32, fp16, bf16);\n"
           "                     else the rows must all be of one precision\n"
           "  --per-row          every row instead of the networks' summary: its line, its\n"
           "                     configuration, each time measured and predicted (csv, json) or\n"
           "                     the step's and each phase's predicted / measured (table)\n"
           "  --format F         table (default), csv or json\n"
           "  -o, --output FILE  write there instead of the standard output\n"
           "RUNS.csv - reads the measurements from the standard input.\n");
}

typedef struct validate_args {
    const char *csv, *coeffs, *device, *precision, *output;
    output_format format;
    int per_row;
} validate_args;

static int parse_args(int argc, char **argv, validate_args *a)
{
    memset(a, 0, sizeof *a);
    enum { COEFFS = 256, DEVICE, PRECISION, FORMAT, PER_ROW };
    static const struct option opts[] = {{"help", no_argument, 0, 'h'},
                                         {"output", required_argument, 0, 'o'},
                                         {"coeffs", required_argument, 0, COEFFS},
                                         {"device", required_argument, 0, DEVICE},
                                         {"precision", required_argument, 0, PRECISION},
                                         {"format", required_argument, 0, FORMAT},
                                         {"per-row", no_argument, 0, PER_ROW},
                                         {0, 0, 0, 0}};
    char msg[512];
    for (int c; (c = next_option(argc, argv, "ho:", opts, msg, sizeof msg)) != -1;) {
        if (c == 'h') {
            usage();
            command_exit(0);
        } else if (c == 'o') {
            a->output = optarg;
        } else if (c == COEFFS) {
            a->coeffs = optarg;
        } else if (c == DEVICE) {
            a->device = optarg;
        } else if (c == PRECISION) {
            /* a name of none, not "none of its rows is of precision FP32" */
            if (strcmp(optarg, "fp32") && strcmp(optarg, "tf32") && strcmp(optarg, "fp16") &&
                strcmp(optarg, "bf16")) {
                fprintf(stderr,
                        "scalemeter validate: --precision %s: expected fp32, tf32, fp16 or "
                        "bf16\n",
                        optarg);
                return -1;
            }
            a->precision = optarg;
        } else if (c == FORMAT) {
            if (parse_format(optarg, 7, &a->format))
                return -1;
        } else if (c == PER_ROW) {
            a->per_row = 1;
        } else {
            return usage_error("validate", msg);
        }
    }
    if (optind < argc)
        a->csv = argv[optind++];
    if (optind < argc) {
        fprintf(stderr, "scalemeter validate: one measurement CSV ('%s' is a second one)\n",
                argv[optind]);
        return -1;
    }
    const char *problem = !a->csv ? "which measurements? (scalemeter validate runs.csv --device "
                                    "h100)"
                          : !a->coeffs == !a->device ? "give one of --coeffs FILE or --device NAME"
                                                     : NULL;
    if (problem) {
        fprintf(stderr, "scalemeter validate: %s\n", problem);
        return -1;
    }
    const char *inputs[] = {a->csv, a->coeffs, a->device};
    const char *what[] = {"RUNS.csv", "--coeffs", "--device"};
    if (stdin_once("validate", what, inputs, 3))
        return -1;
    return output_not_input("validate", "-o", a->output, inputs, 3);
}

/* What is compared: the times of the phases, then the energies of a device (joules of the
 * row's energy columns over its devices) where the CSV measures them and the predictor
 * models them. */
enum { Q_INFER, Q_FWD, Q_BWD, Q_GRAD, Q_STEP, Q_ENERGY_INFER, Q_ENERGY_STEP, N_QUANTITIES };
static const char *const quantity_names[N_QUANTITIES] = {
    "infer", "fwd", "bwd", "grad", "step", "energy_infer", "energy_step"};
static const sm_phase quantity_phase[Q_ENERGY_INFER] = {SM_PHASE_INFER, SM_PHASE_FWD, SM_PHASE_BWD,
                                                        SM_PHASE_GRAD, SM_PHASE_STEP};

static double predicted(const sm_prediction *p, int q)
{
    const double v[N_QUANTITIES] = {p->t_infer, p->t_fwd,   p->t_bwd, p->t_grad,
                                    p->t_step,  p->e_infer, p->e_step};
    return v[q];
}

static double measured(const sm_run *r, int q)
{
    return q < Q_ENERGY_INFER    ? sm_run_target(r, quantity_phase[q])
           : q == Q_ENERGY_INFER ? sm_run_energy(r, SM_ENERGY_INFER)
                                 : sm_run_energy(r, SM_ENERGY_STEP);
}

static int by_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

typedef struct vstats {
    sm_fit_stats s;
    double median_ratio;
} vstats;

/* Statistics and median ratio of the rows rows[0 .. n_rows - 1] (row numbers in the file's
 * order), or of all rows where rows is NULL. */
static void stats_of(const sm_runs *runs, const sm_prediction *pred, const int *rows, int n_rows,
                     int ph, vstats *out, double *y, double *p)
{
    int n = 0;
    for (int k = 0; k < (rows ? n_rows : runs->n); k++) {
        int i = rows ? rows[k] : k;
        const sm_run *r = &runs->rows[i];
        double t = measured(r, ph), q = predicted(&pred[i], ph);
        if (!isfinite(t) || !isfinite(q))
            continue;
        y[n] = t;
        p[n++] = q;
    }
    sm_fit_stats_of(y, p, n, &out->s);
    for (int i = 0; i < n; i++)
        y[i] = p[i] / y[i];
    qsort(y, (size_t)n, sizeof *y, by_double);
    out->median_ratio = n == 0 ? NAN : n % 2 ? y[n / 2] : 0.5 * (y[n / 2 - 1] + y[n / 2]);
}

/* The rows grouped by model: names[k] in the order the file first names them, model k's rows
 * rows[first[k] .. first[k + 1] - 1] in the file's order. Found by sorting, so that a file of
 * many networks is not scanned once per network (each quantity's statistics of every network
 * read every row: 80,000 rows of 8,000 networks took 29 s). */
typedef struct model_groups {
    const char **names;
    int n, *rows, *first;
} model_groups;

static const sm_run *group_rows;

static int by_model_then_row(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    int c = strcmp(group_rows[a].model, group_rows[b].model);
    return c ? c : (a > b) - (a < b);
}

static int by_first_row(const void *x, const void *y)
{
    const int *a = x, *b = y; /* {first row, start in the sorted rows} */
    return (a[0] > b[0]) - (a[0] < b[0]);
}

static void groups_free(model_groups *g)
{
    free(g->names), free(g->rows), free(g->first);
    memset(g, 0, sizeof *g);
}

static int group_models(const sm_runs *runs, model_groups *g)
{
    size_t n = (size_t)runs->n + 1;
    int *sorted = malloc(n * sizeof *sorted), (*runs_of)[2] = malloc(n * sizeof *runs_of);
    *g = (model_groups){malloc(n * sizeof *g->names), 0, malloc(n * sizeof *g->rows),
                        malloc((n + 1) * sizeof *g->first)};
    if (!sorted || !runs_of || !g->names || !g->rows || !g->first) {
        free(sorted), free(runs_of), groups_free(g);
        return -1;
    }
    for (int i = 0; i < runs->n; i++)
        sorted[i] = i;
    group_rows = runs->rows;
    qsort(sorted, (size_t)runs->n, sizeof *sorted, by_model_then_row);
    for (int k = 0; k < runs->n; k++) /* each model's first row, and where its rows start */
        if (k == 0 || strcmp(runs->rows[sorted[k]].model, runs->rows[sorted[k - 1]].model))
            runs_of[g->n][0] = sorted[k], runs_of[g->n++][1] = k;
    qsort(runs_of, (size_t)g->n, sizeof *runs_of, by_first_row);
    int used = 0;
    for (int m = 0; m < g->n; m++) {
        const char *name = runs->rows[runs_of[m][0]].model;
        g->names[m] = name;
        g->first[m] = used;
        for (int k = runs_of[m][1]; k < runs->n && !strcmp(runs->rows[sorted[k]].model, name); k++)
            g->rows[used++] = sorted[k];
    }
    g->first[g->n] = used;
    free(sorted), free(runs_of);
    return 0;
}

static void cells(const vstats *v, int energy, char c[5][32])
{
    snprintf(c[0], 32, "%d", v->s.n);
    snprintf(c[1], 32, isfinite(v->s.mape) ? "%.3f" : "-", v->s.mape);
    if (energy)
        snprintf(c[2], 32, isfinite(v->s.rmse) ? "%.3g J" : "-", v->s.rmse);
    else
        fmt_seconds(v->s.rmse, c[2], 32);
    snprintf(c[3], 32, isfinite(v->s.r2) ? "%.3f" : "-", v->s.r2);
    snprintf(c[4], 32, isfinite(v->median_ratio) ? "%.2f" : "-", v->median_ratio);
}

static void json_vstats(json_writer *w, const vstats *v)
{
    json_begin_object(w);
    json_field_int(w, "n", v->s.n);
    json_field_number(w, "mape", v->s.mape);
    json_field_number(w, "rmse", v->s.rmse);
    json_field_number(w, "r2", v->s.r2);
    json_field_number(w, "median_ratio", v->median_ratio);
    json_end(w);
}

/* conv: a network of the rows has a convolution (what the predictor's description says) */
static void report(const validate_args *a, const sm_runs *runs, const sm_prediction *pred,
                   const sm_predictor *p, const model_groups *models, int known, int oom, int conv)
{
    double *y = malloc((size_t)runs->n * sizeof *y), *q = malloc((size_t)runs->n * sizeof *q);
    if (!y || !q) {
        free(y), free(q);
        report_error("out of memory");
        return;
    }
    json_writer w;
    json_init(&w, stdout);
    if (a->format == FORMAT_JSON) {
        json_begin_object(&w);
        json_field_string(&w, "source", a->csv);
        json_field_string(&w, "predictor", sm_predictor_describe_for(p, conv));
        json_field_string(&w, "precision", sm_predictor_precision(p));
        json_field_int(&w, "rows", runs->n);
        json_key(&w, "phases");
        json_begin_object(&w);
        json_one_per_line(&w);
    } else if (a->format == FORMAT_CSV) {
        printf("phase,model,n,mape,rmse,r2,median_ratio\n");
    } else {
        int several = 0;
        for (int i = 0; i < runs->n; i++)
            several |= runs->rows[i].nodes * runs->rows[i].gpus_per_node > 1;
        printf("validation of %s (%d %s rows, %d networks) against %s\n"
               "MAPE a fraction; ratio: median predicted / measured%s\n\n",
               a->csv, runs->n, sm_predictor_precision(p), models->n,
               sm_predictor_describe_for(p, conv),
               several ? "; grad of several devices: t_step - t_fwd - t_bwd, what the step "
                         "spends beyond its passes (docs/calibration.md)"
                       : "");
    }
    for (int ph = 0; ph < N_QUANTITIES; ph++) {
        vstats all;
        stats_of(runs, pred, NULL, 0, ph, &all, y, q);
        if (all.s.n == 0)
            continue;
        const char *name = quantity_names[ph];
        const char *headers[] = {"phase", "model", "n", "MAPE", "RMSE", "R2", "ratio"};
        text_table *t = a->format == FORMAT_TABLE ? table_new(7, headers) : NULL;
        if (a->format == FORMAT_JSON) {
            json_key(&w, name);
            json_begin_object(&w);
            json_key(&w, "per_model");
            json_begin_object(&w);
            json_one_per_line(&w);
        }
        for (int m = 0; m <= models->n; m++) {
            vstats v;
            const char *model = m < models->n ? network_label(models->names[m]) : "overall";
            if (m < models->n)
                stats_of(runs, pred, models->rows + models->first[m],
                         models->first[m + 1] - models->first[m], ph, &v, y, q);
            else
                v = all;
            if (v.s.n == 0)
                continue;
            char c[5][32];
            cells(&v, ph >= Q_ENERGY_INFER, c);
            if (t) {
                const char *row[] = {name, model, c[0], c[1], c[2], c[3], c[4]};
                table_add(t, row);
            } else if (a->format == FORMAT_CSV) {
                printf("%s,", name);
                csv_field(stdout, model);
                printf(",%d", v.s.n);
                double x[] = {v.s.mape, v.s.rmse, v.s.r2, v.median_ratio};
                for (int k = 0; k < 4; k++)
                    csv_real(stdout, x[k]);
                putchar('\n');
            } else if (m < models->n) {
                json_key(&w, model);
                json_vstats(&w, &v);
            } else {
                json_end(&w);
                json_key(&w, "overall");
                json_vstats(&w, &v);
                json_end(&w);
            }
        }
        if (t) {
            table_print(t, stdout);
            table_free(t);
            putchar('\n');
        }
    }
    /* memory: every row ran, so every row should be predicted to fit */
    if (a->format == FORMAT_JSON) {
        json_end(&w);
        json_key(&w, "memory");
        json_begin_object(&w);
        json_field_int(&w, "rows_with_capacity", known);
        json_field_int(&w, "ran_but_predicted_not_to_fit", oom);
        json_end(&w);
        json_warning_member(&w, "");
        json_end(&w);
    } else if (a->format == FORMAT_TABLE) {
        if (known)
            printf("memory: %d of %d rows ran and are predicted not to fit the device\n", oom,
                   known);
        else
            printf("memory: the device's capacity is not known (%s)\n",
                   a->device ? "the description has no memory_gib" : "--device D says");
    }
    free(y), free(q);
}

/* A measured row, so a configuration that ran, that the memory model says needs NEED bytes of
 * the device's HAS: the first five said one by one, the count at the end (report). */
static void ran_but_oom_warn(const sm_runs *runs, const sm_run *r, double need, double has, int k)
{
    char need_s[32], has_s[32];
    if (k < 5)
        say_warning("%s:%d: %s at batch %lld ran, but is predicted not to fit (%s of %s)",
                    runs->path, r->line, r->model, (long long)r->batch,
                    fmt_gib(need, need_s, sizeof need_s), fmt_gib(has, has_s, sizeof has_s));
}

/* Rows by (model, image), then by line: each network is loaded once, whatever the order of
 * the rows (a shuffled CSV of 10^6 rows over 94 pairs reloaded a network per row). */
static const sm_run *sort_rows;

static int by_network(const void *x, const void *y)
{
    const sm_run *a = &sort_rows[*(const int *)x], *b = &sort_rows[*(const int *)y];
    int c = strcmp(a->model, b->model);
    if (c == 0)
        c = (a->image > b->image) - (a->image < b->image);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* Predicts row i on net: its times into pred[i], its memory into *mem; an error names the
 * row into st. */
static int predict_row(const sm_runs *runs, int i, const sm_network *net, const sm_predictor *p,
                       sm_prediction *pred, sm_memory *mem, sm_status *st)
{
    const sm_run *r = &runs->rows[i];
    const sm_layout l = {r->batch, r->nodes, r->gpus_per_node, 1};
    sm_status inner;
    if (sm_predict(p, net, &l, &pred[i], &inner) || sm_predict_memory(p, net, &l, 1, mem, &inner))
        return sm_fail(st, "%s:%d: %s", runs->path, r->line, inner.msg);
    return 0;
}

/* What sm_predict and sm_predict_memory read of a row besides its network (predict_row's
 * layout): with the network, the row's configuration. */
typedef struct config_key {
    int64_t batch;
    int nodes, gpus_per_node;
} config_key;

/* One configuration of a network predicted. row: the first row of it, its prediction in
 * pred[row]; -1: a free slot. failed: that row's prediction failed (and was said). */
typedef struct predicted_config {
    config_key key;
    int row, failed;
    sm_memory mem;
} predicted_config;

/* The configurations of one network predicted so far, by open addressing (cap a power of two,
 * at most half full): 10^6 rows over a few hundred configurations predict a few hundred times. */
typedef struct config_table {
    predicted_config *slots;
    size_t cap, used;
} config_table;

static config_key key_of(const sm_run *r)
{
    return (config_key){r->batch, r->nodes, r->gpus_per_node};
}

static predicted_config *config_slot(predicted_config *slots, size_t cap, config_key k)
{
    const uint64_t v[3] = {(uint64_t)k.batch, (uint32_t)k.nodes, (uint32_t)k.gpus_per_node};
    uint64_t h = SM_FNV1A_OFFSET; /* FNV-1a over the fields' bytes */
    for (int f = 0; f < 3; f++)
        h = sm_fnv1a_u64(h, v[f]);
    for (size_t i = (size_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
        const config_key *e = &slots[i].key;
        if (slots[i].row < 0 ||
            (e->batch == k.batch && e->nodes == k.nodes && e->gpus_per_node == k.gpus_per_node))
            return &slots[i];
    }
}

static void config_clear(config_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        t->slots[i].row = -1;
    t->used = 0;
}

/* The slot of key k: its configuration, or a free slot (row -1) for it; NULL: out of memory. */
static predicted_config *config_find(config_table *t, config_key k)
{
    if (2 * (t->used + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        predicted_config *slots = malloc(cap * sizeof *slots);
        if (!slots)
            return NULL;
        for (size_t i = 0; i < cap; i++)
            slots[i].row = -1;
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].row >= 0)
                *config_slot(slots, cap, t->slots[i].key) = t->slots[i];
        free(t->slots);
        t->slots = slots, t->cap = cap;
    }
    return config_slot(t->slots, t->cap, k);
}

/* Predicts every row; counts the rows whose memory the predictor knows (known) and those of
 * them it says do not fit (oom), said for the first five in the file's order; conv: 1 when a
 * network has a convolution. Of several failing rows, the first in the file is named. Rows of
 * one configuration are predicted once, at the first of them in the file. */
static int predict_rows(const sm_runs *runs, const sm_registry *reg, const sm_predictor *p,
                        sm_prediction *pred, int *known, int *oom, int *conv, sm_status *st)
{
    int *order = malloc((size_t)runs->n * sizeof *order);
    double *no_fit = calloc((size_t)runs->n, sizeof *no_fit); /* bytes needed; 0: it fits */
    if (!order || !no_fit) {
        free(order), free(no_fit);
        return sm_fail(st, "out of memory");
    }
    for (int i = 0; i < runs->n; i++)
        order[i] = i;
    sort_rows = runs->rows;
    qsort(order, (size_t)runs->n, sizeof *order, by_network);
    int failed_line = 0;
    double capacity = 0;
    sm_network *net = NULL;
    config_table seen = {0};
    int nomem = 0;
    for (int k = 0; k < runs->n; k++) {
        const sm_run *r = &runs->rows[order[k]];
        const sm_run *prev = k ? &runs->rows[order[k - 1]] : NULL;
        int first = !prev || prev->image != r->image || strcmp(prev->model, r->model) != 0;
        sm_status inner;
        if (first) {
            sm_network_free(net);
            net = NULL;
            config_clear(&seen);
            sm_network_options opt = {.image = r->image};
            if (sm_network_load(reg, r->model, &opt, &net, &inner)) {
                if (!failed_line || r->line < failed_line)
                    failed_line = r->line,
                    sm_fail(st, "%s:%d: model %s: %s", runs->path, r->line, r->model, inner.msg);
                continue;
            }
            *conv |= sm_network_has_trait(net, SM_TRAIT_CONVOLUTION);
        }
        if (!net)
            continue; /* the pair's network failed to load: said at its first row */
        predicted_config *c = config_find(&seen, key_of(r));
        if (!c) {
            nomem = 1;
            break;
        }
        if (c->row < 0) { /* the configuration's first row: a network's rows are by line */
            c->key = key_of(r), c->row = order[k];
            seen.used++;
            c->failed = predict_row(runs, order[k], net, p, pred, &c->mem, &inner) != 0;
            if (c->failed && (!failed_line || r->line < failed_line))
                failed_line = r->line, *st = inner;
        } else {
            pred[order[k]] = pred[c->row];
        }
        if (c->failed)
            continue; /* said at the configuration's first row, whose line is smaller */
        /* it ran: where it does not fit, the memory model is wrong */
        no_fit[order[k]] = c->mem.fits == 0 ? c->mem.peak + c->mem.context : 0;
        capacity = c->mem.capacity; /* the predictor's device: one for every row */
        *known += c->mem.fits >= 0;
    }
    sm_network_free(net);
    free(seen.slots);
    if (nomem)
        failed_line = -1, sm_fail(st, "out of memory");
    /* in the file's order: the first five said one by one, the count at the end (report) */
    for (int i = 0; i < runs->n && !failed_line; i++)
        if (no_fit[i] > 0)
            ran_but_oom_warn(runs, &runs->rows[i], no_fit[i], capacity, (*oom)++);
    free(order), free(no_fit);
    return failed_line ? -1 : 0;
}

/* --per-row: every row in the file's order, each quantity it measures beside the prediction
 * (rows of one configuration share theirs), so that the rows a summary averages can be told
 * apart: the configurations the host paces, a network the model misses, a repeated row that
 * disagrees with the first. */
static void report_rows(const validate_args *a, const sm_runs *runs, const sm_prediction *pred,
                        const sm_predictor *p, int conv)
{
    if (a->format == FORMAT_CSV) {
        printf("line,model,image,batch,nodes,gpus_per_node,precision");
        for (int q = 0; q < N_QUANTITIES; q++)
            printf(",measured_%s,predicted_%s", quantity_names[q], quantity_names[q]);
        putchar('\n');
        for (int i = 0; i < runs->n; i++) {
            const sm_run *r = &runs->rows[i];
            printf("%d,", r->line);
            csv_field(stdout, r->model);
            csv_real(stdout, r->image > 0 ? (double)r->image : NAN); /* empty: the file's own */
            printf(",%lld,%d,%d,%s", (long long)r->batch, r->nodes, r->gpus_per_node, r->precision);
            for (int q = 0; q < N_QUANTITIES; q++) { /* empty: not measured, not modelled */
                csv_real(stdout, measured(r, q));
                csv_real(stdout, predicted(&pred[i], q));
            }
            putchar('\n');
        }
        return;
    }
    if (a->format == FORMAT_JSON) {
        json_writer w;
        json_init(&w, stdout);
        json_begin_object(&w);
        json_field_string(&w, "source", a->csv);
        json_field_string(&w, "predictor", sm_predictor_describe_for(p, conv));
        json_field_string(&w, "precision", sm_predictor_precision(p));
        json_key(&w, "rows");
        json_begin_array(&w);
        json_one_per_line(&w);
        for (int i = 0; i < runs->n; i++) {
            const sm_run *r = &runs->rows[i];
            json_begin_object(&w);
            json_field_int(&w, "line", r->line);
            json_field_string(&w, "model", r->model);
            if (r->image > 0)
                json_field_int(&w, "image", r->image);
            else
                json_field_null(&w, "image"); /* the network file's own size */
            json_field_int(&w, "batch", r->batch);
            json_field_int(&w, "nodes", r->nodes);
            json_field_int(&w, "gpus_per_node", r->gpus_per_node);
            for (int side = 0; side < 2; side++) {
                json_key(&w, side ? "predicted" : "measured");
                json_begin_object(&w);
                for (int q = 0; q < N_QUANTITIES; q++) /* null: not measured, not modelled */
                    json_field_number(&w, quantity_names[q],
                                      side ? predicted(&pred[i], q) : measured(r, q));
                json_end(&w);
            }
            json_end(&w);
        }
        json_end(&w);
        json_warning_member(&w, "");
        json_end(&w);
        return;
    }
    printf("validation of %s (%d %s rows) against %s, row by row\n"
           "step: measured, predicted and their ratio; phases: predicted / measured\n\n",
           a->csv, runs->n, sm_predictor_precision(p), sm_predictor_describe_for(p, conv));
    const char *headers[] = {"line",      "model", "image", "batch", "devices", "step",
                             "predicted", "ratio", "infer", "fwd",   "bwd",     "grad"};
    text_table *t = table_new(12, headers);
    for (int i = 0; i < runs->n && t; i++) {
        const sm_run *r = &runs->rows[i];
        char c[12][80];
        snprintf(c[0], 80, "%d", r->line);
        snprintf(c[1], 80, "%.79s", network_label(r->model));
        snprintf(c[2], 80, r->image > 0 ? "%lld" : "-", (long long)r->image);
        snprintf(c[3], 80, "%lld", (long long)r->batch);
        snprintf(c[4], 80, "%d x %d", r->nodes, r->gpus_per_node);
        double step = measured(r, Q_STEP), step_p = predicted(&pred[i], Q_STEP);
        fmt_seconds(step, c[5], 80);
        fmt_seconds(isfinite(step) ? step_p : NAN, c[6], 80);
        snprintf(c[7], 80, isfinite(step) ? "%.2f" : "-", step_p / step);
        for (int q = Q_INFER; q <= Q_GRAD; q++) {
            double m = measured(r, q);
            snprintf(c[8 + q], 80, isfinite(m) ? "%.2f" : "-", predicted(&pred[i], q) / m);
        }
        const char *row[12];
        for (int k = 0; k < 12; k++)
            row[k] = c[k];
        table_add(t, row);
    }
    if (t) {
        table_print(t, stdout);
        table_free(t);
    }
}

int cmd_validate(int argc, char **argv)
{
    validate_args a;
    if (parse_args(argc, argv, &a))
        return 2;
    sm_status st;
    sm_runs *runs;
    if (sm_runs_read(a.csv, &runs, &st))
        return report_error(st.msg);
    output_reads_runs(runs);
    output_reads("configs/calibrations", a.coeffs);
    output_reads("configs/devices", a.device);
    if (output_named_refuse("validate", "-o", a.output)) {
        sm_runs_free(runs);
        return 2;
    }
    /* rows left out are said, as fit says them: 8 rows of status OK were scored 19 of 27
     * without a word */
    say_runs_notes("validate", a.csv, runs);
    if (sm_runs_select_precision(runs, a.precision, &st)) {
        sm_runs_free(runs);
        return report_error(st.msg);
    }
    /* as fit says them: 1e-8 s steps were scored at a step MAPE of 237047 without a word */
    say_impossible_steps(a.csv, runs, "grad's comparison");
    sm_predictor *p = NULL;
    int rc = a.coeffs ? sm_predictor_from_coeffs(a.coeffs, &p, &st)
                      : sm_predictor_from_device_opts(
                            a.device, &(sm_device_options){.precision = runs->rows[0].precision},
                            &p, &st);
    if (rc && !a.coeffs && !strncmp(st.msg, "precision ", 10)) {
        /* the precision is the rows', not an option: say whose */
        sm_status inner = st;
        const char *why = strstr(inner.msg, ": ");
        sm_fail(&st, "%s: its rows are %s: %s", a.csv, runs->rows[0].precision,
                why ? why + 2 : inner.msg);
    }
    if (!rc)
        rc = sm_predictor_check_precision(p, runs->rows[0].precision, &st);
    /* the runs stepped SGD with momentum, whatever a network's recipe is (bench and the
     * PyTorch scripts alike: docs/calibration.md), and fit --device-out fits its update so */
    if (!rc)
        sm_predictor_set_optimizer(p, SM_OPTIMIZER_MOMENTUM);
    sm_registry *reg = NULL;
    if (!rc)
        rc = sm_registry_open(&reg, &st);
    sm_prediction *pred = rc ? NULL : calloc((size_t)runs->n, sizeof *pred);
    if (!rc && !pred)
        rc = sm_fail(&st, "out of memory");
    int known = 0, oom = 0, conv = 0;
    if (!rc)
        rc = predict_rows(runs, reg, p, pred, &known, &oom, &conv, &st);
    /* repeated rows, as fit finds them: an empty image and the network's own size written out
     * are one configuration, known once each row's network is loaded (sm_runs_metrics) */
    if (!rc)
        rc = sm_runs_metrics(runs, reg, &st);
    if (!rc)
        say_runs_repeated(a.csv, runs, "compared");
    model_groups models = {0};
    if (!rc && group_models(runs, &models))
        rc = sm_fail(&st, "out of memory");
    if (!rc) {
        if (output_to("validate", a.output))
            rc = sm_fail(&st, "no report written");
        else if (a.per_row)
            report_rows(&a, runs, pred, p, conv);
        else
            report(&a, runs, pred, p, &models, known, oom, conv);
    }
    int exit_code = rc ? report_error(st.msg) : 0;
    groups_free(&models);
    free(pred);
    sm_registry_free(reg);
    sm_predictor_free(p);
    sm_runs_free(runs);
    return exit_code;
}
