/* The parameters of linear: parsed by linear.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_LINEAR_H
#define SCALEMETER_PLUGINS_LINEAR_H

#include <stdint.h>

typedef struct linear_params {
    int64_t out;
    int bias;
} linear_params;

#endif /* SCALEMETER_PLUGINS_LINEAR_H */
