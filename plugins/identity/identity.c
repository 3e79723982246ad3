/*
 * identity: nn.Identity, and torchvision's stochastic depth (StochasticDepth, either mode) with
 * stochastic_depth = its drop probability p. No FLOPs and no bytes counted; shape unchanged.
 * Stochastic depth at p > 0 launches, in training only, 3 kernels forward (the mask's
 * bernoulli_ and div_, and the product) and 1 backward (the product's gradient); at p = 0, and
 * at inference, it returns its input as nn.Identity does.
 */
#include <scalemeter/plugin.h>

#include "view_metrics.h"

typedef struct identity_params {
    double drop; /* stochastic depth's probability; 0: nn.Identity */
} identity_params;

static void identity_parse(void *params, sm_args *args)
{
    identity_params *p = params;
    p->drop = sm_arg_real(args, "stochastic_depth", 0.0, 0.0, 1.0);
}

static int identity_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                          sm_error *err)
{
    (void)n_in, (void)err;
    (void)params;
    *out = *in;
    return 0;
}

static int identity_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                            sm_layer_metrics *m, sm_error *err)
{
    const identity_params *p = params;
    (void)in;
    (void)n_in;
    (void)out;
    (void)err;
    m->bytes = 0;      /* returns its input */
    if (p->drop > 0) { /* torchvision.ops.stochastic_depth in training */
        m->kernels_fwd = 3;
        m->kernels_bwd = 1;
        m->kernels_train_only = 3;
    }
    return 0;
}

static const sm_layer_type identity_type = {
    SM_LAYER_TYPE_INIT,
    .name = "identity",
    .summary = "the identity (nn.Identity; stochastic depth: stochastic_depth)",
    .params_size = sizeof(identity_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = identity_parse,
    .infer = identity_infer,
    .metrics = identity_metrics,
    .traits = SM_TRAIT_VIEW,
    .saved = sm_saved_view,
    .view_strides = view_same_strides,
};

SM_DEFINE_PLUGIN(identity_type)
