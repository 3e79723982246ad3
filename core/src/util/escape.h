/* Control bytes written as C escapes: a message or a table quotes what it read (a model name, a
 * layer type, a path), and a newline there split a one-line error or a table row in two, an
 * escape sequence reached the terminal. Header-only, as fnv.h, so that cli/, which links the
 * library's public API alone, uses this one definition too. Internal. */
#ifndef SCALEMETER_ESCAPE_H
#define SCALEMETER_ESCAPE_H

#include <stdio.h>
#include <stdlib.h>

/* 1: c is a control byte, below 0x20 or DEL. */
static inline int sm_is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

/* 1: text holds a control byte. */
static inline int sm_has_controls(const char *text)
{
    for (; *text; text++)
        if (sm_is_control((unsigned char)*text))
            return 1;
    return 0;
}

/* A malloc'd copy of text with its control bytes escaped (a newline as \n, ESC as \x1b); NULL
 * without memory. */
static inline char *sm_escape_controls(const char *text)
{
    size_t n = 0, controls = 0;
    for (; text[n]; n++)
        controls += sm_is_control((unsigned char)text[n]);
    char *out = malloc(n + 3 * controls + 1), *o = out;
    if (!out)
        return NULL;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (!sm_is_control(*c))
            *o++ = (char)*c;
        else if (*c == '\n' || *c == '\t' || *c == '\r') {
            *o++ = '\\';
            *o++ = *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r';
        } else
            o += sprintf(o, "\\x%02x", *c);
    }
    *o = '\0';
    return out;
}

/* A malloc'd copy of text that an INI file reads back as written (a value, or a comment's
 * line): control bytes escaped as above, and as \x20 or \x3b a blank at either end (the reader
 * trims it) and a ';' after a blank (it starts a comment). For a file name recorded as a
 * fact, not read as a path: `fit "x ;y.csv" -o c.ini` stopped after the fit. NULL without
 * memory. */
static inline char *sm_escape_ini_value(const char *text)
{
    char *plain = sm_escape_controls(text);
    if (!plain)
        return NULL;
    size_t n = 0;
    while (plain[n])
        n++;
    char *out = malloc(4 * n + 1), *o = out;
    if (!out) {
        free(plain);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)plain[i];
        int blank = c == ' ';
        if ((blank && (i == 0 || i + 1 == n)) || (c == ';' && i > 0 && plain[i - 1] == ' '))
            o += sprintf(o, "\\x%02x", c);
        else
            *o++ = (char)c;
    }
    *o = '\0';
    free(plain);
    return out;
}

#endif
