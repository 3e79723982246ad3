/*
 * mish: an activation the core does not ship, written the way a user adds a layer type.
 * Mish(x) = x * tanh(softplus(x)) (Misra, 2019). It needs only scalemeter's plugin header:
 *
 *   cc -std=c11 -O2 -shared -fPIC -I<scalemeter>/include -o mish.so mish.c
 *   SCALEMETER_PLUGIN_PATH=$PWD scalemeter plugins        # lists mish with this file
 *   SCALEMETER_PLUGIN_PATH=$PWD scalemeter metrics mish_net.ini
 */
#include <scalemeter/plugin.h>

/* exp, log1p, tanh, multiply: counted as 7 FLOPs per element, softplus's log1p(exp) as 4. */
#define MISH_FLOPS_PER_ELEMENT 7

static void mish_parse(void *params, sm_args *args)
{
    (void)params;
    (void)sm_arg_bool(args, "inplace", 0); /* accepted for PyTorch parity, changes nothing */
}

static int mish_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                      sm_error *err)
{
    (void)params;
    (void)n_in;
    (void)err;
    *out = in[0]; /* element-wise: the shape passes through */
    return 0;
}

static int mish_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                        sm_layer_metrics *m, sm_error *err)
{
    (void)params;
    (void)in;
    (void)n_in;
    (void)err;
    m->flops = sm_mul(MISH_FLOPS_PER_ELEMENT, sm_shape_elems(out));
    m->bwd_flops = sm_mul(2 * MISH_FLOPS_PER_ELEMENT, sm_shape_elems(out));
    return 0; /* no weights; input/output elements and bytes: the host's defaults */
}

static const sm_layer_type mish = {
    SM_LAYER_TYPE_INIT,
    .name = "mish",
    .summary = "Mish activation x*tanh(softplus(x)) (example plugin)",
    .params_size = 0,
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = mish_parse,
    .infer = mish_infer,
    .metrics = mish_metrics,
};

SM_DEFINE_PLUGIN(mish)
