/* The bound on what a layer that a fusing framework may run inside a neighbour's kernel may
 * declare. Such a layer (an activation in its producer's epilogue, a batch norm whose
 * statistics a convolution's epilogue sums, a residual addition in a batch norm's kernel:
 * device_roofline.c's layer_fused) is priced nothing of its own there, so whatever it
 * declares vanishes from the step: a batch norm of 10^6 FLOPs an element gave mfu 359%. What
 * such a layer really does is a few FLOPs and a pass or two over its tensors, so every count
 * fusion drops is held to that here, for every framework, and a plugin that declares more is
 * refused at the layer's line, naming its file, the type and the count. */
#include <stdio.h>
#include <string.h>

#include "network/network_internal.h"

/* FLOPs an element (of its inputs or output, whichever are more) a fusable layer may count
 * forward: GELU's 8 is the shipped most; backward twice that (a weight gradient beside the
 * input's, the host's default where a plugin sets none) */
#define MAX_FUSED_FLOPS 64
/* bytes an element of its inputs and output: GPT-2's composite GELU is the shipped most, 8
 * kernels of 18 fp32 reads or writes an element of its output (72 bytes), 36 an element of
 * its input and output together (a fused framework runs it as one) */
#define MAX_FUSED_BYTES 36
/* kernels a pass: that GELU's 11 backward is the shipped most */
#define MAX_FUSED_KERNELS 11
/* weights a channel: a batch norm's scale and shift */
#define MAX_NORM_WEIGHTS 2

/* A count beyond its bound: the count, its value, the bound per unit and the units. */
typedef struct excess {
    const char *count;
    int64_t value, per_unit, units;
    const char *unit; /* "element", "channel"; NULL: per pass */
} excess;

static int over(excess *e, const char *count, int64_t value, int64_t per_unit, int64_t units,
                const char *unit)
{
    if (value <= sm_mul(per_unit, units))
        return 0;
    *e = (excess){count, value, per_unit, units, unit};
    return 1;
}

/* The first count of m beyond the bound of a fusable layer, into e; 0 where none is. elems:
 * the elements a pass goes over (its inputs or output, whichever are more); io: its inputs'
 * and output's together; weights: those it may have a channel, of channels. */
static int first_excess(const sm_layer_metrics *m, int64_t elems, int64_t io, int64_t weights,
                        int64_t channels, excess *e)
{
    return over(e, "flops", m->flops, MAX_FUSED_FLOPS, elems, "element") ||
           over(e, "bwd_flops", m->bwd_flops, 2 * MAX_FUSED_FLOPS, elems, "element") ||
           over(e, "bytes", m->bytes, MAX_FUSED_BYTES, io, "element of its inputs and output") ||
           over(e, "upcast_bytes", m->upcast_bytes, MAX_FUSED_BYTES, io,
                "element of its inputs and output") ||
           over(e, "weights", m->weights, weights, channels, "channel") ||
           over(e, "kernels_fwd", m->kernels_fwd, MAX_FUSED_KERNELS, 1, NULL) ||
           over(e, "kernels_bwd", m->kernels_bwd, MAX_FUSED_KERNELS, 1, NULL) ||
           over(e, "library_kernels_fwd", m->library_kernels_fwd, 0, 1, NULL) ||
           over(e, "library_kernels_bwd", m->library_kernels_bwd, 0, 1, NULL);
}

int sm_fused_bound(const sm_layer_type *t, const sm_layer *l, const sm_shape *in, const char *at,
                   const char *file, sm_status *st)
{
    const unsigned batch_norm = SM_TRAIT_NORMALISATION | SM_TRAIT_BATCH_STATISTICS;
    const char *trait, *what;
    int64_t weights = 0;
    if (t->traits & SM_TRAIT_ACTIVATION) {
        trait = "SM_TRAIT_ACTIVATION";
        what = "an element-wise function of one input that rides its producer's epilogue";
    } else if ((t->traits & batch_norm) == batch_norm) {
        trait = "SM_TRAIT_BATCH_STATISTICS";
        what = "a batch norm, whose statistics a fusing framework sums in its convolution's "
               "epilogue";
        weights = MAX_NORM_WEIGHTS;
    } else if (t->traits & SM_TRAIT_RESIDUAL) {
        trait = "SM_TRAIT_RESIDUAL";
        what = "an element-wise sum, which a fusing framework adds in a batch norm's kernel";
    } else {
        return 0;
    }
    const char *plugin = file ? file : "its plugin";
    if (t->traits & SM_TRAIT_ACTIVATION) {
        int same = l->n_inputs == 1 && in[0].ndim == l->out.ndim &&
                   !memcmp(in[0].dim, l->out.dim, (size_t)l->out.ndim * sizeof *l->out.dim);
        if (!same)
            return sm_fail(st,
                           "%s (%s): %s declares %s, %s, but its output is not its one input's "
                           "shape",
                           at, t->name, plugin, trait, what);
    }
    const sm_layer_metrics *m = &l->m;
    int64_t elems = m->input_elems > m->output_elems ? m->input_elems : m->output_elems;
    int64_t io = sm_add(m->input_elems, m->output_elems);
    excess e;
    if (!first_excess(m, elems, io, weights, l->out.dim[0], &e))
        return 0;
    if (!strcmp(e.count, "weights") && !weights)
        return sm_fail(st, "%s (%s): %s declares %s, %s, but it has weights", at, t->name, plugin,
                       trait, what);
    char bound[128];
    if (e.unit)
        snprintf(bound, sizeof bound, "%lld (%lld a%s %s, %lld)",
                 (long long)sm_mul(e.per_unit, e.units), (long long)e.per_unit,
                 strchr("aeiou", e.unit[0]) ? "n" : "", e.unit, (long long)e.units);
    else
        snprintf(bound, sizeof bound, "%lld a pass", (long long)e.per_unit);
    return sm_fail(st, "%s (%s): %s declares %s, %s, but its %s %lld are more than %s", at, t->name,
                   plugin, trait, what, e.count, (long long)e.value, bound);
}
