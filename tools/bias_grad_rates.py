#!/usr/bin/env python3
"""What the bias gradients' reductions take in eager PyTorch on Hopper, from the per-op profiles
of the H100 and the H200 (configs/calibrations/h{100,200}-pytorch-layers/,
tools/torch_layer_profile.py): the [framework] keys bias_grad_sm_clocks_per_sum,
bias_grad_elements_per_sm_clock (32-bit gradients) and bias_grad_half_elements_per_sm_clock
(16-bit) (docs/devices.md).

    tools/bias_grad_rates.py [--bin build/bin/scalemeter] [--check | --write]

A bias added to every row of a product has as gradient its output's gradient summed over the
rows, which PyTorch's AddmmBackward computes in reduce_kernel launches of its own beside the two
products (plugin ABI 20's bias_grad_elems and bias_grad_sums). Per profiled step, the sums (the
step's AddmmBackward ops that ran ATen's reduce_kernel, not cuBLASLt's splitKreduce) and the
elements summed (the rows x outputs of every forward aten::linear with a bias that ran as one
product, its bias in the product: the addmm path, whose backward is AddmmBackward) against the
reduce kernels' time (less the description's kernel_device_us a kernel, which the model adds to
each kernel it launches), in SM clocks at the part's SMs x sustained clock, fitted as sums x c +
elements / e by least squares in relative error over the steps whose reductions take MIN_US or
more (a classifier's sum over a batch of rows is a launch's own time): c and e from 32-bit
gradients (tf32, fp32), 16-bit ones' (fp16, bf16) e at the same c. --check exits 1
where configs/frameworks/pytorch-eager.ini's or dle-squad.ini's keys are not what the profiles
give (to three significant digits), or where any other file that gives them gives other values.
Standard library only; a few seconds.
"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_table  # noqa: E402  (the profiles' rows)
import sm_fit  # noqa: E402  (kernel_device_us, the parts' clocks, the least squares)

PARTS = sm_fit.PARTS
MIN_US = 100.0
FILES = [os.path.join("configs", "frameworks", n) for n in ("pytorch-eager.ini", "dle-squad.ini")]
FP32_ONLY = [os.path.join("configs", "frameworks", "dle-squad-fp32.ini")]


def summed_elements(phases):
    """Elements the step's bias gradients sum: rows x outputs of each forward linear with a bias
    that ran as one product (no element-wise kernel of its own for the bias)."""
    total = 0
    for r in phases.get("fwd", []):
        if r["op"] != "aten::linear" or "elementwise_kernel" in r.get("kernel_names", ""):
            continue
        s = op_table.shapes_of(r["shapes"])
        if len(s) >= 3 and s[2] and s[0] and s[1]:
            total += math.prod(s[0][:-1]) * s[1][0]
    return total


def reduce_us(phases):
    """(us, kernels, sums) of ATen's reduce kernels in the step's AddmmBackward ops (not
    cuBLASLt's splitKreduce, the weight gradient's), sums the ops that ran one."""
    us = kernels = sums = 0
    for r in phases.get("bwd", []):
        if not r["op"].endswith("AddmmBackward0") or not r.get("kernel_name_us"):
            continue
        ran = 0
        for name, t in zip(r["kernel_names"].split(";"), r["kernel_name_us"].split(";")):
            if "native::reduce_kernel" in name:
                us, kernels, ran = us + float(t), kernels + 1, 1
        sums += ran
    return us, kernels, sums


def points(part):
    """{(half, file, network, batch): [(sums, elements, kernel us less the launches)]}."""
    out = {}
    for bert in (False, True):
        for name, key, phases in sm_fit.profiled_points(part, bert=bert):
            elements = summed_elements(phases)
            us, kernels, sums = reduce_us(phases)
            if elements and us >= MIN_US:
                half = any(p in name for p in ("fp16", "bf16"))
                out.setdefault((half, name, *key), []).append(
                    (sums, elements, us - kernels * sm_fit.kernel_device_us()))
    return out


def main():
    a = sm_fit.arguments(__doc__, "bias_grad_rates", "the frameworks' keys")
    samples = {False: [], True: []}
    print("| part | profile | network | batch | sums | elements summed | reduce kernels us |")
    print("|---|---|---|---:|---:|---:|---:|")
    for part in PARTS:
        per_us = sm_fit.sm_clocks_per_us(a.bin, part)
        for (half, name, net, batch), got in sorted(points(part).items()):
            sums, elements = got[0][0], got[0][1]
            us = statistics.median(t for _, _, t in got)
            samples[half].append((sums, elements, us * per_us))
            print(f"| {part} | {name} | {net} | {batch} | {sums} | {elements} | {us:.0f} |")
    c, per_element, rms = sm_fit.least_squares(samples[False])
    keys = {"bias_grad_sm_clocks_per_sum": c, "bias_grad_elements_per_sm_clock": 1 / per_element}
    print(f"32-bit gradients: {len(samples[False])} steps, rms relative error {rms:.3f}")
    per_element, rms = sm_fit.least_squares_second(samples[True], c)
    keys["bias_grad_half_elements_per_sm_clock"] = 1 / per_element
    print(f"16-bit gradients: {len(samples[True])} steps, rms relative error {rms:.3f}")
    for k, v in keys.items():
        print(f"{k} = {v:.3g}")
    files = sm_fit.shipped(r"bias_grad_\w+")
    half_files = {p: v for p, v in files.items() if p not in FP32_ONLY}
    for path in FILES:
        half_files.setdefault(path, {})
    fp32 = {k: v for k, v in keys.items() if "half" not in k}
    fp32_files = {p: v for p, v in files.items() if p in FP32_ONLY}
    for path in FP32_ONLY:
        fp32_files.setdefault(path, {})
    return (sm_fit.settle(a, "bias_grad_rates", keys, half_files) or
            sm_fit.settle(a, "bias_grad_rates", fp32, fp32_files))


if __name__ == "__main__":
    sys.exit(main())
