/* The column table of a predicted point and its CSV and JSON writers (point_columns.h). To add
 * a column: a getter and one entry in point_columns[]; curve and predict both write it. */
#include "point_columns.h"

#include <math.h>
#include <string.h>

#include "output.h"
#include "scalemeter/fit.h"

static cell integer(int64_t i) { return (cell){CELL_INT, i, 0, NULL}; }

static cell real(double x) { return (cell){CELL_REAL, 0, x, NULL}; }

static cell text(const char *s) { return (cell){CELL_TEXT, 0, 0, s}; }

static const cell empty = {CELL_EMPTY, 0, 0, NULL};

static int64_t devices(const point_view *v) { return sm_layout_devices(&v->p->layout); }

/* NAN without a dataset (a sequence network given no --tokens) */
static double epoch_s(const point_view *v)
{
    return v->dataset ? sm_epoch_time(&v->p->layout, v->p->pred.t_step, v->dataset) : NAN;
}

/* Joules of the whole job (all its devices): an inference pass, a step, an epoch. */
static double job_step_j(const point_view *v) { return v->p->pred.e_step * (double)devices(v); }

static double job_epoch_j(const point_view *v)
{
    return v->dataset ? sm_epoch_steps(&v->p->layout, v->dataset) * job_step_j(v) : NAN;
}

static cell model(const point_view *v) { return text(v->model); }
static cell image(const point_view *v) { return integer(sm_network_image(v->net)); }
static cell batch(const point_view *v) { return integer(v->p->layout.batch); }
static cell nodes(const point_view *v) { return integer(v->p->layout.nodes); }
static cell gpus(const point_view *v) { return integer(v->p->layout.gpus_per_node); }
static cell t_infer(const point_view *v) { return real(v->p->pred.t_infer); }
static cell t_fwd(const point_view *v) { return real(v->p->pred.t_fwd); }
static cell t_bwd(const point_view *v) { return real(v->p->pred.t_bwd); }
static cell t_grad(const point_view *v) { return real(v->p->pred.t_grad); }
static cell t_step(const point_view *v) { return real(v->p->pred.t_step); }
static cell precision(const point_view *v) { return text(sm_predictor_precision(v->pred)); }
static cell dataset(const point_view *v) { return v->dataset ? integer(v->dataset) : empty; }
static cell global_batch(const point_view *v) { return integer(v->p->global_batch); }
static cell accumulate(const point_view *v) { return integer(sm_layout_accumulate(&v->p->layout)); }
/* how training runs beside the layout (predict's --shard and --checkpoint): fit reads rows of
 * DDP steps without checkpointing, and refuses others by these */
static sm_memory_config training(const point_view *v)
{
    sm_memory_config mc = {0};
    sm_predictor_memory_config(v->pred, &mc);
    return mc;
}
static cell shard(const point_view *v) { return text(sm_shard_name(training(v).shard)); }
static cell checkpoint(const point_view *v)
{
    return text(sm_checkpoint_name(training(v).checkpoint));
}
static cell n_devices(const point_view *v) { return integer(devices(v)); }
/* a sequence network's throughput is in tokens (tokens_s) */
static cell images_per_s(const point_view *v)
{
    return is_sequence(v->net) ? empty : real(v->p->images_per_s);
}
static cell efficiency(const point_view *v) { return real(v->p->efficiency); }
static cell turning(const point_view *v)
{
    return v->turning_nodes ? integer(v->turning_nodes) : empty;
}
static cell t_epoch(const point_view *v) { return real(epoch_s(v)); }
static cell epochs(const point_view *v) { return integer(v->epochs); }
static cell t_train(const point_view *v) { return real((double)v->epochs * epoch_s(v)); }
static cell e_infer(const point_view *v) { return real(v->p->pred.e_infer * (double)devices(v)); }
static cell e_step(const point_view *v) { return real(job_step_j(v)); }
static cell power(const point_view *v) { return real(job_step_j(v) / v->p->pred.t_step); }
static cell e_epoch(const point_view *v) { return real(job_epoch_j(v)); }
static cell e_train(const point_view *v) { return real((double)v->epochs * job_epoch_j(v)); }
static cell ar_algorithm(const point_view *v)
{
    return strcmp(v->allreduce.algorithm, "none") ? text(v->allreduce.algorithm) : empty;
}
static cell ar_protocol(const point_view *v)
{
    const char *protocol = allreduce_protocol(v->allreduce.protocol);
    return strcmp(v->allreduce.algorithm, "none") && protocol ? text(protocol) : empty;
}
static cell tokens(const point_view *v)
{
    return v->tokens && is_sequence(v->net) ? integer(v->tokens) : empty;
}
static cell tokens_s(const point_view *v)
{
    return is_sequence(v->net)
               ? real(tokens_per_s(&v->p->layout, v->p->pred.t_step, sm_network_image(v->net)))
               : empty;
}
static cell mfu(const point_view *v)
{
    /* the FLOPs of a step: all its micro-batches */
    const sm_layout *l = &v->p->layout;
    return real(model_flops_utilisation(v->pred, v->sample_flops,
                                        l->batch * sm_layout_accumulate(l), v->p->pred.t_step));
}
static cell memory(const point_view *v) { return real(v->p->memory.peak + v->p->memory.context); }
static cell capacity(const point_view *v)
{
    return v->p->memory.fits >= 0 ? real(v->p->memory.capacity) : empty;
}
static cell fits(const point_view *v)
{
    return v->p->memory.fits >= 0 ? text(v->p->memory.fits ? "true" : "false") : empty;
}

static cell max_batch(const point_view *v) { return integer(v->max_batch); }

#define E COLS_EPOCHS
#define J COLS_ENERGY
#define A COLS_ALLREDUCE
#define S COLS_SEQUENCE

/* The measurement CSV's columns first (model to t_step), so that `scalemeter fit` reads
 * curve's and predict's CSV back. JSON: the keys a point object of curve has; the memory and
 * the all-reduce are objects there (json_memory, json_allreduce), written by the commands. */
const point_column point_columns[] = {
    {"model", "", NULL, 0, model, 0},
    {"image", "", NULL, 0, image, 0},
    {"batch", "", "batch", 0, batch, 0},
    {"nodes", "", "nodes", 0, nodes, 0},
    {"gpus_per_node", "", "gpus_per_node", 0, gpus, 0},
    {"t_infer", "s", "t_infer", 0, t_infer, 0},
    {"t_fwd", "s", "t_fwd", 0, t_fwd, 0},
    {"t_bwd", "s", "t_bwd", 0, t_bwd, 0},
    {"t_grad", "s", "t_grad", 0, t_grad, 0},
    {"t_step", "s", "t_step", 0, t_step, 0},
    {"precision", "", NULL, 0, precision, 0},
    {"dataset", "", NULL, 0, dataset, 0},
    {"global_batch", "", "global_batch", 0, global_batch, 0},
    {"accumulate", "", "accumulate", 0, accumulate, 0},
    {"shard", "", NULL, 0, shard, 0},
    {"checkpoint", "", NULL, 0, checkpoint, 0},
    {"devices", "", "devices", 0, n_devices, 0},
    {"images_per_s", "1/s", "images_per_s", 0, images_per_s, 0},
    {"efficiency", "", "efficiency", 0, efficiency, 0},
    {"turning_point", "", NULL, 0, turning, 0},
    {"t_epoch", "s", "t_epoch", 0, t_epoch, 0},
    {"epochs", "", NULL, E, epochs, 0},
    {"t_train", "s", "t_train", E, t_train, 0},
    {"e_infer_j", "J", "e_infer_j", J, e_infer, 0},
    {"e_step_j", "J", "e_step_j", J, e_step, 0},
    {"power_w", "W", "power_w", J, power, 0},
    {"e_epoch_j", "J", "e_epoch_j", J, e_epoch, 0},
    {"e_train_j", "J", "e_train_j", J | E, e_train, 0},
    {"allreduce_algorithm", "", NULL, A, ar_algorithm, 0},
    {"allreduce_protocol", "", NULL, A, ar_protocol, 0},
    {"tokens", "", NULL, S, tokens, 0},
    {"tokens_per_s", "1/s", "tokens_per_s", S, tokens_s, 0},
    {"mfu", "", "mfu", 0, mfu, 0},
    {"memory", "B", NULL, 0, memory, 1},
    {"memory_capacity", "B", NULL, 0, capacity, 1},
    {"fits", "", NULL, 0, fits, 0},
    {"max_batch", "", NULL, COLS_MAX_BATCH, max_batch, 0},
};

const int n_point_columns = (int)(sizeof point_columns / sizeof point_columns[0]);

unsigned point_column_set(const point_view *v)
{
    const sm_prediction *t = &v->p->pred;
    return (v->epochs ? COLS_EPOCHS : 0u) |
           (isfinite(t->e_infer) || isfinite(t->e_step) ? COLS_ENERGY : 0u) |
           (v->tells_allreduce ? COLS_ALLREDUCE : 0u) | (is_sequence(v->net) ? COLS_SEQUENCE : 0u) |
           (v->max_batch >= 0 ? COLS_MAX_BATCH : 0u);
}

static int wanted(const point_column *c, unsigned set) { return (c->when & set) == c->when; }

void point_csv_header(FILE *out, unsigned set)
{
    const char *sep = "";
    for (int i = 0; i < n_point_columns; i++)
        if (wanted(&point_columns[i], set)) {
            fprintf(out, "%s%s", sep, point_columns[i].name);
            sep = ",";
        }
    fputc('\n', out);
}

void point_csv_row(FILE *out, unsigned set, const point_view *v)
{
    const char *sep = "";
    for (int i = 0; i < n_point_columns; i++) {
        const point_column *c = &point_columns[i];
        if (!wanted(c, set))
            continue;
        fputs(sep, out);
        sep = ",";
        cell x = c->get(v);
        if (x.kind == CELL_INT)
            fprintf(out, "%lld", (long long)x.i);
        else if (x.kind == CELL_REAL && isfinite(x.x))
            fprintf(out, c->whole ? "%.0f" : "%.6g", x.x);
        else if (x.kind == CELL_TEXT)
            csv_field(out, x.s);
    }
    fputc('\n', out);
}

void point_json_fields(json_writer *w, unsigned set, const point_view *v)
{
    for (int i = 0; i < n_point_columns; i++) {
        const point_column *c = &point_columns[i];
        if (!c->json_key || !wanted(c, set))
            continue;
        cell x = c->get(v);
        if (x.kind == CELL_INT)
            json_field_int(w, c->json_key, x.i);
        else if (x.kind == CELL_REAL)
            json_field_number(w, c->json_key, x.x);
        else if (x.kind == CELL_TEXT)
            json_field_string(w, c->json_key, x.s); /* empty: not of this point, left out */
    }
}

void point_columns_usage(FILE *out)
{
    char line[4096];
    size_t n = (size_t)snprintf(line, sizeof line, "CSV columns: ");
    for (int i = 0; i < n_point_columns && n < sizeof line; i++) {
        unsigned when = point_columns[i].when;
        int opens = when && (i == 0 || point_columns[i - 1].when != when);
        int closes = when && (i + 1 == n_point_columns || point_columns[i + 1].when != when);
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s%s%s", opens ? "[" : "", i ? "," : "",
                              point_columns[i].name, closes ? "]" : "");
    }
    /* wrapped at 80 columns, at the commas */
    for (const char *at = line; *at;) {
        size_t len = strlen(at), cut = len;
        if (len > 80) {
            for (cut = 79; cut > 0 && at[cut] != ','; cut--)
                ;
            cut = cut ? cut + 1 : len; /* the comma ends the line */
        }
        fprintf(out, "%.*s\n", (int)cut, at);
        at += cut;
    }
}

double point_value(const point_view *v, const char *name)
{
    for (int i = 0; i < n_point_columns; i++)
        if (!strcmp(point_columns[i].name, name)) {
            cell x = point_columns[i].get(v);
            return x.kind == CELL_REAL ? x.x : x.kind == CELL_INT ? (double)x.i : NAN;
        }
    return NAN;
}

void point_json_named(json_writer *w, const point_view *v, const char *name)
{
    json_field_number(w, name, point_value(v, name));
}
