/* Reading an INI file through inih with line numbers, for every file format of scalemeter
 * (networks, device descriptions, coefficient files): inih's handler is not told the line, so
 * the reader function counts lines itself; and a line too long for inih is refused instead of
 * being cut silently. */
#ifndef SCALEMETER_INI_READER_H
#define SCALEMETER_INI_READER_H

#include <ini.h>
#include <stdio.h>

#include "scalemeter/scalemeter.h"

typedef struct sm_ini_reader {
    FILE *f;
    char *buf;
    size_t cap;
    int line;         /* the line inih is handling now */
    int too_long;     /* a line longer than inih takes, or 0 */
    int indented;     /* the current line starts with whitespace (inih: a continuation) */
    int section_line; /* line of the last [section] header */
    int new_section;  /* a header was read since the handler last cleared this */
    const char *bad;  /* why line `bad_line` was refused before inih saw it, or NULL */
    int bad_line;
    ini_handler handler; /* the caller's, called through sm_ini_parse's own */
    void *user;
    int handler_failed; /* line at which the handler first returned 0, or 0 */
} sm_ini_reader;

/* Parses path, calling handler(user, section, key, value) per entry while r->line says where.
 * 0, or -1 with "PATH:LINE: ..." for a file that cannot be opened, a line too long, a NUL byte,
 * a section name longer than inih keeps or a syntax error (the first of them, or of the
 * handler's failures, by line). A handler that returns 0 has failed: its own message must already
 * be in st, and fail (if not NULL) set. */
int sm_ini_parse(const char *path, sm_ini_reader *r, ini_handler handler, void *user,
                 const int *fail, sm_status *st);

#endif
