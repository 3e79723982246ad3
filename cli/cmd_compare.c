/* scalemeter compare: one network's training step on several parts side by side, each from its
 * device description (the calibration-free model) with the same options: which part to buy or
 * rent. Each row is what `predict --device PART` with those options says. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "option_table.h"
#include "option_values.h"
#include "output.h"
#include "point_columns.h"
#include "predictor_choice.h"
#include "predictor_options.h"
#include "step_point.h"
#include "warnings.h"
#include "scalemeter/device.h"
#include "scalemeter/memory.h"

#define MAX_PARTS 256

static void footer(void)
{
    printf("LIST: descriptions (names of `scalemeter devices`, or files), comma-separated, or\n"
           "`all` for every shipped one. Each row is what `predict MODEL --device PART` with the\n"
           "same options gives: training step, throughput of the PART's devices (-g's, else\n"
           "the description's per node, as predict takes them) and per device, the memory one\n"
           "device holds against its capacity, and model FLOPs utilisation. A part that cannot\n"
           "run the options (no such --precision) has a row that says why; a batch that does\n"
           "not fit has no times. With --fp8 a part without FP8 tensor cores (before Ada and\n"
           "Hopper) is priced at 16 bits, said under the table; the others' precision reads\n"
           "bf16+fp8 (JSON: fp8 true or false). How close each description comes to\n"
           "published runs, part by part: docs/accuracy-devices.md.\n"
           "--price: cost/epoch = price x devices x t_epoch (hours); cost/run = --epochs x it;\n"
           "a sequence network's epoch is --tokens T.\n"
           "The CSV has device (with --price: price_per_device_hour, cost_epoch[, cost_train]),\n"
           "then predict's columns (docs/output.md); rows that could not be predicted are left\n"
           "out of it and said on stderr:\n");
    point_columns_usage(stdout);
}

typedef struct compare_args {
    predictor_options common; /* predict's and curve's: choice.device is the LIST */
    const char *model, *output;
    const char *price_list; /* --price as given */
    int64_t batch, nodes;
    int max_batch;
    output_format format;
} compare_args;

#define AT(member) OPT_AT(compare_args, member)

static const opt_desc step_opts[] = {
    {"batch", 0, "B", opt_int, STEP_MAX_BATCH, AT(batch),
     "per-device batch (with --accumulate: of one micro-batch)"},
    {"max-batch", 0, NULL, opt_flag, 0, AT(max_batch),
     "instead of --batch: on each part the largest per-device batch\n"
     "whose training memory fits it"},
    {"nodes", 0, "N", opt_int, 1 << 20, AT(nodes), "nodes (default 1)"},
    {"price", 0, "LIST", opt_string, 0, AT(price_list),
     "what a device of each part costs an hour (any currency), one a part\n"
     "in --device's order: adds the cost of an epoch (and of --epochs)"},
};

static const opt_desc output_opts[] = {
    {"format", 0, "F", opt_format, 1u << FORMAT_TABLE | 1u << FORMAT_CSV | 1u << FORMAT_JSON,
     AT(format), "table (default), csv or json"},
    {"output", 'o', "FILE", opt_string, 0, AT(output),
     "write there instead of the standard output"},
};

static const opt_command compare_command = {
    "compare", "MODEL --device LIST (--batch B | --max-batch) [options]",
    "Predicts one step of MODEL (a network file or a zoo name) on each part of LIST, side\n"
    "by side: the calibration-free model of each description, the same options for all.",
    footer};

static int parse_args(int argc, char **argv, compare_args *a)
{
    *a = (compare_args){.nodes = 1, .format = FORMAT_TABLE};
    opt_group groups[2 + PREDICTOR_OPTION_GROUPS] = {OPT_GROUP("the step", step_opts, a)};
    predictor_option_groups(&a->common, groups + 1);
    groups[1 + PREDICTOR_OPTION_GROUPS] = (opt_group)OPT_GROUP("output", output_opts, a);
    int optind_ = 0;
    if (opt_parse(&compare_command, groups, 2 + PREDICTOR_OPTION_GROUPS, argc, argv, &optind_))
        return -1;
    if (optind_ < argc)
        a->model = argv[optind_++];
    if (optind_ < argc) {
        fprintf(stderr, "scalemeter compare: one network at a time ('%s' is a second one)\n",
                argv[optind_]);
        return -1;
    }
    const char *problem = NULL;
    const predictor_choice *c = &a->common.choice;
    if (!a->model)
        problem = "which network? (scalemeter compare resnet50 --device a100,h100 --batch 64)";
    else if (!c->device)
        problem = "which parts? --device LIST (names of `scalemeter devices`, comma-separated, "
                  "or all)";
    else if (c->coeffs)
        problem = "--coeffs is one machine's calibration; compare prices each part from its "
                  "description (predict --coeffs FILE for the calibration)";
    else if (!a->batch == !a->max_batch)
        problem = "give --batch B (the per-device batch) or --max-batch (the largest that "
                  "fits each part), one of the two";
    if (!problem)
        problem = predictor_options_problem(&a->common);
    if (problem) {
        fprintf(stderr, "scalemeter compare: %s\n", problem);
        return -1;
    }
    const char *what[] = {"MODEL", "--framework"};
    const char *given[] = {a->model, c->framework};
    if (!strcmp(c->device, "-")) {
        fprintf(stderr, "scalemeter compare: --device: a LIST of parts, not the standard input\n");
        return -1;
    }
    return stdin_once("compare", what, given, 2);
}

/* One part: its prediction, or why it has none. */
typedef struct part_row {
    const char *device; /* as listed */
    sm_device_info info;
    sm_predictor *pred; /* NULL: why says */
    sm_layout layout;
    sm_prediction t;
    step_memory mem; /* memory while training and at inference, --max-batch's answer */
    sm_curve_point pt;
    sm_allreduce_estimate ar;
    int has_ar;
    double price; /* a device-hour's (--price); NAN: not given */
    warnings *warn;
    int option_error; /* why is an option's (predictor_choice_open's 2: no such precision) */
    int fp8;          /* --fp8's products priced on this part */
    int fp8_absent;   /* --fp8 given, and this part has no FP8 tensor cores */
    char why[sizeof(((sm_status *)0)->msg)];
    char oom[400]; /* training does not fit: what it needs, and what would make it fit */
} part_row;

/* The parts of LIST in order: its names (the whole of it where it is one file, every shipped
 * description for `all`), into names; their count, or -1 after saying why (a usage error). */
static int split_parts(const char *list, char *buf, char **names, char ***shipped, int *n_shipped)
{
    struct stat sb;
    *shipped = NULL;
    *n_shipped = 0;
    if (stat(list, &sb) == 0 && S_ISREG(sb.st_mode)) {
        names[0] = buf;
        return 1;
    }
    if (!strcmp(list, "all")) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/configs/devices", sm_data_dir());
        *shipped = list_ini_names(dir, "devices", n_shipped);
        if (!*shipped)
            return -1;
        int n = *n_shipped < MAX_PARTS ? *n_shipped : MAX_PARTS;
        for (int i = 0; i < n; i++)
            names[i] = (*shipped)[i];
        return n;
    }
    int n = 0;
    for (char *m = buf;; m++) {
        char *end = m + strcspn(m, ",");
        if (end == m) {
            fprintf(stderr, "scalemeter compare: --device '%s': an empty name in the list\n", list);
            return -1;
        }
        if (n == MAX_PARTS) {
            fprintf(stderr, "scalemeter compare: --device: more than %d parts\n", MAX_PARTS);
            return -1;
        }
        names[n++] = m;
        int last = !*end;
        *end = '\0';
        if (!strcmp(m, "all")) {
            fprintf(stderr,
                    "scalemeter compare: --device '%s': all is every shipped description, a "
                    "list of its own\n",
                    list);
            return -1;
        }
        for (int k = 0; k < n - 1; k++)
            if (!strcmp(names[k], m)) {
                fprintf(stderr,
                        "scalemeter compare: --device '%s': %s is given twice; each part is "
                        "one row\n",
                        list, m);
                return -1;
            }
        if (last)
            break;
        m = end;
    }
    return n;
}

/* What a part without FP8 tensor cores runs a float8 recipe's products at, said under its
 * row (and on stderr where the output is CSV, which has no note) */
#define FP8_ABSENT                                                                                 \
    "no FP8 tensor cores (they came with Ada and Hopper): --fp8's products priced at 16 bits, "    \
    "as the part would run them"

/* Whether the part has a step to show: its predictor opened and nothing stopped it (a part
 * whose step does not fit has one, without times). */
static int has_step(const part_row *r) { return r->pred && !r->why[0]; }

/* The part's step with the options, as predict computes it; 0, or -1 with why filled (the
 * part cannot run them: no such precision, a batch past its memory's search). */
static int predict_part(const compare_args *a, const sm_network *net, part_row *r)
{
    sm_status st;
    predictor_choice choice = a->common.choice;
    choice.device = r->device;
    /* without --precision, the network's recipe's (Llama's bf16) */
    predictor_choice_take_recipe(&choice, &net, 1);
    /* a part without FP8 tensor cores (before Ada and Hopper) runs a float8 recipe's products
     * at 16 bits: its row shows that, beside the others, where predict refuses --fp8; a part of
     * another generation whose file gives no fp8 peak keeps predict's row, saying what to give */
    if (choice.fp8 && !choice.coeffs && !(r->info.peak_fp8_tflops > 0) &&
        r->info.fp8_tensor_cores == 0) {
        choice.fp8 = 0;
        r->fp8_absent = 1;
    }
    r->fp8 = choice.fp8;
    int opened = predictor_choice_open(&choice, &r->pred, &st);
    if (opened) {
        r->pred = NULL;
        r->option_error = opened == 2;
        snprintf(r->why, sizeof r->why, "%s", st.msg);
        return -1;
    }
    if (step_predict(&a->common, a->batch, a->nodes, a->max_batch, net, r->pred, &r->layout,
                     &r->mem, &r->t, &st)) {
        snprintf(r->why, sizeof r->why, "%s", st.msg);
        return -1;
    }
    r->pt = step_curve_point(&r->layout, &r->t, &r->mem);
    int ar = sm_predictor_allreduce(r->pred, net, &r->layout, &r->ar, &st);
    if (ar < 0) {
        snprintf(r->why, sizeof r->why, "%s", st.msg);
        return -1;
    }
    r->has_ar = ar == 0;
    if (!r->warn || warnings_add(r->warn, r->pred, a->model, net, &r->layout, a->common.dataset) ||
        warnings_energy(r->warn, r->pred, a->model, &r->layout, &r->t)) {
        snprintf(r->why, sizeof r->why, "out of memory");
        return -1;
    }
    if (r->mem.train.fits == 0) { /* no times, as predict shows none: what would make it fit */
        char hint[300];
        step_fit_hint(hint, sizeof hint, &choice, net, r->pred, &r->layout, &r->mem.train);
        char need[32], has[32];
        snprintf(r->oom, sizeof r->oom, "%s: needs %s a device, which has %s%s%s",
                 r->mem.max_batch == 0 ? "not even one sample per device fits" : "does not fit",
                 fmt_gib(r->mem.train.peak + r->mem.train.context, need, sizeof need),
                 fmt_gib(r->mem.train.capacity, has, sizeof has), hint[0] ? "; " : "", hint);
    }
    return 0;
}

static point_view view_of(const compare_args *a, const sm_network *net, const part_row *r)
{
    point_view v = {a->model,
                    net,
                    r->pred,
                    &r->pt,
                    0,
                    a->common.dataset,
                    a->common.tokens,
                    a->common.epochs,
                    r->has_ar,
                    {0, "none", "-"},
                    r->mem.max_batch,
                    model_sample_flops(net)};
    if (r->has_ar)
        v.allreduce = r->ar;
    return v;
}

/* What an epoch of the part's devices costs at its --price, and the --epochs run; NAN without
 * a price or an epoch (a sequence network given no --tokens), or where it does not fit. */
static double cost_epoch(const compare_args *a, const part_row *r)
{
    if (!isfinite(r->price) || !a->common.dataset || r->mem.train.fits == 0)
        return NAN;
    return r->price * (double)sm_layout_devices(&r->layout) *
           sm_epoch_time(&r->layout, r->t.t_step, a->common.dataset) / 3600;
}

static double cost_train(const compare_args *a, const part_row *r)
{
    return a->common.epochs ? (double)a->common.epochs * cost_epoch(a, r) : NAN;
}

/* --price's list, one a part: 0, or -1 after saying what is wrong with it. */
static int parse_prices(const char *list, part_row *rows, int n)
{
    int k = 0;
    for (const char *p = list;; k++) {
        size_t len = strcspn(p, ",");
        char item[64], *end;
        snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), p);
        double v = len && len < 63 ? strtod(item, &end) : NAN;
        if (!(len && len < 63 && !*end && isfinite(v) && v >= 0)) {
            fprintf(stderr,
                    "scalemeter compare: --price '%s': '%s' is not a price (a number, 0 or more, "
                    "per device-hour)\n",
                    list, item);
            return -1;
        }
        if (k < n)
            rows[k].price = v;
        p += len;
        if (!*p++)
            break;
    }
    if (k + 1 != n) {
        fprintf(stderr,
                "scalemeter compare: --price has %d price%s for %d part%s: one a part of "
                "--device, in its order\n",
                k + 1, k ? "s" : "", n, n == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

/* The columns every predicted row needs, so that each has the header's. */
static unsigned column_set(const compare_args *a, const sm_network *net, const part_row *rows,
                           int n)
{
    unsigned set = 0;
    for (int i = 0; i < n; i++)
        if (has_step(&rows[i])) {
            point_view v = view_of(a, net, &rows[i]);
            set |= point_column_set(&v);
        }
    return set;
}

static void write_csv(const compare_args *a, const sm_network *net, const part_row *rows, int n)
{
    unsigned set = column_set(a, net, rows, n);
    fputs("device,", stdout);
    if (a->price_list)
        fputs(a->common.epochs ? "price_per_device_hour,cost_epoch,cost_train,"
                               : "price_per_device_hour,cost_epoch,",
              stdout);
    point_csv_header(stdout, set);
    for (int i = 0; i < n; i++) {
        if (!has_step(&rows[i]))
            continue;
        point_view v = view_of(a, net, &rows[i]);
        csv_field(stdout, rows[i].device);
        if (a->price_list) {
            csv_real(stdout, rows[i].price);
            csv_real(stdout, cost_epoch(a, &rows[i]));
            if (a->common.epochs)
                csv_real(stdout, cost_train(a, &rows[i]));
        }
        putchar(',');
        point_csv_row(stdout, set, &v);
    }
}

static void write_json(const compare_args *a, const sm_network *net, const part_row *rows, int n)
{
    unsigned set = column_set(a, net, rows, n);
    json_writer w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_field_string(&w, "model", a->model);
    json_key(&w, "precision"); /* as given; each part's own where none is */
    if (a->common.choice.precision)
        json_string(&w, a->common.choice.precision);
    else
        json_null(&w);
    json_key(&w, "batch");
    if (a->max_batch)
        json_null(&w); /* each part's max_batch */
    else
        json_int(&w, a->batch);
    json_field_int(&w, "nodes", a->nodes);
    /* every part's warnings, each named by its part (each part's own are under it too) */
    size_t len = 1;
    for (int i = 0; i < n; i++)
        for (int k = 0; rows[i].warn && warnings_line(rows[i].warn, k); k++)
            len += strlen(rows[i].device) + strlen(warnings_line(rows[i].warn, k)) + 4;
    char *all = malloc(len);
    if (all) {
        all[0] = '\0';
        for (int i = 0; i < n; i++)
            for (int k = 0; rows[i].warn && warnings_line(rows[i].warn, k); k++)
                snprintf(all + strlen(all), len - strlen(all), "%s%s: %s", all[0] ? "; " : "",
                         rows[i].device, warnings_line(rows[i].warn, k));
    }
    json_warning_member(&w, all && all[0] ? all : NULL);
    free(all);
    json_key(&w, "parts");
    json_begin_array(&w);
    json_one_per_line(&w);
    for (int i = 0; i < n; i++) {
        const part_row *r = &rows[i];
        json_begin_object(&w);
        json_field_string(&w, "device", r->device);
        if (r->info.description[0])
            json_field_string(&w, "description", r->info.description);
        if (!has_step(r)) {
            json_field_string(&w, "error", r->why);
            json_end(&w);
            continue;
        }
        int conv = sm_network_has_trait(net, SM_TRAIT_CONVOLUTION);
        json_field_string(&w, "predictor", sm_predictor_describe_for(r->pred, conv));
        json_field_string(&w, "precision", sm_predictor_precision(r->pred));
        if (a->common.choice.fp8)
            json_field_bool(&w, "fp8", r->fp8);
        if (a->price_list) {
            json_field_number(&w, "price_per_device_hour", r->price);
            json_field_number(&w, "cost_epoch", cost_epoch(a, r));
            if (a->common.epochs)
                json_field_number(&w, "cost_train", cost_train(a, r));
        }
        point_view v = view_of(a, net, r);
        point_json_fields(&w, set, &v);
        if (r->has_ar)
            json_allreduce(&w, &r->ar);
        json_memory(&w, "memory", &r->mem.train);
        json_memory(&w, "memory_infer", &r->mem.infer);
        warnings_json(r->warn, &w);
        json_end(&w);
    }
    json_end(&w);
    json_end(&w);
}

static void write_table(const compare_args *a, const sm_network *net, const part_row *rows, int n)
{
    int seq = is_sequence(net);
    char b[96];
    if (a->max_batch)
        snprintf(b, sizeof b, "the largest per-device batch that fits each part");
    else
        snprintf(b, sizeof b, "batch %lld per device", (long long)a->batch);
    printf("%s, %s, %lld node%s: a training step on each part's description (calibration-free)"
           "\n\n",
           heading_name(net, a->model), b, (long long)a->nodes, a->nodes == 1 ? "" : "s");
    const char *headers[12] = {
        "device",     "precision", "devices", "batch", "t_step", seq ? "tokens/s" : "images/s",
        "per device", "memory",    "of",      "mfu"};
    int n_cols = 10;
    if (a->price_list)
        headers[n_cols++] = "cost/epoch";
    if (a->price_list && a->common.epochs)
        headers[n_cols++] = "cost/run";
    text_table *t = table_new(n_cols, headers);
    time_unit unit = time_unit_of(0);
    for (int i = 0; i < n; i++)
        if (has_step(&rows[i]) && rows[i].mem.train.fits != 0)
            time_unit_add(&unit, rows[i].t.t_step);
    for (int i = 0; i < n; i++) {
        const part_row *r = &rows[i];
        char c[11][48];
        if (!has_step(r)) {
            const char *cells[] = {r->device, "-", "-", "-", "-", "-",
                                   "-",       "-", "-", "-", "-", "-"};
            table_add(t, cells);
            continue;
        }
        point_view v = view_of(a, net, r);
        double rate = point_value(&v, seq ? "tokens_per_s" : "images_per_s");
        int64_t devices = sm_layout_devices(&r->layout);
        snprintf(c[0], sizeof c[0], "%s%s", sm_predictor_precision(r->pred), r->fp8 ? "+fp8" : "");
        snprintf(c[1], sizeof c[1], "%lld", (long long)devices);
        snprintf(c[2], sizeof c[2], "%lld", (long long)r->layout.batch);
        fmt_seconds_in(r->t.t_step, &unit, c[3], sizeof c[3]);
        fmt_rate(rate, c[4], sizeof c[4]);
        fmt_rate(rate / (double)devices, c[5], sizeof c[5]);
        fmt_memory(&r->mem.train, c[6], sizeof c[6]);
        if (r->mem.train.fits < 0)
            snprintf(c[7], sizeof c[7], "-");
        else
            fmt_gib(r->mem.train.capacity, c[7], sizeof c[7]);
        double mfu = point_value(&v, "mfu");
        snprintf(c[8], sizeof c[8], isfinite(mfu) ? "%.1f%%" : "-", mfu * 100);
        if (r->mem.train.fits == 0) /* it cannot run: no time as if it could */
            for (int j = 3; j <= 8; j++)
                if (j != 6 && j != 7)
                    snprintf(c[j], sizeof c[j], "-");
        double ce = cost_epoch(a, r), ct = cost_train(a, r);
        fmt_rate(ce, c[9], sizeof c[9]); /* whole units above 1000, never 1.406e+07 */
        fmt_rate(ct, c[10], sizeof c[10]);
        const char *cells[] = {r->device, c[0], c[1], c[2], c[3], c[4],
                               c[5],      c[6], c[7], c[8], c[9], c[10]};
        table_add(t, cells);
    }
    table_print(t, stdout);
    table_free(t);
    int said = 0;
    for (int i = 0; i < n; i++) {
        const part_row *r = &rows[i];
        if (r->why[0] || r->oom[0])
            printf("%s  %s: %s\n", said++ ? "" : "\n", r->device, r->why[0] ? r->why : r->oom);
        if (has_step(r) && r->fp8_absent)
            printf("%s  %s: %s\n", said++ ? "" : "\n", r->device, FP8_ABSENT);
    }
    if (a->price_list && !a->common.dataset) /* cost_epoch's NAN: no epoch to price */
        printf("%scost/epoch: %s is a sequence network, whose epoch is --tokens T (the corpus "
               "in tokens, such as 15T): give it to price one\n",
               said ? "  " : "\n  ", a->model);
    printf("\nhow close each part's description comes to published runs: "
           "docs/accuracy-devices.md\n");
}

static int write_output(const compare_args *a, const sm_network *net, const part_row *rows, int n)
{
    int rc = output_to("compare", a->output);
    if (rc)
        return rc;
    if (a->format == FORMAT_JSON)
        write_json(a, net, rows, n);
    else if (a->format == FORMAT_CSV)
        write_csv(a, net, rows, n);
    else
        write_table(a, net, rows, n);
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    compare_args a;
    if (parse_args(argc, argv, &a))
        return 2;
    char *buf = strdup(a.common.choice.device);
    char *names[MAX_PARTS], **shipped = NULL;
    int n_shipped = 0;
    if (!buf)
        return report_error("out of memory");
    int n = split_parts(a.common.choice.device, buf, names, &shipped, &n_shipped);
    part_row *rows = n > 0 ? calloc((size_t)n, sizeof *rows) : NULL;
    int rc = n < 0 ? 2 : rows ? 0 : report_error("out of memory");
    sm_status st;
    /* a part no description names is the user's slip, said before any work */
    for (int i = 0; rc == 0 && i < n; i++)
        rows[i].price = NAN;
    if (rc == 0 && a.price_list && parse_prices(a.price_list, rows, n))
        rc = 2;
    for (int i = 0; rc == 0 && i < n; i++) {
        rows[i].device = names[i];
        if (sm_device_describe(names[i], &rows[i].info, &st)) {
            fprintf(stderr, "scalemeter compare: --device %s: %s\n", names[i], st.msg);
            rc = 2;
        }
    }
    sm_registry *reg = NULL;
    sm_network *net = NULL;
    if (rc == 0 && sm_registry_open(&reg, &st))
        rc = report_error(st.msg);
    if (rc == 0) {
        output_reads("models", a.model);
        int loaded =
            load_sized_network("compare", reg, a.model, a.common.image, a.common.seq, 0, &net, &st);
        char label[96];
        if (!loaded && !strcmp(a.model, "-"))
            a.model = stdin_label(net, 0, label, sizeof label);
        if (loaded)
            rc = loaded == -2 ? 2 : report_error(st.msg);
        else if (output_reads_refuse("compare", a.output) ||
                 check_length_option("compare", a.model, net, a.common.image, a.common.seq))
            rc = 2;
        else if (a.common.tokens && !is_sequence(net)) {
            fprintf(stderr,
                    "scalemeter compare: --tokens: %s is an image network; --dataset counts "
                    "its samples\n",
                    a.model);
            rc = 2;
        }
        if (rc == 0) {
            a.common.dataset = dataset_samples(a.common.dataset, a.common.tokens, net);
            int predicted = 0;
            for (int i = 0; i < n; i++) {
                rows[i].warn = warnings_new();
                predicted += predict_part(&a, net, &rows[i]) == 0;
            }
            /* an option that changes nothing on any part (--overlap where every part is one
             * device): said once, from the part of most devices */
            int most = -1;
            for (int i = 0; i < n; i++)
                if (has_step(&rows[i]) && rows[i].warn &&
                    (most < 0 ||
                     sm_layout_devices(&rows[i].layout) > sm_layout_devices(&rows[most].layout)))
                    most = i;
            if (most >= 0)
                warnings_idle_options(rows[most].warn, &a.common.choice);
            for (int i = 0; i < n; i++) {
                char cmd[96];
                snprintf(cmd, sizeof cmd, "compare: %s", rows[i].device);
                if (rows[i].warn)
                    warnings_print(rows[i].warn, cmd);
                if (a.format == FORMAT_CSV && rows[i].why[0])
                    fprintf(stderr, "scalemeter compare: %s: %s\n", rows[i].device, rows[i].why);
                else if (a.format != FORMAT_TABLE && has_step(&rows[i]) && rows[i].fp8_absent)
                    fprintf(stderr, "scalemeter compare: %s: %s\n", rows[i].device, FP8_ABSENT);
            }
            if (!predicted && n > 0) { /* no part could: each says why, no table */
                int usage = 1;
                for (int i = 0; i < n; i++) {
                    if (a.format != FORMAT_CSV)
                        fprintf(stderr, "scalemeter compare: %s: %s\n", rows[i].device,
                                rows[i].why);
                    usage &= rows[i].option_error;
                }
                rc = usage ? 2 : 1;
            } else
                rc = write_output(&a, net, rows, n);
        }
    }
    for (int i = 0; rows && i < n; i++) {
        sm_predictor_free(rows[i].pred);
        warnings_free(rows[i].warn);
    }
    free(rows);
    sm_network_free(net);
    sm_registry_free(reg);
    for (int i = 0; i < n_shipped; i++)
        free(shipped[i]);
    free(shipped);
    free(buf);
    return rc;
}
