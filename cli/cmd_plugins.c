/* scalemeter plugins: every loaded layer type and the file it came from. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"

static void usage(void)
{
    printf("usage: scalemeter plugins [--format table|csv|json] [-o FILE]\n\n"
           "Lists every layer type loaded from %s and from the folders of\n"
           "SCALEMETER_PLUGIN_PATH, with the plugin file that provides it.\n",
           sm_plugin_dir());
}

int cmd_plugins(int argc, char **argv)
{
    output_format format = FORMAT_TABLE;
    int rc = format_options(argc, argv, 7, &format, usage);
    if (rc)
        return rc == 1 ? 0 : rc;
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st))
        return report_error(st.msg);
    int n = sm_registry_count(reg);
    if (format == FORMAT_JSON)
        printf("{\"plugins\": [");
    else if (format == FORMAT_CSV)
        printf("type,summary,path\n");
    const char *headers[] = {"type", "summary", "plugin"};
    text_table *t = format == FORMAT_TABLE ? table_new(3, headers) : NULL;
    for (int i = 0; i < n; i++) {
        const sm_layer_type *type = sm_registry_type(reg, i);
        const char *summary = type->summary ? type->summary : "";
        const char *path = sm_registry_path(reg, i);
        if (t) {
            const char *row[] = {type->name, summary, path};
            table_add(t, row);
        } else if (format == FORMAT_CSV) {
            csv_field(stdout, type->name);
            putchar(',');
            csv_field(stdout, summary);
            putchar(',');
            csv_field(stdout, path);
            putchar('\n');
        } else {
            printf("%s\n  {\"type\": ", i ? "," : "");
            json_string(stdout, type->name);
            printf(", \"summary\": ");
            json_string(stdout, summary);
            printf(", \"path\": ");
            json_string(stdout, path);
            printf("}");
        }
    }
    if (t) {
        table_print(t, stdout);
        table_free(t);
    } else if (format == FORMAT_JSON) {
        printf("\n]}\n");
    }
    sm_registry_free(reg);
    return 0;
}
