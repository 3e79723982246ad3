#!/usr/bin/env python3
"""tools/cudnn_depthwise_rates.py on profiled steps written here, against hand-derived rates.

At 1,000 SM clocks a microsecond, each op's cuDNN kernels less the 0.6 us the model adds to a
launch (kernel_device_us of configs/devices/h100.ini):

  A  fp16, 3 x 3 of stride 1 over 32 x 64 x 56 x 56 (cuDNN's NCHW kernels): 12,845,056 elements
     (input and output), 57,802,752 MACs forward. At 4 elements and 32 MACs a clock:
     3,211,264 + 1,806,336 = 5,017,600 clocks, 5,017.6 us (its 2 us copy of the weight,
     PyTorch's, not cuDNN's). Backward at 1 and 16, MACs doubled: 12,845,056 + 7,225,344 =
     20,070,400 clocks, 20,070.4 us (data and weight gradient kernels, 10,000 + 10,070.4).
  B  bf16, 7 x 7 over 32 x 96 x 28 x 28 (NHWC): 4,816,896 elements, 118,013,952 MACs: forward
     1,204,224 + 3,687,936 = 4,892,160 clocks; backward 4,816,896 + 14,751,744 = 19,568,640.
  C  fp16, stride 2, in PyTorch's conv_depthwise2d: not cuDNN's, left out (had it counted, the
     two sizes' exact fit would not hold).
Two kernel sizes, two terms: the least squares give 4 and 32 forward, 1 and 16 backward.
  D  fp32, B's shape, kernels timed: 3 times B's clocks forward, 10 times backward, so the fp32
     keys are the 16-bit ones over 3 and over 10: 1.33333 and 10.6667, 0.1 and 1.6.
  E  TF32, B's shape with a bias, kernels not timed: its kernel_us holds the bias's addition at
     the h200's conv_bias_fwd_elements_per_sm_clock (1.28: 2,408,448 outputs / 1,280 = 1,881.6
     us) and its sum backward (1.5: 1,605.632 us); cuDNN's 2 and 5 times B's clocks: the TF32
     keys 2 and 16 forward, 0.2 and 3.2 backward.

usage: test_cudnn_depthwise_rates.py SCALEMETER   (run from the source root)
"""
import sys

from cli_checks import check, finish, near

sys.path.insert(0, "tools")
import cudnn_depthwise_rates  # noqa: E402
import sm_fit  # noqa: E402

PER_US = 1000.0
LAUNCH = sm_fit.kernel_device_us()
BWD = "autograd::engine::evaluate_function: ConvolutionBackward0"
COPY = "void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda>"
BIAS = "void at::native::elementwise_kernel<128, 2, at::native::CUDAFunctor_add<float> >"


def row(precision, op, shapes, kernels=None, kernel_us=None):
    """A profile row: kernels [(name, us)] timed each, or only their sum kernel_us."""
    r = {"precision": precision, "op": op, "shapes": shapes}
    if kernels is not None:
        r["kernel_names"] = ";".join(k for k, _ in kernels)
        r["kernel_name_us"] = ";".join(str(t) for _, t in kernels)
        r["kernel_us"] = str(sum(t for _, t in kernels))
    else:
        r["kernel_names"] = "conv2d_c1_k1_nhwc;" + BIAS
        r["kernel_us"] = str(kernel_us)
    return r


def step(precision, shapes, fwd, bwd):
    """One conv's profiled step: forward kernels, backward kernels (rows)."""
    return {"fwd": [row(precision, "aten::conv2d", shapes, *fwd)],
            "bwd": [row(precision, BWD, shapes, *bwd)]}


def us(clocks):
    return clocks / PER_US + LAUNCH


A = "[[32, 64, 56, 56], [64, 1, 3, 3], [], [], [], [], []]"
B = "[[32, 96, 28, 28], [96, 1, 7, 7], [], [], [], [], []]"
E = "[[32, 96, 28, 28], [96, 1, 7, 7], [96], [], [], [], []]"
steps = [
    step("fp16", A, ([("conv2d_c1_k1_nchw_shmem_tiling", us(5017600)), (COPY, 2.0)],),
         ([("dgrad2d_c1_k1_nchw_shmem_tiling", 10000.0), ("wgrad2d_shmem_tiling",
                                                           us(20070400) - 10000.0)],)),
    step("bf16", B, ([("conv2d_c1_k1_nhwc_specialized", us(4892160))],),
         ([("dgrad2d_c1_k1_nhwc_specialized", us(19568640))],)),
    step("fp16", "[[32, 64, 56, 56], [64, 1, 3, 3], [], [], [], [], []]",
         ([("void at::native::conv_depthwise2d_forward_kernel<__half>", 777.0)],),
         ([("void at::native::conv_depthwise2d_backward_kernel<__half>", 999.0)],)),
    step("fp32", B, ([("conv2d_c1_k1_nhwc", us(3 * 4892160))],),
         ([("void wgrad_alg0_engine_NHWC<float, 128>", us(10 * 19568640))],)),
    step("tf32", E, (None, us(2 * 4892160) + 2408448 / 1280.0),
         (None, us(5 * 19568640) + 2408448 / 1500.0)),
]
# the stride-2 op's output: the next op reads 32 x 64 x 28 x 28
steps[2]["fwd"].append(row("fp16", "aten::batch_norm", "[[32, 64, 28, 28]]", []))

samples = {(c, b): [] for c in cudnn_depthwise_rates.CLASSES for b in (0, 1)}
for phases in steps:
    for cls, backward, e, m, k in cudnn_depthwise_rates.samples_of(phases, PER_US):
        samples[cls, backward].append((e, m, k))
check(len(samples["half", 0]) == 2 and len(samples["half", 1]) == 2,
      f"two 16-bit ops each pass, PyTorch's kernel left out: {samples}")
keys = cudnn_depthwise_rates.rates(samples, say=lambda _: None)
want = {"half_fwd": (4, 32), "half_bwd": (1, 16), "fp32_fwd": (4 / 3, 32 / 3),
        "fp32_bwd": (0.1, 1.6), "tf32_fwd": (2, 16), "tf32_bwd": (0.2, 3.2)}
for name, (e, m) in want.items():
    for term, value in (("elements", e), ("macs", m)):
        key = f"cudnn_depthwise_{name}_{term}_per_sm_clock"
        check(near(keys[key], value, 1e-6), f"{key} {keys[key]}, by hand {value}")
finish()
