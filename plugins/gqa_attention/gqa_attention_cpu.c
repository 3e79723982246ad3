/*
 * CPU kernels of gqa_attention (kernels.h, struct sm_cpu_kernels), OpenBLAS sgemm for every
 * product (the projections: common/linear_cpu.h). R = batch x S rows; Q is R x E, K and V the
 * column blocks of one R x 2kvE matrix.
 *
 *   forward    Q = X W_q^T,  K = X W_k^T,  V = X W_v^T;  rotate Q and K (rope_theta > 0)
 *              for each sequence and head j (key/value head t = j / (h / kv)):
 *                  P = softmax(c Q_j K_t^T)  (causal: j > i masked),  C_j = P V_t
 *              Y = C W_o^T
 *   backward   dC = dY W_o,  dW_o = dY^T C
 *              per sequence and head: dV_t += P^T dC_j,  dP = dC_j V_t^T,
 *                  dS = P (dP - rowsum(dP P)),  dQ_j = c dS K_t,  dK_t += c dS^T Q_j
 *              rotate dQ and dK back (the transpose of the rotation)
 *              dX += dQ W_q + dK W_k + dV W_v,  dW_q = dQ^T X, ...
 * The rotation of a head's pair i at position p by a = gqa_angle(theta, d, i, p):
 * (u, v) -> (u cos a - v sin a, v cos a + u sin a), the pair being features (i, i + d/2)
 * (Hugging Face's q * cos + rotate_half(q) * sin) or (2i, 2i + 1) (rope_form=complex: Meta's
 * (u + iv) e^{ia}).
 * State: rotated Q, rotated K and V, every head's P, C. Work: dC, dQ, dK dV, one head's dP.
 */
#include <cblas.h>
#include <math.h>

#include "cpu_util.h"
#include "linear_cpu.h"
#include "gqa_attention.h"

static size_t gqa_state_size(const sm_layer_io *l)
{
    gqa_geom g = gqa_geom_of(l);
    return cpu_float_bytes(gqa_state_floats(&g));
}

static size_t gqa_work_size(const sm_layer_io *l)
{
    gqa_geom g = gqa_geom_of(l);
    return cpu_float_bytes(
        sm_add(sm_add(sm_mul(2 * g.e, g.r), sm_mul(2 * g.ekv, g.r)), sm_mul(g.s, g.s)));
}

/* Rotates the heads of `width` features of every row (row stride ld) by sign * the angle of
 * its position: sign -1 is the transpose, which the gradients go through. */
static void rotate(const gqa_geom *g, float *m, int64_t width, int64_t ld, int sign)
{
    if (g->theta <= 0)
        return;
    int64_t half = g->d / 2, gap = gqa_pair_gap(g->rope_form, g->d);
    for (int64_t r = 0; r < g->r; r++)
        for (int64_t i = 0; i < half; i++) {
            float a = gqa_angle(g->theta, g->d, i, r % g->s), c = cosf(a), s = sign * sinf(a);
            for (int64_t h0 = 0; h0 < width; h0 += g->d) {
                float *u = m + r * ld + h0 + gqa_pair_first(g->rope_form, i), *v = u + gap;
                float uu = *u, vv = *v;
                *u = uu * c - vv * s;
                *v = vv * c + uu * s;
            }
        }
}

static int gqa_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    gqa_geom g = gqa_geom_of(l);
    int64_t k2 = 2 * g.ekv, group = g.h / g.kv;
    const float *x = l->in[0].data;
    linear_cpu_forward(g.r, g.e, g.e, x, g.e, g.wq, NULL, g.q, g.e);
    linear_cpu_forward(g.r, g.e, g.ekv, x, g.e, g.wk, NULL, g.kvm, k2);
    linear_cpu_forward(g.r, g.e, g.ekv, x, g.e, g.wv, NULL, g.kvm + g.ekv, k2);
    rotate(&g, g.q, g.e, g.e, 1);
    rotate(&g, g.kvm, g.ekv, k2, 1);
    for (int64_t t = 0; t < g.n; t++)
        for (int64_t h = 0; h < g.h; h++) {
            const float *q = g.q + t * g.s * g.e + h * g.d;
            const float *k = g.kvm + t * g.s * k2 + (h / group) * g.d;
            float *p = g.p + (t * g.h + h) * g.s * g.s;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g.s, (int)g.s, (int)g.d,
                        g.scale, q, (int)g.e, k, (int)k2, 0.0f, p, (int)g.s);
            cpu_softmax_rows(p, g.s, g.s, g.causal);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.s,
                        1.0f, p, (int)g.s, k + g.ekv, (int)k2, 0.0f,
                        g.ctx + t * g.s * g.e + h * g.d, (int)g.e);
        }
    linear_cpu_forward(g.r, g.e, g.e, g.ctx, g.e, g.wo, NULL, l->out->data, g.e);
    return 0;
}

static int gqa_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    gqa_geom g = gqa_geom_of(l);
    int64_t k2 = 2 * g.ekv, group = g.h / g.kv;
    const float *x = l->in[0].data, *dy = l->dout->data;
    float *dctx = l->work, *dq = dctx + g.r * g.e, *dkv = dq + g.r * g.e, *dp = dkv + g.r * k2;
    linear_cpu_input_grad(g.r, g.e, g.e, dy, g.e, g.wo, 0.0f, dctx, g.e);
    if (l->dw)
        linear_cpu_weight_grad(g.r, g.e, g.e, dy, g.e, g.ctx, g.e, g.dwo, NULL);
    memset(dkv, 0, (size_t)(g.r * k2) * sizeof(float)); /* heads of a group add into it */
    for (int64_t t = 0; t < g.n; t++)
        for (int64_t h = 0; h < g.h; h++) {
            int64_t qo = t * g.s * g.e + h * g.d, ko = t * g.s * k2 + (h / group) * g.d;
            const float *p = g.p + (t * g.h + h) * g.s * g.s, *dc = dctx + qo;
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.s, 1.0f,
                        p, (int)g.s, dc, (int)g.e, 1.0f, dkv + ko + g.ekv, (int)k2);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g.s, (int)g.s, (int)g.d, 1.0f,
                        dc, (int)g.e, g.kvm + ko + g.ekv, (int)k2, 0.0f, dp, (int)g.s);
            for (int64_t i = 0; i < g.s; i++) {
                float *row = dp + i * g.s;
                const float *pr = p + i * g.s;
                float dot = 0;
                for (int64_t j = 0; j < g.s; j++)
                    dot += row[j] * pr[j];
                for (int64_t j = 0; j < g.s; j++)
                    row[j] = pr[j] * (row[j] - dot);
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.s,
                        g.scale, dp, (int)g.s, g.kvm + ko, (int)k2, 0.0f, dq + qo, (int)g.e);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g.s, (int)g.d, (int)g.s,
                        g.scale, dp, (int)g.s, g.q + qo, (int)g.e, 1.0f, dkv + ko, (int)k2);
        }
    rotate(&g, dq, g.e, g.e, -1);
    rotate(&g, dkv, g.ekv, k2, -1);
    float *dx = l->din[0].data;
    if (dx) {
        linear_cpu_input_grad(g.r, g.e, g.e, dq, g.e, g.wq, 1.0f, dx, g.e);
        linear_cpu_input_grad(g.r, g.e, g.ekv, dkv, k2, g.wk, 1.0f, dx, g.e);
        linear_cpu_input_grad(g.r, g.e, g.ekv, dkv + g.ekv, k2, g.wv, 1.0f, dx, g.e);
    }
    if (l->dw) {
        linear_cpu_weight_grad(g.r, g.e, g.e, dq, g.e, x, g.e, g.dwq, NULL);
        linear_cpu_weight_grad(g.r, g.e, g.ekv, dkv, k2, x, g.e, g.dwk, NULL);
        linear_cpu_weight_grad(g.r, g.e, g.ekv, dkv + g.ekv, k2, x, g.e, g.dwv, NULL);
    }
    return 0;
}

const struct sm_cpu_kernels gqa_attention_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .work_size = gqa_work_size,
    .state_size = gqa_state_size,
    .init = gqa_init,
    .forward = gqa_forward,
    .backward = gqa_backward,
};

SM_DEFINE_CPU_KERNELS(gqa_attention_cpu_kernels)
