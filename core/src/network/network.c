/* A network as a user names it: found by name or path, loaded (parsed by network_parse.c, built
 * by network_graph.c), its layers looked up, and what kind of network it is. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "network/network_internal.h"

int sm_network_find(const char *model, char *path, size_t len, sm_status *st)
{
    if (!model || !path)
        return sm_null_arg(st, __func__, !model ? "model" : "path");
    return sm_data_find("model", "models", model, "`scalemeter models` lists the zoo", path, len,
                        st);
}

int sm_network_load(const sm_registry *reg, const char *model, const sm_network_options *opt,
                    sm_network **out, sm_status *st)
{
    if (!out)
        return sm_null_arg(st, __func__, "out");
    *out = NULL;
    if (!reg || !model)
        return sm_null_arg(st, __func__, !reg ? "reg" : "model");
    if (opt && opt->image < 0) /* was passed over: the file's own size, a silent wrong number */
        return sm_fail(st,
                       "%s: image %lld is negative (> 0 sets the input's height and width, or "
                       "its sequence length; 0 keeps the network file's)",
                       __func__, (long long)opt->image);
    char path[4096];
    if (sm_network_find(model, path, sizeof path, st))
        return -1;
    draft_network d;
    int rc = sm_draft_parse(reg, path, &d, st);
    if (rc == 0)
        rc = sm_network_build(&d, opt, out, st);
    if (rc == 0) {
        (*out)->registry = reg;
        sm_registry_hold(reg);
    }
    sm_draft_free(&d);
    return rc;
}

const sm_layer *sm_network_layer(const sm_network *net, const char *name)
{
    if (!net || !name)
        return NULL;
    for (int i = 0; i < net->n_layers; i++)
        if (strcmp(net->layers[i].name, name) == 0)
            return &net->layers[i];
    return NULL;
}

int sm_network_has_trait(const sm_network *net, unsigned traits)
{
    for (int i = 0; i < net->n_layers; i++)
        if (net->layers[i].type->traits & traits)
            return 1;
    return 0;
}

static const char *const family_names[SM_N_FAMILIES] = {"cnn", "transformer", "recurrent", "mlp"};

sm_family sm_network_family(const sm_network *net)
{
    unsigned traits = 0;
    for (int i = 0; i < net->n_layers; i++)
        traits |= net->layers[i].type->traits;
    return traits & SM_TRAIT_ATTENTION     ? SM_FAMILY_TRANSFORMER
           : traits & SM_TRAIT_RECURRENT   ? SM_FAMILY_RECURRENT
           : traits & SM_TRAIT_CONVOLUTION ? SM_FAMILY_CNN
                                           : SM_FAMILY_MLP;
}

const char *sm_family_name(sm_family f)
{
    return f >= 0 && f < SM_N_FAMILIES ? family_names[f] : "unknown";
}

int sm_family_parse(const char *name)
{
    if (!name)
        return -1;
    for (int f = 0; f < SM_N_FAMILIES; f++)
        if (!strcmp(name, family_names[f]))
            return f;
    return -1;
}

int sm_image_axis(const sm_shape *input, int convolution_reads_it)
{
    if (input->ndim >= 3)
        return input->ndim - 2;
    return input->ndim == 2 && convolution_reads_it ? 1 : 0;
}

static int same_shape(const sm_shape *a, const sm_shape *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int k = 0; k < a->ndim; k++)
        if (a->dim[k] != b->dim[k])
            return 0;
    return 1;
}

int sm_network_conv_reads_input(const sm_network *net, int *ambiguous)
{
    if (ambiguous)
        *ambiguous = 0;
    if (net->input.ndim != 2 || net->n_layers < 1)
        return 0;
    /* what each layer's output carries of the input's axes: 0 nothing, 1 the axes, 2 the
     * same shape through a view of a square input (which may have swapped them) */
    int square = net->input.dim[0] == net->input.dim[1];
    unsigned char *carry = calloc((size_t)net->n_layers, 1);
    if (!carry)
        return 0;
    int direct = 0, via_view = 0;
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        int conv = (l->type->traits & SM_TRAIT_CONVOLUTION) != 0;
        int view = (l->type->traits & SM_TRAIT_VIEW) != 0;
        for (int j = 0; j < l->n_inputs; j++) {
            int from = l->inputs[j];
            int c = from == SM_NETWORK_INPUT ? 1 : carry[from];
            const sm_shape *in = from == SM_NETWORK_INPUT ? &net->input : &net->layers[from].out;
            if (!c)
                continue;
            if (conv) {
                direct |= c == 1;
                via_view |= c == 2;
            } else if (same_shape(in, &l->out)) {
                int through = view && square ? 2 : c;
                if (!carry[i] || through < carry[i])
                    carry[i] = (unsigned char)through;
            }
        }
    }
    free(carry);
    if (ambiguous)
        *ambiguous = !direct && via_view;
    return direct || via_view;
}

int64_t sm_network_image(const sm_network *net)
{
    /* a convolution reads a 2-D input (through layers that keep its shape): C x L */
    return net->input.dim[sm_image_axis(&net->input, sm_network_conv_reads_input(net, NULL))];
}
