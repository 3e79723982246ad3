/*
 * cls_token: prepends a learnable token to a sequence, as ViT's class_token (an nn.Parameter of
 * 1 x 1 x E, torch.cat'ed in front of the patch tokens) and BERT-style classifiers do:
 * S x E -> (S + 1) x E.
 *
 *   flops         = 0 (a copy)
 *   weights       = E,  param_tensors = 1
 *   bytes         = 4 (S E read + (S + 1) E written), the host's default for a copy
 *   bwd_flops     = E (the token's gradient summed over the batch)
 */
#include <scalemeter/plugin.h>

#include "cls_token.h"

static void cls_token_parse(void *params, sm_args *args)
{
    (void)params;
    (void)args;
}

static int cls_token_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                           sm_error *err)
{
    (void)n_in;
    (void)params;
    char s[64];
    if (in->ndim != 2) {
        sm_error_set(err, "cls_token needs a sequence S x E, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    out->dim[0] = sm_add(in->dim[0], 1);
    return 0;
}

static int cls_token_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                             sm_layer_metrics *m, sm_error *err)
{
    (void)n_in;
    (void)params;
    (void)out;
    if (in->ndim != 2) {
        sm_error_set(err, "cls_token metrics called with unexpected shapes");
        return -1;
    }
    m->weights = in->dim[1];
    m->param_tensors = 1;
    m->bwd_flops = in->dim[1];
    return 0;
}

static const sm_layer_type cls_token_type = {
    SM_LAYER_TYPE_INIT,
    .name = "cls_token",
    .summary = "prepends a learnable token, S x E -> (S+1) x E (ViT class_token)",
    .params_size = sizeof(cls_token_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = cls_token_parse,
    .infer = cls_token_infer,
    .metrics = cls_token_metrics,
    .traits = 0,
    /* torch.cat into a new tensor: nothing kept */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(cls_token_type)
