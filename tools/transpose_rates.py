#!/usr/bin/env python3
"""Which convolutions cuDNN 9 transposes on NCHW tensors at fp16 and bf16, how fast its
transposes run, and what its grouped kernels take without them, from the per-op profiles that
time each kernel (configs/calibrations/h{100,200}-pytorch-layers/, tools/torch_layer_profile.py):
the [framework] keys transpose_elements_per_sm_clock and
grouped_half_{fwd,bwd}_elements_per_sm_clock of the h100 and h200 descriptions and
pytorch-eager-kernels.ini, and the evidence for their nchw_matmul_1x1_positions
(docs/devices.md; docs/ops-h100-h200.md, "cuDNN's transposes by kind").

    tools/transpose_rates.py [--bin build/bin/scalemeter] [--check]

cuDNN's tensor-core convolutions read NHWC; on NCHW tensors it runs nchwToNhwcKernel before a
convolution and nhwcToNchwKernel after it, or runs the convolution on NCHW as it stands. Each
convolution op's transposes between 16-bit tensors (the stems' left out: their price,
tools/stem_rates.py, holds what cuDNN does around them) are counted in elements, each read and
written once (tools/op_table.py's transposed_bytes: forward the input and a k x k weight in, the
output back; backward what the data and weight gradients' NHWC kernels read and write), over
their kernels' time at the part's SMs x sustained clock: elements per SM and clock, summed over
every op. A grouped convolution's own kernels (its op's kernel time less the transposes,
autocast's casts of its weight and the kernel_device_us the model adds to its launch) take its
input and output elements, forward and backward, at the rate summed the same way. A backward
op, which records no shapes, takes those of its forward op, autograd running them in reverse.
--check exits 1 where the shipped keys are not what the profiles give (to three significant
digits). Standard library only; a few seconds.
"""
import collections
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_table  # noqa: E402  (the transposes' bytes)
import sm_fit  # noqa: E402  (the profiles that time each kernel, the parts' clocks)
import stem_rates  # noqa: E402  (a forward pass's convolutions with their outputs)

ROOT = sm_fit.ROOT
PARTS = sm_fit.PARTS
FILES = [sm_fit.HOPPER, os.path.join("configs", "frameworks", "pytorch-eager-kernels.ini")]
HALF = ("__half", "__nv_bfloat16")
TRANSPOSE = re.compile(r"(nchwToNhwc|nhwcToNchw)Kernel<([\w:]+), ([\w:]+),")
COPY = re.compile(r"copy_kernel")


def transposes(ks):
    """The time of an op's transposes and the bytes of their elements (2: between 16-bit
    tensors, 4: between fp32 ones; 0: none, or of mixed or other widths)."""
    us, widths = 0.0, set()
    for name, t in ks:
        m = TRANSPOSE.search(name)
        if m:
            us += t
            widths.add(2 if m.group(2) in HALF and m.group(3) in HALF else
                       4 if m.group(2) == m.group(3) == "float" else 0)
        elif name.startswith("void tensorTransformGeneric<"):
            widths.add(0)
    return us, widths.pop() if len(widths) == 1 else 0


# One convolution op of a profile: its pass (1: backward), kind (op_table's classes, "stem"
# for a dense one over 4 input channels or fewer), a sample's output positions (H x W), whether
# it is strided, the elements its transposes moved, their time (0: none of the width asked)
# and its own kernels' (less kernel_device_us), and its input's and output's elements.
Op = collections.namedtuple("Op", "backward kind positions strided moved t_us own_us elements")
# the kinds the table and the fp32 rates take, and what the table calls them
KINDS = {"conv dense kxk": "kxk", "conv 1x1": "1x1", "conv grouped": "grouped"}


def kind_of(x, w):
    """A convolution's kind as the model takes it: a stem or op_table's class."""
    if x[1] <= stem_rates.STEM_CHANNELS and w[1] == x[1]:
        return "stem"
    return op_table.conv_kind([x, w])[0]


def collect(part, half=True):
    """[Op] of every convolution op of the part's 16-bit profiles (half false: fp32 and TF32)
    that time each kernel."""
    out = []
    width = 2 if half else 4
    for phases in sm_fit.profiled_steps(part):
        pairs = stem_rates.conv_passes(phases)
        first = pairs[0][1]["kernel_names"] if pairs else ""
        if not pairs or bool(re.search(r"f16|bf16|__half|bfloat16", first)) != half:
            continue
        for backward, r, (x, w, _, o) in pairs:
            ks = stem_rates.kernels(r)
            names = [k for k, _ in ks]
            t_us, got = transposes(ks)
            if t_us > 0 and got != width:  # of another width or mixed: no rate to take
                continue
            taps = w[2] * w[3]
            moved = op_table.transposed_bytes(math.prod(x), o, math.prod(w), taps, names,
                                              backward) / (2 * width)
            own = sum(t for k, t in ks if not TRANSPOSE.search(k) and not COPY.search(k))
            positions = o // (x[0] * w[0])
            out.append(Op(backward, kind_of(x, w), positions, positions != x[2] * x[3], moved,
                          t_us, own - sm_fit.kernel_device_us(), math.prod(x) + o))
    return out


def keys_and_samples(binary):
    """The keys the profiles give and every part's samples, as collect() gives them."""
    samples = {part: collect(part) for part in PARTS}
    moved = clocks = 0.0
    grouped = {0: [0.0, 0.0], 1: [0.0, 0.0]}
    for part, rows in samples.items():
        if not rows:
            continue
        per_us = sm_fit.sm_clocks_per_us(binary, part)
        for op in rows:
            if op.kind != "stem" and op.t_us > 0:
                moved += op.moved
                clocks += op.t_us * per_us
            if op.kind == "conv grouped" and op.own_us > 0:
                grouped[op.backward][0] += op.elements
                grouped[op.backward][1] += op.own_us * per_us
    keys = {"transpose_elements_per_sm_clock": moved / clocks}
    for backward, name in ((0, "fwd"), (1, "bwd")):
        if grouped[backward][1] > 0:
            keys[f"grouped_half_{name}_elements_per_sm_clock"] = (
                grouped[backward][0] / grouped[backward][1])
    return keys, samples


def fp32_rates(binary):
    """{part: (elements per SM and clock, fraction of the datasheet's bandwidth)} of the
    transposes between fp32 tensors (TF32, and fp32 with TF32 off) around the dense and grouped
    convolutions of the part's profiles that time each kernel: a width the model does not
    price apart (its TF32 convolutions' prices hold them), beside the 16-bit rate."""
    out = {}
    for part in PARTS:
        moved = us = 0.0
        for op in collect(part, half=False):
            if op.kind in KINDS and op.t_us > 0:
                moved, us = moved + op.moved, us + op.t_us
        if us > 0:
            per_us = sm_fit.sm_clocks_per_us(binary, part)
            gb_s = sm_fit.devices(binary)[part]["memory_bandwidth_gb_s"]
            out[part] = (moved / (us * per_us), 8 * moved / us / 1e3 / gb_s)
    return out


BUCKETS = ((1, 1, "1"), (2, 49, "2-49 (7 x 7)"), (50, 195, "50-195"),
           (196, 196, "196 (14 x 14)"), (197, 783, "197-783"), (784, 10 ** 9, "784 and more"))


def section(binary):
    """The page's lines: the convolutions that ran transposes by kind and output positions,
    and the rates the keys take."""
    keys, samples = keys_and_samples(binary)
    parts = [p for p in PARTS if samples[p]]
    if not parts:
        return []
    md = ["## cuDNN's transposes by kind", ""]
    md += op_table.para(f"""Generated with `tools/transpose_rates.py` (which --check tests
        the shipped keys against). The convolution ops of the 16-bit profiles that time each
        kernel ({', '.join(p.upper() for p in parts)}: fp16 and bf16, every network and
        point), by kind and by the positions of a sample's output (H x W), and how many of them
        ran cuDNN's NCHW transposes (nchwToNhwcKernel, nhwcToNchwKernel) around their
        convolution kernels, forward and backward:""") + [""]
    md += ["| kind | output positions | strided | forward ops | transposed | backward ops | "
           "transposed |", "|---|---|---|---:|---:|---:|---:|"]
    for kind, short in KINDS.items():
        for lo, hi, label in BUCKETS:
            for strided in (False, True):
                n = [[0, 0], [0, 0]]
                for p in parts:
                    for op in samples[p]:
                        if op.kind == kind and lo <= op.positions <= hi and op.strided == strided:
                            n[op.backward][0] += 1
                            n[op.backward][1] += op.t_us > 0
                if n[0][0] + n[1][0]:
                    md.append(f"| {short} | {label} | {'yes' if strided else 'no'} | {n[0][0]} | "
                              f"{n[0][1]} | {n[1][0]} | {n[1][1]} |")
    wide = "; ".join(f"{e:.2f} elements per SM and clock on the {p.upper()}, {f:.2f} of its "
                     "DRAM bandwidth" for p, (e, f) in fp32_rates(binary).items())
    h100 = sm_fit.devices(binary)["h100"]
    rate16 = (4 * keys["transpose_elements_per_sm_clock"] * sm_fit.sm_clocks_per_us(binary, "h100")
              / 1e3 / h100["memory_bandwidth_gb_s"])
    folder = os.path.join(ROOT, "configs", "calibrations", "h100-pytorch-layers")
    relu = [v[("relu", "bytes")] / v[("relu", "kernel")] / 1e3 / h100["memory_bandwidth_gb_s"]
            for precision in ("bf16", "fp16")
            if os.path.exists(os.path.join(folder, f"{precision}.csv.gz"))
            for (_, batch), v in op_table.measure(precision, folder).items()
            if batch >= 128 and v.get(("relu", "kernel"), 0) > 0]
    streamed = (f""", where its in-place ReLUs of 8 MB and more, which also read and write each
        element once, streamed {min(relu):.2f}-{max(relu):.2f} of it at batch 128""" if relu
                else "")
    wide = (f""" The transposes between fp32 tensors (at TF32 and with TF32 off, whose
        convolutions' prices hold them) took {wide}: on the H200, with the bandwidth, about the
        16-bit ones' elements a clock.""" if wide else "")
    md += [""] + op_table.para(f"""Every dense k x k, grouped and strided convolution ran them;
        the dense 1 x 1 ones of stride 1 ran on the NCHW tensors themselves, as matrix products
        (cuBLAS's nvjet and CUTLASS kernels), from 28 x 28 positions on, and all but a few over
        7 x 7 ran transposes. Over 14 x 14 cuDNN's choice (PyTorch asks it to time its
        algorithms: cudnn.benchmark) follows neither the channels nor the batch alone:
        ResNet-50's 1,024-channel ones ran transposed forward at batch 32 and not at 128,
        ResNeXt-50's 512-channel ones the other way round; most ran untransposed forward, about
        half backward (the table). A layer whose sample's output has one position
        (squeeze-excitation's) holds the same bytes in either layout and ran none. The
        descriptions take it as `nchw_matmul_1x1_positions = 196`: no transposes around a
        dense 1 x 1 convolution of stride 1 over 14 x 14 positions or more. The transposes
        moved {keys['transpose_elements_per_sm_clock']:.2f} elements per SM and clock (an
        element read and written once, summed over every op but the stems' at the parts' SMs
        x sustained clock), {rate16:.2f} of the H100's DRAM bandwidth{streamed}.{wide} The
        SMs, not the DRAM, bound cuDNN's transposes on Hopper
        (`transpose_elements_per_sm_clock`), and a part with less bandwidth per SM is bound by
        its DRAM first. Without them, cuDNN's grouped kernels went through
        {keys.get('grouped_half_fwd_elements_per_sm_clock', 0):.2f} input and output elements
        per SM and clock forward and {keys.get('grouped_half_bwd_elements_per_sm_clock', 0):.2f}
        backward (`grouped_half_*`; the H200's bf16 profiles, which do not time each kernel,
        held the transposes in these rates).""") + [""]
    return md


def main():
    a = sm_fit.arguments(__doc__, "transpose_rates")
    keys, samples = keys_and_samples(a.bin)
    for part, rows in samples.items():
        print(f"{part}: {len(rows)} convolution ops of 16-bit profiles timing each kernel")
    for k, v in keys.items():
        print(f"{k} = {v:.3g}")
    return sm_fit.settle(a, "transpose_rates", keys, sm_fit.shipped(
        r"(?:transpose_elements_per_sm_clock|grouped_half_\w+)", FILES))


if __name__ == "__main__":
    sys.exit(main())
