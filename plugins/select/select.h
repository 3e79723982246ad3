/* The parameters of select: parsed by select.c, read by its CPU kernels. */
#ifndef SCALEMETER_PLUGINS_SELECT_H
#define SCALEMETER_PLUGINS_SELECT_H

#include <stdint.h>

typedef struct select_params {
    int64_t index;
} select_params;

#endif /* SCALEMETER_PLUGINS_SELECT_H */
