#!/usr/bin/env python3
"""tools/transpose_rates.py on a profile written here, against hand-derived rates.

One bf16 step of an H100 at batch 32: a dense 3 x 3 convolution of 64 channels over 56 x 56
(input and output 32 x 64 x 56 x 56 = 6,422,528 elements, weight 36,864), transposed, and a
grouped one (32 groups of 4 channels, 128 channels over 28 x 28: 3,211,264 elements in and out,
weight 4,608), transposed, each forward and backward; and a dense 1 x 1 one over 28 x 28 that ran
on NCHW. The transposes' elements, each read and written once, by what each call moves:

  3 x 3 forward: input and weight in, output back     6,422,528 + 36,864 + 6,422,528
                                                      = 12,881,920 in 100 us
  3 x 3 backward: data gradient (output gradient and weight in, input gradient back) and
                  weight gradient (input and output gradient in, weight gradient back)
                                                      = 2 x 12,881,920 = 25,763,840 in 200 us
  grouped forward 3,211,264 x 2 + 4,608 = 6,427,136 in 40 us; backward 12,854,272 in 80 us

57,927,168 elements in 420 us; at the h100's 132 SMs x 1,830 MHz (241,560 SM clocks a
microsecond): 57,927,168 / (420 x 241,560) = 0.57096 elements per SM and clock. The grouped
kernels (cuDNN's grouped implicit GEMMs, as ResNeXt-50's ran): forward 6,422,528 elements
(input and output) in its 60 us kernel, autocast's 2 us copy of the weight not its, less the
0.5 us the model adds to a launch (kernel_device_us): 6,422,528 / (59.5 x 241,560) = 0.44685 a
clock; backward in its 60.5 + 60 us less 0.5: 6,422,528 / (120 x 241,560) = 0.22156.

usage: test_transpose_rates.py SCALEMETER   (run from the source root)
"""
import csv
import gzip
import os
import sys
import tempfile

from cli_checks import SM, check, finish, near

sys.path.insert(0, "tools")
import sm_fit  # noqa: E402
import transpose_rates  # noqa: E402

FIELDS = ["model", "image", "batch", "precision", "step", "phase", "seq", "op", "shapes", "module",
          "host_self_us", "host_us", "kernels", "kernel_us", "kernel_names", "kernel_name_us"]
N2H = ("void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16, __nv_bfloat16, float, "
       "false, true, (cudnnKernelDataType_t)0>(cudnn::engines_precompiled::nchw2nhwc_params_t"
       "<float>, __nv_bfloat16 const*, __nv_bfloat16*)")
H2N = ("void cudnn::engines_precompiled::nhwcToNchwKernel<__nv_bfloat16, __nv_bfloat16, float, "
       "true, false, (cudnnKernelDataType_t)0>(cudnn::engines_precompiled::nhwc2nchw_params_t"
       "<float>, __nv_bfloat16 const*, __nv_bfloat16*)")
FPROP = "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_execute_kernel__5x_cudnn"
DGRAD = "sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_execute_kernel__5x_cudnn"
WGRAD = "sm90_xmma_wgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_execute_kernel__5x_cudnn"
G_FPROP = "sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_g16_execute_kernel"
G_DGRAD = "sm80_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_g16_execute_kernel"
G_WGRAD = "sm80_xmma_wgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_g16_execute_kernel"
COPY = ("void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda"
        "(at::TensorIteratorBase&)>(int, float*)")
GEMM = "nvjet_sm90_hsh_160x128_64x5_1x1_h_bz_NNN"


def op(seq, phase, name, shapes, module, kernels):
    """A profile row: kernels [(name, us)]."""
    return {"model": "resnet50", "image": 224, "batch": 32, "precision": "bf16",
            "step": "median of 3", "phase": phase, "seq": seq, "op": name, "shapes": shapes,
            "module": module, "host_self_us": 10, "host_us": 20, "kernels": len(kernels),
            "kernel_us": sum(t for _, t in kernels),
            "kernel_names": ";".join(k for k, _ in kernels),
            "kernel_name_us": ";".join(str(t) for _, t in kernels)}


def bn(seq, c, hw):
    return op(seq, "fwd", "aten::batch_norm", f"[[32, {c}, {hw}, {hw}], [{c}], [{c}]]", "bn",
              [("bn_fw_tr_1C11_kernel_NCHW", 10.0)])


def write(root):
    folder = os.path.join(root, "configs", "calibrations", "h100-pytorch-layers")
    os.makedirs(folder)
    os.makedirs(os.path.join(root, "configs", "calibrations", "h200-pytorch-layers"))
    os.makedirs(os.path.join(root, "configs", "frameworks"))
    with open(os.path.join(root, "configs", "frameworks", "pytorch-eager-hopper.ini"), "w") as f:
        f.write("[framework]\nkernel_device_us = 0.5\n")
    conv = "aten::conv2d"
    back = "autograd::engine::evaluate_function: ConvolutionBackward0"
    rows = [
        op(0, "fwd", conv, "[[32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], []]", "conv1",
           [(N2H, 55.0), (FPROP, 70.0), (H2N, 45.0)]),
        bn(1, 64, 56),
        op(2, "fwd", conv, "[[32, 128, 28, 28], [128, 4, 3, 3], [], [], [], [], []]", "conv2",
           [(COPY, 2.0), (N2H, 25.0), (G_FPROP, 60.0), (H2N, 15.0)]),
        bn(3, 128, 28),
        op(4, "fwd", conv, "[[32, 128, 28, 28], [256, 128, 1, 1], [], [], [], [], []]", "conv3",
           [(GEMM, 30.0)]),
        bn(5, 256, 28),
        # backward, in reverse: the 1 x 1's, the grouped one's, the 3 x 3's
        op(0, "bwd", back, "", "", [(GEMM, 50.0), (GEMM, 40.0)]),
        op(1, "bwd", back, "", "",
           [(N2H, 30.0), (G_DGRAD, 60.5), (G_WGRAD, 60.0), (N2H, 30.0), (H2N, 20.0)]),
        op(2, "bwd", back, "", "",
           [(N2H, 60.0), (DGRAD, 90.0), (H2N, 40.0), (N2H, 70.0), (WGRAD, 95.0), (H2N, 30.0)]),
    ]
    with gzip.open(os.path.join(folder, "bf16.csv.gz"), "wt", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)


def main():
    with tempfile.TemporaryDirectory() as root:
        write(root)
        sm_fit.ROOT = transpose_rates.ROOT = root
        sm_fit.kernel_device_us.cache_clear()
        keys, samples = transpose_rates.keys_and_samples(SM)
        md = "\n".join(transpose_rates.section(SM))
    want = {"transpose_elements_per_sm_clock": 57927168 / (420 * 241560),
            "grouped_half_fwd_elements_per_sm_clock": 6422528 / (59.5 * 241560),
            "grouped_half_bwd_elements_per_sm_clock": 6422528 / (120 * 241560)}
    for k, v in want.items():
        got = keys.get(k)
        check(got is not None and near(got, v, 1e-9), f"{k}: got {got}, expected {v:.6g}")
    check(len(samples["h100"]) == 6 and not samples["h200"],
          f"6 convolution ops on the H100, none on the H200: {len(samples['h100'])}, "
          f"{len(samples['h200'])}")
    # the table: the 1 x 1 over 28 x 28 (784 positions) ran untransposed both ways
    for line in ("| kxk | 784 and more | no | 1 | 1 | 1 | 1 |",
                 "| 1x1 | 784 and more | no | 1 | 0 | 1 | 0 |",
                 "| grouped | 784 and more | no | 1 | 1 | 1 | 1 |"):
        check(line in md, f"the table has {line!r}\n{md}")
    finish()


if __name__ == "__main__":
    main()
