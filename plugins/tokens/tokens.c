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
};

SM_DEFINE_PLUGIN(tokens_type)
