/* The parameters of embedding: parsed by embedding.c, read by its CPU kernels. */
#ifndef SCALEMETER_PLUGINS_EMBEDDING_H
#define SCALEMETER_PLUGINS_EMBEDDING_H

#include <stdint.h>

typedef struct embedding_params {
    int64_t vocab;
    int64_t dim;
} embedding_params;

#endif /* SCALEMETER_PLUGINS_EMBEDDING_H */
