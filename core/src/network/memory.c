/* Memory of one device (memory.h): the network's tensors from what each layer's plugin says
 * it keeps (sm_layer.saved), the rest from the framework and the device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "network/network_internal.h"
#include "network/autocast.h"
#include "network/checkpoint.h"
#include "network/scores.h"
#include "scalemeter/memory.h"

static const char *const optimizer_names[SM_N_OPTIMIZERS] = {"sgd", "momentum", "adam", "adamw"};
/* fp32 state per weight: momentum's buffer; Adam's and AdamW's two moments */
static const double optimizer_states[SM_N_OPTIMIZERS] = {0, 1, 2, 2};

const char *sm_optimizer_name(sm_optimizer o)
{
    return o >= 0 && o < SM_N_OPTIMIZERS ? optimizer_names[o] : "unknown";
}

static int name_index(const char *name, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (name && !strcmp(name, names[k]))
            return k;
    return -1;
}

int sm_optimizer_parse(const char *name)
{
    return name_index(name, optimizer_names, SM_N_OPTIMIZERS);
}

static const char *const shard_names[SM_N_SHARDS] = {"none", "optimizer", "gradients", "full"};
static const char *const checkpoint_names[SM_N_CHECKPOINTS] = {"none", "selective", "full"};

const char *sm_shard_name(sm_shard s)
{
    return s >= 0 && s < SM_N_SHARDS ? shard_names[s] : "unknown";
}
int sm_shard_parse(const char *name) { return name_index(name, shard_names, SM_N_SHARDS); }

const char *sm_checkpoint_name(sm_checkpoint c)
{
    return c >= 0 && c < SM_N_CHECKPOINTS ? checkpoint_names[c] : "unknown";
}
int sm_checkpoint_parse(const char *name)
{
    return name_index(name, checkpoint_names, SM_N_CHECKPOINTS);
}

/* The storage a layer's output lives in: its own (layer + 1), or, for a layer whose output
 * aliases its input (in place, a view), its input's, down to the network's input (0). */
static int storage_of(const int *owner, int input)
{
    return input == SM_NETWORK_INPUT ? 0 : owner[input];
}

static void find_owners(const sm_network *net, int *owner)
{
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        owner[i] = l->saved.aliases_input ? storage_of(owner, l->inputs[0]) : i + 1;
    }
}

/* Elements of one sample of storage s. */
static double storage_elems(const sm_network *net, int s)
{
    return (double)(s == 0 ? sm_shape_elems(&net->input) : net->layers[s - 1].m.output_elems);
}

/* Elements a layer keeps of its own at the activation precision, per sample: under a fused
 * attention kernel its score matrices give way to the kernel's own tensors (plugin.h). */
static double own_elems(const sm_layer *l, const sm_memory_config *c)
{
    const sm_layer_saved *s = &l->saved;
    if (!sm_scores_fused(l, c->fused_attention, c->no_fused_dropout))
        return (double)s->extra_elems;
    return (double)(s->extra_elems - s->scores_elems);
}

/* An eager softmax computed in fp32 at 16-bit activations (scores.h's form): fp32 bytes per
 * sample more than a 16-bit softmax that autograd keeps of it, or that it holds while it runs
 * at inference (its input's fp32 copy too, but where PyTorch runs it in one kernel). Kept: its
 * fp32 result beside the 16-bit probabilities the context product keeps, 4 bytes a score; with
 * dropout on them the product keeps the dropout's output and the softmax's own 16-bit result,
 * which the count holds already, is the fp32 one instead, 2 more (tools/torch_rope_bytes.py
 * --softmax measures both). */
static double softmax_fp32_bytes(const sm_layer *l, const sm_memory_config *c, int training)
{
    const sm_layer_metrics *m = &l->m;
    int form = sm_softmax_form(m, c->autocast);
    if (!c->half || sm_scores_fused(l, c->fused_attention, c->no_fused_dropout) ||
        form == SM_SOFTMAX_NATIVE)
        return 0;
    double scores = (double)m->scores_bytes / (4.0 * sm_scores_touches(m));
    if (training)
        return scores * (l->saved.scores_mask_elems > 0 ? 2 : 4);
    return scores * (sm_softmax_in_one_kernel(form, c->fp16) ? 4 : 8);
}

/* Bytes a layer keeps of its own (not its inputs' or output's storages) at the batch. */
static double own_bytes(const sm_layer *l, double batch, const sm_memory_config *c)
{
    const sm_layer_saved *s = &l->saved;
    double act = c->half ? 2 : 4;
    double masks = (double)s->mask_elems;
    double stored = (double)s->extra_bytes + (c->half ? (double)s->upcast_bytes : 0);
    if (sm_scores_fused(l, c->fused_attention, c->no_fused_dropout)) {
        masks -= (double)s->scores_mask_elems;
        stored += (double)s->fused_bytes;
    }
    return batch * (own_elems(l, c) * act + masks * c->mask_bytes + stored +
                    softmax_fp32_bytes(l, c, 1)) +
           (double)s->extra_bytes_fixed;
}

/* Whether layer l keeps its input k: bit k, and bit 31 for input 31 and every later one
 * (plugin.h; a layer of more than 32 inputs kept by default keeps them all). */
static int keeps_input(const sm_layer *l, int k)
{
    return (l->saved.inputs >> (k < 31 ? k : 31)) & 1u;
}

/* Marks in kept[] the storages layer i keeps (its saved inputs' and output's) and returns the
 * bytes it keeps of its own. Under autocast each matrix-multiplying layer keeps the half copy
 * of its weight, a tensor of its own rather than the parameter (fully sharded, the weight it
 * keeps is the gathered one, counted with the weights), and a layer autocast runs in fp32 keeps
 * its inputs in fp32, a copy of a 16-bit one or the fp32 residual stream itself. */
static double keep_layer(const sm_network *net, const int *owner, int i, char *kept, double batch,
                         const sm_memory_config *c)
{
    const sm_layer *l = &net->layers[i];
    for (int k = 0; k < l->n_inputs; k++)
        if (keeps_input(l, k))
            kept[storage_of(owner, l->inputs[k])] = 1;
    if (l->saved.output)
        kept[owner[i]] = 1;
    double own = own_bytes(l, batch, c);
    if (c->half && l->m.matmul_flops > 0 && c->shard != SM_SHARD_FULL)
        own += 2.0 * (double)l->m.weights;
    if (c->half && sm_layer_autocast_fp32(l, c->autocast)) /* its fp32 inputs: 2 bytes more */
        for (int k = 0; k < l->n_inputs; k++)
            if (keeps_input(l, k))
                own += 2.0 * storage_elems(net, storage_of(owner, l->inputs[k])) * batch;
    return own;
}

/* What a layer that selective checkpointing keeps in part keeps: its output if it says so,
 * and the bytes of its own it declares (plugin.h's selective fields). */
static double keep_selected(const sm_network *net, const int *owner, int i, char *kept,
                            double batch, const sm_memory_config *c)
{
    const sm_layer_saved *s = &net->layers[i].saved;
    if (s->selective_output)
        kept[owner[i]] = 1;
    return batch * ((double)s->selective_elems * (c->half ? 2 : 4) + (double)s->selective_bytes);
}

/* Bytes of storage s at the batch, in training's activation precision. */
static double storage_size(const sm_network *net, int s, double batch, const sm_memory_config *c)
{
    return storage_elems(net, s) * batch * (c->half ? 2 : 4);
}

/* Training: the unique storages kept at the end of the forward pass, and what layers keep of
 * their own. Checkpointed, a unit's recomputed layers keep nothing (a layer kept in part, what
 * it declares), the unit keeps its inputs (the storages its layers read that are made outside
 * it), and the backward pass of each unit recomputes its tensors. The peak is the larger of
 * the backward pass's start, everything kept and the layer that allocates most of its own (a
 * loss's fp32 gradients) or the output's gradient, and each unit's recomputation beside what
 * is still kept then: autograd frees what a layer keeps after the layer's backward pass, so
 * when unit u recomputes, only what the layers up to u's last keep is left (first[s]: the
 * first layer that keeps storage s; alive[i]: the bytes layer i is the first to keep). */
static double training_peak(const sm_network *net, const int *owner, const int *unit, char *kept,
                            char *redo, int *first, double *alive, double batch,
                            const sm_memory_config *c)
{
    int n = net->n_layers;
    double total = 0, transient = 0;
    memset(kept, 0, (size_t)n + 1);
    for (int s = 0; s <= n; s++)
        first[s] = n;
    for (int i = 0; i < n; i++) {
        const sm_layer *l = &net->layers[i];
        sm_checkpoint_effect e = sm_checkpoint_effect_on(l, unit[i], c->checkpoint);
        alive[i] = 0;
        if (e == SM_KEEPS_ALL)
            alive[i] = keep_layer(net, owner, i, kept, batch, c);
        else if (e == SM_RECOMPUTES_PART)
            alive[i] = keep_selected(net, owner, i, kept, batch, c);
        total += alive[i];
        transient = fmax(transient, batch * (double)l->saved.backward_bytes);
        for (int k = 0; k < l->n_inputs; k++) {
            int s = storage_of(owner, l->inputs[k]);
            if (unit[i] >= 0 && c->checkpoint != SM_CHECKPOINT_NONE &&
                (s == 0 || unit[s - 1] != unit[i]))
                kept[s] = 1;
            if (kept[s] && first[s] == n)
                first[s] = i;
        }
        if (kept[owner[i]] && first[owner[i]] == n)
            first[owner[i]] = i;
    }
    /* the network's output lives until the loss has read it, whoever saves it, and its
     * gradient is made before the last layer's backward pass (a language model's logits,
     * B x S x V, where no loss layer is written: it is counted once with one) */
    if (n > 0) {
        int out = owner[n - 1];
        kept[out] = 1;
        if (first[out] == n)
            first[out] = n - 1;
        transient = fmax(transient, storage_size(net, out, batch, c));
    }
    for (int s = 0; s <= n; s++)
        if (kept[s])
            total += storage_size(net, s, batch, c);
    double peak = total + transient;
    if (c->checkpoint == SM_CHECKPOINT_NONE)
        return peak;
    for (int s = 0; s <= n; s++)
        if (kept[s] && first[s] < n)
            alive[first[s]] += storage_size(net, s, batch, c);
    for (int i = 1; i < n; i++)
        alive[i] += alive[i - 1];
    for (int u = 0; u < net->n_blocks; u++) {
        double own = 0;
        int last = -1;
        memset(redo, 0, (size_t)n + 1);
        for (int i = 0; i < n; i++) {
            if (unit[i] != u)
                continue;
            sm_checkpoint_effect e = sm_checkpoint_effect_on(&net->layers[i], u, c->checkpoint);
            if (e == SM_KEEPS_ALL)
                continue;
            own += keep_layer(net, owner, i, redo, batch, c);
            if (e == SM_RECOMPUTES_PART) /* what it kept is held already */
                own -= keep_selected(net, owner, i, redo, batch, c);
            last = i;
        }
        if (last < 0)
            continue;
        /* the unit's storages that nothing up to it keeps are made again */
        double made = 0;
        for (int s = 0; s <= n; s++)
            if (redo[s] && !(kept[s] && first[s] <= last))
                made += storage_size(net, s, batch, c);
        peak = fmax(peak, alive[last] + own + made);
    }
    return peak;
}

/* Bytes of one element of storage s at inference: its producer's output precision, fp32 for a
 * layer autocast runs in fp32. */
static double storage_elem_bytes(const sm_network *net, int s, const sm_memory_config *c)
{
    if (s > 0 && c->half && sm_layer_autocast_fp32(&net->layers[s - 1], c->autocast))
        return 4;
    return c->half ? 2 : 4;
}

/* Inference: the most bytes alive at once, running the layers in order. A storage is made by
 * its layer and freed after the last layer that reads it; the network's output stays; a
 * layer's own tensors live while it runs. */
static double live_peak(const sm_network *net, const int *owner, int *readers, double batch,
                        const sm_memory_config *c)
{
    double act = c->half ? 2 : 4;
    int n = net->n_layers;
    memset(readers, 0, ((size_t)n + 1) * sizeof *readers);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < net->layers[i].n_inputs; k++)
            readers[storage_of(owner, net->layers[i].inputs[k])]++;
    if (n > 0)
        readers[owner[n - 1]]++; /* the output is kept */
    double live = storage_elems(net, 0) * batch * storage_elem_bytes(net, 0, c), peak = live;
    for (int i = 0; i < n; i++) {
        const sm_layer *l = &net->layers[i];
        if (owner[i] == i + 1)
            live += storage_elems(net, i + 1) * batch * storage_elem_bytes(net, i + 1, c);
        double during = live + batch * (own_elems(l, c) * act + softmax_fp32_bytes(l, c, 0));
        peak = fmax(peak, during);
        for (int k = 0; k < l->n_inputs; k++) {
            int s = storage_of(owner, l->inputs[k]);
            if (--readers[s] == 0)
                live -= storage_elems(net, s) * batch * storage_elem_bytes(net, s, c);
        }
    }
    return peak;
}

/* Weights FSDP holds gathered at once: the root unit's (the layers outside blocks) and the two
 * largest blocks', the one computing and the one prefetched. */
static double gathered_units(const sm_network *net, const int *unit)
{
    double root = 0, first = 0, second = 0;
    for (int i = 0; i < net->n_layers;) {
        double w = 0;
        int u = unit[i];
        for (; i < net->n_layers && unit[i] == u; i++)
            w += (double)net->layers[i].m.weights;
        if (u < 0)
            root += w;
        else if (w > first)
            second = first, first = w;
        else if (w > second)
            second = w;
    }
    return root + first + second;
}

int sm_network_memory(const sm_network *net, int64_t batch, int64_t devices, int training,
                      const sm_memory_config *c, sm_memory *out, sm_status *st)
{
    memset(out, 0, sizeof *out);
    if (batch < 1)
        return sm_fail(st, "batch size %lld is not positive", (long long)batch);
    if (devices < 1)
        return sm_fail(st, "%lld devices: at least one is needed", (long long)devices);
    /* the C API's enums as plain ints: an optimizer of 7 read past its table */
    if ((unsigned)c->optimizer >= SM_N_OPTIMIZERS || (unsigned)c->shard >= SM_N_SHARDS ||
        (unsigned)c->checkpoint >= SM_N_CHECKPOINTS)
        return sm_fail(st,
                       "memory configuration: optimizer %d, shard %d or checkpoint %d is not "
                       "one memory.h names",
                       (int)c->optimizer, (int)c->shard, (int)c->checkpoint);
    sm_metrics total;
    if (sm_network_metrics(net, 1, &total, st))
        return -1;
    if (training && c->shard == SM_SHARD_FULL && devices < 2)
        return sm_fail(st, "shard full on one device: there is nothing to shard across (give "
                           "more devices, or shard none)");
    int *owner = malloc(((size_t)net->n_layers + 1) * sizeof *owner);
    int *readers = malloc(((size_t)net->n_layers + 1) * sizeof *readers);
    char *kept = malloc((size_t)net->n_layers + 1), *redo = malloc((size_t)net->n_layers + 1);
    int *unit = sm_checkpoint_units(net);
    double *alive = malloc(((size_t)net->n_layers + 1) * sizeof *alive);
    if (!owner || !readers || !kept || !redo || !unit || !alive) {
        free(owner), free(readers), free(kept), free(redo), free(unit), free(alive);
        return sm_fail(st, "%s: out of memory counting its memory", net->name);
    }
    find_owners(net, owner);
    double w = (double)total.weights, n = (double)devices, largest = 0;
    for (int i = 0; i < net->n_layers; i++)
        largest = fmax(largest, (double)net->layers[i].m.weights);
    out->weights = 4 * w;
    if (training) {
        sm_shard shard = devices > 1 ? c->shard : SM_SHARD_NONE;
        out->gradients = 4 * w * (devices > 1 ? 2 : 1);
        out->optimizer = 4 * w * optimizer_states[c->optimizer] / (shard ? n : 1);
        /* reduce-scattered gradients need no bucket copy; one layer's whole gradient exists
         * until it is reduced */
        if (shard >= SM_SHARD_GRADIENTS)
            out->gradients = 4 * w / n + 4 * largest;
        /* FSDP gathers by unit (bf16 under MixedPrecision): the root's weights from the
         * forward pass to the end of the backward pass, a block's while the next one's gather
         * is in flight (the time model's units: predictor_device.c) */
        if (shard == SM_SHARD_FULL)
            out->weights = 4 * w / n + gathered_units(net, unit) * (c->half ? 2 : 4);
        /* readers[] (inference's) holds each storage's first keeper */
        out->activations =
            training_peak(net, owner, unit, kept, redo, readers, alive, (double)batch, c);
    } else {
        out->activations = live_peak(net, owner, readers, (double)batch, c);
    }
    free(owner), free(readers), free(kept), free(redo), free(unit), free(alive);
    /* cuDNN's convolution workspace is taken only by a network that runs convolutions */
    out->workspace =
        c->workspace_bytes +
        (sm_network_has_trait(net, SM_TRAIT_CONVOLUTION) ? c->conv_workspace_bytes : 0);
    out->context = c->context_bytes;
    /* whole bytes, so that the parts printed add up to the peak (a sharded 4W/N is not whole) */
    double *parts[] = {&out->weights,     &out->gradients, &out->optimizer,
                       &out->activations, &out->workspace, &out->context};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
        *parts[k] = ceil(*parts[k]);
    out->peak = out->weights + out->gradients + out->optimizer + out->activations + out->workspace;
    out->capacity = c->capacity_bytes;
    out->fits = c->capacity_bytes > 0 ? out->peak + out->context <= c->capacity_bytes : -1;
    return 0;
}

int sm_network_max_batch(const sm_network *net, int64_t devices, int training,
                         const sm_memory_config *c, int64_t *out, sm_status *st)
{
    *out = 0;
    if (c->capacity_bytes <= 0)
        return sm_fail(st, "the device's memory is not known: give [device] memory_gib in its "
                           "description");
    /* memory grows with the batch: the largest batch that fits, by bisection */
    int64_t lo = 0, hi = (int64_t)1 << 40;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        sm_memory m;
        if (sm_network_memory(net, mid, devices, training, c, &m, st))
            return -1;
        if (m.fits == 1)
            lo = mid;
        else
            hi = mid - 1;
    }
    *out = lo;
    return 0;
}
