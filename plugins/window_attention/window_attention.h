/* The parameters of window_attention and the geometry its descriptor and CPU kernels share:
 * the padded size, the shift torchvision really applies, the windows, the weights' layout. */
#ifndef SCALEMETER_PLUGINS_WINDOW_ATTENTION_H
#define SCALEMETER_PLUGINS_WINDOW_ATTENTION_H

#include <stdint.h>

#include <scalemeter/plugin.h>

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
static inline int64_t wa_rel_index(const window_attention_params *p, int64_t i, int64_t j)
{
    int64_t ww = p->window[1];
    int64_t dr = i / ww - j / ww, dc = i % ww - j % ww;
    return (dr + p->window[0] - 1) * (2 * ww - 1) + (dc + ww - 1);
}

/* Which of torchvision's mask regions a padded, rolled coordinate pos (along a dim of padded
 * size `size`, window `win`, applied shift `shift`) is in: its slices (0, -win), (-win, -shift),
 * (-shift, None); with no shift along the dim the last slice covers it all. */
static inline int wa_region(int64_t pos, int64_t size, int64_t win, int64_t shift)
{
    if (shift == 0)
        return 0;
    return pos < size - win ? 0 : pos < size - shift ? 1 : 2;
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
#define WA_TAKE(field, size)                                                                      \
    do {                                                                                          \
        o.field = at;                                                                             \
        at = sm_add(at, (size));                                                                  \
        o.tensors++;                                                                              \
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

#endif /* SCALEMETER_PLUGINS_WINDOW_ATTENTION_H */
