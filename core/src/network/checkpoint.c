/* Which layers activation checkpointing recomputes (memory.h's sm_checkpoint): the units are
 * the network file's [block]s of more than one layer, as torchtitan wraps each transformer
 * block; a layer on its own (the embedding, the head) is not checkpointed. The memory and the
 * time models both ask here, so that what is dropped is what is recomputed. */
#include <stdlib.h>
#include <string.h>

#include "network/checkpoint.h"

int *sm_checkpoint_units(const sm_network *net)
{
    int *unit = malloc(((size_t)net->n_layers + 1) * sizeof *unit);
    int *count = calloc((size_t)net->n_blocks + 1, sizeof *count);
    if (!unit || !count) {
        free(unit), free(count);
        return NULL;
    }
    for (int i = 0; i < net->n_layers; i++)
        if (net->layers[i].block >= 0 && net->layers[i].block < net->n_blocks)
            count[net->layers[i].block]++;
    for (int i = 0; i < net->n_layers; i++) {
        int b = net->layers[i].block;
        unit[i] = b >= 0 && b < net->n_blocks && count[b] > 1 ? b : -1;
    }
    free(count);
    return unit;
}

/* torchtitan's selective policy saves the outputs of matrix products and attention (mm,
 * scaled_dot_product_attention) and recomputes the element-wise rest; a layer made of both
 * says what of it the policy keeps. A convolution is no matrix product to it (aten.convolution
 * is not on its list): PyTorch recomputes a CNN's blocks whole (tools/torch_checkpoint_memory.py
 * measures ResNet-50's selective peak equal to its full one). */
static int kept_by_policy(const sm_layer *l)
{
    if (l->type->traits & SM_TRAIT_CONVOLUTION)
        return 0;
    return (l->type->traits & (SM_TRAIT_MATMUL | SM_TRAIT_ATTENTION)) || l->m.matmul_flops > 0;
}

sm_checkpoint_effect sm_checkpoint_effect_on(const sm_layer *l, int unit, sm_checkpoint c)
{
    if (unit < 0 || c == SM_CHECKPOINT_NONE)
        return SM_KEEPS_ALL;
    if (c == SM_CHECKPOINT_FULL)
        return SM_RECOMPUTES_ALL;
    if (l->saved.selective)
        return SM_RECOMPUTES_PART;
    return kept_by_policy(l) ? SM_KEEPS_ALL : SM_RECOMPUTES_ALL;
}
