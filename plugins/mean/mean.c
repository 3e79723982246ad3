/*
 * mean: x.mean(dim) / torch.mean over one axis of the per-sample shape (axis 0 is the first
 * after the batch: a sentence classifier's y.mean(1) over S x E is axis=0), keepdim or not.
 *
 *   flops = input elements (each added once) + output elements (the division)
 *   bwd   = input elements (each gets its output's gradient over the length)
 */
#include "mean.h"

static void mean_parse(void *params, sm_args *args)
{
    mean_params *p = params;
    p->axis = sm_arg_int(args, "axis", SM_REQUIRED, 0, SM_MAX_DIMS - 1);
    p->keepdim = sm_arg_bool(args, "keepdim", 0);
}

static int mean_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                      sm_error *err)
{
    (void)n_in;
    const mean_params *p = params;
    char s[64];
    if (p->axis >= in->ndim) {
        sm_error_set(err, "mean over axis %lld needs one input with that axis, got %s",
                     (long long)p->axis, sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (in->ndim == 1 && !p->keepdim) {
        sm_error_set(err,
                     "mean over the only axis of %s leaves nothing of a sample: use "
                     "keepdim=true (one value per sample)",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    if (p->keepdim) {
        out->dim[p->axis] = 1;
        return 0;
    }
    for (int i = (int)p->axis; i + 1 < in->ndim; i++)
        out->dim[i] = in->dim[i + 1];
    out->dim[--out->ndim] = 0;
    return 0;
}

static int mean_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                        sm_layer_metrics *m, sm_error *err)
{
    (void)params, (void)n_in, (void)err;
    m->flops = sm_add(sm_shape_elems(in), sm_shape_elems(out));
    m->bwd_flops = sm_shape_elems(in);
    return 0;
}

static const sm_layer_type mean_type = {
    SM_LAYER_TYPE_INIT,
    .name = "mean",
    .summary = "mean over one axis (x.mean(dim), torch.mean): axis, keepdim",
    .params_size = sizeof(mean_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = mean_parse,
    .infer = mean_infer,
    .metrics = mean_metrics,
    /* its backward reads only the input's sizes, which PyTorch 2 keeps alone (torch 1.13 kept
     * the input itself for self.numel(): saved_tensors_hooks shows both) */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(mean_type)
