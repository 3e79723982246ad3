/* Reading an INI file through inih with line numbers, for every file format of scalemeter
 * (networks, device descriptions, coefficient files): inih's handler is not told the line, so
 * the reader function counts lines itself; and a line too long for inih is refused instead of
 * being cut silently. */
#ifndef SCALEMETER_INI_READER_H
#define SCALEMETER_INI_READER_H

#include <ini.h>
#include <stdio.h>

#include "scalemeter/scalemeter.h"

/* The longest line the reader takes: inih's INI_MAX_LINE (200) less the newline and the
 * terminator (what a writer of these files keeps to) */
#define SM_INI_MAX_LINE 198

/* What a format allows beyond inih's plain lines. */
typedef struct sm_ini_format {
    /* values continue on indented lines (inih's multi-line values: networks); where 0, an
     * indented line after a key is refused, naming the key it would have continued */
    int continued;
    /* the handler takes keys before any [section] (section "") to name them itself; where 0,
     * the reader refuses them */
    int top_keys;
    /* called for each [section] header, empty sections too (inih calls the handler only for
     * keys), with its line; returns 0 on failure, as the handler does */
    int (*on_section)(void *user, const char *section, int line);
} sm_ini_format;

typedef struct sm_ini_reader {
    FILE *f;
    char *buf;
    size_t cap;
    int line;         /* the line inih is handling now */
    int too_long;     /* a line longer than inih takes, or 0 */
    int indented;     /* the current line starts with whitespace and is no comment */
    int continuation; /* ... after a key of its section: inih continues that key's value */
    int key_seen;     /* a key since the last [section] header */
    int key_line;     /* line of the last key (not of its continuations) */
    char key[64];     /* that key */
    int section_line; /* line of the last [section] header */
    const char *bad;  /* why line `bad_line` was refused before inih saw it, or NULL */
    int bad_line;
    char why[256];       /* room for a message of bad's */
    ini_handler handler; /* the caller's, called through sm_ini_parse's own */
    void *user;
    const sm_ini_format *format;
    const char *path;
    sm_status *st;
    int handler_failed; /* line at which the handler (or the reader) first failed, or 0 */
} sm_ini_reader;

/* Parses path, calling handler(user, section, key, value) per entry while r->line says where.
 * 0, or -1 with "PATH:LINE: ..." for a file that cannot be opened, a line too long, a NUL byte,
 * a section name longer than inih keeps or an empty one, text after a header's ']' other than
 * a ';' comment (inih drops it), a '#' beginning a value or after a blank in it (a comment
 * only on a line of its own), a key before any [section], an indented line that would
 * continue a value, or a syntax error (the first of them, or of the handler's failures, by
 * line). A handler that returns 0 has failed: its own message must already be in st; the
 * handler is not called again. */
int sm_ini_parse(const char *path, sm_ini_reader *r, ini_handler handler, void *user,
                 sm_status *st);

/* What kind of file a section begins, where it is another format's (a device description
 * given for a coefficient file): "" or " ([device] begins a device description, not ...)", to
 * follow an "unknown section" message. own: the file kind the reader expected. */
const char *sm_ini_other_kind(const char *section, const char *own, char *buf, size_t len);

/* The same for a format that allows more (format NULL: sm_ini_parse's). */
int sm_ini_parse_format(const char *path, const sm_ini_format *format, sm_ini_reader *r,
                        ini_handler handler, void *user, sm_status *st);

#endif
