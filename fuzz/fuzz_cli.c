/* Fuzz target: the values of the command-line options (cli/option_values.c and cli/output.c):
 * byte counts with suffixes (64M, 1KiB), integer lists (1,2,4), sweeps (1:64), fractions
 * (10%), FILE@NODES operands, --format names, and the option splitter itself (next_option) on
 * an argv cut from the input at each NUL. The first byte picks the parser; each value parsed
 * is checked against the promise its parser makes. */
#include <getopt.h>
#include <math.h>

#include "fuzz_common.h"
#include "option_values.h"
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
    int n, i;
    char *items[OPTION_MAX_LIST];
    output_format f;
    switch (which) {
    case 0:
        if (parse_bytes("--min-bytes", text, &u64, &st) == 0)
            check(u64 >= 4 && u64 <= OPTION_MAX_BYTES && u64 % 4 == 0);
        break;
    case 1:
        if (parse_count("--iters", text, 0, &i, &st) == 0)
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
        if (parse_size(text, &d) == 0)
            check(d >= 0 && isfinite(d));
        break;
    case 8: {
        int at = strchr(text, '@') != NULL;
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

/* argv from the NUL-separated input, under a command with every kind of option. */
static void options(char *text, size_t len)
{
    enum { MAX_ARGS = 32 };
    char *argv[MAX_ARGS + 1] = {"fuzz"};
    int argc = 1;
    for (size_t k = 0; k <= len && argc < MAX_ARGS; k += strlen(text + k) + 1)
        argv[argc++] = text + k;
    argv[argc] = NULL;
    static const struct option longs[] = {
        {"help", no_argument, 0, 'h'},       {"batch", required_argument, 0, 'b'},
        {"batches", required_argument, 0, 'B'}, {"format", required_argument, 0, 'f'},
        {"nonneg", no_argument, 0, 'n'},     {"no-nonneg", no_argument, 0, 'N'},
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
    if (data[0] < 0xf0)
        values(data[0] % 11, text);
    else
        options(text, size - 1);
    free(text);
    return 0;
}
