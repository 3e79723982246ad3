/*
 * groupnorm: nn.GroupNorm(groups, C, eps=1e-5, affine) on a per-sample input whose channels are
 * dim 0 (C, C x L, C x H x W or C x D x H x W). The C channels fall into `groups` groups of C /
 * groups consecutive channels; each sample's group is normalised over its (C / groups) x spatial
 * values (biased variance), then scaled and shifted per channel. nn.InstanceNorm1d/2d without
 * running statistics is groups = C, affine = false (PyTorch's default for instance norm).
 *
 *   n             = elements of the input (= of the output, the shape is unchanged)
 *   flops         = 5 n (mean, variance, subtract, divide, affine: as layernorm)
 *   bwd_flops     = flops
 *   weights       = affine ? 2 C : 0   (gamma then beta)
 *   param_tensors = affine ? 2 : 0
 *   bytes         = 4 (n + n), the host's default
 */
#include <scalemeter/plugin.h>

#include "groupnorm.h"

#define MAX_GROUPS ((int64_t)1 << 24) /* the limit of channel counts (docs/plugins.md) */

static void groupnorm_parse(void *params, sm_args *args)
{
    groupnorm_params *p = params;
    p->groups = sm_arg_int(args, "groups", SM_REQUIRED, 1, MAX_GROUPS);
    p->affine = sm_arg_bool(args, "affine", 1);
}

static int groupnorm_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                           sm_error *err)
{
    (void)n_in;
    const groupnorm_params *p = params;
    char s[96];
    if (p->groups < 1) {
        sm_error_set(err, "groupnorm needs groups >= 1");
        return -1;
    }
    if (in->ndim < 1 || in->dim[0] < 1) {
        sm_error_set(err, "groupnorm needs an input with channels at dim 0, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (in->dim[0] % p->groups != 0) {
        sm_error_set(err, "channels C=%lld are not divisible by groups %lld (input %s)",
                     (long long)in->dim[0], (long long)p->groups, sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    return 0;
}

static int groupnorm_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                             sm_layer_metrics *m, sm_error *err)
{
    const groupnorm_params *p = params;
    (void)n_in;
    (void)out;
    (void)err;
    m->flops = sm_mul(5, sm_shape_elems(in));
    m->weights = p->affine ? sm_mul(2, in->dim[0]) : 0;
    m->param_tensors = p->affine ? 2 : 0;
    m->bwd_flops = m->flops;
    return 0;
}

/* Training keeps the input and each group's mean and rstd (fp32). */
static int groupnorm_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                           sm_layer_saved *s, sm_error *err)
{
    (void)in;
    (void)n_in;
    (void)out;
    (void)err;
    const groupnorm_params *p = params;
    s->inputs = 1;
    s->extra_bytes = sm_mul(2 * 4, p->groups);
    return 0;
}

static const sm_layer_type groupnorm_type = {
    SM_LAYER_TYPE_INIT,
    .name = "groupnorm",
    .summary = "group normalisation over groups of channels at dim 0 (nn.GroupNorm, "
               "nn.InstanceNorm with groups=C affine=false): groups, affine",
    .params_size = sizeof(groupnorm_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = groupnorm_parse,
    .infer = groupnorm_infer,
    .metrics = groupnorm_metrics,
    .traits = SM_TRAIT_NORMALISATION | SM_TRAIT_AUTOCAST_FP32,
    .saved = groupnorm_saved,
};

SM_DEFINE_PLUGIN(groupnorm_type)
