/* Errors travel up as values: a one-line message in an sm_status and a -1 return. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/util.h"

/* The least of a word kept on either side of the "..." that replaces its middle. */
#define KEEP 24

void sm_shorten_message(char *text, size_t cap)
{
    size_t len = strlen(text);
    /* a few words at most: each pass reads the whole text, and a message quoting a file's text
     * may hold many long words */
    for (int pass = 0; pass < 8 && len >= cap; pass++) {
        /* the longest word: a path, as a rule, whose middle says least */
        size_t best = 0, best_len = 0;
        for (size_t i = 0; i < len;) {
            if (isspace((unsigned char)text[i])) {
                i++;
                continue;
            }
            size_t j = i;
            while (j < len && !isspace((unsigned char)text[j]))
                j++;
            if (j - i > best_len)
                best = i, best_len = j - i;
            i = j;
        }
        if (best_len < 2 * KEEP + 4)
            break;
        size_t cut = len - (cap - 1) + 3; /* the bytes taken out, "..." put in */
        if (cut > best_len - 2 * KEEP)
            cut = best_len - 2 * KEEP;
        size_t a = best + (best_len - cut) / 2, b = a + cut;
        /* whole UTF-8 characters on both sides */
        while (a > best && ((unsigned char)text[a] & 0xC0) == 0x80)
            a--;
        while (b < best + best_len && ((unsigned char)text[b] & 0xC0) == 0x80)
            b++;
        memmove(text + a + 3, text + b, len - b + 1);
        memcpy(text + a, "...", 3);
        len -= b - a - 3;
    }
    if (len >= cap && cap >= 4) { /* no word long enough: the end goes, as snprintf cut it */
        size_t end = cap - 4;
        while (end > 0 && ((unsigned char)text[end] & 0xC0) == 0x80)
            end--;
        memcpy(text + end, "...", 4);
    }
}

int sm_fail(sm_status *st, const char *fmt, ...)
{
    if (!st)
        return -1;
    /* formatted apart from st->msg, which may be one of the arguments */
    char msg[sizeof st->msg];
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* a control byte in what was read: escaped (escape.h) */
    char *full = n >= (int)sizeof msg || sm_has_controls(msg) ? malloc((size_t)n + 1) : NULL;
    if (full) {
        vsnprintf(full, (size_t)n + 1, fmt, again);
        char *escaped = sm_escape_controls(full);
        if (escaped) {
            free(full);
            full = escaped;
        }
        /* too long: "PATH:LINE: REASON" loses the middle of PATH, not the REASON at its end */
        if (strlen(full) >= sizeof msg)
            sm_shorten_message(full, sizeof msg);
        snprintf(msg, sizeof msg, "%s", full);
        free(full);
    }
    va_end(again);
    memcpy(st->msg, msg, sizeof msg);
    return -1;
}

int sm_null_arg(sm_status *st, const char *function, const char *arg)
{
    return sm_fail(st, "%s: %s is NULL", function, arg);
}
