/* Which layers activation checkpointing recomputes (memory.h's sm_checkpoint): the units are
 * the network file's [block]s of more than one layer, as torchtitan wraps each transformer
 * block; a layer on its own (the embedding, the head) is not checkpointed. The memory and the
 * time models both ask here, so that what is dropped is what is recomputed. */
#include <stdlib.h>
#include <string.h>

#include "network/checkpoint.h"
#include "network/network_internal.h"

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

int sm_checkpoint_check(const sm_network *net, sm_checkpoint c, sm_status *st)
{
    if (c == SM_CHECKPOINT_NONE)
        return 0;
    int *count = calloc((size_t)net->n_blocks + 1, sizeof *count);
    if (!count)
        return sm_fail(st, "%s: out of memory finding its checkpointed units", net->name);
    int units = 0;
    for (int i = 0; i < net->n_layers; i++) {
        int b = net->layers[i].block;
        if (b >= 0 && b < net->n_blocks && ++count[b] == 2)
            units++;
    }
    free(count);
    if (units)
        return 0;
    return sm_fail(st,
                   "checkpoint %s: the network has no [block] of more than one layer, the units "
                   "that checkpointing recomputes, so nothing would be checkpointed (wrap its "
                   "repeated layers in [block]s, or checkpoint none)",
                   sm_checkpoint_name(c));
}

/* torchtitan's selective policy saves the outputs of matrix products (mm), all but every
 * second one in a unit, and of attention (scaled_dot_product_attention), and recomputes the
 * element-wise rest. A convolution is no matrix product to it (aten.convolution is not on its
 * list): PyTorch recomputes a CNN's blocks whole (tools/torch_checkpoint_memory.py measures
 * ResNet-50's selective peak equal to its full one). A layer made of both says what of it the
 * policy keeps, for its products counted from an odd one (Llama's attention has four, a packed
 * nn.MultiheadAttention two): it leaves the count's parity as it found it. */
static sm_checkpoint_effect selective_effect(const sm_layer *l, int *products)
{
    uint32_t t = l->type->traits;
    if (l->saved.selective)
        return SM_RECOMPUTES_PART;
    if (t & SM_TRAIT_CONVOLUTION)
        return SM_RECOMPUTES_ALL;
    if (t & SM_TRAIT_ATTENTION)
        return SM_KEEPS_ALL;
    if (!(t & SM_TRAIT_MATMUL) && l->m.matmul_flops <= 0)
        return SM_RECOMPUTES_ALL;
    return ++*products % 2 ? SM_KEEPS_OUTPUT : SM_RECOMPUTES_ALL;
}

sm_checkpoint_effect *sm_checkpoint_effects(const sm_network *net, const int *unit, sm_checkpoint c)
{
    sm_checkpoint_effect *effect = malloc(((size_t)net->n_layers + 1) * sizeof *effect);
    int *products = calloc((size_t)net->n_blocks + 1, sizeof *products);
    if (!effect || !products) {
        free(effect), free(products);
        return NULL;
    }
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        if (unit[i] < 0 || c == SM_CHECKPOINT_NONE)
            effect[i] = SM_KEEPS_ALL;
        else if (c == SM_CHECKPOINT_FULL)
            effect[i] = SM_RECOMPUTES_ALL;
        else
            effect[i] = selective_effect(l, &products[unit[i]]);
    }
    free(products);
    return effect;
}
