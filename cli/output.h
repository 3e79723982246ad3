/* Shared output helpers of the commands: aligned tables, numbers for people, JSON and CSV. */
#ifndef SCALEMETER_CLI_OUTPUT_H
#define SCALEMETER_CLI_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "scalemeter/scalemeter.h"

typedef enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON, FORMAT_SVG } output_format;

/* "table", "csv", "json" or "svg" (where allowed, a mask of 1 << format); -1 with a message. */
int parse_format(const char *text, unsigned allowed, output_format *out);
/* A positive integer option; -1 with a message naming the option. */
int parse_positive(const char *option, const char *text, int64_t max, int64_t *out);

/* 25557032 -> "25,557,032" */
const char *fmt_count(int64_t v, char *buf, size_t len);
/* 4.09e9 -> "4.09 G" */
const char *fmt_si(double v, char *buf, size_t len);
/* 0.00123 -> "1.23 ms" */
const char *fmt_seconds(double s, char *buf, size_t len);

/* A table of text cells printed with aligned columns; numbers align right. */
typedef struct text_table text_table;
text_table *table_new(int n_cols, const char *const *headers);
void table_add(text_table *t, const char *const *cells);
void table_print(const text_table *t, FILE *out);
void table_free(text_table *t);

void json_string(FILE *out, const char *s);
void csv_field(FILE *out, const char *s);

/* Matches argv[*i] against "--name VALUE" or "--name=VALUE": returns the value (advancing *i
 * past it), or NULL when the argument is another option. Sets *missing when the value is. */
const char *option_value(int argc, char **argv, int *i, const char *name, int *missing);

/* Prints "scalemeter: MESSAGE" to stderr and returns the exit status for errors. */
int report_error(const char *msg);

#endif
