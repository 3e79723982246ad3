/* The values of the commands' options, parsed apart from the commands so that the fuzz target
 * of fuzz/fuzz_cli.c reaches them: byte counts with suffixes (64M, 1K, 2GiB), integer lists
 * (1,2,4), sweeps (1:64), fractions (10%) and FILE@NODES operands. Each returns 0, or -1 with a
 * one-line message naming the option (in st, or on standard error where it takes none). */
#include "option_values.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"

int plain_decimal(const char *text)
{
    const char *p = text;
    int digits = 0;
    for (; isdigit((unsigned char)*p); p++)
        digits++;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            digits++;
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return *p == '\0';
}

int plain_digits(const char *text)
{
    const char *p = text;
    while (isdigit((unsigned char)*p))
        p++;
    return p != text && *p == '\0';
}

/* "64M", "1K", "4096", "2GiB": whole bytes in decimal digits with a binary suffix, at most
 * 64G; -1 for anything else (a sign, a fraction, an exponent, hex). */
static int whole_bytes(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    int shift = 0;
    if (*end && strchr("kK", *end))
        shift = 10;
    else if (*end && strchr("mM", *end))
        shift = 20;
    else if (*end && strchr("gG", *end))
        shift = 30;
    if (shift)
        end++;
    if (!strcmp(end, "B") || (shift && !strcmp(end, "iB")))
        end += strlen(end);
    if (errno || end == text || *end || !isdigit((unsigned char)text[0]) ||
        v > (OPTION_MAX_BYTES >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int parse_bytes(const char *option, const char *text, uint64_t *out, sm_status *st)
{
    uint64_t v;
    if (whole_bytes(text, &v) || v < 4 || v % 4)
        return sm_fail(st, "%s %s: expected a multiple of 4 bytes from 4 to 64G (suffixes K, M, G)",
                       option, text);
    *out = v;
    return 0;
}

int parse_count(const char *option, const char *text, int lo, int hi, int *out, sm_status *st)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!plain_digits(text) || errno || *end || v < lo || v > hi)
        return sm_fail(st, "%s %s: expected an integer from %d to %d, in decimal digits", option,
                       text, lo, hi);
    *out = (int)v;
    return 0;
}

/* Frees the n items made before a failure, and leaves none (*n = 0): a caller that returns at
 * once on failure leaks nothing. */
static int split_failed(char **items, int *n)
{
    for (int i = 0; i < *n; i++)
        free(items[i]);
    *n = 0;
    return -1;
}

/* "a,b,c" into items (strdup'ed); -1 when empty or too long, with no item left made. */
int split_list(const char *option, const char *text, char **items, int *n, sm_status *st)
{
    *n = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        if (!len)
            return sm_fail(st, "%s '%s': an empty item", option, text), split_failed(items, n);
        if (*n == OPTION_MAX_LIST)
            return sm_fail(st, "%s: more than %d items", option, OPTION_MAX_LIST),
                   split_failed(items, n);
        if (!(items[*n] = strndup(p, len)))
            return sm_fail(st, "out of memory"), split_failed(items, n);
        (*n)++;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

int parse_int(const char *option, const char *text, int64_t lo, int64_t hi, int64_t *out,
              sm_status *st)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!plain_digits(text) || errno || *end || v < lo || v > hi)
        return sm_fail(st, "%s %s: expected an integer from %lld to %lld, in decimal digits",
                       option, text, (long long)lo, (long long)hi);
    *out = v;
    return 0;
}

int parse_real(const char *option, const char *text, double *out, sm_status *st)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (!plain_decimal(text) || errno || end == text || *end || !(v > 0) || !isfinite(v))
        return sm_fail(st, "%s %s: expected a positive number, in decimal", option, text);
    *out = v;
    return 0;
}

int parse_int_list(const char *option, const char *text, int64_t hi, int64_t *out, int *n,
                   sm_status *st)
{
    char *items[OPTION_MAX_LIST];
    int rc = split_list(option, text, items, n, st);
    for (int i = 0; i < *n; i++) {
        if (rc == 0)
            rc = parse_int(option, items[i], 1, hi, &out[i], st);
        free(items[i]);
    }
    return rc;
}

/* "64", "32,64,128", "1:64" (doubling from A up to B) or a mix, into out[]. */
int parse_list(const char *option, const char *text, int64_t max, int64_t *out, int *n)
{
    char msg[512];
    const char *p = text;
    *n = 0;
    for (;;) {
        char *end;
        int64_t range[2];
        int parts = 0;
        for (;;) {
            errno = 0;
            long long v = strtoll(p, &end, 10);
            /* a digit first: strtoll would also skip a space and take a sign */
            if (!isdigit((unsigned char)*p) || errno || v < 1 || v > max) {
                snprintf(msg, sizeof msg,
                         "%s %s: expected integers from 1 to %lld in decimal digits, or A:B, "
                         "separated by commas",
                         option, text, (long long)max);
                return report_error(msg), -1;
            }
            range[parts++] = v;
            p = end;
            if (*p != ':' || parts == 2)
                break;
            p++;
        }
        if (parts == 2 && range[0] > range[1]) {
            snprintf(msg, sizeof msg, "%s %s: the range %lld:%lld runs backwards", option, text,
                     (long long)range[0], (long long)range[1]);
            return report_error(msg), -1;
        }
        for (int64_t v = range[0]; v <= range[parts - 1]; v *= 2) {
            if (*n == OPTION_MAX_SWEEP) {
                snprintf(msg, sizeof msg, "%s %s: more than %d values", option, text,
                         OPTION_MAX_SWEEP);
                return report_error(msg), -1;
            }
            out[(*n)++] = v;
            if (parts == 1 || v > range[1] / 2)
                break;
        }
        /* B is where the doubling stops, not a value of its own: say so where it is left out,
         * or "1:100" gives 64 nodes at most without a word */
        if (parts == 2 && out[*n - 1] != range[1]) {
            say_warning("%s %s: doubling from %lld stops at %lld, below %lld (%lld:%lld,%lld "
                        "adds it)",
                        option, text, (long long)range[0], (long long)out[*n - 1],
                        (long long)range[1], (long long)range[0], (long long)out[*n - 1],
                        (long long)range[1]);
        }
        if (*p == '\0')
            return 0;
        if (*p != ',') {
            snprintf(msg, sizeof msg,
                     "%s %s: unexpected '%c'; expected integers from 1 to %lld in decimal "
                     "digits, or A:B, separated by commas",
                     option, text, *p, (long long)max);
            return report_error(msg), -1;
        }
        p++;
    }
}

/* Whether text up to end (where strtod stopped, before a suffix) is plain decimal. */
static int decimal_before(const char *text, const char *end)
{
    char number[64];
    size_t len = (size_t)(end - text);
    if (len >= sizeof number)
        return 0;
    memcpy(number, text, len);
    number[len] = '\0';
    return plain_decimal(number);
}

int parse_threshold(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    int decimal = decimal_before(text, end); /* before the '%' */
    if (end != text && *end == '%' && end[1] == '\0') {
        v /= 100;
        end++;
    }
    if (!decimal || errno || end == text || *end || !(v > 0 && v <= 1)) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "--threshold %s: expected a gain above 0 and at most 1, in decimal "
                 "(0.1 or 10%%)",
                 text);
        return report_error(msg), -1;
    }
    *out = v;
    return 0;
}

int parse_size(const char *text, double *out)
{
    /* whole bytes, as --min-bytes of allreduce takes them (1e-300 was taken and printed as "at
     * least 0 bytes"), 0 included: it keeps every size */
    uint64_t v;
    if (whole_bytes(text, &v)) {
        fprintf(stderr,
                "scalemeter fit-comm: --min-bytes %s: expected whole bytes from 0 to 64G, in "
                "decimal digits (suffixes K, M, G)\n",
                text);
        return -1;
    }
    *out = (double)v;
    return 0;
}

int parse_file_nodes(char *arg, int64_t *nodes)
{
    /* a name that exists is a file whatever it holds (run@2.txt), as curve's comma lists take
     * an existing name whole; else the '@' is the last one, so that a path may hold others */
    struct stat sb;
    char *at = strrchr(arg, '@');
    *nodes = 0;
    if (!at || stat(arg, &sb) == 0)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(at + 1, &end, 10);
    if (!isdigit((unsigned char)at[1]) || errno || *end || v < 1 || v > (1 << 20)) {
        char msg[640];
        snprintf(
            msg, sizeof msg,
            "%.300s: no such file, and '%.100s' after its last '@' is no node count (FILE@NODES "
            "takes an integer from 1 to 1048576, in decimal digits)",
            arg, at + 1);
        return report_error(msg), -1;
    }
    *at = '\0';
    *nodes = v;
    return 0;
}

/* Whole numbers only: the digits are read as an integer and the suffix's power of 1000 must
 * absorb every decimal, so 2.5B is 2,500,000,000 exactly and no rounding hides 1.5 tokens. */
int parse_tokens(const char *option, const char *text, int64_t *out)
{
    static const struct {
        char c;
        int64_t scale;
    } suffixes[] = {/* either case: "1k" was taken and "1m" refused; a token has no milli */
                    {'K', INT64_C(1000)},
                    {'k', INT64_C(1000)},
                    {'M', INT64_C(1000000)},
                    {'m', INT64_C(1000000)},
                    {'B', INT64_C(1000000000)},
                    {'b', INT64_C(1000000000)},
                    {'G', INT64_C(1000000000)},
                    {'g', INT64_C(1000000000)},
                    {'T', INT64_C(1000000000000)},
                    {'t', INT64_C(1000000000000)},
                    {'P', INT64_C(1000000000000000)},
                    {'p', INT64_C(1000000000000000)}};
    const char *s = text;
    int64_t digits = 0, scale = 1, frac_div = 1;
    int n_digits = 0, in_frac = 0, ok = 1, pending_zeros = 0;
    for (; *s && ok; s++) {
        if (*s == '.' && !in_frac) {
            in_frac = 1;
        } else if (isdigit((unsigned char)*s)) {
            if (in_frac && *s == '0') { /* trailing zeros of a fraction do not count */
                pending_zeros++;
                continue;
            }
            for (; pending_zeros > 0 && ok; pending_zeros--) {
                ok = digits <= OPTION_MAX_TOKENS / 10 && frac_div <= OPTION_MAX_TOKENS / 10;
                digits *= ok ? 10 : 1;
                frac_div *= ok ? 10 : 1;
            }
            ok = ok && digits <= OPTION_MAX_TOKENS / 10;
            if (!ok) /* too many digits: they go no further, nor overflow */
                break;
            digits = digits * 10 + (*s - '0');
            if (in_frac) {
                ok = ok && frac_div <= OPTION_MAX_TOKENS / 10;
                frac_div *= 10;
            }
            n_digits++;
        } else {
            break;
        }
    }
    if (ok && *s) {
        ok = 0;
        for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
            if (*s == suffixes[i].c && s[1] == '\0') {
                scale = suffixes[i].scale;
                ok = 1;
            }
    }
    char msg[256];
    int too_big = !ok && isdigit((unsigned char)*s); /* stopped inside the digits */
    if (!too_big && (!ok || !n_digits || (in_frac && text[0] == '.'))) {
        snprintf(msg, sizeof msg,
                 "%s %s: expected a number of tokens, with K, M, B (or G), T or P for "
                 "powers of 1000 (300M, 2.5B, 15T)",
                 option, text);
        return report_error(msg), -1;
    }
    if (too_big || scale % frac_div || digits > OPTION_MAX_TOKENS / (scale / frac_div)) {
        snprintf(msg, sizeof msg, "%s %s: expected a whole number of tokens up to 1000P", option,
                 text);
        return report_error(msg), -1;
    }
    if (digits == 0) {
        snprintf(msg, sizeof msg, "%s %s: a dataset of 0 tokens has no epoch", option, text);
        return report_error(msg), -1;
    }
    *out = digits * (scale / frac_div);
    return 0;
}
