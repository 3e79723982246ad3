/* Output helpers shared by every command. */
#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int report_error(const char *msg)
{
    fprintf(stderr, "scalemeter: %s\n", msg);
    return 1;
}

const char *option_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t len = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, len) != 0)
        return NULL;
    if (arg[len] == '=')
        return arg + len + 1;
    if (arg[len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        fprintf(stderr, "scalemeter: option %s needs a value\n", name);
        return NULL;
    }
    return argv[++*i];
}

int parse_format(const char *text, unsigned allowed, output_format *out)
{
    static const char *const names[] = {"table", "csv", "json", "svg"};
    for (int i = 0; i < 4; i++)
        if (strcmp(text, names[i]) == 0 && (allowed & (1u << i))) {
            *out = (output_format)i;
            return 0;
        }
    char msg[256];
    int used = snprintf(msg, sizeof msg, "--format %s: expected one of", text);
    for (int i = 0; i < 4; i++)
        if (allowed & (1u << i))
            used += snprintf(msg + used, sizeof msg - (size_t)used, " %s", names[i]);
    report_error(msg);
    return -1;
}

int parse_positive(const char *option, const char *text, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < 1 || v > max) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s %s: expected an integer from 1 to %lld", option, text,
                 (long long)max);
        report_error(msg);
        return -1;
    }
    *out = v;
    return 0;
}

const char *fmt_count(int64_t v, char *buf, size_t len)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%" PRId64, v < 0 ? -v : v);
    size_t n = strlen(digits), used = 0;
    if (v < 0 && used + 1 < len)
        buf[used++] = '-';
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        if (i && (n - i) % 3 == 0 && used + 2 < len)
            buf[used++] = ',';
        buf[used++] = digits[i];
    }
    buf[used] = '\0';
    return buf;
}

const char *fmt_si(double v, char *buf, size_t len)
{
    static const char *const units[] = {"", " k", " M", " G", " T", " P", " E"};
    int u = 0;
    double a = fabs(v);
    while (a >= 1000 && u < 6) {
        a /= 1000;
        v /= 1000;
        u++;
    }
    snprintf(buf, len, u ? "%.3g%s" : "%.4g%s", v, units[u]);
    return buf;
}

const char *fmt_seconds(double s, char *buf, size_t len)
{
    if (isnan(s))
        snprintf(buf, len, "-");
    else if (s >= 86400 * 1e5) /* in 3 digits, so that the unit always fits the column */
        snprintf(buf, len, "%.3g d", s / 86400);
    else if (s >= 3600 * 48)
        snprintf(buf, len, "%.1f d", s / 86400);
    else if (s >= 3600)
        snprintf(buf, len, "%.2f h", s / 3600);
    else if (s >= 60)
        snprintf(buf, len, "%.2f min", s / 60);
    else if (s >= 1)
        snprintf(buf, len, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(buf, len, "%.3g ms", s * 1e3);
    else
        snprintf(buf, len, "%.3g us", s * 1e6);
    return buf;
}

struct text_table {
    int n_cols, n_rows, cap;
    char **cells; /* row-major, row 0 = headers */
};

text_table *table_new(int n_cols, const char *const *headers)
{
    text_table *t = calloc(1, sizeof *t);
    t->n_cols = n_cols;
    table_add(t, headers);
    return t;
}

void table_add(text_table *t, const char *const *cells)
{
    if (t->n_rows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->cells = realloc(t->cells, (size_t)t->cap * (size_t)t->n_cols * sizeof *t->cells);
    }
    for (int c = 0; c < t->n_cols; c++)
        t->cells[t->n_rows * t->n_cols + c] = strdup(cells[c] ? cells[c] : "");
    t->n_rows++;
}

/* A number as these tables print one: "25,557,032", "4.09 G", "1.5 ms", "64x56x56", "-". Text
 * that merely starts with a digit ("2-D convolution") is not. */
static int looks_numeric(const char *s)
{
    if (!isdigit((unsigned char)*s) && !((*s == '-' || *s == '+') && isdigit((unsigned char)s[1])))
        return 0;
    const char *unit = strchr(s, ' ');
    size_t len = unit ? (size_t)(unit - s) : strlen(s);
    if (unit && (strlen(unit + 1) > 3 || strspn(unit + 1, "kMGTPEmunsihd/%") != strlen(unit + 1)))
        return 0;
    return strspn(s, "0123456789.,+-xe%") == len;
}

void table_print(const text_table *t, FILE *out)
{
    int width[64] = {0};
    for (int r = 0; r < t->n_rows; r++)
        for (int c = 0; c < t->n_cols && c < 64; c++) {
            int w = (int)strlen(t->cells[r * t->n_cols + c]);
            if (w > width[c])
                width[c] = w;
        }
    for (int r = 0; r < t->n_rows; r++) {
        for (int c = 0; c < t->n_cols; c++) {
            const char *s = t->cells[r * t->n_cols + c];
            int right = r > 0 && looks_numeric(s);
            if (r == 0 && t->n_rows > 1)
                right = looks_numeric(t->cells[t->n_cols + c]);
            const char *sep = c + 1 < t->n_cols ? "  " : "";
            if (right)
                fprintf(out, "%*s%s", width[c], s, sep);
            else if (c + 1 < t->n_cols)
                fprintf(out, "%-*s%s", width[c], s, sep);
            else
                fprintf(out, "%s", s);
        }
        fputc('\n', out);
    }
}

void table_free(text_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n_rows * t->n_cols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t);
}

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}
