/* One writer owns JSON's punctuation: braces, commas, key quoting, string escaping and the
 * numbers JSON cannot hold (inf, nan: null). Commands say what they write, never how. */
#ifndef SCALEMETER_CLI_JSON_WRITER_H
#define SCALEMETER_CLI_JSON_WRITER_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

typedef struct {
    FILE *out;
    int depth;                  /* open containers */
    char kind[JSON_MAX_DEPTH];  /* '{' or '[' */
    int count[JSON_MAX_DEPTH];  /* members or elements written so far */
    char lines[JSON_MAX_DEPTH]; /* each member on a line of its own */
    int errors;                 /* misuse: a value with no key, too deep, ... */
} json_writer;

void json_init(json_writer *w, FILE *out);
/* A container; the outermost one closes with a newline. */
void json_begin_object(json_writer *w);
void json_begin_array(json_writer *w);
/* The container just opened puts each member on a line of its own, indented by its depth. */
void json_one_per_line(json_writer *w);
void json_end(json_writer *w);
/* An object's next key; the value follows. */
void json_key(json_writer *w, const char *key);
/* Six significant digits; inf and nan are not JSON: null. */
void json_number(json_writer *w, double v);
/* DIGITS significant digits (17: every double exactly); inf and nan: null. */
void json_number_digits(json_writer *w, double v, int digits);
/* V rounded, in every digit and never in an exponent (byte counts past 2^53); inf, nan: null. */
void json_whole(json_writer *w, double v);
void json_int(json_writer *w, int64_t v);
/* NULL: null. */
void json_string(json_writer *w, const char *s);
void json_bool(json_writer *w, int v);
void json_null(json_writer *w);

/* key and value in one call */
void json_field_number(json_writer *w, const char *key, double v);
void json_field_int(json_writer *w, const char *key, int64_t v);
void json_field_string(json_writer *w, const char *key, const char *s);
void json_field_bool(json_writer *w, const char *key, int v);
void json_field_null(json_writer *w, const char *key);

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 where s holds none: what JSON strings and the
 * SVG's text write as U+FFFD. */
int utf8_length(const unsigned char *s);

#endif
