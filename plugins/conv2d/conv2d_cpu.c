/*
 * CPU kernels of conv2d (kernels.h, struct sm_cpu_kernels).
 *
 * Grouped convolutions with several channels per group run as im2col + OpenBLAS sgemm, per group:
 *   forward      Y_g (og x P) = W_g (og x K) * col_g (K x P)        K = C/groups * kh * kw
 *   weights      dW_g        += dY_g * col_g^T
 *   input        dcol_g       = W_g^T * dY_g, then col2im adds dcol_g into din
 * where P is the output pixels of the samples one GEMM covers. When a sample has few output
 * pixels (late layers at small images) several samples share one GEMM, so that its N dimension
 * stays wide enough for sgemm to run at speed; a 1x1 stride-1 unpadded convolution of one sample
 * needs no im2col at all. Depthwise convolutions (one input channel per group) run as direct
 * loops, since a GEMM with one row per group is all overhead; at stride 1 over a zero-padded
 * copy of each plane, so that each kernel tap is one long vectorised loop.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>

#include "conv2d.h"
#include "cpu_util.h"

/* Output columns one GEMM should cover at least, when samples are small. */
#define TARGET_COLS 256

/* The geometry of one call, derived once from params and shapes. */
typedef struct conv_geom {
    int64_t n, c, h, w, out, ho, wo, kh, kw, sh, sw, ph, pw, dh, dw, groups;
    int64_t cg, og, k, p; /* channels in and out per group, K, output pixels of one sample */
    int64_t nb;           /* samples per GEMM */
    int direct;           /* 1x1, stride 1, no padding: the input is already the col matrix */
    int depthwise;        /* one input channel per group: direct loops */
    int bias;
} conv_geom;

static conv_geom geom_of(const sm_layer_io *l)
{
    const conv2d_params *p = l->params;
    const sm_shape *in = &l->in[0].shape, *out = &l->out->shape;
    conv_geom g = {
        .n = l->in[0].n,
        .c = in->dim[0],
        .h = in->dim[1],
        .w = in->dim[2],
        .out = out->dim[0],
        .ho = out->dim[1],
        .wo = out->dim[2],
        .kh = p->kernel[0],
        .kw = p->kernel[1],
        .sh = p->stride[0],
        .sw = p->stride[1],
        .ph = p->padding[0],
        .pw = p->padding[1],
        .dh = p->dilation[0],
        .dw = p->dilation[1],
        .groups = p->groups,
        .bias = p->bias,
    };
    g.cg = g.c / g.groups;
    g.og = g.out / g.groups;
    g.k = g.cg * g.kh * g.kw;
    g.p = g.ho * g.wo;
    g.depthwise = g.cg == 1;
    g.nb = (TARGET_COLS + g.p - 1) / g.p;
    if (g.nb > g.n)
        g.nb = g.n;
    if (g.nb < 1)
        g.nb = 1;
    g.direct =
        g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && g.nb == 1;
    return g;
}

/* Output columns ow whose input column ow * s - pad + off lies in [0, w): [*lo, *hi). */
static void valid_range(int64_t wo, int64_t w, int64_t s, int64_t pad, int64_t off, int64_t *lo,
                        int64_t *hi)
{
    int64_t shift = off - pad; /* iw = ow * s + shift */
    int64_t a = shift >= 0 ? 0 : (-shift + s - 1) / s;
    int64_t b = w - shift <= 0 ? 0 : (w - shift + s - 1) / s;
    *lo = a < wo ? a : wo;
    *hi = b < wo ? b : wo;
    if (*hi < *lo)
        *hi = *lo;
}

/* col (K x cols, row stride ld) from channels [c0, c0 + cg) of one sample x (C x H x W), into
 * columns [0, P) of each row. */
static void im2col(const conv_geom *g, const float *x, float *col, int64_t ld)
{
    for (int64_t c = 0; c < g->cg; c++)
        for (int64_t ki = 0; ki < g->kh; ki++)
            for (int64_t kj = 0; kj < g->kw; kj++) {
                float *row = col + ((c * g->kh + ki) * g->kw + kj) * ld;
                const float *plane = x + c * g->h * g->w;
                int64_t lo, hi;
                valid_range(g->wo, g->w, g->sw, g->pw, kj * g->dw, &lo, &hi);
                for (int64_t oh = 0; oh < g->ho; oh++) {
                    float *dst = row + oh * g->wo;
                    int64_t ih = oh * g->sh - g->ph + ki * g->dh;
                    if (ih < 0 || ih >= g->h || lo == hi) {
                        memset(dst, 0, (size_t)g->wo * sizeof *dst);
                        continue;
                    }
                    const float *src = plane + ih * g->w;
                    int64_t shift = kj * g->dw - g->pw; /* iw = ow * sw + shift */
                    memset(dst, 0, (size_t)lo * sizeof *dst);
                    if (g->sw == 1)
                        memcpy(dst + lo, src + lo + shift, (size_t)(hi - lo) * sizeof *dst);
                    else
                        for (int64_t ow = lo; ow < hi; ow++)
                            dst[ow] = src[ow * g->sw + shift];
                    memset(dst + hi, 0, (size_t)(g->wo - hi) * sizeof *dst);
                }
            }
}

/* The adjoint of im2col: dx (channels of one sample) += the columns of dcol. */
static void col2im(const conv_geom *g, const float *dcol, int64_t ld, float *dx)
{
    for (int64_t c = 0; c < g->cg; c++)
        for (int64_t ki = 0; ki < g->kh; ki++)
            for (int64_t kj = 0; kj < g->kw; kj++) {
                const float *row = dcol + ((c * g->kh + ki) * g->kw + kj) * ld;
                float *plane = dx + c * g->h * g->w;
                int64_t lo, hi;
                valid_range(g->wo, g->w, g->sw, g->pw, kj * g->dw, &lo, &hi);
                for (int64_t oh = 0; oh < g->ho; oh++) {
                    int64_t ih = oh * g->sh - g->ph + ki * g->dh;
                    if (ih < 0 || ih >= g->h)
                        continue;
                    const float *src = row + oh * g->wo;
                    float *dst = plane + ih * g->w;
                    int64_t shift = kj * g->dw - g->pw;
                    for (int64_t ow = lo; ow < hi; ow++)
                        dst[ow * g->sw + shift] += src[ow];
                }
            }
}

/* ---- depthwise: direct loops --------------------------------------------------------------- */

/* y (one output plane) += w * x (one input plane), over every kernel tap. */
static void dw_forward_plane(const conv_geom *g, const float *x, const float *w, float *y)
{
    for (int64_t ki = 0; ki < g->kh; ki++)
        for (int64_t kj = 0; kj < g->kw; kj++) {
            float wk = w[ki * g->kw + kj];
            int64_t lo, hi;
            valid_range(g->wo, g->w, g->sw, g->pw, kj * g->dw, &lo, &hi);
            for (int64_t oh = 0; oh < g->ho; oh++) {
                int64_t ih = oh * g->sh - g->ph + ki * g->dh;
                if (ih < 0 || ih >= g->h)
                    continue;
                const float *src = x + ih * g->w;
                int64_t shift = kj * g->dw - g->pw;
                float *dst = y + oh * g->wo;
                if (g->sw == 1)
                    for (int64_t ow = lo; ow < hi; ow++)
                        dst[ow] += wk * src[ow + shift];
                else
                    for (int64_t ow = lo; ow < hi; ow++)
                        dst[ow] += wk * src[ow * g->sw + shift];
            }
        }
}

/* dx += w (*) dy and dw += dy (*) x for one plane pair. */
static void dw_backward_plane(const conv_geom *g, const float *x, const float *w, const float *dy,
                              float *dx, float *dwt)
{
    for (int64_t ki = 0; ki < g->kh; ki++)
        for (int64_t kj = 0; kj < g->kw; kj++) {
            float wk = w[ki * g->kw + kj];
            double acc = 0;
            int64_t lo, hi;
            valid_range(g->wo, g->w, g->sw, g->pw, kj * g->dw, &lo, &hi);
            for (int64_t oh = 0; oh < g->ho; oh++) {
                int64_t ih = oh * g->sh - g->ph + ki * g->dh;
                if (ih < 0 || ih >= g->h)
                    continue;
                int64_t shift = kj * g->dw - g->pw;
                const float *src = x + ih * g->w, *d = dy + oh * g->wo;
                if (g->sw == 1) {
                    acc += cpu_dot(d + lo, src + lo + shift, hi - lo);
                } else {
                    float a = 0;
                    for (int64_t ow = lo; ow < hi; ow++)
                        a += d[ow] * src[ow * g->sw + shift];
                    acc += a;
                }
                if (dx) {
                    float *dst = dx + ih * g->w;
                    for (int64_t ow = lo; ow < hi; ow++)
                        dst[ow * g->sw + shift] += wk * d[ow];
                }
            }
            if (dwt)
                dwt[ki * g->kw + kj] += (float)acc;
        }
}

/* Stride 1: each plane is copied into a zero-padded Hp x Wp one, and every kernel tap becomes
 * one long contiguous loop over the output seen with the padded row width (ho rows of Wp, of
 * which the first wo count): no bounds inside the loops, and rows of a few pixels (late layers)
 * no longer cost a loop each. */
typedef struct padded {
    int64_t hp, wp, len;  /* padded size; len: flat output positions covering every output */
    float *xp, *yf, *dxp; /* Hp Wp, ho Wp, Hp Wp floats of scratch */
} padded;

static int padded_path(const conv_geom *g) { return g->sh == 1 && g->sw == 1; }

static padded padded_of(const conv_geom *g, float *work)
{
    padded q = {g->h + 2 * g->ph, g->w + 2 * g->pw, 0, NULL, NULL, NULL};
    q.len = (g->ho - 1) * q.wp + g->wo;
    q.xp = work;
    q.yf = work + q.hp * q.wp;
    q.dxp = q.yf + g->ho * q.wp;
    return q;
}

static size_t padded_floats(const conv_geom *g)
{
    int64_t hp = g->h + 2 * g->ph, wp = g->w + 2 * g->pw;
    return (size_t)(2 * hp * wp + g->ho * wp);
}

static void pad_plane(const conv_geom *g, const padded *q, const float *x)
{
    memset(q->xp, 0, (size_t)(q->hp * q->wp) * sizeof(float));
    for (int64_t i = 0; i < g->h; i++)
        memcpy(q->xp + (i + g->ph) * q->wp + g->pw, x + i * g->w, (size_t)g->w * sizeof(float));
}

static int64_t tap_offset(const conv_geom *g, const padded *q, int64_t ki, int64_t kj)
{
    return ki * g->dh * q->wp + kj * g->dw;
}

static void padded_forward(const conv_geom *g, const float *x, const float *w, float *y,
                           float *work)
{
    padded q = padded_of(g, work);
    int64_t kk = g->kh * g->kw, hw = g->h * g->w;
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t oc = 0; oc < g->out; oc++) {
            const float *wk = w + oc * kk;
            pad_plane(g, &q, x + (n * g->c + oc / g->og) * hw);
            float b = g->bias ? w[g->out * kk + oc] : 0.0f;
            for (int64_t t = 0; t < q.len; t++)
                q.yf[t] = b;
            for (int64_t ki = 0; ki < g->kh; ki++)
                for (int64_t kj = 0; kj < g->kw; kj++)
                    cpu_axpy(q.yf, q.xp + tap_offset(g, &q, ki, kj), wk[ki * g->kw + kj], q.len);
            float *plane = y + (n * g->out + oc) * g->p;
            for (int64_t oh = 0; oh < g->ho; oh++)
                memcpy(plane + oh * g->wo, q.yf + oh * q.wp, (size_t)g->wo * sizeof(float));
        }
}

static void padded_backward(const conv_geom *g, const float *x, const float *w, const float *dy,
                            float *dx, float *dw, float *work)
{
    padded q = padded_of(g, work);
    int64_t kk = g->kh * g->kw, hw = g->h * g->w;
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t oc = 0; oc < g->out; oc++) {
            int64_t ic = oc / g->og;
            const float *wk = w + oc * kk, *d = dy + (n * g->out + oc) * g->p;
            /* dy laid out with the padded row width, zeros beyond each row's wo outputs */
            memset(q.yf, 0, (size_t)(g->ho * q.wp) * sizeof(float));
            for (int64_t oh = 0; oh < g->ho; oh++)
                memcpy(q.yf + oh * q.wp, d + oh * g->wo, (size_t)g->wo * sizeof(float));
            if (dw) {
                pad_plane(g, &q, x + (n * g->c + ic) * hw);
                for (int64_t ki = 0; ki < g->kh; ki++)
                    for (int64_t kj = 0; kj < g->kw; kj++)
                        dw[oc * kk + ki * g->kw + kj] +=
                            cpu_dot(q.yf, q.xp + tap_offset(g, &q, ki, kj), q.len);
            }
            if (!dx)
                continue;
            memset(q.dxp, 0, (size_t)(q.hp * q.wp) * sizeof(float));
            for (int64_t ki = 0; ki < g->kh; ki++)
                for (int64_t kj = 0; kj < g->kw; kj++)
                    cpu_axpy(q.dxp + tap_offset(g, &q, ki, kj), q.yf, wk[ki * g->kw + kj], q.len);
            float *plane = dx + (n * g->c + ic) * hw;
            for (int64_t i = 0; i < g->h; i++)
                cpu_accumulate(plane + i * g->w, q.dxp + (i + g->ph) * q.wp + g->pw, g->w);
        }
}

static void depthwise_forward(const conv_geom *g, const float *x, const float *w, float *y)
{
    int64_t kk = g->kh * g->kw, hw = g->h * g->w;
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t oc = 0; oc < g->out; oc++) {
            float *plane = y + (n * g->out + oc) * g->p;
            float b = g->bias ? w[g->out * kk + oc] : 0.0f;
            for (int64_t i = 0; i < g->p; i++)
                plane[i] = b;
            dw_forward_plane(g, x + (n * g->c + oc / g->og) * hw, w + oc * kk, plane);
        }
}

static void depthwise_backward(const conv_geom *g, const float *x, const float *w, const float *dy,
                               float *dx, float *dw)
{
    int64_t kk = g->kh * g->kw, hw = g->h * g->w;
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t oc = 0; oc < g->out; oc++) {
            int64_t ic = oc / g->og;
            dw_backward_plane(g, x + (n * g->c + ic) * hw, w + oc * kk,
                              dy + (n * g->out + oc) * g->p, dx ? dx + (n * g->c + ic) * hw : NULL,
                              dw ? dw + oc * kk : NULL);
        }
}

/* ---- im2col + sgemm ------------------------------------------------------------------------ */

/* The col matrix (K x nbc P) of group gi for samples [n0, n0 + nbc). */
static const float *build_col(const conv_geom *g, const float *x, int64_t n0, int64_t nbc,
                              int64_t gi, float *col)
{
    int64_t hw = g->h * g->w;
    if (g->direct)
        return x + (n0 * g->c + gi * g->cg) * hw;
    for (int64_t j = 0; j < nbc; j++)
        im2col(g, x + ((n0 + j) * g->c + gi * g->cg) * hw, col + j * g->p, nbc * g->p);
    return col;
}

static void gemm_forward(const conv_geom *g, const float *x, const float *w, float *y, float *work)
{
    float *col = work, *ytmp = work + g->k * g->nb * g->p;
    for (int64_t n0 = 0; n0 < g->n; n0 += g->nb) {
        int64_t nbc = g->n - n0 < g->nb ? g->n - n0 : g->nb, cols = nbc * g->p;
        for (int64_t gi = 0; gi < g->groups; gi++) {
            const float *cm = build_col(g, x, n0, nbc, gi, col);
            const float *wg = w + gi * g->og * g->k;
            if (nbc == 1) {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->og, (int)cols,
                            (int)g->k, 1.0f, wg, (int)g->k, cm, (int)cols, 0.0f,
                            y + (n0 * g->out + gi * g->og) * g->p, (int)g->p);
                continue;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->og, (int)cols, (int)g->k,
                        1.0f, wg, (int)g->k, cm, (int)cols, 0.0f, ytmp, (int)cols);
            for (int64_t o = 0; o < g->og; o++)
                for (int64_t j = 0; j < nbc; j++)
                    memcpy(y + ((n0 + j) * g->out + gi * g->og + o) * g->p,
                           ytmp + o * cols + j * g->p, (size_t)g->p * sizeof *y);
        }
    }
    if (g->bias) {
        const float *b = w + g->out * g->k;
        for (int64_t n = 0; n < g->n; n++)
            for (int64_t o = 0; o < g->out; o++) {
                float *plane = y + (n * g->out + o) * g->p;
                for (int64_t i = 0; i < g->p; i++)
                    plane[i] += b[o];
            }
    }
}

static void gemm_backward(const conv_geom *g, const float *x, const float *w, const float *dy,
                          float *dx, float *dw, float *work)
{
    int64_t span = g->k * g->nb * g->p, hw = g->h * g->w;
    float *col = work, *dcol = work + span, *dytmp = work + 2 * span;
    for (int64_t n0 = 0; n0 < g->n; n0 += g->nb) {
        int64_t nbc = g->n - n0 < g->nb ? g->n - n0 : g->nb, cols = nbc * g->p;
        for (int64_t gi = 0; gi < g->groups; gi++) {
            const float *wg = w + gi * g->og * g->k, *d;
            int64_t ldd;
            if (nbc == 1) {
                d = dy + (n0 * g->out + gi * g->og) * g->p;
                ldd = g->p;
            } else {
                for (int64_t o = 0; o < g->og; o++)
                    for (int64_t j = 0; j < nbc; j++)
                        memcpy(dytmp + o * cols + j * g->p,
                               dy + ((n0 + j) * g->out + gi * g->og + o) * g->p,
                               (size_t)g->p * sizeof *dytmp);
                d = dytmp;
                ldd = cols;
            }
            if (dw) {
                const float *cm = build_col(g, x, n0, nbc, gi, col);
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->og, (int)g->k,
                            (int)cols, 1.0f, d, (int)ldd, cm, (int)cols, 1.0f,
                            dw + gi * g->og * g->k, (int)g->k);
            }
            if (!dx)
                continue;
            if (g->direct) { /* dcol is the input gradient itself: add into it */
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->k, (int)cols,
                            (int)g->og, 1.0f, wg, (int)g->k, d, (int)ldd, 1.0f,
                            dx + (n0 * g->c + gi * g->cg) * hw, (int)cols);
                continue;
            }
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->k, (int)cols, (int)g->og,
                        1.0f, wg, (int)g->k, d, (int)ldd, 0.0f, dcol, (int)cols);
            for (int64_t j = 0; j < nbc; j++)
                col2im(g, dcol + j * g->p, cols, dx + ((n0 + j) * g->c + gi * g->cg) * hw);
        }
    }
}

/* ---- entries ------------------------------------------------------------------------------- */

static size_t conv2d_work_size(const sm_layer_io *l)
{
    conv_geom g = geom_of(l);
    if (g.depthwise)
        return padded_path(&g) ? padded_floats(&g) * sizeof(float) : 0;
    double floats = (2.0 * (double)g.k + (double)g.og) * (double)(g.nb * g.p);
    if (floats * sizeof(float) >= (double)SIZE_MAX / 2)
        return SIZE_MAX;
    return (size_t)floats * sizeof(float);
}

static void conv2d_init(const sm_layer_io *l, float *w, void *state)
{
    (void)state;
    conv_geom g = geom_of(l);
    /* weight and bias alike: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = C/groups * kh * kw */
    cpu_scale(w, l->n_w, 1.0f / sqrtf((float)g.k));
}

static int conv2d_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    conv_geom g = geom_of(l);
    if (g.depthwise && padded_path(&g))
        padded_forward(&g, l->in[0].data, l->w, l->out->data, l->work);
    else if (g.depthwise)
        depthwise_forward(&g, l->in[0].data, l->w, l->out->data);
    else
        gemm_forward(&g, l->in[0].data, l->w, l->out->data, l->work);
    return 0;
}

static int conv2d_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    conv_geom g = geom_of(l);
    const float *dy = l->dout->data;
    float *dx = l->din[0].data, *dw = l->dw;
    if (dw)
        memset(dw, 0, (size_t)l->n_w * sizeof *dw);
    if (g.depthwise && padded_path(&g))
        padded_backward(&g, l->in[0].data, l->w, dy, dx, dw, l->work);
    else if (g.depthwise)
        depthwise_backward(&g, l->in[0].data, l->w, dy, dx, dw);
    else
        gemm_backward(&g, l->in[0].data, l->w, dy, dx, dw, l->work);
    if (dw && g.bias) {
        float *db = dw + g.out * g.k;
        for (int64_t n = 0; n < g.n; n++)
            for (int64_t o = 0; o < g.out; o++) {
                const float *plane = dy + (n * g.out + o) * g.p;
                float s = 0;
                for (int64_t i = 0; i < g.p; i++)
                    s += plane[i];
                db[o] += s;
            }
    }
    return 0;
}

const struct sm_cpu_kernels conv2d_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .work_size = conv2d_work_size,
    .init = conv2d_init,
    .forward = conv2d_forward,
    .backward = conv2d_backward,
};

SM_DEFINE_CPU_KERNELS(conv2d_cpu_kernels)
