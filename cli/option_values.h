/* Parsers of option values shared by the commands and fuzzed by fuzz/fuzz_cli.c. */
#ifndef SCALEMETER_CLI_OPTION_VALUES_H
#define SCALEMETER_CLI_OPTION_VALUES_H

#include <stdint.h>

#include "scalemeter/scalemeter.h"

/* The largest byte count of allreduce's --min-bytes, --max-bytes and --chunk-bytes. */
#define OPTION_MAX_BYTES (UINT64_C(64) << 30)
/* The most items of one of bench's comma lists. */
#define OPTION_MAX_LIST 64
/* The most values one of curve's sweeps expands to. */
#define OPTION_MAX_SWEEP 256

/* Whether text is a number in plain decimal: digits with at most one '.', and an exponent
 * (e, E, a sign, digits) after; no sign, space, hexadecimal (0x10), inf or nan, all of which
 * strtod takes. */
int plain_decimal(const char *text);
/* Whether text is a whole number in decimal digits alone: no sign, space, hexadecimal (0x10)
 * or exponent, which strtol takes or stops at. */
int plain_digits(const char *text);

/* allreduce: a multiple of 4 bytes from 4 to 64G, suffixes K, M, G (KB, KiB, ...). */
int parse_bytes(const char *option, const char *text, uint64_t *out, sm_status *st);
/* allreduce: an integer from lo to hi. */
int parse_count(const char *option, const char *text, int lo, int hi, int *out, sm_status *st);

/* bench: "a,b,c" into up to OPTION_MAX_LIST items, each strdup'ed (the caller frees the *n
 * made, also on failure). */
int split_list(const char *option, const char *text, char **items, int *n, sm_status *st);
/* bench: an integer from lo to hi. */
int parse_int(const char *option, const char *text, int64_t lo, int64_t hi, int64_t *out,
              sm_status *st);
/* bench: a positive finite number. */
int parse_real(const char *option, const char *text, double *out, sm_status *st);
/* bench: "1,2,4" into up to OPTION_MAX_LIST integers from 1 to hi. */
int parse_int_list(const char *option, const char *text, int64_t hi, int64_t *out, int *n,
                   sm_status *st);

/* curve: "64", "32,64,128", "1:64" (doubling from A up to B) or a mix, into up to
 * OPTION_MAX_SWEEP values from 1 to max; the message on standard error. */
int parse_list(const char *option, const char *text, int64_t max, int64_t *out, int *n);
/* curve --threshold: above 0 and at most 1, "0.1" or "10%". */
int parse_threshold(const char *text, double *out);

/* The most tokens --tokens accepts: 1000P. */
#define OPTION_MAX_TOKENS INT64_C(1000000000000000000)
/* predict and curve --tokens: a dataset in tokens, a whole number with an SI suffix for
 * powers of 1000 (K, M, B or G, T, P: 300M, 2.5B, 15T); 0 tokens is refused; the message on
 * standard error. */
int parse_tokens(const char *option, const char *text, int64_t *out);
/* fit-comm --min-bytes: whole bytes from 0 to 64G, suffixes K, M, G (KB, KiB, ...). */
int parse_size(const char *text, double *out);
/* fit-comm's operands: a name that exists is the file (nodes 0); else FILE@NODES cut at the
 * last '@' (arg keeps FILE), nodes from 1 to 2^20; no '@': nodes 0. */
int parse_file_nodes(char *arg, int64_t *nodes);

#endif
