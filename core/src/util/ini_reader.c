/* INI files through inih, with line numbers and no silent truncation (ini_reader.h). */
#define _GNU_SOURCE
#include "util/ini_reader.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define MAX_SECTION_NAME 49 /* inih's MAX_SECTION (50, ini.c) less the terminator */

/* Refuses the line instead of handing it to inih: r->bad says why. */
static char *refuse(sm_ini_reader *r, const char *why)
{
    r->bad = why;
    r->bad_line = r->line;
    return NULL;
}

/* Where inih's section name ends: at ']', or at an inline comment (';' after whitespace: a
 * syntax error to inih), or at the end of the line (one too). */
static const char *header_end(const char *s)
{
    int was_space = 0;
    while (*s && *s != ']' && !(was_space && *s == ';')) {
        was_space = isspace((unsigned char)*s);
        s++;
    }
    return s;
}

/* A [section] header as inih reads it: records it, and tells the format's on_section. */
static char *header(sm_ini_reader *r, const char *open, char *str)
{
    const char *close = header_end(open + 1);
    if (*close != ']')
        return str;                          /* inih's syntax error */
    if (close - open - 1 > MAX_SECTION_NAME) /* inih would cut the name */
        return refuse(r, "a section name longer than 49 characters");
    /* inih drops what follows the ']' without a word: a key there ("[device] sm_count = 1")
     * was lost, and "[device][node]" read as [device]. Only a comment may follow. */
    const char *after = close + 1;
    while (isspace((unsigned char)*after))
        after++;
    if (*after && *after != ';') {
        snprintf(r->why, sizeof r->why,
                 "'%.40s%s' after the header [%.*s]: a section header stands alone on its line "
                 "(give each key a line of its own; a comment after the header begins with ';')",
                 after, strlen(after) > 40 ? "..." : "", (int)(close - open - 1), open + 1);
        return refuse(r, r->why);
    }
    char name[MAX_SECTION_NAME + 1];
    memcpy(name, open + 1, (size_t)(close - open - 1));
    name[close - open - 1] = '\0';
    /* inih names the keys under "[]" as those before any header (section ""): they were
     * refused as "outside a section", the wrong reason */
    if (!name[strspn(name, " \t")])
        return refuse(r, "a section header without a name: name the section its keys go "
                         "under");
    r->key_seen = 0;
    r->section_line = r->line;
    if (r->format && r->format->on_section && !r->handler_failed &&
        !r->format->on_section(r->user, name, r->line))
        r->handler_failed = r->line;
    return str;
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
    /* what inih makes of the line: it skips a byte-order mark on line 1, then blanks */
    const char *start = r->buf;
    if (r->line == 1 && (unsigned char)start[0] == 0xEF && (unsigned char)start[1] == 0xBB &&
        (unsigned char)start[2] == 0xBF)
        start += 3;
    const char *p = start;
    while (isspace((unsigned char)*p))
        p++;
    r->indented = p != start && *p && *p != ';' && *p != '#';
    /* inih reads an indented line after a key as more of that key's value, even one that
     * looks like a key or a header */
    r->continuation = r->indented && r->key_seen;
    if (r->continuation && !(r->format && r->format->continued)) {
        snprintf(r->why, sizeof r->why,
                 "an indented line continues the value of the key before it (%s, line %d), and "
                 "values here are one line: remove the indentation",
                 r->key, r->key_line);
        return refuse(r, r->why);
    }
    if (!r->continuation && *p == '[')
        return header(r, p, str);
    return str;
}

/* The caller's handler, noting where it first failed; after that, it is not called again: its
 * first message stands. */
static int on_entry(void *user, const char *section, const char *key, const char *value)
{
    sm_ini_reader *r = user;
    if (r->handler_failed)
        return 0;
    if (!r->continuation) {
        r->key_line = r->line;
        snprintf(r->key, sizeof r->key, "%s", key);
    }
    r->key_seen = 1;
    if (!section[0] && !(r->format && r->format->top_keys)) {
        sm_fail(r->st, "%s:%d: %s comes before any [section] header: move it under its section",
                r->path, r->line, key);
        r->handler_failed = r->line;
        return 0;
    }
    /* '#' begins a comment on a line of its own alone (inih's inline comments begin with ';'):
     * after a value it was kept in it, a description's "# comment" in its text where a number
     * so followed was refused as no number. Refused in every value, saying why. */
    for (const char *h = strchr(value, '#'); h; h = strchr(h + 1, '#'))
        if (h == value || isspace((unsigned char)h[-1])) {
            sm_fail(r->st,
                    "%s:%d: %s = %s: '#' begins a comment on a line of its own only; a comment "
                    "after a value begins with ';'",
                    r->path, r->line, key, value);
            r->handler_failed = r->line;
            return 0;
        }
    int ok = r->handler(r->user, section, key, value);
    if (!ok)
        r->handler_failed = r->line;
    return ok;
}

static int syntax_error(const char *path, int line, sm_status *st)
{
    return sm_fail(st, "%s:%d: syntax error: expected [section], NAME = VALUE or a comment", path,
                   line);
}

int sm_ini_parse_format(const char *path, const sm_ini_format *format, sm_ini_reader *r,
                        ini_handler handler, void *user, sm_status *st)
{
    memset(r, 0, sizeof *r);
    r->handler = handler;
    r->user = user;
    r->format = format;
    r->path = path;
    r->st = st;
    r->f = sm_input_open(&path);
    if (!r->f)
        return sm_fail(st, "%s: cannot open: %s", path, strerror(errno));
    r->path = path; /* "<stdin>" for "-" */
    int rc = ini_parse_stream(read_line, r, on_entry, r);
    sm_input_close(r->f);
    free(r->buf);
    r->buf = NULL;
    /* the first problem by line. inih goes on past a syntax error and past a handler's
     * failure, and its rc is the first line of either; a line refused, too long or not, is the
     * last read */
    int syntax = rc > 0 && rc != r->handler_failed ? rc : 0;
    int refused = r->bad ? r->bad_line : r->too_long;
    int first = 0;
    const int lines[] = {syntax, r->handler_failed, refused};
    for (int k = 0; k < 3; k++)
        if (lines[k] && (!first || lines[k] < first))
            first = lines[k];
    if (!first)
        return rc ? sm_fail(st, "%s: cannot parse", path) : 0;
    if (first == syntax)
        return syntax_error(path, syntax, st);
    if (first == r->handler_failed)
        return -1; /* the handler's (or on_entry's) message is in st */
    if (r->bad)
        return sm_fail(st, "%s:%d: %s", path, r->bad_line, r->bad);
    return sm_fail(
        st, "%s:%d: line longer than %d characters; %s", path, r->too_long, SM_INI_MAX_LINE,
        format && format->continued ? "continue it on an indented next line" : "shorten it");
}

int sm_ini_parse(const char *path, sm_ini_reader *r, ini_handler handler, void *user, sm_status *st)
{
    return sm_ini_parse_format(path, NULL, r, handler, user, st);
}

const char *sm_ini_other_kind(const char *section, const char *own, char *buf, size_t len)
{
    static const struct {
        const char *section, *kind;
    } kinds[] = {{"network", "a network file"},
                 {"layers", "a network file"},
                 {"block ", "a network file"},
                 {"template ", "a network file"},
                 {"device", "a device description"},
                 {"node", "a device description"},
                 {"framework", "a device description or framework file"},
                 {"fit", "a coefficient file"},
                 {"infer", "a coefficient file"},
                 {"fwd", "a coefficient file"},
                 {"bwd", "a coefficient file"},
                 {"grad", "a coefficient file"},
                 {"bwd_grad", "a coefficient file"},
                 {"energy_infer", "a coefficient file"},
                 {"energy_step", "a coefficient file"},
                 {"case ", "a cases file of check-plugin"},
                 {"refuse ", "a cases file of check-plugin"}};
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t n = strlen(kinds[k].section);
        int prefix = kinds[k].section[n - 1] == ' ';
        if (prefix ? strncmp(section, kinds[k].section, n) : strcmp(section, kinds[k].section))
            continue;
        if (strcmp(kinds[k].kind, own))
            snprintf(buf, len, " ([%s] begins %s, not %s)", section, kinds[k].kind, own);
        break;
    }
    return buf;
}
