#!/usr/bin/env python3
"""What bounds a network's stem and a convolution's bias in eager PyTorch on Hopper, from the
per-op profiles of the H100 and the H200 (configs/calibrations/h{100,200}-pytorch-layers/,
tools/torch_layer_profile.py): the [framework] keys stem_{fwd,bwd}_elements_per_sm_clock,
stem_{fwd,bwd}_macs_per_sm_clock and conv_bias_{fwd,bwd}_elements_per_sm_clock of the h100 and
h200 descriptions and pytorch-eager-kernels.ini (docs/devices.md).

    tools/stem_rates.py [--bin build/bin/scalemeter] [--check]

A stem, a dense convolution over an image's 3 channels, cannot feed tensor cores their 8 or 16
channels a step: cuDNN runs it in kernels on the SMs' lanes (implicit_convolve_sgemm) or pads
it, and it took the same time at fp32, TF32 and bf16 and on both parts (VGG-11's at batch 128:
2.6-3.0 ms at every precision, where the tensor cores would take a tenth). Each stem's kernel
time (less its bias's addition, autocast's copy of the image and the kernel_device_us the
model adds to its launch; stems under 10 us left out) is fitted as elements / e + MACs / m SM clocks at the part's SMs x
sustained clock, elements its input's and output's, MACs the backward pass's twice the
forward's as the model counts them, by least squares in relative error over every stem of
every profile that times each kernel. A convolution's bias PyTorch adds after cuDNN's
convolution (ATen's add_, broadcast along the channels) and sums its gradient in a kernel of its
own: output elements over the kernels' time (less kernel_device_us each), summed over every
such op; the addition took the same time at fp32 and bf16 (an element a clock per SM, whatever
its bytes). A backward op, which records no shapes, takes those of its forward op, autograd
running them in reverse. --check exits 1 where the shipped keys are not what the profiles give
(to three significant digits). Standard library only; a few seconds.
"""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sm_fit  # noqa: E402  (kernel_device_us, the parts' clocks, the least squares)

ROOT = sm_fit.ROOT
PARTS = sm_fit.PARTS
FILES = [sm_fit.HOPPER, os.path.join("configs", "frameworks", "pytorch-eager-kernels.ini")]
STEM_CHANNELS = 4  # a dense convolution over this many input channels or fewer is a stem
MIN_US = 10.0
BIAS_ADD = "CUDAFunctor_add"
BIAS_SUM = "sum_functor"
COPY = re.compile(r"copy_kernel")




def shapes(text):
    """The profiler's input shapes as lists of ints ([] where none)."""
    return [[int(d) for d in re.findall(r"\d+", s)] for s in re.findall(r"\[([^\[\]]*)\]", text)]


def kernels(row):
    return list(zip(row["kernel_names"].split(";"), map(float, row["kernel_name_us"].split(";"))))


def convs(ops):
    """The forward pass's convolutions in order: (row, input, weight, bias, output elements)."""
    out = []
    for i, r in enumerate(ops):
        if r["op"] != "aten::conv2d":
            continue
        s = shapes(r["shapes"])
        x, w = s[0], s[1]
        o = x[0] * w[0] * x[2] * x[3]  # stride 1 where no next op says otherwise
        for nxt in ops[i + 1:i + 4]:
            ns = shapes(nxt["shapes"])
            if ns and len(ns[0]) == 4 and ns[0][:2] == [x[0], w[0]]:
                o = math.prod(ns[0])
                break
        out.append((r, x, w, len(s) > 2 and bool(s[2]), o))
    return out


def conv_passes(phases):
    """A profiled step's convolution ops, [(backward, row, (input, weight, bias, output
    elements))]: the forward pass's, then the backward pass's where it holds as many (a
    backward op records no shapes: its forward op's, autograd running them in reverse)."""
    fwd = convs(phases.get("fwd", []))
    bwd = [r for r in phases.get("bwd", []) if r["op"].endswith("ConvolutionBackward0")]
    pairs = [(0, r, c) for r, *c in fwd]
    if len(bwd) == len(fwd):
        pairs += [(1, r, c[1:]) for r, c in zip(bwd, reversed(fwd))]
    return pairs


def collect(part):
    """Stem samples [(pass, elements, macs, us)] and bias sums {pass: [elements, us]}."""
    stems, bias = [], {0: [0.0, 0.0], 1: [0.0, 0.0]}
    for phases in sm_fit.profiled_steps(part):
        for backward, r, (x, w, has_bias, o) in conv_passes(phases):
            ks = kernels(r)
            mark = BIAS_SUM if backward else BIAS_ADD
            if has_bias:
                for k, t in ks:
                    if mark in k:
                        bias[backward][0] += o
                        bias[backward][1] += t - sm_fit.kernel_device_us()
            if x[1] > STEM_CHANNELS or w[1] != x[1]:
                continue
            t = sum(t for k, t in ks if mark not in k and not COPY.search(k))
            if t < MIN_US:  # a launch's own time (EfficientNet's 1 x 1 excitations)
                continue
            macs = o * w[1] * w[2] * w[3] * (2 if backward else 1)
            stems.append((backward, math.prod(x) + o, macs, t - sm_fit.kernel_device_us()))
    return stems, bias


def main():
    a = sm_fit.arguments(__doc__, "stem_rates")
    samples = {0: [], 1: []}
    sums = {0: [0.0, 0.0], 1: [0.0, 0.0]}
    for part in PARTS:
        per_us = sm_fit.sm_clocks_per_us(a.bin, part)
        stems, bias = collect(part)
        for backward, e, m, us in stems:
            samples[backward].append((e, m, us * per_us))
        for backward, (n, us) in bias.items():
            sums[backward][0] += n
            sums[backward][1] += us * per_us
    keys = {}
    for backward, name in ((0, "fwd"), (1, "bwd")):
        per_element, per_mac, rms = sm_fit.least_squares(samples[backward])
        keys[f"stem_{name}_elements_per_sm_clock"] = 1 / per_element
        keys[f"stem_{name}_macs_per_sm_clock"] = 1 / per_mac
        keys[f"conv_bias_{name}_elements_per_sm_clock"] = sums[backward][0] / sums[backward][1]
        print(f"stem {name}: {len(samples[backward])} ops, rms relative error {rms:.3f}")
    for k, v in keys.items():
        print(f"{k} = {v:.3g}")
    return sm_fit.settle(a, "stem_rates", keys,
                         sm_fit.shipped(r"(?:stem|conv_bias)_\w+", FILES))


if __name__ == "__main__":
    sys.exit(main())
