/* A program built against an installed libscalemeter (tests/test_install_consumer.sh): loads a
 * network with the public API and prints its trainable parameters.
 * usage: consumer MODEL [PLUGIN_DIR]
 * Without PLUGIN_DIR the plugins come from SCALEMETER_CONSUMER_PLUGIN_DIR where the build
 * defined it (scalemeter_PLUGIN_DIR of the CMake package), else from the library's own tree
 * (sm_registry_open). */
#include <stdio.h>

#include "scalemeter/scalemeter.h"

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: consumer MODEL [PLUGIN_DIR]\n");
        return 2;
    }
    const char *plugin_dir = argc == 3 ? argv[2] : NULL;
#ifdef SCALEMETER_CONSUMER_PLUGIN_DIR
    if (!plugin_dir)
        plugin_dir = SCALEMETER_CONSUMER_PLUGIN_DIR;
#endif
    sm_status st;
    sm_registry *reg = NULL;
    if (plugin_dir) {
        reg = sm_registry_new();
        if (!reg) {
            fprintf(stderr, "consumer: out of memory\n");
            return 1;
        }
        if (sm_registry_load_dir(reg, plugin_dir, &st)) {
            fprintf(stderr, "consumer: %s\n", st.msg);
            sm_registry_free(reg);
            return 1;
        }
    } else if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "consumer: %s\n", st.msg);
        return 1;
    }
    sm_network_options opt = {0}; /* the input size the network file gives */
    sm_network *net;
    sm_metrics m;
    int rc = 1;
    if (sm_network_load(reg, argv[1], &opt, &net, &st)) {
        fprintf(stderr, "consumer: %s\n", st.msg);
    } else {
        if (sm_network_metrics(net, 1, &m, &st))
            fprintf(stderr, "consumer: %s\n", st.msg);
        else {
            printf("%s weights %lld\n", net->name, (long long)m.weights);
            rc = 0;
        }
        sm_network_free(net);
    }
    sm_registry_free(reg);
    return rc;
}
