/* The parameters of pos_embedding: parsed by pos_embedding.c, with the initial table its CPU and
 * GPU kernels share. */
#ifndef SCALEMETER_PLUGINS_POS_EMBEDDING_H
#define SCALEMETER_PLUGINS_POS_EMBEDDING_H

#include <stdint.h>

#include <scalemeter/kernels.h>

typedef struct pos_embedding_params {
    int64_t max_len;
    int exact; /* 1: the whole table is added, so S must be max_len (ViT's) */
} pos_embedding_params;

/* Initial table N(0, 0.02)-like, the host's U(-1, 1) scaled to the same spread (0.02 sqrt(3)),
 * as ViT's pos_embedding and GPT-2's wpe start small. */
static inline void pos_embedding_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    for (int64_t i = 0; i < l->n_w; i++)
        w[i] *= 0.0346f;
}

#endif /* SCALEMETER_PLUGINS_POS_EMBEDDING_H */
