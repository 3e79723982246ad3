/* The parameters of maxpool2d/avgpool2d: parsed by pool2d.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_POOL2D_H
#define SCALEMETER_PLUGINS_POOL2D_H

#include <stdint.h>

typedef struct pool2d_params {
    int64_t kernel[2];
    int64_t stride[2];
    int64_t padding[2];
    int64_t dilation[2];
    int ceil_mode;
} pool2d_params;

#endif /* SCALEMETER_PLUGINS_POOL2D_H */
