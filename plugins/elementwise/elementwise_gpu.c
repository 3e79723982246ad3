/*
 * GPU kernels of add and mul (kernels.h, struct sm_gpu_kernels), built with the same
 * SM_ELEMENTWISE_ADD or _MUL definition as elementwise.c, with the kernels of
 * elementwise_gpu.cu. Inputs broadcast to the output as elementwise_cpu.c walks them (the same
 * strides, computed the same way); inputs of the output's own shape, the common case (residual
 * additions), take plain copies and accumulations.
 */
#include <string.h>

#include "elementwise.h"
#include "gpu_ops.h"
#include "gpu_util.h"

/* Strides of input shape s over output shape o, both with batch n (elementwise.h). */
_Static_assert(SMK_DIMS == ELEMENTWISE_DIMS, "the GPU walk holds elementwise.h's dimensions");
static smk_walk walk_of(const sm_shape *s, const sm_shape *o, int64_t n)
{
    smk_walk w;
    elementwise_strides(s, o, n, w.size, w.stride);
    return w;
}

static int same_shape(const sm_shape *a, const sm_shape *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->dim[i] != b->dim[i])
            return 0;
    return 1;
}

#ifdef SM_ELEMENTWISE_ADD

static int add_forward(const sm_layer_io *l, sm_error *err)
{
    int64_t total = sm_tensor_elems(l->out);
    for (int k = 0; k < l->n_in; k++) {
        const sm_tensor *x = &l->in[k];
        if (!same_shape(&x->shape, &l->out->shape))
            GPU_CUDA(err, smk_broadcast_add, l->out->data, x->data,
                     walk_of(&x->shape, &l->out->shape, x->n), k > 0, gpu_stream(l));
        else if (k == 0)
            GPU_CUDA(err, cudaMemcpyAsync, l->out->data, x->data, (size_t)total * sizeof(float),
                     cudaMemcpyDeviceToDevice, gpu_stream(l));
        else
            GPU_CUDA(err, smk_accumulate, l->out->data, x->data, total, gpu_stream(l));
    }
    return 0;
}

static int add_backward(const sm_layer_io *l, sm_error *err)
{
    int64_t total = sm_tensor_elems(l->out);
    for (int k = 0; k < l->n_in; k++) {
        const sm_tensor *x = &l->in[k];
        if (!l->din[k].data)
            continue;
        if (same_shape(&x->shape, &l->out->shape)) {
            GPU_CUDA(err, smk_accumulate, l->din[k].data, l->dout->data, total, gpu_stream(l));
        } else {
            smk_walk w = walk_of(&x->shape, &l->out->shape, x->n);
            GPU_CUDA(err, smk_reduce_to_input, l->din[k].data, l->dout->data, w, NULL, w,
                     gpu_stream(l));
        }
    }
    return 0;
}

static const struct sm_gpu_kernels elementwise_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = add_forward,
    .backward = add_backward,
};

SM_DEFINE_GPU_KERNELS(elementwise_gpu_kernels)

#else /* SM_ELEMENTWISE_MUL */

static int mul_forward(const sm_layer_io *l, sm_error *err)
{
    const sm_tensor *a = &l->in[0], *b = &l->in[1];
    GPU_CUDA(err, smk_broadcast_mul, l->out->data, a->data,
             walk_of(&a->shape, &l->out->shape, a->n), b->data,
             walk_of(&b->shape, &l->out->shape, b->n), gpu_stream(l));
    return 0;
}

/* d(input k) += dy times the other input, summed back where input k is broadcast. */
static int mul_grad(const sm_layer_io *l, int k, sm_error *err)
{
    const sm_tensor *x = &l->in[k], *other = &l->in[1 - k];
    smk_walk wx = walk_of(&x->shape, &l->out->shape, x->n);
    smk_walk wo = walk_of(&other->shape, &l->out->shape, other->n);
    if (same_shape(&x->shape, &l->out->shape))
        GPU_CUDA(err, smk_mul_accumulate, l->din[k].data, l->dout->data, other->data, wo,
                 gpu_stream(l));
    else
        GPU_CUDA(err, smk_reduce_to_input, l->din[k].data, l->dout->data, wx, other->data, wo,
                 gpu_stream(l));
    return 0;
}

static int mul_backward(const sm_layer_io *l, sm_error *err)
{
    for (int k = 0; k < 2; k++)
        if (l->din[k].data && mul_grad(l, k, err))
            return -1;
    return 0;
}

static const struct sm_gpu_kernels elementwise_gpu_kernels = {
    SM_GPU_KERNELS_INIT,
    .forward = mul_forward,
    .backward = mul_backward,
};

SM_DEFINE_GPU_KERNELS(elementwise_gpu_kernels)

#endif
