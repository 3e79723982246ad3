/* The C API's objects in any order of freeing: a network loaded from a registry points at its
 * layer types, which sm_registry_free freed under it, so that a prediction of the network after
 * the registry was freed read freed memory (ASan: heap-use-after-free in has_trait; without
 * ASan, a crash here). A network now keeps its registry; this predicts a network before and
 * after freeing its registry, with memory of every small size allocated and overwritten in
 * between, and the two predictions must be the same.
 *
 * usage: test_lifetime   (from the source root) */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scalemeter/predict.h"
#include "scalemeter/scalemeter.h"

int main(void)
{
    sm_status st;
    sm_registry *reg = NULL;
    sm_network *net = NULL;
    sm_predictor *p = NULL;
    sm_network_options opt = {0};
    if (sm_registry_open(&reg, &st) || sm_network_load(reg, "resnet18", &opt, &net, &st) ||
        sm_predictor_from_device("h100", &p, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    sm_layout l = {.batch = 8, .nodes = 2, .gpus_per_node = 8, .accumulate = 1};
    sm_prediction before, after;
    CHECK_EQ(sm_predict(p, net, &l, &before, &st), 0);

    sm_registry_free(reg); /* the network still holds it */
    /* memory of every small size handed out and overwritten: where the types were freed, they
     * are garbage now (before the fix, a crash or a wrong trait) */
    enum { SIZES = 256, EACH = 16 }; /* blocks of 16 bytes to 4 KiB, 8 MiB in all */
    static void *scribble[SIZES][EACH];
    for (int s = 0; s < SIZES; s++)
        for (int k = 0; k < EACH; k++) {
            size_t n = (size_t)(s + 1) * 16;
            if ((scribble[s][k] = malloc(n)))
                memset(scribble[s][k], 0xa5, n);
        }

    CHECK_EQ(sm_predict(p, net, &l, &after, &st), 0);
    CHECK(after.t_step == before.t_step && after.t_fwd == before.t_fwd);
    CHECK(sm_network_has_trait(net, SM_TRAIT_CONVOLUTION));
    CHECK_STR_EQ(net->layers[0].type->name, "conv2d");
    sm_network_free(net); /* and gives it back: LeakSanitizer sees nothing left */

    /* the usual order still works, and a registry no network holds is freed at once */
    CHECK_EQ(sm_registry_open(&reg, &st), 0);
    CHECK_EQ(sm_network_load(reg, "resnet18", &opt, &net, &st), 0);
    sm_network_free(net);
    sm_registry_free(reg);

    for (int s = 0; s < SIZES; s++)
        for (int k = 0; k < EACH; k++)
            free(scribble[s][k]);
    sm_predictor_free(p);
    return check_summary();
}
