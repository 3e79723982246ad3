/*
 * add and mul: element-wise sum of two or more inputs (residual connections) and product of two
 * (squeeze-and-excitation scaling); one source built with SM_ELEMENTWISE_ADD or _MUL.
 *
 * Shapes broadcast as in PyTorch (aligned at the last dimension; each pair of sizes equal or one
 * of them 1), so a C x 1 x 1 scale multiplies a C x H x W tensor. A 1-dim input of C elements
 * against a C x H x W one is also accepted as if it were C x 1 x 1 (x * y.view(C, 1, 1), the
 * squeeze-and-excitation of a linear-layer SE block). The output is the broadcast shape.
 *
 *   flops = output elements * (inputs - 1)
 */
#include <scalemeter/plugin.h>

#if defined(SM_ELEMENTWISE_ADD) == defined(SM_ELEMENTWISE_MUL)
#error "build elementwise.c with exactly one of SM_ELEMENTWISE_ADD and SM_ELEMENTWISE_MUL"
#endif

#ifdef SM_ELEMENTWISE_ADD
#define EW_NAME "add"
#define EW_VERB "add"
#define EW_MAX_INPUTS 0
#define EW_SUMMARY "element-wise sum of two or more inputs, with broadcasting"
#define EW_TRAITS (SM_TRAIT_RESIDUAL | SM_TRAIT_ELEMENTWISE)
#else
#define EW_NAME "mul"
#define EW_VERB "multiply"
#define EW_MAX_INPUTS 2
#define EW_SUMMARY "element-wise product of two inputs, with broadcasting (squeeze-excitation)"
#define EW_TRAITS SM_TRAIT_ELEMENTWISE
#endif

typedef struct elementwise_params {
    int unused; /* no parameters; the host allocates params_size bytes */
} elementwise_params;

static void elementwise_parse(void *params, sm_args *args)
{
    (void)params;
    (void)args;
}

/* PyTorch's broadcasting of a and b into r; 0 when they do not broadcast. */
static int broadcast(const sm_shape *a, const sm_shape *b, sm_shape *r)
{
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    sm_shape t = {.ndim = n};
    for (int i = 0; i < n; i++) {
        int ia = a->ndim - n + i, ib = b->ndim - n + i;
        int64_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return 0;
        t.dim[i] = da == 1 ? db : da;
    }
    *r = t;
    return 1;
}

/* A vector of C elements against C x H x W: treated as C x 1 x 1. */
static int channel_vector(const sm_shape *a, const sm_shape *b, sm_shape *r)
{
    if (a->ndim == 1 && b->ndim == 3 && a->dim[0] == b->dim[0]) {
        *r = *b;
        return 1;
    }
    if (b->ndim == 1 && a->ndim == 3 && b->dim[0] == a->dim[0]) {
        *r = *a;
        return 1;
    }
    return 0;
}

static int elementwise_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                             sm_error *err)
{
    (void)params;
    sm_shape r = in[0];
    for (int i = 1; i < n_in; i++) {
        sm_shape t;
        if (!broadcast(&r, &in[i], &t) && !channel_vector(&r, &in[i], &t)) {
            char a[64], b[64];
            sm_error_set(err, "cannot " EW_VERB " %s and %s", sm_shape_str(&r, a, sizeof a),
                         sm_shape_str(&in[i], b, sizeof b));
            return -1;
        }
        r = t;
    }
    *out = r;
    return 0;
}

static int elementwise_metrics(const void *params, const sm_shape *in, int n_in,
                               const sm_shape *out, sm_layer_metrics *m, sm_error *err)
{
    (void)params;
    (void)in;
    (void)err;
    m->flops = sm_mul(sm_shape_elems(out), n_in - 1);
    m->bwd_flops = m->flops;
    return 0;
}

/* A sum keeps nothing; a product keeps both factors (each one's gradient is the other). */
static int elementwise_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                             sm_layer_saved *s, sm_error *err)
{
    (void)params;
    (void)in;
    (void)out;
    (void)err;
#ifdef SM_ELEMENTWISE_MUL
    s->inputs = n_in >= 32 ? UINT32_MAX : (1u << n_in) - 1;
#else
    (void)n_in, (void)s;
#endif
    return 0;
}

static const sm_layer_type elementwise_type = {
    SM_LAYER_TYPE_INIT,
    .name = EW_NAME,
    .summary = EW_SUMMARY,
    .params_size = sizeof(elementwise_params),
    .min_inputs = 2,
    .max_inputs = EW_MAX_INPUTS,
    .parse = elementwise_parse,
    .infer = elementwise_infer,
    .metrics = elementwise_metrics,
    .traits = EW_TRAITS,
    .saved = elementwise_saved,
};

SM_DEFINE_PLUGIN(elementwise_type)
