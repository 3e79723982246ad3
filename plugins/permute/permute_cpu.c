/*
 * CPU kernels of permute (kernels.h, struct sm_cpu_kernels): output dimension i is input
 * dimension order[i]. Forward walks the output in order and reads the input through permuted
 * strides; backward walks the same way and adds into the input's gradient.
 */
#include "cpu_util.h"
#include "permute.h"

static void permute(const sm_layer_io *l, int backward)
{
    const permute_params *p = l->params;
    const sm_shape *in = &l->in[0].shape;
    int64_t size[SM_MAX_DIMS] = {1, 1, 1, 1}, stride[SM_MAX_DIMS] = {0}, st[SM_MAX_DIMS] = {0};
    int64_t acc = 1;
    for (int i = in->ndim - 1; i >= 0; i--) {
        st[i] = acc;
        acc *= in->dim[i];
    }
    /* the output's dims, padded at the front to 4, with the input stride each one walks */
    int pad = SM_MAX_DIMS - p->n;
    for (int i = 0; i < p->n; i++) {
        size[pad + i] = in->dim[p->order[i]];
        stride[pad + i] = st[p->order[i]];
    }
    int64_t sample = sm_shape_elems(in);
    for (int64_t n = 0; n < l->in[0].n; n++) {
        /* forward reads x and writes y; backward reads dy (laid out as y) and adds into dx */
        const float *x = l->in[0].data + n * sample;
        float *y = backward ? NULL : l->out->data + n * sample;
        float *dx = backward ? l->din[0].data + n * sample : NULL;
        const float *dy = backward ? l->dout->data + n * sample : NULL;
        int64_t o = 0;
        for (int64_t a = 0; a < size[0]; a++)
            for (int64_t b = 0; b < size[1]; b++)
                for (int64_t c = 0; c < size[2]; c++) {
                    int64_t base = a * stride[0] + b * stride[1] + c * stride[2];
                    for (int64_t d = 0; d < size[3]; d++, o++) {
                        if (backward)
                            dx[base + d * stride[3]] += dy[o];
                        else
                            y[o] = x[base + d * stride[3]];
                    }
                }
    }
}

static int permute_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    permute(l, 0);
    return 0;
}

static int permute_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (l->din[0].data)
        permute(l, 1);
    return 0;
}

const struct sm_cpu_kernels permute_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = permute_forward,
    .backward = permute_backward,
};

SM_DEFINE_CPU_KERNELS(permute_cpu_kernels)
