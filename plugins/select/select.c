/*
 * select: one position of a sequence, S x E -> E, as x[:, index] does with a batch (ViT's and
 * BERT's pooler take the class token with index = 0; a negative index counts from the end, -1
 * being the last token). It removes the first per-sample dimension of any input of 2 or more
 * dimensions. A view: 0 FLOPs and no bytes moved.
 */
#include <scalemeter/plugin.h>

#include "select.h"
#include "view_metrics.h"

#define MAX_INDEX ((int64_t)1 << 30)

static void select_parse(void *params, sm_args *args)
{
    select_params *p = params;
    p->index = sm_arg_int(args, "index", 0, -MAX_INDEX, MAX_INDEX);
}

static int select_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                        sm_error *err)
{
    (void)n_in;
    const select_params *p = params;
    char s[64];
    if (in->ndim < 2) {
        sm_error_set(err, "select needs a sequence S x E (2 or more dims), got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (p->index >= in->dim[0] || p->index < -in->dim[0]) {
        sm_error_set(err, "index %lld out of range for a sequence of %lld (input %s)",
                     (long long)p->index, (long long)in->dim[0], sm_shape_str(in, s, sizeof s));
        return -1;
    }
    out->ndim = in->ndim - 1;
    for (int i = 0; i + 1 < SM_MAX_DIMS; i++)
        out->dim[i] = i < out->ndim ? in->dim[i + 1] : 0;
    out->dim[SM_MAX_DIMS - 1] = 0;
    return 0;
}

/* x[:, index] drops the first per-sample dim: the others keep their steps. */
static int select_strides(const void *params, const sm_shape *in, const int64_t *in_strides,
                          const sm_shape *out, int64_t *out_strides)
{
    (void)params;
    (void)in;
    for (int k = 0; k < out->ndim; k++)
        out_strides[k] = in_strides[k + 1];
    return 0;
}

static const sm_layer_type select_type = {
    SM_LAYER_TYPE_INIT,
    .name = "select",
    .summary = "one position of a sequence, S x E -> E (the class token, x[:, 0]): index",
    .params_size = sizeof(select_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = select_parse,
    .infer = select_infer,
    .metrics = view_metrics,
    .traits = SM_TRAIT_VIEW,
    .saved = sm_saved_view,
    .view_strides = select_strides,
};

SM_DEFINE_PLUGIN(select_type)
