#!/usr/bin/env python3
"""How fast eager PyTorch's element-wise kernel runs where an operand is broadcast, from the
H100's and H200's per-op profiles that time each kernel (configs/calibrations/
h{100,200}-pytorch-layers/, the CNNs' and BERT's files): the [framework] key
broadcast_elements_per_sm_clock of every eager framework that runs attention's passes over the
scores in kernels of their own (the files giving the depthwise_* keys, pytorch-channels-last,
and the DeepLearningExamples BERT frameworks).

    tools/broadcast_rates.py [--bin build/bin/scalemeter] [--write | --check]

Where one operand of an addition or a product has fewer elements than the output (a
squeeze-and-excitation's scale over the channels, BERT's additive mask over the scores, a bias
over a product's rows), PyTorch's TensorIterator cannot vectorize and runs its plain loop,
`elementwise_kernel<128, 4>` (`<128, 2>` at 32 bits): bound by the SMs' issue, at 1.1 to 1.8
output elements a SM and clock whatever their bytes, 0.3-0.5 of the H200's DRAM rate
(docs/ops-bert-h200.md). The key is the median over every such forward kernel of over 20 us
(output elements over the kernel's time less kernel_device_us, times the part's SMs and
sustained clock), both parts, every precision: one rate, as the conv_bias_* keys (ATen's
broadcast add_ of a convolution's bias) took one at fp32 and bf16. Standard library only.
"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_table  # noqa: E402  (the profiles' reader)
import sm_fit  # noqa: E402

LOOP = "void at::native::elementwise_kernel<128, "  # TensorIterator's non-vectorized loop
MIN_US = 20.0  # shorter kernels are mostly their launch's fixed cost
FRAMEWORKS = [os.path.join("configs", "frameworks", n)
              for n in ("pytorch-channels-last.ini", "dle-squad.ini", "dle-squad-fp32.ini",
                        "dle-bert.ini")]


def tensor_sizes(shapes):
    """The elements of each tensor input of an op, from the profiler's shapes (scalars and
    lists of tensors left out)."""
    return [math.prod(s) for s in op_table.shapes_of(shapes)
            if isinstance(s, list) and s and all(isinstance(x, int) for x in s)]


def broadcast_elements(shapes):
    """The output elements of an op whose inputs broadcast (two or more tensor inputs, one with
    fewer elements than the largest), else 0."""
    sizes = tensor_sizes(shapes)
    return max(sizes) if len(sizes) >= 2 and min(sizes) < max(sizes) else 0


def samples(binary):
    """[(part, model, op, output elements a SM clock)] of every broadcast kernel forward."""
    out = []
    for part in sm_fit.PARTS:
        per_us = sm_fit.sm_clocks_per_us(binary, part)
        folder = os.path.join(sm_fit.ROOT, "configs", "calibrations", f"{part}-pytorch-layers")
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".csv.gz"):
                continue
            for steps in op_table.load(os.path.join(folder, name)).values():
                for r in steps[0].get("fwd", []):
                    if r["op"] not in ("aten::add", "aten::mul") or not r.get("kernel_name_us"):
                        continue
                    names = r["kernel_names"].split(";")
                    times = [float(t) for t in r["kernel_name_us"].split(";")]
                    elems = broadcast_elements(r["shapes"])
                    if len(names) != 1 or not names[0].startswith(LOOP) or not elems:
                        continue
                    us = times[0] - sm_fit.kernel_device_us()
                    if times[0] >= MIN_US:
                        out.append((part, r["model"], r["op"], elems / (us * per_us)))
    return out


def files():
    """The shipped files that price eager PyTorch's passes over the scores."""
    return sorted(set(sm_fit.shipped(r"depthwise_fwd_elements_per_sm_clock")) | set(FRAMEWORKS))


def main():
    a = sm_fit.arguments(__doc__, "broadcast_rates")
    got = samples(a.bin)
    if not got:
        sys.exit("broadcast_rates: no broadcast kernel in the profiles")
    by = {}
    for part, model, op, rate in got:
        by.setdefault((part, model.split("_")[0], op), []).append(rate)
    print("| part | networks | op | kernels | elements a SM clock, median (range) |")
    print("|---|---|---|---:|---:|")
    for (part, model, op), rates in sorted(by.items()):
        print(f"| {part} | {model} | {op} | {len(rates)} | {statistics.median(rates):.2f} "
              f"({min(rates):.2f}-{max(rates):.2f}) |")
    keys = {"broadcast_elements_per_sm_clock": statistics.median(r for *_, r in got)}
    for k, v in keys.items():
        print(f"{k} = {v:.3g}  ({len(got)} kernels)")
    have = sm_fit.shipped(r"broadcast_elements_per_sm_clock", files())
    return sm_fit.settle(a, "broadcast_rates", keys, {f: have.get(f, {}) for f in files()})


if __name__ == "__main__":
    sys.exit(main())
