/* scalemeter plugins: every loaded layer type, what it declares of itself (its ABI version, its
 * traits, whether it says what it keeps for backward) and the file it came from. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"

static void usage(void)
{
    printf("usage: scalemeter plugins [--format table|csv|json] [-o FILE]\n\n"
           "Lists every layer type loaded from %s and from the folders of\n"
           "SCALEMETER_PLUGIN_PATH, with the plugin file that provides it, its ABI version,\n"
           "its traits (how it is priced, fused and classified) and whether it declares what\n"
           "it keeps for backward ('default': the host assumes every input and the output,\n"
           "docs/memory.md).\n",
           sm_plugin_dir());
}

/* The traits' names (plugin.h), '+'-joined in bit order; "" for none (the table's "-", CSV's
 * empty field, JSON's null). */
static const char *traits_text(unsigned traits, char *buf, size_t len)
{
    static const char *const names[] = {
        "matmul",    "convolution", "normalisation", "batch_statistics", "activation", "residual",
        "attention", "recurrent",   "view",          "autocast_fp32",    "embedding",  "tied",
        "pooling",   "loss",        "elementwise"};
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned b = 0; b < sizeof names / sizeof names[0] && used < len; b++)
        if (traits & (1u << b))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "+" : "", names[b]);
    return buf;
}

int cmd_plugins(int argc, char **argv)
{
    output_format format = FORMAT_TABLE;
    int rc = format_options(argc, argv, 7, &format, usage);
    if (rc)
        return rc < 0 ? 0 : rc;
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st))
        return report_error(st.msg);
    if (sm_registry_load_all(reg, &st)) { /* a network loads only its types; this lists all */
        sm_registry_free(reg);
        return report_error(st.msg);
    }
    int n = sm_registry_count(reg);
    json_writer w;
    json_init(&w, stdout);
    if (format == FORMAT_JSON) {
        json_begin_object(&w);
        json_warning_member(&w, ""); /* an option's (given twice) */
        json_key(&w, "plugins");
        json_begin_array(&w);
        json_one_per_line(&w);
    } else if (format == FORMAT_CSV)
        printf("type,abi,traits,saved,summary,path\n");
    const char *headers[] = {"type", "abi", "traits", "saved", "summary", "plugin"};
    text_table *t = format == FORMAT_TABLE ? table_new(6, headers) : NULL;
    for (int i = 0; i < n; i++) {
        const sm_layer_type *type = sm_registry_type(reg, i);
        const char *summary = type->summary ? type->summary : "";
        const char *path = sm_registry_path(reg, i);
        const char *saved = type->saved ? "declared" : "default";
        char abi[16], buf[160];
        snprintf(abi, sizeof abi, "%u", type->abi_version);
        const char *traits = traits_text(type->traits, buf, sizeof buf);
        if (t) {
            const char *row[] = {type->name, abi, traits[0] ? traits : "-", saved, summary, path};
            table_add(t, row);
        } else if (format == FORMAT_CSV) {
            const char *row[] = {type->name, abi, traits, saved, summary, path};
            for (int k = 0; k < 6; k++) {
                if (k)
                    putchar(',');
                csv_field(stdout, row[k]);
            }
            putchar('\n');
        } else {
            json_begin_object(&w);
            json_field_string(&w, "type", type->name);
            json_field_int(&w, "abi", type->abi_version);
            json_field_string(&w, "traits", traits[0] ? traits : NULL);
            json_field_string(&w, "saved", saved);
            json_field_string(&w, "summary", summary);
            json_field_string(&w, "path", path);
            json_end(&w);
        }
    }
    if (t) {
        table_print(t, stdout);
        table_free(t);
    } else if (format == FORMAT_JSON) {
        json_end(&w);
        json_end(&w);
    }
    sm_registry_free(reg);
    return 0;
}
