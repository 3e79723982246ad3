/* Files the library reads may come on the standard input: "-" names it on a command line. */
#define _GNU_SOURCE /* getc_unlocked */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

FILE *sm_input_open(const char **path)
{
    if (strcmp(*path, "-") != 0) {
        FILE *f = fopen(*path, "r");
        struct stat sb;
        /* fopen opens a folder, and its first read fails: say what it is (a pipe, bash's
         * <(...), is read) */
        if (f && fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
            fclose(f);
            errno = EISDIR;
            return NULL;
        }
        return f;
    }
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

int sm_refuse_cr_line_ends(const char *line, int csv, const char *path, int lineno,
                           const char *example, sm_status *st)
{
    int quoted = 0, lone = 0;
    for (const char *p = line; *p; p++) {
        if (csv && *p == '"')
            quoted = !quoted; /* "" inside quotes: out and straight back in */
        else if (*p == '\r' && !quoted && p[1] && p[1] != '\n')
            lone++;
    }
    if (lone < 2 && (lone == 0 || strchr(line, '\n')))
        return 0;
    return sm_fail(st,
                   "%s:%d: the lines end in a carriage return alone (classic Mac OS line ends), "
                   "which reads as one line: convert them to LF, e.g. tr '\\r' '\\n' < %s > %s",
                   path, lineno, path, example);
}
