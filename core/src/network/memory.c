/* Memory of one device (memory.h): the network's tensors from what each layer's plugin says
 * it keeps (sm_layer.saved), the rest from the framework and the device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "network/network_internal.h"
#include "network/autocast.h"
#include "network/checkpoint.h"
#include "network/module_scopes.h"
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

sm_optimizer sm_memory_optimizer(const sm_memory_config *c, const sm_network *net)
{
    if (c->optimizer_is_default && net && net->optimizer >= 0 && net->optimizer < SM_N_OPTIMIZERS)
        return (sm_optimizer)net->optimizer;
    return c->optimizer;
}

static const char *const shard_names[SM_N_SHARDS] = {"none", "optimizer", "gradients", "full"};
static const char *const checkpoint_names[SM_N_CHECKPOINTS] = {"none", "selective", "full"};

const char *sm_shard_name(sm_shard s)
{
    return s >= 0 && s < SM_N_SHARDS ? shard_names[s] : "unknown";
}
int sm_shard_parse(const char *name) { return name_index(name, shard_names, SM_N_SHARDS); }

int sm_shard_check(sm_shard s, int64_t devices, sm_status *st)
{
    if (s == SM_SHARD_NONE || devices >= 2)
        return 0;
    return sm_fail(st,
                   "shard %s on one device: there is nothing to shard across (give more "
                   "devices, or shard none)",
                   sm_shard_name(s));
}

const char *sm_checkpoint_name(sm_checkpoint c)
{
    return c >= 0 && c < SM_N_CHECKPOINTS ? checkpoint_names[c] : "unknown";
}
int sm_checkpoint_parse(const char *name)
{
    return name_index(name, checkpoint_names, SM_N_CHECKPOINTS);
}

static void find_owners(const sm_network *net, int *owner)
{
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        owner[i] = l->saved.aliases_input ? sm_storage_of(owner, l->inputs[0]) : i + 1;
    }
}

/* Elements of one sample of storage s. */
static double storage_elems(const sm_network *net, int s)
{
    return (double)(s == 0 ? sm_shape_elems(&net->input) : net->layers[s - 1].m.output_elems);
}

/* Elements a layer keeps of its own at the activation precision, per sample: under a fused
 * attention kernel its score matrices give way to the kernel's own tensors (plugin.h). */
static double own_elems(const sm_layer *l, const sm_memory_config *c, int training)
{
    const sm_layer_saved *s = &l->saved;
    if (!sm_scores_fused(l, c->fused_attention, c->no_fused_dropout, training))
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
    if (!c->half || sm_scores_fused(l, c->fused_attention, c->no_fused_dropout, training) ||
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
    if (sm_scores_fused(l, c->fused_attention, c->no_fused_dropout, 1)) {
        masks -= (double)s->scores_mask_elems;
        stored += (double)s->fused_bytes;
    }
    return batch * (own_elems(l, c, 1) * act + masks * c->mask_bytes + stored +
                    softmax_fp32_bytes(l, c, 1)) +
           (double)s->extra_bytes_fixed;
}

/* Whether layer l keeps its input k: bit k, and bit 31 for input 31 and every later one
 * (plugin.h; a layer of more than 32 inputs kept by default keeps them all). */
static int keeps_input(const sm_layer *l, int k)
{
    return (l->saved.inputs >> (k < 31 ? k : 31)) & 1u;
}

/* The weights of layer l's matrix: its own, or for a tied output layer (SM_TRAIT_TIED, GPT-2's
 * lm_head) the embedding's it multiplies by, its input's width x its outputs, which autocast
 * casts to 16 bits as any other (network_graph.c checks the embedding is there). */
static double matrix_weights(const sm_network *net, const sm_layer *l)
{
    if (!(l->type->traits & SM_TRAIT_TIED) || l->out.ndim < 1 || l->n_inputs < 1)
        return (double)l->m.weights;
    const sm_shape *in = sm_input_shape(net, l, 0);
    return in->ndim < 1 ? 0 : (double)in->dim[in->ndim - 1] * (double)l->out.dim[l->out.ndim - 1];
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
            kept[sm_storage_of(owner, l->inputs[k])] = 1;
    if (l->saved.output)
        kept[owner[i]] = 1;
    double own = own_bytes(l, batch, c);
    /* autocast's 16-bit copy of an fp32 parameter; a cast model's parameters are 16-bit
     * themselves, counted with the weights */
    if (c->half && l->m.matmul_flops > 0 && c->shard != SM_SHARD_FULL &&
        !(c->param_bytes > 0 && c->param_bytes <= 2))
        own += 2.0 * matrix_weights(net, l);
    if (c->half && sm_layer_autocast_fp32(l, c->autocast)) { /* fp32 where 16-bit: 2 bytes more */
        for (int k = 0; k < l->n_inputs; k++)
            if (keeps_input(l, k))
                own += 2.0 * storage_elems(net, sm_storage_of(owner, l->inputs[k])) * batch;
        if (l->saved.output) /* its fp32 result (a softmax's) */
            own += 2.0 * storage_elems(net, owner[i]) * batch;
    }
    return own;
}

/* What a layer that selective checkpointing keeps in part keeps: its output if it says so (a
 * matrix product whose output the policy saves: that alone), and the bytes of its own it
 * declares (plugin.h's selective fields). */
static double keep_selected(const sm_network *net, const int *owner, int i, sm_checkpoint_effect e,
                            char *kept, double batch, const sm_memory_config *c)
{
    const sm_layer_saved *s = &net->layers[i].saved;
    if (e == SM_KEEPS_OUTPUT || s->selective_output)
        kept[owner[i]] = 1;
    if (e == SM_KEEPS_OUTPUT)
        return 0;
    return batch * ((double)s->selective_elems * (c->half ? 2 : 4) + (double)s->selective_bytes);
}

/* Bytes of storage s at the batch, in training's activation precision. */
static double storage_size(const sm_network *net, int s, double batch, const sm_memory_config *c)
{
    return storage_elems(net, s) * batch * (c->half ? 2 : 4);
}

/* Scratch of one training count, one entry per layer or storage (storage 0 is the input). */
typedef struct training_scratch {
    char *kept, *redo, *needs;    /* storages: kept, made again by a unit, needing a gradient */
    char *fp32, *unit_input;      /* storages: fp32 under autocast; kept as a unit's input */
    int *first;                   /* storages: the first layer that keeps it (n: none) */
    int *made_at;                 /* storages: the first layer of a recomputed unit that keeps it */
    double *alive;                /* layers: bytes held during its backward pass (prefix sums) */
    double *release;              /* layers: recomputed bytes freed after its backward pass */
    int *head, *next, *last;      /* units: their layers in order; the last that recomputes */
    int *buf, *refs;              /* storages: their gradient tensor; tensors: holders */
    sm_checkpoint_effect *effect; /* layers: what checkpointing does to each */
    double *grad_size;            /* tensors: bytes */
    int *done_at;                 /* storages: the forward layer after which it is not held */
    double *freed;                /* layers: bytes of storages done after it (forward) */
} training_scratch;

/* The gradients of activations in the backward pass (the weights' are counted apart), as
 * autograd makes them: one tensor per storage, made by the backward pass of the last layer
 * that reads the storage, summed into by the earlier readers (in place into whichever of the
 * two nothing else holds, else into a new one: torch's InputBuffer), and freed once the layer
 * that made the storage has run its backward pass. */
typedef struct grads {
    int *buf, *refs;
    double *size;
    int n;       /* tensors made */
    double live; /* bytes of the tensors held */
} grads;

static int grad_new(grads *g, double bytes)
{
    g->size[g->n] = bytes;
    g->refs[g->n] = 1;
    g->live += bytes;
    return g->n++;
}

static void grad_drop(grads *g, int t)
{
    if (t >= 0 && --g->refs[t] == 0)
        g->live -= g->size[t];
}

/* Adds tensor t (its one reference handed over) into storage s's gradient; returns the bytes
 * made anew. */
static double grad_add(grads *g, int s, int t, double bytes)
{
    int a = g->buf[s];
    if (a < 0) {
        g->buf[s] = t;
        return 0;
    }
    if (g->refs[a] == 1 || g->refs[t] == 1) {
        g->buf[s] = g->refs[a] == 1 ? a : t;
        grad_drop(g, g->refs[a] == 1 ? t : a);
        return 0;
    }
    g->buf[s] = grad_new(g, bytes);
    grad_drop(g, a), grad_drop(g, t);
    return bytes;
}

/* Whether layer l's backward pass hands its inputs its output's gradient itself: a view, a
 * residual sum, and a layer whose output is its input that launches nothing backward (the
 * identity: dropout at p = 0, which PyTorch returns as its input). An in-place layer that
 * computes (ReLU) makes its input's gradient anew. */
static int passes_gradient(const sm_layer *l)
{
    return (l->type->traits & (SM_TRAIT_VIEW | SM_TRAIT_RESIDUAL)) != 0 ||
           (l->saved.aliases_input && l->m.kernels_bwd == 0);
}

/* Layer i's backward pass: it takes its output's gradient and hands its inputs theirs (passed
 * on, or made anew). Returns the bytes it makes. */
static double backward_layer(const sm_network *net, const int *owner, const char *needs, int i,
                             grads *g, double batch, const sm_memory_config *c)
{
    const sm_layer *l = &net->layers[i];
    int out = g->buf[owner[i]], pass = passes_gradient(l);
    double made = 0;
    g->buf[owner[i]] = -1;
    for (int k = 0; out >= 0 && k < l->n_inputs; k++) {
        int s = sm_storage_of(owner, l->inputs[k]);
        if (!needs[s])
            continue;
        double bytes = storage_size(net, s, batch, c);
        int t = pass ? (g->refs[out]++, out) : grad_new(g, bytes);
        made += (pass ? 0 : bytes) + grad_add(g, s, t, bytes);
    }
    grad_drop(g, out);
    return made;
}

/* Unit u's recomputation in the backward pass (checkpointed): what its recomputed layers keep
 * of their own, and its storages that nothing up to its last recomputed layer keeps, each
 * freed after the backward pass of the first of the unit's layers that keeps it. Returns the
 * bytes made. */
static double recompute_unit(const sm_network *net, const int *owner, int u, training_scratch *w,
                             double batch, const sm_memory_config *c)
{
    int last = w->last[u];
    double made = 0;
    for (int i = w->head[u]; i >= 0 && i <= last; i = w->next[i]) {
        const sm_layer *l = &net->layers[i];
        sm_checkpoint_effect e = w->effect[i];
        if (e == SM_KEEPS_ALL)
            continue;
        double own = keep_layer(net, owner, i, w->redo, batch, c);
        if (e != SM_RECOMPUTES_ALL) /* what it kept is held already */
            own -= keep_selected(net, owner, i, e, w->redo, batch, c);
        w->release[i] += own, made += own;
        for (int k = -1; k < l->n_inputs; k++) {
            int s = k < 0 ? owner[i] : sm_storage_of(owner, l->inputs[k]);
            if (w->redo[s] == 1 && w->made_at[s] < 0)
                w->made_at[s] = i;
        }
    }
    for (int i = w->head[u]; i >= 0 && i <= last; i = w->next[i])
        for (int k = -1; k < net->layers[i].n_inputs; k++) {
            int s = k < 0 ? owner[i] : sm_storage_of(owner, net->layers[i].inputs[k]);
            if (w->redo[s] == 1 && !(w->kept[s] && w->first[s] <= last)) {
                double bytes = storage_size(net, s, batch, c);
                w->release[w->made_at[s]] += bytes, made += bytes;
            }
            w->redo[s] = 0, w->made_at[s] = -1;
        }
    return made;
}

/* Training's forward pass, layer by layer: what is kept so far (alive[i], the prefix sums,
 * from the first layer that keeps a storage) and the storages held only until their last
 * reader, or until the first layer that keeps them (the network's input among them). A
 * network that keeps little, whose input or an early tensor is large (a global pool over a
 * large image), peaks here, not in the backward pass: priced from the backward pass alone,
 * training took less memory than inference. */
static double forward_peak(const sm_network *net, const int *owner, training_scratch *w,
                           double batch, const sm_memory_config *c)
{
    int n = net->n_layers;
    for (int s = 0; s <= n; s++)
        w->done_at[s] = s - 1; /* no reader: freed once made (the input: before layer 0) */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < net->layers[i].n_inputs; k++) {
            int s = sm_storage_of(owner, net->layers[i].inputs[k]);
            if (i > w->done_at[s])
                w->done_at[s] = i;
        }
    for (int i = 0; i < n; i++)
        w->freed[i] = 0;
    double live = 0, peak = 0;
    for (int s = 0; s <= n; s++) {
        /* a kept storage is in alive[] from its first keeper on: held apart until then */
        if (w->kept[s])
            w->done_at[s] = w->first[s] - 1;
        /* a view's layer makes no storage; one kept from the layer that makes it (the
         * input: by layer 0) is in alive[] throughout */
        if ((s > 0 && owner[s - 1] != s) || w->done_at[s] < s - 1 || w->done_at[s] < 0)
            continue;
        if (s == 0) /* made before the first layer */
            live += storage_size(net, 0, batch, c);
        w->freed[w->done_at[s]] += storage_size(net, s, batch, c);
    }
    for (int i = 0; i < n; i++) {
        int s = i + 1;
        if (owner[i] == s && w->done_at[s] >= i)
            live += storage_size(net, s, batch, c);
        peak = fmax(peak, w->alive[i] + live);
        live -= w->freed[i];
    }
    return peak;
}

/* Which storages autocast leaves in fp32 (fp32[s]): a layer it runs in fp32 (a norm) makes
 * one, so does an embedding, which runs in its fp32 weight's type; a product or convolution
 * makes a 16-bit one; another layer with fp32 parameters of its own (ViT's class token and
 * position embedding, ConvNeXt's layer scale, Llama's RMSNorm weight) promotes to fp32, as
 * PyTorch's type promotion does, but a batch norm returns its input's type (cuDNN's); any
 * other layer promotes its inputs, so that an addition of a 16-bit branch to an fp32 stream is
 * fp32 (GPT-2's, BERT's and Llama's residual stream under torch.autocast, whose block inputs
 * torch.utils.checkpoint keeps at 4 bytes an element). A view or in-place layer
 * leaves its storage's type. The network's input is counted at the activations' size, as
 * before. Cast models (autocast 0) hold no fp32 activation. training_peak clears the storages
 * a layer autocast runs in fp32 keeps whole, whose fp32 copy keep_layer counts already. */
static void fp32_storages(const sm_network *net, const int *owner, const sm_memory_config *c,
                          char *fp32)
{
    memset(fp32, 0, (size_t)net->n_layers + 1);
    if (!c->half || !c->autocast)
        return;
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        if (owner[i] != i + 1)
            continue; /* its input's storage, and its type */
        uint32_t t = l->type->traits;
        int any = 0;
        for (int k = 0; k < l->n_inputs; k++)
            any |= fp32[sm_storage_of(owner, l->inputs[k])];
        if (sm_layer_autocast_fp32(l, c->autocast) || (t & SM_TRAIT_EMBEDDING))
            fp32[i + 1] = 1;
        else if (l->m.matmul_flops > 0 || (t & (SM_TRAIT_MATMUL | SM_TRAIT_CONVOLUTION |
                                                SM_TRAIT_ATTENTION | SM_TRAIT_RECURRENT)))
            fp32[i + 1] = 0;
        else if (l->m.weights > 0 && !(t & SM_TRAIT_BATCH_STATISTICS))
            fp32[i + 1] = 1;
        else
            fp32[i + 1] = (char)any;
    }
}

/* Training: the unique storages kept at the end of the forward pass, and what layers keep of
 * their own. Checkpointed, a unit's recomputed layers keep nothing (a layer kept in part, what
 * it declares), and the unit keeps its inputs (the storages its layers read that are made
 * outside it). The backward pass then runs the layers in reverse: autograd frees what a layer
 * keeps after the layer's backward pass (first[s]: the first layer that keeps storage s;
 * alive[i]: what is still held during layer i's), the gradients of activations come and go
 * (grads), a checkpointed unit's tensors are made again when its backward pass starts and
 * freed as it goes, and a layer's backward pass allocates beside them the larger of its own
 * scratch (a loss's fp32 gradients) and its inputs' new gradients. The peak is the most held
 * at once. */
static double training_peak(const sm_network *net, const int *owner, const int *unit,
                            training_scratch *w, double batch, const sm_memory_config *c,
                            double *kept)
{
    int n = net->n_layers;
    memset(w->kept, 0, (size_t)n + 1);
    memset(w->unit_input, 0, (size_t)n + 1);
    fp32_storages(net, owner, c, w->fp32);
    for (int s = 0; s <= n; s++)
        w->first[s] = n;
    w->needs[0] = 0;
    for (int i = 0; i < n; i++) {
        const sm_layer *l = &net->layers[i];
        sm_checkpoint_effect e = w->effect[i];
        w->alive[i] = 0;
        if (e == SM_KEEPS_ALL) {
            w->alive[i] = keep_layer(net, owner, i, w->kept, batch, c);
            /* its inputs' fp32 copies are counted there: not again as a unit's inputs */
            for (int k = 0; k < l->n_inputs && sm_layer_autocast_fp32(l, c->autocast); k++)
                if (keeps_input(l, k))
                    w->fp32[sm_storage_of(owner, l->inputs[k])] = 0;
        } else if (e != SM_RECOMPUTES_ALL)
            w->alive[i] = keep_selected(net, owner, i, e, w->kept, batch, c);
        int needs = l->m.weights > 0;
        for (int k = 0; k < l->n_inputs; k++) {
            int s = sm_storage_of(owner, l->inputs[k]);
            if (unit[i] >= 0 && c->checkpoint != SM_CHECKPOINT_NONE &&
                (s == 0 || unit[s - 1] != unit[i]))
                w->kept[s] = w->unit_input[s] = 1;
            if (w->kept[s] && w->first[s] == n)
                w->first[s] = i;
            needs |= w->needs[s];
        }
        if (w->kept[owner[i]] && w->first[owner[i]] == n)
            w->first[owner[i]] = i;
        w->needs[owner[i]] = (char)(owner[i] == i + 1 ? needs : needs | w->needs[owner[i]]);
    }
    if (n == 0)
        return *kept = storage_size(net, 0, batch, c);
    /* the network's output lives until the loss has read it, whoever saves it: to the
     * backward pass of the layer that made it, so that a last view or identity of it (a head
     * replaced by nn.Identity) changes nothing */
    int out = owner[n - 1];
    w->kept[out] = 1;
    if (w->first[out] == n)
        w->first[out] = out > 0 ? out - 1 : n - 1;
    for (int s = 0; s <= n; s++)
        if (w->kept[s])
            w->alive[w->first[s]] +=
                storage_size(net, s, batch, c) * (w->unit_input[s] && w->fp32[s] ? 2 : 1);
    for (int i = 1; i < n; i++)
        w->alive[i] += w->alive[i - 1];
    /* each checkpointed unit's layers in order, and the last that it recomputes */
    for (int u = 0; u < net->n_blocks; u++)
        w->head[u] = -1, w->last[u] = -1;
    for (int i = n - 1; i >= 0; i--) {
        int u = unit[i];
        w->release[i] = 0;
        if (u < 0 || c->checkpoint == SM_CHECKPOINT_NONE)
            continue;
        w->next[i] = w->head[u], w->head[u] = i;
        if (w->last[u] < 0 && w->effect[i] != SM_KEEPS_ALL)
            w->last[u] = i;
    }
    /* the loss makes the output's gradient before the last layer's backward pass (a language
     * model's logits, B x S x V, where no loss layer is written) */
    grads g = {w->buf, w->refs, w->grad_size, 0, 0};
    for (int s = 0; s <= n; s++)
        g.buf[s] = -1;
    g.buf[out] = grad_new(&g, storage_size(net, out, batch, c));
    double peak = *kept = w->alive[n - 1], recomputed = 0;
    peak = fmax(peak, forward_peak(net, owner, w, batch, c));
    for (int i = n - 1; i >= 0; i--) {
        if (unit[i] >= 0 && w->last[unit[i]] == i) {
            recomputed += recompute_unit(net, owner, unit[i], w, batch, c);
            peak = fmax(peak, w->alive[i] + recomputed + g.live);
        }
        double before = g.live;
        double made = backward_layer(net, owner, w->needs, i, &g, batch, c);
        double scratch = batch * (double)net->layers[i].saved.backward_bytes;
        peak = fmax(peak, w->alive[i] + recomputed + before + fmax(made, scratch));
        recomputed -= w->release[i];
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

/* Scratch of one inference count: per storage its readers left, the layer its module call
 * holds it to, and the next storage whose hold ends at the same layer; per layer the first. */
typedef struct inference_scratch {
    int *readers, *hold, *next, *at;
} inference_scratch;

/* One reader of storage s is done: the bytes freed, where it was the last. */
static double read_done(const sm_network *net, int *readers, int s, double batch,
                        const sm_memory_config *c)
{
    return --readers[s] == 0 ? storage_elems(net, s) * batch * storage_elem_bytes(net, s, c) : 0;
}

/* Inference: the most bytes alive at once, running the layers in order. A storage is made by
 * its layer and freed after the last layer that reads it or, where a module call holds it
 * (hold[], module_scopes.c), after that call's last layer, whichever is later; the network's
 * output stays; a layer's own tensors live while it runs. at[i] lists the storages whose hold
 * ends at layer i (next[] chains them). */
static double live_peak(const sm_network *net, const int *owner, inference_scratch *w, double batch,
                        const sm_memory_config *c)
{
    double act = c->half ? 2 : 4;
    int n = net->n_layers, *readers = w->readers;
    memset(readers, 0, ((size_t)n + 1) * sizeof *readers);
    for (int i = 0; i < n; i++) {
        w->at[i] = -1;
        for (int k = 0; k < net->layers[i].n_inputs; k++)
            readers[sm_storage_of(owner, net->layers[i].inputs[k])]++;
    }
    for (int s = 0; s <= n; s++)
        if (w->hold[s] >= 0) /* the call is one more reader, at its last layer */
            readers[s]++, w->next[s] = w->at[w->hold[s]], w->at[w->hold[s]] = s;
    if (n > 0)
        readers[owner[n - 1]]++; /* the output is kept */
    double live = storage_elems(net, 0) * batch * storage_elem_bytes(net, 0, c), peak = live;
    for (int i = 0; i < n; i++) {
        const sm_layer *l = &net->layers[i];
        if (owner[i] == i + 1)
            live += storage_elems(net, i + 1) * batch * storage_elem_bytes(net, i + 1, c);
        double during = live + batch * (own_elems(l, c, 0) * act + softmax_fp32_bytes(l, c, 0));
        peak = fmax(peak, during);
        for (int k = 0; k < l->n_inputs; k++)
            live -= read_done(net, readers, sm_storage_of(owner, l->inputs[k]), batch, c);
        for (int s = w->at[i]; s >= 0; s = w->next[s])
            live -= read_done(net, readers, s, batch, c);
        /* what the pass returns besides its output (a causal LM's keys and values) */
        live += batch * (double)l->saved.infer_kept_elems * act;
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

static void inference_free(inference_scratch *r)
{
    free(r->readers), free(r->hold), free(r->next), free(r->at);
}

static void scratch_free(training_scratch *w)
{
    free(w->kept), free(w->redo), free(w->needs), free(w->first), free(w->made_at);
    free(w->alive), free(w->release), free(w->head), free(w->next), free(w->last);
    free(w->buf), free(w->refs), free(w->grad_size), free(w->effect);
    free(w->done_at), free(w->freed), free(w->fp32), free(w->unit_input);
}

/* -1 when out of memory. Gradient tensors: the output's, and per input of a layer its new
 * gradient and the sum it may make. */
static int scratch_alloc(const sm_network *net, const int *unit, sm_checkpoint c,
                         training_scratch *w)
{
    w->effect = sm_checkpoint_effects(net, unit, c);
    size_t n = (size_t)net->n_layers + 1, units = (size_t)net->n_blocks + 1, tensors = 1;
    for (int i = 0; i < net->n_layers; i++)
        tensors += 2 * (size_t)net->layers[i].n_inputs;
    w->kept = malloc(n), w->needs = malloc(n), w->redo = calloc(n, 1);
    w->fp32 = malloc(n), w->unit_input = malloc(n);
    w->first = malloc(n * sizeof *w->first), w->made_at = malloc(n * sizeof *w->made_at);
    w->alive = malloc(n * sizeof *w->alive), w->release = malloc(n * sizeof *w->release);
    w->head = malloc(units * sizeof *w->head), w->last = malloc(units * sizeof *w->last);
    w->next = malloc(n * sizeof *w->next), w->buf = malloc(n * sizeof *w->buf);
    w->refs = malloc(tensors * sizeof *w->refs);
    w->grad_size = malloc(tensors * sizeof *w->grad_size);
    w->done_at = malloc(n * sizeof *w->done_at), w->freed = malloc(n * sizeof *w->freed);
    if (!w->kept || !w->needs || !w->redo || !w->fp32 || !w->unit_input || !w->first ||
        !w->made_at || !w->alive || !w->release || !w->head || !w->last || !w->next || !w->buf ||
        !w->refs || !w->grad_size || !w->done_at || !w->freed)
        return -1;
    for (size_t s = 0; s < n; s++)
        w->made_at[s] = -1;
    return 0;
}

int sm_network_memory(const sm_network *net, int64_t batch, int64_t devices, int training,
                      const sm_memory_config *c, sm_memory *out, sm_status *st)
{
    if (!net || !c || !out)
        return sm_null_arg(st, __func__, !net ? "net" : !c ? "c" : "out");
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
    /* and its sizes as any double: a NaN capacity was "not known" to memory (fits -1) but a
     * largest batch of 0 to sm_network_max_batch; a NaN workspace made every batch not fit */
    const double sizes[] = {c->mask_bytes, c->workspace_bytes, c->conv_workspace_bytes,
                            c->context_bytes, c->capacity_bytes};
    static const char *const size_names[] = {
        "mask_bytes", "workspace_bytes", "conv_workspace_bytes", "context_bytes", "capacity_bytes"};
    for (int k = 0; k < 5; k++)
        if (!(sizes[k] >= 0) || !isfinite(sizes[k]))
            return sm_fail(st,
                           "memory configuration: %s = %g: expected a finite size of at least 0",
                           size_names[k], sizes[k]);
    sm_metrics total;
    if (sm_network_metrics(net, 1, &total, st))
        return -1;
    if (training && sm_shard_check(c->shard, devices, st))
        return -1;
    if (training && sm_checkpoint_check(net, c->checkpoint, st))
        return -1;
    size_t n_storages = (size_t)net->n_layers + 1;
    int *owner = malloc(n_storages * sizeof *owner);
    int *unit = sm_checkpoint_units(net);
    training_scratch w = {0}; /* training's scratch, or inference's */
    inference_scratch r = {0};
    if (owner)
        find_owners(net, owner);
    if (owner && !training) {
        r.readers = malloc(n_storages * sizeof *r.readers);
        r.next = malloc(n_storages * sizeof *r.next);
        r.at = malloc(n_storages * sizeof *r.at);
        r.hold = sm_module_holds(net, owner);
    }
    if (!owner || !unit ||
        (training ? scratch_alloc(net, unit, c->checkpoint, &w)
                  : !r.readers || !r.next || !r.at || !r.hold)) {
        free(owner), free(unit), scratch_free(&w), inference_free(&r);
        return sm_fail(st, "%s: out of memory counting its memory", net->name);
    }
    double weights = (double)total.weights, n = (double)devices, largest = 0;
    for (int i = 0; i < net->n_layers; i++)
        largest = fmax(largest, (double)net->layers[i].m.weights);
    /* a cast model's parameters at 16 bits beside fp32 master weights that the optimizer
     * keeps (Megatron: 2 + 4 + 12 bytes a parameter with Adam, 6 + 12/d with its state
     * sharded over d, its user guide's "float16 param, fp32 grads"); AMP's fp32 parameters */
    double param = c->param_bytes > 0 ? c->param_bytes : 4;
    double grad = c->grad_is_bucket && c->grad_bytes > 0 ? c->grad_bytes : 4;
    out->weights = param * weights;
    if (training) {
        sm_shard shard = c->shard;
        /* DDP's buckets are a copy of the gradients on more than one device, unless the
         * gradients are kept in the buckets themselves */
        out->gradients = grad * weights * (devices > 1 && !c->grad_is_bucket ? 2 : 1);
        out->optimizer =
            4 * weights *
            (optimizer_states[sm_memory_optimizer(c, net)] + (c->master_in_optimizer ? 1 : 0)) /
            (shard ? n : 1);
        /* reduce-scattered gradients need no bucket copy; one layer's whole gradient exists
         * until it is reduced */
        if (shard >= SM_SHARD_GRADIENTS)
            out->gradients = grad * (weights / n + largest);
        /* FSDP gathers by unit (bf16 under MixedPrecision): the root's weights from the
         * forward pass to the end of the backward pass, a block's while the next one's gather
         * is in flight (the time model's units: predictor_device.c); each device keeps its
         * shard of the parameters as stored (a cast model's 16-bit ones beside the master
         * copy its optimizer holds, AMP's fp32 ones) */
        if (shard == SM_SHARD_FULL)
            out->weights = param * weights / n + gathered_units(net, unit) * (c->half ? 2 : 4);
        double peak = training_peak(net, owner, unit, &w, (double)batch, c, &out->activations);
        out->backward = peak - out->activations;
    } else {
        out->activations = live_peak(net, owner, &r, (double)batch, c);
    }
    free(owner), free(unit), scratch_free(&w), inference_free(&r);
    /* cuDNN's convolution workspace is taken only by a network that runs convolutions */
    out->workspace =
        c->workspace_bytes +
        (sm_network_has_trait(net, SM_TRAIT_CONVOLUTION) ? c->conv_workspace_bytes : 0);
    out->context = c->context_bytes;
    /* whole bytes, so that the parts printed add up to the peak (a sharded 4W/N is not whole) */
    double *parts[] = {&out->weights,  &out->gradients, &out->optimizer, &out->activations,
                       &out->backward, &out->workspace, &out->context};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
        *parts[k] = ceil(*parts[k]);
    out->peak = out->weights + out->gradients + out->optimizer + out->activations + out->backward +
                out->workspace;
    out->capacity = c->capacity_bytes;
    out->fits = c->capacity_bytes > 0 ? out->peak + out->context <= c->capacity_bytes : -1;
    return 0;
}

int sm_network_max_batch(const sm_network *net, int64_t devices, int training,
                         const sm_memory_config *c, int64_t *out, sm_status *st)
{
    if (!net || !c || !out)
        return sm_null_arg(st, __func__, !net ? "net" : !c ? "c" : "out");
    *out = 0;
    if (c->capacity_bytes == 0) /* else sm_network_memory refuses it, below zero or NaN */
        return sm_fail(st, "the device's memory is not known: give [device] memory_gib in its "
                           "description");
    /* memory grows with the batch: the largest batch that fits, by bisection */
    int64_t lo = 0, hi = SM_MAX_BATCH_SEARCHED;
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
    if (lo < SM_MAX_BATCH_SEARCHED)
        return 0;
    sm_fail(st, "every per-device batch up to %lld fits in the device's %.1f GiB",
            (long long)SM_MAX_BATCH_SEARCHED, c->capacity_bytes / 1073741824.0);
    return SM_MAX_BATCH_UNBOUNDED;
}
