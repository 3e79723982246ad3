/*
 * CPU kernels of patch_merge (kernels.h, struct sm_cpu_kernels): output pixel (i, j), channel
 * block q of C is input pixel (2i + dh, 2j + dw) with (dh, dw) = (0,0), (1,0), (0,1), (1,1)
 * for q = 0..3 (patch_merge.h), or zeros where that pixel is padding (odd H or W). Backward
 * adds each block's gradient back to its pixel and drops the padding's.
 */
#include <string.h>

#include "cpu_util.h"
#include "patch_merge.h"

static void merge(const sm_layer_io *l, int backward)
{
    const sm_shape *s = &l->in[0].shape;
    int64_t h = s->dim[0], w = s->dim[1], c = s->dim[2];
    int64_t ho = (h + 1) / 2, wo = (w + 1) / 2;
    for (int64_t n = 0; n < l->in[0].n; n++)
        for (int64_t i = 0; i < ho; i++)
            for (int64_t j = 0; j < wo; j++)
                for (int q = 0; q < 4; q++) {
                    int64_t y, x;
                    int inside = merge_source(i, j, q, h, w, &y, &x);
                    int64_t out = ((n * ho + i) * wo + j) * 4 * c + q * c;
                    int64_t in = ((n * h + y) * w + x) * c;
                    if (backward) {
                        if (inside)
                            cpu_accumulate(l->din[0].data + in, l->dout->data + out, c);
                    } else if (inside) {
                        memcpy(l->out->data + out, l->in[0].data + in, (size_t)c * sizeof(float));
                    } else {
                        memset(l->out->data + out, 0, (size_t)c * sizeof(float));
                    }
                }
}

static int merge_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    merge(l, 0);
    return 0;
}

static int merge_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    if (l->din[0].data)
        merge(l, 1);
    return 0;
}

const struct sm_cpu_kernels patch_merge_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .forward = merge_forward,
    .backward = merge_backward,
};

SM_DEFINE_CPU_KERNELS(patch_merge_cpu_kernels)
