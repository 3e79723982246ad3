/* The parameters of window_attention and the geometry its descriptor and its CPU and GPU kernels
 * share: the padded size, the shift torchvision really applies, the windows, the weights' layout
 * and initial values. The index functions marked WA_HD are compiled as device code too
 * (window_attention_gpu.cu), so both backends compute the same indices. */
#ifndef SCALEMETER_PLUGINS_WINDOW_ATTENTION_H
#define SCALEMETER_PLUGINS_WINDOW_ATTENTION_H

#include <math.h>
#include <stdint.h>

#include <scalemeter/plugin.h>

#ifdef __CUDACC__
#define WA_HD __host__ __device__
#else
#define WA_HD
#endif

/* Hidden width of v2's continuous position bias MLP (torchvision's cpb_mlp: Linear(2, 512)). */
#define WA_CPB_HIDDEN 512

typedef struct window_attention_params {
    int64_t dim;       /* C */
    int64_t heads;     /* divides dim */
    int64_t window[2]; /* wh, ww */
    int64_t shift[2];  /* as given; wa_layout_of drops a dim's shift the window covers */
    int qkv_bias;
    int proj_bias;
    int v2; /* ShiftedWindowAttentionV2: cosine attention, logit scale, cpb MLP */
} window_attention_params;

/* One H x W sample cut into windows, as torchvision's shifted_window_attention does it. */
typedef struct wa_layout {
    int64_t hp, wp;     /* H and W padded up to multiples of the window */
    int64_t shift[2];   /* the shift applied: 0 along a dim whose window covers the padded size */
    int shifted;        /* any shift left: the roll and the -100 mask happen */
    int64_t windows;    /* nW = (hp / wh) (wp / ww) */
    int64_t tokens;     /* N = wh ww per window */
    int64_t table_rows; /* T = (2 wh - 1)(2 ww - 1): relative positions within a window */
} wa_layout;

/* The layout of an H x W input; counts saturate at SM_OVERFLOW. */
static inline wa_layout wa_layout_of(const window_attention_params *p, int64_t h, int64_t w)
{
    wa_layout g;
    int64_t wh = p->window[0], ww = p->window[1];
    g.hp = sm_mul(h / wh + (h % wh != 0), wh);
    g.wp = sm_mul(w / ww + (w % ww != 0), ww);
    /* torchvision: "If window size is larger than feature size, there is no need to shift" */
    g.shift[0] = wh >= g.hp ? 0 : p->shift[0];
    g.shift[1] = ww >= g.wp ? 0 : p->shift[1];
    g.shifted = g.shift[0] + g.shift[1] > 0;
    g.windows = sm_mul(g.hp / wh, g.wp / ww);
    g.tokens = sm_mul(wh, ww);
    g.table_rows = sm_mul(2 * wh - 1, 2 * ww - 1);
    return g;
}

/* Row of the relative position table for query token i and key token j of a window (tokens
 * read row by row), torchvision's relative_position_index:
 * (ri - rj + wh - 1) (2 ww - 1) + (ci - cj + ww - 1). */
static inline WA_HD int64_t wa_rel_index(const window_attention_params *p, int64_t i, int64_t j)
{
    int64_t ww = p->window[1];
    int64_t dr = i / ww - j / ww, dc = i % ww - j % ww;
    return (dr + p->window[0] - 1) * (2 * ww - 1) + (dc + ww - 1);
}

/* Which of torchvision's mask regions a padded, rolled coordinate pos (along a dim of padded
 * size `size`, window `win`, applied shift `shift`) is in: its slices (0, -win), (-win, -shift),
 * (-shift, None); with no shift along the dim the last slice covers it all. */
static inline WA_HD int wa_region(int64_t pos, int64_t size, int64_t win, int64_t shift)
{
    if (shift == 0)
        return 0;
    return pos < size - win ? 0 : pos < size - shift ? 1 : 2;
}

/* The region of torchvision's mask token t of window ws (of a sample) lies in, 0 to 8; the
 * scores between tokens of different regions get -100. All 0 when not shifted. */
static inline WA_HD int wa_label(const window_attention_params *p, const wa_layout *g, int64_t ws,
                                 int64_t t)
{
    int64_t wh = p->window[0], ww = p->window[1], nww = g->wp / ww;
    int64_t y0 = (ws / nww) * wh, x0 = (ws % nww) * ww;
    return wa_region(y0 + t / ww, g->hp, wh, g->shift[0]) * 3 +
           wa_region(x0 + t % ww, g->wp, ww, g->shift[1]);
}

/* Row `row` of the windows of a batch of H x W samples (batch nW N rows; window = wi (Wp / ww)
 * + wj, token = r ww + c, as the partition orders them) is pixel (wi wh + r, wj ww + c) of the
 * padded map rolled by -shift, which torch.roll takes from ((. + shift) mod size): sample *b,
 * pixel (*y, *x). 1 when that is an input pixel, 0 when it lies in the padding. Reversing the
 * windows, rolling back and cropping send the row to that same pixel. */
static inline WA_HD int wa_source(const window_attention_params *p, const wa_layout *g, int64_t h,
                                  int64_t w, int64_t row, int64_t *b, int64_t *y, int64_t *x)
{
    int64_t wh = p->window[0], ww = p->window[1], nww = g->wp / ww;
    int64_t token = row % g->tokens, win = row / g->tokens, ws = win % g->windows;
    *b = win / g->windows;
    *y = ((ws / nww) * wh + token / ww + g->shift[0]) % g->hp;
    *x = ((ws % nww) * ww + token % ww + g->shift[1]) % g->wp;
    return *y < h && *x < w;
}

/* Value k (0, 1) of row i = a (2 ww - 1) + b of v2's relative_coords_table: the offsets
 * (a - wh + 1, b - ww + 1) divided by (wh - 1, ww - 1), times 8, then sign(v) log2(|v| + 1) / 3
 * (in double, rounded once). */
static inline WA_HD float wa_coord(const window_attention_params *p, int64_t i, int k)
{
    int64_t wh = p->window[0], ww = p->window[1];
    int64_t a = i / (2 * ww - 1), b = i % (2 * ww - 1);
    double v = k == 0 ? (double)(a - wh + 1) / (double)(wh - 1) * 8
                      : (double)(b - ww + 1) / (double)(ww - 1) * 8;
    double sign = v > 0 ? 1 : v < 0 ? -1 : 0;
    return (float)(sign * log2(fabs(v) + 1.0) / 3.0);
}

/* Offsets (in floats) of each weight tensor in the layer's flat weights, in
 * named_parameters() order; -1 where absent.
 *   v1: relative_position_bias_table (T x heads), qkv.weight (3C x C), [qkv.bias (3C)],
 *       proj.weight (C x C), [proj.bias (C)]
 *   v2: logit_scale (heads), qkv.weight, [qkv.bias], proj.weight, [proj.bias],
 *       cpb_mlp.0.weight (512 x 2), cpb_mlp.0.bias (512), cpb_mlp.2.weight (heads x 512) */
typedef struct wa_weight_layout {
    int64_t table, logit_scale, qkv_w, qkv_b, proj_w, proj_b, cpb_w0, cpb_b0, cpb_w2;
    int64_t total;   /* all the weights */
    int64_t tensors; /* param_tensors */
} wa_weight_layout;

static inline wa_weight_layout wa_weights_of(const window_attention_params *p)
{
    wa_weight_layout o = {-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0};
    int64_t c = p->dim, t = sm_mul(2 * p->window[0] - 1, 2 * p->window[1] - 1), at = 0;
#define WA_TAKE(field, size)                                                                       \
    do {                                                                                           \
        o.field = at;                                                                              \
        at = sm_add(at, (size));                                                                   \
        o.tensors++;                                                                               \
    } while (0)
    if (p->v2)
        WA_TAKE(logit_scale, p->heads);
    else
        WA_TAKE(table, sm_mul(t, p->heads));
    WA_TAKE(qkv_w, sm_mul(3 * c, c));
    if (p->qkv_bias)
        WA_TAKE(qkv_b, 3 * c);
    WA_TAKE(proj_w, sm_mul(c, c));
    if (p->proj_bias)
        WA_TAKE(proj_b, c);
    if (p->v2) {
        WA_TAKE(cpb_w0, 2 * WA_CPB_HIDDEN);
        WA_TAKE(cpb_b0, WA_CPB_HIDDEN);
        WA_TAKE(cpb_w2, sm_mul(p->heads, WA_CPB_HIDDEN));
    }
#undef WA_TAKE
    o.total = at;
    return o;
}

/* torchvision's initialisation of the host's uniform [-1, 1) weights w: the bias table
 * trunc_normal_(std=0.02), here U(-a, a) with a = 0.02 sqrt(3) (the same standard deviation);
 * nn.Linear's U(-1/sqrt(fan_in), ..) for weights and biases; v2's logit_scale log(10) and the
 * key third of qkv.bias zeroed. */
static inline void wa_init_weights(const window_attention_params *p, float *w)
{
    wa_weight_layout o = wa_weights_of(p);
    int64_t c = p->dim, t = (2 * p->window[0] - 1) * (2 * p->window[1] - 1);
    float lin = 1.0f / sqrtf((float)c);
#define WA_SCALE(at, n, bound)                                                                     \
    for (int64_t i_ = 0; i_ < (n); i_++)                                                           \
    w[(at) + i_] *= (bound)
    if (o.table >= 0)
        WA_SCALE(o.table, t * p->heads, 0.02f * sqrtf(3.0f));
    if (o.logit_scale >= 0)
        for (int64_t i = 0; i < p->heads; i++)
            w[o.logit_scale + i] = logf(10.0f);
    WA_SCALE(o.qkv_w, 3 * c * c, lin);
    if (o.qkv_b >= 0) {
        WA_SCALE(o.qkv_b, 3 * c, lin);
        if (p->v2)
            for (int64_t i = 0; i < c; i++)
                w[o.qkv_b + c + i] = 0.0f;
    }
    WA_SCALE(o.proj_w, c * c, lin);
    if (o.proj_b >= 0)
        WA_SCALE(o.proj_b, c, lin);
    if (p->v2) {
        WA_SCALE(o.cpb_w0, 3 * WA_CPB_HIDDEN, 1.0f / sqrtf(2.0f)); /* weight and bias */
        WA_SCALE(o.cpb_w2, p->heads * WA_CPB_HIDDEN, 1.0f / sqrtf((float)WA_CPB_HIDDEN));
    }
#undef WA_SCALE
}

#endif /* SCALEMETER_PLUGINS_WINDOW_ATTENTION_H */
