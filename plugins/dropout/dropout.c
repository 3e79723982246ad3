/*
 * dropout: nn.Dropout, the identity at inference. p in [0, 1) and inplace are read.
 * 0 FLOPs, 0 bytes; in training (p > 0) one kernel forward and one backward, none at inference.
 */
#include <scalemeter/plugin.h>

#include "dropout.h"
#include "view_metrics.h"

static void dropout_parse(void *params, sm_args *args)
{
    dropout_params *p = params;
    p->p = sm_arg_real(args, "p", 0.5, 0.0, 1.0);
    p->inplace = sm_arg_bool(args, "inplace", 0);
    if (p->p >= 1.0)
        sm_arg_fail(args, "p must be below 1 (dropout of every element)");
}

static int dropout_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                         sm_error *err)
{
    (void)n_in, (void)err;
    (void)params;
    *out = *in;
    return 0;
}

static int dropout_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                           sm_layer_metrics *m, sm_error *err)
{
    (void)in;
    (void)n_in;
    (void)out;
    (void)err;
    m->bytes = 0; /* a no-op at inference */
    /* training on a GPU: one fused kernel each way (native_dropout and its backward); none at
     * p = 0, where PyTorch returns its input */
    if (((const dropout_params *)params)->p > 0) {
        m->kernels_fwd = m->kernels_bwd = 1;
        m->kernels_train_only = 1;
    }
    return 0;
}

/* Training keeps the mask (nothing at p = 0, where PyTorch returns its input). In place, the
 * result is written over the input's storage. */
static int dropout_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                         sm_layer_saved *s, sm_error *err)
{
    (void)in;
    (void)n_in;
    (void)err;
    const dropout_params *p = params;
    if (p->p > 0)
        s->mask_elems = sm_shape_elems(out);
    s->aliases_input = p->p == 0 || p->inplace;
    return 0;
}

static const sm_layer_type dropout_type = {
    SM_LAYER_TYPE_INIT,
    .name = "dropout",
    .summary = "dropout (nn.Dropout), the identity at inference: p, inplace",
    .params_size = sizeof(dropout_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = dropout_parse,
    .infer = dropout_infer,
    .metrics = dropout_metrics,
    .traits = 0,
    .saved = dropout_saved,
    /* its output lies as its input (ABI 14): PyTorch's element-wise kernel, or the input */
    .view_strides = view_same_strides,
};

SM_DEFINE_PLUGIN(dropout_type)
