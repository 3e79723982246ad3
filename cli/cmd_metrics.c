/* scalemeter metrics: ConvMeter's metrics of a network, per network, block or layer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output.h"

static void usage(void)
{
    printf("usage: scalemeter metrics MODEL [--image N | --seq S] [--batch N]\n"
           "                          [--format table|csv|json] [--per-layer] [--per-block]\n"
           "                          [-o FILE]\n\n"
           "MODEL is a network file, the name of a network of the zoo (resnet50), or - for a\n"
           "network file on the standard input.\n"
           "  --image N     sets the input's height and width (a sequence's length)\n"
           "  --seq S       sets a sequence network's length, as predict's and curve's\n"
           "  --batch N     counts for a batch of N samples (default 1)\n"
           "  --per-layer   every layer: type, output shape and counts\n"
           "  --per-block   every block (framework module) and its counts\n"
           "  --format F    table (default), csv or json\n"
           "  -o FILE       write there instead of the standard output\n\n"
           "flops: forward FLOPs (a multiply-accumulate is 2); macs: multiply-accumulates (what\n"
           "torchvision calls GFLOPS); inputs/outputs: summed input/output elements of the\n"
           "convolutions (ConvMeter's I and O); weights: trainable parameters; layers: layers\n"
           "holding weights; param_tensors: trainable tensors; kernels: layers that do work (not\n"
           "views), ConvMeter's K; kernels_infer, kernels_fwd, kernels_bwd: kernels eager PyTorch\n"
           "launches at inference and in training's forward and backward passes (the plugins'\n"
           "counts), what the device model charges dispatch for.\n");
}

typedef struct metrics_args {
    const char *model, *output;
    int64_t image, seq, batch;
    output_format format;
    int per_layer, per_block;
} metrics_args;

static int parse_args(int argc, char **argv, metrics_args *a)
{
    *a = (metrics_args){NULL, NULL, 0, 0, 1, FORMAT_TABLE, 0, 0};
    enum { IMAGE = 256, SEQ, BATCH, FORMAT, PER_LAYER, PER_BLOCK };
    static const struct option opts[] = {{"help", no_argument, 0, 'h'},
                                         {"output", required_argument, 0, 'o'},
                                         {"image", required_argument, 0, IMAGE},
                                         {"seq", required_argument, 0, SEQ},
                                         {"batch", required_argument, 0, BATCH},
                                         {"format", required_argument, 0, FORMAT},
                                         {"per-layer", no_argument, 0, PER_LAYER},
                                         {"per-block", no_argument, 0, PER_BLOCK},
                                         {0, 0, 0, 0}};
    char msg[512];
    int c, bad = 0;
    while (!bad && (c = next_option(argc, argv, "ho:", opts, msg, sizeof msg)) != -1) {
        switch (c) {
        case 'h':
            usage();
            command_exit(0);
        case 'o':
            a->output = optarg;
            break;
        case IMAGE:
            bad = parse_positive("--image", optarg, 1 << 20, &a->image);
            break;
        case SEQ:
            bad = parse_positive("--seq", optarg, 1 << 20, &a->seq);
            break;
        case BATCH:
            bad = parse_positive("--batch", optarg, INT64_C(1) << 40, &a->batch);
            break;
        case FORMAT:
            bad = parse_format(optarg, 7, &a->format);
            break;
        case PER_LAYER:
            a->per_layer = 1;
            break;
        case PER_BLOCK:
            a->per_block = 1;
            break;
        default:
            return usage_error("metrics", msg);
        }
    }
    if (bad)
        return -1;
    if (a->image && a->seq) {
        fprintf(stderr, "scalemeter metrics: --image and --seq both set the input's length: "
                        "give one\n");
        return -1;
    }
    if (optind < argc)
        a->model = argv[optind++];
    if (optind < argc) {
        fprintf(stderr, "scalemeter metrics: one network at a time ('%s' is a second one)\n",
                argv[optind]);
        return -1;
    }
    if (!a->model) {
        fprintf(stderr, "scalemeter metrics: which network? (scalemeter metrics resnet50)\n");
        return -1;
    }
    return 0;
}

#define N_METRICS 13
static const char *const names[N_METRICS] = {
    "flops",         "macs",    "bwd_flops", "inputs",        "outputs",     "weights",    "layers",
    "param_tensors", "kernels", "bytes",     "kernels_infer", "kernels_fwd", "kernels_bwd"};

static void values_of(const sm_metrics *m, int64_t v[N_METRICS])
{
    int64_t all[N_METRICS] = {m->flops,      m->macs,    m->bwd_flops,     m->inputs,
                              m->outputs,    m->weights, m->layers,        m->param_tensors,
                              m->kernels,    m->bytes,   m->kernels_infer, m->kernels_fwd,
                              m->kernels_bwd};
    memcpy(v, all, sizeof all);
}

static void json_metrics(json_writer *w, const sm_metrics *m)
{
    int64_t v[N_METRICS];
    values_of(m, v);
    for (int k = 0; k < N_METRICS; k++)
        json_field_int(w, names[k], v[k]);
}

static void json_shape(json_writer *w, const sm_shape *s)
{
    json_begin_array(w);
    for (int d = 0; d < s->ndim; d++)
        json_int(w, s->dim[d]);
    json_end(w);
}

static void csv_row(const char *scope, const char *name, const char *type, const char *shape,
                    const sm_metrics *m)
{
    int64_t v[N_METRICS];
    values_of(m, v);
    printf("%s,", scope);
    csv_field(stdout, name);
    printf(",%s,%s", type, shape);
    for (int k = 0; k < N_METRICS; k++)
        printf(",%lld", (long long)v[k]);
    putchar('\n');
}

static void table_row(text_table *t, const char *name, const char *type, const char *shape,
                      const sm_metrics *m)
{
    char c[7][40];
    fmt_si((double)m->flops, c[0], sizeof c[0]);
    fmt_si((double)m->macs, c[1], sizeof c[1]);
    fmt_si((double)m->inputs, c[2], sizeof c[2]);
    fmt_si((double)m->outputs, c[3], sizeof c[3]);
    fmt_count(m->weights, c[4], sizeof c[4]);
    fmt_count(m->layers, c[5], sizeof c[5]);
    const char *row[] = {name, type, shape, c[0], c[1], c[2], c[3], c[4], c[5]};
    table_add(t, row);
}

static void print_summary(const sm_network *net, const metrics_args *a, const sm_metrics *m)
{
    char shape[96], buf[64], si[32];
    printf("%s (%s), input %s, batch %lld\n", net->name, net->path,
           sm_shape_str(&net->input, shape, sizeof shape), (long long)a->batch);
    const char *headers[] = {"metric", "value", ""};
    text_table *t = table_new(3, headers);
    int64_t v[N_METRICS];
    values_of(m, v);
    static const char *const labels[] = {"F     forward FLOPs",
                                         "      multiply-accumulates",
                                         "      backward FLOPs",
                                         "I     conv input elements",
                                         "O     conv output elements",
                                         "W     weights",
                                         "L     layers with weights",
                                         "      parameter tensors",
                                         "K     kernels (working layers)",
                                         "      bytes moved (fp32)",
                                         "      kernels at inference",
                                         "      kernels forward (training)",
                                         "      kernels backward"};
    for (int k = 0; k < N_METRICS; k++) {
        fmt_count(v[k], buf, sizeof buf);
        const char *row[] = {labels[k], buf,
                             (k >= 5 && k <= 8) || k >= 10 ? ""
                                                           : fmt_si((double)v[k], si, sizeof si)};
        table_add(t, row);
    }
    table_print(t, stdout);
    table_free(t);
}

/* Counts the network cannot have at the batch (past 64 bits) name it, as predict and curve do:
 * "layer conv: counts at batch ... overflow" said neither file nor network. */
static int model_error(const metrics_args *a, const char *msg)
{
    fprintf(stderr, "scalemeter metrics: %s: %s\n", a->model, msg);
    return 1;
}

static int run(const sm_network *net, const metrics_args *a)
{
    sm_status st;
    sm_metrics total, m;
    if (sm_network_metrics(net, a->batch, &total, &st))
        return model_error(a, st.msg);
    char shape[96];
    const char *headers[] = {"name", "type", "output", "flops", "macs", "I", "O", "weights", "L"};
    json_writer w;
    json_init(&w, stdout);
    if (a->format == FORMAT_JSON) {
        json_begin_object(&w);
        json_field_string(&w, "model", net->name);
        json_field_string(&w, "path", net->path);
        json_key(&w, "input");
        json_shape(&w, &net->input);
        json_field_int(&w, "batch", a->batch);
        json_metrics(&w, &total);
        json_warning_member(&w, ""); /* an option's (given twice) */
    } else if (a->format == FORMAT_CSV) {
        printf("scope,name,type,output,flops,macs,bwd_flops,inputs,outputs,weights,layers,"
               "param_tensors,kernels,bytes,kernels_infer,kernels_fwd,kernels_bwd\n");
        csv_row("network", net->name, "", sm_shape_str(&net->input, shape, sizeof shape), &total);
    } else {
        print_summary(net, a, &total);
    }
    if (a->per_block) {
        /* one pass for every block's totals and its output (its last layer): linear in layers */
        size_t n = net->n_blocks > 0 ? (size_t)net->n_blocks : 1;
        sm_metrics *blocks = malloc(n * sizeof *blocks);
        const sm_layer **last = calloc(n, sizeof *last);
        if (!blocks || !last || sm_blocks_metrics(net, a->batch, blocks, &st)) {
            free(blocks);
            free(last);
            return blocks && last ? model_error(a, st.msg) : report_error("out of memory");
        }
        for (int i = 0; i < net->n_layers; i++)
            last[net->layers[i].block] = &net->layers[i];
        text_table *t = a->format == FORMAT_TABLE ? table_new(9, headers) : NULL;
        if (a->format == FORMAT_JSON) {
            json_key(&w, "per_block");
            json_begin_array(&w);
            json_one_per_line(&w);
        }
        for (int b = 0; b < net->n_blocks; b++) {
            if (last[b])
                sm_shape_str(&last[b]->out, shape, sizeof shape);
            else
                snprintf(shape, sizeof shape, "-"); /* a block without layers */
            if (t) {
                table_row(t, net->blocks[b], "block", shape, &blocks[b]);
            } else if (a->format == FORMAT_CSV) {
                csv_row("block", net->blocks[b], "", shape, &blocks[b]);
            } else {
                json_begin_object(&w);
                json_field_string(&w, "name", net->blocks[b]);
                json_field_string(&w, "output", shape);
                json_metrics(&w, &blocks[b]);
                json_end(&w);
            }
        }
        free(blocks);
        free(last);
        if (t) {
            printf("\nper block:\n");
            table_print(t, stdout);
            table_free(t);
        } else if (a->format == FORMAT_JSON) {
            json_end(&w);
        }
    }
    if (a->per_layer) {
        text_table *t = a->format == FORMAT_TABLE ? table_new(9, headers) : NULL;
        if (a->format == FORMAT_JSON) {
            json_key(&w, "per_layer");
            json_begin_array(&w);
            json_one_per_line(&w);
        }
        for (int i = 0; i < net->n_layers; i++) {
            const sm_layer *l = &net->layers[i];
            if (sm_layer_metrics_at(l, a->batch, &m, &st))
                return model_error(a, st.msg);
            sm_shape_str(&l->out, shape, sizeof shape);
            if (t) {
                table_row(t, l->name, l->type->name, shape, &m);
            } else if (a->format == FORMAT_CSV) {
                csv_row("layer", l->name, l->type->name, shape, &m);
            } else {
                json_begin_object(&w);
                json_field_string(&w, "name", l->name);
                json_field_string(&w, "type", l->type->name);
                json_field_string(&w, "block", net->blocks[l->block]);
                json_key(&w, "output");
                json_shape(&w, &l->out);
                json_metrics(&w, &m);
                json_end(&w);
            }
        }
        if (t) {
            printf("\nper layer:\n");
            table_print(t, stdout);
            table_free(t);
        } else if (a->format == FORMAT_JSON) {
            json_end(&w);
        }
    }
    if (a->format == FORMAT_JSON)
        json_end(&w);
    return 0;
}

int cmd_metrics(int argc, char **argv)
{
    metrics_args a;
    if (parse_args(argc, argv, &a))
        return 2;
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st))
        return report_error(st.msg);
    sm_network *net;
    int rc;
    output_reads("models", a.model);
    /* --image takes any network's length (what it always did); --seq a sequence's alone, as
     * predict's and curve's: the docs' `--seq` was refused here */
    int loaded =
        a.seq ? load_sized_network("metrics", reg, a.model, 0, a.seq, 0, &net, &st)
              : sm_network_load(reg, a.model, &(sm_network_options){.image = a.image}, &net, &st);
    if (loaded) {
        rc = loaded == -2 ? 2 : report_error(st.msg);
    } else if (a.seq && check_length_option("metrics", a.model, net, 0, a.seq)) {
        rc = 2;
        sm_network_free(net);
    } else {
        rc = output_to("metrics", a.output);
        if (!rc)
            rc = run(net, &a);
        sm_network_free(net);
    }
    sm_registry_free(reg);
    return rc;
}
