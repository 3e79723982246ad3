/* The layer types plugins/ builds: the one list of them the tests hold the registry to (a
 * folder added there is added here). kernels: 1 where the type has CPU and GPU kernels, 0
 * where it has neither (cross_entropy: a loss, SM_TRAIT_LOSS, that the executors compute
 * themselves). */
#ifndef SCALEMETER_TEST_LAYER_TYPES_H
#define SCALEMETER_TEST_LAYER_TYPES_H

#include <string.h>

typedef struct test_layer_type {
    const char *name;
    int kernels;
} test_layer_type;

static const test_layer_type test_layer_types[] = {
    {"adaptive_avgpool2d", 1},
    {"add", 1},
    {"attention", 1},
    {"avgpool2d", 1},
    {"batchnorm2d", 1},
    {"channel_shuffle", 1},
    {"chunk", 1},
    {"cls_token", 1},
    {"concat", 1},
    {"conv1d", 1},
    {"conv2d", 1},
    {"conv3d", 1},
    {"conv_transpose2d", 1},
    {"cross_entropy", 0},
    {"dropout", 1},
    {"embedding", 1},
    {"flatten", 1},
    {"gelu", 1},
    {"gqa_attention", 1},
    {"groupnorm", 1},
    {"gru", 1},
    {"hardsigmoid", 1},
    {"hardswish", 1},
    {"identity", 1},
    {"layer_scale", 1},
    {"layernorm", 1},
    {"linear", 1},
    {"lm_head", 1},
    {"lstm", 1},
    {"maxpool2d", 1},
    {"mean", 1},
    {"mul", 1},
    {"patch_merge", 1},
    {"permute", 1},
    {"pixel_shuffle", 1},
    {"pos_embedding", 1},
    {"relu", 1},
    {"relu6", 1},
    {"rmsnorm", 1},
    {"rnn", 1},
    {"select", 1},
    {"sigmoid", 1},
    {"silu", 1},
    {"softmax", 1},
    {"swiglu", 1},
    {"tanh", 1},
    {"tokens", 1},
    {"upsample", 1},
    {"window_attention", 1},
    {"window_departition", 1},
    {"window_partition", 1},
};
#define N_TEST_LAYER_TYPES ((int)(sizeof test_layer_types / sizeof test_layer_types[0]))

/* The entry of that name, or NULL. */
static inline const test_layer_type *test_layer_type_find(const char *name)
{
    for (int i = 0; i < N_TEST_LAYER_TYPES; i++)
        if (!strcmp(test_layer_types[i].name, name))
            return &test_layer_types[i];
    return NULL;
}

#endif
