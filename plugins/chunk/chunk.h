/* The parameters of chunk: parsed by chunk.c, read by its CPU and GPU kernels. */
#ifndef SCALEMETER_PLUGINS_CHUNK_H
#define SCALEMETER_PLUGINS_CHUNK_H

#include <stdint.h>

typedef struct chunk_params {
    int64_t chunks;
    int64_t index;
    int64_t axis;
} chunk_params;

#endif /* SCALEMETER_PLUGINS_CHUNK_H */
