/* The parser and the help printer of option tables (option_table.h). */
#include "option_table.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

/* The most options of one command, over all its groups. */
#define MAX_OPTS 64
/* The column at which the help's text starts, as the hand-written helps had it. */
#define HELP_COLUMN 21

/* "--name", for the parsers' messages. */
static const char *dashed(const opt_desc *d, char *buf, size_t len)
{
    snprintf(buf, len, "--%s", d->name);
    return buf;
}

int opt_string(const opt_desc *d, const char *arg, void *field)
{
    /* an empty name names nothing: --device "" read as a file ".ini" of the devices' folder */
    if (!arg[0]) {
        char msg[128];
        snprintf(msg, sizeof msg, "--%s is empty: give its %s (--help says what it takes)", d->name,
                 d->arg ? d->arg : "value");
        return report_error(msg), -1;
    }
    *(const char **)field = arg;
    return 0;
}

int opt_flag(const opt_desc *d, const char *arg, void *field)
{
    (void)d, (void)arg;
    *(int *)field = 1;
    return 0;
}

int opt_int(const opt_desc *d, const char *arg, void *field)
{
    char name[64];
    return parse_positive(dashed(d, name, sizeof name), arg, d->max, field);
}

/* --dataset counts samples in digits. A suffix (15T) is how --tokens counts, and what a user
 * who thinks of a language model's dataset in tokens writes: said, rather than a bare
 * "expected an integer". */
int opt_dataset(const opt_desc *d, const char *arg, void *field)
{
    size_t n = strlen(arg);
    if (n >= 2 && strchr("kKmMbBgGtTpP", arg[n - 1]) && isdigit((unsigned char)arg[n - 2])) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "--dataset %s: samples are counted in digits (--dataset 1281167); a sequence "
                 "network's dataset in tokens, with a suffix, is --tokens %s",
                 arg, arg);
        return report_error(msg), -1;
    }
    return opt_int(d, arg, field);
}

int opt_tokens(const opt_desc *d, const char *arg, void *field)
{
    char name[64];
    return parse_tokens(dashed(d, name, sizeof name), arg, field);
}

int opt_mib(const opt_desc *d, const char *arg, void *field)
{
    (void)d;
    return parse_bucket_mib(arg, field);
}

int opt_format(const opt_desc *d, const char *arg, void *field)
{
    return parse_format(arg, (unsigned)d->max, field);
}

int opt_list(const opt_desc *d, const char *arg, void *field)
{
    char name[64];
    opt_list_value *l = field;
    return parse_list(dashed(d, name, sizeof name), arg, d->max, l->v, &l->n);
}

int opt_ratio(const opt_desc *d, const char *arg, void *field)
{
    (void)d;
    return parse_threshold(arg, field);
}

/* Every descriptor of the groups in one list, with the group it belongs to. */
typedef struct flat_opts {
    const opt_desc *d[MAX_OPTS];
    void *base[MAX_OPTS];
    int n;
} flat_opts;

static void flatten(const opt_group *groups, int n_groups, flat_opts *f)
{
    f->n = 0;
    for (int g = 0; g < n_groups; g++)
        for (int i = 0; i < groups[g].n_opts && f->n < MAX_OPTS; i++, f->n++) {
            f->d[f->n] = &groups[g].opts[i];
            f->base[f->n] = groups[g].base;
        }
}

int opt_parse(const opt_command *cmd, const opt_group *groups, int n_groups, int argc, char **argv,
              int *first)
{
    flat_opts f;
    flatten(groups, n_groups, &f);
    struct option longs[MAX_OPTS + 2];
    char shorts[2 * MAX_OPTS + 2] = "h";
    size_t ns = 1;
    for (int k = 0; k < f.n; k++) {
        const opt_desc *d = f.d[k];
        /* A long name returns its letter where it has one: -g and --gpus-per-node are one option
         * to next_option's count of repeats. */
        longs[k] = (struct option){d->name, d->arg ? required_argument : no_argument, 0,
                                   d->short_name ? d->short_name : 256 + k};
        if (d->short_name) {
            shorts[ns++] = (char)d->short_name;
            if (d->arg)
                shorts[ns++] = ':';
        }
    }
    shorts[ns] = '\0';
    longs[f.n] = (struct option){"help", no_argument, 0, 'h'};
    longs[f.n + 1] = (struct option){0, 0, 0, 0};
    char msg[512];
    for (int c; (c = next_option(argc, argv, shorts, longs, msg, sizeof msg)) != -1;) {
        if (c == 'h') {
            opt_usage(cmd, groups, n_groups);
            command_exit(0);
        }
        int k = c - 256;
        for (int j = 0; c < 256 && j < f.n; j++)
            if (f.d[j]->short_name == c)
                k = j;
        if (c == '?' || k < 0 || k >= f.n)
            return usage_error(cmd->name, msg);
        if (f.d[k]->parse(f.d[k], optarg, (char *)f.base[k] + f.d[k]->field))
            return 2;
    }
    *first = optind;
    return 0;
}

/* "  -g, --gpus-per-node G  devices per node ...", continuation lines under the text. */
static void print_option(const opt_desc *d)
{
    char left[96];
    int n = d->short_name ? snprintf(left, sizeof left, "  -%c, --%s", d->short_name, d->name)
                          : snprintf(left, sizeof left, "  --%s", d->name);
    if (d->arg)
        n += snprintf(left + n, sizeof left - (size_t)n, " %s", d->arg);
    printf("%s%*s", left, n < HELP_COLUMN - 1 ? HELP_COLUMN - n : 2, "");
    for (const char *h = d->help; *h;) {
        const char *nl = strchr(h, '\n');
        int len = nl ? (int)(nl - h) : (int)strlen(h);
        printf("%.*s\n", len, h);
        h += len + (nl != NULL);
        if (*h)
            printf("%*s", HELP_COLUMN, "");
    }
}

void opt_usage(const opt_command *cmd, const opt_group *groups, int n_groups)
{
    printf("usage: scalemeter %s %s\n\n%s\n", cmd->name, cmd->synopsis, cmd->about);
    for (int g = 0; g < n_groups; g++) {
        printf("\n%s:\n", groups[g].title);
        for (int i = 0; i < groups[g].n_opts; i++)
            print_option(&groups[g].opts[i]);
    }
    printf("  -h, --help         this help\n");
    if (cmd->footer) {
        printf("\n");
        cmd->footer();
    }
}
