/* The JSON writer (json_writer.h): a stack of open containers decides each separator. */
#include "json_writer.h"

#include <inttypes.h>
#include <math.h>

void json_init(json_writer *w, FILE *out) { *w = (json_writer){.out = out}; }

/* A new line, indented two spaces for each open container, of the DEPTH outermost, that puts
 * its members on lines of their own: {"curves": [ one line a curve, its points further in. */
static void indent(json_writer *w, int depth)
{
    fputc('\n', w->out);
    for (int i = 0; i < depth; i++)
        if (w->lines[i])
            fputs("  ", w->out);
}

/* What goes before a value: in an array, the comma and space (or line); in an object, nothing
 * (json_key wrote it), but a value with no key is misuse. */
static void before_value(json_writer *w)
{
    if (w->depth == 0)
        return;
    int d = w->depth - 1;
    if (w->kind[d] == '{') {
        if (w->count[d] < 0) /* json_key marks the value as due by negating the count */
            w->count[d] = -w->count[d];
        else
            w->errors++;
        return;
    }
    if (w->count[d])
        fputc(',', w->out);
    if (w->lines[d])
        indent(w, w->depth);
    else if (w->count[d])
        fputc(' ', w->out);
    w->count[d]++;
}

static void begin(json_writer *w, char kind)
{
    before_value(w);
    fputc(kind, w->out);
    if (w->depth == JSON_MAX_DEPTH) {
        w->errors++;
        return;
    }
    w->kind[w->depth] = kind;
    w->count[w->depth] = 0;
    w->lines[w->depth] = 0;
    w->depth++;
}

void json_begin_object(json_writer *w) { begin(w, '{'); }

void json_begin_array(json_writer *w) { begin(w, '['); }

void json_one_per_line(json_writer *w)
{
    if (w->depth)
        w->lines[w->depth - 1] = 1;
}

void json_end(json_writer *w)
{
    if (w->depth == 0) {
        w->errors++;
        return;
    }
    int d = --w->depth;
    if (w->count[d] < 0) { /* a key with no value */
        w->errors++;
        fputs("null", w->out);
    }
    if (w->lines[d] && w->count[d])
        indent(w, d);
    fputc(w->kind[d] == '{' ? '}' : ']', w->out);
    if (d == 0)
        fputc('\n', w->out);
}

int utf8_length(const unsigned char *s)
{
    int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
    unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (s[0] < 0xc2 || s[0] > 0xf4)
        return 0;
    if (s[0] == 0xe0)
        lo = 0xa0;
    else if (s[0] == 0xed)
        hi = 0x9f;
    else if (s[0] == 0xf0)
        lo = 0x90;
    else if (s[0] == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* JSON text is UTF-8 (RFC 8259): a byte that begins no well-formed sequence (a description
 * written in Latin-1, say) is written as U+FFFD, so that every reader accepts the output. */
static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    while (*s) {
        unsigned char ch = (unsigned char)*s;
        int n = 1;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", out);
        else if (ch == '\t')
            fputs("\\t", out);
        else if (ch < 0x20 || ch == 0x7f)
            fprintf(out, "\\u%04x", ch);
        else if (ch < 0x80)
            fputc(ch, out);
        else if ((n = utf8_length((const unsigned char *)s)) > 0)
            fwrite(s, 1, (size_t)n, out);
        else {
            fputs("\\ufffd", out);
            n = 1;
        }
        s += n;
    }
    fputc('"', out);
}

void json_key(json_writer *w, const char *key)
{
    int d = w->depth - 1;
    if (d < 0 || w->kind[d] != '{' || w->count[d] < 0) {
        w->errors++;
        return;
    }
    if (w->count[d])
        fputc(',', w->out);
    if (w->lines[d])
        indent(w, w->depth);
    else if (w->count[d])
        fputc(' ', w->out);
    put_string(w->out, key);
    fputs(": ", w->out);
    w->count[d] = -(w->count[d] + 1);
}

void json_number_digits(json_writer *w, double v, int digits)
{
    before_value(w);
    if (isfinite(v))
        fprintf(w->out, "%.*g", digits, v == 0 ? 0.0 : v); /* -0 is 0 */
    else
        fputs("null", w->out);
}

void json_number(json_writer *w, double v) { json_number_digits(w, v, 6); }

void json_whole(json_writer *w, double v)
{
    before_value(w);
    if (isfinite(v))
        fprintf(w->out, "%.0f", v == 0 ? 0.0 : round(v)); /* never an exponent */
    else
        fputs("null", w->out);
}

void json_int(json_writer *w, int64_t v)
{
    before_value(w);
    fprintf(w->out, "%" PRId64, v);
}

void json_string(json_writer *w, const char *s)
{
    before_value(w);
    if (s)
        put_string(w->out, s);
    else
        fputs("null", w->out);
}

void json_bool(json_writer *w, int v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->out);
}

void json_null(json_writer *w)
{
    before_value(w);
    fputs("null", w->out);
}

void json_field_number(json_writer *w, const char *key, double v)
{
    json_key(w, key);
    json_number(w, v);
}

void json_field_int(json_writer *w, const char *key, int64_t v)
{
    json_key(w, key);
    json_int(w, v);
}

void json_field_string(json_writer *w, const char *key, const char *s)
{
    json_key(w, key);
    json_string(w, s);
}

void json_field_bool(json_writer *w, const char *key, int v)
{
    json_key(w, key);
    json_bool(w, v);
}

void json_field_null(json_writer *w, const char *key)
{
    json_key(w, key);
    json_null(w);
}
