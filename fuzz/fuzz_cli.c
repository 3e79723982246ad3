/* Fuzz target: the values of the command-line options (cli/option_values.c and cli/output.c):
 * byte counts with suffixes (64M, 1KiB), integer lists (1,2,4), sweeps (1:64), fractions
 * (10%), FILE@NODES operands, --format names, and the option splitter itself (next_option) on
 * an argv cut from the input at each NUL; and the output writers (numbers for people, JSON and
 * CSV strings, aligned tables). The first byte picks which; each value parsed is checked
 * against the promise its parser makes, each string written against its format. */
#include <getopt.h>
#include <math.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "option_values.h"
#include "json_writer.h"
#include "output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts (a finding) when a parser accepted what it promises to refuse. */
static void check(int ok)
{
    if (!ok)
        abort();
}

static void values(int which, char *text)
{
    sm_status st;
    int64_t list[OPTION_MAX_SWEEP], i64;
    uint64_t u64;
    double d;
    int n = 0, i;
    char *items[OPTION_MAX_LIST];
    output_format f;
    switch (which) {
    case 0:
        if (parse_bytes("--min-bytes", text, &u64, &st) == 0)
            check(u64 >= 4 && u64 <= OPTION_MAX_BYTES && u64 % 4 == 0);
        break;
    case 1:
        if (parse_count("--iters", text, 0, 1000000, &i, &st) == 0)
            check(i >= 0 && i <= 1000000);
        break;
    case 2:
        if (split_list("--model", text, items, &n, &st) == 0)
            check(n >= 1 && n <= OPTION_MAX_LIST);
        for (int k = 0; k < n; k++) {
            check(items[k][0] && !strchr(items[k], ','));
            free(items[k]);
        }
        break;
    case 3:
        if (parse_int_list("--batch", text, 1 << 20, list, &n, &st) == 0)
            for (int k = 0; k < n; k++)
                check(list[k] >= 1 && list[k] <= 1 << 20);
        break;
    case 4:
        if (parse_real("--min-time", text, &d, &st) == 0)
            check(d > 0 && isfinite(d));
        break;
    case 5:
        if (parse_list("--nodes", text, 1 << 20, list, &n) == 0) {
            check(n >= 1 && n <= OPTION_MAX_SWEEP);
            for (int k = 0; k < n; k++)
                check(list[k] >= 1 && list[k] <= 1 << 20);
        }
        break;
    case 6:
        if (parse_threshold(text, &d) == 0)
            check(d > 0 && d <= 1);
        break;
    case 7:
        if (parse_size(text, &d) == 0) /* whole bytes, up to 64 GiB */
            check(d >= 0 && d == floor(d) && d <= (double)OPTION_MAX_BYTES);
        break;
    case 8: {
        struct stat sb; /* a name that exists is a file, whatever '@' it holds */
        int at = strchr(text, '@') != NULL && stat(text, &sb) != 0;
        if (parse_file_nodes(text, &i64) == 0)
            check(at ? i64 >= 1 && i64 <= 1 << 20 : i64 == 0);
        break;
    }
    case 9:
        if (parse_positive("--batch", text, INT64_C(1) << 40, &i64) == 0)
            check(i64 >= 1 && i64 <= INT64_C(1) << 40);
        if (parse_bucket_mib(text, &d) == 0)
            check(d > 0 && d <= 1 << 20);
        break;
    default:
        if (parse_format(text, 1u << FORMAT_TABLE | 1u << FORMAT_CSV, &f) == 0)
            check(f == FORMAT_TABLE || f == FORMAT_CSV);
        break;
    }
}

/* The length of the well-formed UTF-8 sequence at s, or 0: decoded, then held to RFC 3629's
 * ranges (no overlong form, no surrogate, nothing past U+10FFFF). Written apart from the
 * writer's table of second bytes, so that the two check each other. */
static int utf8_sequence(const unsigned char *s)
{
    static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
    int n = s[0] < 0x80             ? 1
            : (s[0] & 0xe0) == 0xc0 ? 2
            : (s[0] & 0xf0) == 0xe0 ? 3
            : (s[0] & 0xf8) == 0xf0 ? 4
                                    : 0;
    if (n < 2)
        return n;
    unsigned cp = s[0] & (0x7fu >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    return cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : n;
}

/* A JSON string as json_string writes it, read back: the text itself, but for each byte that
 * begins no well-formed UTF-8 sequence, which is U+FFFD. */
static void json_round_trip(const char *text, const char *out)
{
    check(*out++ == '"');
    while (*out != '"') {
        unsigned ch = (unsigned char)*out++;
        check(ch >= 0x20);
        if (ch >= 0x80) { /* a sequence passed through whole, and well-formed */
            int n = utf8_sequence((const unsigned char *)text);
            check(n > 1 && memcmp(out - 1, text, (size_t)n) == 0);
            out += n - 1, text += n;
            continue;
        }
        if (ch == '\\') {
            if (*out == 'u') {
                unsigned v;
                check(sscanf(out + 1, "%4x", &v) == 1);
                ch = v, out += 5;
                if (v == 0xfffd) { /* a byte that begins no well-formed sequence */
                    check((unsigned char)*text >= 0x80 &&
                          utf8_sequence((const unsigned char *)text) == 0);
                    text++;
                    continue;
                }
            } else { /* JSON's short escapes, as the writer uses them */
                static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
                const char *k = strchr(from, *out);
                ch = k && *out ? (unsigned char)to[k - from] : (unsigned char)*out;
                out++;
            }
        }
        check((unsigned char)*text++ == ch);
    }
    check(*text == '\0' && out[1] == '\0');
}

/* A CSV field as csv_field writes it, read back as a CSV reader would: the text itself. */
static void csv_round_trip(const char *text, const char *out)
{
    if (*out != '"') {
        check(!strpbrk(out, ",\"\n") && strcmp(out, text) == 0);
        return;
    }
    for (out++; !(out[0] == '"' && out[1] != '"'); text++) {
        if (*out == '"')
            out++;
        check(*out++ == *text);
    }
    check(*text == '\0' && out[1] == '\0');
}

static void writers(int which, char *text)
{
    char buf[64], *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        exit(2);
    switch (which) {
    case 0:
        fmt_count(strtoll(text, NULL, 10), buf, sizeof buf);
        break;
    case 1:
        fmt_si(strtod(text, NULL), buf, sizeof buf);
        fmt_watts(strtod(text, NULL), buf, sizeof buf);
        break;
    case 2:
        fmt_seconds(strtod(text, NULL), buf, sizeof buf);
        break;
    case 3: {
        json_writer w;
        json_init(&w, f);
        json_string(&w, text);
        break;
    }
    case 4:
        csv_field(f, text);
        break;
    default: { /* a table: rows at line ends, cells at commas; as many columns as row 0 */
        enum { MAX_CELLS = 256 };
        const char *cells[MAX_CELLS];
        char *save, *row = strtok_r(text, "\n", &save);
        if (!row)
            break;
        int n_cols = 0;
        for (char *c = row; n_cols < MAX_CELLS; c = strchr(c, ',') + 1) {
            cells[n_cols++] = c;
            if (!strchr(c, ','))
                break;
        }
        for (int c = 0; c < n_cols; c++)
            if (strchr(cells[c], ','))
                *strchr(cells[c], ',') = '\0';
        text_table *t = table_new(n_cols, cells);
        while ((row = strtok_r(NULL, "\n", &save))) {
            for (int c = 0; c < n_cols; c++) {
                cells[c] = row;
                row += strcspn(row, ",");
                if (*row)
                    *row++ = '\0';
            }
            table_add(t, cells);
        }
        table_print(t, f);
        table_free(t);
    }
    }
    fclose(f);
    if (which == 3)
        json_round_trip(text, out);
    else if (which == 4)
        csv_round_trip(text, out);
    free(out);
}

/* argv from the NUL-separated input, under a command with every kind of option. */
static void options(char *text, size_t len)
{
    enum { MAX_ARGS = 32 };
    char *argv[MAX_ARGS + 1] = {"fuzz"};
    int argc = 1;
    for (size_t k = 0; k <= len && argc < MAX_ARGS; k += strlen(text + k) + 1)
        argv[argc++] = text + k;
    argv[argc] = NULL;
    static const struct option longs[] = {{"help", no_argument, 0, 'h'},
                                          {"batch", required_argument, 0, 'b'},
                                          {"batches", required_argument, 0, 'B'},
                                          {"format", required_argument, 0, 'f'},
                                          {"nonneg", no_argument, 0, 'n'},
                                          {"no-nonneg", no_argument, 0, 'N'},
                                          {0, 0, 0, 0}};
    char msg[512];
    /* a command stops at the first '?' (the next call would start the parse afresh) */
    for (int c; (c = next_option(argc, argv, "hb:", longs, msg, sizeof msg)) != -1 && c != '?';) {
        check(c != ':');
        if (c == 'b' || c == 'B' || c == 'f')
            check(optarg != NULL);
    }
    check(optind >= 1 && optind <= argc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* a copy, NUL-ended, that the parsers may write into (FILE@NODES cuts at '@') */
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    if (data[0] < 0xa0)
        values(data[0] % 16, text);
    else if (data[0] < 0xf0)
        writers((data[0] - 0xa0) % 8, text);
    else
        options(text, size - 1);
    free(text);
    return 0;
}
