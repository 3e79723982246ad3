/* The parameters of conv2d: parsed by conv2d.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_CONV2D_H
#define SCALEMETER_PLUGINS_CONV2D_H

#include <stdint.h>

typedef struct conv2d_params {
    int64_t out;
    int64_t kernel[2];
    int64_t stride[2];
    int64_t padding[2];
    int64_t dilation[2];
    int64_t groups;
    int bias;
} conv2d_params;

#endif /* SCALEMETER_PLUGINS_CONV2D_H */
