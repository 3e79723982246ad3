/* The parameters of gqa_attention: parsed by gqa_attention.c, read by its CPU and GPU kernels,
 * with what both kernels share: the geometry at one batch size (where each weight matrix lies,
 * the state's layout), the initial weights and the rotary angle (also compiled as device code
 * by gqa_attention_gpu.cu, so both backends rotate alike). */
#ifndef SCALEMETER_PLUGINS_GQA_ATTENTION_H
#define SCALEMETER_PLUGINS_GQA_ATTENTION_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <scalemeter/kernels.h>

#ifdef __CUDACC__
#define GQA_HD __host__ __device__
#else
#define GQA_HD
#endif

typedef struct gqa_params {
    int64_t dim, heads, kv_heads;
    int64_t max_len;   /* positions the rotary embedding is defined for; 0: any */
    double rope_theta; /* 0: no rotary embedding */
    int causal;
    int rope_form; /* GQA_ROPE_* */
    int softmax;   /* plugin.h's SM_SOFTMAX_*: what it costs at 16-bit activations (the kernels
                      compute it in fp32 whatever it is) */
    int sdpa;      /* 1: the code calls scaled_dot_product_attention (plugin.h's scores_fused) */
    int kv_cache;  /* 1: returns its keys and values (Hugging Face's use_cache; plugin.h's
                      infer_kept_elems) */
} gqa_params;

/* How the rotary embedding is written: Hugging Face's q cos + rotate_half(q) sin, pairing
 * features (i, i + d/2) of a head, at the activations' precision; or Meta's reference code's
 * and torchtitan's apply_rotary_emb, pairing (2i, 2i + 1) as complex numbers in fp32. */
enum { GQA_ROPE_ROTATE_HALF, GQA_ROPE_COMPLEX };

/* The angle of rotary pair i (of d / 2) at position pos: pos theta^(-2i/d). */
static inline GQA_HD float gqa_angle(double theta, int64_t d, int64_t i, int64_t pos)
{
    return (float)((double)pos * pow(theta, -2.0 * (double)i / (double)d));
}

/* Where pair i's two features lie in a head of d: first, and first + gap. */
static inline GQA_HD int64_t gqa_pair_first(int rope_form, int64_t i)
{
    return rope_form == GQA_ROPE_COMPLEX ? 2 * i : i;
}

static inline GQA_HD int64_t gqa_pair_gap(int rope_form, int64_t d)
{
    return rope_form == GQA_ROPE_COMPLEX ? 1 : d / 2;
}

/* A layer at one batch size: R = batch x S rows, h query heads and kv key/value heads of d
 * features; query head j reads key/value head j / (h / kv). Weights (LlamaAttention's order):
 * q_proj E x E, k_proj kvE x E, v_proj kvE x E, o_proj E x E, kvE = kv d. State: Q (R x E,
 * rotated), K V (the column blocks of one R x 2kvE matrix, K rotated), every head's P
 * (batch x h x S x S), the context C (R x E). */
typedef struct gqa_geom {
    int64_t n, s, e, h, kv, d, ekv, r;
    const float *wq, *wk, *wv, *wo;
    float *dwq, *dwk, *dwv, *dwo;
    float *q, *kvm, *p, *ctx;
    float scale;
    double theta;
    int causal, rope_form;
} gqa_geom;

static inline gqa_geom gqa_geom_of(const sm_layer_io *l)
{
    const gqa_params *p = (const gqa_params *)l->params;
    gqa_geom g;
    memset(&g, 0, sizeof g);
    g.n = l->in[0].n;
    g.s = l->in[0].shape.dim[0];
    g.e = p->dim;
    g.h = p->heads;
    g.kv = p->kv_heads;
    g.d = g.e / g.h;
    g.ekv = g.kv * g.d;
    g.r = g.n * g.s;
    g.scale = 1.0f / sqrtf((float)g.d);
    g.theta = p->rope_theta;
    g.causal = p->causal;
    g.rope_form = p->rope_form;
    int64_t ee = g.e * g.e, ke = g.ekv * g.e;
    if (l->w) {
        g.wq = l->w;
        g.wk = l->w + ee;
        g.wv = l->w + ee + ke;
        g.wo = l->w + ee + 2 * ke;
    }
    if (l->dw) {
        g.dwq = l->dw;
        g.dwk = l->dw + ee;
        g.dwv = l->dw + ee + ke;
        g.dwo = l->dw + ee + 2 * ke;
    }
    if (l->state) {
        g.q = (float *)l->state;
        g.kvm = g.q + g.r * g.e;
        g.p = g.kvm + g.r * 2 * g.ekv;
        g.ctx = g.p + g.n * g.h * g.s * g.s;
    }
    return g;
}

/* Floats of that state. */
static inline int64_t gqa_state_floats(const gqa_geom *g)
{
    int64_t scores = sm_mul(sm_mul(g->n, g->h), sm_mul(g->s, g->s));
    return sm_add(sm_add(sm_mul(2 * g->e, g->r), sm_mul(2 * g->ekv, g->r)), scores);
}

/* Initial weights, the same on both backends: nn.Linear's U(-1/sqrt(E), 1/sqrt(E)). */
static inline void gqa_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    const gqa_params *p = (const gqa_params *)l->params;
    float bound = 1.0f / sqrtf((float)p->dim);
    for (int64_t i = 0; i < l->n_w; i++)
        w[i] *= bound;
}

#endif /* SCALEMETER_PLUGINS_GQA_ATTENTION_H */
