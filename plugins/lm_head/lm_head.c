/*
 * lm_head: the output layer of a language model whose weight is tied to the token embedding
 * (GPT-2's lm_head, nn.Linear(E, vocab, bias=False) sharing wte.weight). It applies to the last
 * dimension like linear: [..., E] -> [..., vocab]. Its weight matrix belongs to the embedding
 * and is counted there, once: a `linear out=vocab` here would count vocab x E weights twice
 * (GPT-2 small would show 163,037,184 parameters instead of its 124,439,808).
 *
 *   rows          = product of all dimensions but the last (S for a sequence)
 *   macs          = rows * E * vocab
 *   flops         = 2 macs + (bias ? rows * vocab : 0)
 *   weights       = bias ? vocab : 0,  param_tensors = bias ? 1 : 0  (the tied matrix: 0)
 *   bwd_flops     = 2 flops (input gradient and the tied weight's gradient, which the host's
 *                   estimate would miss since the layer holds no weights of its own)
 *
 * The tied matrix is read in full here but its bytes are added by the host once, at the
 * embedding (which reads only S rows of it); across the model the two balance. A layer with no
 * weights is not one of ConvMeter's L layers: the tied gradient is synchronised once, with the
 * embedding's.
 */
#include <scalemeter/plugin.h>

#include "lm_head.h"

#define MAX_VOCAB ((int64_t)1 << 31)

static void lm_head_parse(void *params, sm_args *args)
{
    lm_head_params *p = params;
    p->vocab = sm_arg_int(args, "vocab", SM_REQUIRED, 1, MAX_VOCAB);
    p->bias = sm_arg_bool(args, "bias", 0);
}

static int lm_head_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                         sm_error *err)
{
    (void)n_in;
    const lm_head_params *p = params;
    char s[64];
    if (p->vocab < 1) {
        sm_error_set(err, "lm_head needs vocab >= 1");
        return -1;
    }
    if (in->ndim < 1 || in->ndim > SM_MAX_DIMS) {
        sm_error_set(err, "lm_head needs an input of 1 to %d dimensions, got %s", SM_MAX_DIMS,
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    out->dim[in->ndim - 1] = p->vocab;
    return 0;
}

static int lm_head_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                           sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    const lm_head_params *p = params;
    (void)out;
    if (in->ndim < 1 || in->ndim > SM_MAX_DIMS) {
        sm_error_set(err, "lm_head metrics called with unexpected shapes");
        return -1;
    }
    int64_t features = in->dim[in->ndim - 1];
    int64_t rows = 1;
    for (int i = 0; i < in->ndim - 1; i++)
        rows = sm_mul(rows, in->dim[i]);
    m->macs = sm_mul(sm_mul(rows, features), p->vocab);
    m->flops = sm_add(sm_mul(2, m->macs), p->bias ? sm_mul(rows, p->vocab) : 0);
    m->weights = p->bias ? p->vocab : 0;
    m->param_tensors = p->bias ? 1 : 0;
    m->bwd_flops = sm_mul(2, m->flops);
    /* the bias's gradient: the logits' gradient summed over the rows (plugin ABI 20) */
    m->bias_grad_elems = p->bias ? sm_mul(rows, p->vocab) : 0;
    m->bias_grad_sums = p->bias ? 1 : 0;
    /* one product, its matrix the embedding's (plugin ABI 22) */
    m->linear_products = 1;
    m->linear_flops = sm_mul(2, m->macs);
    m->linear_input_elems = sm_mul(rows, features);
    m->linear_output_elems = sm_mul(rows, p->vocab);
    return 0;
}

static const sm_layer_type lm_head_type = {
    SM_LAYER_TYPE_INIT,
    .name = "lm_head",
    .summary = "output layer tied to the token embedding, [..., E] -> [..., vocab], its matrix "
               "counted at the embedding: vocab, bias",
    .params_size = sizeof(lm_head_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = lm_head_parse,
    .infer = lm_head_infer,
    .metrics = lm_head_metrics,
    .traits = SM_TRAIT_MATMUL | SM_TRAIT_TIED,
    /* the weight gradient needs the input */
    .saved = sm_saved_input,
};

SM_DEFINE_PLUGIN(lm_head_type)
