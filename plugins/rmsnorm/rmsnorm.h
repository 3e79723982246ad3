/* The parameters of rmsnorm: parsed by rmsnorm.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_RMSNORM_H
#define SCALEMETER_PLUGINS_RMSNORM_H

typedef struct rmsnorm_params {
    double eps;
} rmsnorm_params;

#endif /* SCALEMETER_PLUGINS_RMSNORM_H */
