/* The parameters of attention: parsed by attention.c, read by its CPU and GPU kernels, with what
 * both kernels share: the geometry of a layer at one batch size (where each weight matrix lies,
 * the state's layout), the initial weights, and the relative position index (also compiled as
 * device code by attention_gpu.cu, so both backends read the same table entries). */
#ifndef SCALEMETER_PLUGINS_ATTENTION_H
#define SCALEMETER_PLUGINS_ATTENTION_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <scalemeter/kernels.h>

#ifdef __CUDACC__
#define ATTENTION_HD __host__ __device__
#else
#define ATTENTION_HD
#endif

/* What the scores are divided by. */
enum attention_scale {
    ATTENTION_SCALE_HEAD = 0, /* sqrt(head_dim), nn.MultiheadAttention */
    ATTENTION_SCALE_DIM = 1   /* sqrt(E), MaxViT's k * feat_dim**-0.5 */
};

/* Where eager code scales, and how it masks, the scores: for the counts only (the kernels
 * compute the same function either way). */
enum attention_scale_on {
    ATTENTION_SCALE_QUERIES = 0, /* Q / sqrt(d) before the product: nn.MultiheadAttention */
    ATTENTION_SCALE_SCORES = 1   /* (Q K^T) / sqrt(d): Hugging Face's BERT and GPT-2 */
};
enum attention_mask {
    ATTENTION_MASK_NONE = 0,          /* none, or inside the product or softmax kernel */
    ATTENTION_MASK_ADDITIVE = 1,      /* scores + mask: BERT's extended attention mask */
    ATTENTION_MASK_WHERE = 2,         /* torch.where(causal, scores, min): GPT-2's causal mask */
    ATTENTION_MASK_ADDITIVE_CLAMP = 3 /* scores + a causal mask, then torch.max(scores, min):
                                         Hugging Face's eager OPTAttention */
};

typedef struct attention_params {
    int64_t dim;
    int64_t heads;
    int64_t rel_pos; /* W of a W x W window with a relative position bias table; 0: none */
    int bias;
    int causal;
    int packed;
    int scale;      /* enum attention_scale */
    double dropout; /* on the attention weights, in training (what is kept for backward) */
    int scale_on;   /* enum attention_scale_on */
    int mask;       /* enum attention_mask */
    int sdpa;       /* 1: the code calls scaled_dot_product_attention (plugin.h's scores_fused) */
    int kv_cache;   /* 1: returns its keys and values (Hugging Face's use_cache; plugin.h's
                       infer_kept_elems) */
} attention_params;

/* Index into the (2W-1)^2 rows of the relative position bias table for query position i and key
 * position j of a W x W window read row by row (torchvision's maxvit
 * _get_relative_position_index(W, W)): (dy + W - 1) (2W - 1) + (dx + W - 1). */
static inline ATTENTION_HD int64_t attention_rel_index(int64_t w, int64_t i, int64_t j)
{
    int64_t dy = i / w - j / w, dx = i % w - j % w;
    return (dy + w - 1) * (2 * w - 1) + (dx + w - 1);
}

/* Floats of the relative position bias table, which comes first in the weights (0 without). */
static inline int64_t attention_table_elems(const attention_params *p)
{
    return p->rel_pos ? (2 * p->rel_pos - 1) * (2 * p->rel_pos - 1) * p->heads : 0;
}

/* Offsets in the weights of the matrices (at) and biases (bt) of q, k, v and the output, in
 * PyTorch's order. packed (nn.MultiheadAttention): [table] W_q W_k W_v [b_q b_k b_v] W_o [b_o];
 * packed=false (BERT): [table] W_q [b_q] W_k [b_k] W_v [b_v] W_o [b_o]. bt is meaningless
 * without bias. */
static inline void attention_offsets(const attention_params *p, int64_t at[4], int64_t bt[4])
{
    int64_t e = p->dim, ee = e * e, lead = attention_table_elems(p);
    for (int t = 0; t < 4; t++) {
        if (p->packed) {
            at[t] = lead + (t < 3 ? t * ee : 3 * ee + (p->bias ? 3 * e : 0));
            bt[t] = t < 3 ? lead + 3 * ee + t * e : at[3] + ee;
        } else {
            at[t] = lead + t * (ee + (p->bias ? e : 0));
            bt[t] = at[t] + ee;
        }
    }
}

/* A layer at one batch size as both backends see it: Rq = batch x G x S query rows, Rk = batch x
 * G x M key rows; h heads of d = E / h features. The weight, gradient, input and state pointers
 * are l's (device pointers on the GPU), NULL where l has none. State: Q (Rq x E), K V (the
 * column blocks of one Rk x 2E matrix), every head's P (sequences x h x S x M), the context C
 * (Rq x E). */
typedef struct attention_geom {
    int64_t n, seqs, s, m, e, h, d; /* batch, sequences (n G), query and key length, ... */
    int64_t rq, rk;                 /* query rows seqs S, key rows seqs M */
    int64_t win;                    /* rel_pos W; 0: no bias table */
    const float *w[4], *b[4];       /* q, k, v, output; b NULL without bias */
    const float *table;             /* (2W - 1)^2 x h; NULL without rel_pos */
    float *dw[4], *db[4], *dtable;
    const float *x, *mem;    /* the query's input, the keys' and values' (x without a memory) */
    float *q, *kv, *p, *ctx; /* state */
    float scale;
    int causal;
} attention_geom;

static inline attention_geom attention_geom_of(const sm_layer_io *l)
{
    const attention_params *p = (const attention_params *)l->params;
    const sm_shape *x = &l->in[0].shape;
    attention_geom g;
    memset(&g, 0, sizeof g);
    g.n = l->in[0].n;
    g.s = x->dim[x->ndim - 2];
    g.m = l->n_in == 2 ? l->in[1].shape.dim[0] : g.s;
    g.seqs = g.n * (x->ndim == 3 ? x->dim[0] : 1);
    g.e = p->dim;
    g.h = p->heads;
    g.d = g.e / g.h;
    g.rq = g.seqs * g.s;
    g.rk = g.seqs * g.m;
    g.win = p->rel_pos;
    g.causal = p->causal;
    g.scale = 1.0f / sqrtf((float)(p->scale == ATTENTION_SCALE_DIM ? g.e : g.d));
    g.x = l->in[0].data;
    g.mem = l->n_in == 2 ? l->in[1].data : g.x;
    int64_t at[4], bt[4];
    attention_offsets(p, at, bt);
    for (int t = 0; t < 4; t++) {
        if (l->w) {
            g.w[t] = l->w + at[t];
            g.b[t] = p->bias ? l->w + bt[t] : NULL;
        }
        if (l->dw) {
            g.dw[t] = l->dw + at[t];
            g.db[t] = p->bias ? l->dw + bt[t] : NULL;
        }
    }
    if (g.win) {
        g.table = l->w;
        g.dtable = l->dw;
    }
    if (l->state) {
        g.q = (float *)l->state;
        g.kv = g.q + g.rq * g.e;
        g.p = g.kv + g.rk * 2 * g.e;
        g.ctx = g.p + g.seqs * g.h * g.s * g.m;
    }
    return g;
}

/* Floats of that state. */
static inline int64_t attention_state_floats(const attention_geom *g)
{
    int64_t scores = sm_mul(sm_mul(g->seqs, g->h), sm_mul(g->s, g->m));
    return sm_add(sm_add(sm_mul(2 * g->e, g->rq), sm_mul(2 * g->e, g->rk)), scores);
}

/* Initial weights, the same on both backends: matrices U(-1/sqrt(E), 1/sqrt(E)), biases 0; the
 * bias table U(-a, a) with a = 0.02 sqrt(3), the standard deviation 0.02 of torchvision's
 * trunc_normal_(std=0.02). Offsets from w, never l->w (a device pointer on the GPU). */
static inline void attention_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    const attention_params *p = (const attention_params *)l->params;
    int64_t table = attention_table_elems(p), at[4], bt[4];
    float a = 0.02f * sqrtf(3.0f), bound = 1.0f / sqrtf((float)p->dim);
    for (int64_t i = 0; i < table; i++)
        w[i] *= a;
    for (int64_t i = table; i < l->n_w; i++)
        w[i] *= bound;
    attention_offsets(p, at, bt);
    for (int t = 0; t < 4 && p->bias; t++)
        for (int64_t i = 0; i < p->dim; i++)
            w[bt[t] + i] = 0.0f;
}

#endif /* SCALEMETER_PLUGINS_ATTENTION_H */
