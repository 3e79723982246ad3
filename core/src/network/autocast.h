/* What CUDA autocast changes of a layer at fp16 and bf16, beside the softmax (scores.h): the
 * layers of its fp32 list. Internal to the core. */
#ifndef SCALEMETER_NETWORK_AUTOCAST_H
#define SCALEMETER_NETWORK_AUTOCAST_H

#include "network/network_internal.h"

/* 1: under autocast (autocast != 0) the layer runs in fp32 (plugin.h's
 * SM_TRAIT_AUTOCAST_FP32): its bytes are fp32 bytes, it keeps its inputs in fp32 and its
 * output is fp32. */
static inline int sm_layer_autocast_fp32(const sm_layer *l, int autocast)
{
    return autocast && (l->type->traits & SM_TRAIT_AUTOCAST_FP32);
}

#endif
