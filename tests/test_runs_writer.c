/*
 * test_runs_writer: bench's measurement CSV (calibrate/runs_writer.c) never loses or repeats a
 * measurement on a file it did not write itself: a NUL byte, text before the header, a file of
 * blank lines and a field that cannot be read back are refused in one line; a field starting
 * with '#' is quoted, so it is read back as a row, not a comment (issue 40's fuzzing findings);
 * a last line without its newline is cut off only from bench's own file, and only when it is
 * not a whole row (every column, a status cut short of ok or oom not whole); a file of 200,000 rows
 * answers which configurations it holds; a file renamed over while rows are appended is said;
 * a file written before the newer columns (bench's allreduce and bucket_mib) takes rows without
 * them, a new file has them, and rows that differ in them alone are two configurations.
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
    return sm_runs_writer_open(path, cols, 3, 0, keys, 2, w, &note, st);
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

static long file_size(void)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* A last line without its newline: a whole row is kept and ended, a cut one dropped, and a
 * file that is not bench's is refused untouched (its last line was cut off first, once: a
 * complete measurement lost, someone's notes damaged). */
static void test_last_line(void)
{
    sm_runs_writer *w = NULL;
    sm_status st;
    const char *note = NULL;
    static const char whole[] = "model,batch,t_step\nresnet18,1,0.5\nresnet18,2,0.9";
    write_file(whole, sizeof whole - 1);
    CHECK(sm_runs_writer_open(path, cols, 3, 0, keys, 2, &w, &note, &st) == 0);
    const char *second[] = {"resnet18", "2"};
    CHECK(w && sm_runs_writer_has(w, second));
    CHECK_EQ(w ? sm_runs_writer_rows(w) : 0, 2);
    CHECK(note && strstr(note, "ended its last row"));
    sm_runs_writer_close(w);
    CHECK_EQ(file_size(), (long)sizeof whole); /* the newline added, nothing lost */
    static const char cut[] = "model,batch,t_step\nresnet18,1,0.5\nresnet18,2";
    write_file(cut, sizeof cut - 1);
    CHECK(sm_runs_writer_open(path, cols, 3, 0, keys, 2, &w, &note, &st) == 0);
    CHECK_EQ(w ? sm_runs_writer_rows(w) : 0, 1);
    CHECK(note && strstr(note, "dropped an incomplete last line"));
    sm_runs_writer_close(w);
    CHECK_EQ(file_size(), (long)strlen("model,batch,t_step\nresnet18,1,0.5\n"));
    /* bench's CPU rows end with their status: a line cut inside it ("o" of ok) has every
     * column, and was kept: its configuration was neither measured again nor fitted */
    static const char *const status_cols[] = {"model", "batch", "status"};
    static const char cut_status[] = "model,batch,status\nresnet18,1,ok\nresnet18,2,o";
    write_file(cut_status, sizeof cut_status - 1);
    CHECK(sm_runs_writer_open(path, status_cols, 3, 0, keys, 2, &w, &note, &st) == 0);
    CHECK(w && !sm_runs_writer_has(w, second));
    CHECK_EQ(w ? sm_runs_writer_rows(w) : 0, 1);
    CHECK(note && strstr(note, "dropped an incomplete last line"));
    sm_runs_writer_close(w);
    CHECK_EQ(file_size(), (long)strlen("model,batch,status\nresnet18,1,ok\n"));
    static const char oom[] = "model,batch,status\nresnet18,1,ok\nresnet18,2,oom";
    write_file(oom, sizeof oom - 1);
    CHECK(sm_runs_writer_open(path, status_cols, 3, 0, keys, 2, &w, &note, &st) == 0);
    CHECK(w && sm_runs_writer_has(w, second));
    CHECK_EQ(w ? sm_runs_writer_rows(w) : 0, 2);
    sm_runs_writer_close(w);
    CHECK_EQ(file_size(), (long)sizeof oom);
    /* a comment is kept as one, not counted as the row its fields would make */
    static const char comment[] = "model,batch,t_step\nresnet18,1,0.5\n#a,b,c";
    write_file(comment, sizeof comment - 1);
    CHECK(sm_runs_writer_open(path, cols, 3, 0, keys, 2, &w, &note, &st) == 0);
    CHECK_EQ(w ? sm_runs_writer_rows(w) : 0, 1);
    sm_runs_writer_close(w);
    CHECK_EQ(file_size(), (long)sizeof comment);
    static const char notes[] = "my notes\nline two\nlast line";
    write_file(notes, sizeof notes - 1);
    CHECK(sm_runs_writer_open(path, cols, 3, 0, keys, 2, &w, &note, &st) == -1);
    CHECK_CONTAINS(st.msg, "header differs");
    CHECK_EQ(file_size(), (long)sizeof notes - 1);
    static const char one[] = "single line";
    write_file(one, sizeof one - 1);
    CHECK(sm_runs_writer_open(path, cols, 3, 0, keys, 2, &w, &note, &st) == -1);
    CHECK_EQ(file_size(), (long)sizeof one - 1);
    static const char header[] = "model,batch,t_step";
    write_file(header, sizeof header - 1);
    CHECK(sm_runs_writer_open(path, cols, 3, 0, keys, 2, &w, &note, &st) == 0);
    sm_runs_writer_close(w);
    CHECK_EQ(file_size(), (long)sizeof header);
}

/* A resumed job over a file of 200,000 rows: every configuration of it is found, none that it
 * lacks, each in constant time (has() read every row: C configurations over R rows cost
 * C x R, minutes here), and a row appended is found too. A value holding the separator (an
 * edited file's; bench writes none) matches on the first values, as has() always read them. */
static void test_many_rows(void)
{
    enum { ROWS = 200000 };
    FILE *f = fopen(path, "wb");
    fputs("model,batch,t_step\n", f);
    for (int i = 0; i < ROWS; i++)
        fprintf(f, "net%d,%d,0.5\n", i % 1000, i / 1000);
    fputs("a\x1f"
          "b,7,0.5\n",
          f);
    fclose(f);
    sm_runs_writer *w = NULL;
    sm_status st;
    CHECK(open_it(&w, &st) == 0);
    CHECK_EQ(w ? sm_runs_writer_rows(w) : 0, ROWS + 1);
    int found = 0, lacking = 0;
    for (int i = ROWS - 1; w && i >= 0; i--) {
        char model[32], batch[32], other[32];
        snprintf(model, sizeof model, "net%d", i % 1000);
        snprintf(batch, sizeof batch, "%d", i / 1000);
        snprintf(other, sizeof other, "%d", ROWS / 1000 + i / 1000);
        const char *key[] = {model, batch}, *not_held[] = {model, other};
        found += sm_runs_writer_has(w, key);
        lacking += !sm_runs_writer_has(w, not_held);
    }
    CHECK_EQ(found, ROWS);
    CHECK_EQ(lacking, ROWS);
    const char *first[] = {"a", "b"}, *whole[] = {"a\x1f"
                                                  "b",
                                                  "7"};
    CHECK(w && sm_runs_writer_has(w, first));
    CHECK(w && !sm_runs_writer_has(w, whole));
    const char *row[] = {"net1000", "0", "0.5"}, *key[] = {"net1000", "0"};
    CHECK(w && !sm_runs_writer_has(w, key));
    CHECK(w && sm_runs_writer_append(w, row, &st) == 0);
    CHECK(w && sm_runs_writer_has(w, key));
    sm_runs_writer_close(w);
}

/* The file renamed over while rows are appended (sed -i, an editor's save): the rows after it
 * went to the unlinked file and the tally counted them (the bench round of 2026-11-26). The
 * next append is refused, and the file the name reaches holds the rows written before. */
static void test_replaced(void)
{
    sm_runs_writer *w = NULL;
    sm_status st;
    unlink(path);
    CHECK(open_it(&w, &st) == 0);
    const char *first[] = {"resnet18", "1", "0.5"}, *second[] = {"resnet18", "2", "0.9"};
    CHECK(w && sm_runs_writer_append(w, first, &st) == 0);
    char other[80];
    snprintf(other, sizeof other, "%s.new", path);
    FILE *f = fopen(other, "w");
    fputs("model,batch,t_step\nresnet18,1,0.5\n", f);
    fclose(f);
    CHECK(rename(other, path) == 0);
    CHECK(w && sm_runs_writer_append(w, second, &st) == -1);
    CHECK_CONTAINS(st.msg, "the file was replaced or removed while the rows were written to it");
    sm_runs_writer_close(w);
    /* removed: refused the same way */
    CHECK(open_it(&w, &st) == 0);
    unlink(path);
    CHECK(w && sm_runs_writer_append(w, second, &st) == -1);
    CHECK_CONTAINS(st.msg, "replaced or removed");
    sm_runs_writer_close(w);
}

/* The newer columns: one, the key's last, that an older file lacks. */
static void test_newer_columns(void)
{
    static const char *const with[] = {"model", "batch", "t_step", "allreduce"};
    static const int with_keys[] = {0, 1, 3};
    sm_runs_writer *w = NULL;
    sm_status st;
    const char *note;
    char text[256];
    /* an older file: accepted, its rows and the ones appended keyed without the column */
    write_file("model,batch,t_step\nresnet18,1,0.5\n", 34);
    CHECK(sm_runs_writer_open(path, with, 4, 1, with_keys, 3, &w, &note, &st) == 0);
    CHECK(w && sm_runs_writer_columns(w) == 3);
    const char *ring[] = {"resnet18", "1", "ring"}, *mpi_row[] = {"resnet18", "2", "0.7", "mpi"};
    CHECK(w && sm_runs_writer_has(w, ring)); /* the older row stands for any all-reduce */
    CHECK(w && sm_runs_writer_append(w, mpi_row, &st) == 0);
    sm_runs_writer_close(w);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    CHECK_STR_EQ(text, "model,batch,t_step\nresnet18,1,0.5\nresnet18,2,0.7\n");
    /* a new file: the whole header; rows that differ in the newer column alone are two */
    unlink(path);
    CHECK(sm_runs_writer_open(path, with, 4, 1, with_keys, 3, &w, &note, &st) == 0);
    CHECK(w && sm_runs_writer_columns(w) == 4);
    const char *ring_row[] = {"resnet18", "1", "0.5", "ring"};
    CHECK(w && sm_runs_writer_append(w, ring_row, &st) == 0);
    sm_runs_writer_close(w);
    CHECK(sm_runs_writer_open(path, with, 4, 1, with_keys, 3, &w, &note, &st) == 0);
    const char *mpi_key[] = {"resnet18", "1", "mpi"};
    CHECK(w && sm_runs_writer_has(w, ring) && !sm_runs_writer_has(w, mpi_key));
    sm_runs_writer_close(w);
    /* neither header: refused, naming the column */
    write_file("model,batch,t_step,bucket\n", 26);
    CHECK(sm_runs_writer_open(path, with, 4, 1, with_keys, 3, &w, &note, &st) == -1);
    CHECK_CONTAINS(st.msg, "at column 4 ('bucket' where bench writes 'allreduce')");
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/sm_runs_writer_%d.csv", (int)getpid());
    test_refusals();
    test_fields();
    test_last_line();
    test_many_rows();
    test_replaced();
    test_newer_columns();
    unlink(path);
    return check_summary();
}
