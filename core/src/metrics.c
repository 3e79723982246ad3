/* Loading a network by name or path, and ConvMeter's metrics of its layers, blocks and whole. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int sm_network_find(const char *model, char *path, size_t len, sm_status *st)
{
    return sm_data_find("model", "models", model, "`scalemeter models` lists the zoo", path, len,
                        st);
}

int sm_network_load(const sm_registry *reg, const char *model, const sm_network_options *opt,
                    sm_network **out, sm_status *st)
{
    char path[4096];
    if (sm_network_find(model, path, sizeof path, st))
        return -1;
    draft_network d;
    int rc = sm_draft_parse(reg, path, &d, st);
    if (rc == 0)
        rc = sm_network_build(&d, opt, out, st);
    if (rc == 0)
        (*out)->registry = reg;
    sm_draft_free(&d);
    return rc;
}

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
    free(net);
}

const sm_layer *sm_network_layer(const sm_network *net, const char *name)
{
    for (int i = 0; i < net->n_layers; i++)
        if (strcmp(net->layers[i].name, name) == 0)
            return &net->layers[i];
    return NULL;
}

static int add_checked(int64_t *sum, int64_t v)
{
    return __builtin_add_overflow(*sum, v, sum);
}

int sm_layer_metrics_at(const sm_layer *l, int64_t batch, sm_metrics *out, sm_status *st)
{
    const sm_layer_metrics *m = &l->m;
    memset(out, 0, sizeof *out);
    if (batch < 1)
        return sm_fail(st, "batch size %lld is not positive", (long long)batch);
    out->flops = sm_mul(m->flops, batch);
    out->macs = sm_mul(m->macs, batch);
    out->bwd_flops = sm_mul(m->bwd_flops, batch);
    if (m->counts_io) {
        out->inputs = sm_mul(m->input_elems, batch);
        out->outputs = sm_mul(m->output_elems, batch);
    }
    out->weights = m->weights;
    out->layers = m->weights > 0;
    out->param_tensors = m->param_tensors;
    out->kernels = m->flops > 0 || m->bytes > 0 || m->weights > 0;
    out->bytes = sm_add(sm_mul(m->bytes, batch), sm_mul(4, m->weights));
    if (out->flops == SM_OVERFLOW || out->macs == SM_OVERFLOW || out->bwd_flops == SM_OVERFLOW ||
        out->inputs == SM_OVERFLOW || out->outputs == SM_OVERFLOW || out->bytes == SM_OVERFLOW)
        return sm_fail(st, "layer %s: counts at batch %lld overflow 64 bits", l->name,
                       (long long)batch);
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
                   add_checked(&out->kernels, m->kernels) | add_checked(&out->bytes, m->bytes)
               ? -1
               : 0;
}

int sm_block_metrics(const sm_network *net, int block, int64_t batch, sm_metrics *out,
                     sm_status *st)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < net->n_layers; i++) {
        if (block >= 0 && net->layers[i].block != block)
            continue;
        sm_metrics m;
        if (sm_layer_metrics_at(&net->layers[i], batch, &m, st))
            return -1;
        if (add_metrics(out, &m))
            return sm_fail(st, "%s: totals at batch %lld overflow 64 bits", net->name,
                           (long long)batch);
    }
    return 0;
}

int sm_blocks_metrics(const sm_network *net, int64_t batch, sm_metrics *out, sm_status *st)
{
    memset(out, 0, (size_t)net->n_blocks * sizeof *out);
    for (int i = 0; i < net->n_layers; i++) {
        sm_metrics m;
        if (sm_layer_metrics_at(&net->layers[i], batch, &m, st))
            return -1;
        if (add_metrics(&out[net->layers[i].block], &m))
            return sm_fail(st, "%s: block %s: totals at batch %lld overflow 64 bits", net->name,
                           net->blocks[net->layers[i].block], (long long)batch);
    }
    return 0;
}

int sm_network_metrics(const sm_network *net, int64_t batch, sm_metrics *out, sm_status *st)
{
    return sm_block_metrics(net, -1, batch, out, st);
}

static const char *const family_names[SM_N_FAMILIES] = {"cnn", "transformer", "recurrent", "mlp"};

sm_family sm_network_family(const sm_network *net)
{
    int conv = 0, recurrent = 0;
    for (int i = 0; i < net->n_layers; i++) {
        const char *type = net->layers[i].type->name;
        if (!strcmp(type, "attention") || !strcmp(type, "window_attention"))
            return SM_FAMILY_TRANSFORMER;
        recurrent |= !strcmp(type, "lstm") || !strcmp(type, "gru") || !strcmp(type, "rnn");
        conv |= !strcmp(type, "conv2d");
    }
    return recurrent ? SM_FAMILY_RECURRENT : conv ? SM_FAMILY_CNN : SM_FAMILY_MLP;
}

const char *sm_family_name(sm_family f)
{
    return f >= 0 && f < SM_N_FAMILIES ? family_names[f] : "unknown";
}

int sm_family_parse(const char *name)
{
    for (int f = 0; f < SM_N_FAMILIES; f++)
        if (!strcmp(name, family_names[f]))
            return f;
    return -1;
}

int64_t sm_network_image(const sm_network *net)
{
    return net->input.ndim == 3 ? net->input.dim[1] : net->input.dim[0];
}
