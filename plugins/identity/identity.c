/*
 * identity: nn.Identity (and stochastic depth at inference). No parameters; shape unchanged;
 * 0 FLOPs, 0 bytes.
 */
#include <scalemeter/plugin.h>

typedef struct identity_params {
    int unused; /* no parameters; the host allocates params_size bytes */
} identity_params;

static void identity_parse(void *params, sm_args *args)
{
    (void)params;
    (void)args;
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
    (void)params;
    (void)in;
    (void)n_in;
    (void)out;
    (void)err;
    m->bytes = 0; /* returns its input */
    return 0;
}

static const sm_layer_type identity_type = {
    SM_LAYER_TYPE_INIT,
    .name = "identity",
    .summary = "the identity (nn.Identity, stochastic depth at inference)",
    .params_size = sizeof(identity_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = identity_parse,
    .infer = identity_infer,
    .metrics = identity_metrics,
    .traits = SM_TRAIT_VIEW,
    .saved = sm_saved_view,
};

SM_DEFINE_PLUGIN(identity_type)
