/* INI files through inih, with line numbers and no silent truncation (ini_reader.h). */
#define _GNU_SOURCE
#include "util/ini_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define MAX_LINE_SHOWN 198 /* inih's INI_MAX_LINE (200) less the newline and the terminator */

static char *read_line(char *str, int num, void *stream)
{
    sm_ini_reader *r = stream;
    ssize_t len = getline(&r->buf, &r->cap, r->f);
    if (len < 0)
        return NULL;
    r->line++;
    while (len > 0 && (r->buf[len - 1] == '\n' || r->buf[len - 1] == '\r'))
        r->buf[--len] = '\0';
    if (len >= num - 1) { /* inih would split it silently; refuse instead */
        r->too_long = r->line;
        return NULL;
    }
    memcpy(str, r->buf, (size_t)len + 1);
    const char *p = r->buf;
    while (*p == ' ' || *p == '\t')
        p++;
    r->indented = p != r->buf && *p;
    if (*p == '[') {
        r->new_section = 1;
        r->section_line = r->line;
    }
    return str;
}

int sm_ini_parse(const char *path, sm_ini_reader *r, ini_handler handler, void *user,
                 const int *fail, sm_status *st)
{
    memset(r, 0, sizeof *r);
    r->f = sm_input_open(&path);
    if (!r->f)
        return sm_fail(st, "%s: cannot open: %s", path, strerror(errno));
    int rc = ini_parse_stream(read_line, r, handler, user);
    sm_input_close(r->f);
    free(r->buf);
    r->buf = NULL;
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
