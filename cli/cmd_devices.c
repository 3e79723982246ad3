/* scalemeter devices: the device descriptions shipped (each .ini of configs/devices) with
 * their datasheet peaks, memory and sources. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "json_writer.h"
#include "output.h"
#include "scalemeter/device.h"

static void usage(void)
{
    printf("usage: scalemeter devices [--format table|csv|json] [-o FILE]\n\n"
           "Lists the device descriptions of %s/configs/devices, for `predict --device` and\n"
           "`curve --device`: the name they take (the file's, less .ini; the file's own name\n"
           "key heads predict's output), dense peaks in TFLOP/s per precision (- where the part\n"
           "has no such precision; fp8: what --fp8's products run at), memory in GiB (2^30\n"
           "bytes), bandwidth in GB/s, devices per node, SMs, boost clock, and the source of\n"
           "the figures (docs/devices.md). CSV and JSON add what the model takes of them\n"
           "(efficiencies, the clock under dense work and the one it takes for kernels priced\n"
           "per SM and clock, the links) and the eager framework that prices each part's\n"
           "kernels (its name, and the shipped framework its [framework] starts from: `base`,\n"
           "docs/scaling.md).\n",
           sm_data_dir());
}

/* a figure to `digits` significant digits, or "-" where the description gives none */
static const char *figure(double v, int digits, char *buf, size_t len)
{
    if (v <= 0)
        return "-";
    snprintf(buf, len, "%.*g", digits, v);
    return buf;
}

/* A figure the file gives, or null where it gives none (0). */
static void json_figure(json_writer *w, const char *key, double v)
{
    json_field_number(w, key, v > 0 ? v : NAN);
}

/* A CSV field: the figure, or empty where the file gives none, as JSON's null and the
 * table's "-". */
static void csv_figure(double v) { csv_real(stdout, v > 0 ? v : NAN); }

/* A text the file gives, or null where it gives none (output.md: never an empty string). */
static void json_text(json_writer *w, const char *key, const char *s)
{
    if (s[0])
        json_field_string(w, key, s);
    else
        json_field_null(w, key);
}

/* The CSV's text column: the text, or empty. */
static void csv_text(const char *s)
{
    putchar(',');
    csv_field(stdout, s);
}

int cmd_devices(int argc, char **argv)
{
    output_format format = FORMAT_TABLE;
    int rc = format_options(argc, argv, 7, &format, usage);
    if (rc)
        return rc < 0 ? 0 : rc;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/configs/devices", sm_data_dir());
    int n;
    char **names = list_ini_names(dir, "devices", &n);
    if (!names)
        return 1;
    static const char *const prec[] = {"fp32", "tf32", "fp16", "bf16"};
    const char *headers[] = {"device", "description", "fp32",     "tf32", "fp16", "bf16",  "fp8",
                             "GiB",    "GB/s",        "per node", "SMs",  "MHz",  "source"};
    text_table *t = format == FORMAT_TABLE ? table_new(13, headers) : NULL;
    if (format == FORMAT_CSV)
        /* JSON's keys, flat; the columns added since come after the first fifteen */
        printf("device,description,peak_fp32_tflops,peak_tf32_tflops,peak_fp16_tflops,"
               "peak_bf16_tflops,memory_gib,memory_bandwidth_gb_s,devices_per_node,sm_count,"
               "boost_clock_mhz,l2_mib,tensor_cores,memory_type,source,efficiency_fp32,"
               "efficiency_tf32,efficiency_fp16,efficiency_bf16,conv_efficiency_fp32,"
               "conv_efficiency_tf32,conv_efficiency_fp16,conv_efficiency_bf16,"
               "memory_efficiency,fp32_lanes_per_sm,power_limit_w,sustained_clock_mhz,"
               "launch_overhead_us,max_devices_per_node,intra_node_bandwidth_gb_s,"
               "intra_node_latency_us,inter_node_ports,inter_node_bandwidth_gb_s,"
               "inter_node_latency_us,framework,framework_base,light_clock_mhz,"
               "peak_fp8_tflops,stream_efficiency\n");
    json_writer jw;
    json_init(&jw, stdout);
    if (format == FORMAT_JSON) {
        json_begin_object(&jw);
        json_warning_member(&jw, ""); /* an option's (given twice) */
        json_key(&jw, "devices");
        json_begin_array(&jw);
        json_one_per_line(&jw);
    }
    int failed = 0;
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
            char p[5][32], gib[32], bw[32], node[32], sms[32], mhz[32];
            const char *row[13] = {names[i], d.description};
            for (int k = 0; k < 4; k++)
                row[2 + k] = figure(d.peak_tflops[k], 4, p[k], sizeof p[k]);
            row[6] = figure(d.peak_fp8_tflops, 5, p[4], sizeof p[4]);
            row[7] = figure(d.memory_gib, 4, gib, sizeof gib);
            row[8] = figure(d.memory_bandwidth_gb_s, 6, bw, sizeof bw);
            row[9] = figure(d.devices_per_node, 6, node, sizeof node);
            row[10] = figure(d.sm_count, 6, sms, sizeof sms);
            row[11] = figure(d.boost_clock_mhz, 6, mhz, sizeof mhz);
            row[12] = d.source;
            table_add(t, row);
        } else if (format == FORMAT_CSV) {
            csv_field(stdout, names[i]);
            putchar(',');
            csv_field(stdout, d.description);
            for (int k = 0; k < 4; k++)
                csv_figure(d.peak_tflops[k]);
            csv_figure(d.memory_gib);
            csv_figure(d.memory_bandwidth_gb_s);
            printf(",%d", d.devices_per_node);
            csv_figure(d.sm_count);
            csv_figure(d.boost_clock_mhz);
            csv_figure(d.l2_mib);
            csv_text(d.tensor_cores);
            csv_text(d.memory_type);
            csv_text(d.source);
            for (int k = 0; k < 4; k++)
                csv_figure(d.efficiency[k]);
            for (int k = 0; k < 4; k++)
                csv_figure(d.conv_efficiency[k]);
            csv_figure(d.memory_efficiency);
            csv_figure(d.fp32_lanes_per_sm);
            csv_figure(d.power_limit_w);
            csv_figure(d.sustained_clock_mhz);
            csv_real(stdout, d.launch_overhead_us); /* 0 is a cost the file may give */
            printf(",%d", d.max_devices_per_node);
            csv_figure(d.intra_node_bandwidth_gb_s);
            csv_real(stdout, d.intra_node_latency_us);
            printf(",%d", d.inter_node_ports);
            csv_figure(d.inter_node_bandwidth_gb_s);
            csv_real(stdout, d.inter_node_latency_us);
            csv_text(d.framework);
            csv_text(d.framework_base);
            csv_figure(d.light_clock_mhz);
            csv_figure(d.peak_fp8_tflops);
            csv_figure(d.stream_efficiency);
            putchar('\n');
        } else {
            json_begin_object(&jw);
            json_field_string(&jw, "device", names[i]);
            json_text(&jw, "description", d.description);
            json_key(&jw, "peak_tflops");
            json_begin_object(&jw);
            for (int k = 0; k < 4; k++)
                json_figure(&jw, prec[k], d.peak_tflops[k]);
            json_figure(&jw, "fp8", d.peak_fp8_tflops);
            json_end(&jw);
            json_key(&jw, "efficiency");
            json_begin_object(&jw);
            for (int k = 0; k < 4; k++)
                json_figure(&jw, prec[k], d.efficiency[k]);
            json_end(&jw);
            json_key(&jw, "conv_efficiency");
            json_begin_object(&jw);
            for (int k = 0; k < 4; k++)
                json_figure(&jw, prec[k], d.conv_efficiency[k]);
            json_end(&jw);
            json_figure(&jw, "memory_gib", d.memory_gib);
            json_figure(&jw, "memory_bandwidth_gb_s", d.memory_bandwidth_gb_s);
            json_figure(&jw, "memory_efficiency", d.memory_efficiency);
            json_figure(&jw, "stream_efficiency", d.stream_efficiency);
            json_field_int(&jw, "devices_per_node", d.devices_per_node);
            json_figure(&jw, "sm_count", d.sm_count);
            json_figure(&jw, "fp32_lanes_per_sm", d.fp32_lanes_per_sm);
            json_figure(&jw, "boost_clock_mhz", d.boost_clock_mhz);
            json_figure(&jw, "l2_mib", d.l2_mib);
            json_figure(&jw, "power_limit_w", d.power_limit_w);
            json_figure(&jw, "sustained_clock_mhz", d.sustained_clock_mhz);
            json_figure(&jw, "light_clock_mhz", d.light_clock_mhz);
            json_field_number(&jw, "launch_overhead_us", d.launch_overhead_us);
            json_field_int(&jw, "max_devices_per_node", d.max_devices_per_node);
            json_figure(&jw, "intra_node_bandwidth_gb_s", d.intra_node_bandwidth_gb_s);
            json_field_number(&jw, "intra_node_latency_us", d.intra_node_latency_us);
            json_field_int(&jw, "inter_node_ports", d.inter_node_ports);
            json_figure(&jw, "inter_node_bandwidth_gb_s", d.inter_node_bandwidth_gb_s);
            json_field_number(&jw, "inter_node_latency_us", d.inter_node_latency_us);
            json_text(&jw, "tensor_cores", d.tensor_cores);
            json_text(&jw, "memory_type", d.memory_type);
            json_text(&jw, "source", d.source);
            json_text(&jw, "framework", d.framework);
            json_text(&jw, "framework_base", d.framework_base);
            json_field_string(&jw, "path", path);
            json_end(&jw);
        }
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
    return failed;
}
