/*
 * CPU kernels of dropout (kernels.h, struct sm_cpu_kernels). A training forward zeroes each
 * element with probability p and scales the others by 1 / (1 - p), as nn.Dropout does; which
 * elements drop is a hash of the step's seed and the element's index, kept as a byte mask in
 * the state for backward. At inference it copies.
 */
#include "cpu_util.h"
#include "dropout.h"

static size_t dropout_state_size(const sm_layer_io *l) { return (size_t)sm_tensor_elems(l->out); }

static int dropout_forward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const dropout_params *p = l->params;
    const float *x = l->in[0].data;
    float *y = l->out->data;
    int64_t n = sm_tensor_elems(l->out);
    if (!l->training || p->p <= 0) {
        memcpy(y, x, (size_t)n * sizeof *y);
        return 0;
    }
    uint8_t *mask = l->state;
    /* keep when the hash's top 53 bits, as a fraction of 2^53, are at least p */
    uint64_t threshold = (uint64_t)(p->p * 9007199254740992.0);
    float scale = (float)(1.0 / (1.0 - p->p));
    for (int64_t i = 0; i < n; i++) {
        mask[i] = (cpu_hash(l->seed, (uint64_t)i) >> 11) >= threshold;
        y[i] = mask[i] ? x[i] * scale : 0.0f;
    }
    return 0;
}

static int dropout_backward(const sm_layer_io *l, sm_error *err)
{
    (void)err;
    const dropout_params *p = l->params;
    float *dx = l->din[0].data;
    const float *dy = l->dout->data;
    int64_t n = sm_tensor_elems(l->out);
    if (!dx)
        return 0;
    if (p->p <= 0) {
        cpu_accumulate(dx, dy, n);
        return 0;
    }
    const uint8_t *mask = l->state;
    float scale = (float)(1.0 / (1.0 - p->p));
    for (int64_t i = 0; i < n; i++)
        if (mask[i])
            dx[i] += dy[i] * scale;
    return 0;
}

const struct sm_cpu_kernels dropout_cpu_kernels = {
    .struct_size = sizeof(struct sm_cpu_kernels),
    .state_size = dropout_state_size,
    .forward = dropout_forward,
    .backward = dropout_backward,
};

SM_DEFINE_CPU_KERNELS(dropout_cpu_kernels)
