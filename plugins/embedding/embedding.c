/*
 * embedding: a lookup table as torch.nn.Embedding defines it. The per-sample input is a
 * sequence of S token ids (shape S, one dimension); each id selects one row of a vocab x dim
 * table, so the output is S x dim.
 *
 *   flops         = 0 (a gather: no arithmetic)
 *   weights       = vocab * dim,  param_tensors = 1
 *   bytes         = 4 S dim read (the S rows gathered) + 4 S dim written
 *   bwd_flops     = S dim (the output gradient scatter-added into the table's rows)
 *
 * The token ids themselves (S integers, dim times fewer than the rows) are not counted in
 * bytes. The host adds the whole table (4 vocab dim bytes) once per step as the layer's weights,
 * although a gather reads only S rows of it; a tied output layer (lm_head) reads all of it
 * without weights of its own, so across a language model the two balance.
 */
#include <scalemeter/plugin.h>

#include "embedding.h"

#define MAX_VOCAB ((int64_t)1 << 31)
#define MAX_DIM ((int64_t)1 << 24)

static void embedding_parse(void *params, sm_args *args)
{
    embedding_params *p = params;
    p->vocab = sm_arg_int(args, "vocab", SM_REQUIRED, 1, MAX_VOCAB);
    p->dim = sm_arg_int(args, "dim", SM_REQUIRED, 1, MAX_DIM);
}

static int embedding_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                           sm_error *err)
{
    (void)n_in;
    const embedding_params *p = params;
    char s[64];
    if (p->vocab < 1 || p->dim < 1) {
        sm_error_set(err, "embedding needs vocab >= 1 and dim >= 1");
        return -1;
    }
    if (in->ndim != 1) {
        sm_error_set(err, "embedding needs a sequence of token ids (input = S), got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    out->ndim = 2;
    out->dim[0] = in->dim[0];
    out->dim[1] = p->dim;
    out->dim[2] = out->dim[3] = 0;
    return 0;
}

static int embedding_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                             sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    const embedding_params *p = params;
    (void)in;
    if (out->ndim != 2) {
        sm_error_set(err, "embedding metrics called with unexpected shapes");
        return -1;
    }
    m->weights = sm_mul(p->vocab, p->dim);
    m->param_tensors = 1;
    m->bytes = sm_mul(8, sm_shape_elems(out)); /* rows read + output written, 4 bytes each */
    m->bwd_flops = sm_shape_elems(out); /* scatter-add of the output gradient into the rows */
    return 0;
}

/* The weight gradient scatters by the indices: the int64 token ids are kept. */
static int embedding_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                           sm_layer_saved *s, sm_error *err)
{
    (void)params;
    (void)n_in;
    (void)out;
    (void)err;
    s->extra_bytes = sm_mul(8, sm_shape_elems(&in[0]));
    return 0;
}

static const sm_layer_type embedding_type = {
    SM_LAYER_TYPE_INIT,
    .name = "embedding",
    .summary = "lookup table of token ids, S -> S x dim (nn.Embedding): vocab, dim",
    .params_size = sizeof(embedding_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = embedding_parse,
    .infer = embedding_infer,
    .metrics = embedding_metrics,
    .traits = SM_TRAIT_EMBEDDING,
    .saved = embedding_saved,
};

SM_DEFINE_PLUGIN(embedding_type)
