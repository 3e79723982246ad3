/*
 * add and mul with broadcasting (elementwise_gpu.c): every output element reads each input
 * through a walk (gpu_ops.h) whose stride is 0 along the dimensions that input is broadcast on.
 * The gradient of a broadcast input sums over those dimensions: one block per input element,
 * its threads over the outputs that read it, then a sum in shared memory.
 */
#include "gpu_launch.cuh"

__global__ void broadcast_add_kernel(float *y, const float *x, smk_walk w, int add, int64_t n)
{
    SMK_FOR(o, n)
    {
        float v = x[smk_offset(w, o)];
        y[o] = add ? y[o] + v : v;
    }
}

extern "C" cudaError_t smk_broadcast_add(float *y, const float *x, smk_walk wx, int add,
                                         cudaStream_t s)
{
    int64_t n = smk_walk_elems(wx);
    if (n > 0)
        broadcast_add_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, x, wx, add, n);
    return cudaGetLastError();
}

__global__ void broadcast_mul_kernel(float *y, const float *a, smk_walk wa, const float *b,
                                     smk_walk wb, int64_t n)
{
    SMK_FOR(o, n)
    y[o] = a[smk_offset(wa, o)] * b[smk_offset(wb, o)];
}

extern "C" cudaError_t smk_broadcast_mul(float *y, const float *a, smk_walk wa, const float *b,
                                         smk_walk wb, cudaStream_t s)
{
    int64_t n = smk_walk_elems(wa);
    if (n > 0)
        broadcast_mul_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(y, a, wa, b, wb, n);
    return cudaGetLastError();
}

__global__ void mul_accumulate_kernel(float *dx, const float *dy, const float *other, smk_walk wo,
                                      int64_t n)
{
    SMK_FOR(o, n)
    dx[o] += dy[o] * other[smk_offset(wo, o)];
}

extern "C" cudaError_t smk_mul_accumulate(float *dx, const float *dy, const float *other,
                                          smk_walk wo, cudaStream_t s)
{
    int64_t n = smk_walk_elems(wo);
    if (n > 0)
        mul_accumulate_kernel<<<smk_blocks(n), SMK_THREADS, 0, s>>>(dx, dy, other, wo, n);
    return cudaGetLastError();
}

/* The dimensions an input keeps (kept = 1) and those it is broadcast along, with the contiguous
 * strides of the output. */
typedef struct reduce_shape {
    int64_t ostride[SMK_DIMS];
    int kept[SMK_DIMS];
    int64_t n_in, n_red; /* elements of the input, outputs summed into each */
} reduce_shape;

__global__ void reduce_to_input_kernel(float *dx, const float *dy, smk_walk wx, const float *other,
                                       smk_walk wo, reduce_shape r)
{
    __shared__ float part[SMK_THREADS];
    for (int64_t j = blockIdx.x; j < r.n_in; j += gridDim.x) {
        int64_t coord[SMK_DIMS], rest = j, base = 0, in_off = 0;
        for (int d = SMK_DIMS - 1; d >= 0; d--)
            if (r.kept[d]) {
                coord[d] = rest % wx.size[d];
                rest /= wx.size[d];
                base += coord[d] * r.ostride[d];
                in_off += coord[d] * wx.stride[d];
            }
        float s = 0;
        for (int64_t k = threadIdx.x; k < r.n_red; k += blockDim.x) {
            int64_t kr = k, o = base;
            for (int d = SMK_DIMS - 1; d >= 0; d--)
                if (!r.kept[d]) {
                    coord[d] = kr % wx.size[d];
                    kr /= wx.size[d];
                    o += coord[d] * r.ostride[d];
                }
            float v = dy[o];
            if (other) {
                int64_t oo = 0;
                for (int d = 0; d < SMK_DIMS; d++)
                    oo += coord[d] * wo.stride[d];
                v *= other[oo];
            }
            s += v;
        }
        part[threadIdx.x] = s;
        __syncthreads();
        for (int half = SMK_THREADS / 2; half > 0; half /= 2) {
            if ((int)threadIdx.x < half)
                part[threadIdx.x] += part[threadIdx.x + half];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            dx[in_off] += part[0];
        __syncthreads(); /* part is reused by the next j */
    }
}

extern "C" cudaError_t smk_reduce_to_input(float *dx, const float *dy, smk_walk wx,
                                           const float *other, smk_walk wo, cudaStream_t s)
{
    reduce_shape r;
    int64_t st = 1;
    r.n_in = 1;
    r.n_red = 1;
    for (int d = SMK_DIMS - 1; d >= 0; d--) {
        r.ostride[d] = st;
        st *= wx.size[d];
        r.kept[d] = !(wx.stride[d] == 0 && wx.size[d] > 1);
        if (r.kept[d])
            r.n_in *= wx.size[d];
        else
            r.n_red *= wx.size[d];
    }
    if (r.n_in > 0 && r.n_red > 0) {
        int64_t blocks = r.n_in < (1 << 20) ? r.n_in : (1 << 20);
        reduce_to_input_kernel<<<(unsigned)blocks, SMK_THREADS, 0, s>>>(dx, dy, wx, other, wo, r);
    }
    return cudaGetLastError();
}
