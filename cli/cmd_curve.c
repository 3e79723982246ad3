/* scalemeter curve: scaling curves of one or more networks against node count, from fitted
 * coefficients or a device description, as a table, CSV, JSON or an SVG chart. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "memory_hint.h"
#include "curve_svg.h"
#include "option_values.h"
#include "output.h"
#include "point_columns.h"
#include "option_table.h"
#include "predictor_choice.h"
#include "predictor_options.h"
#include "warnings.h"
#include "scalemeter/curve.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"

#define MAX_NODES (1 << 20)
#define MAX_BATCH (INT64_C(1) << 32)
#define MAX_SWEEP OPTION_MAX_SWEEP

static void footer(void)
{
    printf("A LIST is numbers and ranges separated by commas: 64, 32,64,128 or 1:64, where A:B\n"
           "doubles from A up to B (1:64 = 1,2,4,8,16,32,64).\n"
           "efficiency = throughput(N) / (N / N0 x throughput(N0)), N0 the smallest node count\n"
           "whose point fits in memory (the first where none fits; the memory note names N0\n"
           "when it is not the first); with --shard it may exceed 1 (docs/scaling.md).\n"
           "t_epoch = ceil(D / global batch) x t_step; t_train = E x t_epoch.\n"
           "Times are seconds per step of one device; images_per_s counts the whole cluster's\n"
           "samples, tokens_per_s (sequence networks) its tokens: global batch x S / t_step.\n"
           "With --accumulate K, batch is a micro-batch, global batch = batch x K x devices,\n"
           "t_fwd and t_bwd are one micro-batch's and t_step = K (t_fwd + t_bwd) + t_grad.\n"
           "mfu: model FLOPs utilisation (PaLM's): one device's forward and backward FLOPs per\n"
           "step / (t_step x its dense peak at the precision); --device alone knows the peak.\n"
           "memory, memory_capacity, fits: bytes one device needs, its capacity, whether it fits:\n"
           "a point that does not fit shows no times in the table and is not drawn in the SVG\n"
           "(docs/memory.md)\n"
           "(the measurement CSV's columns first, so `scalemeter fit` reads it; energy where the\n"
           "calibration has it). With a description (--device), the all-reduce column says\n"
           "what one gradient bucket's all-reduce (with --shard, its reduce-scatter; with --shard\n"
           "full, the largest unit's reduce-scatter) runs at each\n"
           "node count: NCCL's algorithm and protocol for the bucket's size (nvls/Simple,\n"
           "tree/LL128, ...) or the ring.\n"
           "docs/scaling.md explains the models.\n");
    point_columns_usage(stdout);
}

typedef struct curve_args {
    predictor_options common; /* the options predict shares */
    const char *models, *output;
    opt_list_value batch_list, global_list, node_list; /* as given */
    int64_t batches[MAX_SWEEP];                        /* per device (weak) or global (strong) */
    int n_batches, strong;
    int nodes[MAX_SWEEP]; /* ascending, no repeats */
    int n_nodes;
    double threshold;
    output_format format;
} curve_args;

#define AT(member) OPT_AT(curve_args, member)

/* curve's own options; the shared ones are predictor_options.c's. */
static const opt_desc sweep_opts[] = {
    {"batch", 0, "LIST", opt_list, MAX_BATCH, AT(batch_list),
     "weak scaling: the per-device batch stays fixed"},
    {"global-batch", 0, "LIST", opt_list, MAX_BATCH, AT(global_list),
     "strong scaling: the global batch is split over the devices\n"
     "(rounded down, said on stderr; one sample a device at least);\n"
     "with --accumulate K, into K micro-batches first: a multiple of K"},
    {"nodes", 0, "LIST", opt_list, MAX_NODES, AT(node_list),
     "node counts (sorted; a repeat counts once)"},
    {"threshold", 0, "T", opt_ratio, 0, AT(threshold),
     "turning point: the node count past which one more doubling\n"
     "gains less than T in throughput (default 0.1; 10% works too)"},
};

static const opt_desc output_opts[] = {
    {"format", 0, "F", opt_format, 15, AT(format), "table (default), csv, json or svg"},
    {"output", 'o', "FILE", opt_string, 0, AT(output), "write there instead of to standard output"},
};

static const opt_command curve_command = {
    "curve", "MODEL[,MODEL...] (--batch LIST | --global-batch LIST) --nodes LIST [options]",
    "Predicts one training step per node count: forward, backward and gradient\n"
    "synchronisation time, throughput, scaling efficiency and the turning point.\n"
    "MODEL is a network file or a network of the zoo (resnet50); a comma list draws\n"
    "curves side by side. Give --coeffs FILE, --device NAME|FILE, or both.",
    footer};

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Removes repeats, keeping the first of each. */
static int unique(int64_t *v, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < m && !seen; j++)
            seen = v[j] == v[i];
        if (!seen)
            v[m++] = v[i];
    }
    return m;
}

static int parse_args(int argc, char **argv, curve_args *a)
{
    memset(a, 0, sizeof *a);
    a->threshold = SM_DEFAULT_THRESHOLD;
    a->format = FORMAT_TABLE;
    opt_group groups[2 + PREDICTOR_OPTION_GROUPS] = {OPT_GROUP("the sweep", sweep_opts, a)};
    predictor_option_groups(&a->common, groups + 1);
    groups[1 + PREDICTOR_OPTION_GROUPS] = (opt_group)OPT_GROUP("output", output_opts, a);
    int first = 0;
    if (opt_parse(&curve_command, groups, 2 + PREDICTOR_OPTION_GROUPS, argc, argv, &first))
        return -1;
    if (first < argc)
        a->models = argv[first++];
    if (first < argc) {
        fprintf(stderr,
                "scalemeter curve: networks are one comma-separated list ('%s' is "
                "another operand)\n",
                argv[first]);
        return -1;
    }
    int have_batch = a->batch_list.n > 0, have_global = a->global_list.n > 0;
    const char *problem = NULL;
    if (!a->models)
        problem = "which network? (scalemeter curve resnet50 --device h100 --batch 64 "
                  "--nodes 1:64)";
    else
        problem = predictor_options_problem(&a->common);
    if (!problem && have_batch == have_global)
        problem = "give one of --batch (weak scaling) or --global-batch (strong scaling)";
    else if (!problem && !a->node_list.n)
        problem = "which node counts? (--nodes 1:64)";
    if (problem) {
        fprintf(stderr, "scalemeter curve: %s\n", problem);
        return -1;
    }
    a->strong = have_global;
    const opt_list_value *b = have_global ? &a->global_list : &a->batch_list;
    /* the core refuses it too (curve.c), without the options' names or a usage exit */
    for (int i = 0; have_global && a->common.accumulate > 1 && i < b->n; i++)
        if (b->v[i] % a->common.accumulate) {
            fprintf(stderr,
                    "scalemeter curve: --global-batch %lld with --accumulate %lld: not a whole "
                    "number of micro-batches; give a multiple of %lld\n",
                    (long long)b->v[i], (long long)a->common.accumulate,
                    (long long)a->common.accumulate);
            return -1;
        }
    /* a batch is a curve, in the order given: one given twice is a slip (32,32 for 32,64),
     * not a set's repeat as node counts are (docs/scaling.md) */
    for (int i = 0; i < b->n; i++)
        for (int j = 0; j < i; j++)
            if (b->v[i] == b->v[j]) {
                fprintf(stderr,
                        "scalemeter curve: --%s: %lld is given twice; each batch is one "
                        "curve\n",
                        have_global ? "global-batch" : "batch", (long long)b->v[i]);
                return -1;
            }
    memcpy(a->batches, b->v, (size_t)b->n * sizeof b->v[0]);
    a->n_batches = b->n;
    int64_t nodes[MAX_SWEEP];
    memcpy(nodes, a->node_list.v, (size_t)a->node_list.n * sizeof nodes[0]);
    qsort(nodes, (size_t)a->node_list.n, sizeof nodes[0], by_value);
    a->n_nodes = unique(nodes, a->node_list.n);
    for (int i = 0; i < a->n_nodes; i++)
        a->nodes[i] = (int)nodes[i];
    return 0;
}

/* One curve of the output: a network at one batch. */
typedef struct curve_row {
    const char *model; /* as the user named it */
    const sm_network *net;
    int64_t batch; /* per device (weak) or global (strong) */
    sm_curve curve;
    double sample_flops; /* of one sample's step, for mfu (model_sample_flops) */
} curve_row;

typedef struct curve_run {
    const curve_args *args;
    sm_predictor *pred;       /* opened once the networks are read (compute) */
    predictor_choice *choice; /* what opens it */
    int gpus_per_node;
    curve_row *rows;
    int n_rows;
    warnings *warn;       /* said on stderr and in JSON's warning */
    char stdin_label[96]; /* the model read from "-": its network's name (label_stdin) */
} curve_run;

static int64_t image_of(const curve_run *r, const sm_network *net)
{
    (void)r;
    return sm_network_image(net); /* as --image or --seq set it at load */
}

/* Samples of an epoch of this network: --dataset's, or --tokens' sequences. */
static int64_t dataset_of(const curve_run *r, const sm_network *net)
{
    return dataset_samples(r->args->common.dataset, r->args->common.tokens, net);
}

/* How many curves are of sequence networks: with any, the tokens_per_s column is written; with
 * any image network, ImageNet's is its dataset unless one is given. */
static int sequence_rows(const curve_run *r)
{
    int n = 0;
    for (int k = 0; k < r->n_rows; k++)
        n += is_sequence(r->rows[k].net);
    return n;
}

static int has_image(const curve_run *r) { return sequence_rows(r) < r->n_rows; }

static int has_sequence(const curve_run *r) { return sequence_rows(r) > 0; }

/* tokens_per_s of a point of a sequence network; NAN for an image network. */
static double point_tokens_per_s(const curve_row *row, const sm_curve_point *p)
{
    return is_sequence(row->net)
               ? tokens_per_s(&p->layout, p->pred.t_step, sm_network_image(row->net))
               : NAN;
}

static double point_mfu(const curve_run *r, const curve_row *row, const sm_curve_point *p)
{
    /* the FLOPs of a step: all its micro-batches */
    return model_flops_utilisation(r->pred, row->sample_flops,
                                   p->layout.batch * sm_layout_accumulate(&p->layout),
                                   p->pred.t_step);
}

/* Throughput gained by the doubling after the turning point, per doubling. */
static double turning_gain(const sm_curve *c)
{
    const sm_curve_point *p = &c->points[c->turning], *q = &c->points[c->turning + 1];
    double doublings = log2((double)q->layout.nodes / p->layout.nodes);
    return pow(q->images_per_s / p->images_per_s, 1 / doublings) - 1;
}

/* Seconds of one pass over the dataset, and of the whole training run (0 without --epochs);
 * NAN without a dataset (a sequence network given no --tokens). */
static double epoch_time(const curve_run *r, const curve_row *row, const sm_curve_point *p)
{
    int64_t dataset = dataset_of(r, row->net);
    return dataset ? sm_epoch_time(&p->layout, p->pred.t_step, dataset) : NAN;
}

static double train_time(const curve_run *r, const curve_row *row, const sm_curve_point *p)
{
    return (double)r->args->common.epochs * epoch_time(r, row, p);
}

/* Joules of a step of the whole job, of an epoch, of the run; watts of the job. NAN where the
 * predictor does not model energy. */
static double step_energy(const sm_curve_point *p)
{
    return p->pred.e_step * (double)sm_layout_devices(&p->layout);
}

static double epoch_energy(const curve_run *r, const curve_row *row, const sm_curve_point *p)
{
    int64_t dataset = dataset_of(r, row->net);
    return dataset ? sm_epoch_steps(&p->layout, dataset) * step_energy(p) : NAN;
}

/* Whether any point has an energy: the energy columns are written then. */
static int models_energy(const curve_run *r)
{
    for (int k = 0; k < r->n_rows; k++)
        for (int i = 0; i < r->rows[k].curve.n_points; i++)
            if (isfinite(r->rows[k].curve.points[i].pred.e_step))
                return 1;
    return 0;
}

/* Whether a description's all-reduce is behind the predictor: the points then say what one
 * gradient bucket's all-reduce runs (NCCL's algorithm and protocol, or the ring). */
static int tells_allreduce(const curve_run *r)
{
    return sm_predictor_devices_per_node(r->pred) > 0;
}

/* What one bucket's all-reduce runs at a point (algorithm "none" on one device); "none" too
 * where the predictor cannot tell, which tells_allreduce keeps from the output. */
static sm_allreduce_estimate point_allreduce(const curve_run *r, const curve_row *row,
                                             const sm_curve_point *p)
{
    sm_allreduce_estimate e;
    sm_status st;
    if (sm_predictor_allreduce(r->pred, row->net, &p->layout, &e, &st) != 0)
        e = (sm_allreduce_estimate){0, "none", "-"};
    return e;
}

/* A point as the column table reads it; its all-reduce where `allreduce` asks for it (the
 * bucket's choice walks the network: column_set, which needs only whether there is one,
 * leaves it). */
static point_view view_of(const curve_run *r, const curve_row *row, const sm_curve_point *p,
                          int allreduce)
{
    const sm_curve *c = &row->curve;
    point_view v = {row->model,
                    row->net,
                    r->pred,
                    p,
                    c->turning >= 0 ? c->points[c->turning].layout.nodes : 0,
                    dataset_of(r, row->net),
                    r->args->common.tokens,
                    r->args->common.epochs,
                    tells_allreduce(r),
                    {0, "none", "-"},
                    -1,
                    row->sample_flops};
    if (v.tells_allreduce && allreduce)
        v.allreduce = point_allreduce(r, row, p);
    return v;
}

/* The columns every point needs, so that each row has the header's. */
static unsigned column_set(const curve_run *r)
{
    unsigned set = 0;
    for (int k = 0; k < r->n_rows; k++)
        for (int i = 0; i < r->rows[k].curve.n_points; i++) {
            point_view v = view_of(r, &r->rows[k], &r->rows[k].curve.points[i], 0);
            set |= point_column_set(&v);
        }
    return set;
}

static void write_csv(FILE *out, const curve_run *r)
{
    unsigned set = column_set(r);
    point_csv_header(out, set);
    for (int k = 0; k < r->n_rows; k++)
        for (int i = 0; i < r->rows[k].curve.n_points; i++) {
            point_view v = view_of(r, &r->rows[k], &r->rows[k].curve.points[i], 1);
            point_csv_row(out, set, &v);
        }
}

/* The predictor as it applies to the rows' networks: cuDNN's transposes where one has a
 * convolution. */
static const char *description_of(const curve_run *r)
{
    int conv = 0;
    for (int k = 0; k < r->n_rows; k++)
        conv |= sm_network_has_trait(r->rows[k].net, SM_TRAIT_CONVOLUTION);
    return sm_predictor_describe_for(r->pred, conv);
}

static void write_json(FILE *out, const curve_run *r)
{
    unsigned set = column_set(r);
    json_writer w;
    json_init(&w, out);
    json_begin_object(&w);
    json_field_string(&w, "predictor", description_of(r));
    json_field_string(&w, "precision", sm_predictor_precision(r->pred));
    json_field_string(&w, "scaling", r->args->strong ? "strong" : "weak");
    json_field_int(&w, "gpus_per_node", r->gpus_per_node);
    json_field_number(&w, "threshold", r->args->threshold);
    json_field_int(&w, "accumulate", r->args->common.accumulate);
    json_field_bool(&w, "overlap", r->args->common.choice.overlap);
    sm_memory_config mc; /* how the steps train, as predict's JSON says it */
    sm_predictor_memory_config(r->pred, &mc);
    json_field_string(&w, "shard", sm_shard_name(mc.shard));
    json_field_string(&w, "checkpoint", sm_checkpoint_name(mc.checkpoint));
    /* --optimizer, else each network's recipe (sm_memory_optimizer): the header says the one
     * they share, null where they differ, and each curve its own */
    const char *optimizer = NULL;
    for (int k = 0; k < r->n_rows; k++) {
        const char *own = sm_optimizer_name(sm_memory_optimizer(&mc, r->rows[k].net));
        if (k > 0 && strcmp(own, optimizer) != 0) {
            optimizer = NULL;
            break;
        }
        optimizer = own;
    }
    if (optimizer)
        json_field_string(&w, "optimizer", optimizer);
    else
        json_field_null(&w, "optimizer");
    /* with --tokens, samples differ by each network's sequence length; without a dataset
     * given, a sequence network has none (dataset_samples) */
    if (r->args->common.tokens || (!r->args->common.dataset && !has_image(r))) {
        json_field_null(&w, "dataset");
        if (r->args->common.tokens)
            json_field_int(&w, "tokens", r->args->common.tokens);
    } else {
        json_field_int(&w, "dataset",
                       r->args->common.dataset ? r->args->common.dataset : DEFAULT_DATASET);
    }
    if (r->args->common.epochs)
        json_field_int(&w, "epochs", r->args->common.epochs);
    warnings_json(r->warn, &w);
    json_key(&w, "curves");
    json_begin_array(&w);
    json_one_per_line(&w);
    for (int k = 0; k < r->n_rows; k++) {
        const curve_row *row = &r->rows[k];
        const sm_curve *c = &row->curve;
        json_begin_object(&w);
        json_field_string(&w, "model", row->model);
        json_field_string(&w, "optimizer", sm_optimizer_name(sm_memory_optimizer(&mc, row->net)));
        json_field_int(&w, is_sequence(row->net) ? "seq" : "image", image_of(r, row->net));
        json_field_int(&w, r->args->strong ? "global_batch" : "batch", row->batch);
        json_key(&w, "turning_point");
        if (c->turning >= 0) {
            json_begin_object(&w);
            json_field_int(&w, "nodes", c->points[c->turning].layout.nodes);
            json_field_int(&w, "next_nodes", c->points[c->turning + 1].layout.nodes);
            json_key(&w, "gain_per_doubling");
            json_number_digits(&w, turning_gain(c), 4);
            json_end(&w);
        } else {
            json_null(&w);
        }
        json_key(&w, "fits_from_nodes");
        if (c->fits_from >= 0 && c->points[c->fits_from].memory.fits == 1)
            json_int(&w, c->points[c->fits_from].layout.nodes);
        else
            json_null(&w);
        json_key(&w, "points");
        json_begin_array(&w);
        json_one_per_line(&w);
        for (int i = 0; i < c->n_points; i++) {
            const sm_curve_point *p = &c->points[i];
            json_begin_object(&w);
            point_view v = view_of(r, row, p, 1);
            point_json_fields(&w, set, &v);
            if (v.tells_allreduce)
                json_allreduce(&w, &v.allreduce);
            json_memory(&w, "memory", &p->memory);
            json_end(&w);
        }
        json_end(&w);
        json_end(&w);
    }
    json_end(&w);
    json_end(&w);
}

static void batch_label(const curve_run *r, int64_t batch, char *buf, size_t len)
{
    snprintf(buf, len, r->args->strong ? "global batch %lld" : "batch %lld", (long long)batch);
}

/* Where memory stops a curve: the first node count at which it fits (strong scaling), or
 * that it fits at none; a device whose memory is not known is said once. */
static void write_memory_notes(FILE *out, const curve_run *r)
{
    int unknown = 0, said = 0;
    for (int k = 0; k < r->n_rows; k++) {
        const curve_row *row = &r->rows[k];
        const sm_curve *c = &row->curve;
        int oom = 0;
        for (int i = 0; i < c->n_points; i++)
            oom |= c->points[i].memory.fits == 0;
        unknown |= c->n_points && c->points[0].memory.fits < 0;
        if (!oom)
            continue;
        char b[64], need[32], has[32];
        batch_label(r, row->batch, b, sizeof b);
        fprintf(out, "%s  %s, %s: ", said++ ? "" : "\nmemory (oom: more than the device has):\n",
                row->model, b);
        if (c->fits_from < 0) {
            /* the point that needs least (sharding divides the states by the devices, strong
             * scaling the batch; DDP's buckets double the gradients beyond one device), and
             * what would make it fit */
            const sm_curve_point *least = &c->points[0];
            for (int i = 1; i < c->n_points; i++)
                if (c->points[i].memory.peak + c->points[i].memory.context <
                    least->memory.peak + least->memory.context)
                    least = &c->points[i];
            fprintf(out,
                    "fits at no node count (needs at least %s of %s per device, at %d node%s)\n",
                    fmt_gib(least->memory.peak + least->memory.context, need, sizeof need),
                    fmt_gib(least->memory.capacity, has, sizeof has), least->layout.nodes,
                    least->layout.nodes == 1 ? "" : "s");
            memory_hint_context hc = {.choice = &r->args->common.choice,
                                      .pred = r->pred,
                                      .net = row->net,
                                      .devices = sm_layout_devices(&least->layout),
                                      .batch = least->layout.batch,
                                      .strong = r->args->strong};
            char hint[320];
            memory_hint(hint, sizeof hint, &least->memory, &hc);
            if (hint[0])
                fprintf(out, "    %s\n", hint);
        } else if (c->fits_from > 0) {
            const sm_curve_point *p = &c->points[c->fits_from];
            fprintf(out,
                    "fits from %d node%s on (batch %lld per device, %s of %s); efficiency "
                    "is against %d node%s\n",
                    p->layout.nodes, p->layout.nodes == 1 ? "" : "s", (long long)p->layout.batch,
                    fmt_gib(p->memory.peak + p->memory.context, need, sizeof need),
                    fmt_gib(p->memory.capacity, has, sizeof has), p->layout.nodes,
                    p->layout.nodes == 1 ? "" : "s");
        } else
            fprintf(out, "runs out of memory at some node counts (DDP's gradient buckets)\n");
    }
    if (unknown && r->args->common.choice.device)
        fprintf(out, "\nmemory: the device's capacity is not known (the description has no "
                     "memory_gib)\n");
    else if (unknown)
        fprintf(out, "\nmemory: the device's capacity is not known (a calibration alone); "
                     "--device D says whether it fits\n");
}

static void write_table(FILE *out, const curve_run *r)
{
    fprintf(out, "%s\n%s scaling, %d device%s per node; times per step of one device; ",
            description_of(r), r->args->strong ? "strong" : "weak", r->gpus_per_node,
            r->gpus_per_node == 1 ? "" : "s");
    if (r->args->common.accumulate > 1)
        fprintf(out, "a step is %lld micro-batches of the batch, t_fwd and t_bwd one's; ",
                (long long)r->args->common.accumulate);
    const predictor_options *o = &r->args->common;
    if (o->tokens || o->dataset)
        fprintf(out, "an epoch is %lld %s", (long long)(o->tokens ? o->tokens : o->dataset),
                o->tokens ? "tokens" : "samples");
    else if (!has_sequence(r))
        fprintf(out, "an epoch is %lld samples", (long long)DEFAULT_DATASET);
    else if (has_image(r))
        fprintf(out,
                "an epoch is %lld samples of an image network (of a sequence network: "
                "give --tokens T)",
                (long long)DEFAULT_DATASET);
    else
        fprintf(out, "no epoch without --tokens T (the corpus in tokens)");
    if (r->args->common.epochs)
        fprintf(out, ", training %lld epoch%s", (long long)r->args->common.epochs,
                r->args->common.epochs == 1 ? "" : "s");
    fputs("\n\n", out);
    int energy = models_energy(r), allreduce = tells_allreduce(r);
    int n_cols = 13 + (r->args->common.epochs != 0);
    /* sequence networks: tokens/s where images/s was; beside it where images are drawn too */
    int sequence = has_sequence(r), all_sequence = !has_image(r);
    const char *headers[20] = {"model",    "batch",      "global",  "nodes",  "devices",
                               "t_fwd",    "t_bwd",      "t_grad",  "t_step", "memory",
                               "images/s", "efficiency", "t_epoch", "t_train"};
    if (energy) {
        headers[n_cols++] = "power";
        headers[n_cols++] = "kWh/epoch";
    }
    if (allreduce)
        headers[n_cols++] = gradient_collective(r->pred);
    if (all_sequence)
        headers[10] = "tokens/s";
    else if (sequence)
        headers[n_cols++] = "tokens/s";
    headers[n_cols++] = "mfu";
    text_table *t = table_new(n_cols, headers);
    /* one unit a column: t_fwd, t_bwd, t_grad, t_step, t_epoch, t_train */
    time_unit unit[6];
    for (int j = 0; j < 6; j++)
        unit[j] = time_unit_of(0);
    for (int k = 0; k < r->n_rows; k++)
        for (int i = 0; i < r->rows[k].curve.n_points; i++) {
            const curve_row *row = &r->rows[k];
            const sm_curve_point *p = &row->curve.points[i];
            const double v[6] = {p->pred.t_fwd,  p->pred.t_bwd,         p->pred.t_grad,
                                 p->pred.t_step, epoch_time(r, row, p), train_time(r, row, p)};
            for (int j = 0; j < 6 && p->memory.fits != 0; j++)
                time_unit_add(&unit[j], v[j]);
        }
    for (int k = 0; k < r->n_rows; k++) {
        const curve_row *row = &r->rows[k];
        for (int i = 0; i < row->curve.n_points; i++) {
            const sm_curve_point *p = &row->curve.points[i];
            char c[20][32];
            snprintf(c[0], sizeof c[0], "%lld", (long long)p->layout.batch);
            snprintf(c[1], sizeof c[1], "%lld", (long long)p->global_batch);
            snprintf(c[2], sizeof c[2], "%d", p->layout.nodes);
            snprintf(c[3], sizeof c[3], "%lld", (long long)sm_layout_devices(&p->layout));
            fmt_seconds_in(p->pred.t_fwd, &unit[0], c[4], sizeof c[4]);
            fmt_seconds_in(p->pred.t_bwd, &unit[1], c[5], sizeof c[5]);
            fmt_seconds_in(p->pred.t_grad, &unit[2], c[6], sizeof c[6]);
            fmt_seconds_in(p->pred.t_step, &unit[3], c[7], sizeof c[7]);
            fmt_rate(p->images_per_s, c[8], sizeof c[8]);
            double tps = point_tokens_per_s(row, p), mfu = point_mfu(r, row, p);
            fmt_rate(tps, c[16], sizeof c[16]);
            snprintf(c[17], sizeof c[17], isfinite(mfu) ? "%.1f%%" : "-", mfu * 100);
            if (all_sequence)
                snprintf(c[8], sizeof c[8], "%s", c[16]);
            else if (is_sequence(row->net)) /* its throughput is in the tokens/s column */
                snprintf(c[8], sizeof c[8], "-");
            snprintf(c[9], sizeof c[9], isfinite(p->efficiency) ? "%.1f%%" : "-",
                     p->efficiency * 100);
            fmt_seconds_in(epoch_time(r, row, p), &unit[4], c[10], sizeof c[10]);
            fmt_seconds_in(train_time(r, row, p), &unit[5], c[11], sizeof c[11]);
            if (isfinite(p->pred.e_step))
                fmt_watts(step_energy(p) / p->pred.t_step, c[12], sizeof c[12]);
            else
                snprintf(c[12], sizeof c[12], "-");
            /* a sequence network given no --tokens has no epoch: "-", not nan */
            double kwh = epoch_energy(r, row, p) / 3.6e6;
            snprintf(c[13], sizeof c[13], isfinite(p->pred.e_step) && isfinite(kwh) ? "%.4g" : "-",
                     kwh);
            fmt_memory(&p->memory, c[15], sizeof c[15]);
            if (p->memory.fits == 0) /* it cannot run: no time, power or energy as if it could */
                for (int j = 4; j <= 17; j++)
                    if (j != 14 && j != 15)
                        snprintf(c[j], sizeof c[j], "-");
            const char *cells[20] = {row->model, c[0], c[1],  c[2], c[3], c[4],  c[5],
                                     c[6],       c[7], c[15], c[8], c[9], c[10], c[11]};
            int n = 13 + (r->args->common.epochs != 0);
            if (energy) {
                cells[n++] = c[12];
                cells[n++] = c[13];
            }
            if (allreduce) {
                sm_allreduce_estimate e = point_allreduce(r, row, p);
                cells[n++] = fmt_allreduce(&e, c[14], sizeof c[14]);
            }
            if (sequence && !all_sequence)
                cells[n++] = c[16];
            cells[n++] = c[17];
            table_add(t, cells);
        }
    }
    table_print(t, out);
    table_free(t);
    write_memory_notes(out, r);
    fprintf(out,
            "\nturning points (one more doubling of nodes gains less than %g%% "
            "throughput, among the points that fit):\n",
            r->args->threshold * 100);
    for (int k = 0; k < r->n_rows; k++) {
        const curve_row *row = &r->rows[k];
        const sm_curve *c = &row->curve;
        char b[64];
        batch_label(r, row->batch, b, sizeof b);
        int at = c->turning >= 0 ? c->points[c->turning].layout.nodes : 0;
        int to = sm_curve_fits_to(c), fit = to >= 0 ? c->points[to].layout.nodes : 0;
        if (c->turning >= 0)
            fprintf(out, "  %s, %s: %d node%s (doubling to %d gains %.1f%%)\n", row->model, b, at,
                    at == 1 ? "" : "s", c->points[c->turning + 1].layout.nodes,
                    turning_gain(c) * 100);
        else if (fit > 0)
            fprintf(out, "  %s, %s: none up to %d node%s%s\n", row->model, b, fit,
                    fit == 1 ? "" : "s",
                    fit < c->points[c->n_points - 1].layout.nodes ? ", the most that fit" : "");
        else
            fprintf(out, "  %s, %s: none (no point fits)\n", row->model, b);
    }
}

static int write_svg(FILE *out, const curve_run *r)
{
    const curve_args *a = r->args;
    int several_models = r->n_rows > a->n_batches;
    /* on the heap: 51,200 curves of labels overflowed an 8 MiB stack */
    svg_series *series = malloc((size_t)r->n_rows * sizeof *series);
    char(*labels)[160] = malloc((size_t)r->n_rows * sizeof *labels);
    if (!series || !labels) {
        free(series), free(labels);
        fprintf(stderr, "scalemeter curve: out of memory for %d curves\n", r->n_rows);
        return -1;
    }
    for (int k = 0; k < r->n_rows; k++) {
        char b[64];
        batch_label(r, r->rows[k].batch, b, sizeof b);
        if (several_models && a->n_batches == 1)
            snprintf(labels[k], sizeof labels[k], "%s", r->rows[k].model);
        else if (!several_models && a->n_batches > 1)
            snprintf(labels[k], sizeof labels[k], "%s", b);
        else
            snprintf(labels[k], sizeof labels[k], "%s, %s", r->rows[k].model, b);
        series[k] = (svg_series){labels[k], &r->rows[k].curve};
    }
    /* "Weak scaling of resnet50 on h100, batch 64 per device"; several models: the legend
     * names them */
    char title[640], of[200] = "", x_label[96], b[64] = "";
    if (!several_models)
        snprintf(of, sizeof of, " of %.180s", a->models);
    if (a->n_batches == 1)
        snprintf(b, sizeof b, a->strong ? ", global batch %lld" : ", batch %lld per device",
                 (long long)a->batches[0]);
    char on[240];
    if (a->common.choice.coeffs && a->common.choice.device)
        snprintf(on, sizeof on, "%.100s with %.100s's all-reduce", a->common.choice.coeffs,
                 a->common.choice.device);
    else
        snprintf(on, sizeof on, "%.100s",
                 a->common.choice.device ? a->common.choice.device : a->common.choice.coeffs);
    snprintf(title, sizeof title, "%s scaling%s on %s%s", a->strong ? "Strong" : "Weak", of, on, b);
    snprintf(x_label, sizeof x_label, "nodes (%d device%s each, log2 scale)", r->gpus_per_node,
             r->gpus_per_node == 1 ? "" : "s");
    /* the plotted throughput is samples/s: images of an image network, sequences of a
     * sequence network (whose tokens/s the table and CSV give) */
    const char *y_label = !has_sequence(r) ? "images/s"
                          : !has_image(r)  ? "sequences/s"
                                           : "samples/s: images or sequences";
    svg_chart chart = {title, description_of(r), x_label, y_label, a->threshold, series, r->n_rows};
    curve_svg_write(out, &chart);
    free(series), free(labels);
    return 0;
}

static int write_output(const curve_run *r)
{
    FILE *out = stdout;
    int rc = output_to("curve", r->args->output);
    if (rc)
        return rc;
    switch (r->args->format) {
    case FORMAT_CSV:
        write_csv(out, r);
        break;
    case FORMAT_JSON:
        write_json(out, r);
        break;
    case FORMAT_SVG:
        if (write_svg(out, r))
            return 1;
        break;
    case FORMAT_TABLE:
        write_table(out, r);
        break;
    }
    return 0; /* a failed write is output_finish's to say, once, with its reason */
}

/* Every point's epoch and training run within the bounds of a phase (sm_check_totals): 0, or
 * -1 with the message of the first beyond them. */
static int check_totals(const curve_run *r, sm_status *st)
{
    for (int k = 0; k < r->n_rows; k++)
        for (int i = 0; i < r->rows[k].curve.n_points; i++)
            if (sm_check_totals(r->rows[k].model, &r->rows[k].curve.points[i].layout,
                                &r->rows[k].curve.points[i].pred, dataset_of(r, r->rows[k].net),
                                r->args->common.epochs, st))
                return -1;
    return 0;
}

/* What the predictor warns about, over every point: each warning once, naming the models or
 * the batches and node counts it applies to. */
static int gather_warnings(curve_run *r)
{
    for (int k = 0; k < r->n_rows; k++)
        for (int i = 0; i < r->rows[k].curve.n_points; i++)
            if (warnings_add(r->warn, r->pred, r->rows[k].model, r->rows[k].net,
                             &r->rows[k].curve.points[i].layout, dataset_of(r, r->rows[k].net)) ||
                warnings_energy(r->warn, r->pred, r->rows[k].model,
                                &r->rows[k].curve.points[i].layout,
                                &r->rows[k].curve.points[i].pred))
                return -1;
    return 0;
}

/* Under strong scaling, each point whose devices do not divide the global batch: the batch
 * is rounded down to a whole number a device (the core's), said once a point on stderr and
 * not in the output, whose global column has the samples run. Every model's curve has the
 * same points, so the first model's rows name them all, each once. */
static void note_rounding(const curve_run *r)
{
    const curve_args *a = r->args;
    for (int k = 0; a->strong && k < r->n_rows && k < a->n_batches; k++) {
        const curve_row *row = &r->rows[k];
        for (int i = 0; i < row->curve.n_points; i++) {
            const sm_curve_point *p = &row->curve.points[i];
            if (p->global_batch == row->batch)
                continue;
            char steps[64] = "";
            int64_t k_acc = sm_layout_accumulate(&p->layout);
            if (k_acc > 1)
                snprintf(steps, sizeof steps, " in %lld micro-batches", (long long)k_acc);
            fprintf(stderr,
                    "scalemeter curve: note: global batch %lld over %lld devices%s: %lld "
                    "each, %lld in all\n",
                    (long long)row->batch, (long long)sm_layout_devices(&p->layout), steps,
                    (long long)p->layout.batch, (long long)p->global_batch);
        }
    }
}

/* Loads every network and computes every curve; rows and networks stay for the output. -1
 * with st, -2 where an option does not fit a network, -3 where a curve cannot be computed
 * (both said on standard error). */
/* Strong scaling gives every device at least one sample of each micro-batch: a global batch
 * below the devices of a node count is the option's error (exit 2), said before any work. */
static int global_batch_too_small(const curve_args *a, int gpus_per_node)
{
    int64_t accumulate = a->common.accumulate > 1 ? a->common.accumulate : 1;
    int nodes = a->nodes[a->n_nodes - 1]; /* ascending: the most devices */
    int64_t devices = (int64_t)nodes * gpus_per_node;
    for (int b = 0; b < a->n_batches; b++) {
        int64_t micro = a->batches[b] / accumulate;
        if (micro >= devices)
            continue;
        char per[96] = "";
        if (accumulate > 1)
            snprintf(per, sizeof per, " (%lld per micro-batch of --accumulate %lld)",
                     (long long)micro, (long long)accumulate);
        fprintf(stderr,
                "scalemeter curve: --global-batch %lld%s is smaller than the %lld devices of "
                "%d node%s x %d: every device needs a sample (a global batch of at least "
                "%lld, or fewer --nodes)\n",
                (long long)a->batches[b], per, (long long)devices, nodes, nodes == 1 ? "" : "s",
                gpus_per_node, (long long)(devices * accumulate));
        return -1;
    }
    return 0;
}

/* The model read from "-" is labelled by its network's name (stdin_label), "NAME (stdin)"
 * where another model has that name. */
static void label_stdin(curve_run *r, char **models, int n_models, sm_network **nets)
{
    for (int m = 0; m < n_models; m++) {
        if (strcmp(models[m], "-"))
            continue;
        const char *name = stdin_label(nets[m], 0, r->stdin_label, sizeof r->stdin_label);
        int taken = 0;
        for (int k = 0; k < n_models; k++)
            taken |= k != m && !strcmp(models[k], name);
        stdin_label(nets[m], taken, r->stdin_label, sizeof r->stdin_label);
        models[m] = r->stdin_label;
    }
}

static int compute(curve_run *r, const sm_registry *reg, char **models, int n_models,
                   sm_network **nets, sm_status *st)
{
    const curve_args *a = r->args;
    for (int m = 0; m < n_models; m++) {
        output_reads("models", models[m]);
        int loaded = load_sized_network("curve", reg, models[m], a->common.image, a->common.seq, 0,
                                        &nets[m], st);
        if (loaded)
            return loaded;
    }
    /* without --precision, the networks' recipe's (Llama's bf16), where they name one */
    predictor_choice_take_recipe(r->choice, (const sm_network *const *)nets, n_models);
    int opened = predictor_choice_open(r->choice, &r->pred, st);
    if (opened)
        return opened == 2 ? -4 : -1;
    int per_node = sm_predictor_devices_per_node(r->pred);
    r->gpus_per_node = a->common.gpus_per_node ? (int)a->common.gpus_per_node
                       : per_node              ? per_node
                                               : 1;
    if (output_reads_refuse("curve", a->output))
        return -2; /* said: a usage error */
    label_stdin(r, models, n_models, nets);
    for (int m = 0; m < n_models; m++) {
        if (check_length_option("curve", models[m], nets[m], a->common.image, a->common.seq))
            return -2;
        if (a->common.tokens && !is_sequence(nets[m])) {
            fprintf(stderr,
                    "scalemeter curve: --tokens: %s is an image network; --dataset "
                    "counts its samples\n",
                    models[m]);
            return -2;
        }
    }
    if (a->strong && global_batch_too_small(a, r->gpus_per_node))
        return -2;
    for (int m = 0; m < n_models; m++)
        for (int b = 0; b < a->n_batches; b++) {
            curve_row *row = &r->rows[r->n_rows];
            *row = (curve_row){
                models[m], nets[m], a->batches[b], {0, NULL, -1, -1}, model_sample_flops(nets[m])};
            sm_curve_spec spec = {a->strong ? 0 : a->batches[b],
                                  a->strong ? a->batches[b] : 0,
                                  r->gpus_per_node,
                                  a->nodes,
                                  a->n_nodes,
                                  a->threshold,
                                  (int)a->common.accumulate};
            if (sm_curve_compute(r->pred, nets[m], &spec, &row->curve, st)) {
                fprintf(stderr, "scalemeter curve: %s at batch %lld: %s\n", models[m],
                        (long long)a->batches[b], st->msg);
                return -3;
            }
            r->n_rows++;
        }
    return 0;
}

int cmd_curve(int argc, char **argv)
{
    curve_args a;
    if (parse_args(argc, argv, &a))
        return 2;
    /* the model list, split at commas; a network file whose path has one is one model */
    char *list = strdup(a.models);
    char *models[MAX_SWEEP];
    int n_models = 0;
    struct stat sb;
    if (!list)
        return report_error("out of memory");
    if (stat(list, &sb) == 0 && S_ISREG(sb.st_mode)) {
        models[n_models++] = list;
    } else {
        for (char *m = list;; m++) {
            char *end = m + strcspn(m, ",");
            if (end == m) {
                fprintf(stderr, "scalemeter curve: MODEL '%s': an empty name in the list\n",
                        a.models);
                free(list);
                return 2;
            }
            if (n_models == MAX_SWEEP) {
                free(list);
                return report_error("more than 256 models");
            }
            models[n_models++] = m;
            if (!*end)
                break;
            *end = '\0';
            m = end;
        }
        /* one model given twice is a slip, as a batch is (two identical curves followed); "-"
         * twice is stdin_once's to say */
        for (int i = 0; i < n_models; i++)
            for (int j = 0; j < i; j++)
                if (!strcmp(models[i], models[j]) && strcmp(models[i], "-")) {
                    fprintf(stderr,
                            "scalemeter curve: MODEL '%s': %s is given twice; each model is "
                            "one curve\n",
                            a.models, models[i]);
                    free(list);
                    return 2;
                }
    }
    const char *what[MAX_SWEEP + 3], *given[MAX_SWEEP + 3];
    char labels[MAX_SWEEP][24];
    for (int m = 0; m < n_models; m++) {
        snprintf(labels[m], sizeof labels[m], n_models > 1 ? "MODEL %d" : "MODEL", m + 1);
        what[m] = labels[m];
        given[m] = models[m];
    }
    const predictor_choice *c = &a.common.choice;
    what[n_models] = "--coeffs", given[n_models] = c->coeffs;
    what[n_models + 1] = "--device", given[n_models + 1] = c->device;
    what[n_models + 2] = "--framework", given[n_models + 2] = c->framework;
    if (stdin_once("curve", what, given, n_models + 3)) {
        free(list);
        return 2;
    }

    sm_status st;
    predictor_choice choice = a.common.choice;
    sm_registry *reg = NULL;
    sm_network *nets[MAX_SWEEP] = {0};
    curve_run r = {.args = &a,
                   .rows = calloc((size_t)(n_models * a.n_batches), sizeof(curve_row)),
                   .warn = warnings_new()};
    int rc = 0;
    if (!r.rows || !r.warn)
        rc = report_error("out of memory");
    else if (sm_registry_open(&reg, &st))
        rc = report_error(st.msg);
    if (rc == 0) {
        r.choice = &choice;
        int computed = compute(&r, reg, models, n_models, nets, &st);
        if (computed == -4) {
            report_error(st.msg);
            rc = 2; /* an option's ("--collective ...") */
        } else if (computed == -2 || computed == -3) {
            rc = computed == -2 ? 2 : 1; /* said already: a usage error, or a model's */
        } else if (computed || check_totals(&r, &st)) {
            rc = report_error(st.msg);
        } else if (gather_warnings(&r)) {
            rc = report_error("out of memory");
        } else {
            warnings_idle_options(r.warn, &choice);
            warnings_print(r.warn, "curve");
            note_rounding(&r);
            rc = write_output(&r);
        }
    }
    for (int k = 0; k < r.n_rows; k++)
        sm_curve_free(&r.rows[k].curve);
    free(r.rows);
    warnings_free(r.warn);
    for (int m = 0; m < n_models; m++)
        sm_network_free(nets[m]);
    sm_registry_free(reg);
    sm_predictor_free(r.pred);
    free(list);
    return rc;
}
