/*
 * patch_merge: torchvision 0.14's _patch_merging_pad (Swin's PatchMerging and PatchMergingV2
 * before their norm and linear, which are layers of their own): one channels-last sample
 * H x W x C -> ceil(H/2) x ceil(W/2) x 4C. H and W are zero-padded to even, then the four
 * pixels of each 2x2 patch are concatenated on the channels in the order
 * x[0::2, 0::2], x[1::2, 0::2], x[0::2, 1::2], x[1::2, 1::2]. No parameters, no weights,
 * 0 FLOPs; a copy, so bytes = 4 (input + output) (the host's default).
 */
#include <scalemeter/plugin.h>

typedef struct merge_params {
    int unused; /* no parameters; the host allocates params_size bytes */
} merge_params;

static void merge_parse(void *params, sm_args *args)
{
    (void)params;
    (void)args; /* no parameters */
}

static int merge_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                       sm_error *err)
{
    (void)params;
    (void)n_in;
    char s[64];
    if (in->ndim != 3) {
        sm_error_set(err, "patch_merge needs a channels-last H x W x C input, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    out->dim[0] = (in->dim[0] + 1) / 2;
    out->dim[1] = (in->dim[1] + 1) / 2;
    out->dim[2] = sm_mul(4, in->dim[2]);
    return 0;
}

static const sm_layer_type merge_type = {
    SM_LAYER_TYPE_INIT,
    .name = "patch_merge",
    .summary = "the 2x2 patches of a channels-last map concatenated on channels (Swin's "
               "_patch_merging_pad)",
    .params_size = sizeof(merge_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = merge_parse,
    .infer = merge_infer,
    .traits = 0,
    /* slices concatenated into a new tensor: nothing kept */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(merge_type)
