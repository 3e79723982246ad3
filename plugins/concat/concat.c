/*
 * concat: torch.cat of one or more inputs along `axis` of the per-sample shape (0, the channel
 * axis of C x H x W, by default; a negative axis counts from the end). All other dimensions must
 * be equal. 0 FLOPs; it copies every input into the output: bytes = 4 (inputs + output).
 */
#include <scalemeter/plugin.h>

#include "concat.h"

static void concat_parse(void *params, sm_args *args)
{
    concat_params *p = params;
    p->axis = sm_arg_int(args, "axis", 0, -SM_MAX_DIMS, SM_MAX_DIMS - 1);
}

static int concat_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                        sm_error *err)
{
    const concat_params *p = params;
    char a[64], b[64];
    int64_t axis = p->axis < 0 ? p->axis + in[0].ndim : p->axis;
    if (axis < 0 || axis >= in[0].ndim) {
        sm_error_set(err, "axis %lld out of range for input %s", (long long)p->axis,
                     sm_shape_str(&in[0], a, sizeof a));
        return -1;
    }
    sm_shape r = in[0];
    for (int i = 1; i < n_in; i++) {
        int ok = in[i].ndim == r.ndim;
        for (int d = 0; ok && d < r.ndim; d++)
            if (d != axis && in[i].dim[d] != r.dim[d])
                ok = 0;
        if (!ok) {
            sm_error_set(err, "cannot concatenate %s and %s along axis %lld",
                         sm_shape_str(&in[0], a, sizeof a), sm_shape_str(&in[i], b, sizeof b),
                         (long long)p->axis);
            return -1;
        }
        r.dim[axis] = sm_add(r.dim[axis], in[i].dim[axis]);
        if (r.dim[axis] == SM_OVERFLOW) {
            sm_error_set(err, "concatenated size overflows 64 bits along axis %lld",
                         (long long)p->axis);
            return -1;
        }
    }
    *out = r;
    return 0;
}

static const sm_layer_type concat_type = {
    SM_LAYER_TYPE_INIT,
    .name = "concat",
    .summary = "concatenation of the inputs along an axis (torch.cat): axis",
    .params_size = sizeof(concat_params),
    .min_inputs = 1,
    .max_inputs = 0,
    .parse = concat_parse,
    .infer = concat_infer,
    .traits = 0,
    /* a copy into a new tensor; its gradient is a split: nothing kept */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(concat_type)
