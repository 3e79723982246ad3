/*
 * The measurement CSV (docs/calibration.md), written so that nothing measured is ever lost: every
 * row is appended with one write() of the whole line and made durable (fsync) before the next
 * configuration starts, so an interrupted benchmark (Ctrl-C, a killed rank, a time limit) leaves
 * every finished row and never half of one. Opening an existing file reads which configurations
 * it already holds, so that running the same benchmark again measures only the rest.
 */
#ifndef SCALEMETER_RUNS_WRITER_H
#define SCALEMETER_RUNS_WRITER_H

#include "scalemeter/scalemeter.h"

typedef struct sm_runs_writer sm_runs_writer;

/* Opens path for appending rows of the columns cols (n_cols names; the header). A new or empty
 * file gets the header. An existing one must have exactly this header, or the header less its
 * last n_newer columns (a file written before bench recorded them: its rows append without
 * them, and the key columns among them, which must come last in key_cols, are not compared);
 * else the message names the file and the first column that differs. An incomplete last line
 * (a write cut short by the disk, not by us) is cut off, and *note says so (NULL otherwise).
 * key_cols (indices into cols) are what identifies a configuration. */
int sm_runs_writer_open(const char *path, const char *const *cols, int n_cols, int n_newer,
                        const int *key_cols, int n_key, sm_runs_writer **out, const char **note,
                        sm_status *st);
/* The columns the file has: n_cols, or n_cols - n_newer for a file written before the newer. */
int sm_runs_writer_columns(const sm_runs_writer *w);
/* Whether the file holds a row whose key columns have these values (n_key of them; of a file
 * without the newer columns, those of the others). */
int sm_runs_writer_has(const sm_runs_writer *w, const char *const *key_values);
/* Rows the file held when opened. */
int sm_runs_writer_rows(const sm_runs_writer *w);
/* Whether a row holds value as its first key value (the model), as written. */
int sm_runs_writer_holds(const sm_runs_writer *w, const char *value);
/* Whether the rows hold the first key value (the model) as another spelling of value, one that
 * same(held, value) says names the same thing: *out is that spelling (malloc'd), or NULL where
 * the rows hold value as written or not at all. -1: out of memory. */
int sm_runs_writer_spelling(const sm_runs_writer *w, const char *value,
                            int (*same)(const char *held, const char *value), char **out);
/* Appends one row (n_cols fields, of which the file's columns are written; quoted where a
 * field needs it) with one write() and an fsync;
 * on a short write the file is cut back to where it was, so no half row stays. */
int sm_runs_writer_append(sm_runs_writer *w, const char *const *fields, sm_status *st);
void sm_runs_writer_close(sm_runs_writer *w);

#endif
