/*
 * The GPU as a conformance device (conformance.h, ggml's test-backend-ops): a case's network
 * runs on the GPU executor from the CPU's input, weights and output gradient, in fp32, and its
 * output, input gradient and weight gradients are compared with the CPU's.
 */
#include "conformance_cuda.h"

#include <math.h>
#include <stdlib.h>

#include "executor_cuda.h"

/* Largest |got - want| over n, relative to the largest |want| (at least 1e-3), as the
 * gradient check measures; infinite when got holds a NaN. */
static double rel_diff(const float *got, const float *want, int64_t n)
{
    double worst = 0, scale = 1e-3;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (d != d)
            return INFINITY;
        worst = d > worst ? d : worst;
        scale = fabs(want[i]) > scale ? fabs(want[i]) : scale;
    }
    return worst / scale;
}

/* 1 with why in line when a layer of net has no GPU kernels, -1 when its module fails to
 * load, 0 when every layer has them. */
static int kernels_present(const sm_network *net, char *line, size_t len)
{
    for (int i = 0; i < net->n_layers; i++) {
        const sm_layer *l = &net->layers[i];
        const struct sm_gpu_kernels *k = NULL;
        sm_status st = {{0}};
        if (sm_registry_gpu_kernels(net->registry, l->type, &k, &st)) {
            snprintf(line, len, "%s", st.msg);
            return -1;
        }
        if (!k) {
            snprintf(line, len, "type %s has no GPU kernels", l->type->name);
            return 1;
        }
    }
    return 0;
}

/* Downloads n floats of device memory into a new host array; NULL with st set. */
static float *download(sm_cuda_executor *ex, const float *device, int64_t n, sm_status *st)
{
    float *host = malloc((size_t)(n ? n : 1) * sizeof(float));
    if (!host)
        sm_fail(st, "out of host memory");
    else if (n && sm_cuda_executor_download(ex, device, host, n, st)) {
        free(host);
        host = NULL;
    }
    return host;
}

/* Forward and backward on the GPU from ref's numbers; the three differences into err. */
static int run(sm_cuda_executor *ex, const sm_conformance_reference *ref, double err[3],
               sm_status *st)
{
    int64_t nw = 0;
    float *w = sm_cuda_executor_weights(ex, &nw);
    sm_tensor in = sm_cuda_executor_input(ex);
    if (nw != ref->n_weights)
        return sm_fail(st, "%lld weights on the GPU, %lld on the CPU", (long long)nw,
                       (long long)ref->n_weights);
    if (sm_cuda_executor_upload(ex, in.data, ref->input, ref->n_input, st) ||
        (nw && sm_cuda_executor_upload(ex, w, ref->weights, nw, st)) ||
        sm_cuda_executor_forward(ex, 1, st))
        return -1;
    float *y = download(ex, sm_cuda_executor_output(ex).data, ref->n_output, st);
    if (!y)
        return -1;
    err[0] = rel_diff(y, ref->output, ref->n_output);
    free(y);
    if (sm_cuda_executor_upload(ex, sm_cuda_executor_output_grad(ex).data, ref->output_grad,
                                ref->n_output, st) ||
        sm_cuda_executor_backward(ex, st))
        return -1;
    const float *dx_device = sm_cuda_executor_input_grad(ex).data;
    float *dx = dx_device ? download(ex, dx_device, ref->n_input, st) : NULL;
    if (dx_device && !dx)
        return -1;
    err[1] = dx ? rel_diff(dx, ref->input_grad, ref->n_input) : 0;
    free(dx);
    float *dw = download(ex, sm_cuda_executor_weight_grads(ex, &nw), nw, st);
    if (!dw)
        return -1;
    err[2] = nw ? rel_diff(dw, ref->weight_grads, nw) : 0;
    free(dw);
    return sm_cuda_executor_sync(ex, st);
}

static int gpu_compare(const sm_conformance_reference *ref, double err[3], char *line, size_t len)
{
    int present = kernels_present(ref->net, line, len);
    if (present)
        return present;
    sm_cuda_executor_options opt = {
        .batch = ref->batch, .seed = ref->seed, .input_grad = 1, .precision = SM_GPU_FP32};
    sm_cuda_executor *ex = NULL;
    sm_status st = {{0}};
    int rc = sm_cuda_executor_new(ref->net, &opt, &ex, &st);
    if (rc == 0)
        rc = run(ex, ref, err, &st);
    sm_cuda_executor_free(ex);
    if (rc)
        snprintf(line, len, "%s", st.msg);
    return rc ? -1 : 0;
}

const sm_conformance_device *sm_conformance_cuda(void)
{
    static const sm_conformance_device gpu = {"gpu", gpu_compare};
    return &gpu;
}
