/*
 * adaptive_avgpool2d: nn.AdaptiveAvgPool2d on a per-sample C x H x W input, giving C x sh x sw.
 * Any output size is accepted, smaller or larger than the input, as in PyTorch.
 *
 *   flops = input elements (each read and added once) + output elements (the division)
 */
#include <scalemeter/plugin.h>

#define MAX_SIZE ((int64_t)1 << 16)

typedef struct adaptive_params {
    int64_t size[2];
} adaptive_params;

static void adaptive_parse(void *params, sm_args *args)
{
    adaptive_params *p = params;
    sm_arg_pair(args, "size", SM_REQUIRED, 1, MAX_SIZE, p->size);
}

static int adaptive_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                          sm_error *err)
{
    (void)n_in;
    const adaptive_params *p = params;
    char s[64];
    if (p->size[0] < 1 || p->size[1] < 1) {
        sm_error_set(err, "adaptive_avgpool2d needs a size >= 1");
        return -1;
    }
    if (in->ndim != 3) {
        sm_error_set(err, "adaptive_avgpool2d needs a CxHxW input, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    out->ndim = 3;
    out->dim[0] = in->dim[0];
    out->dim[1] = p->size[0];
    out->dim[2] = p->size[1];
    out->dim[3] = 0;
    return 0;
}

static int adaptive_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                            sm_layer_metrics *m, sm_error *err)
{
    (void)params;
    (void)err;
    (void)n_in;
    m->flops = sm_add(sm_shape_elems(in), sm_shape_elems(out));
    m->bwd_flops = m->flops;
    return 0;
}

/* The backward pass of an adaptive pool reads its input; to 1 x 1, the global average that
 * ends most CNNs, PyTorch runs a mean over H and W instead, whose backward PyTorch 2 gives the
 * sizes alone: nothing is kept (torch 1.13 kept the input either way; saved_tensors_hooks shows
 * both: EfficientNet-B0's last 1280 x 7 x 7, 250,880 bytes a sample). */
static int adaptive_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                          sm_layer_saved *s, sm_error *err)
{
    (void)in, (void)n_in, (void)out, (void)err;
    const adaptive_params *p = params;
    s->inputs = p->size[0] != 1 || p->size[1] != 1;
    return 0;
}

static const sm_layer_type adaptive_type = {
    SM_LAYER_TYPE_INIT,
    .name = "adaptive_avgpool2d",
    .summary = "average pooling to a fixed HxW (nn.AdaptiveAvgPool2d): size",
    .params_size = sizeof(adaptive_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = adaptive_parse,
    .infer = adaptive_infer,
    .metrics = adaptive_metrics,
    .traits = SM_TRAIT_POOLING,
    .saved = adaptive_saved,
};

SM_DEFINE_PLUGIN(adaptive_type)
