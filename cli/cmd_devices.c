/* scalemeter devices: the device descriptions shipped (each .ini of configs/devices) with
 * their datasheet peaks, memory and sources. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "scalemeter/device.h"

static void usage(void)
{
    printf("usage: scalemeter devices [--format table|csv|json] [-o FILE]\n\n"
           "Lists the device descriptions of %s/configs/devices, for `predict --device` and\n"
           "`curve --device`: dense peaks in TFLOP/s per precision (- where the part has no such\n"
           "precision), memory in GiB (2^30 bytes), bandwidth in GB/s, devices per node, SMs,\n"
           "boost clock, and the source of the figures (docs/devices.md).\n",
           sm_data_dir());
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names (without .ini) of the folder's descriptions, sorted; NULL on failure. */
static char **list_devices(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    *n = 0;
    if (!d) {
        fprintf(stderr, "scalemeter: %s: cannot open the devices folder\n", dir);
        return NULL;
    }
    char **names = NULL;
    int cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0 || e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 32;
            char **grown = realloc(names, (size_t)cap * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        names[(*n)++] = strndup(e->d_name, len - 4);
    }
    closedir(d);
    if (names)
        qsort(names, (size_t)*n, sizeof *names, by_name);
    return names;
}

/* a figure to `digits` significant digits, or "-" where the description gives none */
static const char *figure(double v, int digits, char *buf, size_t len)
{
    if (v <= 0)
        return "-";
    snprintf(buf, len, "%.*g", digits, v);
    return buf;
}

static void json_number(const char *key, double v)
{
    if (v > 0)
        printf(", \"%s\": %.6g", key, v);
    else
        printf(", \"%s\": null", key);
}

int cmd_devices(int argc, char **argv)
{
    output_format format = FORMAT_TABLE;
    int rc = format_options(argc, argv, 7, &format, usage);
    if (rc)
        return rc == 1 ? 0 : rc;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/configs/devices", sm_data_dir());
    int n;
    char **names = list_devices(dir, &n);
    if (!names)
        return 1;
    static const char *const prec[] = {"fp32", "tf32", "fp16", "bf16"};
    const char *headers[] = {"device", "description", "fp32", "tf32", "fp16", "bf16", "GiB",
                             "GB/s", "per node", "SMs", "MHz", "source"};
    text_table *t = format == FORMAT_TABLE ? table_new(12, headers) : NULL;
    if (format == FORMAT_CSV)
        printf("device,description,peak_fp32_tflops,peak_tf32_tflops,peak_fp16_tflops,"
               "peak_bf16_tflops,memory_gib,memory_bandwidth_gb_s,devices_per_node,sm_count,"
               "boost_clock_mhz,l2_mib,tensor_cores,memory_type,source\n");
    else if (format == FORMAT_JSON)
        printf("{\"devices\": [");
    int failed = 0, rows = 0;
    for (int i = 0; i < n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
        sm_device_info d;
        sm_status st;
        if (sm_device_describe(path, &d, &st)) {
            report_error(st.msg); /* one broken file does not hide the rest */
            failed = 1;
            continue;
        }
        if (t) {
            char p[4][32], gib[32], bw[32], node[32], sms[32], mhz[32];
            const char *row[12] = {d.name, d.description};
            for (int k = 0; k < 4; k++)
                row[2 + k] = figure(d.peak_tflops[k], 4, p[k], sizeof p[k]);
            row[6] = figure(d.memory_gib, 4, gib, sizeof gib);
            row[7] = figure(d.memory_bandwidth_gb_s, 6, bw, sizeof bw);
            row[8] = figure(d.devices_per_node, 6, node, sizeof node);
            row[9] = figure(d.sm_count, 6, sms, sizeof sms);
            row[10] = figure(d.boost_clock_mhz, 6, mhz, sizeof mhz);
            row[11] = d.source;
            table_add(t, row);
        } else if (format == FORMAT_CSV) {
            csv_field(stdout, d.name);
            putchar(',');
            csv_field(stdout, d.description);
            for (int k = 0; k < 4; k++)
                d.peak_tflops[k] > 0 ? printf(",%.6g", d.peak_tflops[k]) : printf(",");
            printf(",%.6g,%.6g,%d,%d,%.6g,%.6g,", d.memory_gib, d.memory_bandwidth_gb_s,
                   d.devices_per_node, d.sm_count, d.boost_clock_mhz, d.l2_mib);
            csv_field(stdout, d.tensor_cores);
            putchar(',');
            csv_field(stdout, d.memory_type);
            putchar(',');
            csv_field(stdout, d.source);
            putchar('\n');
        } else {
            printf("%s\n  {\"device\": ", rows ? "," : "");
            json_string(stdout, d.name);
            printf(", \"description\": ");
            json_string(stdout, d.description);
            printf(", \"peak_tflops\": {");
            for (int k = 0; k < 4; k++)
                d.peak_tflops[k] > 0 ? printf("%s\"%s\": %.6g", k ? ", " : "", prec[k],
                                              d.peak_tflops[k])
                                     : printf("%s\"%s\": null", k ? ", " : "", prec[k]);
            printf("}, \"efficiency\": {");
            for (int k = 0; k < 4; k++)
                d.efficiency[k] > 0 ? printf("%s\"%s\": %.4g", k ? ", " : "", prec[k],
                                             d.efficiency[k])
                                    : printf("%s\"%s\": null", k ? ", " : "", prec[k]);
            printf("}");
            json_number("memory_gib", d.memory_gib);
            json_number("memory_bandwidth_gb_s", d.memory_bandwidth_gb_s);
            json_number("memory_efficiency", d.memory_efficiency);
            printf(", \"devices_per_node\": %d", d.devices_per_node);
            json_number("sm_count", d.sm_count);
            json_number("fp32_lanes_per_sm", d.fp32_lanes_per_sm);
            json_number("boost_clock_mhz", d.boost_clock_mhz);
            json_number("l2_mib", d.l2_mib);
            json_number("power_limit_w", d.power_limit_w);
            printf(", \"tensor_cores\": ");
            json_string(stdout, d.tensor_cores);
            printf(", \"memory_type\": ");
            json_string(stdout, d.memory_type);
            printf(", \"source\": ");
            json_string(stdout, d.source);
            printf(", \"path\": ");
            json_string(stdout, path);
            printf("}");
        }
        rows++;
    }
    if (t) {
        table_print(t, stdout);
        table_free(t);
    } else if (format == FORMAT_JSON) {
        printf("\n]}\n");
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return failed;
}
