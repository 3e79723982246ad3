/* Fuzz target: the device description reader (`curve --device`), at every precision, and a
 * prediction from what it accepted. */
#include "fuzz_common.h"
#include "scalemeter/device.h"
#include "scalemeter/scalemeter.h"

static sm_registry *reg;
static sm_network *net;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_load_resnet18("fuzz_device", &reg, &net);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    static const char *const precisions[] = {NULL, "fp32", "bf16"};
    for (int q = 0; q < 3; q++) {
        sm_status st;
        sm_predictor *p = NULL;
        sm_device_options opt = {.precision = precisions[q], .overlap = q == 2};
        if (sm_predictor_from_device_opts(path, &opt, &p, &st))
            continue;
        const sm_layout layouts[] = {{1, 1, 1, 1}, {32, 16, 8, 1}};
        for (int i = 0; i < 2; i++) {
            sm_prediction t;
            sm_predict(p, net, &layouts[i], &t, &st);
        }
        sm_predictor_free(p);
    }
    return 0;
}
