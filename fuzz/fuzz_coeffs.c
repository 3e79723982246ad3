/* Fuzz target: the coefficient file reader (`predict --coeffs`), and a prediction from what it
 * accepted, so that accepted values are also exercised: alone, and beside the h100
 * description's all-reduce with overlap (`curve --coeffs FILE --device h100 --overlap`). */
#include "fuzz_common.h"
#include "scalemeter/device.h"
#include "scalemeter/fit.h"
#include "scalemeter/predict.h"
#include "scalemeter/scalemeter.h"

static sm_registry *reg;
static sm_network *net;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_load_resnet18("fuzz_coeffs", &reg, &net);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    const sm_device_options overlap = {.overlap = 1};
    for (int described = 0; described <= 1; described++) {
        sm_status st;
        sm_predictor *p = NULL;
        if (described ? sm_predictor_from_coeffs_device(path, "h100", &overlap, &p, &st)
                      : sm_predictor_from_coeffs(path, &p, &st))
            continue;
        const sm_layout layouts[] = {{1, 1, 1, 1}, {64, 4, 8, 1}};
        for (int i = 0; i < 2; i++) {
            sm_prediction t;
            char warning[512];
            sm_predict(p, net, &layouts[i], &t, &st);
            sm_predictor_warning(p, &layouts[i], warning, sizeof warning);
        }
        sm_predictor_free(p);
    }
    return 0;
}
