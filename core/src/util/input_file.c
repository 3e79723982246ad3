/* Files the library reads may come on the standard input: "-" names it on a command line. */
#define _GNU_SOURCE /* getc_unlocked */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

FILE *sm_input_open(const char **path)
{
    if (strcmp(*path, "-") != 0)
        return fopen(*path, "r");
    *path = "<stdin>"; /* what messages call it */
    return stdin;
}

void sm_input_close(FILE *f)
{
    if (f && f != stdin)
        fclose(f);
}

long sm_read_line(FILE *f, char **buf, size_t *cap)
{
    size_t n = 0;
    int ch;
    while ((ch = getc_unlocked(f)) != EOF) {
        if (n + 2 > *cap) {
            size_t want = *cap < 128 ? 256 : 2 * *cap;
            char *grown = realloc(*buf, want);
            if (!grown)
                return -3;
            *buf = grown;
            *cap = want;
        }
        (*buf)[n++] = (char)ch;
        if (ch == '\n')
            break;
        if (n > SM_MAX_LINE_BYTES)
            return -2;
    }
    if (n == 0)
        return -1;
    (*buf)[n] = '\0';
    return (long)n;
}
