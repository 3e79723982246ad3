/* Fuzz target: bench's resume reader (calibrate/runs_writer.c): any bytes as the measurement
 * CSV a benchmark resumes, with the CPU's or the GPU's columns; where it is accepted, one row
 * appended (its model name from the input: commas, quotes and line ends to quote) must be
 * found again, in the file reopened, by its key. */
#include <fcntl.h>

#include "fuzz_common.h"
#include "runs_writer.h"
#include "scalemeter/fit.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* tmpfs where there is one: every row appended is fsync'ed */
    snprintf(path, sizeof path, "%s/sm_fuzz_resume_XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("fuzz_resume: mkstemp");
        exit(2);
    }
    close(fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* as bench_job.c: the CPU's 7 key columns of 14, or the GPU's 10 of all, then the two
     * newer columns, which an older file lacks (its rows append without them) */
    static const int key_cols[] = {
        SM_COL_MODEL,   SM_COL_IMAGE,   SM_COL_BATCH,     SM_COL_NODES,     SM_COL_GPUS,
        SM_COL_BACKEND, SM_COL_THREADS, SM_COL_PRECISION, SM_COL_CONV_ALGO, SM_COL_DEVICE};
    int gpu = data[0] & 1, n_run = gpu ? SM_N_RUN_COLS : SM_N_CPU_COLS, n_base = gpu ? 10 : 7;
    const char *cols[SM_N_RUN_COLS + 2];
    int keys[12];
    for (int c = 0; c < n_run; c++)
        cols[c] = sm_run_columns[c];
    cols[n_run] = "allreduce";
    cols[n_run + 1] = "bucket_mib";
    memcpy(keys, key_cols, (size_t)n_base * sizeof *keys);
    keys[n_base] = n_run;
    keys[n_base + 1] = n_run + 1;
    int n_cols = n_run + 2, n_key = n_base + 2;
    int fd = open(path, O_WRONLY | O_TRUNC);
    if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1) || close(fd)) {
        perror("fuzz_resume: writing the input");
        exit(2);
    }
    sm_status st;
    sm_runs_writer *w = NULL;
    const char *note;
    if (sm_runs_writer_open(path, cols, n_cols, 2, keys, n_key, &w, &note, &st))
        return 0;
    int rows = sm_runs_writer_rows(w);
    /* the row: its model the input's last bytes, no NUL (a C string); a control byte is
     * refused by the writer, a '#' first quoted */
    char model[17] = "m";
    size_t n = size - 1 < 16 ? size - 1 : 16;
    for (size_t i = 0; i < n; i++) {
        uint8_t b = data[size - n + i];
        model[i] = b ? (char)b : 'x';
    }
    if (n)
        model[n] = '\0';
    const char *fields[SM_N_RUN_COLS + 2] = {0};
    for (int c = 0; c < n_cols; c++)
        fields[c] = "1";
    fields[n_run] = "ring";
    fields[SM_COL_MODEL] = model;
    fields[SM_COL_BACKEND] = gpu ? "cuda" : "cpu";
    fields[SM_COL_PRECISION] = "fp32";
    const char *key[12];
    for (int k = 0; k < n_key; k++)
        key[k] = fields[keys[k]];
    int appended = sm_runs_writer_append(w, fields, &st) == 0;
    if (appended && !sm_runs_writer_has(w, key))
        abort(); /* a row just written is not found by its key */
    sm_runs_writer_close(w);
    if (!appended)
        return 0;
    if (sm_runs_writer_open(path, cols, n_cols, 2, keys, n_key, &w, &note, &st)) {
        fprintf(stderr, "fuzz_resume: refused after a row was appended: %s\n", st.msg);
        abort();
    }
    if (!sm_runs_writer_has(w, key) || sm_runs_writer_rows(w) != rows + 1)
        abort(); /* the resumed file lost the row, or counts another */
    sm_runs_writer_close(w);
    return 0;
}
