/* scalemeter fit: coefficients from a measurement CSV, and leave-one-model-out validation. */
#define _DEFAULT_SOURCE /* mkstemp */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "option_values.h"
#include "output.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "util/escape.h"

static void usage(void)
{
    printf("usage: scalemeter fit RUNS.csv [-o COEFFS.ini] [--cv loo] [--format table|csv|json]\n"
           "                      [--weighting none|relative] [--nonneg | --no-nonneg]\n"
           "                      [--form dispatch|convmeter] [--precision P]\n"
           "                      [--grad-model linear|ring] [--bucket-mib MB] [--weight-term]\n"
           "                      [--no-weight-term] [--update-term] [--no-contention]\n"
           "                      [--grad-column] [--idle-watts W] [--device-name NAME]\n"
           "                      [--device-out DEV.ini [--device-base NAME]]\n\n"
           "Fits ConvMeter's coefficients by least squares to the measurements of RUNS.csv (- for\n"
           "the standard input)\n"
           "(header model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step;\n"
           "seconds; an empty field is not measured; other columns are ignored). Each row's F, I,\n"
           "O, W, L come from its network file at its image size.\n\n"
           "  infer, fwd, bwd  t = b (c1 F + c2 I + c3 O) + c4 + c5 K   (dispatch form, default;\n"
           "                   K = kernels a pass launches: per-layer launch and framework\n"
           "                   dispatch; the convmeter form leaves c5 K out)\n"
           "                   [+ cw W: the weight term]  [+ cc log2(G) b F: devices sharing a\n"
           "                   node slow each other; when the rows have two values of G]\n"
           "  grad             dispatch: cp P + cu W + c0 (P parameter tensors); convmeter: c1 L;\n"
           "                   plus communication terms when rows with several devices\n"
           "                   exist: linear (ConvMeter, D = nodes x G devices): c2 W + c3 D;\n"
           "                   ring (hierarchical, N nodes of G devices, k = ceil(4W / bucket)):\n"
           "                   ci 2(G-1)/G 4W + cn 2(N-1)/N 4W/G + cis 2(G-1) k + cns 2(N-1) k,\n"
           "                   the G terms only if some row has G > 1, the N terms only if some\n"
           "                   row has N > 1\n"
           "  bwd_grad         the bwd and grad terms fitted together to t_bwd + t_grad\n"
           "  energy           where the CSV has energy_infer_j and energy_j (joules of all the\n"
           "                   job's devices): joules of one device = idle_watts x t + the terms\n"
           "                   of infer (an inference pass) or of bwd_grad (a training step)\n\n");
    printf(
        "  -o FILE             write the coefficient file (INI; `scalemeter predict --coeffs`);\n"
        "                      -o - writes it on the standard output in place of the table\n"
        "  --cv loo            leave-one-model-out validation: each network is predicted by a\n"
        "                      fit on the other networks; RMSE, NRMSE, MAPE (a fraction), R2\n"
        "                      per phase, per network and overall (step = fwd + bwd + grad)\n"
        "  --weighting W       relative (default): rows weighted by 1/t, minimising relative\n"
        "                      error; none: ordinary least squares on seconds\n"
        "  --nonneg            non-negative coefficients, Lawson-Hanson NNLS (default)\n"
        "  --no-nonneg         unconstrained coefficients\n"
        "  --form F            dispatch (default): ConvMeter plus a term per kernel launched\n"
        "                      and per parameter tensor updated; convmeter: ConvMeter's form\n"
        "  --precision P       fit the rows of precision P (fp32, tf32, fp16, bf16) only; the\n"
        "                      rows must otherwise all be of one precision (a CSV without a\n"
        "                      precision column is fp32)\n"
        "  --grad-model M      ring (default: intra-node and inter-node terms) or linear\n"
        "                      (ConvMeter's c2 W + c3 D)\n"
        "  --bucket-mib MB     gradient bucket of the ring model (default 25)\n"
        "  --weight-term       add cw W to infer, fwd and bwd: every pass reads the weights\n"
        "                      once, whatever the batch (beyond ConvMeter). By default it is\n"
        "                      added when it lowers the leave-one-model-out step MAPE by 0.01\n"
        "                      or more (three networks at least), and the fit says so\n"
        "  --no-weight-term    never add it\n"
        "  --update-term       add cu W to grad at every N: the optimizer's pass over the\n"
        "                      weights (beyond ConvMeter; off by default)\n"
        "  --no-contention     leave out cc log2(G) b F, the slowdown of devices sharing a\n"
        "                      node, and for CPU ranks the same log2(G) on the all-reduce's\n"
        "                      bytes inside the node (docs/scaling.md)\n"
        "  --grad-column       the gradient phase of several devices as before, for\n"
        "                      comparison: fitted to the t_grad column, the wait for the\n"
        "                      slowest device included, not to t_step - t_fwd - t_bwd, and\n"
        "                      the intra-node bytes without contention\n"
        "  --idle-watts W      energy: the power of one device doing nothing, taken off the\n"
        "                      measured energy before its terms are fitted (default 0: the\n"
        "                      terms take it all; a non-zero one is refused where no row\n"
        "                      measures energy)\n"
        "  --device-name NAME  the machine's name in the coefficient file (default: the one\n"
        "                      the rows' device column names, as bench writes a GPU's;\n"
        "                      else this machine's CPU model, from /proc/cpuinfo)\n"
        "  --device-out FILE   also derive a device description for `curve --device FILE`:\n"
        "                      the dispatch time per kernel and phase, the compute and memory\n"
        "                      efficiencies of the rows' precision, fitted to these rows by the\n"
        "                      calibration-free model; the rest (peaks, bandwidths, cluster)\n"
        "                      from --device-base (default h100; only with --device-out),\n"
        "                      in its form: a base whose framework says host_runs_ahead = 1\n"
        "                      is fitted queued (docs/calibration.md); --device-out - writes\n"
        "                      it on the standard output\n"
        "  --format F          table (default), csv or json\n");
}

typedef struct fit_args {
    const char *csv, *out, *device, *precision, *device_out, *device_base;
    int loo;
    FILE *loo_json;   /* calibrate's report: the same validation, also there as JSON */
    int format_given; /* --format on the command line */
    int to_stdout;    /* -o - or --device-out -: a file on the standard output, not the table */
    int weight_term;  /* -1: chosen by leave-one-model-out validation; 0, 1: as asked */
    int bucket_given; /* --bucket-mib on the command line */
    output_format format;
    sm_fit_options opt;
} fit_args;

static int parse_args(int argc, char **argv, fit_args *a)
{
    memset(a, 0, sizeof *a);
    sm_fit_options_default(&a->opt);
    a->weight_term = -1;
    enum {
        CV = 256,
        FORMAT,
        WEIGHTING,
        GRAD_MODEL,
        FORM,
        PRECISION,
        DEVICE_OUT,
        DEVICE_BASE,
        BUCKET,
        DEVICE_NAME,
        DEVICE_OLD,
        NONNEG,
        NO_NONNEG,
        WEIGHT_TERM,
        NO_WEIGHT_TERM,
        UPDATE_TERM,
        NO_CONTENTION,
        GRAD_COLUMN,
        IDLE_WATTS
    };
    static const struct option opts[] = {
        {"help", no_argument, 0, 'h'},
        {"output", required_argument, 0, 'o'},
        {"cv", required_argument, 0, CV},
        {"format", required_argument, 0, FORMAT},
        {"weighting", required_argument, 0, WEIGHTING},
        {"grad-model", required_argument, 0, GRAD_MODEL},
        {"form", required_argument, 0, FORM},
        {"precision", required_argument, 0, PRECISION},
        {"device-out", required_argument, 0, DEVICE_OUT},
        {"device-base", required_argument, 0, DEVICE_BASE},
        {"bucket-mib", required_argument, 0, BUCKET},
        {"bucket-mb", required_argument, 0, BUCKET}, /* the name of earlier releases */
        {"device-name", required_argument, 0, DEVICE_NAME},
        {"device", required_argument, 0, DEVICE_OLD},
        {"nonneg", no_argument, 0, NONNEG},
        {"no-nonneg", no_argument, 0, NO_NONNEG},
        {"weight-term", no_argument, 0, WEIGHT_TERM},
        {"no-weight-term", no_argument, 0, NO_WEIGHT_TERM},
        {"update-term", no_argument, 0, UPDATE_TERM},
        {"no-contention", no_argument, 0, NO_CONTENTION},
        {"grad-column", no_argument, 0, GRAD_COLUMN},
        {"idle-watts", required_argument, 0, IDLE_WATTS},
        {0, 0, 0, 0}};
    char msg[512];
    unsigned given = 0; /* bits of NONNEG .. NO_WEIGHT_TERM: a flag and its --no- form */
    for (int c; (c = next_option(argc, argv, "ho:", opts, msg, sizeof msg)) != -1;) {
        const char *v = optarg;
        if (c >= NONNEG && c <= NO_WEIGHT_TERM)
            given |= 1u << (c - NONNEG);
        switch (c) {
        case 'h':
            usage();
            command_exit(0);
        case 'o':
            a->out = v;
            break;
        case CV:
            if (strcmp(v, "loo") != 0) {
                fprintf(stderr, "scalemeter fit: --cv %s: expected loo\n", v);
                return -1;
            }
            a->loo = 1;
            break;
        case FORMAT:
            if (parse_format(v, 7, &a->format))
                return -1;
            a->format_given = 1;
            break;
        case WEIGHTING:
            if (strcmp(v, "none") && strcmp(v, "relative")) {
                fprintf(stderr, "scalemeter fit: --weighting %s: expected none or relative\n", v);
                return -1;
            }
            a->opt.relative = !strcmp(v, "relative");
            break;
        case GRAD_MODEL:
            if (strcmp(v, "linear") && strcmp(v, "ring")) {
                fprintf(stderr, "scalemeter fit: --grad-model %s: expected linear or ring\n", v);
                return -1;
            }
            a->opt.grad_form = !strcmp(v, "ring") ? SM_GRAD_RING : SM_GRAD_LINEAR;
            break;
        case FORM:
            if (strcmp(v, "dispatch") && strcmp(v, "convmeter")) {
                fprintf(stderr, "scalemeter fit: --form %s: expected dispatch or convmeter\n", v);
                return -1;
            }
            a->opt.form = !strcmp(v, "dispatch") ? SM_FORM_DISPATCH : SM_FORM_CONVMETER;
            break;
        case PRECISION:
            if (strcmp(v, "fp32") && strcmp(v, "tf32") && strcmp(v, "fp16") && strcmp(v, "bf16")) {
                fprintf(stderr,
                        "scalemeter fit: --precision %s: expected fp32, tf32, fp16 or "
                        "bf16\n",
                        v);
                return -1;
            }
            a->precision = v;
            break;
        case DEVICE_OUT:
            a->device_out = v;
            break;
        case DEVICE_BASE:
            a->device_base = v;
            break;
        case BUCKET: {
            double mb;
            sm_status st;
            if (bucket_mib_value(v, &mb, &st)) {
                fprintf(stderr, "scalemeter fit: %s\n", st.msg);
                return -1;
            }
            a->opt.bucket_bytes = mb * 1024 * 1024;
            a->bucket_given = 1;
            break;
        }
        case DEVICE_NAME:
            /* the coefficient file's [fit] device: a line of its own, read back trimmed (the
             * writer refuses what would not read back: a line break, ' ;') */
            if (!*v || strspn(v, " \t") == strlen(v)) {
                fprintf(stderr,
                        "scalemeter fit: --device-name '%s': an empty name (leave the "
                        "option out for the runs CSV's device)\n",
                        v);
                return -1;
            }
            a->device = v;
            break;
        case DEVICE_OLD:
            fprintf(stderr, "scalemeter fit: --device is --device-name NAME (the machine's name "
                            "in the coefficient file); a device description to start from is "
                            "--device-base\n");
            return -1;
        case NONNEG:
            a->opt.nonneg = 1;
            break;
        case NO_NONNEG:
            a->opt.nonneg = 0;
            break;
        case WEIGHT_TERM:
        case NO_WEIGHT_TERM:
            a->weight_term = a->opt.weight_term = c == WEIGHT_TERM;
            break;
        case UPDATE_TERM:
            a->opt.update_term = 1;
            break;
        case NO_CONTENTION:
            a->opt.contention = 0;
            break;
        case GRAD_COLUMN:
            a->opt.grad_column = 1;
            break;
        case IDLE_WATTS: {
            char *end;
            a->opt.idle_watts = strtod(v, &end);
            if (!plain_decimal(v) || end == v || *end ||
                !(a->opt.idle_watts >= 0 && a->opt.idle_watts <= SM_MAX_IDLE_WATTS)) {
                fprintf(stderr, "scalemeter fit: --idle-watts %s: expected watts from 0 to %.0f\n",
                        v, SM_MAX_IDLE_WATTS);
                return -1;
            }
            break;
        }
        default:
            return usage_error("fit", msg), -1;
        }
    }
    /* a flag and its opposite: the last one won, silently */
    static const char *const pairs[][2] = {{"--nonneg", "--no-nonneg"},
                                           {"--weight-term", "--no-weight-term"}};
    for (int k = 0; k < 2; k++)
        if ((given >> 2 * k & 3u) == 3u) {
            fprintf(stderr, "scalemeter fit: %s and %s: one of the two\n", pairs[k][0],
                    pairs[k][1]);
            return -1;
        }
    if (optind < argc)
        a->csv = argv[optind++];
    if (optind < argc) {
        fprintf(stderr, "scalemeter fit: one measurement CSV ('%s' is a second one)\n",
                argv[optind]);
        return -1;
    }
    if (!a->csv) {
        fprintf(stderr, "scalemeter fit: which measurements? (scalemeter fit runs.csv -o "
                        "coeffs.ini)\n");
        return -1;
    }
    if (a->device_base && !a->device_out) {
        fprintf(stderr,
                "scalemeter fit: --device-base %s: only with --device-out FILE (the "
                "description derived from it is written there)\n",
                a->device_base);
        return -1;
    }
    if (a->out && a->device_out &&
        (!strcmp(a->out, a->device_out) || (strcmp(a->out, "-") && strcmp(a->device_out, "-") &&
                                            output_same_file(a->out, a->device_out)))) {
        if (!strcmp(a->out, a->device_out))
            fprintf(stderr,
                    "scalemeter fit: -o and --device-out both name %s: one would replace the "
                    "other\n",
                    !strcmp(a->out, "-") ? "- (the standard output)" : a->out);
        else
            fprintf(stderr,
                    "scalemeter fit: -o %s and --device-out %s are one file: one would replace "
                    "the other\n",
                    a->out, a->device_out);
        return -1;
    }
    /* "-": the file on the standard output (docs/output.md), in place of the table */
    const char *dash = a->out && !strcmp(a->out, "-")                 ? "-o -"
                       : a->device_out && !strcmp(a->device_out, "-") ? "--device-out -"
                                                                      : NULL;
    if (dash && (a->loo || a->format_given)) {
        fprintf(stderr,
                "scalemeter fit: %s writes the file on the standard output, where %s prints "
                "its %s; name a file (%s FILE)\n",
                dash, a->loo ? "--cv loo" : "--format", a->loo ? "validation" : "table",
                dash[1] == 'o' ? "-o" : "--device-out");
        return -1;
    }
    a->to_stdout = dash != NULL;
    const char *inputs[] = {a->csv, a->device_base, a->device_out};
    const char *what[] = {"RUNS.csv", "--device-base"};
    if (stdin_once("fit", what, inputs, 2))
        return -1;
    if ((!dash || strcmp(dash, "-o -")) && output_not_input("fit", "-o", a->out, inputs, 3))
        return -1;
    if (a->device_out && strcmp(a->device_out, "-") &&
        output_not_input("fit", "--device-out", a->device_out, inputs, 2))
        return -1;
    return 0;
}

/* "AMD EPYC 7402 24-Core Processor" from /proc/cpuinfo, or "unknown device". */
static void cpu_name(char *buf, size_t len)
{
    snprintf(buf, len, "unknown device");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        char *s = colon + 1;
        while (*s == ' ' || *s == '\t')
            s++;
        s[strcspn(s, "\r\n")] = '\0';
        if (*s)
            snprintf(buf, len, "%s", s);
        break;
    }
    fclose(f);
}

static const char *option_text(const sm_fit_options *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s form, weighting %s, %s, grad %s%s%s",
             o->form == SM_FORM_DISPATCH ? "dispatch" : "convmeter",
             o->relative ? "relative" : "none", o->nonneg ? "nonneg" : "unconstrained",
             o->grad_form == SM_GRAD_RING ? "ring" : "linear",
             o->weight_term ? ", weight term" : "", o->update_term ? ", update term" : "");
    return buf;
}

static void stats_cells(const sm_fit_stats *s, char c[5][32])
{
    snprintf(c[0], 32, "%d", s->n);
    fmt_seconds(s->rmse, c[1], 32);
    snprintf(c[2], 32, isfinite(s->nrmse) ? "%.3f" : "-", s->nrmse);
    snprintf(c[3], 32, isfinite(s->mape) ? "%.3f" : "-", s->mape);
    snprintf(c[4], 32, isfinite(s->r2) ? "%.3f" : "-", s->r2);
}

static void json_stats(json_writer *w, const sm_fit_stats *s)
{
    json_begin_object(w);
    json_field_number(w, "mape", s->mape);
    json_field_number(w, "rmse", s->rmse);
    json_field_number(w, "nrmse", s->nrmse);
    json_field_number(w, "r2", s->r2);
    json_field_int(w, "n", s->n);
    json_end(w);
}

static void csv_stats(FILE *out, const char *phase, const char *model, const sm_fit_stats *s)
{
    fprintf(out, "%s,", phase);
    csv_field(out, model);
    fprintf(out, ",%d", s->n);
    double v[] = {s->rmse, s->nrmse, s->mape, s->r2};
    for (int k = 0; k < 4; k++)
        csv_real(out, v[k]);
    fputc('\n', out);
}

static void note_not_validated(const sm_loo *loo)
{
    if (loo->n_not_validated) {
        fprintf(stderr,
                "scalemeter fit: note: leave-one-model-out could not validate %d of %d "
                "networks (",
                loo->n_not_validated, loo->n_models);
        for (int k = 0, n = 0; k < loo->n_models; k++)
            if (loo->not_validated[k])
                fprintf(stderr, "%s%s", n++ ? ", " : "", loo->models[k]);
        fprintf(stderr, "): the others cannot separate the terms without them; first: %s\n",
                loo->why);
    }
}

static void print_loo(const fit_args *a, const sm_runs *runs, const sm_loo *loo, FILE *out,
                      output_format format)
{
    char opts[128];
    option_text(&a->opt, opts, sizeof opts);
    json_writer w;
    json_init(&w, out);
    if (format == FORMAT_JSON) {
        json_begin_object(&w);
        json_field_string(&w, "source", a->csv);
        json_field_string(&w, "options", opts);
        json_key(&w, "phases");
        json_begin_object(&w);
        json_one_per_line(&w);
    } else if (format == FORMAT_CSV) {
        fprintf(out, "phase,model,n,rmse,nrmse,mape,r2\n");
    } else {
        fprintf(out,
                "leave-one-model-out validation of %s: %d rows, %d models (%s)\n"
                "each network predicted by a fit on the others; MAPE a fraction\n\n",
                a->csv, runs->n, loo->n_models, opts);
    }
    for (int ph = 0; ph < SM_N_PHASES; ph++) {
        const char *name = sm_phase_name((sm_phase)ph);
        if (loo->overall[ph].n == 0)
            continue;
        if (format == FORMAT_JSON) {
            json_key(&w, name);
            json_begin_object(&w);
            json_key(&w, "overall");
            json_stats(&w, &loo->overall[ph]);
            json_key(&w, "per_model");
            json_begin_object(&w);
            json_one_per_line(&w);
            for (int k = 0; k < loo->n_models; k++) {
                if (loo->per_model[k][ph].n == 0)
                    continue;
                json_key(&w, loo->models[k]);
                json_stats(&w, &loo->per_model[k][ph]);
            }
            json_end(&w);
            json_end(&w);
        } else if (format == FORMAT_CSV) {
            for (int k = 0; k < loo->n_models; k++)
                if (loo->per_model[k][ph].n)
                    csv_stats(out, name, network_label(loo->models[k]), &loo->per_model[k][ph]);
            csv_stats(out, name, "overall", &loo->overall[ph]);
        } else {
            const char *headers[] = {"phase", "model", "n", "RMSE", "NRMSE", "MAPE", "R2"};
            text_table *t = table_new(7, headers);
            char c[5][32];
            for (int k = 0; k < loo->n_models; k++) {
                if (loo->per_model[k][ph].n == 0)
                    continue;
                stats_cells(&loo->per_model[k][ph], c);
                const char *row[] = {name, network_label(loo->models[k]), c[0], c[1], c[2], c[3],
                                     c[4]};
                table_add(t, row);
            }
            stats_cells(&loo->overall[ph], c);
            const char *row[] = {name, "overall", c[0], c[1], c[2], c[3], c[4]};
            table_add(t, row);
            table_print(t, out);
            table_free(t);
            fputc('\n', out);
        }
    }
    if (format == FORMAT_JSON) {
        json_end(&w);
        json_key(&w, "not_validated");
        json_begin_array(&w);
        for (int k = 0; k < loo->n_models; k++)
            if (loo->not_validated[k])
                json_string(&w, loo->models[k]);
        json_end(&w);
        json_warning_member(&w, "");
        json_end(&w);
    }
}

static void print_fit(const fit_args *a, const sm_fit *fit, const sm_fit_meta *meta,
                      const char *warning)
{
    char name[32], opts[128];
    option_text(&fit->opt, opts, sizeof opts);
    json_writer w;
    json_init(&w, stdout);
    if (a->format == FORMAT_JSON) {
        json_begin_object(&w);
        json_field_string(&w, "device", meta->device);
        json_field_string(&w, "source", meta->source);
        json_field_string(&w, "options", opts);
        json_field_string(&w, "precision", fit->precision);
        json_field_int(&w, "rows", fit->rows);
        json_field_bool(&w, "multi_device", fit->multi_device);
        json_key(&w, "phases");
        json_begin_object(&w);
        json_one_per_line(&w);
    } else if (a->format == FORMAT_CSV) {
        printf("phase,name,value\n");
    } else {
        printf("fit of %s: %d %s rows, batch %lld-%lld, image %lld-%lld, %s %d device%s (%s)\n"
               "statistics of each phase's fit on its own points (MAPE a fraction)\n\n",
               a->csv, fit->rows, fit->precision, (long long)fit->batch_min,
               (long long)fit->batch_max, (long long)fit->image_min, (long long)fit->image_max,
               fit->devices_max == 1 ? "on" : "up to", fit->devices_max,
               fit->devices_max == 1 ? "" : "s", opts);
    }
    const char *headers[] = {"phase", "coefficient", "value", "n", "RMSE", "NRMSE", "MAPE", "R2"};
    text_table *t = a->format == FORMAT_TABLE ? table_new(8, headers) : NULL;
    for (int slot = 0; slot < SM_N_FIT_PHASES + SM_N_ENERGY; slot++) {
        int energy = slot >= SM_N_FIT_PHASES;
        const sm_phase_fit *pf = energy ? &fit->energy[slot - SM_N_FIT_PHASES] : &fit->phase[slot];
        sm_phase ph = energy ? sm_energy_terms_phase((sm_energy_phase)(slot - SM_N_FIT_PHASES))
                             : (sm_phase)slot;
        char pname[32];
        if (energy)
            snprintf(pname, sizeof pname, "energy_%s",
                     sm_energy_phase_name((sm_energy_phase)(slot - SM_N_FIT_PHASES)));
        else
            snprintf(pname, sizeof pname, "%s", sm_phase_name(ph));
        if (!pf->fitted)
            continue;
        if (a->format == FORMAT_JSON) {
            json_key(&w, pname);
            json_begin_object(&w);
            json_key(&w, "coefficients");
            json_begin_object(&w);
        }
        for (int k = 0; k < pf->n_coeffs; k++) {
            sm_fit_term_name(fit, ph, k, name, sizeof name);
            char value[32], c[5][32];
            snprintf(value, sizeof value, "%.6g", pf->c[k]);
            if (t) {
                stats_cells(&pf->stats, c);
                if (energy)
                    snprintf(c[1], sizeof c[1], "%.3g J", pf->stats.rmse);
                const char *row[] = {k ? "" : pname, name,          value,         k ? "" : c[0],
                                     k ? "" : c[1],  k ? "" : c[2], k ? "" : c[3], k ? "" : c[4]};
                table_add(t, row);
            } else if (a->format == FORMAT_CSV) {
                printf("%s,%s,%.17g\n", pname, name, pf->c[k]);
            } else {
                json_key(&w, name);
                json_number_digits(&w, pf->c[k], 17);
            }
        }
        if (a->format == FORMAT_JSON) {
            json_end(&w);
            json_key(&w, "fit");
            json_stats(&w, &pf->stats);
            json_end(&w);
        } else if (a->format == FORMAT_CSV) {
            const sm_fit_stats *s = &pf->stats;
            printf("%s,n,%d\n", pname, s->n);
            const char *key[] = {"rmse", "nrmse", "mape", "r2"};
            double v[] = {s->rmse, s->nrmse, s->mape, s->r2};
            for (int k = 0; k < 4; k++) {
                printf("%s,%s", pname, key[k]);
                csv_real(stdout, v[k]);
                putchar('\n');
            }
        }
    }
    if (t) {
        table_print(t, stdout);
        table_free(t);
        if (fit->energy[SM_ENERGY_INFER].fitted || fit->energy[SM_ENERGY_STEP].fitted)
            printf("\nenergy: joules of one device, %g W idle x the phase's time plus the "
                   "terms (RMSE in joules)\n",
                   fit->opt.idle_watts);
    } else if (a->format == FORMAT_JSON) {
        json_end(&w);
        json_key(&w, "idle_watts");
        json_number_digits(&w, fit->opt.idle_watts, 17);
        json_warning_member(&w, warning);
        json_end(&w);
    }
}

static void fill_meta(const fit_args *a, const sm_runs *runs, sm_fit_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    if (a->device)
        snprintf(meta->device, sizeof meta->device, "%s", a->device);
    else if (runs->device[0])
        snprintf(meta->device, sizeof meta->device, "%s", runs->device);
    else
        cpu_name(meta->device, sizeof meta->device);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(meta->date, sizeof meta->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* a record of where the rows came from, not a path read back: any name reads back */
    char *source = sm_escape_ini_value(a->csv);
    snprintf(meta->source, sizeof meta->source, "%s", source ? source : a->csv);
    free(source);
    snprintf(meta->version, sizeof meta->version, "%s", SCALEMETER_VERSION);
}

/* A message of the core about the rows of runs, naming the file once: one that says what is
 * wrong with the rows (a phase's system) gains the file's name, one that names it (a file and
 * line) is left as it is. */
static const char *named(const sm_runs *runs, const char *msg, char *buf, size_t len)
{
    size_t n = strlen(runs->path);
    if (!strncmp(msg, runs->path, n) && msg[n] == ':')
        snprintf(buf, len, "%s", msg);
    else
        snprintf(buf, len, "%s: %s", runs->path, msg);
    return buf;
}

static int fit_error(const sm_runs *runs, const char *msg)
{
    char buf[SM_STATUS_LEN + 1100];
    fprintf(stderr, "scalemeter fit: %s\n", named(runs, msg, buf, sizeof buf));
    return 1;
}

static int stdout_errno; /* of the first failed write of a file to the standard output */

/* What the core's writers write to a path (sm_fit_write, sm_device_fit_write). */
typedef int (*file_writer)(const void *what, const char *path, sm_status *st);

/* Copies file tmp to the standard output; -1 with st set when it cannot be read. */
static int copy_to_stdout(const char *tmp, sm_status *st)
{
    FILE *f = fopen(tmp, "r");
    if (!f)
        return sm_fail(st, "%s: cannot read back: %s", tmp, strerror(errno));
    char buf[8192];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;)
        if (fwrite(buf, 1, n, stdout) != n && !stdout_errno)
            stdout_errno = errno; /* stdout_failed says it */
    int rc = ferror(f) ? sm_fail(st, "%s: cannot read back: %s", tmp, strerror(errno)) : 0;
    fclose(f);
    return rc;
}

/* A fresh empty file in $TMPDIR (or /tmp) for what goes to the standard output: its name in
 * tmp, or -1 with st set. */
static int stdout_temporary(char *tmp, size_t len, sm_status *st)
{
    const char *dir = getenv("TMPDIR");
    snprintf(tmp, len, "%s/scalemeter-fit.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp);
    if (fd < 0)
        return sm_fail(st, "the standard output: cannot make a temporary file in %s: %s",
                       dir && *dir ? dir : "/tmp", strerror(errno));
    close(fd);
    return 0;
}

/* path, or for "-" the standard output: the writer writes a temporary file whole, which is then
 * copied there, so that a failed write puts nothing on the standard output. */
static int write_to(file_writer write, const void *what, const char *path, sm_status *st)
{
    if (strcmp(path, "-"))
        return write(what, path, st);
    char tmp[4096];
    if (stdout_temporary(tmp, sizeof tmp, st))
        return -1;
    int rc = write(what, tmp, st) || copy_to_stdout(tmp, st);
    unlink(tmp);
    return rc; /* a failed write to the standard output is output_finish's to say */
}

static int fit_writer(const void *what, const char *path, sm_status *st)
{
    const void *const *p = what; /* {fit, meta} */
    return sm_fit_write(p[0], p[1], path, st);
}

typedef struct device_write {
    const sm_device_fit_result *d;
    const char *source;
} device_write;

static int device_writer(const void *what, const char *path, sm_status *st)
{
    const device_write *w = what;
    return sm_device_fit_write(w->d, w->source, path, st);
}

/* Whether "-" could not be written to the standard output (a full disk, a closed pipe): said
 * here, with the system's reason, before anything claims it was written. */
static int stdout_failed(const char *path)
{
    errno = 0;
    if (strcmp(path, "-") || (fflush(stdout) == 0 && !ferror(stdout)))
        return 0;
    int e = stdout_errno ? stdout_errno : errno ? errno : EIO;
    fprintf(stderr, "scalemeter fit: cannot write the standard output: %s\n", strerror(e));
    clearerr(stdout); /* said once: output_finish (main.c) has nothing more to say */
    return 1;
}

/* How a file written is said on standard error: its path, or what went to the standard
 * output. */
static const char *where(const char *path, const char *what)
{
    return strcmp(path, "-") ? path : what;
}

/* An efficiency the fit bounded at 1: runs faster than the base's peak or bandwidth (H100 runs
 * on --device-base a10 asked 2.8 and 3.9) were written as 1 without a word, and the
 * description predicted them 1.75 times slower than measured. */
static void warn_efficiency_bound(const fit_args *a, const sm_device_fit_result *d)
{
    char asked[2][128] = {"", ""};
    char value[2][48];
    for (int k = 0; k < 2; k++) {
        double x = k ? d->memory_asked : d->compute_asked;
        /* without bound: the layers' time it divides fits 0 (runs of a nanosecond) */
        if (isfinite(x))
            snprintf(value[k], sizeof value[k], "%.3g", x);
        else
            snprintf(value[k], sizeof value[k], "no bound (the time it divides fits 0)");
    }
    if (d->compute_asked > 1)
        snprintf(asked[0], sizeof asked[0], "its %s fits %s", d->compute_asked_key, value[0]);
    if (d->memory_asked > 1)
        snprintf(asked[1], sizeof asked[1], "%s memory efficiency fits %s",
                 asked[0][0] ? ", its" : "its", value[1]);
    if (!asked[0][0] && !asked[1][0])
        return;
    say_warning("%s: the runs went faster than %s allows: %s%s, above 1; written as 1, the "
                "description predicts them slower than measured (runs of another part? "
                "--device-base names its description)",
                a->csv, d->base, asked[0], asked[1]);
}

/* An efficiency written far below any part's: the shipped descriptions take 0.24 at least (the
 * A10's TF32 convolutions), so one below 0.01 says the runs were of another part than the base
 * (CPU runs on --device-base h100 wrote 0.00105 without a word), as one above 1 does. */
#define EFFICIENCY_FLOOR 0.01

static void warn_efficiency_floor(const fit_args *a, const sm_device_fit_result *d)
{
    char low[2][128] = {"", ""};
    double compute = fmin(d->compute_efficiency, d->conv_efficiency);
    if (compute < EFFICIENCY_FLOOR)
        snprintf(low[0], sizeof low[0], "its %s compute efficiency fits %.3g", d->precision,
                 compute);
    if (d->memory_efficiency < EFFICIENCY_FLOOR)
        snprintf(low[1], sizeof low[1], "%s memory efficiency fits %.3g",
                 low[0][0] ? ", its" : "its", d->memory_efficiency);
    if (!low[0][0] && !low[1][0])
        return;
    say_warning("%s: the runs went far slower than %s allows: %s%s, below %g, far below any "
                "GPU's (runs of another part? --device-base names its description)",
                a->csv, d->base, low[0], low[1], EFFICIENCY_FLOOR);
}

/* --device-out, staged: the description is written beside its destination (or, for "-", in a
 * temporary file) as soon as its keys are fitted, so that a value outside a description's
 * range or a folder that cannot be written fails before the coefficients are written, and it
 * is put in place only once they are: a fit that fails writes neither file. tmp empty: nothing
 * staged (a path that is not a regular file, /dev/null, is written in place at the end). */
typedef struct staged_device {
    char tmp[4200];
} staged_device;

/* What is staged, removed: the fit failed after it was staged, or it is in place already. */
static void drop_device(staged_device *s)
{
    if (s->tmp[0])
        unlink(s->tmp);
    s->tmp[0] = '\0';
}

static int stage_device(const fit_args *a, const sm_device_fit_result *d, staged_device *s)
{
    sm_status st;
    device_write w = {d, a->csv};
    s->tmp[0] = '\0';
    FILE *f = NULL;
    if (!strcmp(a->device_out, "-")) {
        if (stdout_temporary(s->tmp, sizeof s->tmp, &st))
            return report_error(st.msg);
    } else if (!(f = sm_atomic_open(a->device_out, s->tmp, sizeof s->tmp, NULL, &st))) {
        return report_error(st.msg);
    } else {
        fclose(f); /* an empty file of a fresh name beside the destination, written below */
        if (!s->tmp[0])
            return 0;
    }
    if (device_writer(&w, s->tmp, &st)) {
        /* the message names the temporary: say the destination */
        sm_status named;
        char *at = strstr(st.msg, s->tmp);
        if (at)
            snprintf(named.msg, sizeof named.msg, "%.*s%s%s", (int)(at - st.msg), st.msg,
                     a->device_out, at + strlen(s->tmp));
        drop_device(s);
        return report_error(at ? named.msg : st.msg);
    }
    return 0;
}

/* The staged description put in place, and what it holds said. */
static int write_device(const fit_args *a, const sm_device_fit_result *d, staged_device *s)
{
    sm_status st;
    int rc = 0;
    if (!strcmp(a->device_out, "-"))
        rc = copy_to_stdout(s->tmp, &st);
    else if (!s->tmp[0]) { /* not a regular file: written in place */
        device_write w = {d, a->csv};
        rc = device_writer(&w, a->device_out, &st);
    } else if (sm_atomic_rename(s->tmp) == 0)
        s->tmp[0] = '\0'; /* in place: nothing left to drop */
    else
        rc = sm_fail(&st, "%s: cannot write: %s", a->device_out, strerror(errno));
    drop_device(s);
    if (rc)
        return report_error(st.msg);
    if (stdout_failed(a->device_out))
        return 1;
    fprintf(stderr,
            "scalemeter fit: wrote %s: dispatch %.3g/%.3g/%.3g us per kernel (infer/fwd/bwd), "
            "%.3g us per parameter tensor, %s compute efficiency %.3g (convolutions %.3g), "
            "memory %.3g\n",
            where(a->device_out, "the device description to the standard output"),
            d->dispatch_infer * 1e6, d->dispatch_fwd * 1e6, d->dispatch_bwd * 1e6,
            d->dispatch_update * 1e6, d->precision, d->compute_efficiency, d->conv_efficiency,
            d->memory_efficiency);
    warn_efficiency_bound(a, d);
    warn_efficiency_floor(a, d);
    if (!d->settled)
        say_warning("%s: the layers' compute- and memory-bound classes never settled in %d "
                    "rounds; the rounds' description that predicts the runs best is written "
                    "(runs of more networks and batches pin it down)",
                    a->csv, d->iterations);
    return 0;
}

/* The default weight term: in where networks left out of a fit are predicted better with it.
 * loo gets the validation of the form chosen (n_models 0: none), which --cv loo reports. */
static int choose_weight_term(fit_args *a, const sm_runs *runs, sm_loo *loo)
{
    sm_status st;
    double mape[2];
    if (sm_fit_choose_weight_term(runs, &a->opt, mape, a->loo ? loo : NULL, &st))
        return fit_error(runs, st.msg);
    if (isfinite(mape[0]) && isfinite(mape[1]))
        fprintf(stderr,
                "scalemeter fit: the weight term (cw W per pass) is %s: held-out MAPE %.3f "
                "with it, %.3f without (leave-one-model-out, step or else inference; %s)\n",
                a->opt.weight_term ? "in" : "out", mape[1], mape[0],
                a->opt.weight_term ? "--no-weight-term leaves it out" : "--weight-term puts it in");
    return 0;
}

/* sm_fit_runs left out an energy phase that rows measured (why: the core's reason). */
static void warn_energy_left_out(const sm_runs *runs, const sm_fit *fit, const char *why)
{
    static const char *const column[SM_N_ENERGY] = {"energy_infer_j", "energy_j"};
    char cols[128] = "", buf[SM_STATUS_LEN + 1100];
    for (int e = 0, used = 0; e < SM_N_ENERGY; e++)
        if (!fit->energy[e].fitted && fit->energy[e].stats.n > 0 && used < (int)sizeof cols)
            used += snprintf(cols + used, sizeof cols - (size_t)used, "%s%s of %d row%s",
                             used ? ", " : "", column[e], fit->energy[e].stats.n,
                             fit->energy[e].stats.n == 1 ? "" : "s");
    say_warning("%s; that energy (%s) is left out of the fit, the times are fitted",
                named(runs, why, buf, sizeof buf), cols);
}

/* The coefficients fitted and written, and with --device-out the description staged in dev put
 * in place once they are. */
static int fit_and_write(fit_args *a, sm_runs *runs, sm_loo *loo,
                         const sm_device_fit_result *device, staged_device *dev)
{
    sm_status st;
    if (a->loo) {
        if (loo->n_models == 0 && sm_fit_loo(runs, &a->opt, loo, &st))
            return fit_error(runs, st.msg);
        note_not_validated(loo);
        print_loo(a, runs, loo, stdout, a->format);
        if (a->loo_json) /* one validation for both: its folds are most of the work */
            print_loo(a, runs, loo, a->loo_json, FORMAT_JSON);
        if (!a->out)
            return a->device_out ? write_device(a, device, dev) : 0;
    }
    sm_fit fit;
    if (sm_fit_runs(runs, NULL, &a->opt, &fit, &st))
        return fit_error(runs, st.msg);
    if (st.msg[0]) /* an energy the rows measured but cannot separate: the times stand */
        warn_energy_left_out(runs, &fit, st.msg);
    for (int ph = 0; ph < SM_N_FIT_PHASES; ph++)
        if (!fit.phase[ph].fitted)
            fprintf(stderr,
                    "scalemeter fit: note: no row of %s measures phase %s; it is left "
                    "out\n",
                    a->csv, sm_phase_name((sm_phase)ph));
    for (int ph = 0; ph < SM_N_FIT_PHASES; ph++)
        for (int k = 0; k < fit.phase[ph].n_coeffs; k++)
            if (fit.phase[ph].dropped >> k & 1) {
                char name[32];
                fprintf(stderr,
                        "scalemeter fit: note: phase %s: %s cannot be told apart from "
                        "the other terms on the networks of %s; it is left at 0 (more "
                        "networks separate it)\n",
                        sm_phase_name((sm_phase)ph),
                        sm_fit_term_name(&fit, (sm_phase)ph, k, name, sizeof name), a->csv);
            }
    for (int e = 0; e < SM_N_ENERGY; e++)
        for (int k = 0; k < fit.energy[e].n_coeffs; k++)
            if (fit.energy[e].dropped >> k & 1) {
                char name[32];
                fprintf(stderr,
                        "scalemeter fit: note: energy of %s: %s cannot be told apart "
                        "from the other terms; it is left at 0\n",
                        sm_energy_phase_name((sm_energy_phase)e),
                        sm_fit_term_name(&fit, sm_energy_terms_phase((sm_energy_phase)e), k, name,
                                         sizeof name));
            }
    /* a fit of negative coefficients (--no-nonneg) may predict a time or an energy at 0 or
     * below, which predict, curve and validate refuse: its own statistics scored them */
    for (int slot = 0; slot < SM_N_FIT_PHASES + SM_N_ENERGY; slot++) {
        int energy = slot >= SM_N_FIT_PHASES;
        const sm_phase_fit *pf = energy ? &fit.energy[slot - SM_N_FIT_PHASES] : &fit.phase[slot];
        if (pf->fitted && pf->not_positive)
            say_warning("%s:%d: the fitted %s%s predicts %g %s there, not positive (%d row%s): "
                        "predict, curve and validate refuse such a prediction (fit without "
                        "--no-nonneg)",
                        a->csv, pf->not_positive_line, energy ? "energy of " : "phase ",
                        energy ? sm_energy_phase_name((sm_energy_phase)(slot - SM_N_FIT_PHASES))
                               : sm_phase_name((sm_phase)slot),
                        pf->not_positive_value, energy ? "J" : "s", pf->not_positive,
                        pf->not_positive == 1 ? "" : "s");
    }
    if (fit.comm_unidentified)
        fprintf(stderr,
                "scalemeter fit: note: the rows of %s cannot separate the communication "
                "terms of grad from the rest: grad is fitted without them, as measured "
                "(up to %d devices); single-device rows beside rows at several device "
                "counts separate them\n",
                a->csv, fit.devices_max);
    sm_fit_meta meta;
    fill_meta(a, runs, &meta);
    if (!a->loo && !a->to_stdout)
        print_fit(a, &fit, &meta, st.msg);
    if (a->out) {
        const void *what[] = {&fit, &meta};
        if (write_to(fit_writer, what, a->out, &st))
            return report_error(st.msg);
        if (stdout_failed(a->out))
            return 1;
        fprintf(stderr, "scalemeter fit: wrote %s\n",
                where(a->out, "the coefficients to the standard output"));
    }
    return a->device_out ? write_device(a, device, dev) : 0;
}

static int run(fit_args *a, sm_runs *runs, const sm_registry *reg)
{
    say_impossible_steps(a->csv, runs, "the grad fit");
    sm_status st;
    sm_loo loo = {0};
    if (a->weight_term < 0 && choose_weight_term(a, runs, &loo))
        return 1;
    sm_device_fit_result device;
    staged_device dev = {""};
    if (a->device_out) {
        int rc = sm_device_fit(runs, reg, a->device_base ? a->device_base : "h100", &device, &st)
                     ? report_error(st.msg)
                     : stage_device(a, &device, &dev);
        if (rc) {
            sm_loo_free(&loo);
            return rc;
        }
    }
    int rc = fit_and_write(a, runs, &loo, &device, &dev);
    drop_device(&dev); /* still staged: the coefficients failed */
    sm_loo_free(&loo);
    return rc;
}

/* Whether a row measures energy, which --idle-watts applies to. */
static int measures_energy(const sm_runs *runs)
{
    for (int i = 0; i < runs->n; i++)
        for (int e = 0; e < SM_N_ENERGY; e++)
            if (isfinite(sm_run_energy(&runs->rows[i], (sm_energy_phase)e)))
                return 1;
    return 0;
}

/* The ring model's bucket where --bucket-mib is not given: the one the rows of several devices
 * summed their gradients in (bench's bucket_mib column), not 25 MiB against rows of 1 MiB. */
static void bucket_of_rows(fit_args *a, const sm_runs *runs)
{
    if (a->bucket_given || a->opt.grad_form != SM_GRAD_RING)
        return;
    for (int i = 0; i < runs->n; i++) {
        const sm_run *r = &runs->rows[i];
        if (r->nodes * r->gpus_per_node > 1 && r->bucket_mib > 0) {
            a->opt.bucket_bytes = r->bucket_mib * 1048576;
            return;
        }
    }
}

static int fit_command(int argc, char **argv, FILE *loo_json)
{
    fit_args a;
    if (parse_args(argc, argv, &a))
        return 2;
    a.loo_json = loo_json;
    sm_status st;
    sm_runs *runs;
    if (sm_runs_read(a.csv, &runs, &st))
        return report_error(st.msg);
    output_reads_runs(runs);
    /* the base of --device-out by name too (h100: the shipped description), as predict's
     * --device: parse_args compared the paths as given alone */
    if (a.device_out)
        output_reads("configs/devices", a.device_base ? a.device_base : "h100");
    if (output_named_refuse("fit", "-o", a.out) ||
        output_named_refuse("fit", "--device-out", a.device_out)) {
        sm_runs_free(runs);
        return 2;
    }
    say_runs_notes("fit", a.csv, runs);
    sm_registry *reg;
    if (sm_registry_open(&reg, &st)) {
        sm_runs_free(runs);
        return report_error(st.msg);
    }
    int rc;
    if (sm_runs_select_precision(runs, a.precision, &st) || sm_runs_metrics(runs, reg, &st)) {
        rc = report_error(st.msg);
    } else if (a.opt.idle_watts > 0 &&
               !measures_energy(runs)) { /* 0, the default, changes nothing */
        fprintf(stderr,
                "scalemeter fit: --idle-watts: no row of %s measures energy (energy_j, "
                "energy_infer_j); the idle power is taken off measured energy only\n",
                a.csv);
        rc = 2;
    } else {
        /* repeats found with each row's size known (an empty image is the network's own) */
        say_runs_repeated(a.csv, runs, "fitted");
        bucket_of_rows(&a, runs);
        rc = run(&a, runs, reg);
    }
    sm_registry_free(reg);
    sm_runs_free(runs);
    return rc;
}

int cmd_fit(int argc, char **argv) { return fit_command(argc, argv, NULL); }

int cmd_fit_loo(int argc, char **argv, FILE *json) { return fit_command(argc, argv, json); }
