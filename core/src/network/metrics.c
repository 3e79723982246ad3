/* ConvMeter's metrics of a network's layers, blocks and whole, at a batch size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "network/network_internal.h"

static int add_checked(int64_t *sum, int64_t v) { return __builtin_add_overflow(*sum, v, sum); }

/* What to do about counts that overflow at a batch: at batch 1 no smaller batch helps, the
 * sizes or a plugin's counts are too large. */
static const char *too_large(int64_t batch)
{
    return batch > 1 ? "(a smaller batch or input keeps them in range)"
                     : "(the sizes, or the layer's plugin's counts, are too large)";
}

int sm_layer_metrics_at(const sm_layer *l, int64_t batch, sm_metrics *out, sm_status *st)
{
    if (!l || !out)
        return sm_null_arg(st, __func__, !l ? "layer" : "out");
    const sm_layer_metrics *m = &l->m;
    memset(out, 0, sizeof *out);
    if (batch < 1)
        return sm_fail(st, "batch size %lld is not positive", (long long)batch);
    out->flops = sm_mul(m->flops, batch);
    out->macs = sm_mul(m->macs, batch);
    out->bwd_flops = sm_mul(m->bwd_flops, batch);
    out->matmul_flops = sm_mul(m->matmul_flops, batch);
    out->scores_bytes = sm_mul(m->scores_bytes, batch);
    out->scores_flops = sm_mul(m->scores_flops, batch);
    out->serial_bytes = sm_mul(m->serial_bytes, batch);
    out->upcast_bytes = sm_mul(m->upcast_bytes, batch);
    if (m->counts_io) {
        out->inputs = sm_mul(m->input_elems, batch);
        out->outputs = sm_mul(m->output_elems, batch);
    }
    out->weights = m->weights;
    out->layers = m->weights > 0;
    out->param_tensors = m->param_tensors;
    out->kernels = m->flops > 0 || m->bytes > 0 || m->weights > 0;
    out->kernels_fwd = m->kernels_fwd;
    out->kernels_bwd = m->kernels_bwd;
    out->kernels_infer = m->kernels_fwd - m->kernels_train_only;
    out->bytes = sm_add(sm_mul(m->bytes, batch), sm_mul(4, m->weights));
    if (out->flops == SM_OVERFLOW || out->macs == SM_OVERFLOW || out->bwd_flops == SM_OVERFLOW ||
        out->inputs == SM_OVERFLOW || out->outputs == SM_OVERFLOW || out->bytes == SM_OVERFLOW ||
        out->upcast_bytes == SM_OVERFLOW)
        return sm_fail(st, "layer %s (%s, line %d): counts at batch %lld overflow 64 bits %s",
                       l->name, l->type->name, l->line, (long long)batch, too_large(batch));
    return 0;
}

/* out += m; -1 when a total overflows 64 bits. */
static int add_metrics(sm_metrics *out, const sm_metrics *m)
{
    return add_checked(&out->flops, m->flops) | add_checked(&out->macs, m->macs) |
                   add_checked(&out->bwd_flops, m->bwd_flops) |
                   add_checked(&out->inputs, m->inputs) | add_checked(&out->outputs, m->outputs) |
                   add_checked(&out->weights, m->weights) | add_checked(&out->layers, m->layers) |
                   add_checked(&out->param_tensors, m->param_tensors) |
                   add_checked(&out->kernels, m->kernels) | add_checked(&out->bytes, m->bytes) |
                   add_checked(&out->matmul_flops, m->matmul_flops) |
                   add_checked(&out->scores_bytes, m->scores_bytes) |
                   add_checked(&out->scores_flops, m->scores_flops) |
                   add_checked(&out->serial_bytes, m->serial_bytes) |
                   add_checked(&out->upcast_bytes, m->upcast_bytes) |
                   add_checked(&out->kernels_infer, m->kernels_infer) |
                   add_checked(&out->kernels_fwd, m->kernels_fwd) |
                   add_checked(&out->kernels_bwd, m->kernels_bwd)
               ? -1
               : 0;
}

int sm_block_metrics(const sm_network *net, int block, int64_t batch, sm_metrics *out,
                     sm_status *st)
{
    if (!net || !out)
        return sm_null_arg(st, __func__, !net ? "net" : "out");
    memset(out, 0, sizeof *out);
    if (block >= net->n_blocks) /* its totals would read 0, a silent wrong number */
        return sm_fail(st, "%s has no block %d", net->name, block);
    for (int i = 0; i < net->n_layers; i++) {
        if (block >= 0 && net->layers[i].block != block)
            continue;
        sm_metrics m;
        if (sm_layer_metrics_at(&net->layers[i], batch, &m, st))
            return -1;
        if (add_metrics(out, &m))
            return sm_fail(st, "totals at batch %lld overflow 64 bits at layer %s (%s, line %d) %s",
                           (long long)batch, net->layers[i].name, net->layers[i].type->name,
                           net->layers[i].line, too_large(batch));
    }
    return 0;
}

int sm_blocks_metrics(const sm_network *net, int64_t batch, sm_metrics *out, sm_status *st)
{
    if (!net || !out)
        return sm_null_arg(st, __func__, !net ? "net" : "out");
    memset(out, 0, (size_t)net->n_blocks * sizeof *out);
    for (int i = 0; i < net->n_layers; i++) {
        sm_metrics m;
        if (sm_layer_metrics_at(&net->layers[i], batch, &m, st))
            return -1;
        if (add_metrics(&out[net->layers[i].block], &m))
            return sm_fail(st,
                           "block %s: totals at batch %lld overflow 64 bits at layer %s (%s, "
                           "line %d) %s",
                           net->blocks[net->layers[i].block], (long long)batch, net->layers[i].name,
                           net->layers[i].type->name, net->layers[i].line, too_large(batch));
    }
    return 0;
}

int sm_network_metrics(const sm_network *net, int64_t batch, sm_metrics *out, sm_status *st)
{
    if (!net || !out)
        return sm_null_arg(st, __func__, !net ? "net" : "out");
    return sm_block_metrics(net, -1, batch, out, st);
}
