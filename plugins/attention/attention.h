/* The parameters of attention: parsed by attention.c, read by its CPU kernels. */
#ifndef SCALEMETER_PLUGINS_ATTENTION_H
#define SCALEMETER_PLUGINS_ATTENTION_H

#include <stdint.h>

typedef struct attention_params {
    int64_t dim;
    int64_t heads;
    int bias;
    int causal;
    int packed;
} attention_params;

#endif /* SCALEMETER_PLUGINS_ATTENTION_H */
