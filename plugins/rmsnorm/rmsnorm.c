/*
 * rmsnorm: root-mean-square normalisation over the last dimension, as Llama's reference code
 * writes it (and torch.nn.RMSNorm computes it):
 *     y = x * rsqrt(mean(x^2, -1) + eps) * weight
 * with one learnable weight per feature and no bias, no mean subtracted.
 *
 *   E             = the last dimension, rows = elements / E
 *   flops         = 4 per element (square, sum, scale by the row's rsqrt, weight) + 2 per row
 *                   (the mean's divide and the eps add; rsqrt itself is one more: 3 per row)
 *   weights       = E, param_tensors = 1 (LlamaRMSNorm.weight)
 *   bwd_flops     = 2 flops: dx = rstd (g w - xhat mean(g w xhat)) and dweight = sum dy xhat
 *   bytes         = 4 (7 E + 6) per row: eager PyTorch's six kernels, each tensor once per
 *                   kernel (the weight apart): pow reads and writes E, mean reads E and writes
 *                   1, the eps add and rsqrt read and write 1 each, x * rsqrt reads E + 1 and
 *                   writes E, * weight reads and writes E. Measured with
 *                   tools/torch_eager_bytes.py on RMSNorm(8) over 4 rows: 992 bytes.
 *
 * upcast=true (the default), as Meta's reference code, Hugging Face's LlamaRMSNorm and
 * torchtitan write it: self._norm(x.float()).type_as(x) * weight. At fp32 the casts are no-ops
 * and nothing changes; at fp16 and bf16 two more kernels cast x up and the normalised x down,
 * and the four between them move fp32 (plugin.h ABI 7, upcast_bytes):
 *   bytes at 16 bits = 36 E + 24 per row: the cast reads 2 and writes 4 per element, pow 4 + 4,
 *                   mean 4 (+ 4 per row), x * rsqrt 4 + 4 (+ 4), the cast down 4 + 2, * weight
 *                   2 + 2; the row terms as at fp32, in fp32
 *   upcast_bytes  = that less half the fp32 bytes: 22 E + 12 per row. Measured with
 *                   tools/torch_eager_bytes.py's forward on that module in bf16 over 4 rows of
 *                   8: 1248 bytes, against 992 / 2.
 * upcast=false is the same module without the casts (a model that keeps its norms at 16 bits).
 *
 * fused=true is one kernel each way that reads its rows at the activations' precision and
 * computes in fp32 in registers: torchtitan's fused_rmsnorm (torchtitan/models/norms.py,
 * TritonFusedRMSNorm, April 2024 to February 2025; the norm of its April 2024 A100 preset),
 * as Apex's FusedRMSNorm. By hand from its Triton code: the forward kernel reads x and writes
 * y and each row's fp32 rstd, 4 (2 E + 1) bytes per row at fp32, the rstd staying fp32 at 16
 * bits (upcast_bytes 2 per row); the backward pass is its kernel (x, dy and rstd in, dx and
 * per-SM weight-gradient partials out), the partials' sum and the gradient's cast to the
 * weight's dtype: 3 kernels. It keeps x, the weight and rstd: the input and 4 bytes per row.
 * Nothing of it is serial: a layer of one kernel. upcast does not apply.
 *
 * What autograd keeps, observed with torch.autograd.graph.saved_tensors_hooks on Llama's
 * RMSNorm(8) (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight; torch 1.13, x of
 * 3x8, /usr/bin/python3; the grad_fn of each packed tensor printed):
 *     x (3x8, the input), x.pow(2)'s result (3x8, PowBackward0), the rsqrt (3x1,
 *     RsqrtBackward0, packed twice, one storage), x again (same storage), the normalised x
 *     (3x8, MulBackward0), the weight (a parameter)
 * so, per sample: the input, and of its own the square and the normalised x (2 E per row) and
 * one rsqrt per row: 75 elements for 3x8, what saved() below gives (24 + 2 * 24 + 3).
 * With the casts, in bf16 (the same hooks on the module above, x of 3x8 bfloat16): x.float()
 * (3x8 fp32) in place of the input, a second 3x8 fp32 tensor, the rsqrt (3x1 fp32), the
 * normalised x after its cast down (3x8 bf16) and the weight: 10 bytes per element and 4 per
 * row, where the fp32 count at 2 bytes gives 6 and 2, so upcast_bytes = 4 E + 2 per row (at
 * fp32 the copy is the input and the count stands).
 */
#include <scalemeter/plugin.h>

#include "rmsnorm.h"

static void rmsnorm_parse(void *params, sm_args *args)
{
    rmsnorm_params *p = params;
    p->eps = sm_arg_real(args, "eps", 1e-5, 0, 1);
    p->upcast = sm_arg_bool(args, "upcast", 1);
    p->fused = sm_arg_bool(args, "fused", 0);
}

static int rmsnorm_infer(const void *params, const sm_shape *in, int n_in, sm_shape *out,
                         sm_error *err)
{
    (void)n_in;
    (void)params;
    char s[64];
    if (in->ndim < 1 || in->dim[in->ndim - 1] < 1) {
        sm_error_set(err, "rmsnorm takes one input with a last dimension, got %s",
                     sm_shape_str(in, s, sizeof s));
        return -1;
    }
    *out = *in;
    return 0;
}

static int rmsnorm_metrics(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                           sm_layer_metrics *m, sm_error *err)
{
    (void)n_in, (void)out, (void)err;
    const rmsnorm_params *p = params;
    int64_t e = in->dim[in->ndim - 1], n = sm_shape_elems(in);
    int64_t rows = n / e;
    m->flops = sm_add(sm_mul(4, n), sm_mul(3, rows));
    m->weights = e;
    m->param_tensors = 1;
    m->bwd_flops = sm_mul(2, m->flops);
    if (p->fused) {
        m->bytes = sm_mul(4, sm_add(sm_mul(2, n), rows));
        m->upcast_bytes = sm_mul(2, rows);
        m->kernels_fwd = 1;
        m->kernels_bwd = 3;
        return 0;
    }
    m->bytes = sm_mul(4, sm_add(sm_mul(7, n), sm_mul(6, rows)));
    if (p->upcast)
        m->upcast_bytes = sm_add(sm_mul(22, n), sm_mul(12, rows));
    return 0;
}

/* The input; x^2, the normalised x and each row's rsqrt (see the top of the file); fused, the
 * input and each row's fp32 rstd. */
static int rmsnorm_saved(const void *params, const sm_shape *in, int n_in, const sm_shape *out,
                         sm_layer_saved *s, sm_error *err)
{
    (void)n_in, (void)out, (void)err;
    const rmsnorm_params *p = params;
    int64_t n = sm_shape_elems(&in[0]), rows = n / in[0].dim[in[0].ndim - 1];
    s->inputs = 1;
    if (p->fused) {
        s->extra_bytes = sm_mul(4, rows);
        return 0;
    }
    s->extra_elems = sm_add(sm_mul(2, n), rows);
    if (p->upcast)
        s->upcast_bytes = sm_add(sm_mul(4, n), sm_mul(2, rows));
    return 0;
}

static const sm_layer_type rmsnorm_type = {
    SM_LAYER_TYPE_INIT,
    .name = "rmsnorm",
    .summary =
        "root-mean-square norm over the last dimension (Llama's RMSNorm): eps, upcast, fused",
    .params_size = sizeof(rmsnorm_params),
    .min_inputs = 1,
    .max_inputs = 1,
    .parse = rmsnorm_parse,
    .infer = rmsnorm_infer,
    .metrics = rmsnorm_metrics,
    .traits = SM_TRAIT_NORMALISATION,
    .saved = rmsnorm_saved,
};

SM_DEFINE_PLUGIN(rmsnorm_type)
