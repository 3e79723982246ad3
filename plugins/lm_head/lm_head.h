/* The parameters of lm_head: parsed by lm_head.c, read by its CPU kernels. */
#ifndef SCALEMETER_PLUGINS_LM_HEAD_H
#define SCALEMETER_PLUGINS_LM_HEAD_H

#include <stdint.h>

typedef struct lm_head_params {
    int64_t vocab;
    int bias;
} lm_head_params;

#endif /* SCALEMETER_PLUGINS_LM_HEAD_H */
