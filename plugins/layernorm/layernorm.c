/*
 * layernorm: nn.LayerNorm over the last `dims` dimensions of the per-sample input (the
 * normalized_shape of PyTorch is those dimensions), or, with channels=true, over dim 0 of a
 * C x H x W input (torchvision's LayerNorm2d in ConvNeXt).
 *
 *   N             = product of the normalised dimensions (C with channels=true)
 *   flops         = 5 per element (mean, variance, subtract, divide, affine)
 *   weights       = affine ? 2 N : 0
 *   param_tensors = affine ? 2 : 0
 *   norm_rows     = elements / N, each normalised in a block of its own on a GPU
 */
#include <scalemeter/plugin.h>

#include "view_metrics.h"

#include "layernorm.h"

static void layernorm_parse(void *params, sm_args *args)
{
    layernorm_params *p = params;
    p->dims = sm_arg_int(args, "dims", 1, 1, SM_MAX_DIMS);
    p->affine = sm_arg_bool(args, "affine", 1);
    p->channels = sm_arg_bool(args, "channels", 0);
    if (p->channels && p->dims != 1)
        sm_arg_fail(args, "channels=true normalises dim 0 alone and takes no dims");
}

static int layernorm_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                           sm_error *err)
{
    (void)n_in;
    const layernorm_params *p = params;
    char s[64];
    if (p->dims < 1) {
        sm_error_set(err, "layernorm needs dims >= 1");
        return -1;
    }
    if (p->channels && in->ndim != 3) {
        sm_error_set(err, "layernorm with channels=true needs a CxHxW input, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (!p->channels && p->dims > in->ndim) {
        sm_error_set(err, "dims=%lld exceeds the %d dims of input %s", (long long)p->dims, in->ndim,
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    return 0;
}

static int layernorm_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                             sm_layer_metrics *m, sm_error *err)
{
    const layernorm_params *p = params;
    (void)n_in;
    (void)out;
    (void)err;
    int64_t n = 1;
    if (p->channels)
        n = in->dim[0];
    else
        for (int i = in->ndim - (int)p->dims; i < in->ndim; i++)
            n = sm_mul(n, in->dim[i]);
    m->flops = sm_mul(5, sm_shape_elems(in));
    m->weights = p->affine ? sm_mul(2, n) : 0;
    m->param_tensors = p->affine ? 2 : 0;
    m->bwd_flops = m->flops;
    /* ABI 16: each position a row of its own (n > 0: infer refused every empty shape) */
    m->norm_rows = n > 0 ? sm_shape_elems(in) / n : 0;
    return 0;
}

/* Training keeps the input and each row's mean and rstd (fp32). */
static int layernorm_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                           sm_layer_saved *s, sm_error *err)
{
    (void)n_in;
    (void)out;
    (void)err;
    const layernorm_params *p = params;
    int64_t n = 1; /* elements of one row */
    if (p->channels)
        n = in[0].dim[0];
    else
        for (int i = in[0].ndim - (int)p->dims; i < in[0].ndim; i++)
            n = sm_mul(n, in[0].dim[i]);
    s->inputs = 1;
    s->extra_bytes = sm_mul(2 * 4, sm_shape_elems(&in[0]) / (n > 0 ? n : 1));
    return 0;
}

/* Over channels (torchvision's LayerNorm2d) the output is permuted back from its C-last
 * computation: channels-last (ABI 14); over the last dims, a new contiguous tensor. */
static int layernorm_strides(const void *params, const sm_shape *in, const int64_t *in_strides,
                             const sm_shape *out, int64_t *out_strides)
{
    (void)in, (void)in_strides;
    if (((const layernorm_params *)params)->channels)
        channels_last_strides(out, out_strides);
    return 0;
}

static const sm_layer_type layernorm_type = {
    SM_LAYER_TYPE_INIT,
    .name = "layernorm",
    .summary = "layer normalisation over the last dims, or channels (nn.LayerNorm): dims, affine, "
               "channels",
    .params_size = sizeof(layernorm_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = layernorm_parse,
    .infer = layernorm_infer,
    .metrics = layernorm_metrics,
    .traits = SM_TRAIT_NORMALISATION | SM_TRAIT_AUTOCAST_FP32,
    .saved = layernorm_saved,
    .view_strides = layernorm_strides,
};

SM_DEFINE_PLUGIN(layernorm_type)
