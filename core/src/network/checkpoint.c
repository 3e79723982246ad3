/* Which layers activation checkpointing recomputes (memory.h's sm_checkpoint): the units are
 * the network file's [block]s of more than one layer, as torchtitan wraps each transformer
 * block; a layer on its own (the embedding, the head) is not checkpointed. The memory and the
 * time models both ask here, so that what is dropped is what is recomputed. */
#include <stdlib.h>
#include <string.h>

#include "network/checkpoint.h"
#include "network/module_scopes.h"
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

/* A layer that writes its result over its input: in place (the input's storage, a kernel of
 * its own), where a view writes nothing. */
static int writes_in_place(const sm_layer *l)
{
    return l->saved.aliases_input && !(l->type->traits & SM_TRAIT_VIEW) && l->m.kernels_fwd > 0;
}

/* Whether the selective policy caches the output of the layer that made storage s (s - 1; 0 is
 * the network's input) for the backward pass: a product's output, whose version PyTorch checks
 * when it reads it back. */
static int cached(const sm_network *net, const sm_checkpoint_effect *effect, int s)
{
    if (s == 0)
        return 0;
    return effect[s - 1] == SM_KEEPS_OUTPUT ||
           (effect[s - 1] == SM_RECOMPUTES_PART && net->layers[s - 1].saved.selective_output);
}

/* PyTorch refuses a step in which a layer writes in place over a tensor that checkpointing
 * kept: a unit's input, which torch.utils.checkpoint keeps to recompute the unit from
 * (torchvision's EfficientNet and MNASNet, whose classifier begins with an in-place dropout:
 * "one of the variables needed for gradient computation has been modified by an inplace
 * operation"), or under selective a product's output the policy caches (AlexNet's and VGG's
 * in-place ReLU after a linear: "Tensor cached during selective activation checkpoint has been
 * mutated"; tools/torch_checkpoint_memory.py records both). The storage, not the layer, is
 * what is written: a view of the tensor, or another in-place layer, leads back to it. */
static int in_place_check(const sm_network *net, const int *unit,
                          const sm_checkpoint_effect *effect, sm_checkpoint c, int *owner,
                          sm_status *st)
{
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        owner[i] = l->saved.aliases_input ? sm_storage_of(owner, l->inputs[0]) : i + 1;
        if (!writes_in_place(l))
            continue;
        int s = owner[i], from = s - 1;
        const char *what = from >= 0 ? net->layers[from].name : "the network's input";
        if (unit[i] >= 0 && (from < 0 || unit[from] != unit[i]))
            return sm_fail(st,
                           "%s:%d: checkpoint %s: %s (%s) works in place on %s, from outside its "
                           "block %s, which checkpointing keeps to recompute the block: PyTorch "
                           "refuses to run that (a variable needed for gradient computation "
                           "modified by an inplace operation); make %s out of place "
                           "(inplace=false) or move it out of the block",
                           net->path, l->line, sm_checkpoint_name(c), l->name, l->type->name, what,
                           net->blocks[unit[i]], l->name);
        if (cached(net, effect, s))
            return sm_fail(st,
                           "%s:%d: checkpoint %s: %s (%s) works in place on the output of %s, "
                           "which selective checkpointing keeps: PyTorch refuses to run that "
                           "(a tensor cached during selective activation checkpoint mutated); "
                           "make %s out of place (inplace=false), or checkpoint full",
                           net->path, l->line, sm_checkpoint_name(c), l->name, l->type->name, what,
                           l->name);
    }
    return 0;
}

int sm_checkpoint_check(const sm_network *net, sm_checkpoint c, sm_status *st)
{
    if (c == SM_CHECKPOINT_NONE)
        return 0;
    int *unit = sm_checkpoint_units(net);
    sm_checkpoint_effect *effect = unit ? sm_checkpoint_effects(net, unit, c) : NULL;
    int *owner = malloc(((size_t)net->n_layers + 1) * sizeof *owner);
    if (!unit || !effect || !owner) {
        free(unit), free(effect), free(owner);
        return sm_fail(st, "%s: out of memory finding its checkpointed units", net->name);
    }
    int units = 0;
    for (int i = 0; i < net->n_layers && !units; i++)
        units = unit[i] >= 0;
    int rc = units ? in_place_check(net, unit, effect, c, owner, st)
                   : sm_fail(st,
                             "checkpoint %s: the network has no [block] of more than one layer, "
                             "the units that checkpointing recomputes, so nothing would be "
                             "checkpointed (wrap its repeated layers in [block]s, or checkpoint "
                             "none)",
                             sm_checkpoint_name(c));
    free(unit), free(effect), free(owner);
    return rc;
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
