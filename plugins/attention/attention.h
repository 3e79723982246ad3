/* The parameters of attention: parsed by attention.c, read by its CPU kernels. */
#ifndef SCALEMETER_PLUGINS_ATTENTION_H
#define SCALEMETER_PLUGINS_ATTENTION_H

#include <stdint.h>

/* What the scores are divided by. */
enum attention_scale {
    ATTENTION_SCALE_HEAD = 0, /* sqrt(head_dim), nn.MultiheadAttention */
    ATTENTION_SCALE_DIM = 1   /* sqrt(E), MaxViT's k * feat_dim**-0.5 */
};

typedef struct attention_params {
    int64_t dim;
    int64_t heads;
    int64_t rel_pos; /* W of a W x W window with a relative position bias table; 0: none */
    int bias;
    int causal;
    int packed;
    int scale; /* enum attention_scale */
} attention_params;

/* Index into the (2W-1)^2 rows of the relative position bias table for query position i and key
 * position j of a W x W window read row by row (torchvision's maxvit
 * _get_relative_position_index(W, W)): (dy + W - 1) (2W - 1) + (dx + W - 1). */
static inline int64_t attention_rel_index(int64_t w, int64_t i, int64_t j)
{
    int64_t dy = i / w - j / w, dx = i % w - j % w;
    return (dy + w - 1) * (2 * w - 1) + (dx + w - 1);
}

#endif /* SCALEMETER_PLUGINS_ATTENTION_H */
