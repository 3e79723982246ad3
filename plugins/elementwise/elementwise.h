/* The broadcasting of add and mul, shared by the CPU and GPU kernels: how an input of shape s
 * is walked over the output of shape o (elementwise.c infers o). */
#ifndef SCALEMETER_PLUGINS_ELEMENTWISE_H
#define SCALEMETER_PLUGINS_ELEMENTWISE_H

#include <scalemeter/plugin.h>

#define ELEMENTWISE_DIMS (SM_MAX_DIMS + 1) /* the batch, then up to 4 dimensions of a sample */

/* Sizes of the output (batch n) and strides of input s over them, padded at the front to
 * ELEMENTWISE_DIMS dims: aligned at the last dimension where PyTorch's rule allows, otherwise
 * (a C vector against C x H x W) as C x 1 x 1; stride 0 where the input broadcasts. */
static inline void elementwise_strides(const sm_shape *s, const sm_shape *o, int64_t n,
                                       int64_t size[ELEMENTWISE_DIMS],
                                       int64_t stride[ELEMENTWISE_DIMS])
{
    enum { D = ELEMENTWISE_DIMS };
    int64_t dims[D] = {0};
    int aligned = s->ndim <= o->ndim;
    for (int i = 0; aligned && i < s->ndim; i++) {
        int64_t a = s->dim[s->ndim - 1 - i], b = o->dim[o->ndim - 1 - i];
        if (a != b && a != 1)
            aligned = 0;
    }
    /* the input's dims placed against the output's last o->ndim dims; 1 elsewhere */
    for (int i = 0; i < o->ndim; i++)
        dims[D - o->ndim + i] = 1;
    if (aligned)
        for (int i = 0; i < s->ndim; i++)
            dims[D - s->ndim + i] = s->dim[i];
    else /* a vector of C against C x H x W: C x 1 x 1 */
        dims[D - o->ndim] = s->dim[0];
    dims[0] = n;
    for (int i = 1; i < D - o->ndim; i++)
        dims[i] = 1;
    int64_t st = 1;
    for (int i = D - 1; i >= 0; i--) {
        int64_t osz = i == 0 ? n : i < D - o->ndim ? 1 : o->dim[i - (D - o->ndim)];
        size[i] = osz;
        stride[i] = dims[i] == 1 && osz != 1 ? 0 : st;
        st *= dims[i];
    }
}

#endif /* SCALEMETER_PLUGINS_ELEMENTWISE_H */
