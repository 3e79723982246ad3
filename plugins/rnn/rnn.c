/*
 * lstm, gru and rnn: torch.nn.LSTM, nn.GRU and nn.RNN with batch_first=True and a zero initial
 * state (no h0, c0 given), one source built once per type (SM_RECURRENT_LSTM, _GRU, _RNN). The
 * per-sample input is a sequence S x E; the output is PyTorch's `output`, S x D H: every step of
 * the last layer, the forward direction's H features then the reverse direction's (D = 2 with
 * bidirectional=true). Layer k reads E_k features: E_0 = E, E_k = D H above. Per step, with G
 * gates (LSTM 4: i, f, g, o; GRU 3: r, z, n; RNN 1) and σ the sigmoid:
 *
 *   LSTM  i = σ(W_ii x + b_ii + W_hi h + b_hi), f, o likewise, g = tanh(W_ig x + ... + b_hg)
 *         c' = f c + i g,  h' = o tanh(c')
 *   GRU   r = σ(W_ir x + b_ir + W_hr h + b_hr), z likewise
 *         n = tanh(W_in x + b_in + r (W_hn h + b_hn)),  h' = (1 - z) n + z h
 *   RNN   h' = act(W_ih x + b_ih + W_hh h + b_hh), act = tanh or relu (nonlinearity)
 *
 * Dropout between layers is not modelled (no dropout key). Counts per sample, the sums over the
 * L layers k and the D directions:
 *
 *   macs          = S * sum G H (E_k + H)      (the input and hidden products of every step)
 *   flops         = 2 macs + (bias ? S * sum 2 G H : 0) + S L D H c_gate
 *   weights       = sum G H (E_k + H) + (bias ? 2 G H : 0)
 *   param_tensors = L D (bias ? 4 : 2)         (weight_ih, weight_hh, bias_ih, bias_hh)
 *   bwd_flops     = 2 flops                    (as linear: input and weight gradients)
 *   bytes         = 4 S * sum (E_k + 2 G H + H)
 *
 * c_gate, the element-wise FLOPs per hidden unit and step, with the activation plugin's costs
 * (sigmoid 4, tanh 5, relu 1) and 1 per multiply or add. A gate's input and hidden products
 * form one dot product of E_k + H terms, so adding them together is inside 2 macs; the biases
 * are the bias term.
 *   LSTM  26 = 3 sigmoids (12) + tanh for g (5) + c' = f c + i g (3) + h' = o tanh(c') (6)
 *   GRU   19 = 2 sigmoids (8) + n: r (W_hn h + b_hn) and adding W_in x + b_in, which stay
 *              apart (2), tanh (5) + h' = (1 - z) n + z h (4)
 *   RNN   5 with tanh, 1 with relu
 *
 * library_kernels_fwd = L D (2 S + 1), library_kernels_bwd = L D (2 S + 2): what cuDNN
 * launches inside the one call (plugin.h, ABI 11), each after the last.
 *
 * bytes counts the activations an implementation that projects the whole input sequence at
 * once (PyTorch's CPU path, cuDNN) moves, each once, per layer and direction: the input read
 * (S E_k) and the S x G H pre-activations written by the projection, then those read and the
 * S x H outputs written by the recurrence. A step's state (h, c: a few H per sample) is taken
 * to stay in cache; the host adds 4 weights.
 */
#include <scalemeter/plugin.h>

#include "rnn.h"

#define MAX_HIDDEN ((int64_t)1 << 24) /* the limit of channel counts (docs/plugins.md) */
#define MAX_LAYERS ((int64_t)1 << 16)

#if defined(SM_RECURRENT_LSTM)
#define RNN_SUMMARY                                                                                \
    "long short-term memory over a sequence (nn.LSTM): hidden, layers, "                           \
    "bidirectional, bias"
#elif defined(SM_RECURRENT_GRU)
#define RNN_SUMMARY                                                                                \
    "gated recurrent unit over a sequence (nn.GRU): hidden, layers, "                              \
    "bidirectional, bias"
#else
#define RNN_SUMMARY                                                                                \
    "Elman recurrent layer over a sequence (nn.RNN): hidden, layers, "                             \
    "bidirectional, bias, nonlinearity"
#endif

static void rnn_parse(void *params, sm_args *args)
{
    rnn_params *p = params;
    p->hidden = sm_arg_int(args, "hidden", SM_REQUIRED, 1, MAX_HIDDEN);
    p->layers = sm_arg_int(args, "layers", 1, 1, MAX_LAYERS);
    p->bidirectional = sm_arg_bool(args, "bidirectional", 0);
    p->bias = sm_arg_bool(args, "bias", 1);
#ifdef SM_RECURRENT_RNN
    /* lstm and gru never read the key, so the host reports it as unknown there */
    static const char *const nonlinearities[] = {"tanh", "relu", NULL};
    p->relu = sm_arg_choice(args, "nonlinearity", nonlinearities, 0) == 1;
#endif
}

static int rnn_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err)
{
    (void)n_in;
    const rnn_params *p = params;
    char s[64];
    if (p->hidden < 1 || p->layers < 1) {
        sm_error_set(err, RNN_NAME " needs hidden >= 1 and layers >= 1");
        return -1;
    }
    if (in->ndim != 2 || in->dim[0] < 1 || in->dim[1] < 1) {
        sm_error_set(err, RNN_NAME " needs a sequence S x E, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    out->ndim = 2;
    out->dim[0] = in->dim[0];
    out->dim[1] = rnn_directions(p) * p->hidden;
    return 0;
}

/* Element-wise FLOPs per hidden unit and step (the derivation is in the top comment). */
static int64_t unit_flops(const rnn_params *p)
{
#if defined(SM_RECURRENT_LSTM)
    (void)p;
    return 26;
#elif defined(SM_RECURRENT_GRU)
    (void)p;
    return 19;
#else
    return p->relu ? 1 : 5;
#endif
}

static int rnn_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                       sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    const rnn_params *p = params;
    (void)out;
    if (in->ndim != 2) {
        sm_error_set(err, RNN_NAME " metrics called with unexpected shapes");
        return -1;
    }
    int64_t s = in->dim[0], h = p->hidden, d = rnn_directions(p);
    int64_t gh = sm_mul(RNN_GATES, h);
    int64_t step_macs = 0, weights = 0, step_bytes = 0; /* sums over layers and directions */
    for (int64_t k = 0; k < p->layers; k++) {
        int64_t e_k = rnn_layer_in(p, in->dim[1], k);
        step_macs = sm_add(step_macs, sm_mul(d, sm_mul(gh, sm_add(e_k, h))));
        weights = sm_add(weights, sm_mul(d, rnn_block_weights(p, e_k)));
        step_bytes = sm_add(step_bytes, sm_mul(d, sm_add(sm_add(e_k, sm_mul(2, gh)), h)));
    }
    int64_t units = sm_mul(sm_mul(s, p->layers), sm_mul(d, h)); /* S L D H */
    m->macs = sm_mul(s, step_macs);
    m->flops = sm_add(sm_mul(2, m->macs), sm_mul(units, unit_flops(p)));
    if (p->bias) /* bias_ih and bias_hh: one add each per gate row and step */
        m->flops = sm_add(m->flops, sm_mul(units, 2 * RNN_GATES));
    m->weights = weights;
    m->param_tensors = (int64_t)(p->bias ? 4 : 2) * p->layers * d;
    m->bwd_flops = sm_mul(2, m->flops);
    m->matmul_flops = sm_mul(2, m->macs); /* the gates' products; the cells are vector work */
    m->bytes = sm_mul(4, sm_mul(s, step_bytes));
    /* cuDNN's standard algorithm (its "Standard" RNN algo, PyTorch's default) runs each layer
     * and direction as one matrix product of the whole input sequence, then per time step the
     * recurrent product and one element-wise kernel for the gates, each launched after the
     * last; backward likewise per step, and the weight gradients as one product each of the
     * input and the recurrent weights */
    int64_t chains = sm_mul(p->layers, d);
    m->library_kernels_fwd = sm_mul(chains, sm_add(sm_mul(2, s), 1));
    m->library_kernels_bwd = sm_mul(chains, sm_add(sm_mul(2, s), 2));
    if (m->bwd_flops == SM_OVERFLOW || m->weights == SM_OVERFLOW || m->bytes == SM_OVERFLOW ||
        m->library_kernels_bwd == SM_OVERFLOW) {
        char si[64];
        sm_error_set(err, "%s overflows 64 bits (input %s, hidden %lld, layers %lld)",
                     m->weights == SM_OVERFLOW ? "weight count"
                     : m->bytes == SM_OVERFLOW ? "byte count"
                                               : "FLOP count",
                     sm_shape_str(in, si, sizeof si), (long long)h, (long long)p->layers);
        return -1;
    }
    return 0;
}

/* What cuDNN's training keeps (PyTorch's _cudnn_rnn saves its input, output and reserve
 * space): the input, the output, and per step, layer and direction the gates' activations and
 * the cell's state, G + 1 vectors of H, the reserve space's contents. An estimate from cuDNN's
 * documented layout, not yet checked against a measurement (no recurrent zoo network). */
static int rnn_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                     sm_layer_saved *s, sm_error *err)
{
    const rnn_params *p = params;
    (void)n_in, (void)out, (void)err;
    int64_t units = sm_mul(sm_mul(in->dim[0], p->layers), sm_mul(rnn_directions(p), p->hidden));
    s->inputs = 1;
    s->output = 1;
    s->extra_elems = sm_mul(RNN_GATES + 1, units);
    return 0;
}

static const sm_layer_type rnn_type = {
    SM_LAYER_TYPE_INIT,     .name = RNN_NAME,
    .summary = RNN_SUMMARY, .params_size = sizeof(rnn_params),
    .min_inputs = 1,        .max_inputs = 1,
    .parse = rnn_parse,     .infer = rnn_infer,
    .metrics = rnn_metrics, .traits = SM_TRAIT_RECURRENT,
    .saved = rnn_saved,
};

SM_DEFINE_PLUGIN(rnn_type)
