/*
 * pos_embedding: a learnable table of positions added to a sequence, as GPT-2's wpe, BERT's
 * position_embeddings (nn.Embedding indexed by 0..S-1, then added) or ViT's pos_embedding (an
 * nn.Parameter of 1 x 197 x 768 added to the tokens) compute it. The per-sample input is S x E;
 * the table holds max_len x E weights and its first S rows are added, so S must not exceed
 * max_len; with exact=yes (ViT's, an nn.Parameter added whole: torchvision asserts the image
 * size it was built for) S must be max_len. The output is S x E.
 *
 *   flops         = S E (one addition per element)
 *   weights       = max_len * E,  param_tensors = 1
 *   bytes         = 4 (S E read + S E rows of the table read + S E written)
 */
#include <scalemeter/plugin.h>

#include "pos_embedding.h"

#define MAX_LEN ((int64_t)1 << 30)

static void pos_embedding_parse(void *params, sm_args *args)
{
    pos_embedding_params *p = params;
    p->max_len = sm_arg_int(args, "max_len", SM_REQUIRED, 1, MAX_LEN);
    p->exact = sm_arg_bool(args, "exact", 0);
}

static int pos_embedding_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                               sm_error *err)
{
    (void)n_in;
    const pos_embedding_params *p = params;
    char s[64];
    if (p->max_len < 1) {
        sm_error_set(err, "pos_embedding needs max_len >= 1");
        return -1;
    }
    if (in->ndim != 2) {
        sm_error_set(err, "pos_embedding needs a sequence S x E, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (in->dim[0] > p->max_len) {
        sm_error_set(err, "sequence of %lld positions is longer than max_len %lld (input %s)",
                     (long long)in->dim[0], (long long)p->max_len, sm_shape_str(in, s, sizeof s));
        return -1;
    }
    /* a table added whole cannot meet a shorter sequence: ViT at another image size needs
     * its table interpolated, which the network would have to say */
    if (p->exact && in->dim[0] != p->max_len) {
        sm_error_set(err,
                     "sequence of %lld positions, but the table is added whole and holds "
                     "exactly %lld (exact=yes: the network runs at the input size it was built "
                     "for)",
                     (long long)in->dim[0], (long long)p->max_len);
        return -1;
    }
    *out = *in;
    return 0;
}

static int pos_embedding_metrics(const void *params, const sm_shape *in, int n_in,
                                 const sm_shape *out, sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    const pos_embedding_params *p = params;
    (void)out;
    if (in->ndim != 2) {
        sm_error_set(err, "pos_embedding metrics called with unexpected shapes");
        return -1;
    }
    int64_t elems = sm_shape_elems(in);
    m->flops = elems;
    m->weights = sm_mul(p->max_len, in->dim[1]);
    m->param_tensors = 1;
    m->bytes = sm_mul(12, elems);
    m->bwd_flops = elems; /* the gradient is added into the table's first S rows */
    return 0;
}

static const sm_layer_type pos_embedding_type = {
    SM_LAYER_TYPE_INIT,
    .name = "pos_embedding",
    .summary = "learnable position table added to a sequence S x E (GPT-2 wpe, ViT): max_len, "
               "exact",
    .params_size = sizeof(pos_embedding_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = pos_embedding_parse,
    .infer = pos_embedding_infer,
    .metrics = pos_embedding_metrics,
    .traits = 0,
    /* x + a learned table (broadcast over the batch): nothing of the batch kept */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(pos_embedding_type)
