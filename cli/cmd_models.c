/* scalemeter models: the networks of the zoo (each .ini of the models folder) and their size. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "scalemeter/memory.h"

static void usage(void)
{
    printf("usage: scalemeter models [--format table|csv|json] [-o FILE]\n\n"
           "Lists the networks of the zoo, every *.ini of %s/models, each loaded at\n"
           "its own input size: input shape (one sample), weights (trainable parameters),\n"
           "multiply-accumulates (what torchvision calls GFLOPS), layers holding weights, the\n"
           "recipe's precision and optimizer where the file names them (what predict, curve and\n"
           "compare take without --precision and --optimizer), and where the description comes\n"
           "from. `scalemeter metrics NAME` gives the rest. CSV and JSON add optimizer and\n"
           "precision (empty or null where not named).\n",
           sm_data_dir());
}

/* The `source` of the [network] section, or "" (the loader does not keep it). */
static void read_source(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    int in_network = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        if (*p == '[') {
            in_network = strncmp(p, "[network]", 9) == 0;
            continue;
        }
        if (!in_network || strncmp(p, "source", 6) != 0)
            continue;
        p += 6 + strspn(p + 6, " \t");
        if (*p != '=')
            continue;
        p += 1 + strspn(p + 1, " \t");
        char *end = strstr(p, " ;");
        if (!end)
            end = p + strcspn(p, "\r\n");
        while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        snprintf(out, len, "%.*s", (int)(end - p), p);
        break;
    }
    fclose(f);
}

int cmd_models(int argc, char **argv)
{
    output_format format = FORMAT_TABLE;
    int rc = format_options(argc, argv, 7, &format, usage);
    if (rc)
        return rc < 0 ? 0 : rc;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/models", sm_data_dir());
    int n;
    char **names = list_ini_names(dir, "models", &n);
    if (!names)
        return 1;
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st)) {
        for (int i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return report_error(st.msg);
    }

    const char *headers[] = {"model", "input", "weights", "GMACs", "L", "recipe", "source"};
    text_table *t = format == FORMAT_TABLE ? table_new(7, headers) : NULL;
    if (format == FORMAT_CSV)
        printf("model,input,weights,macs,flops,layers,source,path,optimizer,precision\n");
    json_writer jw;
    json_init(&jw, stdout);
    if (format == FORMAT_JSON) {
        json_begin_object(&jw);
        json_warning_member(&jw, ""); /* an option's (given twice) */
        json_key(&jw, "models");
        json_begin_array(&jw);
        json_one_per_line(&jw);
    }
    int failed = 0, rows = 0;
    for (int i = 0; i < n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
        sm_network *net;
        sm_network_options opt = {0};
        sm_metrics m;
        if (sm_network_load(reg, path, &opt, &net, &st)) {
            report_error(st.msg); /* one broken file does not hide the rest */
            failed = 1;
            continue;
        }
        if (sm_network_metrics(net, 1, &m, &st)) {
            report_error(st.msg);
            failed = 1;
            sm_network_free(net);
            continue;
        }
        char shape[96], source[400], w[32], macs[32], l[32], recipe[32];
        sm_shape_str(&net->input, shape, sizeof shape);
        read_source(path, source, sizeof source);
        /* what the file's [network] names its reference recipe's (Llama's bf16, AdamW) */
        const char *optimizer = net->optimizer >= 0 && net->optimizer < SM_N_OPTIMIZERS
                                    ? sm_optimizer_name((sm_optimizer)net->optimizer)
                                    : NULL;
        const char *precision = net->precision[0] ? net->precision : NULL;
        if (t) {
            fmt_count(m.weights, w, sizeof w);
            snprintf(macs, sizeof macs, "%.3f", (double)m.macs / 1e9);
            fmt_count(m.layers, l, sizeof l);
            snprintf(recipe, sizeof recipe, "%s%s%s", precision ? precision : "",
                     precision && optimizer ? " " : "", optimizer ? optimizer : "");
            const char *row[] = {names[i], shape, w, macs, l, recipe[0] ? recipe : "-", source};
            table_add(t, row);
        } else if (format == FORMAT_CSV) {
            csv_field(stdout, names[i]);
            printf(",%s,%lld,%lld,%lld,%lld,", shape, (long long)m.weights, (long long)m.macs,
                   (long long)m.flops, (long long)m.layers);
            csv_field(stdout, source);
            putchar(',');
            csv_field(stdout, path);
            printf(",%s,%s\n", optimizer ? optimizer : "", precision ? precision : "");
        } else {
            json_begin_object(&jw);
            json_field_string(&jw, "model", names[i]);
            json_key(&jw, "input");
            json_begin_array(&jw);
            for (int d = 0; d < net->input.ndim; d++)
                json_int(&jw, net->input.dim[d]);
            json_end(&jw);
            json_field_int(&jw, "weights", m.weights);
            json_field_int(&jw, "macs", m.macs);
            json_field_int(&jw, "flops", m.flops);
            json_field_int(&jw, "layers", m.layers);
            json_field_string(&jw, "source", source);
            json_field_string(&jw, "path", path);
            json_field_string(&jw, "optimizer", optimizer); /* NULL: null */
            json_field_string(&jw, "precision", precision);
            json_end(&jw);
        }
        rows++;
        sm_network_free(net);
    }
    if (t) {
        table_print(t, stdout);
        table_free(t);
    } else if (format == FORMAT_JSON) {
        json_end(&jw);
        json_end(&jw);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    sm_registry_free(reg);
    return failed;
}
