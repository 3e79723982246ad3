/* The parameters of permute: parsed by permute.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_PERMUTE_H
#define SCALEMETER_PLUGINS_PERMUTE_H

#include <scalemeter/plugin.h>

typedef struct permute_params {
    int n;
    int order[SM_MAX_DIMS];
} permute_params;

#endif /* SCALEMETER_PLUGINS_PERMUTE_H */
