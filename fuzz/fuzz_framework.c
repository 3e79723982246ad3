/* Fuzz target: framework files (`curve --framework`, configs/frameworks/), read over the
 * framework keys of a real device description, then a prediction with them. */
#include "device/device_file.h"
#include "fuzz_common.h"
#include "scalemeter/device.h"

static sm_registry *reg;
static sm_network *net;
static sm_device base;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_load_resnet18("fuzz_framework", &reg, &net);
    sm_status st;
    if (sm_device_load("configs/devices/h100.ini", &base, &st)) {
        fprintf(stderr, "fuzz_framework: %s\n", st.msg);
        exit(2);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    sm_status st;
    sm_device dev = base;
    if (sm_device_load_framework(path, &dev, &st))
        return 0;
    /* accepted: the whole predictor, as `curve --device h100 --framework FILE` builds it */
    sm_predictor *p = NULL;
    sm_device_options opt = {.framework = path, .overlap = (int)(size & 1)};
    if (sm_predictor_from_device_opts("h100", &opt, &p, &st)) {
        fprintf(stderr, "fuzz_framework: accepted alone, refused by the predictor: %s\n", st.msg);
        abort();
    }
    const sm_layout layout = {32, 4, 8, 1};
    sm_prediction t;
    if (sm_predict(p, net, &layout, &t, &st) == 0 && !(t.t_step >= 0))
        abort(); /* a negative or NaN step from an accepted file: a silently wrong number */
    sm_predictor_free(p);
    return 0;
}
