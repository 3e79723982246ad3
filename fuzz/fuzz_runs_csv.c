/* Fuzz target: the measurement CSV reader (`fit`, `validate`), its precision selection and the
 * metrics of the networks it names (only zoo names resolve: the input cannot reach the disk
 * beyond the zoo and paths that happen to exist). */
#include "fuzz_common.h"
#include "scalemeter/fit.h"
#include "scalemeter/scalemeter.h"

static sm_registry *reg;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    sm_status st;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "fuzz_runs_csv: %s\n", st.msg);
        exit(2);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    sm_status st;
    sm_runs *runs = NULL;
    if (sm_runs_read(path, &runs, &st) == 0) {
        if (sm_runs_select_precision(runs, NULL, &st) == 0 && runs->n <= 64)
            sm_runs_metrics(runs, reg, &st); /* loads each network: bounded per input */
        sm_runs_free(runs);
    }
    return 0;
}
