/*
 * batchnorm2d: nn.BatchNorm2d at inference (running statistics folded into a scale and a shift),
 * on any per-sample input whose channels are dim[0] (C x H x W, or C for BatchNorm1d's use).
 *
 *   flops         = 2 per element (a multiply and an add)
 *   weights       = affine ? 2 C : 0        (gamma and beta; running stats are buffers)
 *   param_tensors = affine ? 2 : 0
 *   kernels       = 2 forward in training (num_batches_tracked's update), 1 at inference, 1
 *                   backward
 */
#include <scalemeter/plugin.h>

#include "batchnorm2d.h"

static void batchnorm_parse(void *params, sm_args *args)
{
    batchnorm_params *p = params;
    p->affine = sm_arg_bool(args, "affine", 1);
}

static int batchnorm_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                           sm_error *err)
{
    (void)n_in;
    (void)params;
    if (in->ndim < 1) {
        sm_error_set(err, "batchnorm2d needs an input with channels at its first dimension");
        return -1;
    }
    *out = *in;
    return 0;
}

static int batchnorm_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                             sm_layer_metrics *m, sm_error *err)
{
    const batchnorm_params *p = params;
    (void)n_in;
    (void)out;
    (void)err;
    m->flops = sm_mul(2, sm_shape_elems(in));
    m->weights = p->affine ? sm_mul(2, in->dim[0]) : 0;
    m->param_tensors = p->affine ? 2 : 0;
    m->bwd_flops = m->flops;
    /* training also runs num_batches_tracked.add_(1) (nn.BatchNorm2d.forward), a kernel of its
     * own; cuDNN's batch norm is one kernel forward and one backward */
    m->kernels_fwd = 2;
    m->kernels_train_only = 1;
    return 0;
}

/* Training keeps the input and, per channel, the batch's mean and inverse deviation (fp32). */
static int batchnorm_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                           sm_layer_saved *s, sm_error *err)
{
    (void)params;
    (void)n_in;
    (void)out;
    (void)err;
    s->inputs = 1;
    s->extra_bytes_fixed = sm_mul(2 * 4, in[0].dim[0]);
    return 0;
}

static const sm_layer_type batchnorm_type = {
    SM_LAYER_TYPE_INIT,
    .name = "batchnorm2d",
    .summary = "batch normalisation over channels at dim 0 (nn.BatchNorm2d): affine",
    .params_size = sizeof(batchnorm_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = batchnorm_parse,
    .infer = batchnorm_infer,
    .metrics = batchnorm_metrics,
    .traits = SM_TRAIT_NORMALISATION | SM_TRAIT_BATCH_STATISTICS,
    .saved = batchnorm_saved,
};

SM_DEFINE_PLUGIN(batchnorm_type)
