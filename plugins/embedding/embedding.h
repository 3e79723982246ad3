/* The parameters of embedding: parsed by embedding.c, read by its CPU and GPU kernels, with what
 * both kernels share: the token id of an input float (also compiled as device code by
 * embedding_gpu.cu, so both compute the same id) and the initial table. */
#ifndef SCALEMETER_PLUGINS_EMBEDDING_H
#define SCALEMETER_PLUGINS_EMBEDDING_H

#include <stdint.h>

#include <scalemeter/kernels.h>

#ifdef __CUDACC__
#define EMBEDDING_HD __host__ __device__
#else
#define EMBEDDING_HD
#endif

typedef struct embedding_params {
    int64_t vocab;
    int64_t dim;
} embedding_params;

/* The host fills a network's input with floats in [-1, 1); a benchmark needs valid ids, not
 * particular ones: id = floor((x + 1) / 2 vocab), clamped. One rounding per operation, in this
 * order, on both backends (no product here can fuse with an addition). */
static inline EMBEDDING_HD int64_t embedding_token(int64_t vocab, float x)
{
    int64_t id = (int64_t)((x + 1.0f) * 0.5f * (float)vocab);
    return id < 0 ? 0 : id >= vocab ? vocab - 1 : id;
}

/* Initial table N(0, 1)-like (nn.Embedding): the host's U(-1, 1) scaled to the same spread. */
static inline void embedding_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    for (int64_t i = 0; i < l->n_w; i++)
        w[i] *= 1.732f;
}

#endif /* SCALEMETER_PLUGINS_EMBEDDING_H */
