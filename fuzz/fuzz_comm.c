/* Fuzz target: nccl-tests output and allreduce CSVs as `fit-comm` reads them, and the fit. */
#include "fuzz_common.h"
#include "scalemeter/comm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    sm_status st;
    sm_comm_runs runs = {0};
    if (sm_comm_runs_read(&runs, path, 0, NULL, &st) == 0) {
        sm_comm_fit_result f;
        /* both equations: the hierarchical ring and NCCL's ring */
        if (sm_comm_fit(&runs, 1024, NULL, size % 2 ? "nccl" : "ring", &f, &st) == 0)
            (void)sm_comm_time(&f, 1 << 20, 2, 8);
    }
    sm_comm_runs_free(&runs);
    return 0;
}
