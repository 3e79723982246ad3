/*
 * CPU kernels of add and mul (kernels.h, struct sm_cpu_kernels), built with the same
 * SM_ELEMENTWISE_ADD or _MUL definition as elementwise.c. Inputs broadcast to the output as
 * elementwise.c infers it: aligned at the last dimension where PyTorch's rule allows, otherwise
 * (a C vector against C x H x W) as C x 1 x 1. Each input is walked with strides over the
 * output's dimensions, a stride 0 where it broadcasts; backward sums the output gradient back
 * over those dimensions by the same walk (for mul, times the other input).
 */
#include "cpu_util.h"
#include "elementwise.h"

#define D ELEMENTWISE_DIMS

/* Sizes of the output and strides of one input over them, padded at the front to D dims. */
typedef struct walk {
    int64_t size[D];
    int64_t stride[D];
} walk;

/* Strides of input shape s (batch n) over output shape o (batch n). */
static void strides_of(const sm_shape *s, const sm_shape *o, int64_t n, walk *w)
{
    elementwise_strides(s, o, n, w->size, w->stride);
}

/* Calls body(o, a, b) with the offsets of the output and of inputs a and b for every element,
 * the last dimension innermost. */
#define WALK(wa, wb, body)                                                                         \
    do {                                                                                           \
        int64_t o_ = 0;                                                                            \
        for (int64_t i0 = 0; i0 < (wa).size[0]; i0++)                                              \
            for (int64_t i1 = 0; i1 < (wa).size[1]; i1++)                                          \
                for (int64_t i2 = 0; i2 < (wa).size[2]; i2++)                                      \
                    for (int64_t i3 = 0; i3 < (wa).size[3]; i3++) {                                \
                        int64_t a_ = i0 * (wa).stride[0] + i1 * (wa).stride[1] +                   \
                                     i2 * (wa).stride[2] + i3 * (wa).stride[3];                    \
                        int64_t b_ = i0 * (wb).stride[0] + i1 * (wb).stride[1] +                   \
                                     i2 * (wb).stride[2] + i3 * (wb).stride[3];                    \
                        int64_t sa_ = (wa).stride[4], sb_ = (wb).stride[4];                        \
                        for (int64_t i4 = 0; i4 < (wa).size[4]; i4++, o_++) {                      \
                            int64_t o = o_, a = a_ + i4 * sa_, b = b_ + i4 * sb_;                  \
                            body;                                                                  \
                        }                                                                          \
                    }                                                                              \
    } while (0)

#ifdef SM_ELEMENTWISE_ADD

static int same_shape(const sm_shape *a, const sm_shape *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->dim[i] != b->dim[i])
            return 0;
    return 1;
}

static int add_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    float *y = l->out->data;
    int64_t total = sm_tensor_elems(l->out);
    memset(y, 0, (size_t)total * sizeof *y);
    for (int k = 0; k < l->n_in; k++) {
        const float *x = l->in[k].data;
        if (same_shape(&l->in[k].shape, &l->out->shape)) {
            for (int64_t i = 0; i < total; i++)
                y[i] += x[i];
            continue;
        }
        walk wx, wy;
        strides_of(&l->in[k].shape, &l->out->shape, l->in[k].n, &wx);
        wy = wx; /* unused second walk */
        WALK(wx, wy, {
            (void)b;
            y[o] += x[a];
        });
    }
    return 0;
}

static int add_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const float *dy = l->dout->data;
    int64_t total = sm_tensor_elems(l->out);
    for (int k = 0; k < l->n_in; k++) {
        float *dx = l->din[k].data;
        if (!dx)
            continue;
        if (same_shape(&l->in[k].shape, &l->out->shape)) {
            cpu_accumulate(dx, dy, total);
            continue;
        }
        walk wx;
        strides_of(&l->in[k].shape, &l->out->shape, l->in[k].n, &wx);
        WALK(wx, wx, {
            (void)b;
            dx[a] += dy[o];
        });
    }
    return 0;
}

const struct sm_cpu_kernels elementwise_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = add_forward,
    .backward = add_backward,
};

#else /* SM_ELEMENTWISE_MUL */

static int mul_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const float *x0 = l->in[0].data, *x1 = l->in[1].data;
    float *y = l->out->data;
    walk w0, w1;
    strides_of(&l->in[0].shape, &l->out->shape, l->in[0].n, &w0);
    strides_of(&l->in[1].shape, &l->out->shape, l->in[1].n, &w1);
    WALK(w0, w1, { y[o] = x0[a] * x1[b]; });
    return 0;
}

static int mul_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const float *x0 = l->in[0].data, *x1 = l->in[1].data, *dy = l->dout->data;
    float *d0 = l->din[0].data, *d1 = l->din[1].data;
    walk w0, w1;
    strides_of(&l->in[0].shape, &l->out->shape, l->in[0].n, &w0);
    strides_of(&l->in[1].shape, &l->out->shape, l->in[1].n, &w1);
    if (d0)
        WALK(w0, w1, { d0[a] += dy[o] * x1[b]; });
    if (d1)
        WALK(w0, w1, { d1[b] += dy[o] * x0[a]; });
    return 0;
}

const struct sm_cpu_kernels elementwise_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = mul_forward,
    .backward = mul_backward,
};

#endif

SM_DEFINE_CPU_KERNELS(elementwise_cpu_kernels)
