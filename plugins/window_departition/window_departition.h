/* Parameters of window_departition: parsed by window_departition.c, read by its CPU kernels. */
#ifndef SCALEMETER_PLUGINS_WINDOW_DEPARTITION_H
#define SCALEMETER_PLUGINS_WINDOW_DEPARTITION_H

#include <stdint.h>

typedef struct departition_params {
    int64_t p;      /* the window's side */
    int64_t hp, wp; /* windows down and across */
} departition_params;

#endif /* SCALEMETER_PLUGINS_WINDOW_DEPARTITION_H */
