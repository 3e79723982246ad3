/* The parameters of layernorm: parsed by layernorm.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_LAYERNORM_H
#define SCALEMETER_PLUGINS_LAYERNORM_H

#include <stdint.h>

typedef struct layernorm_params {
    int64_t dims;
    int affine;
    int channels;
} layernorm_params;

/* nn.LayerNorm's default, which both kernels use. */
#define LN_EPS 1e-5

#endif /* SCALEMETER_PLUGINS_LAYERNORM_H */
