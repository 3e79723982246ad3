/* The core's utilities (util/), below every other area: files and data found, expressions
 * (files written whole: scalemeter.h). Not part of the public API. core/src/README.md has the
 * areas' order. */
#ifndef SCALEMETER_UTIL_H
#define SCALEMETER_UTIL_H

#include <locale.h>
#include <stdint.h>
#include <stdio.h>

#include "scalemeter/scalemeter.h"

/* What every reader says of a line holding a NUL byte, where its C string would end early. */
#define SM_NUL_BYTE "a NUL byte in the line (is this a text file?)"

/* The C API's answer to a required pointer left NULL (scalemeter.h's contract): st->msg
 * "FUNCTION: ARG is NULL" and -1, for `if (!x) return sm_null_arg(st, __func__, "x");`. */
int sm_null_arg(sm_status *st, const char *function, const char *arg);

/* A file to read (input_file.c): "-" is the standard input, and *path becomes "<stdin>" for
 * messages; otherwise fopen, NULL with errno (EISDIR for a folder). sm_input_close leaves the
 * standard input open. */
FILE *sm_input_open(const char **path);
void sm_input_close(FILE *f);

/* getline with a bound: a line (its newline kept) of at most SM_MAX_LINE_BYTES into *buf,
 * its length; -1 at the end of the file, -2 for a longer line (/dev/zero, a binary file:
 * getline would grow its buffer without end), -3 out of memory. */
#define SM_MAX_LINE_BYTES (1 << 20)
#define SM_LINE_TOO_LONG "a line longer than 1 MiB (is this a text file?)"
long sm_read_line(FILE *f, char **buf, size_t *cap);
/* Whether a line read so holds lines ended by a carriage return alone (classic Mac OS): CRs that
 * end no line, two or more, or one where no LF comes at all; csv: CRs inside double quotes are a
 * field's (a stray one is left to the field's own checks). 0, or -1 with "PATH:LINE: the lines
 * end in a carriage return alone ... tr '\r' '\n' < PATH > EXAMPLE". */
int sm_refuse_cr_line_ends(const char *line, int csv, const char *path, int lineno,
                           const char *example, sm_status *st);

/* A file given by its path ("-": the standard input), or by name as
 * sm_data_dir()/SUBDIR/NAME.ini, into path[len]; otherwise -1 with "unknown WHAT 'NAME': ..."
 * and the hint (may be NULL), or "WHAT 'NAME': the buffer of LEN bytes is too small for its
 * path ..." where the file is there but its path does not fit. */
int sm_data_find(const char *what, const char *subdir, const char *name, const char *hint,
                 char *path, size_t len, sm_status *st);

/* 1 with *path (malloc'd) where name, a bare name, is shipped: sm_data_dir()/SUBDIR/NAME.ini
 * is a file; 0 (*path NULL) where it is not or name has a '/'; -1 out of memory. */
int sm_data_shipped(const char *subdir, const char *name, char **path);

/* 1 where path is there and a regular file (through links). */
int sm_is_file(const char *path);

/* What a file of that st_mode is, for messages: "a folder", "a character device", "a pipe",
 * "a regular file", ... */
const char *sm_file_kind(unsigned mode);

/* A message of cap bytes or more made shorter than cap in place (status.c; sm_fail does it to
 * every message): the middle of its longest word, a path as a rule, becomes "...", again (8
 * words at most) while it is too long and a word has more than 52 bytes, so that "PATH:LINE:
 * REASON" keeps the head and tail of PATH, the line and the whole reason; else its end is cut. */
void sm_shorten_message(char *text, size_t cap);

/* Levenshtein distance of two names (near_names.c); more than 64 where either is longer. */
int sm_edit_distance(const char *a, const char *b);
/* The names of names[0..n) nearest name, at the least distance found within a bound that grows
 * with name (1 to 3), or else those name begins (of 3 characters or more), into out as "a, b or
 * c" (four at most shown whole; more as "a, b, c or 2 more"); "" where none is near. */
void sm_near_names(const char *name, const char *const *names, int n, char *out, size_t len);

/* Numbers of files in the C locale, whatever the program's (c_locale.c): sm_strtod is strtod
 * with '.' as the decimal point and without hexadecimal (it stops at the text's start, as at
 * any other non-number); between sm_locale_c_begin and sm_locale_c_end this thread's
 * printf family writes '.' too (uselocale), and sm_locale_c_end puts back what was before. */
typedef locale_t sm_locale;
double sm_strtod(const char *text, char **end);
sm_locale sm_locale_c_begin(void);
void sm_locale_c_end(sm_locale before);

/* Integer expression over named values: + - * / % ( ) == != < <= > >=. */
typedef int (*sm_lookup_fn)(void *ctx, const char *name, size_t len, int64_t *value);
int sm_expr_eval(const char *text, sm_lookup_fn lookup, void *ctx, int64_t *value, char *err,
                 size_t errlen);

#endif
