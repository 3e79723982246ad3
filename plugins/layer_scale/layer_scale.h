/* The parameters of layer_scale: parsed by layer_scale.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_LAYER_SCALE_H
#define SCALEMETER_PLUGINS_LAYER_SCALE_H

#include <stdint.h>

typedef struct layer_scale_params {
    int64_t axis;
} layer_scale_params;

#endif /* SCALEMETER_PLUGINS_LAYER_SCALE_H */
