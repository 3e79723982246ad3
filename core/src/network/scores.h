/* Eager attention's score matrices as plugin.h's metrics count them, and the softmax over them
 * at 16-bit activations: one place for the time (device_roofline.c) and the memory (memory.c).
 * Internal to the core. */
#ifndef SCALEMETER_NETWORK_SCORES_H
#define SCALEMETER_NETWORK_SCORES_H

#include "network/network_internal.h"
#include "scalemeter/memory.h"
#include "scalemeter/plugin.h"

/* 1: the layer runs as one fused attention kernel under the framework's policy
 * (SM_ATTENTION_*, memory.h): every attention layer, none, or those whose code calls one;
 * where the framework's fused kernels take no dropout (no_fused_dropout), not a layer with
 * dropout on its probabilities in training (training 1), which then runs eagerly (PyTorch's
 * CPU path). At inference the dropout is the identity and the fused kernel runs. */
static inline int sm_scores_fused(const sm_layer *l, int policy, int no_fused_dropout, int training)
{
    if (no_fused_dropout && training && l->saved.scores_mask_elems > 0)
        return 0;
    return policy == SM_ATTENTION_FUSED || (policy == SM_ATTENTION_AS_WRITTEN && l->m.scores_fused);
}

/* Reads or writes of every score that scores_bytes holds: the score product's write, the
 * softmax's read and write, the context product's read, and a read and a write per element-wise
 * pass the plugin declares (its scaling, its mask). */
static inline double sm_scores_touches(const sm_layer_metrics *m)
{
    return 4 + 2 * (double)m->scores_passes_fwd;
}

/* The form the eager softmax over the scores runs in at fp16 or bf16 (SM_SOFTMAX_*): the
 * plugin's, and under autocast Hugging Face's whatever the plugin says. CUDA autocast runs
 * softmax with dtype=torch.float32 (ATen's autocast_mode.cpp, its fp32_set_opt_dtype list), an
 * fp32 result the next matrix product casts back, as Hugging Face's .to(x.dtype) does. */
static inline int sm_softmax_form(const sm_layer_metrics *m, int autocast)
{
    return m->scores_softmax == SM_SOFTMAX_NATIVE && autocast ? SM_SOFTMAX_DTYPE
                                                              : m->scores_softmax;
}

/* 1: at fp16 that form is one kernel reading fp16 and writing fp32 (SoftMax.cpp's
 * half_to_float, which PyTorch takes for fp16 alone); at bf16 a cast up comes first. */
static inline int sm_softmax_in_one_kernel(int form, int fp16)
{
    return form == SM_SOFTMAX_DTYPE && fp16;
}

#endif
