/*
 * permute: torch.permute of the per-sample dimensions (up to 4). `order` lists the input
 * dimension each output dimension takes, either comma-separated (order=1,2,0) or as digits
 * (order=120): both turn C x H x W into H x W x C, as x.permute(0, 2, 3, 1) does with a batch
 * (ConvNeXt's channels-last blocks). order must be a permutation of 0..n-1 with n the input's
 * number of dimensions. A view (view_metrics.h): 0 FLOPs, 0 bytes, no kernel. In the zoo's
 * ConvNeXt blocks the tensors after the stem are channels-last, so the first permute yields a
 * contiguous tensor (nn.LayerNorm copies nothing) and the second a channels-last one that the
 * next element-wise layer reads as it is: no copy follows either (cases.ini says how).
 *
 * There is no list reader in plugin.h, so order is read with sm_arg_choice against every
 * permutation of 1 to 4 dimensions in both spellings (the table below).
 */
#include <scalemeter/plugin.h>

#include "permute.h"
#include "view_metrics.h"

/* Every permutation of 2 to 4 dims comma-separated, then of 1 to 4 dims as digits. */
static const char *const orders[] = {
    "0,1",     "1,0",     "0,1,2",   "0,2,1",   "1,0,2",   "1,2,0",   "2,0,1",   "2,1,0",
    "0,1,2,3", "0,1,3,2", "0,2,1,3", "0,2,3,1", "0,3,1,2", "0,3,2,1", "1,0,2,3", "1,0,3,2",
    "1,2,0,3", "1,2,3,0", "1,3,0,2", "1,3,2,0", "2,0,1,3", "2,0,3,1", "2,1,0,3", "2,1,3,0",
    "2,3,0,1", "2,3,1,0", "3,0,1,2", "3,0,2,1", "3,1,0,2", "3,1,2,0", "3,2,0,1", "3,2,1,0",
    "0",       "01",      "10",      "012",     "021",     "102",     "120",     "201",
    "210",     "0123",    "0132",    "0213",    "0231",    "0312",    "0321",    "1023",
    "1032",    "1203",    "1230",    "1302",    "1320",    "2013",    "2031",    "2103",
    "2130",    "2301",    "2310",    "3012",    "3021",    "3102",    "3120",    "3201",
    "3210",    NULL,
};
#define N_ORDERS ((int)(sizeof orders / sizeof orders[0]) - 1)

static void permute_parse(void *params, sm_args *args)
{
    permute_params *p = params;
    int c = sm_arg_choice(args, "order", orders, -1);
    p->n = 0;
    if (c < 0 || c >= N_ORDERS)
        return; /* reported by the host */
    for (const char *s = orders[c]; *s && p->n < SM_MAX_DIMS; s++)
        if (*s >= '0' && *s <= '9')
            p->order[p->n++] = *s - '0';
}

static const char *order_str(const permute_params *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->n && used < len; i++) {
        int w = snprintf(buf + used, len - used, i ? ",%d" : "%d", p->order[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

static int permute_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                         sm_error *err)
{
    (void)n_in;
    const permute_params *p = params;
    char s[64], o[32];
    if (p->n < 1) {
        sm_error_set(err, "permute needs an order");
        return -1;
    }
    if (p->n != in->ndim) {
        sm_error_set(err, "order %s permutes %d dims but input %s has %d",
                     order_str(p, o, sizeof o), p->n, sm_shape_str(in, s, sizeof s), in->ndim);
        return -1;
    }
    sm_shape r = {.ndim = p->n};
    for (int i = 0; i < p->n; i++)
        r.dim[i] = in->dim[p->order[i]];
    *out = r;
    return 0;
}

/* The permuted steps over the same storage: a view always, contiguous only where the order
 * keeps it so (a flatten after it then copies, view_strides of flatten). */
static int permute_strides(const void *params, const sm_shape *in, const int64_t *in_strides,
                           const sm_shape *out, int64_t *out_strides)
{
    const permute_params *p = params;
    (void)in;
    for (int i = 0; i < p->n && i < out->ndim; i++)
        out_strides[i] = in_strides[p->order[i]];
    return 0;
}

static const sm_layer_type permute_type = {
    SM_LAYER_TYPE_INIT,
    .name = "permute",
    .summary = "reorders the dimensions (torch.permute): order=1,2,0 or order=120",
    .params_size = sizeof(permute_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = permute_parse,
    .infer = permute_infer,
    .metrics = view_metrics,
    .traits = SM_TRAIT_VIEW,
    .saved = sm_saved_view,
    .view_strides = permute_strides,
};

SM_DEFINE_PLUGIN(permute_type)
