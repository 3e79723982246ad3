/*
 * mish: an activation the core does not ship, written the way a user adds a layer type.
 * Mish(x) = x * tanh(softplus(x)) (Misra, 2019). It needs only scalemeter's public headers:
 * plugin.h for the descriptor (what metrics, fit and predict use) and kernels.h for its CPU
 * kernel (what `scalemeter bench --backend cpu` runs).
 *
 *   mkdir -p /tmp/plugins
 *   cc -std=c11 -O2 -shared -fPIC -I<scalemeter>/include -o /tmp/plugins/mish.so mish.c -lm
 *   SCALEMETER_PLUGIN_PATH=/tmp/plugins scalemeter plugins     # lists mish with this file
 *   SCALEMETER_PLUGIN_PATH=/tmp/plugins scalemeter metrics mish_net.ini
 *   SCALEMETER_PLUGIN_PATH=/tmp/plugins scalemeter bench --model mish_net.ini -o runs.csv
 *
 * GPU kernels would go in a second file built as /tmp/plugins/mish_gpu.so against CUDA, which
 * only the cuda backend loads (docs/plugin-abi.md); without one, the cuda backend refuses mish.
 */
#include <math.h>

#include <scalemeter/kernels.h>
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

/* ---- CPU kernel: what `bench --backend cpu` runs ------------------------------------------ */

/* softplus(x) = log(1 + e^x), as PyTorch computes it: x itself past 20, where they agree. */
static float softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }

static int mish_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const float *x = l->in[0].data;
    float *y = l->out->data;
    for (int64_t i = 0, n = sm_tensor_elems(l->out); i < n; i++)
        y[i] = x[i] * tanhf(softplus(x[i]));
    return 0;
}

/* d/dx x tanh(sp(x)) = tanh(sp) + x (1 - tanh(sp)^2) sigmoid(x); the gradient is ADDED. */
static int mish_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    float *dx = l->din[0].data;
    if (!dx) /* nobody needs the gradient of this input */
        return 0;
    const float *x = l->in[0].data, *dy = l->dout->data;
    for (int64_t i = 0, n = sm_tensor_elems(l->out); i < n; i++) {
        float t = tanhf(softplus(x[i])), sig = 1.0f / (1.0f + expf(-x[i]));
        dx[i] += dy[i] * (t + x[i] * (1.0f - t * t) * sig);
    }
    return 0;
}

static const struct sm_cpu_kernels mish_cpu = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = mish_forward,
    .backward = mish_backward,
};

/* What training keeps for the backward pass: mish's gradient needs its input (as PyTorch's
 * F.mish saves `self`). Without saved(), the host would assume input and output both. */
static int mish_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                      sm_layer_saved *s, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)out, (void)err;
    s->inputs = 1; /* bit 0: the first input */
    return 0;
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
    .cpu = &mish_cpu,
    .traits = SM_TRAIT_ACTIVATION, /* element-wise: rides a producer's epilogue when fused */
    .saved = mish_saved,
};

SM_DEFINE_PLUGIN(mish)
