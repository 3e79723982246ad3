/*
 * window_attention: torchvision 0.14's ShiftedWindowAttention (Swin) and, with v2=true,
 * ShiftedWindowAttentionV2 (Swin V2), on one channels-last sample H x W x C -> H x W x C, as
 * shifted_window_attention computes it: zero-pad H, W up to multiples of the window wh x ww
 * (Hp x Wp), roll by -shift (a dim's shift is 0 when its window covers Hp or Wp), cut nW =
 * (Hp / wh)(Wp / ww) windows of N = wh ww tokens, multi-head self-attention in each window
 * (h heads of d = C / h features) with a relative position bias added to the scores (and, when
 * shifted, -100 between tokens of different regions of the rolled map), the output projection,
 * then the windows put back, rolled back, and the padding cropped.
 *
 * Per window (s = 1 when a shift is applied, qb, pb = 1 with qkv_bias, proj_bias):
 *   qkv projection   N x 3C = x W_qkv^T + b           3 N C^2 MACs  (+ qb 3 N C bias adds)
 *   v1 scaling       q d^-1/2                         N C FLOPs
 *   v2 cosine        q, k / max(||.||, 1e-12) per head 2 h N (3 d + 1) = 6 N C + 2 h N FLOPs
 *                    (d squares, d - 1 adds, sqrt, clamp, d divides per row of d)
 *   scores           q k^T per head                   h N^2 d = N^2 C MACs
 *   v2 logit scale   scores exp(min(logit_scale, ln 100))   h N^2 FLOPs
 *   position bias    + B                              h N^2 FLOPs
 *   shift mask       + 0 or -100                      s h N^2 FLOPs
 *   softmax          exp, sum, divide                 3 h N^2 FLOPs
 *   context          P v per head                     N^2 C MACs
 *   projection       ctx W_proj^T + b                 N C^2 MACs    (+ pb N C bias adds)
 * Once per sample, as the module computes it once per forward:
 *   v2 bias table    cpb_mlp on the T = (2 wh - 1)(2 ww - 1) x 2 coordinate table:
 *                    Linear(2, 512) + ReLU + Linear(512, h, no bias): T (2 512 + 512 h) MACs,
 *                    + 512 T bias adds + 512 T ReLU; then 16 sigmoid(.) on the gathered
 *                    h N^2 bias: 5 h N^2 (sigmoid 4, the product 1); logit clamp and exp 2 h.
 *
 *   macs      = nW (4 N C^2 + 2 N^2 C) + v2 T (1024 + 512 h)
 *   flops     = 2 macs + nW ((3 qb + pb) N C + (4 + s) h N^2 + v1 N C
 *                            + v2 (6 N C + 2 h N + h N^2)) + v2 (1024 T + 5 h N^2 + 2 h)
 *   bwd_flops = 2 flops (as attention: each product has two gradients)
 *   weights   = v1: T h (relative_position_bias_table) + 3 C^2 + qb 3 C + C^2 + pb C
 *               v2: h (logit_scale) + 3 C^2 + qb 3 C + C^2 + pb C + 1024 + 512 + 512 h
 *   param_tensors = v1: 3 + qb + pb; v2: 6 + qb + pb (named_parameters(): the module's own
 *               table or logit_scale first, then qkv, proj, cpb_mlp.0, cpb_mlp.2)
 *   bytes     = 4 (windowing + nW attn + v2 extra), PyTorch 1.13's activations each written
 *               once and read once, as attention counts them, with X = H W C, P = Hp Wp C:
 *               windowing = X + P (F.pad, which copies even with nothing to pad) + 2 P (the
 *                 partition's permute-reshape) + 2 P (its reverse) + s 4 P (the two rolls)
 *                 + (padded ? 2 X : 0) (the crop's contiguous copy)
 *               attn = 20 N C + 4 h N^2 (attention's self-attention count per sequence)
 *                 + 2 h N^2 (the bias add) + s 2 h N^2 (the mask add)
 *               v2 extra = nW (2 N C + 2 h N^2) (q and k normalised rather than q scaled:
 *                 2 N C more; the logit scaling: 2 h N^2) + T (2 + 4 512 + h) (the MLP:
 *                 table read, hidden written, ReLU in place, read by the last linear, its
 *                 output written) + 4 h N^2 (the sigmoid and the product by 16)
 *
 * The construction of the bias from the table (gather, permute), common to v1 and v2, is not
 * counted, as attention does not count it for rel_pos.
 */
#include <scalemeter/plugin.h>

#include "window_attention.h"

#define MAX_DIM ((int64_t)1 << 24)
#define MAX_WINDOW ((int64_t)1 << 16)

static void wa_parse(void *params, sm_args *args)
{
    window_attention_params *p = params;
    char msg[160];
    p->dim = sm_arg_int(args, "dim", SM_REQUIRED, 1, MAX_DIM);
    p->heads = sm_arg_int(args, "heads", SM_REQUIRED, 1, MAX_DIM);
    sm_arg_pair(args, "window", 7, 1, MAX_WINDOW, p->window);
    sm_arg_pair(args, "shift", 0, 0, MAX_WINDOW, p->shift);
    p->qkv_bias = sm_arg_bool(args, "qkv_bias", 1);
    p->proj_bias = sm_arg_bool(args, "proj_bias", 1);
    p->v2 = sm_arg_bool(args, "v2", 0);
    /* after a failure a value is its range's low end, so these checks stay safe */
    if (p->dim % p->heads != 0) {
        snprintf(msg, sizeof msg, "dim %lld is not divisible by heads %lld", (long long)p->dim,
                 (long long)p->heads);
        sm_arg_fail(args, msg);
    }
    if (p->shift[0] >= p->window[0] || p->shift[1] >= p->window[1]) {
        snprintf(msg, sizeof msg,
                 "shift %lldx%lld must be smaller than window %lldx%lld in each dim",
                 (long long)p->shift[0], (long long)p->shift[1], (long long)p->window[0],
                 (long long)p->window[1]);
        sm_arg_fail(args, msg);
    }
    /* torchvision divides v2's coordinate table by window - 1 (0 / 0 on a side of 1) */
    if (p->v2 && (p->window[0] < 2 || p->window[1] < 2)) {
        snprintf(msg, sizeof msg,
                 "v2=true needs a window of at least 2 on each side (its coordinate table is "
                 "divided by window - 1), got window %lldx%lld",
                 (long long)p->window[0], (long long)p->window[1]);
        sm_arg_fail(args, msg);
    }
}

static int wa_valid(const window_attention_params *p)
{
    return p->dim >= 1 && p->heads >= 1 && p->dim % p->heads == 0 && p->window[0] >= 1 &&
           p->window[1] >= 1 && p->shift[0] >= 0 && p->shift[1] >= 0 &&
           p->shift[0] < p->window[0] && p->shift[1] < p->window[1];
}

static int wa_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out, sm_error *err)
{
    (void)n_in;
    const window_attention_params *p = params;
    char s[64];
    if (!wa_valid(p)) {
        sm_error_set(err, "window_attention needs heads dividing dim and each shift "
                          "smaller than the window");
        return -1;
    }
    if (in->ndim != 3) {
        sm_error_set(err,
                     "window_attention needs a channels-last H x W x C input (Swin's "
                     "layout), got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    if (in->dim[2] != p->dim) {
        sm_error_set(err,
                     "input %s has %lld channels (its last dim), window_attention has dim "
                     "%lld",
                     sm_shape_str(in, s, sizeof s), (long long)in->dim[2], (long long)p->dim);
        return -1;
    }
    *out = *in;
    return 0;
}

static int wa_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                      sm_layer_metrics *m, sm_error *err)
{
    const window_attention_params *p = params;
    sm_shape checked;
    (void)out;
    if (wa_infer(params, in, n_in, &checked, err))
        return -1;
    wa_layout g = wa_layout_of(p, in->dim[0], in->dim[1]);
    int64_t c = p->dim, h = p->heads, n = g.tokens, t = g.table_rows, s = g.shifted;
    int64_t nc = sm_mul(n, c), hnn = sm_mul(h, sm_mul(n, n));
    int64_t x = sm_shape_elems(in), padded = sm_mul(sm_mul(g.hp, g.wp), c);

    /* per window */
    int64_t macs = sm_add(sm_mul(4, sm_mul(nc, c)), sm_mul(2, sm_mul(n, nc)));
    int64_t flops = sm_add(sm_mul(3 * p->qkv_bias + p->proj_bias, nc), sm_mul(4 + s, hnn));
    int64_t bytes = sm_add(sm_mul(20, nc), sm_mul(6 + 2 * s, hnn));
    if (p->v2) {
        flops = sm_add(flops, sm_add(sm_add(sm_mul(6, nc), sm_mul(2 * h, n)), hnn));
        bytes = sm_add(bytes, sm_add(sm_mul(2, nc), sm_mul(2, hnn)));
    } else {
        flops = sm_add(flops, nc);
    }
    macs = sm_mul(g.windows, macs);
    flops = sm_mul(g.windows, flops);
    bytes = sm_mul(g.windows, bytes);

    /* per sample: the windowing copies */
    int64_t windowing = sm_add(sm_add(x, padded), sm_mul(4 + 4 * s, padded));
    if (padded != x)
        windowing = sm_add(windowing, sm_mul(2, x));
    bytes = sm_add(bytes, windowing);

    /* per sample: v2's bias from the cpb MLP */
    if (p->v2) {
        int64_t mlp_macs = sm_mul(t, sm_add(2 * WA_CPB_HIDDEN, sm_mul(WA_CPB_HIDDEN, h)));
        macs = sm_add(macs, mlp_macs);
        flops = sm_add(flops, sm_add(sm_add(sm_mul(2 * WA_CPB_HIDDEN, t), sm_mul(5, hnn)), 2 * h));
        bytes = sm_add(bytes, sm_add(sm_mul(t, sm_add(2 + 4 * WA_CPB_HIDDEN, h)), sm_mul(4, hnn)));
    }
    m->macs = macs;
    m->flops = sm_add(sm_mul(2, macs), flops);
    m->matmul_flops = sm_mul(2, macs); /* projections, scores, context; the rest vector */
    m->bwd_flops = sm_mul(2, m->flops);
    m->bytes = sm_mul(4, bytes);
    /* qkv's and proj's bias gradients, their outputs' gradients summed over every window's
     * tokens in reduction kernels of their own (plugin ABI 20) */
    m->bias_grad_elems = sm_mul(g.windows, sm_mul(3 * p->qkv_bias + p->proj_bias, nc));
    m->bias_grad_sums = p->qkv_bias + p->proj_bias;
    /* qkv and proj as products (plugin ABI 22; v2's bias MLP, once a sample, left out): 4 N C^2
     * MACs a window, reading the window's tokens and the context, writing Q, K, V and the
     * output */
    m->linear_products = 2;
    m->linear_flops = sm_mul(g.windows, sm_mul(8, sm_mul(nc, c)));
    m->linear_input_elems = sm_mul(g.windows, sm_mul(2, nc));
    m->linear_output_elems = sm_mul(g.windows, sm_mul(4, nc));
    wa_weight_layout w = wa_weights_of(p);
    m->weights = w.total;
    m->param_tensors = w.tensors;
    return 0;
}

/* What training keeps, per window of N tokens, as torchvision's shifted_window_attention runs
 * it (measured with saved_tensors_hooks under torch 1.13 and 2.5, fitted exactly over five
 * shapes): the partitioned copy of the input (the qkv projection's input), Q scaled, the
 * contiguous copies of K and V the score and context products keep, the softmax's result and
 * the output projection's input: 5 N C + h N^2. The qkv projection's output itself is not
 * kept. V2's cosine attention keeps that output (F.normalize reads Q and K as views of it), the
 * normalised Q and K, their norms (h N each, twice), the scores before and after the logit
 * scale and the rest as V1: 8 N C + 2 h N^2 + 4 h N. */
static int wa_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                    sm_layer_saved *s, sm_error *err)
{
    const window_attention_params *p = params;
    (void)n_in, (void)out, (void)err;
    wa_layout g = wa_layout_of(p, in->dim[0], in->dim[1]);
    int64_t nc = sm_mul(g.tokens, p->dim), hn = sm_mul(p->heads, g.tokens),
            hnn = sm_mul(hn, g.tokens);
    int64_t one = p->v2 ? sm_add(sm_add(sm_mul(8, nc), sm_mul(2, hnn)), sm_mul(4, hn))
                        : sm_add(sm_mul(5, nc), hnn);
    s->extra_elems = sm_mul(g.windows, one);
    return 0;
}

static const sm_layer_type window_attention_type = {
    SM_LAYER_TYPE_INIT,
    .name = "window_attention",
    .summary = "Swin's shifted window attention on H x W x C (torchvision's "
               "ShiftedWindowAttention, V2 with v2=true): dim, heads, window, shift, qkv_bias, "
               "proj_bias, v2",
    .params_size = sizeof(window_attention_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = wa_parse,
    .infer = wa_infer,
    .metrics = wa_metrics,
    .traits = SM_TRAIT_ATTENTION,
    .saved = wa_saved,
};

SM_DEFINE_PLUGIN(window_attention_type)
