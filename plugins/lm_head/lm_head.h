/* The parameters of lm_head: parsed by lm_head.c, read by its CPU and GPU kernels, with what
 * both kernels share: the geometry, and the stand-in for the tied matrix (lm_head_cpu.c) kept
 * in the layer's state. */
#ifndef SCALEMETER_PLUGINS_LM_HEAD_H
#define SCALEMETER_PLUGINS_LM_HEAD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <scalemeter/kernels.h>

#include "cpu_util.h"

typedef struct lm_head_params {
    int64_t vocab;
    int bias;
} lm_head_params;

/* rows of e features in, rows of vocab out. */
typedef struct lm_head_geom {
    int64_t rows, e, vocab;
} lm_head_geom;

static inline lm_head_geom lm_head_geom_of(const sm_layer_io *l)
{
    const lm_head_params *p = l->params;
    const sm_shape *s = &l->in[0].shape;
    lm_head_geom g = {l->in[0].n * sm_shape_dims(s, 0, s->ndim - 1), s->dim[s->ndim - 1], p->vocab};
    return g;
}

/* Bytes of the vocab x e matrix: the state (the stand-in) and the scratch (its gradient). */
static inline size_t lm_head_matrix_size(const sm_layer_io *l)
{
    lm_head_geom g = lm_head_geom_of(l);
    return cpu_float_bytes(sm_mul(g.vocab, g.e));
}

/* The stand-in matrix U(-1/sqrt(E), 1/sqrt(E)) from a hash (state arrives zeroed); bias 0. */
static inline void lm_head_init(const sm_layer_io *l, float *w, void *state)
{
    lm_head_geom g = lm_head_geom_of(l);
    float *m = state, bound = 1.0f / sqrtf((float)g.e);
    for (int64_t i = 0; i < g.vocab * g.e; i++) {
        double u = (double)(cpu_hash(17, (uint64_t)i) >> 11) / 4503599627370496.0 - 1.0;
        m[i] = bound * (float)u;
    }
    if (w)
        memset(w, 0, (size_t)l->n_w * sizeof *w);
}

#endif /* SCALEMETER_PLUGINS_LM_HEAD_H */
