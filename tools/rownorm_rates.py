#!/usr/bin/env python3
"""What bounds eager PyTorch's layer norm on Hopper, from the per-op profiles of the H100 and
the H200 (configs/calibrations/h{100,200}-pytorch-layers/, tools/torch_layer_profile.py): the
[framework] keys rownorm_fwd_sm_clocks_per_row, rownorm_fwd_elements_per_sm_clock,
rownorm_bwd_sm_clocks_per_row and rownorm_bwd_elements_per_sm_clock, and the 16-bit kernel's
rownorm_half_fwd_elements_per_sm_clock and rownorm_half_bwd_elements_per_sm_clock
(docs/devices.md).

    tools/rownorm_rates.py [--bin build/bin/scalemeter] [--check | --write]

PyTorch's layer norm launches a block of 128 threads per row (vectorized_layer_norm_kernel;
backward layer_norm_grad_input_kernel, beside GammaBetaBackwardCUDAKernel for the weight and bias
gradients), so at a few hundred elements a row the rows, not the bytes, set its time: ConvNeXt-T's
norms over 96 channels took the same time on both parts, whose DRAMs differ by 1.43 times, and
BERT's over 768 and 1,024 elements twice what the H200's DRAM gives. Each layer norm op's kernel
time (its layer norm kernels alone: not the autocast cast or the permute's copy beside them;
less the description's kernel_device_us, which the model adds to each kernel it launches) is
fitted as rows x c + elements / e SM clocks at the part's SMs x sustained clock, by least squares
in relative error (each distinct shape once per part, ops under 10 us, a launch's own time, left
out), forward and backward apart; the backward op, which records no shapes, takes those of its
forward op, autograd running them in reverse. The fp32 kernel's (ConvNeXt-T's and BERT's under
autocast, and at fp32) give c and e; the 16-bit kernel's (BERT cast to fp16) its own e at the
same c: its rows reduce alike, its elements stream at their bytes. --check exits 1 where
configs/frameworks/pytorch-eager.ini's or dle-squad.ini's keys are not what the profiles give
(to three significant digits), or where any other description or framework that gives them
gives other values. Standard library only; a few seconds.
"""
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sm_fit  # noqa: E402  (kernel_device_us, the parts' clocks, the least squares)

ROOT = sm_fit.ROOT
PARTS = sm_fit.PARTS
FRAMEWORK_NAME = os.path.join("configs", "frameworks", "pytorch-eager.ini")
HALF_FRAMEWORK = os.path.join("configs", "frameworks", "dle-squad.ini")
MIN_US = 10.0
FWD_OP = "aten::layer_norm"
BWD_OP = "NativeLayerNormBackward0"




def norm_kernels_us(row, backward):
    """(microseconds, kernels) of the op's layer norm kernels, or None where the profile did
    not record each kernel's time."""
    if not row.get("kernel_name_us"):
        return None
    us = kernels = 0
    for name, t in zip(row["kernel_names"].split(";"), row["kernel_name_us"].split(";")):
        # forward: vectorized_layer_norm_kernel (or the plain one); backward: every kernel but
        # a memset and the strided copy of LayerNorm2d's permuted gradient
        if backward and ("elementwise_kernel" in name or name.startswith("Memset")):
            continue
        if not backward and "layer_norm_kernel" not in name.lower():
            continue
        us += float(t)
        kernels += 1
    return us, kernels


def half_kernel(row):
    """1 where the op ran the 16-bit kernel (a model cast to fp16 or bf16), 0 the fp32 one (fp32
    tensors, or autocast's fp32 norm of a 16-bit input)."""
    return int(any(t in row.get("kernel_names", "") for t in ("c10::Half,", "c10::BFloat16,")))


def points(part):
    """{(half, pass, elements a row, rows): [kernel us less the launches]} over the part's CNN
    and BERT files, half as half_kernel gives the forward op's."""
    out = {}
    for bert in (False, True):
        for phases in sm_fit.profiled_steps(part, bert=bert):
            fwd = [r for r in phases.get("fwd", []) if r["op"] == FWD_OP]
            bwd = [r for r in phases.get("bwd", []) if r["op"].endswith(BWD_OP)]
            shapes = [[int(d) for d in re.findall(r"\d+", r["shapes"].split("]")[0])]
                      for r in fwd]
            halves = [half_kernel(r) for r in fwd]
            pairs = [(0, r, s, h) for r, s, h in zip(fwd, shapes, halves)]
            if len(bwd) == len(fwd):
                pairs += [(1, r, s, h) for r, s, h in zip(bwd, reversed(shapes), reversed(halves))]
            for backward, r, shape, half in pairs:
                got = norm_kernels_us(r, backward)
                if not got or got[0] < MIN_US:
                    continue
                rows = math.prod(shape[:-1])
                out.setdefault((half, backward, shape[-1], rows), []).append(
                    got[0] - sm_fit.kernel_device_us())
    return out


def main():
    a = sm_fit.arguments(__doc__, "rownorm_rates", "the frameworks' keys")
    samples = {(h, b): [] for h in (0, 1) for b in (0, 1)}
    print("| part | kernel | pass | elements a row | rows | kernel us (less launches) |")
    print("|---|---|---|---:|---:|---:|")
    for part in PARTS:
        per_us = sm_fit.sm_clocks_per_us(a.bin, part)
        for (half, backward, n, rows), us in sorted(points(part).items()):
            t = statistics.median(us)
            samples[half, backward].append((rows, rows * n, t * per_us))
            print(f"| {part} | {'16-bit' if half else 'fp32'} | {'bwd' if backward else 'fwd'} "
                  f"| {n} | {rows} | {t:.1f} |")
    keys, half_keys = {}, {}
    for backward, name in ((0, "fwd"), (1, "bwd")):
        c, per_element, rms = sm_fit.least_squares(samples[0, backward])
        keys[f"rownorm_{name}_sm_clocks_per_row"] = c
        keys[f"rownorm_{name}_elements_per_sm_clock"] = 1 / per_element
        print(f"{name}, fp32 kernel: {len(samples[0, backward])} shapes, rms relative error "
              f"{rms:.3f}")
        # the 16-bit kernel's rows reduce as the fp32 one's: its element rate alone
        per_element, rms = sm_fit.least_squares_second(samples[1, backward], c)
        half_keys[f"rownorm_half_{name}_elements_per_sm_clock"] = 1 / per_element
        print(f"{name}, 16-bit kernel: {len(samples[1, backward])} shapes, rms relative error "
              f"{rms:.3f}")
    for k, v in {**keys, **half_keys}.items():
        print(f"{k} = {v:.3g}")
    files = sm_fit.shipped(r"rownorm_(?:fwd|bwd)_\w+")
    files.setdefault(FRAMEWORK_NAME, {})  # the eager framework must have them
    files.setdefault(HALF_FRAMEWORK, {})
    half_files = sm_fit.shipped(r"rownorm_half_\w+")
    half_files.setdefault(HALF_FRAMEWORK, {})  # the one that casts its model to fp16
    return (sm_fit.settle(a, "rownorm_rates", keys, files) or
            sm_fit.settle(a, "rownorm_rates", half_keys, half_files))


if __name__ == "__main__":
    sys.exit(main())
