/*
 * test_runs_writer: bench's measurement CSV (calibrate/runs_writer.c) never loses or repeats a
 * measurement on a file it did not write itself: a NUL byte, text before the header, a file of
 * blank lines and a field that cannot be read back are refused in one line; a field starting
 * with '#' is quoted, so it is read back as a row, not a comment (issue 40's fuzzing findings).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "runs_writer.h"

static const char *const cols[] = {"model", "batch", "t_step"};
static const int keys[] = {0, 1};
static char path[64];

static void write_file(const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
}

/* Opens path as bench does; -1 with the message in st. */
static int open_it(sm_runs_writer **w, sm_status *st)
{
    const char *note;
    return sm_runs_writer_open(path, cols, 3, keys, 2, w, &note, st);
}

static void test_refusals(void)
{
    sm_runs_writer *w = NULL;
    sm_status st;
    static const char nul[] = "model,batch,t_step\nresnet18,1,0.5\n\0resnet18,2,0.9\n";
    write_file(nul, sizeof nul - 1);
    CHECK(open_it(&w, &st) == -1);
    CHECK_CONTAINS(st.msg, ":3: a NUL byte");
    write_file("\nmodel,batch,t_step\nresnet18,1,0.5\n", 35);
    CHECK(open_it(&w, &st) == -1);
    CHECK_CONTAINS(st.msg, ":2: a row before bench's header");
    write_file("\n\n", 2);
    CHECK(open_it(&w, &st) == -1);
    CHECK_CONTAINS(st.msg, "has no header line");
}

static void test_fields(void)
{
    sm_runs_writer *w = NULL;
    sm_status st;
    unlink(path);
    CHECK(open_it(&w, &st) == 0);
    const char *hash[] = {"#net", "1", "0.5"};
    CHECK(sm_runs_writer_append(w, hash, &st) == 0);
    /* "a", the unit separator 0x1f, "b" (one string: \x1fb would read as one escape) */
    static const char unit_sep[] = {'a', 0x1f, 'b', '\0'};
    const char *newline[] = {"a\nb", "1", "0.5"}, *sep[] = {unit_sep, "2", "0.5"};
    CHECK(sm_runs_writer_append(w, newline, &st) == -1);
    CHECK_CONTAINS(st.msg, "column 1");
    CHECK_CONTAINS(st.msg, "control character (0x0a)");
    CHECK(sm_runs_writer_append(w, sep, &st) == -1);
    CHECK_CONTAINS(st.msg, "(0x1f)");
    sm_runs_writer_close(w);
    /* read back: the '#' row is a row, found by its key */
    CHECK(open_it(&w, &st) == 0);
    const char *key[] = {"#net", "1"};
    CHECK_EQ(sm_runs_writer_rows(w), 1);
    CHECK(sm_runs_writer_has(w, key));
    sm_runs_writer_close(w);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/sm_runs_writer_%d.csv", (int)getpid());
    test_refusals();
    test_fields();
    unlink(path);
    return check_summary();
}
