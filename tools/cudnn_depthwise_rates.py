#!/usr/bin/env python3
"""What bounds a depthwise convolution that eager PyTorch hands to cuDNN, from the per-op
profiles of the H100 and the H200 (configs/calibrations/h{100,200}-pytorch-layers/,
tools/torch_layer_profile.py): the [framework] keys
cudnn_depthwise_half_{fwd,bwd}_{elements,macs}_per_sm_clock (fp16 and bf16) and
cudnn_depthwise_{fwd,bwd}_{elements,macs}_per_sm_clock (fp32 and tf32) of every eager
framework (docs/devices.md).

    tools/cudnn_depthwise_rates.py [--bin build/bin/scalemeter] [--check]

PyTorch runs a depthwise convolution in its own kernel (conv_depthwise2d, priced by the
depthwise_* keys) unless its input lies channels-last (ConvNeXt's blocks, after their permutes)
or it is at fp16 and cuDNN's workload rule picks it (ATen's Convolution.cpp,
use_cudnn_depthwise): then cuDNN's direct kernels run it, bound by the SMs as PyTorch's are but
at their own rates. The profiles time two such sets at 16 bits: ConvNeXt-T's 7 x 7 ones at
bf16 (channels-last, cuDNN's NHWC kernels) and MobileNet v2's stride-1 3 x 3 ones at fp16 (NCHW,
cuDNN's NCHW kernels and, for some weight gradients, its NHWC ones with their transposes), on
the H100. Each op's cuDNN kernels (less PyTorch's own in it: autocast's copy of the weights, the
bias's addition and sum; less the kernel_device_us the model adds to its launch) are fitted as
elements / e + MACs / m SM clocks at the part's SMs x sustained clock, elements its input's and
output's, MACs the backward pass's twice the forward's as the model counts them, by least
squares in relative error, each pass on its own: two kernel sizes tell the two terms apart. At
32 bits one size ran (ConvNeXt-T's 7 x 7 at fp32 on the H200, whose weight gradient cuDNN 9.19
runs in far slower kernels than at bf16): its keys take the 16-bit fit's split between elements
and MACs, scaled by one factor to the 32-bit ops' summed time. --check exits 1 where the shipped
keys are not what the profiles give (to three significant digits). Standard library only; a
few seconds.
"""
import functools
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sm_fit  # noqa: E402  (kernel_device_us, the parts' clocks, the least squares)
import stem_rates  # noqa: E402  (the convolutions of a profiled step, their kernels)

PASSES = ("fwd", "bwd")
OWN = ("void at::native", "Memset")  # PyTorch's kernels around cuDNN's, and its memsets
HALF = ("fp16", "bf16")
CLASSES = ("half", "tf32", "fp32")  # the precisions cuDNN's kernels differ at


def frameworks():
    """The shipped files that price eager PyTorch's depthwise convolutions: every one giving
    the depthwise_* keys, and channels-last PyTorch's, where cuDNN runs them all."""
    paths = sm_fit.shipped(r"depthwise_fwd_elements_per_sm_clock")
    return sorted(paths) + [os.path.join("configs", "frameworks", "pytorch-channels-last.ini")]


@functools.lru_cache(maxsize=None)
def bias_rate(backward):
    """The Hopper framework's conv_bias_* rate of the pass (the h200's), elements per SM and
    clock."""
    path = sm_fit.HOPPER
    key = f"conv_bias_{PASSES[backward]}_elements_per_sm_clock"
    return sm_fit.shipped(key, [path])[path][key]


def samples_of(phases, per_us):
    """[(precision class, backward, elements, macs, clocks)] of a profiled step's depthwise ops
    cuDNN ran; its TF32 ops, whose kernels the profiles do not time each, less their bias's
    kernels at the h200 description's price."""
    out = []
    for backward, r, (x, w, has_bias, o) in stem_rates.conv_passes(phases):
        if w[1] != 1 or x[1] != w[0]:  # depthwise: one input channel a group
            continue
        if "conv_depthwise2d" in r["kernel_names"]:  # PyTorch's own kernel ran it
            continue
        cls = "half" if r["precision"] in HALF else r["precision"]
        if r.get("kernel_name_us"):
            t = sum(t for k, t in stem_rates.kernels(r) if not k.startswith(OWN))
        elif cls == "tf32":
            t = float(r["kernel_us"]) - (o / (bias_rate(backward) * per_us) if has_bias else 0)
        else:
            continue
        macs = o * w[2] * w[3] * (2 if backward else 1)
        out.append((cls, backward, math.prod(x) + o, macs,
                    (t - sm_fit.kernel_device_us()) * per_us))
    return out


def collect(binary):
    """{(precision class, backward): [(elements, macs, clocks)]} over both parts' profiles."""
    out = {(c, b): [] for c in CLASSES for b in (0, 1)}
    for part in sm_fit.PARTS:
        per_us = sm_fit.sm_clocks_per_us(binary, part)
        for phases in sm_fit.profiled_steps(part, timed=False):
            for cls, backward, e, m, k in samples_of(phases, per_us):
                out[cls, backward].append((e, m, k))
    return out


def rates(samples, say=print):
    """The keys from collect()'s samples: the 16-bit ones fitted, the TF32 and fp32 ones that
    fit's split scaled to their ops' summed clocks."""
    keys = {}
    for backward, name in enumerate(PASSES):
        per_element, per_mac, rms = sm_fit.least_squares(samples["half", backward])
        keys[f"cudnn_depthwise_half_{name}_elements_per_sm_clock"] = 1 / per_element
        keys[f"cudnn_depthwise_half_{name}_macs_per_sm_clock"] = 1 / per_mac
        say(f"half {name}: {len(samples['half', backward])} ops, rms relative error {rms:.3f}")
        for cls in CLASSES[1:]:
            wide = samples[cls, backward]
            scale = sum(k for _, _, k in wide) / sum(per_element * e + per_mac * m
                                                     for e, m, _ in wide)
            keys[f"cudnn_depthwise_{cls}_{name}_elements_per_sm_clock"] = 1 / (per_element * scale)
            keys[f"cudnn_depthwise_{cls}_{name}_macs_per_sm_clock"] = 1 / (per_mac * scale)
            say(f"{cls} {name}: {len(wide)} ops, {scale:.2f} times the 16-bit rates' clocks")
    return keys


def main():
    a = sm_fit.arguments(__doc__, "cudnn_depthwise_rates")
    keys = rates(collect(a.bin))
    for k, v in keys.items():
        print(f"{k} = {v:.3g}")
    files = frameworks()
    have = sm_fit.shipped(r"cudnn_depthwise_\w+", files)
    # a file that lacks every key differs too
    return sm_fit.settle(a, "cudnn_depthwise_rates", keys,
                         {f: have.get(f, {}) for f in files})


if __name__ == "__main__":
    sys.exit(main())
