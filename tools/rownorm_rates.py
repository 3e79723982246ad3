#!/usr/bin/env python3
"""What bounds eager PyTorch's layer norm on Hopper, from the per-op profiles of the H100 and
the H200 (configs/calibrations/h{100,200}-pytorch-layers/, tools/torch_layer_profile.py): the
[framework] keys rownorm_fwd_sm_clocks_per_row, rownorm_fwd_elements_per_sm_clock,
rownorm_bwd_sm_clocks_per_row and rownorm_bwd_elements_per_sm_clock (docs/devices.md).

    tools/rownorm_rates.py [--bin build/bin/scalemeter] [--check]

PyTorch's layer norm launches a block of 128 threads per row (vectorized_layer_norm_kernel;
backward layer_norm_grad_input_kernel, beside GammaBetaBackwardCUDAKernel for the weight and bias
gradients), so at a few hundred elements a row the rows, not the bytes, set its time: ConvNeXt-T's
norms over 96 channels took the same time on both parts, whose DRAMs differ by 1.43 times.
Each layer norm op's kernel time (its layer norm kernels alone: not the autocast cast or the
permute's copy beside them; less the description's kernel_device_us, which the model adds to
each kernel it launches) is fitted as rows x c + elements / e SM clocks at the part's SMs x
sustained clock, by least squares in relative error (each distinct shape once per part, ops
under 10 us, a launch's own time, left out), forward and backward apart; the backward op, which
records no shapes, takes those of its forward op, autograd running them in reverse. --check
exits 1 where configs/frameworks/pytorch-eager.ini's keys are not what the profiles give (to
three significant digits), or where any other description or framework that gives them gives
other values. Standard library only; a few seconds.
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


def points(part):
    """{(pass, elements a row, rows): [kernel us less the launches]} over the part's files."""
    out = {}
    for phases in sm_fit.profiled_steps(part):
        fwd = [r for r in phases.get("fwd", []) if r["op"] == FWD_OP]
        bwd = [r for r in phases.get("bwd", []) if r["op"].endswith(BWD_OP)]
        shapes = [[int(d) for d in re.findall(r"\d+", r["shapes"].split("]")[0])] for r in fwd]
        pairs = [(0, r, s) for r, s in zip(fwd, shapes)]
        if len(bwd) == len(fwd):
            pairs += [(1, r, s) for r, s in zip(bwd, reversed(shapes))]
        for backward, r, shape in pairs:
            got = norm_kernels_us(r, backward)
            if not got or got[0] < MIN_US:
                continue
            rows = math.prod(shape[:-1])
            out.setdefault((backward, shape[-1], rows), []).append(
                got[0] - sm_fit.kernel_device_us())
    return out


def main():
    a = sm_fit.arguments(__doc__, "rownorm_rates", "pytorch-eager.ini's keys")
    samples = {0: [], 1: []}
    print("| part | pass | elements a row | rows | kernel us (less launches) |")
    print("|---|---|---:|---:|---:|")
    for part in PARTS:
        per_us = sm_fit.sm_clocks_per_us(a.bin, part)
        for (backward, n, rows), us in sorted(points(part).items()):
            t = statistics.median(us)
            samples[backward].append((rows, rows * n, t * per_us))
            print(f"| {part} | {'bwd' if backward else 'fwd'} | {n} | {rows} | {t:.1f} |")
    keys = {}
    for backward, name in ((0, "fwd"), (1, "bwd")):
        c, per_element, rms = sm_fit.least_squares(samples[backward])
        keys[f"rownorm_{name}_sm_clocks_per_row"] = c
        keys[f"rownorm_{name}_elements_per_sm_clock"] = 1 / per_element
        print(f"{name}: {len(samples[backward])} shapes, rms relative error {rms:.3f}")
    for k, v in keys.items():
        print(f"{k} = {v:.3g}")
    files = sm_fit.shipped(r"rownorm_\w+")
    files.setdefault(FRAMEWORK_NAME, {})  # the eager framework must have them
    return sm_fit.settle(a, "rownorm_rates", keys, files)


if __name__ == "__main__":
    sys.exit(main())
