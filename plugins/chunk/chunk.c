/*
 * chunk: one piece of torch.chunk(x, chunks, dim), the piece number `index` (0-based) of
 * `chunks` along `axis` of the per-sample shape (0, the channels of C x H x W, by default; a
 * negative axis counts from the end). ShuffleNetV2 splits its channels in two this way
 * (x.chunk(2, dim=1)); torch.split with equal sizes gives the same pieces.
 *
 * As in PyTorch every piece but the last has ceil(n / chunks) elements along the axis and the
 * last the rest; an index whose piece would be empty is refused. A view: 0 FLOPs, no bytes.
 */
#include <scalemeter/plugin.h>

#include "chunk.h"
#include "view_metrics.h"

#define MAX_CHUNKS ((int64_t)1 << 24)

static void chunk_parse(void *params, sm_args *args)
{
    chunk_params *p = params;
    p->chunks = sm_arg_int(args, "chunks", SM_REQUIRED, 1, MAX_CHUNKS);
    p->index = sm_arg_int(args, "index", SM_REQUIRED, 0, MAX_CHUNKS - 1);
    p->axis = sm_arg_int(args, "axis", 0, -SM_MAX_DIMS, SM_MAX_DIMS - 1);
    if (p->chunks >= 1 && p->index >= p->chunks) {
        char msg[128];
        snprintf(msg, sizeof msg, "index %lld must be below chunks %lld", (long long)p->index,
                 (long long)p->chunks);
        sm_arg_fail(args, msg);
    }
}

static int chunk_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                       sm_error *err)
{
    (void)n_in;
    const chunk_params *p = params;
    char s[64];
    if (p->chunks < 1 || p->index < 0 || p->index >= p->chunks) {
        sm_error_set(err, "chunk needs chunks >= 1 and 0 <= index < chunks");
        return -1;
    }
    int64_t axis = p->axis < 0 ? p->axis + in->ndim : p->axis;
    if (axis < 0 || axis >= in->ndim) {
        sm_error_set(err, "axis %lld out of range for input %s", (long long)p->axis,
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    int64_t n = in->dim[axis];
    int64_t size = n / p->chunks + (n % p->chunks != 0); /* ceil(n / chunks), as torch.chunk */
    int64_t start = p->index * size; /* index < chunks <= 2^24 and size <= 2^40: no overflow */
    if (start >= n) {
        sm_error_set(err,
                     "piece %lld of %lld is empty: %lld elements along axis %lld make "
                     "pieces of %lld (input %s)",
                     (long long)p->index, (long long)p->chunks, (long long)n, (long long)p->axis,
                     (long long)size, sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    out->dim[axis] = n - start < size ? n - start : size;
    return 0;
}

static const sm_layer_type chunk_type = {
    SM_LAYER_TYPE_INIT,
    .name = "chunk",
    .summary = "one piece of torch.chunk along an axis (ShuffleNetV2's split): chunks, index, "
               "axis",
    .params_size = sizeof(chunk_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = chunk_parse,
    .infer = chunk_infer,
    .metrics = view_metrics,
    .traits = SM_TRAIT_VIEW,
    .saved = sm_saved_view,
    .view_strides = view_same_strides,
};

SM_DEFINE_PLUGIN(chunk_type)
