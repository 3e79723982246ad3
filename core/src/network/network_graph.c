/* From draft to network: resolve input names, order the layers so each follows its inputs
 * (refusing cycles), then let each layer's plugin parse its parameters, infer its output shape
 * and count its cost. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "network/network_internal.h"
#include "util/fnv.h"

#define MAX_DIM (INT64_C(1) << 40)

/* Name -> draft index, open addressing. */
typedef struct name_map {
    int *slots;
    size_t cap;
    const draft_network *d;
} name_map;

/* FNV-1a from 1469598103934665603, FNV's offset basis short of its last digit: it has always
 * started there, and a table's probing does not care which start it has. */
static uint64_t hash(const char *s) { return sm_fnv1a_str(UINT64_C(1469598103934665603), s); }

static int map_find(const name_map *m, const char *name)
{
    for (size_t i = hash(name) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        int idx = m->slots[i];
        if (idx < 0 || strcmp(m->d->layers[idx].name, name) == 0)
            return idx;
    }
}

/* Fills the map; a name given twice is an error. */
static int map_build(name_map *m, const draft_network *d, sm_status *st)
{
    m->d = d;
    m->cap = 16;
    while (m->cap < 2 * (size_t)d->n_layers)
        m->cap *= 2;
    m->slots = malloc(m->cap * sizeof *m->slots);
    if (!m->slots)
        return sm_fail(st, "out of memory");
    memset(m->slots, 0xff, m->cap * sizeof *m->slots);
    for (int k = 0; k < d->n_layers; k++) {
        const char *name = d->layers[k].name;
        size_t i = hash(name) & (m->cap - 1);
        for (; m->slots[i] >= 0; i = (i + 1) & (m->cap - 1))
            if (strcmp(d->layers[m->slots[i]].name, name) == 0)
                return sm_fail(st, "%s:%d: layer name %s is already used at line %d", d->path,
                               d->layers[k].line, name, d->layers[m->slots[i]].line);
        m->slots[i] = k;
    }
    return 0;
}

static int where(const draft_network *d, const draft_layer *l, char *buf, size_t len)
{
    if (l->block_line)
        return snprintf(buf, len, "%s:%d (block at line %d): layer %s", d->path, l->line,
                        l->block_line, l->name);
    return snprintf(buf, len, "%s:%d: layer %s", d->path, l->line, l->name);
}

static int block_input(const draft_network *d, const name_map *m, const draft_block *b, int *out,
                       const char *at, sm_status *st)
{
    if (!b->in_name) {
        *out = b->in_index;
        return 0;
    }
    if (strcmp(b->in_name, "@input") == 0) {
        *out = SM_NETWORK_INPUT;
        return 0;
    }
    *out = map_find(m, b->in_name);
    if (*out < 0)
        return sm_fail(st, "%s:%d: block %s: from = %s names no layer (needed by %s)", d->path,
                       b->line, b->name, b->in_name, at);
    return 0;
}

/* The draft indices of one layer's inputs. */
static int resolve_inputs(const draft_network *d, const name_map *m, int k, int *in, sm_status *st)
{
    const draft_layer *l = &d->layers[k];
    const draft_block *b = &d->blocks[l->block];
    char at[4200];
    where(d, l, at, sizeof at);
    int first_of_block = k == 0 || d->layers[k - 1].block != l->block;
    if (l->n_from == 0) {
        if (first_of_block)
            return block_input(d, m, b, &in[0], at, st);
        in[0] = l->prev;
        return 0;
    }
    for (int j = 0; j < l->n_from; j++) {
        const char *name = l->from[j];
        if (strcmp(name, "@input") == 0) {
            in[j] = SM_NETWORK_INPUT;
        } else if (strcmp(name, "@in") == 0) {
            if (!l->scope)
                return sm_fail(st, "%s: @in used outside a block", at);
            if (block_input(d, m, b, &in[j], at, st))
                return -1;
        } else {
            in[j] = -2;
            if (l->scope) {
                char full[1024];
                snprintf(full, sizeof full, "%s.%s", l->scope, name);
                in[j] = map_find(m, full);
            }
            if (in[j] < 0)
                in[j] = map_find(m, name);
            if (in[j] < 0)
                return sm_fail(st, "%s: input '%s' names no layer", at, name);
        }
        if (in[j] == k)
            return sm_fail(st, "%s: takes its own output as input (a cycle)", at);
    }
    return 0;
}

/* Describes a cycle among the layers not yet placed, starting from start. */
static int report_cycle(const draft_network *d, int **inputs, const int *n_in, const char *placed,
                        int start, sm_status *st)
{
    int *seen = calloc((size_t)d->n_layers, sizeof *seen);
    int k = start, step = 1;
    while (!seen[k]) { /* walk unplaced inputs until a layer repeats: it lies on the cycle */
        seen[k] = step++;
        int next = -1;
        for (int j = 0; j < n_in[k] && next < 0; j++)
            if (inputs[k][j] >= 0 && !placed[inputs[k][j]])
                next = inputs[k][j];
        k = next;
    }
    char path[2048];
    int used = snprintf(path, sizeof path, "%s", d->layers[k].name);
    for (int c = k, guard = 0; guard < d->n_layers; guard++) {
        int next = -1;
        for (int j = 0; j < n_in[c] && next < 0; j++)
            if (inputs[c][j] >= 0 && !placed[inputs[c][j]])
                next = inputs[c][j];
        c = next;
        if (used > 0 && (size_t)used < sizeof path)
            used += snprintf(path + used, sizeof path - (size_t)used, " <- %s", d->layers[c].name);
        if (c == k)
            break;
    }
    free(seen);
    return sm_fail(st, "%s:%d: layers form a cycle: %s", d->path, d->layers[k].line, path);
}

/* A binary min-heap of layer indices: the ready layer that comes first in the file. */
typedef struct index_heap {
    int *v;
    int n;
} index_heap;

static void heap_push(index_heap *h, int x)
{
    int i = h->n++;
    for (; i > 0 && h->v[(i - 1) / 2] > x; i = (i - 1) / 2)
        h->v[i] = h->v[(i - 1) / 2];
    h->v[i] = x;
}

static int heap_pop(index_heap *h)
{
    int top = h->v[0], last = h->v[--h->n], i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= last)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

/* order[i] = the draft index of the i-th layer of an order where inputs come first; the file's
 * order is kept wherever it already works: of the layers whose inputs are all placed, the one
 * first in the file goes next. Kahn's algorithm over the consumers of each layer, so that the
 * time grows with the layers and edges (n log n), whatever order the file lists them in. */
static int order_layers(const draft_network *d, int **inputs, const int *n_in, int *order,
                        sm_status *st)
{
    int n = d->n_layers, edges = 0, rc = 0;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n_in[k]; j++)
            edges += inputs[k][j] >= 0;
    char *placed = calloc((size_t)n, 1);
    int *pending = calloc((size_t)n, sizeof *pending);
    int *first = calloc((size_t)n + 1, sizeof *first); /* consumers of k: next[first[k]..] */
    int *consumers = malloc(((size_t)edges + 1) * sizeof *consumers);
    index_heap ready = {malloc(((size_t)n + 1) * sizeof(int)), 0};
    if (!placed || !pending || !first || !consumers || !ready.v) {
        rc = sm_fail(st, "out of memory");
        goto done;
    }
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n_in[k]; j++)
            if (inputs[k][j] >= 0)
                first[inputs[k][j] + 1]++, pending[k]++;
    for (int k = 0; k < n; k++)
        first[k + 1] += first[k];
    {
        int *fill = calloc((size_t)n, sizeof *fill);
        if (!fill) {
            rc = sm_fail(st, "out of memory");
            goto done;
        }
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n_in[k]; j++)
                if (inputs[k][j] >= 0) {
                    int src = inputs[k][j];
                    consumers[first[src] + fill[src]++] = k;
                }
        free(fill);
    }
    for (int k = 0; k < n; k++)
        if (pending[k] == 0)
            heap_push(&ready, k);
    int placed_n = 0;
    while (ready.n) {
        int k = heap_pop(&ready);
        placed[k] = 1;
        order[placed_n++] = k;
        for (int e = first[k]; e < first[k + 1]; e++)
            if (--pending[consumers[e]] == 0)
                heap_push(&ready, consumers[e]);
    }
    if (placed_n < n) {
        int lo = 0;
        while (placed[lo])
            lo++;
        rc = report_cycle(d, inputs, n_in, placed, lo, st);
    }
done:
    free(placed), free(pending), free(first), free(consumers), free(ready.v);
    return rc;
}

static int check_shape(const sm_shape *s)
{
    if (s->ndim < 1 || s->ndim > SM_MAX_DIMS)
        return -1;
    for (int i = 0; i < s->ndim; i++)
        if (s->dim[i] < 1 || s->dim[i] > MAX_DIM)
            return -1;
    return sm_shape_elems(s) == SM_OVERFLOW ? -1 : 0;
}

static int metrics_overflow(const sm_layer_metrics *m)
{
    return m->flops == SM_OVERFLOW || m->macs == SM_OVERFLOW || m->weights == SM_OVERFLOW ||
           m->param_tensors == SM_OVERFLOW || m->input_elems == SM_OVERFLOW ||
           m->output_elems == SM_OVERFLOW || m->bytes == SM_OVERFLOW || m->bwd_flops == SM_OVERFLOW;
}

/* A count below zero is the plugin's error, never a size: it would subtract from memory and
 * time (activations of -1.5 GiB that "fit"). Named, so that its author finds it. */
static const char *metrics_negative(const sm_layer_metrics *m)
{
    const struct {
        const char *name;
        int64_t v;
    } c[] = {{"flops", m->flops},
             {"macs", m->macs},
             {"bwd_flops", m->bwd_flops},
             {"weights", m->weights},
             {"param_tensors", m->param_tensors},
             {"input_elems", m->input_elems},
             {"output_elems", m->output_elems},
             {"bytes", m->bytes}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (c[i].v < 0)
            return c[i].name;
    return NULL;
}

/* A plugin's reason for refusing, or where it gave none, that its plugin (path) failed in
 * callback without one: a bare "inputs do not fit" read as the host's finding. Its text is the
 * plugin's: ended here, since a plugin may fill msg to the last byte without a NUL. */
static const char *plugin_reason(sm_error *e, const char *path, const char *callback, char *buf,
                                 size_t len)
{
    e->msg[sizeof e->msg - 1] = '\0';
    if (e->msg[0])
        return e->msg;
    snprintf(buf, len,
             "%s failed in its %s without a message (it returned non-zero with err empty: give "
             "the reason with sm_error_set)",
             path ? path : "its plugin", callback);
    return buf;
}

/* What a plugin's call writes into, in the window (plugin_window.c): a copy of own's size
 * bytes against a page it cannot touch, or own itself where there is no window. from_plugin
 * takes the copy back. */
static void *to_plugin(sm_plugin_window *w, int slot, void *own, size_t size)
{
    void *p = sm_plugin_window_put(w, slot, own, size);
    return p ? p : own;
}

static void from_plugin(void *own, const void *p, size_t size)
{
    if (p != own)
        memcpy(own, p, size);
}

/* The parameters a layer's plugin reads, and its inputs' shapes, in the window. */
static size_t params_bytes(const sm_layer_type *t) { return t->params_size ? t->params_size : 1; }

static const void *plugin_params(sm_plugin_window *w, const sm_layer_type *t, const sm_layer *l)
{
    return to_plugin(w, SM_WINDOW_PARAMS, l->params, params_bytes(t));
}

static const sm_shape *plugin_inputs(sm_plugin_window *w, const sm_layer *l, sm_shape *in)
{
    return to_plugin(w, SM_WINDOW_INPUTS, in, (size_t)l->n_inputs * sizeof *in);
}

/* What the layer keeps for backward: the plugin's declaration, or the conservative default
 * (plugin.h). A declaration that names an input the layer does not have, or negative bytes,
 * is the plugin's error. */
static int layer_saved(sm_plugin_window *w, const sm_layer_type *t, sm_layer *l, sm_shape *in,
                       const char *at, const char *path, sm_status *st)
{
    char why[SM_ERROR_LEN + PATH_MAX];
    sm_layer_saved *s = &l->saved;
    memset(s, 0, sizeof *s);
    if (!t->saved) {
        int view = (t->traits & SM_TRAIT_VIEW) != 0;
        s->inputs = view ? 0 : l->n_inputs >= 32 ? UINT32_MAX : (1u << l->n_inputs) - 1;
        s->output = !view;
        s->aliases_input = view;
        return 0;
    }
    sm_error e = {{0}};
    sm_error *pe = to_plugin(w, SM_WINDOW_ERROR, &e, sizeof e);
    sm_layer_saved *ps = to_plugin(w, SM_WINDOW_SAVED, s, sizeof *s);
    const sm_shape *pout = to_plugin(w, SM_WINDOW_SHAPE, &l->out, sizeof l->out);
    sm_plugin_callback("saved", w, t->params_size);
    int failed =
        t->saved(plugin_params(w, t, l), plugin_inputs(w, l, in), l->n_inputs, pout, ps, pe);
    from_plugin(s, ps, sizeof *s);
    from_plugin(&e, pe, sizeof e);
    if (failed)
        return sm_fail(st, "%s (%s): %s", at, t->name,
                       plugin_reason(&e, path, "saved", why, sizeof why));
    /* a plugin older than ABI 21 never wrote it: the host's zero stays */
    if (t->abi_version < 21)
        s->infer_kept_elems = 0;
    if (l->n_inputs < 32 && (s->inputs >> l->n_inputs))
        return sm_fail(st,
                       "%s (%s): the plugin's saved() keeps input %d (inputs 0x%x) of a layer "
                       "of %d input%s",
                       at, t->name, 31 - __builtin_clz(s->inputs), (unsigned)s->inputs, l->n_inputs,
                       l->n_inputs == 1 ? "" : "s");
    /* each count as bytes of one sample (elements at most 8 bytes: an fp32 activation, a
     * float mask at double width) must fit 64 bits, as the metrics' bytes do: past that, a
     * plugin's hand-made 2^62 printed an activation memory of 2.9e20 bytes */
    const struct {
        const char *name;
        int64_t v, lo_max; /* lo_max: a count it must not exceed (the one it is part of) */
        int elem;          /* bytes an element at most; 1 for bytes */
        const char *of;
    } c[] = {{"extra_elems", s->extra_elems, INT64_MAX, 8, NULL},
             {"mask_elems", s->mask_elems, INT64_MAX, 8, NULL},
             {"extra_bytes", s->extra_bytes, INT64_MAX, 1, NULL},
             {"extra_bytes_fixed", s->extra_bytes_fixed, INT64_MAX, 1, NULL},
             {"scores_elems", s->scores_elems, s->extra_elems, 8, "extra_elems"},
             {"scores_mask_elems", s->scores_mask_elems, s->mask_elems, 8, "mask_elems"},
             {"fused_bytes", s->fused_bytes, INT64_MAX, 1, NULL},
             /* what it keeps then of what it keeps of its own */
             {"selective_elems", s->selective_elems, s->extra_elems, 8, "extra_elems"},
             {"selective_bytes", s->selective_bytes, sm_add(s->extra_bytes, s->fused_bytes), 1,
              "extra_bytes and fused_bytes"},
             {"selective_flops", s->selective_flops, l->m.matmul_flops, 1, "matmul_flops"},
             {"backward_bytes", s->backward_bytes, INT64_MAX, 1, NULL},
             {"upcast_bytes", s->upcast_bytes, INT64_MAX, 1, NULL},
             {"infer_kept_elems", s->infer_kept_elems, INT64_MAX, 8, NULL}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        if (c[k].v < 0 || c[k].v >= SM_OVERFLOW / c[k].elem)
            return sm_fail(st, "%s (%s): the plugin's saved() declares %s %lld: %s", at, t->name,
                           c[k].name, (long long)c[k].v,
                           c[k].v < 0 ? "negative" : "its bytes a sample overflow 64 bits");
        if (c[k].v > c[k].lo_max)
            return sm_fail(st,
                           "%s (%s): the plugin's saved() declares %s %lld, more than its %s "
                           "%lld, of which it is part",
                           at, t->name, c[k].name, (long long)c[k].v, c[k].of,
                           (long long)c[k].lo_max);
    }
    s->output = s->output != 0;
    s->selective = s->selective != 0;
    s->selective_output = s->selective && s->selective_output != 0;
    s->aliases_input = s->aliases_input != 0 && l->n_inputs > 0;
    /* in place, the output is input 0's storage: it cannot hold more (a view, SM_TRAIT_VIEW,
     * may: an expand). More was its storage left out of the memory */
    if (s->aliases_input && !(t->traits & SM_TRAIT_VIEW) &&
        sm_shape_elems(&l->out) > sm_shape_elems(&in[0]))
        return sm_fail(st,
                       "%s (%s): the plugin's saved() says the output is input 0's storage (in "
                       "place), but it holds %lld elements to the input's %lld (a view that "
                       "does declares SM_TRAIT_VIEW)",
                       at, t->name, (long long)sm_shape_elems(&l->out),
                       (long long)sm_shape_elems(&in[0]));
    return 0;
}

/* What a layer's counts show its traits contradict (plugin.h), each priced as the trait says
 * and not as the layer is: a view (SM_TRAIT_VIEW: it only moves or aliases its input) that
 * computes; multiply-accumulates, matrix products' (2 FLOPs each) by plugin.h, that are not
 * all among matmul_flops, so priced at the vector peak; matrix products (SM_TRAIT_MATMUL, or
 * matmul_flops) of no multiply-accumulate, element-wise work priced on tensor cores. A plugin
 * of ABI 2 declares no traits and no matmul_flops: its products run at the vector peak, as
 * plugin-abi.md says. The shipped types with MACs declare SM_TRAIT_MATMUL (convolutions,
 * linear, lm_head, swiglu) or matmul_flops of twice them (attention, gqa_attention,
 * window_attention, the recurrent types). */
static int check_trait_counts(const sm_layer_type *t, const sm_layer_metrics *m, const char *at,
                              const char *path, sm_status *st)
{
    if ((t->traits & SM_TRAIT_VIEW) && m->flops > 0)
        return sm_fail(st,
                       "%s (%s): %s declares SM_TRAIT_VIEW, which only moves or aliases its "
                       "input, but its metrics give %lld FLOPs: a layer that computes is no view "
                       "(drop the trait, or count no FLOPs)",
                       at, t->name, path, (long long)m->flops);
    if (t->abi_version < 3)
        return 0;
    /* macs <= flops / 2 (checked before): twice them fits */
    if (m->macs > 0 && m->matmul_flops < 2 * m->macs)
        return sm_fail(st,
                       "%s (%s): %s counts %lld multiply-accumulates, matrix products of %lld "
                       "FLOPs, but %lld of its %lld FLOPs are matrix products (matmul_flops): "
                       "declare SM_TRAIT_MATMUL, or set matmul_flops to its products' FLOPs",
                       at, t->name, path, (long long)m->macs, (long long)(2 * m->macs),
                       (long long)m->matmul_flops, (long long)m->flops);
    if (m->matmul_flops > 0 && m->macs == 0)
        return sm_fail(st,
                       "%s (%s): %s says %lld of its FLOPs are matrix products (SM_TRAIT_MATMUL "
                       "or matmul_flops), but counts no multiply-accumulate (macs 0): count "
                       "them in macs, or drop SM_TRAIT_MATMUL (element-wise FLOPs run at the "
                       "vector peak)",
                       at, t->name, path, (long long)m->matmul_flops);
    return 0;
}

/* A pass launching more kernels than this is a plugin's mistake, not a layer. */
#define MAX_KERNELS 1000
/* a recurrence's two kernels a step, layer and direction: 2^40 is a million steps of a
 * thousand layers, both ways, many times over */
#define MAX_LIBRARY_KERNELS ((int64_t)1 << 40)
/* Element-wise passes over attention scores (a scale, a mask, a bias): a few, not dozens. */
#define MAX_SCORE_PASSES 16

/* A convolution's kernel positions per output and input channel: its MACs over its outputs
 * and the input channels a group reads (group_channels, or all of the first input's, its
 * first axis); 0 where it is no convolution or they do not divide (a plugin counting its
 * MACs some other way is priced as a k x k one). */
static int64_t conv_taps(const sm_layer_type *t, const sm_layer_metrics *m, const sm_shape *in)
{
    if (!(t->traits & SM_TRAIT_CONVOLUTION) || in->ndim < 1 || m->macs <= 0 || m->output_elems <= 0)
        return 0;
    int64_t per_group = m->group_channels > 0 ? m->group_channels : in->dim[0];
    if (per_group <= 0 || m->output_elems > INT64_MAX / per_group)
        return 0;
    int64_t reads = m->output_elems * per_group;
    return m->macs % reads == 0 ? m->macs / reads : 0;
}

/* A convolution's input channels per group and whether its weights hold a bias (one an output
 * channel beyond its kernel's), from what its plugin declares; nothing where kernel_taps did not
 * come out (no convolution, or MACs counted some other way). */
static void conv_channels(const sm_layer_metrics *m, const sm_shape *in, const sm_shape *out,
                          sm_layer *l)
{
    l->conv_channels = 0;
    l->conv_bias = 0;
    if (l->kernel_taps <= 0 || out->ndim < 1)
        return;
    int64_t per_group = m->group_channels > 0 ? m->group_channels : in->dim[0];
    int64_t outs = out->dim[0];
    l->conv_channels = per_group;
    /* taps x channels a group x output channels, and the bias, compared without overflow */
    if (outs <= 0 || per_group > INT64_MAX / l->kernel_taps)
        return;
    int64_t per_out = per_group * l->kernel_taps;
    l->conv_bias =
        per_out < INT64_MAX && m->weights % outs == 0 && m->weights / outs == per_out + 1;
}

/* The kernel counts of ABI 5 with their defaults (one per pass when the layer costs anything);
 * -1 when the plugin's are out of range or more run in training alone than forward. */
static int layer_kernels(sm_layer_metrics *m)
{
    int works = m->flops > 0 || m->bytes > 0 || m->weights > 0;
    if (m->kernels_fwd == 0)
        m->kernels_fwd = works;
    if (m->kernels_bwd == 0)
        m->kernels_bwd = works;
    return m->kernels_fwd < 0 || m->kernels_fwd > MAX_KERNELS || m->kernels_bwd < 0 ||
                   m->kernels_bwd > MAX_KERNELS || m->kernels_train_only < 0 ||
                   m->kernels_train_only > m->kernels_fwd
               ? -1
               : 0;
}

/* The steps of a contiguous tensor of shape s, in elements. */
static void contiguous_strides(const sm_shape *s, int64_t *strides)
{
    int64_t step = 1;
    for (int k = s->ndim - 1; k >= 0; k--) {
        strides[k] = step;
        step = sm_mul(step, s->dim[k]);
    }
}

/* Whether steps are those of a dense tensor of the shape in some order of its dims: each
 * dim's step is the product of the sizes of the dims inside it. */
static int permuted_steps(const sm_shape *s, const int64_t *steps)
{
    int used[SM_MAX_DIMS] = {0};
    int64_t step = 1;
    for (int n = 0; n < s->ndim; n++) {
        int k = -1;
        for (int j = 0; j < s->ndim; j++)
            if (!used[j] && steps[j] == step && (k < 0 || s->dim[j] != 1))
                k = j;
        if (k < 0)
            return 0;
        used[k] = 1;
        step = sm_mul(step, s->dim[k]);
    }
    return 1;
}

/* How layer l's output lies in memory (strides, per sample), given its first input's
 * (in_strides): a view's as its plugin says (ABI 12's view_strides; NULL, contiguous), a new
 * tensor's as its plugin says where it does (ABI 14: a convolution keeping its input's
 * channels-last layout), an element-wise function of one input's and a residual sum's as
 * their first input's (PyTorch's element-wise kernels write their output in their first
 * input's layout), any other layer's contiguous. 1 where the view copies: its input's layout
 * admits no view (a flatten after a permute). */
static int layer_strides(sm_plugin_window *w, const sm_layer_type *t, const sm_layer *l,
                         sm_shape *in, const int64_t *in_strides, int64_t *strides)
{
    contiguous_strides(&l->out, strides);
    if (l->n_inputs < 1)
        return 0;
    int view = (t->traits & SM_TRAIT_VIEW) != 0;
    if (t->view_strides && (view || t->abi_version >= 14)) {
        /* the strides the plugin writes, and its first input's, the shapes and the parameters
         * it reads, in the window */
        int64_t in_steps[SM_MAX_DIMS], written[SM_MAX_DIMS];
        memcpy(in_steps, in_strides, sizeof in_steps);
        memcpy(written, strides, sizeof written);
        int64_t *pw = to_plugin(w, SM_WINDOW_STRIDES, written, sizeof written);
        sm_plugin_callback("view_strides", w, t->params_size);
        int copies =
            t->view_strides(plugin_params(w, t, l), plugin_inputs(w, l, in),
                            to_plugin(w, SM_WINDOW_IN_STRIDES, in_steps, sizeof in_steps),
                            to_plugin(w, SM_WINDOW_SHAPE, (void *)&l->out, sizeof l->out), pw);
        from_plugin(written, pw, sizeof written);
        /* a view's layout is its plugin's word; a new tensor's must be a permutation of the
         * contiguous steps: anything else is not one the host can read, and stays contiguous */
        if (view || permuted_steps(&l->out, written))
            memcpy(strides, written, sizeof written);
        return view && copies ? 1 : 0;
    }
    int same =
        in->ndim == l->out.ndim && !memcmp(in->dim, l->out.dim, (size_t)in->ndim * sizeof *in->dim);
    if (same && (((t->traits & SM_TRAIT_ACTIVATION) && l->n_inputs == 1) ||
                 (t->traits & SM_TRAIT_RESIDUAL)))
        memcpy(strides, in_strides, (size_t)in->ndim * sizeof *strides);
    return 0;
}

/* The shapes of layer l's inputs, afresh before each call of its plugin: the plugin gets
 * them as const, and one that writes through them anyway (a cast) must not change what the
 * host counts or hands the next call. */
static void layer_inputs(const sm_network *net, const sm_layer *l, sm_shape *in)
{
    for (int j = 0; j < l->n_inputs; j++)
        in[j] = l->inputs[j] == SM_NETWORK_INPUT ? net->input : net->layers[l->inputs[j]].out;
}

/* Parses, infers and counts one layer whose inputs are already done. strides: every layer's
 * output's steps (layer_strides), this one's written here. */
static int infer_layer(sm_plugin_window *w, const draft_network *d, const draft_layer *dl,
                       sm_network *net, sm_layer *l, int64_t (*strides)[SM_MAX_DIMS], sm_status *st)
{
    char at[4200], err[SM_ERROR_LEN], why[SM_ERROR_LEN + PATH_MAX];
    where(d, dl, at, sizeof at);
    const sm_layer_type *t = dl->type;
    /* the plugin's file, for what only it can be blamed for */
    const char *so = sm_registry_type_path(d->registry, t);
    so = so ? so : "(a plugin outside the registry)";
    if (l->n_inputs < t->min_inputs || (t->max_inputs && l->n_inputs > t->max_inputs)) {
        char takes[48];
        if (!t->max_inputs)
            snprintf(takes, sizeof takes, "at least %d", t->min_inputs);
        else if (t->max_inputs == t->min_inputs)
            snprintf(takes, sizeof takes, "%d", t->min_inputs);
        else
            snprintf(takes, sizeof takes, "%d to %d", t->min_inputs, t->max_inputs);
        return sm_fail(st, "%s (%s): takes %s input%s, got %d", at, t->name, takes,
                       !t->max_inputs || t->max_inputs > 1 ? "s" : "", l->n_inputs);
    }
    /* --kv-cache: an attention layer's line with kv_cache=true, whatever it said */
    int injected = d->kv_cache && (t->traits & SM_TRAIT_ATTENTION);
    sm_kv kv[injected ? dl->n_kv + 1 : 1];
    int n_kv = dl->n_kv;
    if (injected) {
        static char key[] = "kv_cache", on[] = "true";
        int at_key = n_kv;
        for (int i = 0; i < dl->n_kv; i++) {
            kv[i] = dl->kv[i];
            if (!strcmp(kv[i].key, key))
                at_key = i;
        }
        kv[at_key] = (sm_kv){.key = key, .value = on};
        n_kv += at_key == n_kv;
    }
    host_args args;
    host_args_init(&args, injected ? kv : dl->kv, n_kv);
    l->params = calloc(1, t->params_size ? t->params_size : 1);
    if (!l->params) /* params_size is the plugin's word: name the layer and what it asked */
        return sm_fail(st,
                       "%s (%s): out of memory allocating the %zu bytes of parameters its "
                       "plugin declares",
                       at, t->name, t->params_size);
    void *params = to_plugin(w, SM_WINDOW_PARAMS, l->params, params_bytes(t));
    sm_plugin_callback("parse", w, t->params_size);
    t->parse(params, &args.base);
    from_plugin(l->params, params, params_bytes(t));
    if (host_args_finish(&args, err, sizeof err)) {
        if (injected && !strncmp(err, "unknown parameter kv_cache ", 27))
            return sm_fail(st,
                           "--kv-cache: %s (%s) returns no keys and values its plugin counts "
                           "(it takes no kv_cache parameter): %s",
                           at, t->name, err);
        return sm_fail(st, "%s (%s): %s", at, t->name, err);
    }

    sm_shape in[l->n_inputs];
    layer_inputs(net, l, in);
    sm_error e = {{0}};
    memset(&l->out, 0, sizeof l->out);
    sm_error *pe = to_plugin(w, SM_WINDOW_ERROR, &e, sizeof e);
    sm_shape *pout = to_plugin(w, SM_WINDOW_SHAPE, &l->out, sizeof l->out);
    sm_plugin_callback("infer", w, t->params_size);
    int failed = t->infer(plugin_params(w, t, l), plugin_inputs(w, l, in), l->n_inputs, pout, pe);
    from_plugin(&l->out, pout, sizeof l->out);
    from_plugin(&e, pe, sizeof e);
    if (failed)
        return sm_fail(st, "%s (%s): %s", at, t->name,
                       plugin_reason(&e, so, "infer", why, sizeof why));
    char shape[96];
    if (l->out.ndim < 1 || l->out.ndim > SM_MAX_DIMS) /* dim[] holds only SM_MAX_DIMS */
        return sm_fail(st,
                       "%s (%s): its plugin gave an output shape of %d dimensions (1 to %d "
                       "allowed)",
                       at, t->name, l->out.ndim, SM_MAX_DIMS);
    if (check_shape(&l->out))
        return sm_fail(st,
                       "%s (%s): its plugin %s gave the output shape %s, which is empty or too "
                       "large",
                       at, t->name, so, sm_shape_str(&l->out, shape, sizeof shape));
    layer_inputs(net, l, in); /* what a plugin wrote through its const shapes is not the input */
    sm_layer_metrics *m = &l->m;
    memset(m, 0, sizeof *m);
    for (int j = 0; j < l->n_inputs; j++)
        m->input_elems = sm_add(m->input_elems, sm_shape_elems(&in[j]));
    m->output_elems = sm_shape_elems(&l->out);
    m->bytes = sm_mul(4, sm_add(m->input_elems, m->output_elems));
    const int64_t shapes_in = m->input_elems, shapes_out = m->output_elems;
    if (t->metrics) {
        pe = to_plugin(w, SM_WINDOW_ERROR, &e, sizeof e);
        sm_layer_metrics *pm = to_plugin(w, SM_WINDOW_METRICS, m, sizeof *m);
        sm_plugin_callback("metrics", w, t->params_size);
        failed = t->metrics(plugin_params(w, t, l), plugin_inputs(w, l, in), l->n_inputs,
                            to_plugin(w, SM_WINDOW_SHAPE, &l->out, sizeof l->out), pm, pe);
        from_plugin(m, pm, sizeof *m);
        from_plugin(&e, pe, sizeof e);
        if (failed)
            return sm_fail(st, "%s (%s): %s", at, t->name,
                           plugin_reason(&e, so, "metrics", why, sizeof why));
    }
    layer_inputs(net, l, in);
    /* a view its input's layout admits none of copies (torch.flatten of a permuted tensor):
     * one kernel each pass (layer_kernels' default, or one more than the plugin's) reading
     * its input and writing a new tensor */
    int64_t contiguous[SM_MAX_DIMS];
    int from = l->inputs[0];
    if (l->n_inputs >= 1 && from == SM_NETWORK_INPUT)
        contiguous_strides(&net->input, contiguous);
    int l_index = (int)(l - net->layers);
    const int64_t *in_steps = from == SM_NETWORK_INPUT ? contiguous : strides[from];
    l->input_channels_last = l->n_inputs >= 1 && sm_steps_channels_last(&in[0], in_steps);
    int copies = layer_strides(w, t, l, in, in_steps, strides[l_index]);
    if (copies) {
        m->bytes = sm_add(m->bytes, sm_mul(4, sm_add(sm_shape_elems(&in[0]), m->output_elems)));
        m->kernels_fwd += m->kernels_fwd > 0;
        m->kernels_bwd += m->kernels_bwd > 0;
    }
    if (m->bwd_flops == 0) /* input gradient, plus the weight gradient where there are weights */
        m->bwd_flops = sm_mul(m->weights ? 2 : 1, m->flops);
    if (m->matmul_flops == 0 && (t->traits & SM_TRAIT_MATMUL))
        m->matmul_flops = m->flops;
    const char *negative = metrics_negative(m);
    if (negative)
        return sm_fail(st, "%s (%s): the plugin's %s is negative", at, t->name, negative);
    if (metrics_overflow(m))
        return sm_fail(st, "%s (%s): a count overflows 64 bits; sizes are too large", at, t->name);
    /* the host fills both from the shapes (plugin.h): a plugin that changed them had the memory
     * model size its output's storage by its word rather than the shape (an output 256 times
     * its input, kept, sized as one element) */
    if (m->output_elems != shapes_out || m->input_elems != shapes_in)
        return sm_fail(st,
                       "%s (%s): the plugin's metrics() set input_elems %lld and output_elems "
                       "%lld, where its shapes hold %lld and %lld (the host fills them; leave "
                       "them)",
                       at, t->name, (long long)m->input_elems, (long long)m->output_elems,
                       (long long)shapes_in, (long long)shapes_out);
    /* a multiply-accumulate is 2 FLOPs (plugin.h): more MACs than that is a plugin's slip,
     * which printed a network's macs above its FLOPs */
    if (m->macs > m->flops / 2)
        return sm_fail(st,
                       "%s (%s): the plugin's macs %lld are more than half its %lld FLOPs (a "
                       "multiply-accumulate counts 2)",
                       at, t->name, (long long)m->macs, (long long)m->flops);
    /* every weight is in a tensor, and a tensor holds at least one: 5 weights in no tensor
     * updated nothing (P, the optimizer's per-tensor term), 3 tensors of no weights cost it */
    if ((m->weights > 0 && m->param_tensors == 0) || m->param_tensors > m->weights)
        return sm_fail(st,
                       "%s (%s): the plugin's %lld weights cannot be in its %lld parameter "
                       "tensors",
                       at, t->name, (long long)m->weights, (long long)m->param_tensors);
    if (m->matmul_flops < 0 || m->matmul_flops > m->flops)
        return sm_fail(st, "%s (%s): the plugin's matmul_flops %lld is not within its %lld FLOPs",
                       at, t->name, (long long)m->matmul_flops, (long long)m->flops);
    if (check_trait_counts(t, m, at, so, st))
        return -1;
    if (m->scores_bytes < 0 || m->scores_bytes > m->bytes || m->scores_flops < 0 ||
        m->scores_flops > m->matmul_flops)
        return sm_fail(st,
                       "%s (%s): the plugin's scores_bytes or scores_flops is not within its "
                       "bytes or matmul_flops",
                       at, t->name);
    if (m->serial_bytes < 0 || m->serial_bytes > m->bytes - m->scores_bytes)
        return sm_fail(st,
                       "%s (%s): the plugin's serial_bytes %lld is not within its %lld bytes "
                       "(less its scores_bytes)",
                       at, t->name, (long long)m->serial_bytes,
                       (long long)(m->bytes - m->scores_bytes));
    if (m->scores_passes_fwd < 0 || m->scores_passes_fwd > MAX_SCORE_PASSES ||
        m->scores_passes_bwd < 0 || m->scores_passes_bwd > MAX_SCORE_PASSES)
        return sm_fail(st,
                       "%s (%s): the plugin's score passes (forward %d, backward %d) are not "
                       "within 0 to %d",
                       at, t->name, m->scores_passes_fwd, m->scores_passes_bwd, MAX_SCORE_PASSES);
    /* a plugin older than ABI 18 never wrote it: the host's zero stays */
    if (t->abi_version < 18)
        m->scores_broadcast_passes = 0;
    if (m->scores_broadcast_passes < 0 || m->scores_broadcast_passes > m->scores_passes_fwd)
        return sm_fail(st,
                       "%s (%s): the plugin's scores_broadcast_passes %lld is not within its %d "
                       "forward passes over the scores",
                       at, t->name, (long long)m->scores_broadcast_passes, m->scores_passes_fwd);
    /* a plugin older than ABI 19 never wrote them: the host's zeros stay */
    if (t->abi_version < 19)
        m->copy_elems_fwd = m->copy_elems_bwd = 0;
    /* each copy reads and writes its elements (4 bytes each as counted) among the bytes the
     * plugin's kernels move beside the scores and the serial bytes: forward those, backward
     * twice those (the host's backward traffic) */
    int64_t streamed = m->bytes - m->scores_bytes - m->serial_bytes;
    if (m->copy_elems_fwd < 0 || m->copy_elems_bwd < 0 || m->copy_elems_fwd > streamed / 8 ||
        m->copy_elems_bwd > streamed / 4)
        return sm_fail(st,
                       "%s (%s): the plugin's copy_elems_fwd %lld or copy_elems_bwd %lld is not "
                       "within its bytes (a read and a write of 4 bytes an element among the %lld "
                       "it streams forward, twice that backward)",
                       at, t->name, (long long)m->copy_elems_fwd, (long long)m->copy_elems_bwd,
                       (long long)streamed);
    /* a plugin older than ABI 20 never wrote it: the host's zero stays */
    if (t->abi_version < 20)
        m->bias_grad_elems = 0, m->bias_grad_sums = 0;
    /* the gradients summed are output gradients the layer's backward pass reads, among the
     * elements its bytes count (4 bytes each) */
    if (m->bias_grad_elems < 0 || m->bias_grad_elems > m->bytes / 4)
        return sm_fail(st,
                       "%s (%s): the plugin's bias_grad_elems %lld is not within its bytes (an "
                       "output gradient's element, 4 bytes each, among the %lld it moves)",
                       at, t->name, (long long)m->bias_grad_elems, (long long)m->bytes);
    /* a sum a bias tensor, and a sum sums something */
    if (m->bias_grad_sums < 0 || m->bias_grad_sums > m->param_tensors ||
        (m->bias_grad_sums > 0) != (m->bias_grad_elems > 0))
        return sm_fail(st,
                       "%s (%s): the plugin's bias_grad_sums %d is not within its %lld parameter "
                       "tensors, or not 0 exactly where its bias_grad_elems %lld are",
                       at, t->name, m->bias_grad_sums, (long long)m->param_tensors,
                       (long long)m->bias_grad_elems);
    /* a plugin older than ABI 22 never wrote them: the host's zeros stay */
    if (t->abi_version < 22)
        m->linear_products = 0,
        m->linear_flops = m->linear_input_elems = m->linear_output_elems = 0;
    if ((t->traits & SM_TRAIT_CONVOLUTION) && m->linear_products != 0)
        return sm_fail(st,
                       "%s (%s): the plugin declares %d linear products of a convolution "
                       "(SM_TRAIT_CONVOLUTION), whose products are no nn.Linear's",
                       at, t->name, m->linear_products);
    /* the products are some of the matrix FLOPs; one of depth K and width N reads K and writes
     * N elements a row for 2 K N FLOPs, so each side is at most half its FLOPs; its matrix is
     * a weight tensor or a slice of one (a packed q, k and v: three), a tied layer's the
     * embedding's */
    int64_t weight_tensors = 3 * (m->param_tensors + ((t->traits & SM_TRAIT_TIED) ? 1 : 0));
    int some = m->linear_products > 0;
    if (m->linear_products < 0 || m->linear_products > weight_tensors || m->linear_flops < 0 ||
        m->linear_flops > m->matmul_flops || m->linear_input_elems < 0 ||
        m->linear_output_elems < 0 || m->linear_input_elems > m->linear_flops / 2 ||
        m->linear_output_elems > m->linear_flops / 2 || some != (m->linear_flops > 0) ||
        some != (m->linear_input_elems > 0) || some != (m->linear_output_elems > 0))
        return sm_fail(st,
                       "%s (%s): the plugin's %d linear products of %lld FLOPs reading %lld and "
                       "writing %lld elements are not within its weight tensors (3 products each "
                       "at most: %lld) and its %lld matrix FLOPs (2 an element read or written at "
                       "least), or not 0 exactly where its products are",
                       at, t->name, m->linear_products, (long long)m->linear_flops,
                       (long long)m->linear_input_elems, (long long)m->linear_output_elems,
                       (long long)weight_tensors, (long long)m->matmul_flops);
    /* a matrix-product type that declares none is one nn.Linear over its input and output,
     * where those fit its FLOPs and it has a weight tensor */
    if (!some && (t->traits & SM_TRAIT_MATMUL) && !(t->traits & SM_TRAIT_CONVOLUTION) &&
        m->param_tensors > 0 && m->input_elems > 0 && m->output_elems > 0 &&
        m->input_elems <= m->matmul_flops / 2 && m->output_elems <= m->matmul_flops / 2) {
        m->linear_products = 1;
        m->linear_flops = m->matmul_flops;
        m->linear_input_elems = m->input_elems;
        m->linear_output_elems = m->output_elems;
    }
    if (m->scores_softmax < SM_SOFTMAX_NATIVE || m->scores_softmax > SM_SOFTMAX_DTYPE)
        return sm_fail(st,
                       "%s (%s): the plugin's scores_softmax %d is not one of plugin.h's "
                       "SM_SOFTMAX_ (0 to 2)",
                       at, t->name, m->scores_softmax);
    if (m->scores_fused != 0 && m->scores_fused != 1)
        return sm_fail(st, "%s (%s): the plugin's scores_fused %d is not 0 or 1", at, t->name,
                       m->scores_fused);
    /* a flag: 2 or -1 read as 1 would silently count the layer's I and O */
    if (m->counts_io != 0 && m->counts_io != 1)
        return sm_fail(st, "%s (%s): the plugin's counts_io %d is not 0 or 1", at, t->name,
                       m->counts_io);
    if (m->upcast_bytes < 0 || m->upcast_bytes == SM_OVERFLOW)
        return sm_fail(st, "%s (%s): the plugin's upcast_bytes %lld is negative or overflows", at,
                       t->name, (long long)m->upcast_bytes);
    if (m->library_kernels_fwd < 0 || m->library_kernels_fwd > MAX_LIBRARY_KERNELS ||
        m->library_kernels_bwd < 0 || m->library_kernels_bwd > MAX_LIBRARY_KERNELS)
        return sm_fail(st,
                       "%s (%s): the plugin's library kernels (forward %lld, backward %lld) are "
                       "not within 0 to %lld",
                       at, t->name, (long long)m->library_kernels_fwd,
                       (long long)m->library_kernels_bwd, (long long)MAX_LIBRARY_KERNELS);
    /* a plugin older than ABI 14 never wrote it: the host's zero stays */
    if (t->abi_version < 14)
        m->group_channels = 0;
    /* channels per group: of a convolution, and no more than one sample's input holds */
    if (m->group_channels < 0 || m->group_channels > shapes_in ||
        (m->group_channels > 0 && !(t->traits & SM_TRAIT_CONVOLUTION)))
        return sm_fail(st,
                       "%s (%s): the plugin's group_channels %lld is not 0 or, of a "
                       "convolution (SM_TRAIT_CONVOLUTION), its input channels per group",
                       at, t->name, (long long)m->group_channels);
    l->kernel_taps = conv_taps(t, m, &in[0]);
    conv_channels(m, &in[0], &l->out, l);
    /* an element-wise layer one of whose inputs is smaller than its output reads it broadcast */
    l->broadcast = 0;
    for (int i = 0; i < l->n_inputs && (t->traits & SM_TRAIT_ELEMENTWISE); i++)
        l->broadcast |= sm_shape_elems(&in[i]) < m->output_elems;
    if (t->abi_version < 16)
        m->norm_rows = 0;
    /* rows a layer norm reduces: of a normalisation without batch statistics, and no more than
     * one sample's input has elements */
    const unsigned batch_norm = SM_TRAIT_NORMALISATION | SM_TRAIT_BATCH_STATISTICS;
    if (m->norm_rows < 0 || m->norm_rows > shapes_in ||
        (m->norm_rows > 0 && (t->traits & batch_norm) != SM_TRAIT_NORMALISATION))
        return sm_fail(st,
                       "%s (%s): the plugin's norm_rows %lld is not 0 or, of a normalisation "
                       "without batch statistics (SM_TRAIT_NORMALISATION alone), the rows of its "
                       "input it normalises",
                       at, t->name, (long long)m->norm_rows);
    if ((t->traits & SM_TRAIT_POOLING) && m->weights != 0)
        return sm_fail(st,
                       "%s (%s): the plugin declares SM_TRAIT_POOLING, a reduction over "
                       "positions with no weights, but its metrics give %lld weights",
                       at, t->name, (long long)m->weights);
    /* the executors compute a loss themselves and update no weights of it */
    if ((t->traits & SM_TRAIT_LOSS) && m->weights != 0)
        return sm_fail(st,
                       "%s (%s): the plugin declares SM_TRAIT_LOSS, a loss over logits with no "
                       "weights, but its metrics give %lld weights",
                       at, t->name, (long long)m->weights);
    if (layer_kernels(m))
        return sm_fail(st,
                       "%s (%s): the plugin's kernel counts (forward %d, backward %d, of them "
                       "training-only %d) are not within 0 to %d",
                       at, t->name, m->kernels_fwd, m->kernels_bwd, m->kernels_train_only,
                       MAX_KERNELS);
    /* a layer a fusing framework runs inside a neighbour's kernel is priced nothing of its
     * own: what it declares must be what such a layer does (fused_bound.c) */
    if (sm_fused_bound(t, l, in, at, sm_registry_type_path(d->registry, t), st))
        return -1;
    /* each count fits, but what the host derives at batch 1 (the bytes with the weights') may
     * not: named here, at the layer, where every command would fail later naming no line and
     * check-plugin would pass it */
    sm_metrics one;
    sm_status ignored;
    sm_layer named = *l; /* l's name is set once the network is built */
    named.name = dl->name;
    if (sm_layer_metrics_at(&named, 1, &one, &ignored))
        return sm_fail(st,
                       "%s (%s): its counts at batch 1 overflow 64 bits (weights %lld, bytes "
                       "%lld, FLOPs %lld); sizes are too large",
                       at, t->name, (long long)m->weights, (long long)m->bytes,
                       (long long)m->flops);
    layer_inputs(net, l, in);
    if (layer_saved(w, t, l, in, at, so, st))
        return -1;
    /* the copy is a new storage, not its input's */
    if (copies)
        l->saved.aliases_input = 0;
    return 0;
}

/* Whether a convolution reads the network's input directly (the draft's graph alone). */
static int convolution_reads_input(const draft_network *d, int **inputs, const int *n_in)
{
    for (int k = 0; k < d->n_layers; k++)
        for (int j = 0; j < n_in[k]; j++)
            if (inputs[k][j] < 0 && (d->layers[k].type->traits & SM_TRAIT_CONVOLUTION))
                return 1;
    return 0;
}

/* Whether a 2-D input is C x L, not S x E, before --image sets its length: --seq 8000 of a
 * 1x16000 waveform set its channels (8000 channels, 20 M weights) where the length was meant.
 * Decided on the network built at the file's own input, as sm_network_image decides on the
 * network built (sm_network_conv_reads_input): a convolution that reads the input through a
 * dropout or a norm reads it as C x L too. 1 or 0; -1 with a message where a view of a square
 * input may have swapped the axes the convolution reads. Where the file's own input does not
 * build, a convolution reading it directly decides, as before. */
static int input_is_channels_length(draft_network *d, int **inputs, const int *n_in, int64_t image,
                                    sm_status *st)
{
    sm_network *probe = NULL;
    sm_status ignored;
    if (sm_network_build(d, NULL, &probe, &ignored))
        return convolution_reads_input(d, inputs, n_in);
    int ambiguous;
    int conv = sm_network_conv_reads_input(probe, &ambiguous);
    sm_network_free(probe);
    if (ambiguous)
        return sm_fail(st,
                       "%s: --image/--seq %lld: the square %lldx%lld input reaches a "
                       "convolution only through a view, which may have swapped its axes: "
                       "which one is the length cannot be told; give the length in [network] "
                       "input",
                       d->path, (long long)image, (long long)d->input.dim[0],
                       (long long)d->input.dim[1]);
    return conv;
}

/* A tied output layer's matrix is an embedding's (SM_TRAIT_TIED), and only the embedding's
 * weights count it: an lm_head of 50,257 outputs beside an embedding of 1,000 rows, or none,
 * left its 50,257 x 768 matrix out of the weights, gradients and optimizer state without a
 * word. Each needs an SM_TRAIT_EMBEDDING layer of as many rows as it has outputs, as wide as
 * its input. A network of the tied layer alone is that layer under test (check-plugin's cases,
 * the executors' gradient checks), its matrix outside it by construction. */
static int check_tied(const sm_network *net, sm_status *st)
{
    if (net->n_layers < 2)
        return 0;
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        if (!(l->type->traits & SM_TRAIT_TIED) || l->out.ndim < 1)
            continue;
        const sm_shape *in = sm_input_shape(net, l, 0);
        int64_t e = in->dim[in->ndim - 1], v = l->out.dim[l->out.ndim - 1];
        int found = 0;
        for (int j = 0; j < net->n_layers && !found; j++) {
            const sm_layer *t = &net->layers[j];
            int64_t width = t->out.ndim >= 1 ? t->out.dim[t->out.ndim - 1] : 0;
            found = (t->type->traits & SM_TRAIT_EMBEDDING) && width == e &&
                    t->m.weights == sm_mul(v, e);
        }
        if (!found)
            return sm_fail(st,
                           "%s:%d: layer %s (%s): its %lld x %lld matrix is tied to an embedding "
                           "(counted there), and the network has none of %lld rows of %lld: "
                           "give it one (embedding vocab=%lld dim=%lld), or write an untied "
                           "head (linear out=%lld bias=false)",
                           net->path, l->line, l->name, l->type->name, (long long)v, (long long)e,
                           (long long)v, (long long)e, (long long)v, (long long)e, (long long)v);
    }
    return 0;
}

/* The output projection (sm_layer's output_projection): the layer of linear products the
 * loss reads, or where no loss layer reads one, the last such layer in the network's order. */
static void mark_output_projection(sm_network *net)
{
    int last = -1;
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        if (l->m.linear_products > 0)
            last = i;
        if ((l->type->traits & SM_TRAIT_LOSS) && l->n_inputs >= 1 && l->inputs[0] >= 0 &&
            net->layers[l->inputs[0]].m.linear_products > 0) {
            net->layers[l->inputs[0]].output_projection = 1;
            return;
        }
    }
    if (last >= 0)
        net->layers[last].output_projection = 1;
}

int sm_network_build(draft_network *d, const sm_network_options *opt, sm_network **out,
                     sm_status *st)
{
    name_map map = {0};
    int n = d->n_layers, rc = 0;
    int **inputs = calloc((size_t)n, sizeof *inputs);
    int *n_in = calloc((size_t)n, sizeof *n_in);
    int *order = calloc((size_t)n, sizeof *order);
    int *position = calloc((size_t)n, sizeof *position);
    sm_network *net = calloc(1, sizeof *net);
    if (!inputs || !n_in || !order || !position || !net)
        rc = sm_fail(st, "out of memory");
    if (rc == 0)
        rc = map_build(&map, d, st);
    for (int k = 0; rc == 0 && k < n; k++) {
        n_in[k] = d->layers[k].n_from ? d->layers[k].n_from : 1;
        inputs[k] = calloc((size_t)n_in[k], sizeof **inputs);
        rc = resolve_inputs(d, &map, k, inputs[k], st);
    }
    if (rc == 0)
        rc = order_layers(d, inputs, n_in, order, st);
    if (rc == 0) {
        net->name = strdup(d->name);
        net->path = strdup(d->path);
        net->input = d->input;
        net->optimizer = d->optimizer;
        memcpy(net->precision, d->precision, sizeof net->precision);
        d->kv_cache = opt && opt->kv_cache;
        if (opt && opt->image > 0) {
            if (opt->image > (1 << 30))
                rc = sm_fail(st, "--image %lld is too large", (long long)opt->image);
            else {
                int conv = net->input.ndim == 2
                               ? input_is_channels_length(d, inputs, n_in, opt->image, st)
                               : 0;
                if (conv < 0)
                    rc = -1;
                else {
                    int axis = sm_image_axis(&net->input, conv);
                    net->input.dim[axis] = opt->image;
                    if (net->input.ndim >= 3) /* an image's W with its H */
                        net->input.dim[axis + 1] = opt->image;
                }
            }
        }
        net->n_blocks = d->n_blocks;
        net->blocks = calloc((size_t)d->n_blocks, sizeof *net->blocks);
        for (int b = 0; b < d->n_blocks; b++)
            net->blocks[b] = strdup(d->blocks[b].name);
        net->layers = calloc((size_t)n, sizeof *net->layers);
        if (!net->layers || !net->blocks)
            rc = sm_fail(st, "out of memory");
    }
    for (int i = 0; rc == 0 && i < n; i++)
        position[order[i]] = i;
    /* the guard's signal handlers and standard-output redirection once for all the layers
     * (a call per layer made nine system calls of each, a tenth of a zoo curve's time); the
     * host's code between the plugins' runs under it naming nothing */
    int64_t(*strides)[SM_MAX_DIMS] = rc == 0 ? calloc((size_t)n, sizeof *strides) : NULL;
    if (rc == 0 && !strides)
        rc = sm_fail(st, "out of memory");
    if (rc == 0)
        rc = sm_plugin_timeout(st);
    /* NULL where its pages cannot be had: the plugins then write into the host's own structs */
    sm_plugin_window *window = rc == 0 ? sm_plugin_window_open() : NULL;
    const char *outer_all = sm_plugin_call_begin(NULL);
    for (int i = 0; rc == 0 && i < n; i++) {
        const draft_layer *dl = &d->layers[order[i]];
        sm_layer *l = &net->layers[i];
        l->name = strdup(dl->name);
        l->block = dl->block;
        l->line = dl->line;
        l->type = dl->type;
        l->n_inputs = n_in[order[i]];
        l->inputs = malloc((size_t)l->n_inputs * sizeof *l->inputs);
        net->n_layers = i + 1;
        for (int j = 0; j < l->n_inputs; j++) {
            int src = inputs[order[i]][j];
            l->inputs[j] = src < 0 ? SM_NETWORK_INPUT : position[src];
        }
        /* the plugin's code runs here: an exit(), a fault or an endless loop inside names the
         * layer's line, its type and the plugin's file */
        char what[4600], at[4200];
        const char *so = sm_registry_type_path(d->registry, dl->type);
        where(d, dl, at, sizeof at);
        snprintf(what, sizeof what, "%s: the plugin of layer type '%s' (%s)", at, dl->type->name,
                 so ? so : "not in the registry");
        const char *outer = sm_plugin_call_begin(what);
        rc = infer_layer(window, d, dl, net, l, strides, st);
        sm_plugin_call_end(outer);
    }
    sm_plugin_call_end(outer_all);
    sm_plugin_window_close(window);
    if (rc == 0)
        rc = check_tied(net, st);
    if (rc == 0)
        mark_output_projection(net);
    free(strides);
    for (int k = 0; inputs && k < n; k++)
        free(inputs[k]);
    free(inputs);
    free(n_in);
    free(order);
    free(position);
    free(map.slots);
    if (rc) {
        sm_network_free(net);
        return -1;
    }
    *out = net;
    return 0;
}

/* Frees what sm_network_build allocated. */
void sm_network_free(sm_network *net)
{
    if (!net)
        return;
    for (int i = 0; i < net->n_layers; i++) {
        free(net->layers[i].name);
        free(net->layers[i].params);
        free(net->layers[i].inputs);
    }
    for (int b = 0; b < net->n_blocks; b++)
        free(net->blocks[b]);
    free(net->layers);
    free(net->blocks);
    free(net->name);
    free(net->path);
    sm_registry_release(net->registry);
    free(net);
}
