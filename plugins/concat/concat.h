/* The parameters of concat: parsed by concat.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_CONCAT_H
#define SCALEMETER_PLUGINS_CONCAT_H

#include <stdint.h>

typedef struct concat_params {
    int64_t axis;
} concat_params;

#endif /* SCALEMETER_PLUGINS_CONCAT_H */
