/* The C API in one page: load the layer plugins and a network, count its weights and FLOPs,
 * open the calibration-free model of a device and predict one training step.
 *
 *   usage: predict_step [MODEL [DEVICE [BATCH]]]      (default: resnet50 h100 256)
 *
 * Built by the tests (tests/examples.cmake). Against an installed scalemeter:
 *   cc -std=c11 predict_step.c $(pkg-config --cflags --libs scalemeter) -o predict_step
 * or find_package(scalemeter) and the target scalemeter::scalemeter in CMake. */
#include <stdio.h>
#include <stdlib.h>

#include "scalemeter/predict.h"
#include "scalemeter/scalemeter.h"

int main(int argc, char **argv)
{
    const char *model = argc > 1 ? argv[1] : "resnet50";
    const char *device = argc > 2 ? argv[2] : "h100";
    int64_t batch = argc > 3 ? atoll(argv[3]) : 256;
    if (argc > 4 || batch < 1) {
        fprintf(stderr, "usage: predict_step [MODEL [DEVICE [BATCH]]]\n");
        return 2;
    }

    /* Every function that can fail returns -1 with a one-line message in st. */
    sm_status st;
    sm_registry *reg = NULL;
    sm_network *net = NULL;
    sm_predictor *pred = NULL;
    int rc = 1;
    if (sm_registry_open(&reg, &st) != 0)
        goto fail;

    /* A zoo name (models/NAME.ini) or a path; {0}: the input size the file gives. */
    sm_network_options opt = {0};
    if (sm_network_load(reg, model, &opt, &net, &st) != 0)
        goto fail;
    sm_metrics m;
    if (sm_network_metrics(net, 1, &m, &st) != 0)
        goto fail;
    printf("%s: weights %lld, forward GFLOPs %.3f a sample\n", net->name, (long long)m.weights,
           (double)m.flops / 1e9);

    /* The roofline model of configs/devices/DEVICE.ini, at the file's precision and framework
     * (sm_predictor_from_device_opts, device.h, sets them); a calibration instead:
     * sm_predictor_from_coeffs("h100-pytorch-tf32", &pred, &st). */
    if (sm_predictor_from_device(device, &pred, &st) != 0)
        goto fail;
    /* per-device batch, nodes, devices per node, micro-batches per optimizer step */
    sm_layout layout = {.batch = batch, .nodes = 1, .gpus_per_node = 1, .accumulate = 1};
    sm_prediction t;
    if (sm_predict(pred, net, &layout, &t, &st) != 0)
        goto fail;
    printf("%s, batch %lld on one device: t_fwd %.6g s, t_bwd %.6g s, t_grad %.6g s, "
           "t_step %.6g s, %.6g images/s\n",
           sm_predictor_describe(pred), (long long)batch, t.t_fwd, t.t_bwd, t.t_grad, t.t_step,
           sm_images_per_s(&layout, t.t_step));
    rc = 0;
fail:
    if (rc)
        fprintf(stderr, "predict_step: %s\n", st.msg);
    sm_predictor_free(pred);
    sm_network_free(net);
    sm_registry_free(reg);
    return rc;
}
