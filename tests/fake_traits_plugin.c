/* A test plugin of a user's: type TEST_TYPE_NAME, a matrix product y = x W^T (x: rows x E,
 * W: out x E, no bias) with the traits TEST_TRAITS, or, with TEST_ABI2, the descriptor as ABI
 * version 2 built it (no traits, no saved()), or with TEST_ABI4 as version 4 did (the same
 * descriptor; its metrics() sets none of version 5's kernel counts, as it knew none), or with
 * TEST_ABI16 as version 16 did (the same descriptor, before SM_TRAIT_LOSS). With
 * TEST_SERIAL, half its bytes are declared serial_bytes (ABI 6); with TEST_SERIAL_TOO_MANY,
 * one byte more than its bytes, which the host refuses. With TEST_UPCAST it computes in fp32
 * (ABI 7): as many bytes more at 16-bit activations as its fp32 bytes, and it keeps its input
 * and 4 bytes more per output element then; TEST_UPCAST_NEGATIVE declares -1 bytes more, and
 * TEST_PASSES_TOO_MANY 17 passes over attention scores, both refused; so is
 * TEST_SOFTMAX_UNKNOWN's softmax form 3 (ABI 8 knows 0 to 2), and TEST_COUNTS_IO_TWO's counts_io
 * flag of 2. TEST_ANY_INPUTS takes any number
 * of inputs (of input 0's shape), kept by the default. */
#include <stddef.h>
#include <scalemeter/plugin.h>

typedef struct mm_params {
    int64_t out;
} mm_params;

static void parse(void *params, sm_args *args)
{
    ((mm_params *)params)->out = sm_arg_int(args, "out", SM_REQUIRED, 1, 1 << 20);
}
static int infer(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err)
{
    (void)n_in, (void)err;
    *out = in[0];
    out->dim[out->ndim - 1] = ((const mm_params *)params)->out;
    return 0;
}
static int metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                   sm_layer_metrics *m, sm_error *err)
{
    (void)n_in, (void)err;
    int64_t e = in[0].dim[in[0].ndim - 1];
    m->macs = sm_mul(sm_shape_elems(out), e);
    m->flops = sm_mul(2, m->macs);
    m->weights = sm_mul(e, ((const mm_params *)params)->out);
    m->param_tensors = 1;
#ifdef TEST_SERIAL
    m->serial_bytes = m->bytes / 2;
#elif defined(TEST_SERIAL_TOO_MANY)
    m->serial_bytes = m->bytes + 1;
#elif defined(TEST_UPCAST)
    m->upcast_bytes = m->bytes;
#elif defined(TEST_UPCAST_NEGATIVE)
    m->upcast_bytes = -1;
#elif defined(TEST_PASSES_TOO_MANY)
    m->scores_passes_fwd = 17;
#elif defined(TEST_SOFTMAX_UNKNOWN)
    m->scores_softmax = 3;
#elif defined(TEST_FUSED_UNKNOWN)
    m->scores_fused = 2;
#elif defined(TEST_LIBRARY_NEGATIVE)
    m->library_kernels_bwd = -3;
#elif defined(TEST_COUNTS_IO_TWO)
    m->counts_io = 2;
#endif
    return 0;
}

#ifdef TEST_UPCAST
static int saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                 sm_layer_saved *s, sm_error *err)
{
    (void)params, (void)in, (void)n_in, (void)err;
    s->inputs = 1;
    s->upcast_bytes = sm_mul(4, sm_shape_elems(out));
    return 0;
}
#endif

static const sm_layer_type desc = {
#ifdef TEST_ABI2
    .abi_version = 2,
    .struct_size = offsetof(sm_layer_type, traits),
#elif defined(TEST_ABI4)
    .abi_version = 4,
    .struct_size = sizeof(sm_layer_type),
    .traits = TEST_TRAITS,
#elif defined(TEST_ABI16)
    .abi_version = 16,
    .struct_size = sizeof(sm_layer_type),
    .traits = TEST_TRAITS,
#else
    SM_LAYER_TYPE_INIT,
    .traits = TEST_TRAITS,
#endif
    .name = TEST_TYPE_NAME,
    .summary = "test matrix product",
    .params_size = sizeof(mm_params),
    .min_inputs = 1,
#ifdef TEST_ANY_INPUTS
    .max_inputs = 0,
#else
    .max_inputs = 1,
#endif
    .parse = parse,
    .infer = infer,
    .metrics = metrics,
#ifdef TEST_UPCAST
    .saved = saved,
#endif
};

SM_DEFINE_PLUGIN(desc)
