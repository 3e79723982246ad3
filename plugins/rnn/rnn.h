/* The parameters of lstm, gru and rnn (one source built once per type with SM_RECURRENT_LSTM,
 * SM_RECURRENT_GRU or SM_RECURRENT_RNN): parsed by rnn.c, read by rnn_cpu.c and rnn_gpu.c, with
 * the sizes of the weights, the geometry, the layout of the state and the initial weights that
 * they share. */
#ifndef SCALEMETER_PLUGINS_RNN_H
#define SCALEMETER_PLUGINS_RNN_H

#include <limits.h>
#include <math.h>
#include <stdint.h>

#include <scalemeter/kernels.h>

#if defined(SM_RECURRENT_LSTM) + defined(SM_RECURRENT_GRU) + defined(SM_RECURRENT_RNN) != 1
#error "build the rnn plugin with exactly one of SM_RECURRENT_LSTM, _GRU and _RNN"
#endif

/* RNN_GATES: G, the blocks of H rows of each weight matrix, in PyTorch's order.
 * RNN_SAVED: floats per hidden unit and step that a training forward keeps for backward, besides
 * the layer's output h (LSTM: i, f, g, o and the cell c; GRU: r, z, n and W_hn h + b_hn). */
/* GRU alone has a dB apart from dA and a direct path from h_prev to h (z h). */
#ifdef SM_RECURRENT_GRU
#define RNN_GRU 1
#else
#define RNN_GRU 0
#endif

#if defined(SM_RECURRENT_LSTM)
#define RNN_NAME "lstm"
#define RNN_GATES 4 /* i, f, g, o */
#define RNN_SAVED 5
#elif defined(SM_RECURRENT_GRU)
#define RNN_NAME "gru"
#define RNN_GATES 3 /* r, z, n */
#define RNN_SAVED 4
#else
#define RNN_NAME "rnn"
#define RNN_GATES 1
#define RNN_SAVED 0
#endif

typedef struct rnn_params {
    int64_t hidden;    /* H, features of the hidden state */
    int64_t layers;    /* L, stacked layers */
    int bidirectional; /* D = 2: a second direction over t = S-1 .. 0 */
    int bias;          /* bias_ih and bias_hh in every layer and direction */
    int relu;          /* rnn only: nonlinearity=relu instead of tanh */
} rnn_params;

static inline int64_t rnn_directions(const rnn_params *p) { return p->bidirectional ? 2 : 1; }

/* E_k, the input features of layer k: E for the first, D H (both directions) for the others. */
static inline int64_t rnn_layer_in(const rnn_params *p, int64_t e, int64_t k)
{
    return k == 0 ? e : sm_mul(rnn_directions(p), p->hidden);
}

/* Weights of one layer and direction with e_k input features, in PyTorch's order: weight_ih
 * (G H x e_k), weight_hh (G H x H), then with bias bias_ih (G H) and bias_hh (G H). */
static inline int64_t rnn_block_weights(const rnn_params *p, int64_t e_k)
{
    int64_t gh = sm_mul(RNN_GATES, p->hidden);
    return sm_add(sm_mul(gh, sm_add(e_k, p->hidden)), p->bias ? sm_mul(2, gh) : 0);
}

/* ---- what the CPU (rnn_cpu.c) and GPU (rnn_gpu.c) kernels share ----------------------------- */

typedef struct rnn_geom {
    int64_t n, s, e, h, l, d; /* batch, steps, input features, hidden, layers, directions */
    int64_t gh, dh, rows;     /* G H, D H, n s */
    int relu;
} rnn_geom;

static inline rnn_geom rnn_geom_of(const sm_layer_io *l)
{
    const rnn_params *p = l->params;
    rnn_geom g = {0};
    g.n = l->in[0].n;
    g.s = l->in[0].shape.dim[0];
    g.e = l->in[0].shape.dim[1];
    g.h = p->hidden;
    g.l = p->layers;
    g.d = rnn_directions(p);
    g.gh = RNN_GATES * g.h;
    g.dh = g.d * g.h;
    g.rows = sm_mul(g.n, g.s);
    g.relu = p->relu;
    return g;
}

/* OpenBLAS and cuBLAS take int sizes and strides: every one the products use must fit. */
static inline int rnn_int_fits(const rnn_geom *g)
{
    int64_t sizes[] = {g->rows, g->e, g->gh, g->dh, sm_mul(g->s, g->gh), sm_mul(g->s, g->dh)};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i] > INT_MAX)
            return 0;
    return 1;
}

/* The weights (or gradients, from dw) of layer k, direction dir, and its input features. */
typedef struct rnn_block {
    float *w_ih, *w_hh, *b_ih, *b_hh; /* b_ih, b_hh NULL without bias */
    int64_t e_k;
} rnn_block;

static inline rnn_block rnn_block_of(const sm_layer_io *l, const rnn_geom *g, float *w, int64_t k,
                                     int dir)
{
    const rnn_params *p = l->params;
    int64_t offset = 0;
    for (int64_t j = 0; j < k; j++)
        offset += g->d * rnn_block_weights(p, rnn_layer_in(p, g->e, j));
    rnn_block b = {.e_k = rnn_layer_in(p, g->e, k)};
    offset += dir * rnn_block_weights(p, b.e_k);
    b.w_ih = w + offset;
    b.w_hh = b.w_ih + g->gh * b.e_k;
    if (p->bias) {
        b.b_ih = b.w_hh + g->gh * g->h;
        b.b_hh = b.b_ih + g->gh;
    }
    return b;
}

/* The state, written by every forward: the R x D H outputs of layers 0 .. L-2 (the inputs of
 * those above; the last layer's is the layer's output), then per layer, direction, sample and
 * step RNN_SAVED x H activations. */
static inline int64_t rnn_state_floats(const rnn_geom *g)
{
    int64_t outputs = sm_mul(g->l - 1, sm_mul(g->rows, g->dh));
    int64_t saved = sm_mul(sm_mul(g->l, g->d), sm_mul(g->rows, RNN_SAVED * g->h));
    return sm_add(outputs, saved);
}

/* Scratch. forward: P (R x G H), then Q (batch x G H). backward: dA (R x G H), dB (the same
 * for GRU; dA itself otherwise), two R x D H output gradients of inner layers (L > 1), the
 * carried gradients of h and c (batch x H each), and with previous_h (the GPU's) Hp (R x H):
 * each row's previous hidden state, so that dW_hh is one product over the whole sequence. */
typedef struct rnn_work {
    float *pre, *hid;
    float *da, *db, *dy[2], *carry, *dc, *hp;
} rnn_work;

/* Floats of scratch, and where each part lies from base (w and base NULL: the count only). */
static inline int64_t rnn_work_floats(const rnn_geom *g, rnn_work *w, float *base, int previous_h)
{
    int64_t seq = sm_mul(g->rows, g->gh), batch = sm_mul(g->n, g->h);
    int64_t inner = g->l > 1 ? sm_mul(g->rows, g->dh) : 0;
    int64_t fwd = sm_add(seq, sm_mul(g->n, g->gh));
    int64_t da_db = RNN_GRU ? sm_mul(2, seq) : seq;
    int64_t bwd = sm_add(sm_add(sm_add(da_db, sm_mul(2, inner)), sm_mul(2, batch)),
                         previous_h ? sm_mul(g->rows, g->h) : 0);
    if (w && base) {
        w->pre = base;
        w->hid = base + seq;
        w->da = base;
        w->db = RNN_GRU ? base + seq : base;
        w->dy[0] = base + da_db;
        w->dy[1] = w->dy[0] + inner;
        w->carry = w->dy[1] + inner;
        w->dc = w->carry + batch;
        w->hp = previous_h ? w->dc + batch : NULL;
    }
    return fwd > bwd ? fwd : bwd;
}

/* R x D H output of layer k: the state for all but the last, whose output is the layer's. */
static inline float *rnn_layer_output(const sm_layer_io *l, const rnn_geom *g, int64_t k)
{
    return k == g->l - 1 ? l->out->data : (float *)l->state + k * g->rows * g->dh;
}

static inline const float *rnn_layer_input(const sm_layer_io *l, const rnn_geom *g, int64_t k)
{
    return k == 0 ? l->in[0].data : rnn_layer_output(l, g, k - 1);
}

/* R x RNN_SAVED H activations of layer k, direction dir (NULL for RNN, which keeps none). */
static inline float *rnn_saved_of(const sm_layer_io *l, const rnn_geom *g, int64_t k, int dir)
{
    if (RNN_SAVED == 0)
        return NULL;
    int64_t outputs = (g->l - 1) * g->rows * g->dh;
    return (float *)l->state + outputs + (k * g->d + dir) * g->rows * RNN_SAVED * g->h;
}

/* U(-1/sqrt(H), 1/sqrt(H)) for every weight and bias, as PyTorch's reset_parameters. */
static inline void rnn_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    const rnn_params *p = l->params;
    float bound = 1.0f / sqrtf((float)p->hidden);
    for (int64_t i = 0; i < l->n_w; i++)
        w[i] *= bound;
}

#endif /* SCALEMETER_PLUGINS_RNN_H */
