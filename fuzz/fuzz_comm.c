/* Fuzz target: nccl-tests output and allreduce CSVs as `fit-comm` reads them, the fit, and the
 * device description it writes (--device-out), which must load again. */
#include "device/device_file.h"
#include "fuzz_common.h"
#include "scalemeter/comm.h"

static char out[64]; /* the description written */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(out, sizeof out, "%s/sm_fuzz_comm_XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    int fd = mkstemp(out);
    if (fd < 0) {
        perror("fuzz_comm: mkstemp");
        exit(2);
    }
    close(fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    sm_status st;
    sm_comm_runs runs = {0};
    if (sm_comm_runs_read(&runs, path, 0, NULL, &st) == 0) {
        sm_comm_fit_result f;
        /* both equations: the hierarchical ring and NCCL's ring */
        const char *base = size % 4 < 2 ? "h100" : NULL;
        if (sm_comm_fit(&runs, 1024, base, size % 2 ? "nccl" : "ring", &f, &st) == 0) {
            (void)sm_comm_time(&f, 1 << 20, 2, 8);
            sm_device dev;
            if (sm_comm_fit_write_device(&f, base ? base : "h100", path, out, &st) == 0 &&
                sm_device_load(out, &dev, &st)) {
                fprintf(stderr, "fuzz_comm: the description fit-comm wrote is refused: %s\n",
                        st.msg);
                abort();
            }
        }
    }
    sm_comm_runs_free(&runs);
    return 0;
}
