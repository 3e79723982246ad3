/* Parameters of channel_shuffle: parsed by channel_shuffle.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_CHANNEL_SHUFFLE_H
#define SCALEMETER_PLUGINS_CHANNEL_SHUFFLE_H

#include <stdint.h>

typedef struct shuffle_params {
    int64_t groups;
} shuffle_params;

#endif /* SCALEMETER_PLUGINS_CHANNEL_SHUFFLE_H */
