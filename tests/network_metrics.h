/* The whole-network counts of a model at one image size and batch 1, for the fit tests that
 * build synthetic measurements from them. */
#ifndef SCALEMETER_TEST_NETWORK_METRICS_H
#define SCALEMETER_TEST_NETWORK_METRICS_H

#include <stdio.h>

#include "scalemeter/scalemeter.h"

/* 0, or -1 after printing why the model did not load or count. */
static int network_metrics(const sm_registry *reg, const char *model, int image, sm_metrics *m)
{
    sm_network *net;
    sm_network_options opt = {image};
    sm_status st;
    if (sm_network_load(reg, model, &opt, &net, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return -1;
    }
    int rc = sm_network_metrics(net, 1, m, &st);
    sm_network_free(net);
    return rc;
}

#endif
