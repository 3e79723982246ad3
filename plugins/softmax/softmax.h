/* The parameters of softmax: parsed by softmax.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_SOFTMAX_H
#define SCALEMETER_PLUGINS_SOFTMAX_H

#include <stdint.h>

typedef struct softmax_params {
    int64_t axis;
} softmax_params;

#endif /* SCALEMETER_PLUGINS_SOFTMAX_H */
