/* The parameters of rmsnorm: parsed by rmsnorm.c, read by its CPU and GPU kernels, with the
 * rows both kernels normalise and its initial weights. */
#ifndef SCALEMETER_PLUGINS_RMSNORM_H
#define SCALEMETER_PLUGINS_RMSNORM_H

#include <stdint.h>
#include <stddef.h>

#include <scalemeter/kernels.h>

#include "norm_rows.h"

typedef struct rmsnorm_params {
    double eps;
    int upcast; /* computes in fp32 whatever the activations (counts only; kernels are fp32) */
    int fused;  /* one kernel each way, as a fused Triton or Apex norm (counts only) */
} rmsnorm_params;

/* Rows of the last dimension, not centred; a weight per value and no shift. */
static inline norm_rows rmsnorm_rows(const sm_layer_io *l)
{
    const sm_shape *s = &l->in[0].shape;
    norm_rows g = {.stride = 1, .seg = 1, .groups = 1, .centred = 0};
    g.len = s->dim[s->ndim - 1];
    g.sample = sm_shape_elems(s);
    g.per_sample = g.sample / g.len;
    g.rows = l->in[0].n * g.per_sample;
    return g;
}

/* Each row's rstd, from a training forward (SIZE_MAX where the count overflows: refused). */
static inline size_t rmsnorm_state_size(const sm_layer_io *l)
{
    int64_t bytes = sm_mul(rmsnorm_rows(l).rows, (int64_t)sizeof(float));
    return bytes == SM_OVERFLOW || (uint64_t)bytes > SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

/* Llama's and PyTorch's initialisation: weights 1. */
static inline void rmsnorm_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    int64_t len = rmsnorm_rows(l).len;
    for (int64_t i = 0; i < len; i++)
        w[i] = 1.0f;
}

#endif /* SCALEMETER_PLUGINS_RMSNORM_H */
