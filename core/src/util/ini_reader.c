/* INI files through inih, with line numbers and no silent truncation (ini_reader.h). */
#define _GNU_SOURCE
#include "util/ini_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define MAX_LINE_SHOWN 198  /* inih's INI_MAX_LINE (200) less the newline and the terminator */
#define MAX_SECTION_NAME 49 /* inih's MAX_SECTION (50, ini.c) less the terminator */

/* Refuses the line instead of handing it to inih: r->bad says why. */
static char *refuse(sm_ini_reader *r, const char *why)
{
    r->bad = why;
    r->bad_line = r->line;
    return NULL;
}

static char *read_line(char *str, int num, void *stream)
{
    sm_ini_reader *r = stream;
    long len = sm_read_line(r->f, &r->buf, &r->cap);
    if (len == -1)
        return NULL;
    r->line++;
    if (len == -3)
        return refuse(r, "out of memory");
    if (len == -2) { /* /dev/zero: longer than any line inih takes */
        r->too_long = r->line;
        return NULL;
    }
    while (len > 0 && (r->buf[len - 1] == '\n' || r->buf[len - 1] == '\r'))
        r->buf[--len] = '\0';
    /* inih reads up to the first NUL: the rest of the line would be lost silently */
    if (memchr(r->buf, '\0', (size_t)len))
        return refuse(r, SM_NUL_BYTE);
    /* a CR inside a line: lines that end in CR alone (classic Mac OS), which inih would read
     * as one line */
    if (memchr(r->buf, '\r', (size_t)len))
        return refuse(r, "a carriage return inside the line: end lines with LF or CRLF");
    if (len >= num - 1) { /* inih would split it silently; refuse instead */
        r->too_long = r->line;
        return NULL;
    }
    memcpy(str, r->buf, (size_t)len + 1);
    const char *p = r->buf;
    while (*p == ' ' || *p == '\t')
        p++;
    r->indented = p != r->buf && *p;
    const char *close = *p == '[' ? strchr(p, ']') : NULL;
    if (close && close - p - 1 > MAX_SECTION_NAME) /* inih would cut the name */
        return refuse(r, "a section name longer than 49 characters");
    if (*p == '[') {
        r->new_section = 1;
        r->section_line = r->line;
    }
    return str;
}

/* The caller's handler, noting where it first failed. */
static int on_entry(void *user, const char *section, const char *key, const char *value)
{
    sm_ini_reader *r = user;
    int ok = r->handler(r->user, section, key, value);
    if (!ok && !r->handler_failed)
        r->handler_failed = r->line;
    return ok;
}

int sm_ini_parse(const char *path, sm_ini_reader *r, ini_handler handler, void *user,
                 const int *fail, sm_status *st)
{
    memset(r, 0, sizeof *r);
    r->handler = handler;
    r->user = user;
    r->f = sm_input_open(&path);
    if (!r->f)
        return sm_fail(st, "%s: cannot open: %s", path, strerror(errno));
    int rc = ini_parse_stream(read_line, r, on_entry, r);
    sm_input_close(r->f);
    free(r->buf);
    r->buf = NULL;
    if (r->bad && (!r->handler_failed || r->bad_line < r->handler_failed))
        return sm_fail(st, "%s:%d: %s", path, r->bad_line, r->bad);
    /* inih goes on past a syntax error: a handler's complaint about a later line (a key
     * that the unterminated header left in the section before) is not the first problem */
    if (rc > 0 && (!r->handler_failed || rc < r->handler_failed))
        return sm_fail(st, "%s:%d: syntax error: expected [section], NAME = VALUE or a comment",
                       path, rc);
    if (fail && *fail)
        return -1;
    if (r->too_long)
        return sm_fail(st, "%s:%d: line longer than %d characters%s", path, r->too_long,
                       MAX_LINE_SHOWN,
                       "; continue it on an indented next line where the format "
                       "allows");
    if (rc > 0)
        return sm_fail(st, "%s:%d: syntax error: expected [section], NAME = VALUE or a comment",
                       path, rc);
    return rc ? sm_fail(st, "%s: cannot parse", path) : 0;
}
