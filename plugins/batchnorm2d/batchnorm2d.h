/* The parameters of batchnorm2d: parsed by batchnorm2d.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_BATCHNORM2D_H
#define SCALEMETER_PLUGINS_BATCHNORM2D_H

typedef struct batchnorm_params {
    int affine;
} batchnorm_params;

/* nn.BatchNorm2d's defaults, which both kernels use. */
#define BN_EPS 1e-5
#define BN_MOMENTUM 0.1

#endif /* SCALEMETER_PLUGINS_BATCHNORM2D_H */
