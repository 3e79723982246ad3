/*
 * Element-wise activations, one source built once per type with one of these definitions:
 *
 *   SM_ACTIVATION_RELU         relu         1 FLOP per element   max(x, 0)
 *   SM_ACTIVATION_RELU6        relu6        2                    min(max(x, 0), 6)
 *   SM_ACTIVATION_HARDSIGMOID  hardsigmoid  3                    min(max(x + 3, 0), 6) / 6
 *   SM_ACTIVATION_HARDSWISH    hardswish    4                    x * hardsigmoid(x)
 *   SM_ACTIVATION_SIGMOID      sigmoid      4                    1 / (1 + exp(-x))
 *   SM_ACTIVATION_SILU         silu         5                    x * sigmoid(x)
 *   SM_ACTIVATION_TANH         tanh         5                    (exp(2x) - 1) / (exp(2x) + 1)
 *   SM_ACTIVATION_GELU         gelu         8                    x * Phi(x)
 *
 * A transcendental function (exp, erf) counts as one FLOP. Shape unchanged, no weights, no MACs;
 * `inplace` changes no count, only what training keeps (act_saved).
 *
 * gelu composite=true is Hugging Face's NewGELUActivation (GPT-2's gelu_new), written in Python
 * ops: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * pow(x, 3)))). Eager PyTorch runs it
 * as 8 kernels forward (6 of one operand, 2 of two: 18 reads or writes of 4 bytes an element,
 * bytes = 72 per element) and 11 backward (the two products' gradients, tanh_backward, pow's
 * three, the scalars' and autograd's two sums of x's gradients: 28 reads or writes, which the
 * host's 1.5 x the forward traffic of an activation puts at 27); measured op by op with
 * tools/torch_eager_bytes.py (plugins/activation/cases.ini, gelu_composite). NeuSight's
 * per-op profiles of GPT-2 large (trsharm25/NeuSight at db1fdc9, scripts/asplos/label) time
 * those 8 kernels at 1.05 ms a layer at batch 8 on an H100, 7.3 times the one kernel priced
 * before (0.144 ms).
 * Under CUDA autocast (fp16, bf16) pow is among the ops autocast runs in fp32 (PyTorch's
 * autocast op reference), and type promotion carries fp32 through the chain after it. By hand,
 * per element: x cast up 2 + 4, pow 4 + 4, x 0.044715 4 + 4, x + it 2 + 4 + 4, x sqrt(2 / pi)
 * 4 + 4, tanh 4 + 4, 1 + it 4 + 4, 0.5 x 2 + 2, the product 2 + 4 + 4, and the next layer's
 * cast of that fp32 output down 4 + 2: 76 bytes where half the fp32 count is 36, upcast_bytes
 * 40. It keeps pow's fp32 copy of x (4; pow keeps its own input, not x), tanh's result (4),
 * 0.5 x (2) and 1 + tanh (4): 14 bytes where the count's input and three intermediates at 2
 * give 8, saved upcast_bytes 6.
 */
#include <scalemeter/plugin.h>

#if defined(SM_ACTIVATION_RELU)
#define ACT_NAME "relu"
#define ACT_FLOPS 1
#define ACT_SUMMARY "rectified linear unit (nn.ReLU), 1 FLOP per element"
#elif defined(SM_ACTIVATION_RELU6)
#define ACT_NAME "relu6"
#define ACT_FLOPS 2
#define ACT_SUMMARY "ReLU clipped at 6 (nn.ReLU6), 2 FLOPs per element"
#elif defined(SM_ACTIVATION_HARDSIGMOID)
#define ACT_NAME "hardsigmoid"
#define ACT_FLOPS 3
#define ACT_SUMMARY "hard sigmoid (nn.Hardsigmoid), 3 FLOPs per element"
#elif defined(SM_ACTIVATION_HARDSWISH)
#define ACT_NAME "hardswish"
#define ACT_FLOPS 4
#define ACT_SUMMARY "hard swish (nn.Hardswish), 4 FLOPs per element"
#elif defined(SM_ACTIVATION_SIGMOID)
#define ACT_NAME "sigmoid"
#define ACT_FLOPS 4
#define ACT_SUMMARY "logistic sigmoid (nn.Sigmoid), 4 FLOPs per element"
#elif defined(SM_ACTIVATION_SILU)
#define ACT_NAME "silu"
#define ACT_FLOPS 5
#define ACT_SUMMARY "sigmoid-weighted linear unit, swish (nn.SiLU), 5 FLOPs per element"
#elif defined(SM_ACTIVATION_TANH)
#define ACT_NAME "tanh"
#define ACT_FLOPS 5
#define ACT_SUMMARY "hyperbolic tangent (nn.Tanh), 5 FLOPs per element"
#elif defined(SM_ACTIVATION_GELU)
#define ACT_NAME "gelu"
#define ACT_FLOPS 8
#define ACT_SUMMARY "Gaussian error linear unit (nn.GELU), 8 FLOPs per element"
#else
#error "build activation.c with one SM_ACTIVATION_<TYPE> definition"
#endif

typedef struct activation_params {
    int inplace;   /* what training keeps: the result in the input's storage */
    int composite; /* gelu: computed by elementary ops (Hugging Face's NewGELUActivation) */
} activation_params;

static void activation_parse(void *params, sm_args *args)
{
    activation_params *p = params;
    p->inplace = sm_arg_bool(args, "inplace", 0);
#ifdef SM_ACTIVATION_GELU
    p->composite = sm_arg_bool(args, "composite", 0);
#endif
}

static int activation_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                            sm_error *err)
{
    (void)n_in, (void)err;
    (void)params;
    *out = *in;
    return 0;
}

static int activation_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                              sm_layer_metrics *m, sm_error *err)
{
    (void)params;
    (void)n_in;
    (void)in;
    (void)err;
    m->flops = sm_mul(ACT_FLOPS, sm_shape_elems(out));
    m->bwd_flops = m->flops;
#ifdef SM_ACTIVATION_GELU
    const activation_params *p = params;
    if (p->composite) {
        m->bytes = sm_mul(72, sm_shape_elems(out));
        m->kernels_fwd = 8;
        m->kernels_bwd = 11;
        m->upcast_bytes = sm_mul(40, sm_shape_elems(out));
    }
#endif
    return 0;
}

/* What autograd keeps (derivatives.yaml, and PyTorch 1.13 as tools/torch_saved_tensors.py
 * records it): ReLU, sigmoid and tanh their result (in place: the input's storage); the others
 * their input, and in place (ReLU6, SiLU and Hardswish) a copy of it made before the result is
 * written over it: an intermediate of its own beside the input's storage, the same count. A
 * composite GELU (0.5 x (1 + tanh(...)) in Python) keeps its input and three intermediates of
 * its size. */
static int act_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                     sm_layer_saved *s, sm_error *err)
{
    (void)in, (void)n_in, (void)err;
    const activation_params *p = params;
    s->aliases_input = p->inplace;
#if defined(SM_ACTIVATION_RELU) || defined(SM_ACTIVATION_SIGMOID) || defined(SM_ACTIVATION_TANH)
    (void)out;
    s->output = 1;
#else
    s->inputs = !p->inplace;
    s->extra_elems = sm_mul(p->composite ? 3 : 0, sm_shape_elems(out));
    s->upcast_bytes = sm_mul(p->composite ? 6 : 0, sm_shape_elems(out));
    if (p->inplace)
        s->extra_elems = sm_add(s->extra_elems, sm_shape_elems(in));
#endif
    return 0;
}

static const sm_layer_type activation_type = {
    SM_LAYER_TYPE_INIT,
    .name = ACT_NAME,
    .summary = ACT_SUMMARY,
    .params_size = sizeof(activation_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = activation_parse,
    .infer = activation_infer,
    .metrics = activation_metrics,
    .traits = SM_TRAIT_ACTIVATION,
    .saved = act_saved,
};

SM_DEFINE_PLUGIN(activation_type)
