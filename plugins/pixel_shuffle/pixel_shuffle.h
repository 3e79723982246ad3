/* The parameters of pixel_shuffle: parsed by pixel_shuffle.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_PIXEL_SHUFFLE_H
#define SCALEMETER_PLUGINS_PIXEL_SHUFFLE_H

#include <stdint.h>

typedef struct pixel_shuffle_params {
    int64_t factor; /* r: C r^2 x H x W -> C x H r x W r */
} pixel_shuffle_params;

#endif /* SCALEMETER_PLUGINS_PIXEL_SHUFFLE_H */
