/* The parameters of lstm, gru and rnn (one source built once per type with SM_RECURRENT_LSTM,
 * SM_RECURRENT_GRU or SM_RECURRENT_RNN): parsed by rnn.c, read by rnn_cpu.c, with the sizes of
 * the weights both need. */
#ifndef SCALEMETER_PLUGINS_RNN_H
#define SCALEMETER_PLUGINS_RNN_H

#include <stdint.h>

#include <scalemeter/plugin.h>

#if defined(SM_RECURRENT_LSTM) + defined(SM_RECURRENT_GRU) + defined(SM_RECURRENT_RNN) != 1
#error "build the rnn plugin with exactly one of SM_RECURRENT_LSTM, _GRU and _RNN"
#endif

/* RNN_GATES: G, the blocks of H rows of each weight matrix, in PyTorch's order.
 * RNN_SAVED: floats per hidden unit and step that a training forward keeps for backward, besides
 * the layer's output h (LSTM: i, f, g, o and the cell c; GRU: r, z, n and W_hn h + b_hn). */
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

#endif /* SCALEMETER_PLUGINS_RNN_H */
