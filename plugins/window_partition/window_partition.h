/* Parameters of window_partition: parsed by window_partition.c, read by its CPU kernels. */
#ifndef SCALEMETER_PLUGINS_WINDOW_PARTITION_H
#define SCALEMETER_PLUGINS_WINDOW_PARTITION_H

#include <stdint.h>

typedef struct partition_params {
    int64_t p; /* the window's side */
} partition_params;

#endif /* SCALEMETER_PLUGINS_WINDOW_PARTITION_H */
