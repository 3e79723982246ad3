/* scalemeter predict: step, epoch and throughput of a network from fitted coefficients. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "memory_hint.h"
#include "per_layer.h"
#include "option_values.h"
#include "output.h"
#include "point_columns.h"
#include "option_table.h"
#include "predictor_choice.h"
#include "predictor_options.h"
#include "step_point.h"
#include "warnings.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "scalemeter/memory.h"

static void footer(void)
{
    printf("t_infer: inference forward pass; t_fwd, t_bwd: training forward and backward passes;\n"
           "t_grad: gradient synchronisation and update; t_step = K (t_fwd + t_bwd) + t_grad\n"
           "with K = --accumulate (t_fwd, t_bwd: one micro-batch's; t_grad: the step's);\n"
           "t_epoch = ceil(D / (B K N G)) x t_step; images_per_s = B K N G / t_step (samples);\n"
           "a sequence network: tokens_per_s = B K N G S / t_step. mfu (model FLOPs utilisation,\n"
           "PaLM's): one device's forward and backward FLOPs per step / (t_step x its dense peak\n"
           "at the precision), known with --device alone. A phase the calibration\n"
           "did not measure is shown as - (null in JSON). A layout the calibration never saw "
           "(several\n"
           "devices after a single-device fit, a batch beyond the fitted range) is warned about.\n"
           "Coefficients fitted with energy (docs/energy.md) add e_infer and e_step (joules, all\n"
           "devices), e_epoch and e_train (kWh) and power (W, the job's average over a step).\n"
           "With --device, all-reduce says what one gradient bucket's all-reduce runs (with\n"
           "--shard, its reduce-scatter; --shard full, the largest unit's): NCCL's algorithm and "
           "protocol for its size, or the\n"
           "ring (CSV: allreduce_algorithm, allreduce_protocol; JSON: allreduce, with the\n"
           "bucket's seconds).\n"
           "memory: what one device holds while training (weights, gradients, optimizer state,\n"
           "the activations kept for backward, workspace, the context) against its capacity;\n"
           "a batch that does not fit shows no times in the table (JSON: memory.fits false;\n"
           "memory_infer: inference's peak; docs/memory.md).\n"
           "The CSV has curve's columns for the one point (docs/output.md), max_batch with\n"
           "--max-batch:\n");
    point_columns_usage(stdout);
}

typedef struct predict_args {
    predictor_options common; /* the options curve shares */
    const char *model, *output;
    int64_t batch, nodes;
    int per_block, per_layer, max_batch;
    int max_infer_batch; /* --max-infer-batch */
    int kv_cache;        /* --kv-cache */
    output_format format;
} predict_args;

#define AT(member) OPT_AT(predict_args, member)
#define MAX_BATCH STEP_MAX_BATCH

/* predict's own options; the shared ones are predictor_options.c's. */
static const opt_desc step_opts[] = {
    {"batch", 0, "B", opt_int, MAX_BATCH, AT(batch),
     "per-device batch (with --accumulate: of one micro-batch)"},
    {"max-batch", 0, NULL, opt_flag, 0, AT(max_batch),
     "instead of --batch: the largest per-device batch whose training\n"
     "memory fits the device (needs --device: its memory_gib); with\n"
     "--accumulate, the largest micro-batch"},
    {"max-infer-batch", 0, NULL, opt_flag, 0, AT(max_infer_batch),
     "instead of --batch: the largest per-device batch whose inference\n"
     "memory fits the device (needs --device; with --kv-cache, the keys\n"
     "and values returned counted)"},
    {"nodes", 0, "N", opt_int, 1 << 20, AT(nodes), "nodes (default 1)"},
    {"per-block", 0, NULL, opt_flag, 0, AT(per_block),
     "forward time of every block: the forward equation on the block's\n"
     "F, I, O, with the intercept c4 shared out over the blocks in\n"
     "proportion to their FLOPs (--device: its layers' times; queued,\n"
     "what they add to the pass); the blocks add up to t_fwd"},
    {"per-layer", 0, NULL, opt_flag, 0, AT(per_layer),
     "(--device) instead of the step: every layer's forward and backward\n"
     "time, what of it the device waits on the host's dispatch, and\n"
     "what limits each pass\n"
     "(compute, memory or host); they add up to t_fwd and t_bwd"},
    {"kv-cache", 0, NULL, opt_flag, 0, AT(kv_cache),
     "every attention layer returns its keys and values to the end of\n"
     "an inference pass, as Hugging Face's causal LMs do (use_cache):\n"
     "memory_infer counts them (each layer read with kv_cache=true;\n"
     "docs/memory.md)"},
};

static const opt_desc output_opts[] = {
    {"format", 0, "F", opt_format, 1u << FORMAT_TABLE | 1u << FORMAT_CSV | 1u << FORMAT_JSON,
     AT(format), "table (default), csv or json"},
    {"output", 'o', "FILE", opt_string, 0, AT(output),
     "write there instead of the standard output"},
};

static const opt_command predict_command = {
    "predict", "MODEL (--batch B | --max-batch | --max-infer-batch) [options]",
    "Predicts the times of one step of MODEL (a network file or a zoo name): curve's\n"
    "one-point case, the same options giving the same numbers.",
    footer};

static int parse_args(int argc, char **argv, predict_args *a)
{
    *a = (predict_args){.nodes = 1, .format = FORMAT_TABLE};
    opt_group groups[2 + PREDICTOR_OPTION_GROUPS] = {OPT_GROUP("the step", step_opts, a)};
    predictor_option_groups(&a->common, groups + 1);
    groups[1 + PREDICTOR_OPTION_GROUPS] = (opt_group)OPT_GROUP("output", output_opts, a);
    int optind_ = 0;
    if (opt_parse(&predict_command, groups, 2 + PREDICTOR_OPTION_GROUPS, argc, argv, &optind_))
        return -1;
    if (optind_ < argc)
        a->model = argv[optind_++];
    if (optind_ < argc) {
        fprintf(stderr,
                "scalemeter predict: one network at a time ('%s' is a second one; "
                "scalemeter curve takes several)\n",
                argv[optind_]);
        return -1;
    }
    const char *problem = NULL;
    predictor_choice *c = &a->common.choice;
    if (!a->model)
        problem = "which network? (scalemeter predict resnet50 --batch 32)";
    else if (!!a->batch + a->max_batch + a->max_infer_batch != 1)
        problem = "give --batch B (the per-device batch), --max-batch (the largest whose "
                  "training fits) or --max-infer-batch (whose inference fits), one of the three";
    else if ((a->max_batch || a->max_infer_batch) && !c->device)
        problem = a->max_batch ? "--max-batch needs --device NAME, whose memory_gib says how "
                                 "much memory there is"
                               : "--max-infer-batch needs --device NAME, whose memory_gib says "
                                 "how much memory there is";
    else if (a->per_block && a->format == FORMAT_CSV)
        problem = "--per-block: --format table or json (a CSV has one shape of row)";
    else if (a->per_layer && a->per_block)
        problem = "--per-layer or --per-block, one of the two";
    else if (a->per_layer && !c->device)
        problem = "--per-layer needs --device NAME: a calibration's coefficients price whole "
                  "passes, a description each layer";
    else if (a->per_layer && c->coeffs)
        problem = "--per-layer prices each layer on --device alone: beside it --coeffs prices "
                  "the passes, whole";
    if (!c->coeffs && !c->device)
        c->coeffs = "default";
    if (!problem)
        problem = predictor_options_problem(&a->common);
    if (problem) {
        fprintf(stderr, "scalemeter predict: %s\n", problem);
        return -1;
    }
    const char *what[] = {"MODEL", "--coeffs", "--device", "--framework"};
    const char *given[] = {a->model, c->coeffs, c->device, c->framework};
    return stdin_once("predict", what, given, 4);
}

/* The point as the column table reads it (pt: step_curve_point's, kept by the caller). */
static point_view view_of(const predict_args *a, const sm_network *net, const sm_predictor *p,
                          const sm_curve_point *pt, const sm_allreduce_estimate *ar,
                          const step_memory *mem)
{
    point_view v = {a->model,
                    net,
                    p,
                    pt,
                    0,
                    a->common.dataset,
                    a->common.tokens,
                    a->common.epochs,
                    ar != NULL,
                    {0, "none", "-"},
                    mem->max_batch,
                    model_sample_flops(net)};
    if (ar)
        v.allreduce = *ar;
    return v;
}

static void print_json(const predict_args *a, const sm_network *net, const sm_predictor *p,
                       const sm_layout *l, const sm_prediction *t, const sm_allreduce_estimate *ar,
                       const double *blocks, warnings *warn, const step_memory *mem)
{
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_field_string(&w, "model", a->model); /* as typed, as the CSV and curve name it */
    int conv = sm_network_has_trait(net, SM_TRAIT_CONVOLUTION);
    json_field_string(&w, "coeffs", sm_predictor_describe_for(p, conv));
    json_field_string(&w, "precision", sm_predictor_precision(p));
    sm_memory_config mc;
    sm_predictor_memory_config(p, &mc);
    json_field_string(&w, "shard", sm_shard_name(mc.shard));
    json_field_string(&w, "checkpoint", sm_checkpoint_name(mc.checkpoint));
    json_field_bool(&w, "kv_cache", a->kv_cache);
    json_field_string(&w, "optimizer", sm_optimizer_name(sm_memory_optimizer(&mc, net)));
    json_field_int(&w, "batch", l->batch);
    json_field_int(&w, "accumulate", sm_layout_accumulate(l));
    json_field_int(&w, "nodes", l->nodes);
    json_field_int(&w, "gpus_per_node", l->gpus_per_node);
    json_field_int(&w, is_sequence(net) ? "seq" : "image", sm_network_image(net));
    json_key(&w, "dataset"); /* samples; null: none known (a sequence network, no --tokens) */
    if (a->common.dataset)
        json_int(&w, a->common.dataset);
    else
        json_null(&w);
    if (a->common.tokens)
        json_field_int(&w, "tokens", a->common.tokens);
    /* the values of the column table, in predict's order of keys */
    sm_curve_point pt = step_curve_point(l, t, mem);
    point_view v = view_of(a, net, p, &pt, ar, mem);
    const char *times[] = {"t_infer", "t_fwd", "t_bwd", "t_grad", "t_step", "t_epoch"};
    for (int i = 0; i < 6; i++)
        point_json_named(&w, &v, times[i]);
    /* a sequence network's throughput is in tokens */
    point_json_named(&w, &v, is_sequence(net) ? "tokens_per_s" : "images_per_s");
    point_json_named(&w, &v, "mfu");
    if (a->common.epochs) {
        json_field_int(&w, "epochs", a->common.epochs);
        point_json_named(&w, &v, "t_train");
    }
    warnings_json(warn, &w);
    if (point_column_set(&v) & COLS_ENERGY) {
        const char *energy[] = {"e_infer_j", "e_step_j", "e_epoch_j", "power_w", "e_train_j"};
        for (int i = 0; i < (a->common.epochs ? 5 : 4); i++)
            point_json_named(&w, &v, energy[i]);
    }
    if (ar)
        json_allreduce(&w, ar);
    if (mem->max_batch >= 0) {
        json_field_int(&w, "max_batch", mem->max_batch);
        json_field_string(&w, "max_batch_of", mem->max_of_inference ? "inference" : "training");
    }
    json_memory(&w, "memory", &mem->train);
    json_memory(&w, "memory_infer", &mem->infer);
    if (blocks) {
        json_key(&w, "per_block");
        json_begin_array(&w);
        json_one_per_line(&w);
        for (int b = 0; b < net->n_blocks; b++) {
            json_begin_object(&w);
            json_field_string(&w, "name", net->blocks[b]);
            json_field_number(&w, "t_fwd", blocks[b]);
            json_end(&w);
        }
        json_end(&w);
    }
    json_end(&w);
}

static void print_csv(const predict_args *a, const sm_network *net, const sm_predictor *p,
                      const sm_layout *l, const sm_prediction *t, const sm_allreduce_estimate *ar,
                      const step_memory *mem)
{
    sm_curve_point pt = step_curve_point(l, t, mem);
    point_view v = view_of(a, net, p, &pt, ar, mem);
    unsigned set = point_column_set(&v);
    point_csv_header(stdout, set);
    point_csv_row(stdout, set, &v);
}

/* The memory rows of the table: what one device holds, against its capacity. */
static void memory_rows(const predict_args *a, const sm_network *net, const sm_predictor *p,
                        const sm_layout *l, text_table *tab, const step_memory *mem)
{
    const sm_memory *m = &mem->train;
    char v[32], meaning[400], has[32], state[64]; /* table_add copies the cells */
    sm_memory_config mc;
    sm_predictor_memory_config(p, &mc);
    /* which optimizer: the framework's, --optimizer's, or the network's recipe */
    snprintf(state, sizeof state, "the optimizer's state (%s%s)",
             sm_optimizer_name(sm_memory_optimizer(&mc, net)),
             mc.master_in_optimizer ? ", fp32 master weights" : "");
    /* a cast model's parameters are 16-bit, its gradients in the buckets themselves */
    int cast = mc.param_bytes > 0 && mc.param_bytes <= 2;
    const struct {
        const char *name;
        double bytes;
        const char *meaning;
    } rows[] = {{"weights", m->weights, cast ? "16-bit weights" : "fp32 (master) weights"},
                {"gradients", m->gradients,
                 mc.grad_is_bucket ? "gradients, in the reduce's buckets"
                                   : "fp32 gradients (and DDP's buckets)"},
                {"optimizer", m->optimizer, state},
                {"activations", m->activations, "kept for the backward pass"},
                {"backward", m->backward, "above those kept: gradients, recomputation"},
                {"workspace", m->workspace + m->context, "libraries' workspace and context"}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const char *row[] = {rows[i].name, fmt_gib(rows[i].bytes, v, sizeof v), rows[i].meaning};
        table_add(tab, row);
    }
    const sm_memory *inf = &mem->infer;
    snprintf(meaning, sizeof meaning, "inference: weights and the peak of live tensors%s%s%s",
             a->kv_cache ? " with the returned keys and values" : "",
             inf->fits < 0 ? ""
             : inf->fits   ? ", fits in "
                           : ", DOES NOT FIT in ",
             inf->fits < 0 ? "" : fmt_gib(inf->capacity, has, sizeof has));
    const char *irow[] = {"memory_infer", fmt_memory(inf, v, sizeof v), meaning};
    table_add(tab, irow);
    if (m->fits < 0)
        snprintf(meaning, sizeof meaning, "training, one device (capacity not known: %s)",
                 a->common.choice.device ? "the description has no memory_gib"
                                         : "--device D tells");
    else
        snprintf(meaning, sizeof meaning, "training, one device: %s %s",
                 m->fits ? "fits in" : "DOES NOT FIT in", fmt_gib(m->capacity, has, sizeof has));
    const char *row[] = {"memory", fmt_memory(m, v, sizeof v), meaning};
    table_add(tab, row);
    if (mem->max_batch < 0) {
        char hint[sizeof meaning];
        step_fit_hint(hint, sizeof hint, &a->common.choice, net, p, l, m);
        const char *hrow[] = {"to fit", "-", hint};
        if (hint[0])
            table_add(tab, hrow);
    } else {
        snprintf(v, sizeof v, "%lld", (long long)mem->max_batch);
        /* nothing fits: what the planner can still change, from what is most of one sample's
         * memory (step_predict has the layout at batch 1 then; a fixed list sent an 8B model's
         * 120 GiB of states after --checkpoint full) */
        char hint[sizeof meaning - 64] = ""; /* room for the words before it */
        if (mem->max_batch == 0 && !mem->max_of_inference)
            step_fit_hint(hint, sizeof hint, &a->common.choice, net, p, l, m);
        else if (mem->max_batch == 0) /* the weights and one sample's tensors: the weights' share */
            snprintf(hint, sizeof hint, "the weights are %s of it",
                     fmt_gib(inf->weights, has, sizeof has));
        snprintf(meaning, sizeof meaning, "not even one sample per device fits%s%s%s",
                 mem->max_of_inference ? " at inference" : "", hint[0] ? ": " : "", hint);
        const char *mb[] = {"max_batch", v,
                            !mem->max_batch         ? meaning
                            : mem->max_of_inference ? "the largest per-device batch whose "
                                                      "inference fits"
                                                    : "the largest per-device batch that fits"};
        table_add(tab, mb);
    }
}

static void print_table(const predict_args *a, const sm_network *net, const sm_predictor *p,
                        const sm_layout *l, const sm_prediction *t, const sm_allreduce_estimate *ar,
                        const double *blocks, const step_memory *mem)
{
    char shape[96], buf[64], micro[64] = "";
    int k = sm_layout_accumulate(l);
    if (k > 1)
        snprintf(micro, sizeof micro, " x %d micro-batches a step", k);
    printf("%s (%s), input %s, batch %lld per device%s, %d node%s x %d device%s\n"
           "coefficients: %s\n\n",
           heading_name(net, a->model), net->path, sm_shape_str(&net->input, shape, sizeof shape),
           (long long)l->batch, micro, l->nodes, l->nodes > 1 ? "s" : "", l->gpus_per_node,
           l->gpus_per_node > 1 ? "s" : "",
           sm_predictor_describe_for(p, sm_network_has_trait(net, SM_TRAIT_CONVOLUTION)));
    const char *headers[] = {"quantity", "value", "meaning"};
    text_table *tab = table_new(3, headers);
    /* the values are the column table's, as the CSV and curve have them */
    sm_curve_point pt = step_curve_point(l, t, mem);
    point_view v = view_of(a, net, p, &pt, ar, mem);
    const struct {
        const char *name, *meaning;
    } rows[] = {
        {"t_infer", "inference forward pass"},
        {"t_fwd", k > 1 ? "training forward pass, one micro-batch" : "training forward pass"},
        {"t_bwd", k > 1 ? "backward pass, one micro-batch" : "backward pass"},
        {"t_grad", k > 1 ? "gradient synchronisation and update, once a step"
                         : "gradient synchronisation and update"},
        {"t_step", k > 1 ? "K (t_fwd + t_bwd) + t_grad" : "t_fwd + t_bwd + t_grad"},
        {"t_epoch", a->common.dataset ? "one pass over the dataset"
                                      : "one pass over the dataset: --tokens T gives it"},
    };
    /* what cannot run shows no time as if it could: inference by its own memory */
    int oom = mem->train.fits == 0, oom_infer = mem->infer.fits == 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double value = point_value(&v, rows[i].name);
        int blank = i == 0 ? oom_infer : oom;
        const char *row[] = {rows[i].name, blank ? "-" : fmt_seconds(value, buf, sizeof buf),
                             rows[i].meaning};
        table_add(tab, row);
    }
    if (a->common.epochs) {
        char meaning[64];
        snprintf(meaning, sizeof meaning, "time to train: %lld epochs",
                 (long long)a->common.epochs);
        const char *row[] = {"t_train",
                             oom ? "-" : fmt_seconds(point_value(&v, "t_train"), buf, sizeof buf),
                             meaning};
        table_add(tab, row);
    }
    double ips = point_value(&v, "images_per_s");
    if (!oom)
        fmt_rate(ips, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "-");
    if (is_sequence(net)) {
        double tps = point_value(&v, "tokens_per_s");
        if (!oom)
            fmt_rate(tps, buf, sizeof buf);
        else
            snprintf(buf, sizeof buf, "-");
        const char *trow[] = {"tokens_per_s", buf, "tokens per second, all devices"};
        table_add(tab, trow);
    } else {
        const char *row[] = {"images_per_s", buf, "samples per second, all devices"};
        table_add(tab, row);
    }
    double mfu = point_value(&v, "mfu");
    if (isfinite(mfu) && !oom)
        snprintf(buf, sizeof buf, "%.1f%%", mfu * 100);
    else
        snprintf(buf, sizeof buf, "-");
    const char *mrow[] = {"mfu", buf,
                          isfinite(mfu) ? "model FLOPs utilisation: (F + Fb) / (t_step x peak)"
                                        : "model FLOPs utilisation: --device tells the peak"};
    table_add(tab, mrow);
    if (ar) {
        char what[96] = "nothing sent on one device";
        if (strcmp(ar->algorithm, "none"))
            snprintf(what, sizeof what, "%s %s (%s)",
                     fully_sharded(p) ? "the largest FSDP unit's" : "one gradient bucket's",
                     gradient_collective(p), fmt_seconds(ar->seconds, buf, sizeof buf));
        char label[40];
        const char *ar_row[] = {"all-reduce", fmt_allreduce(ar, label, sizeof label), what};
        table_add(tab, ar_row);
    }
    memory_rows(a, net, p, l, tab, mem);
    if (point_column_set(&v) & COLS_ENERGY) {
        const struct {
            const char *name;
            double v;
            const char *unit, *meaning;
        } erows[] = {
            {"e_infer", point_value(&v, "e_infer_j"), "J", "inference pass, all devices"},
            {"e_step", point_value(&v, "e_step_j"), "J", "training step, all devices"},
            {"e_epoch", point_value(&v, "e_epoch_j") / 3.6e6, "kWh", "one pass over the dataset"},
            {"power", point_value(&v, "power_w"), "W", "average over a step, all devices"},
            {"e_train", point_value(&v, "e_train_j") / 3.6e6, "kWh", "the whole training run"}};
        for (int i = 0; i < (a->common.epochs ? 5 : 4); i++) {
            char text[64];
            if (!isfinite(erows[i].v) || (i == 0 ? oom_infer : oom))
                snprintf(text, sizeof text, "-");
            else if (!strcmp(erows[i].unit, "W"))
                fmt_watts(erows[i].v, text, sizeof text);
            else
                snprintf(text, sizeof text, "%.4g %s", erows[i].v, erows[i].unit);
            const char *er[] = {erows[i].name, text, erows[i].meaning};
            table_add(tab, er);
        }
    }
    table_print(tab, stdout);
    table_free(tab);
    if (!blocks)
        return;
    if (oom) {
        printf("\nforward time per block: none, the configuration does not fit (memory)\n");
        return;
    }
    const char *bh[] = {"block", "t_fwd", "share"};
    tab = table_new(3, bh);
    time_unit unit = time_unit_of(0); /* one for the column */
    for (int b = 0; b < net->n_blocks; b++)
        time_unit_add(&unit, blocks[b]);
    for (int b = 0; b < net->n_blocks; b++) {
        char tb[32], share[32];
        fmt_seconds_in(blocks[b], &unit, tb, sizeof tb);
        snprintf(share, sizeof share, isfinite(t->t_fwd) ? "%.1f%%" : "-",
                 100.0 * blocks[b] / t->t_fwd);
        const char *r[] = {net->blocks[b], tb, share};
        table_add(tab, r);
    }
    printf("\nforward time per block (intercept shared out by FLOPs):\n");
    table_print(tab, stdout);
    table_free(tab);
}

/* A prediction the model's sizes make impossible (counts past 64 bits) names the model. */
static int model_error(const predict_args *a, const char *msg)
{
    fprintf(stderr, "scalemeter predict: %s: %s\n", a->model, msg);
    return 1;
}

/* --per-layer: the step's passes layer by layer, for a step that runs; where training does not
 * fit the device and inference does, the inference pass alone (predict's table shows t_infer
 * alone there too); where neither fits, what does not fit and what shrinks it instead. */
static int per_layer(const predict_args *a, const sm_network *net, const sm_predictor *p,
                     const sm_layout *l, const sm_prediction *t, const step_memory *mem,
                     warnings *warn)
{
    const sm_memory *m = &mem->train;
    int infer_only = m->fits == 0 && mem->infer.fits != 0;
    if (m->fits == 0 && !infer_only) {
        char need[32], has[32], hint[512];
        step_fit_hint(hint, sizeof hint, &a->common.choice, net, p, l, m);
        fprintf(stderr,
                "scalemeter predict: %s: training at batch %lld needs %s a device and does not fit "
                "in %s, so it has no layer times%s%s\n",
                a->model, (long long)l->batch, fmt_gib(m->peak + m->context, need, sizeof need),
                fmt_gib(m->capacity, has, sizeof has), hint[0] ? ": " : "", hint);
        return 1;
    }
    int rc = output_to("predict", a->output);
    if (rc)
        return rc;
    sm_status st;
    return per_layer_print(stdout, a->format, a->model, net, p, l, t, infer_only, warn, &st)
               ? model_error(a, st.msg)
               : 0;
}

static int run(const predict_args *a, const sm_network *net, const sm_predictor *p)
{
    sm_status st;
    sm_layout l;
    step_memory mem;
    sm_prediction t;
    int max = a->max_batch ? STEP_MAX_TRAIN : a->max_infer_batch ? STEP_MAX_INFER : 0;
    if (step_predict(&a->common, a->batch, a->nodes, max, net, p, &l, &mem, &t, &st))
        return model_error(a, st.msg);
    /* said as curve says them: predict is its one-row case */
    warnings *warn = warnings_new();
    if (!warn || warnings_add(warn, p, a->model, net, &l, a->common.dataset) ||
        warnings_energy(warn, p, a->model, &l, &t)) {
        warnings_free(warn);
        return report_error("out of memory");
    }
    warnings_idle_options(warn, &a->common.choice);
    warnings_print(warn, "predict");
    if (a->per_layer) {
        int rc = per_layer(a, net, p, &l, &t, &mem, warn);
        warnings_free(warn);
        return rc;
    }
    double *blocks = NULL;
    if (a->per_block) {
        blocks = calloc((size_t)(net->n_blocks ? net->n_blocks : 1), sizeof *blocks);
        int failed = !blocks                                      ? report_error("out of memory")
                     : sm_predict_blocks(p, net, &l, blocks, &st) ? model_error(a, st.msg)
                                                                  : 0;
        if (failed) {
            warnings_free(warn);
            free(blocks);
            return failed;
        }
    }
    /* with a description behind the calibration: what one gradient bucket's all-reduce runs */
    sm_allreduce_estimate ar_buf;
    int ar_rc = sm_predictor_allreduce(p, net, &l, &ar_buf, &st);
    if (ar_rc < 0) {
        warnings_free(warn);
        free(blocks);
        return report_error(st.msg);
    }
    const sm_allreduce_estimate *ar = ar_rc == 0 ? &ar_buf : NULL;
    int rc = output_to("predict", a->output);
    if (rc) {
        warnings_free(warn);
        free(blocks);
        return rc;
    }
    if (a->format == FORMAT_JSON)
        print_json(a, net, p, &l, &t, ar, blocks, warn, &mem);
    else if (a->format == FORMAT_CSV)
        print_csv(a, net, p, &l, &t, ar, &mem);
    else
        print_table(a, net, p, &l, &t, ar, blocks, &mem);
    warnings_free(warn);
    free(blocks);
    return 0;
}

int cmd_predict(int argc, char **argv)
{
    predict_args a;
    if (parse_args(argc, argv, &a))
        return 2;
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st))
        return report_error(st.msg);
    sm_network *net;
    int rc;
    output_reads("models", a.model);
    int loaded = load_sized_network("predict", reg, a.model, a.common.image, a.common.seq,
                                    a.kv_cache, &net, &st);
    if (loaded) {
        sm_registry_free(reg);
        return loaded == -2 ? 2 : report_error(st.msg);
    }
    char label[96];
    if (!strcmp(a.model, "-")) /* its rows, JSON and warnings, as curve's */
        a.model = stdin_label(net, 0, label, sizeof label);
    /* opened once the network is read: without --precision, its recipe's (Llama's bf16) */
    predictor_choice_take_recipe(&a.common.choice, (const sm_network *const *)&net, 1);
    sm_predictor *p;
    predictor_choice choice = a.common.choice;
    int opened = predictor_choice_open(&choice, &p, &st);
    if (opened) {
        sm_network_free(net);
        sm_registry_free(reg);
        return opened == 2 ? (report_error(st.msg), 2) : report_error(st.msg);
    }
    if ((rc = output_reads_refuse("predict", a.output))) {
        sm_network_free(net);
    } else if (check_length_option("predict", a.model, net, a.common.image, a.common.seq)) {
        rc = 2;
        sm_network_free(net);
    } else if (a.common.tokens && !is_sequence(net)) {
        fprintf(stderr,
                "scalemeter predict: --tokens: %s is an image network; --dataset counts "
                "its samples\n",
                a.model);
        rc = 2;
        sm_network_free(net);
    } else if (a.kv_cache && sm_network_family(net) != SM_FAMILY_TRANSFORMER) {
        /* no layer with SM_TRAIT_ATTENTION (the family says so first): else the memory_infer
         * line would say keys and values are in it, and none are */
        fprintf(stderr,
                "scalemeter predict: --kv-cache: %s has no attention layer, so no keys and "
                "values to return; leave the option out\n",
                a.model);
        rc = 2;
        sm_network_free(net);
    } else {
        a.common.dataset = dataset_samples(a.common.dataset, a.common.tokens, net);
        rc = run(&a, net, p);
        sm_network_free(net);
    }
    sm_registry_free(reg);
    sm_predictor_free(p);
    return rc;
}
