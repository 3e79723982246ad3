/*
 * channel_shuffle: nn.ChannelShuffle (ShuffleNet): C channels in `groups` groups are interleaved;
 * channels are dim 0 of a per-sample input of 2 or more dims (C x H x W). C must be divisible by
 * groups. 0 FLOPs; a copy, so bytes = 4 (input + output).
 */
#include <scalemeter/plugin.h>

#include "channel_shuffle.h"

#define MAX_CHANNELS ((int64_t)1 << 24)

static void shuffle_parse(void *params, sm_args *args)
{
    shuffle_params *p = params;
    p->groups = sm_arg_int(args, "groups", SM_REQUIRED, 1, MAX_CHANNELS);
}

static int shuffle_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                         sm_error *err)
{
    (void)n_in;
    const shuffle_params *p = params;
    char s[64];
    if (p->groups < 1) {
        sm_error_set(err, "channel_shuffle needs groups >= 1");
        return -1;
    }
    if (in->ndim < 2) {
        sm_error_set(err, "channel_shuffle needs an input of 2 or more dims (CxHxW), got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (in->dim[0] % p->groups != 0) {
        sm_error_set(err, "channels %lld are not divisible by groups %lld (input %s)",
                     (long long)in->dim[0], (long long)p->groups, sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    return 0;
}

static const sm_layer_type shuffle_type = {
    SM_LAYER_TYPE_INIT,
    .name = "channel_shuffle",
    .summary = "interleaves the channels of groups (nn.ChannelShuffle): groups",
    .params_size = sizeof(shuffle_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = shuffle_parse,
    .infer = shuffle_infer,
    .traits = 0,
    /* a contiguous copy (a new tensor) of a transposed view: nothing kept */
    .saved = sm_saved_nothing,
};

SM_DEFINE_PLUGIN(shuffle_type)
