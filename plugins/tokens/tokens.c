/*
 * tokens: turns a feature map into a sequence of tokens, C x H x W -> (H W) x C, as ViT does
 * with the output of its patch embedding (x.reshape(n, C, H * W).permute(0, 2, 1) in
 * torchvision's VisionTransformer._process_input). A view: 0 FLOPs and no bytes moved (the
 * copy into a contiguous tensor happens in the layer after, cls_token's torch.cat in ViT).
 */
#include <scalemeter/plugin.h>

#include "view_metrics.h"

typedef struct tokens_params {
    int unused; /* no parameters; the host allocates params_size bytes */
} tokens_params;

static void tokens_parse(void *params, sm_args *args)
{
    (void)params;
    (void)args;
}

static int tokens_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                        sm_error *err)
{
    (void)n_in;
    (void)params;
    char s[64];
    if (in->ndim != 3) {
        sm_error_set(err, "tokens needs a CxHxW input, got %s", sm_shape_str(in, s, sizeof s));
        return -1;
    }
    out->ndim = 2;
    out->dim[0] = sm_mul(in->dim[1], in->dim[2]);
    out->dim[1] = in->dim[0];
    out->dim[2] = out->dim[3] = 0;
    return 0;
}

/* x.reshape(n, C, H * W).permute(0, 2, 1): H and W merged (a view where their steps allow,
 * else a copy, contiguous C x HW), then C and HW swapped. */
static int tokens_strides(const void *params, const sm_shape *in, const int64_t *in_strides,
                          const sm_shape *out, int64_t *out_strides)
{
    (void)params;
    (void)out;
    int64_t hw_stride, c_stride = in_strides[0];
    int copies = view_merge(in, in_strides, 1, in->ndim, &hw_stride);
    if (copies) {
        hw_stride = 1;
        c_stride = sm_shape_elems(in) / in->dim[0];
    }
    out_strides[0] = hw_stride;
    out_strides[1] = c_stride;
    return copies;
}

static const sm_layer_type tokens_type = {
    SM_LAYER_TYPE_INIT,
    .name = "tokens",
    .summary = "feature map to token sequence, C x H x W -> (H*W) x C (ViT patch tokens)",
    .params_size = sizeof(tokens_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = tokens_parse,
    .infer = tokens_infer,
    .metrics = view_metrics,
    .traits = SM_TRAIT_VIEW,
    .saved = sm_saved_view,
    .view_strides = tokens_strides,
};

SM_DEFINE_PLUGIN(tokens_type)
