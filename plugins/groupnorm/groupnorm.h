/* The parameters of groupnorm: parsed by groupnorm.c, read by its CPU kernels. */
#ifndef SCALEMETER_PLUGINS_GROUPNORM_H
#define SCALEMETER_PLUGINS_GROUPNORM_H

#include <stdint.h>

typedef struct groupnorm_params {
    int64_t groups; /* C / groups channels share one mean and variance */
    int affine;     /* a gamma and a beta per channel */
} groupnorm_params;

/* nn.GroupNorm's (and nn.InstanceNorm's) default, which the kernels use. */
#define GN_EPS 1e-5

#endif /* SCALEMETER_PLUGINS_GROUPNORM_H */
