/* Options as data, after git's parse-options: a command declares its options in tables of
 * descriptors (long name, short letter, argument, parser with its range, where the value goes,
 * help), grouped; one parser reads argv by them and one printer writes --help from them, so
 * that an option is one entry in one place. */
#ifndef SCALEMETER_CLI_OPTION_TABLE_H
#define SCALEMETER_CLI_OPTION_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "option_values.h"

typedef struct opt_desc opt_desc;

/* Reads arg into the value at field; -1 after a one-line message naming the option. */
typedef int (*opt_parse_fn)(const opt_desc *d, const char *arg, void *field);

struct opt_desc {
    const char *name;   /* the long name, without "--" */
    int short_name;     /* a letter, or 0 */
    const char *arg;    /* the argument's name in the help; NULL: a flag */
    opt_parse_fn parse; /* one of the opt_* below */
    int64_t max;        /* opt_int and opt_list: from 1 to max; opt_format: a mask of formats */
    size_t field;       /* offsetof the value in the group's struct */
    const char *help;   /* lines separated by '\n' */
};

/* Where the value of a table's option goes: offsetof, under a short name for the tables. */
#define OPT_AT(type, member) offsetof(type, member)

/* A table of descriptors and the struct its offsets point into. */
typedef struct opt_group {
    const char *title; /* a heading of the help */
    const opt_desc *opts;
    int n_opts;
    void *base;
} opt_group;

#define OPT_GROUP(title, table, base)                                                              \
    {                                                                                              \
        title, table, (int)(sizeof table / sizeof table[0]), base                                  \
    }

/* What --help says around the groups. */
typedef struct opt_command {
    const char *name;     /* "predict" */
    const char *synopsis; /* "MODEL (--batch B | --max-batch) [options]" */
    const char *about;    /* a paragraph after the usage line */
    void (*footer)(void); /* what follows the options (the output's columns), or NULL */
} opt_command;

/* The parsers: a string as given; a flag set to 1; an integer from 1 to max; --tokens' count
 * with SI suffixes; --bucket-mib; --format among the mask max; curve's lists (opt_list_value);
 * --threshold. */
int opt_string(const opt_desc *d, const char *arg, void *field);
int opt_flag(const opt_desc *d, const char *arg, void *field);
int opt_int(const opt_desc *d, const char *arg, void *field);
int opt_dataset(const opt_desc *d, const char *arg, void *field); /* opt_int, suffixes named */
int opt_tokens(const opt_desc *d, const char *arg, void *field);
int opt_mib(const opt_desc *d, const char *arg, void *field);
int opt_format(const opt_desc *d, const char *arg, void *field);
int opt_list(const opt_desc *d, const char *arg, void *field);
int opt_ratio(const opt_desc *d, const char *arg, void *field);

/* The value of opt_list: up to OPTION_MAX_SWEEP values, n 0 where the option is not given. */
typedef struct opt_list_value {
    int64_t v[OPTION_MAX_SWEEP];
    int n;
} opt_list_value;

/* Parses argv (argv[0] the command's name) by the groups: --help (-h) prints the help and
 * exits 0; the operands are then argv[*first] to argv[argc - 1]. Returns 0, or 2 after a
 * one-line message (an unknown option, a bad value). */
int opt_parse(const opt_command *cmd, const opt_group *groups, int n_groups, int argc, char **argv,
              int *first);
/* The help of cmd: the usage line, the paragraph, every group's options, the footer. */
void opt_usage(const opt_command *cmd, const opt_group *groups, int n_groups);

#endif
