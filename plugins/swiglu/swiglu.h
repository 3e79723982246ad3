/* The parameters of swiglu: parsed by swiglu.c, read by its CPU and GPU kernels, with the
 * geometry both kernels share (where each matrix lies, the state's layout). */
#ifndef SCALEMETER_PLUGINS_SWIGLU_H
#define SCALEMETER_PLUGINS_SWIGLU_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <scalemeter/kernels.h>

typedef struct swiglu_params {
    int64_t hidden;
} swiglu_params;

/* rows inputs of E features, F = hidden. Weights in LlamaMLP's order: gate_proj F x E, up_proj
 * F x E, down_proj E x F. State: G = x W_g^T, U = x W_u^T and H = silu(G) U, rows x F each. */
typedef struct swiglu_geom {
    int64_t rows, e, f;
    const float *wg, *wu, *wd;
    float *dwg, *dwu, *dwd;
    float *g, *u, *h;
} swiglu_geom;

static inline swiglu_geom swiglu_geom_of(const sm_layer_io *l)
{
    const swiglu_params *p = (const swiglu_params *)l->params;
    const sm_shape *x = &l->in[0].shape;
    swiglu_geom g;
    memset(&g, 0, sizeof g);
    g.e = x->dim[x->ndim - 1];
    g.f = p->hidden;
    g.rows = l->in[0].n * (sm_shape_elems(x) / g.e);
    int64_t fe = g.f * g.e;
    if (l->w) {
        g.wg = l->w;
        g.wu = l->w + fe;
        g.wd = l->w + 2 * fe;
    }
    if (l->dw) {
        g.dwg = l->dw;
        g.dwu = l->dw + fe;
        g.dwd = l->dw + 2 * fe;
    }
    if (l->state) {
        g.g = (float *)l->state;
        g.u = g.g + g.rows * g.f;
        g.h = g.u + g.rows * g.f;
    }
    return g;
}

/* Floats of the state, and of the backward pass's work (dH, dG, dU). */
static inline int64_t swiglu_rows_floats(const swiglu_geom *g)
{
    return sm_mul(3, sm_mul(g->rows, g->f));
}

/* nn.Linear's default initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in)). */
static inline void swiglu_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    swiglu_geom g = swiglu_geom_of(l);
    float be = 1.0f / sqrtf((float)g.e), bf = 1.0f / sqrtf((float)g.f);
    for (int64_t i = 0; i < 2 * g.f * g.e; i++)
        w[i] *= be;
    for (int64_t i = 2 * g.f * g.e; i < 3 * g.f * g.e; i++)
        w[i] *= bf;
}

#endif /* SCALEMETER_PLUGINS_SWIGLU_H */
