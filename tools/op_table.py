#!/usr/bin/env python3
"""Eager PyTorch on an H200, op by op: the per-op profiles of
configs/calibrations/h200-pytorch-layers/ (tools/torch_layer_profile.py) summed by op class,
beside the calibration-free model's per-layer prices for the same points. Writes
docs/ops-h200.md.

    tools/op_table.py [--bin build/bin/scalemeter] [--out docs/ops-h200.md]

What it tabulates: kernel time, kernels and host time per op class and phase; each phase's
window, GPU busy time (the union of its kernels) and idle time; the depthwise convolutions'
achieved bandwidth; cuDNN's layout transposes around NCHW convolutions (estimated, and timed
where a profile has each kernel name's time, kernel_name_us); and `scalemeter
predict --per-layer` summed over the same classes (convolutions classified from
models/MODEL.ini as the profiles' shapes classify them) against the measured kernel time.
Standard library only; a few seconds.
"""
import argparse
import ast
import configparser
import csv
import functools
import gzip
import json
import math
import os
import re
import statistics
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join("configs", "calibrations", "h200-pytorch-layers")
PRECISIONS = ("bf16", "tf32", "fp32")
PHASES = ("infer", "fwd", "bwd", "opt")
MODELS = ("resnet18", "resnet50", "resnext50_32x4d", "vgg11", "densenet121", "mobilenet_v2",
          "mobilenet_v3_large", "efficientnet_b0", "convnext_tiny")
BATCHES = (32, 128)
ELEMENT = {"bf16": 2, "fp16": 2, "tf32": 4, "fp32": 4}  # bytes of an activation element
PEAK_BW = 4.8e12  # H200 datasheet, bytes/s
DEPTHWISE_NETS = ("mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "convnext_tiny")

CONV = ("conv dense kxk", "conv 1x1", "conv grouped", "conv depthwise")
PRICED = CONV + ("linear", "batch norm", "layer norm", "activation", "elementwise", "pooling",
                 "concat", "dropout")
ORDER = PRICED + ("loss", "autocast casts", "AccumulateGrad", "SGD step", "zero_grad")
FAMILIES = ("dgrad", "wgrad", "gemm", "fft", "depthwise", "transforms", "other")  # kernel_family
# ops that are no work of the network: the phase's closing synchronisation, the profiler's own
NOT_OPS = ("cudaDeviceSynchronize", "Activity Buffer Request", "Buffer Flush")

FWD_CLASS = {
    "aten::linear": "linear", "aten::batch_norm": "batch norm", "aten::layer_norm": "layer norm",
    "aten::relu_": "activation", "aten::hardtanh_": "activation", "aten::gelu": "activation",
    "aten::silu_": "activation", "aten::sigmoid": "activation", "aten::relu": "activation",
    "aten::hardswish_": "activation", "aten::hardsigmoid": "activation",
    "aten::add_": "elementwise", "aten::add": "elementwise", "aten::mul": "elementwise",
    "aten::div_": "elementwise", "aten::bernoulli_": "elementwise", "aten::empty": "elementwise",
    "aten::max_pool2d": "pooling", "aten::avg_pool2d": "pooling",
    "aten::adaptive_avg_pool2d": "pooling", "aten::cat": "concat",
    "aten::dropout": "dropout", "aten::dropout_": "dropout",
    "aten::cross_entropy_loss": "loss",
    "Optimizer.step#SGD.step": "SGD step", "Optimizer.zero_grad#SGD.zero_grad": "zero_grad",
}
BWD_CLASS = {
    "AddmmBackward0": "linear", "TBackward0": "linear",
    "NativeBatchNormBackward0": "batch norm", "CudnnBatchNormBackward0": "batch norm",
    "NativeLayerNormBackward0": "layer norm",
    "ReluBackward0": "activation", "HardtanhBackward0": "activation",
    "GeluBackward0": "activation", "SiluBackward0": "activation",
    "SigmoidBackward0": "activation", "HardswishBackward0": "activation",
    "HardsigmoidBackward0": "activation",
    "AddBackward0": "elementwise", "MulBackward0": "elementwise",
    "MaxPool2DWithIndicesBackward0": "pooling", "AvgPool2DBackward0": "pooling",
    "AdaptiveAvgPool2DBackward0": "pooling", "MeanBackward1": "pooling",
    "CatBackward0": "concat", "NativeDropoutBackward0": "dropout",
    "LogSoftmaxBackward0": "loss", "NllLossBackward0": "loss", "aten::ones_like": "loss",
    "ToCopyBackward0": "autocast casts", "torch::autograd::AccumulateGrad": "AccumulateGrad",
}
MODEL_CLASS = {
    "linear": "linear", "batchnorm2d": "batch norm", "layernorm": "layer norm",
    "relu": "activation", "relu6": "activation", "gelu": "activation", "silu": "activation",
    "sigmoid": "activation", "hardswish": "activation", "hardsigmoid": "activation",
    "add": "elementwise", "mul": "elementwise", "layer_scale": "elementwise",
    "maxpool2d": "pooling", "avgpool2d": "pooling", "adaptive_avgpool2d": "pooling",
    "concat": "concat", "dropout": "dropout",
}
PRETTY = {"resnet18": "ResNet-18", "resnet50": "ResNet-50", "resnext50_32x4d": "ResNeXt-50",
          "vgg11": "VGG-11", "densenet121": "DenseNet-121", "mobilenet_v2": "MobileNet v2",
          "mobilenet_v3_large": "MobileNet v3 large", "efficientnet_b0": "EfficientNet-B0",
          "convnext_tiny": "ConvNeXt-T"}

LONG = {"resnext50_32x4d": "ResNeXt-50 32x4d"}  # the introduction's names, where not PRETTY's
UNDER = {"bf16": "bf16 autocast (fp32 master weights)", "tf32": "TF32",
         "fp32": "fp32 with TF32 off", "fp16": "fp16 autocast with loss scaling"}
UNDER_SHORT = {"bf16": "bf16", "tf32": "TF32", "fp32": "fp32", "fp16": "fp16"}


# ---------------------------------------------------------------------------------------------
# the measurements

def conv_kind(shapes):
    """A convolution's class from its input [N,C,H,W] and weight [O,C/g,kh,kw], with the
    input's and the weight's elements and the kernel's taps."""
    x, w = shapes[0], shapes[1]
    groups = x[1] // w[1]
    if groups == 1:
        kind = "conv 1x1" if w[2] == w[3] == 1 else "conv dense kxk"
    else:
        kind = "conv depthwise" if groups == x[1] else "conv grouped"
    return kind, math.prod(x), math.prod(w), w[2] * w[3]


TYPE_BYTES = {"__nv_bfloat16": 2, "float": 4, "__half": 2}


def transpose_kernels(names):
    """The layout transforms among an op's kernel names: (nchw->nhwc present, nhwc->nchw
    present, bytes per element read + written for each)."""
    n2h = h2n = None
    for k in names:
        m = re.search(r"(nchwToNhwc|nhwcToNchw)Kernel<([\w:]+), ([\w:]+),", k)
        if m:
            size = TYPE_BYTES.get(m.group(2), 4) + TYPE_BYTES.get(m.group(3), 4)
            if m.group(1) == "nchwToNhwc":
                n2h = max(n2h or 0, size)
            else:
                h2n = max(h2n or 0, size)
        elif k.startswith("void tensorTransformGeneric<"):
            n2h = max(n2h or 0, 8)
    return n2h, h2n


def kernel_family(name):
    """What a convolution's kernel does, from its name: cuDNN's layout transforms, a data or
    weight gradient, a matrix product, cuDNN's FFT convolution, PyTorch's depthwise kernel, or
    other work."""
    low = name.lower()
    if re.search(r"nchwtonhwc|nhwctonchw|tensortransformgeneric", low):
        return "transforms"
    if re.search(r"fft2d|flip_filter|region_transform", low):
        return "fft"
    for f in ("dgrad", "wgrad"):
        if f in low:
            return f
    if low.startswith(("nvjet", "void cutlass::kernel2", "sm90_xmma_gemm", "sm80_xmma_gemm")):
        return "gemm"
    return "depthwise" if "conv_depthwise2d" in low else "other"


def short_kernel(name):
    """A kernel's name without its return type, template arguments and parameters."""
    n = name.replace("(anonymous namespace)::", "")
    n = re.sub(r"^void ", "", n)
    if n.startswith("_ZN"):  # a mangled CUTLASS kernel: say what it is
        kind = "Wgrad" if "Wgrad" in n else "Dgrad" if "Dgrad" in n else "Fprop"
        return f"cutlass ImplicitGemmConvolution ({kind})"
    n = re.split(r"[<(]", n, 1)[0]
    return n.strip()


def transposed_bytes(x_elems, o_elems, w_elems, taps, names, backward):
    """Bytes cuDNN's layout transforms read and write in one convolution op: from the kernels
    it ran (nchwToNhwc, nhwcToNchw) and what each call transposes. Forward: the input in, the
    weight in where the kernel is larger than 1 x 1 (KCRS to KRSC), the output back. Backward:
    the data gradient's call transposes the output gradient (and the weight) in and the input
    gradient back; the weight gradient's call the input and the output gradient in (and the
    weight gradient back), where each runs an NHWC kernel."""
    n2h, h2n = transpose_kernels(names)
    if n2h is None and h2n is None:
        return 0.0
    n2h, h2n = n2h or 0, h2n or 0
    w = w_elems if taps > 1 else 0
    if not backward:
        return n2h * (x_elems + w) + h2n * o_elems
    low = [k.lower() for k in names]
    dgrad = any("dgrad" in k and "nhwc" in k for k in low)
    wgrad = any("wgrad" in k and ("nhwc" in k or k.startswith("_zn")) for k in low)
    if not dgrad and not wgrad:
        wgrad = True
    total = 0.0
    if dgrad:
        total += n2h * (o_elems + w) + h2n * x_elems
    if wgrad:
        total += n2h * (x_elems + o_elems) + h2n * w
    return total


def load(path):
    """{(model, batch): [step, ...]} where a step is {phase: [rows in order]}: one step of
    medians where every profiled step ran the same ops, else each profiled step."""
    points = {}
    with gzip.open(path, "rt", newline="") as f:
        for r in csv.DictReader(f):
            steps = points.setdefault((r["model"], int(r["batch"])), {})
            steps.setdefault(r["step"], {}).setdefault(r["phase"], []).append(r)
    out = {}
    for key, steps in points.items():
        out[key] = []
        for name in sorted(steps):
            phases = steps[name]
            for rows in phases.values():
                rows.sort(key=lambda r: int(r["seq"]))
            out[key].append(phases)
    return out


@functools.lru_cache(maxsize=None)
def shapes_of(text):
    """The profiler's input shapes, a Python literal list ([] where none were recorded)."""
    return ast.literal_eval(text) if text else []


# poolings over a window of positions (not every position of a channel, as a global one)
WINDOWED_POOLS = ("aten::max_pool2d", "aten::avg_pool2d")
# a pooling's backward op and the forward op it belongs to
POOL_BWD = {"MaxPool2DWithIndicesBackward0": "aten::max_pool2d",
            "AvgPool2DBackward0": "aten::avg_pool2d",
            "AdaptiveAvgPool2DBackward0": "aten::adaptive_avg_pool2d"}


def bwd_name(op):
    return op.replace("autograd::engine::evaluate_function: ", "")


# the sums direct() keeps of each op of PyTorch's depthwise kernel, fit_direct() solves
DIRECT_SUMS = ("aa", "ab", "bb", "a", "b", "n", "elems", "macs", "kernel")


def direct(add, kind, elems, macs, k_us, names, back):
    """A grouped or depthwise convolution's op towards the direct kernels' rates: for PyTorch's
    depthwise kernel the sums of the least squares that fit its time as elements x a + MACs x
    b (each op weighted by its time, so that the fit is in relative error), for cuDNN's grouped
    kernels and the depthwise ops PyTorch gave cuDNN their elements and time."""
    if kind not in ("conv depthwise", "conv grouped") or k_us <= 0:
        return
    ph = "bwd" if back else "fwd"
    if kind == "conv depthwise" and any("conv_depthwise2d" in k for k in names):
        a, b = elems / k_us, macs / k_us
        for name, x in zip(DIRECT_SUMS, (a * a, a * b, b * b, a, b, 1, elems, macs, k_us)):
            add((ph, "direct dw", name), x)
        return
    what = "direct grouped" if kind == "conv grouped" else "direct dw cudnn"
    add((ph, what, "elems"), elems)
    add((ph, what, "kernel"), k_us)


def analyse_step(phases, precision):
    """One profiled step (or the steps' medians) as a flat dict of numbers."""
    v = {}

    def add(key, x):
        v[key] = v.get(key, 0.0) + x

    convs = []  # the forward pass's convolutions in order: (kind, x, o, w, taps, layer)
    pools = {}  # the forward pass's poolings by op, in order: [input elements]
    for phase in PHASES:
        rows = phases.get(phase, [])
        ops = [r for r in rows if r["op"] != "(phase)"]
        # a convolution's output: the next op's input where it is the next layer's (its
        # batch norm, activation), else stride 1; conv ops of the forward pass in order
        conv_rows = []
        for i, r in enumerate(ops):
            if r["op"] != "aten::conv2d":
                continue
            s = shapes_of(r["shapes"])
            kind, x, w, taps = conv_kind(s)
            o = s[0][0] * s[1][0] * s[0][2] * s[0][3]
            for nxt in ops[i + 1:i + 4]:  # training's batch norm counts its batches first
                ns = shapes_of(nxt["shapes"])
                if ns and isinstance(ns[0], list) and len(ns[0]) == 4 and \
                        ns[0][:2] == [s[0][0], s[1][0]]:
                    o = math.prod(ns[0])
                    break
            macs = o * s[1][1] * taps  # each output element: its group's channels x taps
            conv_rows.append((r, (kind, x, o, math.prod(s[1]), taps, r["module"], macs)))
        if phase == "fwd":
            convs = [c for _, c in conv_rows]
            if conv_rows:  # the stem: the first convolution, of the image's 3 channels
                add(("stem", "kernel"), float(conv_rows[0][0]["kernel_us"]))
                for k in filter(None, conv_rows[0][0]["kernel_names"].split(";")):
                    add(("stem name", k), 1)
        conv_of = {id(r): c for r, c in conv_rows}
        bwd_convs = list(reversed(convs))
        for r in rows:
            if r["op"] == "(phase)":
                v[phase, "window"] = float(r["host_us"])
                v[phase, "busy"] = float(r["kernel_us"])
                v[phase, "phase kernels"] = float(r["kernels"])
                continue
            if r["op"] in NOT_OPS:
                if r["op"] == "cudaDeviceSynchronize":
                    add((phase, "sync"), float(r["host_us"]))
                continue
            k_us, n_k = float(r["kernel_us"]), float(r["kernels"])
            names = r["kernel_names"].split(";") if r["kernel_names"] else []
            # each name's time where the file has kernel_name_us (a file begun before it: none)
            timed = [float(x) for x in (r.get("kernel_name_us") or "").split(";") if x]
            if timed:
                v[("names timed",)] = 1.0
            conv = None
            if r["op"] == "aten::conv2d":
                conv = conv_of[id(r)]
                cls = conv[0]
            elif phase == "bwd" and bwd_name(r["op"]) == "ConvolutionBackward0":
                conv = bwd_convs.pop(0) if bwd_convs else None
                cls = conv[0] if conv else "conv (unmatched)"
            elif phase == "bwd":
                cls = BWD_CLASS.get(bwd_name(r["op"]), bwd_name(r["op"]))
            else:
                cls = FWD_CLASS.get(r["op"], r["op"])
            add((phase, cls, "kernel"), k_us)
            add((phase, cls, "kernels"), n_k)
            add((phase, "op name", cls, bwd_name(r["op"])), 1)
            for k, t in zip(names, timed):
                add((phase, "name us", cls, short_kernel(k)), t)
            add((phase, cls, "host"), float(r["host_us"]))
            add((phase, cls, "self"), float(r["host_self_us"]))
            add((phase, cls, "ops"), 1)
            add((phase, "all", "kernel"), k_us)
            add((phase, "all", "host"), float(r["host_us"]))
            add((phase, "all", "self"), float(r["host_self_us"]))
            add((phase, "all", "kernels"), n_k)
            for k in names:
                if re.search(r"nchwToNhwc|nhwcToNchw|tensorTransformGeneric", k):
                    add((phase, "T name", k), 1)
                if "transpose" in k.lower():
                    v["says transpose", short_kernel(k)] = 1.0
            if phase == "opt":
                for k in names:
                    add(("opt", "name", short_kernel(k)), 1)
            if conv and phase == "bwd":
                low = [k.lower() for k in names]
                fams = {"dgrad": any("dgrad" in k for k in low),
                        "wgrad": any("wgrad" in k for k in low),
                        "gemm": any(k.startswith(("nvjet", "void cutlass::kernel2",
                                                  "sm90_xmma_gemm", "sm80_xmma_gemm"))
                                    for k in low),
                        "depthwise": any("conv_depthwise2d" in k for k in low)}
                for f, hit in fams.items():
                    if hit:
                        add(("bwd", "family", f), 1)
                for k, t in zip(names, timed):
                    add(("bwd", "family us", kernel_family(k)), t)
            if conv:
                kind, x, o, w, taps, _, macs = conv
                back = phase == "bwd"
                tb = transposed_bytes(x, o, w, taps, names, back)
                add((phase, "conv", "kernel"), k_us)
                add((phase, "conv", "ops"), 1)
                if timed:
                    add((phase, "conv T", "timed"), sum(
                        t for k, t in zip(names, timed) if kernel_family(k) == "transforms"))
                if tb:
                    add((phase, "conv T ops", kind), 1)
                    add((phase, "conv T", "kernel"), k_us)
                    add((phase, "conv T", "ops"), 1)
                    add((phase, "conv T", "kernels"), n_k)
                    add((phase, "conv T", "bytes"), tb)
                direct(add, kind, x + o, macs * (2 if back else 1), k_us, names, back)
                if kind == "conv depthwise":
                    e = ELEMENT[precision]
                    add((phase, "dw", "bytes"), e * (x + o + w) * (2 if back else 1))
                    add((phase, "dw", "kernel"), k_us)
                    add((phase, "dw", "ops"), 1)
                    for k in names:
                        add((phase, "dw name", short_kernel(k)), 1)
                    for k, t in zip(names, timed):
                        add((phase, "dw name us", short_kernel(k)), t)
            # a batch norm's elements a second by its channels (the keys' evidence, below)
            if r["op"] == "aten::batch_norm" and phase in ("infer", "fwd") and k_us > 0:
                x = shapes_of(r["shapes"])[0]
                if len(x) == 4:
                    bucket = 1 << min(max(x[1].bit_length() - 1, 4), 10)
                    add((phase, "bn channels", bucket, "elems"), math.prod(x))
                    add((phase, "bn channels", bucket, "kernel"), k_us)
                    add((phase, "bn channels", bucket, "kernel x C"), k_us * x[1])
            # a pooling's input elements a second (the direct convolutions' comparison); the
            # backward op records no shapes: its forward op's, autograd running them in
            # reverse order of their creation
            if "pool" in r["op"] and phase in ("infer", "fwd"):
                x = shapes_of(r["shapes"])
                if x and isinstance(x[0], list):
                    if k_us > 0:
                        add(("pool", r["op"], "elems"), math.prod(x[0]))
                        add(("pool", r["op"], "kernel"), k_us)
                    if phase == "fwd":
                        pools.setdefault(r["op"], []).append(math.prod(x[0]))
            op = POOL_BWD.get(bwd_name(r["op"])) if phase == "bwd" else None
            if op and pools.get(op):
                elems = pools[op].pop()
                if k_us > 0:
                    add(("pool bwd", op, "elems"), elems)
                    add(("pool bwd", op, "kernel"), k_us)
            # the streaming rate of in-place ReLUs (read and write once, as a transpose)
            if r["op"] == "aten::relu_" and phase == "fwd":
                n = math.prod(shapes_of(r["shapes"])[0])
                b = 2 * ELEMENT[precision] * n
                if b >= 8e6:
                    add(("relu", "bytes"), b)
                    add(("relu", "kernel"), k_us)
    return v


def measure(precision, folder=os.path.join(ROOT, DATA)):
    """{(model, batch): {key: median over the profiled steps}} of folder's profiles."""
    out = {}
    for key, steps in load(os.path.join(folder, f"{precision}.csv.gz")).items():
        values = [analyse_step(s, precision) for s in steps]
        keys = set().union(*values)
        out[key] = {k: statistics.median(x.get(k, 0.0) for x in values) for k in keys}
    return out


ROUNDS = os.path.join("configs", "calibrations", "h200-pytorch-bf16-rounds.csv")


def unprofiled():
    """{(model, batch): {phase: us}}: the same H200 leases' bf16 passes without the
    profiler (tools/torch_repeat_runs.py, CUDA events), median over its rounds, image 224."""
    runs = {}
    with open(os.path.join(ROOT, ROUNDS), newline="") as f:
        for r in csv.DictReader(f):
            if r["image"] == "224" and r["precision"] == "bf16":
                runs.setdefault((r["model"], int(r["batch"])), []).append(r)
    return {k: {p: statistics.median(float(r["t_" + t]) for r in rs) * 1e6
                for p, t in (("infer", "infer"), ("fwd", "fwd"), ("bwd", "bwd"),
                             ("opt", "grad"))}
            for k, rs in runs.items()}


# ---------------------------------------------------------------------------------------------
# the model

def evaluate(expr, names):
    """An integer expression of a network file (docs/network-format.md) over names."""
    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            return names[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.Div: lambda: int(a / b), ast.FloorDiv: lambda: int(a / b),
                   ast.Mod: lambda: a % b}
            return ops[type(n.op)]()
        if isinstance(n, ast.Compare) and len(n.ops) == 1:
            a, b = ev(n.left), ev(n.comparators[0])
            cmp = {ast.Eq: a == b, ast.NotEq: a != b, ast.Lt: a < b, ast.LtE: a <= b,
                   ast.Gt: a > b, ast.GtE: a >= b}
            return int(cmp[type(n.ops[0])])
        raise ValueError(f"op_table: cannot evaluate {expr!r}")
    return ev(ast.parse(expr.strip(), mode="eval"))


def conv_params(path):
    """{layer's full name: (kernel taps, groups)} of a network file's conv2d layers: its
    [layers], its blocks (inline or from a template, repeated over {A..B}), ${expressions}
    evaluated."""
    sections, cur = [], None
    with open(path) as f:
        for raw in f:
            line = re.sub(r"(^|\s);.*$", "", raw.rstrip("\n"))
            if not line.strip():
                continue
            if line[0] in " \t" and cur and cur[1]:
                cur[1][-1] = (cur[1][-1][0], cur[1][-1][1] + " " + line.strip())
                continue
            m = re.match(r"\[(\w+)(?:\s+(.+))?\]", line.strip())
            if m:
                cur = ((m.group(1), m.group(2)), [])
                sections.append(cur)
                continue
            key, _, value = line.partition("=")
            cur[1].append((key.strip(), value.strip()))
    templates = {h[1]: body for h, body in sections if h[0] == "template"}
    out = {}

    def layers(prefix, body, names):
        for key, value in body:
            if key in ("use", "from") or not value:
                continue
            text = re.sub(r"\$\{([^}]*)\}", lambda m: str(evaluate(m.group(1), names)), value)
            words = text.split()
            if words[0] != "conv2d":
                continue
            kv = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            k = [int(x) for x in kv.get("kernel", "1").split("x")]
            taps = k[0] * (k[1] if len(k) > 1 else k[0])
            out[prefix + key] = (taps, int(kv.get("groups", "1")))

    for (kind, name), body in sections:
        if kind == "layers":
            layers("", body, {})
        elif kind == "block":
            m = re.search(r"\{(\d+)\.\.(\d+)\}", name)
            reps = range(int(m.group(1)), int(m.group(2)) + 1) if m else [None]
            for i in reps:
                full = name.replace(m.group(0), str(i)) if m else name
                base = {"i": i} if i is not None else {}
                args = dict(body)
                if "use" in args:
                    names = {k: evaluate(v, base) for k, v in body if k not in ("use", "from")}
                    layers(full + ".", templates[args["use"]], {**base, **names})
                else:
                    layers(full + ".", body, base)
    return out


def run(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"scalemeter {' '.join(args)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


@functools.lru_cache(maxsize=None)
def per_layer(binary, model):
    """`scalemeter metrics MODEL --per-layer` of the zoo network, run once a network (the
    caller must not change what it returns)."""
    return run(binary, "metrics", model, "--per-layer", "--format", "json")


def conv_shapes(binary, model):
    """{layer: (kernel taps, groups, input channels per group)} of the zoo network's conv2d
    layers: taps and groups from its network file, channels per group from `metrics
    --per-layer` (MACs over output elements and taps)."""
    m = per_layer(binary, model)
    params = conv_params(m["path"])
    out = {}
    for l in m["per_layer"]:
        if l["type"] == "conv2d":
            taps, groups = params[l["name"]]
            out[l["name"]] = (taps, groups, l["macs"] // (math.prod(l["output"]) * taps))
    return out


def model_classes(binary, model):
    """{layer: class} of the zoo network: convolutions by kernel, groups and channels per
    group (conv_shapes); the other layers by type."""
    convs = conv_shapes(binary, model)
    out = {}
    for l in per_layer(binary, model)["per_layer"]:
        if l["name"] in convs:
            taps, groups, per_group = convs[l["name"]]
            if groups == 1:
                out[l["name"]] = "conv 1x1" if taps == 1 else "conv dense kxk"
            else:
                out[l["name"]] = "conv depthwise" if per_group == 1 else "conv grouped"
        else:
            out[l["name"]] = MODEL_CLASS.get(l["type"], "other")
    return out


@functools.lru_cache(maxsize=None)
def model_channels(binary, model):
    """{layer: channels} of the zoo network's batch norms (their output's first dimension)."""
    return {l["name"]: l["output"][0] for l in per_layer(binary, model)["per_layer"]
            if l["type"] == "batchnorm2d"}


@functools.lru_cache(maxsize=None)
def kernels_framework():
    """configs/frameworks/pytorch-eager-kernels.ini's [framework]."""
    ini = configparser.ConfigParser(inline_comment_prefixes=(";",))
    ini.read(os.path.join(ROOT, "configs", "frameworks", "pytorch-eager-kernels.ini"))
    return ini["framework"]


def kernel_device_us(meas, pred):
    """The device's time per launch beyond the kernels framework's prices: least squares in
    relative error of the GPU's busy time of each bf16 and TF32 phase (infer, fwd, bwd) as the
    priced time plus this much a launch, without ConvNeXt-T (its cuDNN depthwise kernels
    unpriced); and the MAPE of the busy time with it and without."""
    keys = [(p, k, ph) for p in ("bf16", "tf32") for k in points_of(meas, p)
            if k[0] != "convnext_tiny" for ph in ("infer", "fwd", "bwd")]
    pts = [(pred[p][k][ph, "priced"], pred[p][k][ph, "launches"], meas[p][k][ph, "busy"])
           for p, k, ph in keys]
    f = sum(n / b * (1 - d / b) for d, n, b in pts) / sum((n / b) ** 2 for d, n, b in pts)
    with_f = statistics.mean(abs((d + f * n) / b - 1) for d, n, b in pts)
    without = statistics.mean(abs(d / b - 1) for d, n, b in pts)
    counted = statistics.median(pred[p][k][ph, "launches"] / meas[p][k][ph, "phase kernels"]
                                for p, k, ph in keys)
    by_batch = {b: statistics.median(d / t for (p, k, ph), (d, n, t) in zip(keys, pts)
                                     if k[1] == b) for b in sorted({k[1] for _, k, _ in keys})}
    return f, with_f, without, len(pts), counted, by_batch


def predict(binary, model, batch, precision, classes, sm_count):
    """The whole passes and, per class and pass, the device's time (the layer's time less
    the host's dispatch in it) and the host's, in microseconds; with the NCHW transposes'
    price (the NCHW description's conv layers less the channels-last one's), and the batch
    norms' device time over the SMs their training kernels keep busy, min(C, sm_count): a
    block to a channel (device_roofline.c, batchnorm_sm_stream)."""
    channels = model_channels(binary, model)
    # the h200 description in the form these profiles were first set against, its dispatch
    # added, one convolution efficiency per precision and every NCHW convolution transposed
    # (pytorch-eager.ini then, pytorch-eager-cudnn8.ini now): its own framework now takes
    # what they measured (docs/devices.md; docs/ops-h100-h200.md prices both forms against
    # the profiles)
    base = ["predict", model, "--device", "h200", "-g", "1", "--batch", str(batch), "--image",
            "224", "--precision", precision, "--format", "json"]
    added = ["--framework", "pytorch-eager-cudnn8"]
    whole = run(binary, *base, *added)
    v = {p: whole[p] * 1e6 for p in ("t_infer", "t_fwd", "t_bwd", "t_grad")}
    per = run(binary, *base, *added, "--per-layer")["layers"]
    last = run(binary, *base, "--per-layer", "--framework", "pytorch-channels-last")["layers"]
    kern = run(binary, *base, "--per-layer", "--framework", "pytorch-eager-kernels")["layers"]
    keys = kernels_framework()
    for l, c, k in zip(per, last, kern):
        for p in ("infer", "fwd", "bwd"):
            # the kernels framework's launches (its host time over its dispatch) and its
            # device time less the per-kernel time it already holds (kernel_device_us)
            n = k["host_" + p] / (keys.getfloat(f"dispatch_{p}_us") * 1e-6)
            v[p, "launches"] = v.get((p, "launches"), 0.0) + n
            v[p, "priced"] = v.get((p, "priced"), 0.0) + \
                (k["t_" + p] - k["host_" + p]) * 1e6 - n * keys.getfloat("kernel_device_us", 0.0)
        cls = classes[l["layer"]]
        if cls == "conv depthwise":  # no transposes either way: NCHW's own price
            c = l
        if cls in CONV and "stem" not in v:
            v["stem"] = (l["t_fwd"] - l["host_fwd"]) * 1e6
        for p in ("infer", "fwd", "bwd"):
            dev = (l["t_" + p] - l["host_" + p]) * 1e6
            v[p, cls] = v.get((p, cls), 0.0) + dev
            v[p, "device"] = v.get((p, "device"), 0.0) + dev
            v[p, "host"] = v.get((p, "host"), 0.0) + l["host_" + p] * 1e6
            v[p, cls, "channels-last"] = v.get((p, cls, "channels-last"), 0.0) + \
                (c["t_" + p] - c["host_" + p]) * 1e6
            v[p, cls, "kernels"] = v.get((p, cls, "kernels"), 0.0) + \
                (k["t_" + p] - k["host_" + p]) * 1e6
            if l["layer"] in channels:
                busy = min(channels[l["layer"]], sm_count) if p != "infer" else sm_count
                v[p, "batch norm", "per SM"] = v.get((p, "batch norm", "per SM"), 0.0) + \
                    dev / busy
            if cls in CONV:
                t = (l["t_" + p] - c["t_" + p]) * 1e6
                v[p, "transposes"] = v.get((p, "transposes"), 0.0) + t
    return v


# ---------------------------------------------------------------------------------------------
# the document

def ms(us):
    return f"{us / 1000:.2f}"


def pct(x):
    return f"{100 * x:.1f}%"


def ratio(a, b):
    return f"{a / b:.2f}" if a > 0 and b > 0 else ""


def and_list(items):
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def count_word(n):
    return ("none", "one", "two", "three", "four", "five", "six", "seven", "eight",
            "nine")[n] if n < 10 else str(n)


def para(text, bullet=False):
    """A paragraph wrapped at 95 columns; a bullet's lines after the first indented by two."""
    lead = "- " if bullet else ""
    return textwrap.wrap(lead + " ".join(text.split()), 95, break_on_hyphens=False,
                         subsequent_indent="  " if bullet else "")


def points_of(meas, precision, batch=None):
    return [k for k in sorted(meas[precision], key=lambda k: (MODELS.index(k[0]), k[1]))
            if batch is None or k[1] == batch]


def names_timed(meas, precision):
    """Whether every point of the precision's profile times each kernel name."""
    return all(v.get(("names timed",)) for v in meas[precision].values())


def missing(meas, precision):
    """The points that the other precisions have and this one has not, in words ("" where
    none)."""
    have = set(meas[precision])
    gone = sorted({k for m in meas.values() for k in m} - have,
                  key=lambda k: (MODELS.index(k[0]), k[1]))
    return " and ".join(
        f"{PRETTY[m]} at batch {' or '.join(str(b) for mm, b in gone if mm == m)}"
        for m in dict.fromkeys(m for m, _ in gone))


def relu_rate(meas, precision):
    """Bytes per second at which the precision's in-place ReLUs (8 MB and more) stream."""
    b = sum(v.get(("relu", "bytes"), 0) for v in meas[precision].values())
    t = sum(v.get(("relu", "kernel"), 0) for v in meas[precision].values())
    return b / (t * 1e-6)


def class_rows(meas, precision, phase, batch):
    """(class, kernel us, kernels, host us, self us) summed over the batch's networks: the
    named classes first, then ops by name; ops without kernels other than these lumped."""
    pts = [meas[precision][k] for k in points_of(meas, precision, batch)]
    classes = {k[1] for v in pts for k in v if k[0] == phase and len(k) == 3
               and k[2] == "kernel" and k[1] not in ("all", "conv", "conv T", "dw")}
    rows, lumped = [], [0.0, 0.0, 0.0, 0.0, []]
    for c in sorted(classes, key=lambda c: (ORDER.index(c) if c in ORDER else len(ORDER),
                                            -sum(v.get((phase, c, "kernel"), 0) for v in pts))):
        vals = [sum(v.get((phase, c, f), 0.0) for v in pts)
                for f in ("kernel", "kernels", "host", "self")]
        if c not in ORDER and vals[1] == 0:
            for i in range(4):
                lumped[i] += vals[i]
            lumped[4].append(c)
            continue
        rows.append((c, *vals))
    if lumped[4]:
        rows.append(("no kernels: " + ", ".join(sorted(lumped[4])), *lumped[:4]))
    return rows


def section_classes(meas):
    md = ["## Kernel time by op class", ""]
    md += para("""Per precision and phase, each class's kernel time (the durations of the kernels
        its ops launched, nested ops' included), its share of the phase's kernel time, the
        kernels launched, and the host's time in its ops (`host_us`: the top-level op with
        the ops nested in it, what dispatching them cost) and in their own frames alone
        (`host_self_us`), summed over the networks of each batch. Convolutions are classed by
        their recorded shapes (input [N, C, H, W], weight [O, C/g, kh, kw], groups g = C over
        the weight's dim 1): dense k x k (k > 1, g = 1), 1 x 1 (g = 1), grouped (1 < g < C),
        depthwise (g = C); a ConvolutionBackward0 op (its data and weight gradients) takes the
        class of the forward convolution it belongs to (autograd runs them in reverse order of
        their creation). Their kernel time holds cuDNN's layout transposes, autocast's casts
        of the weight (bf16) and a bias's addition; the transposes are estimated below. The
        phase's closing synchronisation and the profiler's own records are left out.""")
    md.append("")
    rates = {p: relu_rate(meas, p) for p in PRECISIONS}
    for p in PRECISIONS:
        nets = {b: [PRETTY[m] for m, _ in points_of(meas, p, b)] for b in BATCHES}
        for phase in PHASES:
            md += [f"### {p}, {phase}", ""]
            for b in BATCHES:
                md.append(f"Batch {b}: {', '.join(nets[b])}.")
            md += ["", "| class | " + " | ".join(
                f"b{b} kernel ms | share | kernels | host ms | host self ms" for b in BATCHES)
                + " |", "|---|" + "---:|" * 5 * len(BATCHES)]
            by = {b: {r[0]: r for r in class_rows(meas, p, phase, b)} for b in BATCHES}
            totals = {b: sum(r[1] for r in by[b].values()) for b in BATCHES}
            names = list(by[BATCHES[0]])
            names += [c for c in by[BATCHES[1]] if c not in names]
            for c in names:
                cells = []
                for b in BATCHES:
                    r = by[b].get(c)
                    if r is None:
                        cells += [""] * 5
                        continue
                    share = pct(r[1] / totals[b]) if totals[b] else ""
                    cells += [ms(r[1]), share, f"{r[2]:.0f}", ms(r[3]), ms(r[4])]
                md.append(f"| {c} | " + " | ".join(cells) + " |")
            cells = []
            for b in BATCHES:
                rs = by[b].values()
                cells += [ms(totals[b]), "100%", f"{sum(r[2] for r in rs):.0f}",
                          ms(sum(r[3] for r in rs)), ms(sum(r[4] for r in rs))]
            md.append("| all | " + " | ".join(cells) + " |")
            if phase != "opt":
                cells = []
                for b in BATCHES:
                    est = sum(meas[p][k].get((phase, "conv T", "bytes"), 0)
                              for k in points_of(meas, p, b)) / rates[p] * 1e6
                    cells += [ms(est), pct(est / totals[b]), "", "", ""]
                md.append("| cuDNN transposes (estimated below; inside the conv rows) | " +
                          " | ".join(cells) + " |")
            md.append("")
            if phase == "bwd":
                fam = {f: sum(v.get(("bwd", "family", f), 0) for v in meas[p].values())
                       for f in ("dgrad", "wgrad", "gemm", "depthwise")}
                n = sum(v.get(("bwd", "conv", "ops"), 0) for v in meas[p].values())
                us = {f: sum(v.get(("bwd", "family us", f), 0) for v in meas[p].values())
                      for f in FAMILIES}
                if names_timed(meas, p):
                    split = f"""the profile times each kernel name (`kernel_name_us`): of their
                        {ms(sum(us.values()))} ms, the kernels named dgrad took {ms(us['dgrad'])}
                        ms, those named wgrad {ms(us['wgrad'])}, the matrix products
                        {ms(us['gemm'])}, cuDNN's FFT convolutions (fft2d, flip_filter,
                        region_transform) {ms(us['fft'])}, the depthwise kernels
                        {ms(us['depthwise'])}, the layout transforms {ms(us['transforms'])}
                        and the rest {ms(us['other'])}."""
                else:
                    split = """with one time per op, the data and weight gradients' shares
                        cannot be told apart."""
                md += para(f"""The {n:.0f} ConvolutionBackward0 ops of these points (both
                    batches) ran a kernel named dgrad in {fam['dgrad']:.0f}, one named wgrad in
                    {fam['wgrad']:.0f}, cuBLAS's or CUTLASS's matrix products (nvjet, cutlass
                    gemm, xmma gemm: the 1 x 1 convolutions' gradients as products on NCHW) in
                    {fam['gemm']:.0f} and PyTorch's own depthwise kernels in
                    {fam['depthwise']:.0f}; {split}""") + [""]
            if phase == "opt":
                names = sorted({k[2] for v in meas[p].values() for k in v
                                if k[:2] == ("opt", "name")})
                md += para("The optimizer's kernels: " + ", ".join(f"`{n}`" for n in names)
                           + ".") + [""]
    return md


def transpose_name(name):
    m = re.search(r"(nchwToNhwcKernel|nhwcToNchwKernel|tensorTransformGeneric)<([\w:]+), "
                  r"([\w:]+),[^>]*?\(cudnnKernelDataType_t\)(\d)", name)
    return f"`{m.group(1)}<{m.group(2)}, {m.group(3)}, ..., {m.group(4)}>`" if m else name


def section_transposes(meas, pred):
    md = ["## cuDNN's layout transposes", ""]
    said = {}  # kernels whose full names say "transpose": {short name: precisions}
    for p in PRECISIONS:
        for n in sorted({k[1] for v in meas[p].values() for k in v
                         if k[0] == "says transpose"}):
            said.setdefault(n, []).append(p)
    named = [n for n in said if "transpose" in n.lower()]
    if named:
        word = f"""Kernels named "transpose" ran: {', '.join(f'`{n}`' for n in named)}."""
    else:
        word = 'No kernel of these runs is named "transpose"' + (
            " (the word is only in the parameters of " + and_list(
                f"`{n}` at {' and '.join(ps)}" for n, ps in said.items()) + ")."
            if said else ".")
    md += para(f"""The kernels that turn NCHW tensors into the NHWC that cuDNN's tensor-core
        convolutions read, and back: their names (template arguments: input type, output
        type, ..., cudnnKernelDataType_t) and in how many convolution ops of each phase they
        ran, summed over the points. {word}""")
    md += ["", "| kernel | " + " | ".join(f"{p} {ph}" for p in PRECISIONS
                                          for ph in ("infer", "fwd", "bwd")) + " |",
           "|---|" + "---:|" * 3 * len(PRECISIONS)]
    counts = {}
    for p in PRECISIONS:
        for v in meas[p].values():
            for k, x in v.items():
                if len(k) == 3 and k[1] == "T name":
                    counts.setdefault(transpose_name(k[2]), {}).setdefault((p, k[0]), 0)
                    counts[transpose_name(k[2])][p, k[0]] += x
    for name in sorted(counts):
        md.append(f"| {name} | " + " | ".join(
            f"{counts[name].get((p, ph), 0):.0f}" for p in PRECISIONS
            for ph in ("infer", "fwd", "bwd")) + " |")
    md.append("")
    rates = {p: relu_rate(meas, p) for p in PRECISIONS}
    timed = [p for p in PRECISIONS if names_timed(meas, p)]
    untimed = [p for p in PRECISIONS if p not in timed]
    own = (f"""The {' and '.join(timed)} profile{'s' if len(timed) > 1 else ''} also
        keep{'' if len(timed) > 1 else 's'} each kernel name's time (`kernel_name_us`): the
        transposes' own time is in the column timed transposes, beside the estimate.""" if
           timed else "")
    md += para(f"""The {' and '.join(untimed)} profiles keep each op's kernel time, not each
        kernel's, so the transposes' time inside a convolution op is estimated: the bytes
        they read and write
        (the tensors of the convolutions whose ops ran them, at the element sizes their
        names give: forward, the input and, for a kernel larger than 1 x 1, the weight in,
        the output back; backward, for an NHWC data-gradient kernel the output gradient (and
        weight) in and the input gradient back, for an NHWC weight-gradient kernel the input
        and output gradient in (and the weight gradient back)) over the rate at which the
        same runs' in-place ReLUs, which read and write each element once as a transpose
        does, stream tensors of 8 MB and more: {', '.join(f'{rates[p] / 1e12:.2f} TB/s at {p}'
        for p in PRECISIONS)} (of the 4.8 TB/s datasheet figure). The
        kernel time of the ops that ran transposes bounds it from above. {own} The model's price
        is `predict --per-layer`'s convolutions under the NCHW description less the same
        under `--framework pytorch-channels-last` (2 x 2 x (I + O) bytes forward, twice that
        backward, at 0.7 of 4.8 TB/s, at fp16 and bf16 alone).""")
    md += ["", "| precision | network | batch | phase | conv ops transposed | conv kernel ms | "
           "in those ops ms | MB transposed | est. transposes ms | est. share of conv | "
           "timed transposes ms | model's transposes ms |",
           "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in PRECISIONS:
        for key in points_of(meas, p):
            v = meas[p][key]
            for ph in ("fwd", "bwd"):
                conv = v.get((ph, "conv", "kernel"), 0)
                tb = v.get((ph, "conv T", "bytes"), 0)
                est = tb / rates[p] * 1e6
                model = pred[p][key].get((ph, "transposes"), 0)
                md.append(
                    f"| {p} | {PRETTY[key[0]]} | {key[1]} | {ph} | "
                    f"{v.get((ph, 'conv T', 'ops'), 0):.0f} of {v.get((ph, 'conv', 'ops'), 0):.0f}"
                    f" | {ms(conv)} | {ms(v.get((ph, 'conv T', 'kernel'), 0))} | {tb / 1e6:.0f} | "
                    f"{ms(est)} | {pct(est / conv) if conv else ''} | "
                    f"{ms(v[ph, 'conv T', 'timed']) if p in timed else ''} | {ms(model)} |")
    md.append("")
    for p in timed:
        keys = [(k, ph) for k in points_of(meas, p) for ph in ("fwd", "bwd")]
        t = sum(meas[p][k].get((ph, "conv T", "timed"), 0) for k, ph in keys)
        e = sum(meas[p][k].get((ph, "conv T", "bytes"), 0) for k, ph in keys) / rates[p] * 1e6
        (k, ph) = max(keys, key=lambda x: meas[p][x[0]].get((x[1], "conv T", "timed"), 0))
        v = meas[p][k]
        md += para(f"""At {p} the transposes took {ms(t)} ms over all points and both passes,
            against an estimated {ms(e)} ms; {ms(v[ph, 'conv T', 'timed'])} ms of it in
            {PRETTY[k[0]]}'s {'backward' if ph == 'bwd' else 'forward'} pass at batch {k[1]}
            (estimated {ms(v.get((ph, 'conv T', 'bytes'), 0) / rates[p] * 1e6)} ms), whose
            {v.get((ph, 'conv T', 'ops'), 0):.0f} convolution ops that ran them launched
            {v.get((ph, 'conv T', 'kernels'), 0):.0f} kernels.""") + [""]
    return md


def section_phases(meas, free):
    md = ["## Phases: window, GPU busy and idle, host", ""]
    md += para("""Per point and phase: the window (the phase's wall time, from its first op to
        the synchronisation that ends it), the GPU's busy time (the union of its kernels'
        intervals), its idle time (window less busy), the host's time in the phase's ops
        (`host_us` of the top-level ops, nested ops included; the closing synchronisation left
        out) and in their own frames (`host_self_us`), and the kernels launched. **host-bound**
        marks a phase whose GPU idles half its window or more: the host's dispatch, not the
        kernels, sets its time. The profiler (shapes recorded, a range around every leaf
        module) lengthens the host's part: for the bf16 points that the same leases also
        timed without it (`configs/calibrations/h200-pytorch-bf16-rounds.csv`,
        tools/torch_repeat_runs.py, CUDA events, median of its rounds) the last columns give
        that time and the profiled GPU busy time over it.""")
    md += ["", "| precision | network | batch | phase | window ms | GPU busy ms | GPU idle ms | "
           "idle | host ms | host self ms | kernels | | unprofiled ms | busy / unprofiled |",
           "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for p in PRECISIONS:
        for key in points_of(meas, p):
            v = meas[p][key]
            for ph in PHASES:
                w, busy = v[ph, "window"], v[ph, "busy"]
                idle = (w - busy) / w
                md.append(f"| {p} | {PRETTY[key[0]]} | {key[1]} | {ph} | {ms(w)} | {ms(busy)} | "
                          f"{ms(w - busy)} | {pct(idle)} | {ms(v[ph, 'all', 'host'])} | "
                          f"{ms(v[ph, 'all', 'self'])} | {v[ph, 'phase kernels']:.0f} | "
                          f"{'host-bound' if idle >= 0.5 else ''} | " +
                          (f"{ms(free[key][ph])} | {pct(busy / free[key][ph])} |"
                           if p == "bf16" and key in free else " | |"))
    md.append("")
    return md


def section_depthwise(meas, pred):
    md = ["## Depthwise convolutions", ""]
    md += para("""Bytes over kernel time of the depthwise convolutions' ops: forward, the input,
        output and weight once each; backward, twice that (the data gradient reads the
        output gradient and the weight and writes the input gradient, the weight gradient
        reads the input and the output gradient and writes the weight gradient); at 2 bytes
        an element at bf16, 4 at tf32 and fp32. The model's device time for the same layers
        is in the last columns: PyTorch's own kernels by the SMs (the descriptions' depthwise
        keys, "Direct convolutions" below), ConvNeXt-T's, which PyTorch hands to cuDNN
        (their input is channels-last, after its blocks' permutes), by the DRAM at 0.7 of the
        H200's 4.8 TB/s.""")
    md += ["", "| precision | network | batch | layers | fwd MB | fwd ms | fwd TB/s | of 4.8 | "
           "bwd MB | bwd ms | bwd TB/s | of 4.8 | model fwd ms | model bwd ms |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    kernels = {}
    for p in PRECISIONS:
        for key in points_of(meas, p):
            if key[0] not in DEPTHWISE_NETS:
                continue
            v = meas[p][key]
            cells = []
            for ph in ("fwd", "bwd"):
                b, t = v.get((ph, "dw", "bytes"), 0), v.get((ph, "dw", "kernel"), 0)
                rate = b / (t * 1e-6)
                cells += [f"{b / 1e6:.0f}", ms(t), f"{rate / 1e12:.2f}", pct(rate / PEAK_BW)]
                for k, x in v.items():
                    if len(k) == 3 and k[0] == ph and k[1] == "dw name":
                        kernels.setdefault((p, key[0], ph), set()).add(k[2])
            cells += [ms(pred[p][key].get(("fwd", "conv depthwise"), 0)),
                      ms(pred[p][key].get(("bwd", "conv depthwise"), 0))]
            md.append(f"| {p} | {PRETTY[key[0]]} | {key[1]} | "
                      f"{v.get(('fwd', 'dw', 'ops'), 0):.0f} | " + " | ".join(cells) + " |")
    md += ["", "Their ops' kernels:", "", "| precision | network | phase | kernels |",
           "|---|---|---|---|"]
    for (p, m, ph), names in sorted(kernels.items(), key=lambda x: (
            PRECISIONS.index(x[0][0]), MODELS.index(x[0][1]), x[0][2])):
        md.append(f"| {p} | {PRETTY[m]} | {ph} | " +
                  ", ".join(f"`{n}`" for n in sorted(names)) + " |")
    md.append("")
    return md


def fit_direct(sums):
    """Microseconds per element and per MAC that fit the ops' kernel time in relative least
    squares (direct()'s sums), the predicted sum over the measured one and the root mean
    square of the ops' relative errors."""
    aa, ab, bb, a, b, n = (sums[k] for k in ("aa", "ab", "bb", "a", "b", "n"))
    det = aa * bb - ab * ab
    ce, cm = (a * bb - b * ab) / det, (aa * b - ab * a) / det
    total = (ce * sums["elems"] + cm * sums["macs"]) / sums["kernel"]
    sq = ce * ce * aa + 2 * ce * cm * ab + cm * cm * bb - 2 * ce * a - 2 * cm * b + n
    return ce, cm, total, math.sqrt(max(sq, 0) / n)


def section_direct(binary, meas, pred):
    """The grouped and depthwise convolutions' rates per SM and clock, the keys that take
    them, and both frameworks' prices of those layers against the kernels."""
    _, clock, sm_count = h200_figures(binary)
    per_us = clock * sm_count / 1e6  # SM clocks a microsecond

    def sums(precisions, ph, what, names):
        return {n: sum(meas[p][k].get((ph, what, n), 0) for p in precisions
                       for k in points_of(meas, p)) for n in names}

    md = ["## Direct convolutions", ""]
    md += para(f"""Grouped and depthwise convolutions do not run on tensor cores: PyTorch's own
        depthwise kernel (`conv_depthwise2d`) and cuDNN's grouped kernels compute each output
        element directly, bound by the SMs' issue rather than the DRAM (their bytes pass at
        a tenth of its rate, above). Least squares over every op that ran PyTorch's depthwise
        kernel, each weighted by its time (relative error), fit its kernel time as elements /
        e + MACs / m SM clocks, elements its input's and output's, MACs its
        multiply-accumulates (the backward pass's, data and weight gradients, twice the
        forward's), at the H200's {sm_count} SMs x {clock / 1e9:.3f} GHz; the forward pass
        and inference run the same kernel and are fitted together. cuDNN's grouped kernels
        went through about an element a clock whatever their group's width (4 to 32
        channels), so their rate is elements over clocks, summed over the ops.""")
    md += ["", "| kernel | precision | pass | ops | elements / SM-clock | MACs / SM-clock | "
           "fit / measured, summed | rms error per op |", "|---|---|---|---:|---:|---:|---:|---:|"]
    keys = {}
    for precisions, label in [((p,), p) for p in PRECISIONS] + [(PRECISIONS, "all")]:
        for ph in ("fwd", "bwd"):
            s = sums(precisions, ph, "direct dw", DIRECT_SUMS)
            if not s["n"]:
                continue
            ce, cm, total, rms = fit_direct(s)
            e, m = 1 / (ce * per_us), 1 / (cm * per_us)
            if label == "all":
                keys[f"depthwise_{ph}_elements_per_sm_clock"] = e
                keys[f"depthwise_{ph}_macs_per_sm_clock"] = m
            md.append(f"| PyTorch depthwise | {label} | {ph} | {s['n']:.0f} | {e:.2f} | "
                      f"{m:.1f} | {total:.2f} | {rms:.2f} |")
    for p in PRECISIONS:
        for ph in ("fwd", "bwd"):
            for what, label in (("direct grouped", "cuDNN grouped"),
                                ("direct dw cudnn", "cuDNN depthwise")):
                s = sums((p,), ph, what, ("elems", "kernel"))
                if not s["kernel"]:
                    continue
                e = s["elems"] / (s["kernel"] * per_us)
                if what == "direct grouped" and p != "fp32":
                    half = "_half" if p == "bf16" else ""
                    keys[f"grouped{half}_{ph}_elements_per_sm_clock"] = e
                md.append(f"| {label} | {p} | {ph} | | {e:.3f} | | | |")
    md += [""]
    md += para("""The keys (`[framework]`, docs/devices.md): the depthwise ones from every
        precision's ops together (PyTorch's kernel ran the same at each), in every
        description's eager framework and in configs/frameworks/pytorch-eager-kernels.ini; the
        grouped ones from TF32's ops (the 32-bit keys) and bf16's (`grouped_half_*`), in
        pytorch-eager-kernels alone: carried to other parts they made the grouped networks
        slower than measured (DeepLearningExamples' ResNeXt-101 on an A100 at TF32 from -1.8%
        to -11.5% of the published throughput, timm's ResNeXt-50 on an RTX 3090 in fp16 from
        -3.4% to -9.1%), where cuDNN 8 picked other kernels. With TF32 off cuDNN 9.19 ran
        grouped convolutions slower again (the fp32 rows), which the keys leave out: a library
        version's kernel choice, not the SMs'. ConvNeXt-T's depthwise convolutions (7 x 7)
        went to cuDNN's kernels instead (the cuDNN depthwise rows): their input is
        channels-last, as its blocks' permutes leave it, and PyTorch hands such a depthwise
        convolution to cuDNN (and at fp16 those its workload rule picks: ATen's
        Convolution.cpp, use_cudnn_depthwise); the `cudnn_depthwise_*` keys price those per SM
        and clock, from these TF32 and fp32 rows and the H100's kernel-timed fp16 and bf16
        ones, two kernel sizes (tools/cudnn_depthwise_rates.py).""")
    md += ["", "| key | value |", "|---|---:|"]
    for k in sorted(keys):
        md.append(f"| {k} | {keys[k]:.3g} |")
    md += [""]
    md += para("""The poolings (plugin ABI 15's SM_TRAIT_POOLING): their input elements per SM
        and clock, forward and at inference, and in the backward pass (its op records no
        shapes: those of its forward op, autograd running them in reverse order of their
        creation), summed over every point. Alike at every
        precision, as the depthwise kernel's are, they are bound by the SMs, not the DRAM:
        ResNet-50's max pooling at batch 128 under bf16 moved its input, output and int64
        indices at 1.1 TB/s forward, its backward pass (a zeroing and a scatter) at 0.56
        TB/s, of the H200's 4.8. `pooling_fwd_elements_per_sm_clock` takes every forward op
        of every precision together, as the depthwise keys do;
        `pooling_bwd_elements_per_sm_clock` the windowed ones' backward ops (max and average
        pooling), since a global pooling's backward pass (adaptive average pooling to one
        position, MeanBackward1) is a broadcast the DRAM bounds, which the model prices so;
        both in pytorch-eager-kernels alone, as the grouped keys (docs/devices.md). VGG-11's
        adaptive average pooling of 7 x 7 to 7 x 7 ran at 0.07 elements a clock each way
        (177 and 171 us at batch 128), a kernel the keys leave out.""")
    md += ["", "| op | pass | " + " | ".join(PRECISIONS) + " | all |",
           "|---|---|" + "---:|" * (len(PRECISIONS) + 1)]
    for what, ph in (("pool", "fwd"), ("pool bwd", "bwd")):
        ops = sorted({k[1] for p in PRECISIONS for v in meas[p].values() for k in v
                      if len(k) == 3 and k[0] == what})
        # the backward key is the windowed poolings' (a global one's backward is a broadcast)
        every = [o for o in ops if what == "pool" or o in WINDOWED_POOLS]
        for op in ops + ["all"]:
            cells = []
            for precisions in [(p,) for p in PRECISIONS] + [PRECISIONS]:
                s = {"elems": 0.0, "kernel": 0.0}
                for o in (every if op == "all" else [op]):
                    t = sums(precisions, what, o, ("elems", "kernel"))
                    s = {k: s[k] + t[k] for k in s}
                cells.append(f"{s['elems'] / (s['kernel'] * per_us):.2f}" if s["kernel"] else "")
                if op == "all" and precisions == PRECISIONS and s["kernel"]:
                    keys[f"pooling_{ph}_elements_per_sm_clock"] = \
                        s["elems"] / (s["kernel"] * per_us)
            label = f"`{op}`" if op != "all" else \
                "every pooling" if what == "pool" else "max and average"
            md.append(f"| {label} | {ph} | " + " | ".join(cells) + " |")
    md += ["", "| key | value |", "|---|---:|"]
    for k in sorted(k for k in keys if k.startswith("pooling_")):
        md.append(f"| {k} | {keys[k]:.3g} |")
    md += [""]
    md += para("""The model's device time of those layers over the measured kernel time, summed
        over every point: with the description's form before the rebuild (pytorch-eager-cudnn8:
        the depthwise keys; grouped convolutions bound by the DRAM and their FLOPs) and with
        `--framework pytorch-eager-kernels` (all the keys above).""")
    md += ["", "| class | precision | pass | measured ms | pytorch-eager-cudnn8 / measured | "
           "pytorch-eager-kernels / measured |", "|---|---|---|---:|---:|---:|"]
    for cls in ("conv grouped", "conv depthwise", "pooling"):
        for p in PRECISIONS:
            for ph in ("infer", "fwd", "bwd"):
                measured = sum(meas[p][k].get((ph, cls, "kernel"), 0)
                               for k in points_of(meas, p))
                if not measured:
                    continue
                eager = sum(pred[p][k].get((ph, cls), 0) for k in points_of(meas, p))
                kern = sum(pred[p][k].get((ph, cls, "kernels"), 0) for k in points_of(meas, p))
                md.append(f"| {cls} | {p} | {ph} | {ms(measured)} | {eager / measured:.2f} | "
                          f"{kern / measured:.2f} |")
    md.append("")
    return md


def section_model(meas, pred, free):
    md = ["## The model's layer prices against the measured kernels", ""]
    md += para("""`scalemeter predict MODEL --device h200 --framework pytorch-eager-cudnn8 -g 1 --batch B
        --image 224 --precision P --per-layer` (the description's form before issue 38's
        rebuild, which these profiles priced: docs/ops-h100-h200.md sets the rebuilt one
        beside them) for every point: each layer's device time (its t_fwd or t_bwd less
        the host's dispatch in it, host_fwd or host_bwd), summed over the layers of each
        class, over the measured kernel time of the same class's ops. Convolutions are
        classed from the network file (kernel and groups) and `metrics --per-layer`
        (input channels per group: MACs over output elements and kernel taps), as the
        profiles' shapes class them; every network has as many convolutions of each kind in
        both. The measured side holds what the model prices inside other terms or not at all:
        autocast's weight casts and cuDNN's transposes inside the convolutions (the model
        prices the transposes inside them at bf16 too), the loss, the casts of the weight
        gradients and AccumulateGrad in the backward pass (not in these columns).
        Below 1: the model prices the class cheaper than it ran.""")
    cols = [c for c in PRICED if c != "dropout"]
    for p in PRECISIONS:
        for ph in ("fwd", "bwd"):
            md += ["", f"### {p}, {ph}: predicted / measured", "",
                   "| network | batch | " + " | ".join(cols) + " | all priced |",
                   "|---|---:|" + "---:|" * (len(cols) + 1)]
            for key in points_of(meas, p):
                v, q = meas[p][key], pred[p][key]
                cells = [ratio(q.get((ph, c), 0), v.get((ph, c, "kernel"), 0)) for c in cols]
                a = sum(q.get((ph, c), 0) for c in PRICED)
                b = sum(v.get((ph, c, "kernel"), 0) for c in PRICED)
                md.append(f"| {PRETTY[key[0]]} | {key[1]} | " + " | ".join(cells) +
                          f" | {ratio(a, b)} |")
    md += ["", "### All points together: predicted / measured (measured ms)", ""]
    short = [f"{p} without {missing(meas, p)}" for p in PRECISIONS if missing(meas, p)]
    md += para(f"""Sums over every point of the precision{
        ' (' + '; '.join(short) + ')' if short else ''}. The bf16 convolutions also without
        the transposes' price (the channels-last description's time for the same layers),
        since cuDNN ran few of them (above).""")
    heads = [f"{p} {ph}{s}" for p in PRECISIONS for ph in ("fwd", "bwd")
             for s in ("", ", channels-last price")[:2 if p == "bf16" else 1]]
    md += ["", "| class | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(heads)]
    for c in PRICED:
        cells = []
        for p in PRECISIONS:
            for ph in ("fwd", "bwd"):
                a = sum(pred[p][k].get((ph, c), 0) for k in points_of(meas, p))
                b = sum(meas[p][k].get((ph, c, "kernel"), 0) for k in points_of(meas, p))
                cells.append(f"{ratio(a, b)} ({ms(b)})" if b else "")
                if p == "bf16":
                    a = sum(pred[p][k].get((ph, c, "channels-last"), 0)
                            for k in points_of(meas, p))
                    cells.append(ratio(a, b) if b and c in CONV else "")
        md.append(f"| {c} | " + " | ".join(cells) + " |")
    md += ["", "### Whole phases", ""]
    md += para("""Predicted pass times (t_infer, t_fwd, t_bwd: the device's time plus the host's
        dispatch; t_grad: the update) over the measured windows, which the profiler
        lengthens at batch 32 (above), and the predicted device time alone over the GPU's
        busy time.""")
    md += ["", "| precision | network | batch | infer ms | t_infer / window | device / busy | "
           "fwd ms | t_fwd / window | device / busy | bwd ms | t_bwd / window | device / busy | "
           "opt ms | t_grad / window |", "|---|---|---:|" + "---:|" * 11]
    for p in PRECISIONS:
        for key in points_of(meas, p):
            v, q = meas[p][key], pred[p][key]
            cells = []
            for ph in ("infer", "fwd", "bwd"):
                cells += [ms(v[ph, "window"]), ratio(q["t_" + ph], v[ph, "window"]),
                          ratio(q[ph, "device"], v[ph, "busy"])]
            cells += [ms(v["opt", "window"]), ratio(q["t_grad"], v["opt", "window"])]
            md.append(f"| {p} | {PRETTY[key[0]]} | {key[1]} | " + " | ".join(cells) + " |")
    md += [""] + para("""Without the profiler (the bf16 points the leases also timed with CUDA
        events, above): predicted over that time.""")
    md += ["", "| network | batch | t_infer ms | ratio | t_fwd ms | ratio | t_bwd ms | ratio | "
           "t_grad ms | ratio |", "|---|---:|" + "---:|" * 8]
    for key in points_of(meas, "bf16"):
        if key not in free:
            continue
        q, f = pred["bf16"][key], free[key]
        cells = []
        for ph, t in (("infer", "t_infer"), ("fwd", "t_fwd"), ("bwd", "t_bwd"),
                      ("opt", "t_grad")):
            cells += [ms(f[ph]), ratio(q[t], f[ph])]
        md.append(f"| {PRETTY[key[0]]} | {key[1]} | " + " | ".join(cells) + " |")
    md.append("")
    return md


def h200_figures(binary):
    """The h200 description's achievable stream (bytes/s), the clock (Hz) it takes the
    per-SM-clock keys at (light_clock_mhz, its 1830 MHz sustained clock) and SMs."""
    devs = run(binary, "devices", "--format", "json")["devices"]
    d = next(x for x in devs if x["device"] == "h200")
    return (d["memory_bandwidth_gb_s"] * 1e9 * d["memory_efficiency"],
            d["light_clock_mhz"] * 1e6, d["sm_count"])


def section_keys(binary, meas, pred):
    """The [framework] keys (docs/devices.md) these profiles measure: the batch norms' bytes
    per SM per clock, cuDNN's (TF32 and fp32 points) and PyTorch's own (bf16), in training
    (forward and backward passes together) and at inference, and the share of the NCHW
    convolutions' tensors cuDNN transposed at bf16."""
    stream, clock, sm_count = h200_figures(binary)
    md = ["## What the framework keys take from these profiles", ""]
    md += para(f"""A batch norm's bytes per SM per clock: the model's bytes of the batch norms
        (their device time in the model at the h200 description's stream, {stream / 1e12:.2f}
        TB/s, where the model finds them memory-bound) over their measured kernel time, over
        the SMs they keep busy x the H200's sustained clock ({clock / 1e9:.3f} GHz), summed
        over every point: cuDNN's kernels at TF32 and fp32 (PyTorch's choice there, and at
        fp16), PyTorch's own at bf16, which cuDNN's batch norm does not take (ATen's
        Normalization.cpp, _select_batch_norm_backend). In training both reduce each channel
        in a block of their own, so a layer of C channels keeps min(C, {sm_count}) SMs busy (the
        table below); at inference all {sm_count}. The transposes' share: their
        estimated time (above) over the model's price of them, all bf16 points, both passes.
        `[framework] batchnorm_*_bytes_per_sm_clock` take the first four
        (docs/devices.md; configs/frameworks/pytorch-eager-kernels.ini); the share, which the
        frameworks took until an H100's profiles timed each transpose, gave way to which
        convolutions cuDNN transposes and the transposes' own rate
        (`nchw_matmul_1x1_positions`, `transpose_elements_per_sm_clock`:
        docs/ops-h100-h200.md, "cuDNN's transposes by kind").""")
    md += ["", "| key | value |", "|---|---:|"]
    keys = (("batchnorm_train_bytes_per_sm_clock", ("tf32", "fp32"), ("fwd", "bwd")),
            ("batchnorm_infer_bytes_per_sm_clock", ("tf32", "fp32"), ("infer",)),
            ("batchnorm_bf16_train_bytes_per_sm_clock", ("bf16",), ("fwd", "bwd")),
            ("batchnorm_bf16_infer_bytes_per_sm_clock", ("bf16",), ("infer",)))
    for key, precisions, phases in keys:
        model = sum(pred[p][k].get((ph, "batch norm", "per SM"), 0) for p in precisions
                    for k in points_of(meas, p) for ph in phases)
        measured = sum(meas[p][k].get((ph, "batch norm", "kernel"), 0) for p in precisions
                       for k in points_of(meas, p) for ph in phases)
        md.append(f"| {key} | {model * stream / measured / clock:.2f} |")
    rates = relu_rate(meas, "bf16")
    est = sum(meas["bf16"][k].get((ph, "conv T", "bytes"), 0) / rates * 1e6
              for k in meas["bf16"] for ph in ("fwd", "bwd"))
    priced = sum(pred["bf16"][k].get((ph, "transposes"), 0) for k in meas["bf16"]
                 for ph in ("fwd", "bwd"))
    md.append(f"| nchw_transpose_share | {est / priced:.2f} |")
    floor, with_f, without, n, counted, by_batch = kernel_device_us(meas, pred)
    batches = " and ".join(f"{r:.2f} at batch {b}" for b, r in by_batch.items())
    md.append(f"| kernel_device_us | {floor:.1f} |")
    md.append("")
    md += para(f"""`kernel_device_us`: what each kernel the framework launches takes on the
        device beyond its price, the start and drain of its grid (a kernel of a few blocks
        lasts a few microseconds whatever its bytes). The GPU's busy time of each bf16 and
        TF32 phase (inference, forward, backward; {n} phases of every network but
        ConvNeXt-T, whose element-wise kernels and autocast's casts no key prices) fitted as
        pytorch-eager-kernels' device time plus this much a launch the model counts (its
        host time over its dispatch: a median {counted:.2f} of the kernels the profiler saw,
        which holds cuDNN's transposes and PyTorch's memsets besides), in relative error, the
        prices themselves taken as they are: {floor:.1f} us, which takes the phases' busy
        time from {without:.3f} to {with_f:.3f} MAPE. The priced device time alone came to a
        median {batches} of the busy time: the small batch's kernels are the short ones
        whose start and drain count. With TF32 off the same fit asks more (cuDNN's fp32 kernels
        the keys leave out, above), so fp32 is not in it. The direct convolutions' and the
        poolings' rates (above) were taken from their ops' whole kernel time, start and drain
        included, so with this key beside them their layers come out a few hundredths
        higher ("Direct convolutions", the last column).""")
    md.append("")
    md += para("""What the batch norms' kernels ran at, by their channels C (16 takes 16 to 31,
        and so on; 1024 takes 1024 and more): elements a microsecond over every point, and
        elements a microsecond per channel; the training forward pass's (cuDNN's at TF32 and
        fp32 together, PyTorch's own at bf16), where the rate follows C up to the SMs, and
        inference's, where it does not. The key prices min(C, SMs) x its bytes per SM-clock:
        one rate per channel below the SMs' count.""")
    md += ["",
           "| channels | cuDNN train fwd: elements/us | per channel | PyTorch bf16 train fwd | "
           "per channel | cuDNN inference | per channel |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for bucket in (1 << e for e in range(4, 11)):
        cells = []
        for precisions, ph in ((("tf32", "fp32"), "fwd"), (("bf16",), "fwd"),
                               (("tf32", "fp32"), "infer")):
            el = sum(meas[p][k].get((ph, "bn channels", bucket, "elems"), 0)
                     for p in precisions for k in points_of(meas, p))
            us, us_c = (sum(meas[p][k].get((ph, "bn channels", bucket, what), 0)
                            for p in precisions for k in points_of(meas, p))
                        for what in ("kernel", "kernel x C"))
            cells += [f"{el / us:,.0f}", f"{el / us_c:,.0f}"] if us else ["", ""]
        md.append(f"| {bucket}{'+' if bucket == 1024 else ''} | " + " | ".join(cells) + " |")
    md.append("")
    return md


def findings(meas, pred, free):
    """What the tables show, with the numbers they show it by."""
    rates = {p: relu_rate(meas, p) for p in PRECISIONS}
    b16, t32, f32 = meas["bf16"], meas["tf32"], meas["fp32"]

    def est(p, key, ph):
        return meas[p][key].get((ph, "conv T", "bytes"), 0) / rates[p] * 1e6

    def conv(p, key, ph):
        return meas[p][key].get((ph, "conv", "kernel"), 0)

    def share(p, key, ph):
        return est(p, key, ph) / conv(p, key, ph)

    def span(values, f=pct):
        lo, hi = f(min(values)), f(max(values))
        return lo if lo == hi else f"{lo}-{hi}"

    def f2(x):
        return f"{x:.2f}"

    def total(p, cls, ph, side="meas"):
        if side == "meas":
            return sum(v.get((ph, cls, "kernel"), 0) for v in meas[p].values())
        return sum(q.get((ph, cls), 0) for q in pred[p].values())

    def rel(p, cls, ph, suffix=None):
        key = (ph, cls) if suffix is None else (ph, cls, suffix)
        return sum(q.get(key, 0) for q in pred[p].values()) / total(p, cls, ph)

    def both(p, cls, suffix=None):
        return f"{rel(p, cls, 'fwd', suffix):.2f}/{rel(p, cls, 'bwd', suffix):.2f}"

    def ops(p, ph, kind, keys=None, key="ops"):
        """Convolution ops of the kind (all kinds: None) over the points (all: None); with key
        "T ops" those that ran cuDNN's transposes."""
        vs = [meas[p][k] for k in (keys if keys is not None else meas[p])]
        kinds = CONV if kind is None else (kind,)
        if key == "ops":
            return sum(v.get((ph, c, "ops"), 0) for v in vs for c in kinds)
        return sum(v.get((ph, "conv T ops", c), 0) for v in vs for c in kinds)

    def only(n, of):
        return "only " if n < of / 2 else ""

    def names_of(keys):
        return [PRETTY[m] for m in dict.fromkeys(k[0] for k in keys)]

    def top_kernels(p, ph, cls, keys, n=2):
        """The class's n kernels that took the most time over the points, with their ms."""
        t = {}
        for k in keys:
            for key, x in meas[p][k].items():
                if len(key) == 4 and key[:3] == (ph, "name us", cls):
                    t[key[3]] = t.get(key[3], 0) + x
        return and_list(f"`{name}` {ms(x)} ms" for name, x in
                        sorted(t.items(), key=lambda x: -x[1])[:n])

    r50, r50s = ("resnet50", 128), ("resnet50", 32)
    dense = [k for k in points_of(meas, "bf16") if k[0] in ("resnet18", "resnet50",
                                                            "resnext50_32x4d", "vgg11",
                                                            "densenet121")]
    mobile = [k for k in points_of(meas, "bf16") if k[0] in ("mobilenet_v2",
                                                             "mobilenet_v3_large",
                                                             "efficientnet_b0")]
    cnx = [k for k in points_of(meas, "bf16") if k[0] == "convnext_tiny"]
    est_all = sum(est("bf16", k, ph) for k in b16 for ph in ("fwd", "bwd"))
    model_all = sum(pred["bf16"][k].get((ph, "transposes"), 0) for k in b16
                    for ph in ("fwd", "bwd"))
    upper_all = sum(v.get((ph, "conv T", "kernel"), 0) for v in b16.values()
                    for ph in ("fwd", "bwd"))
    v = b16[r50]
    dw_t = sum(ops("bf16", ph, "conv depthwise", key="T ops") for ph in ("fwd", "bwd"))
    cnx_t_ops = ops("bf16", "fwd", None, cnx, "T ops")
    one_t = {ph: (ops("bf16", ph, "conv 1x1", key="T ops"), ops("bf16", ph, "conv 1x1"))
             for ph in ("fwd", "bwd")}
    fp_t = {ph: (ops("fp32", ph, None, key="T ops"), ops("fp32", ph, None))
            for ph in ("fwd", "bwd")}
    fp_timed = ""
    if names_timed(meas, "fp32"):
        keys = [(k, ph) for k in f32 for ph in ("fwd", "bwd")]
        timed = sum(f32[k].get((ph, "conv T", "timed"), 0) for k, ph in keys)
        (kt, pht) = max(keys, key=lambda x: f32[x[0]].get((x[1], "conv T", "timed"), 0))
        fp_timed = f"""; the fp32 profile, which keeps each kernel name's time, has them at
            {ms(timed)} ms over all points and both passes against an estimated
            {ms(sum(est('fp32', k, ph) for k, ph in keys))} ms:
            {ms(f32[kt][pht, 'conv T', 'timed'])} ms in {PRETTY[kt[0]]}'s
            {'backward' if pht == 'bwd' else 'forward'} pass at batch {kt[1]} alone,
            {f32[kt][pht, 'conv T', 'timed'] / est('fp32', kt, pht):.0f} times the estimate
            there"""
    grouped = [k for k in b16 if k in t32 and k in f32 and b16[k].get(("fwd", "conv grouped",
                                                                       "ops"))]
    grouped_text = ""
    if grouped:
        gt = {p: {ph: sum(meas[p][k].get((ph, "conv grouped", "kernel"), 0) for k in grouped)
                  for ph in ("fwd", "bwd")} for p in PRECISIONS}
        gk = {p: sum(meas[p][k].get(("fwd", "conv grouped", "kernels"), 0) for k in grouped) /
              sum(meas[p][k].get(("fwd", "conv grouped", "ops"), 0) for k in grouped)
              for p in PRECISIONS}
        grouped_text = f"""; {and_list(n + "'s" for n in names_of(grouped))} grouped
            convolutions took {ms(gt['fp32']['fwd'])} ms forward and {ms(gt['fp32']['bwd'])}
            backward there (both batches), against {ms(gt['tf32']['fwd'])} and
            {ms(gt['tf32']['bwd'])} under TF32 and {ms(gt['bf16']['fwd'])} and
            {ms(gt['bf16']['bwd'])} under bf16, with {gk['fp32']:.1f} kernels an op forward
            ({gk['tf32']:.1f} under TF32)"""
        if names_timed(meas, "fp32"):
            grouped_text += f""", their forward time in
                {top_kernels('fp32', 'fwd', 'conv grouped', grouped)}"""

    def stem_names(p, key):
        return [n[1] for n in meas[p][key] if n[0] == "stem name"]

    tf_stem = [m for m in dict.fromkeys(k[0] for k in b16) if all(
        any(n.startswith("void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16, "
                         "float") for n in stem_names("bf16", k)) for k in b16 if k[0] == m)]
    tf_stem_others = [PRETTY[m] + "'s" for m in MODELS if m in tf_stem and m != "resnet50"]

    def stem_kernel(p, key):
        return and_list(f"`{short_kernel(n)}`" for n in stem_names(p, key)
                        if not n.startswith(("void at::native", "Memset", "void cudnn::engines")))

    def dw(p, ph, f):
        vals = []
        for k in points_of(meas, p):
            x = meas[p][k]
            if k[0] in DEPTHWISE_NETS and x.get((ph, "dw", "kernel")):
                vals.append(x[ph, "dw", "bytes"] / (x[ph, "dw", "kernel"] * 1e-6))
        return span(vals, f)

    def tbs(x):
        return f"{x / 1e12:.2f}"

    def of48(x):
        return f"{100 * x / PEAK_BW:.0f}%"

    def act(keys):
        return span([pred["bf16"][k]["fwd", "activation"] / b16[k]["fwd", "activation", "kernel"]
                     for k in keys], lambda x: f"{x:.2f}")

    mb = ("mobilenet_v2", 128)
    cnx_t = t32[("convnext_tiny", 128)]
    cnx_f = max((k for k in f32 if k[0] == "convnext_tiny"), key=lambda k: k[1])
    cnx_fv = f32[cnx_f]
    cnx_f_kernels = ""
    if names_timed(meas, "fp32"):
        t = {key[2]: x for key, x in cnx_fv.items()
             if len(key) == 3 and key[:2] == ("bwd", "dw name us")}
        cnx_f_kernels = "; " + and_list(f"`{n}` {ms(x)} ms" for n, x in
                                        sorted(t.items(), key=lambda x: -x[1])[:3])
    bn_share = {ph: [v2.get((ph, "batch norm", "kernel"), 0) / v2[ph, "all", "kernel"]
                     for k, v2 in b16.items() if v2.get((ph, "batch norm", "kernel"))]
                for ph in ("fwd", "bwd")}
    big = {ph: [c for c in PRICED if total("bf16", c, ph) >=
                0.01 * sum(total("bf16", c2, ph) for c2 in PRICED)] for ph in ("fwd", "bwd")}
    bn_largest = all(max(PRICED, key=lambda c: total("bf16", c, ph)) == "batch norm"
                     for ph in ("fwd", "bwd"))
    bn_worst = all(min(big[ph], key=lambda c: rel("bf16", c, ph)) == "batch norm"
                   for ph in ("fwd", "bwd"))
    bn_head = ("**Batch norm is the largest class under bf16" if bn_largest else
               "**Batch norm is a large class under bf16") + \
        (" and there the worst priced.**" if bn_worst else ".**")

    def bn_ops(p):
        return and_list(sorted({key[3] for x in meas[p].values() for key in x
                                if key[:3] == ("bwd", "op name", "batch norm")}))

    cudnn_bn = [p for p in PRECISIONS if p != "bf16" and bn_ops(p) == bn_ops(PRECISIONS[1])]
    common = [k for k in points_of(meas, "bf16") if all(k in meas[p] for p in PRECISIONS)]
    bn_all = {p: {ph: sum(meas[p][k].get((ph, "batch norm", "kernel"), 0) for k in common)
                  for ph in ("fwd", "bwd")} for p in PRECISIONS}
    small = [(p, k, ph) for p in PRECISIONS for k in points_of(meas, p, 32)
             for ph in ("infer", "fwd")]
    bound = [x for x in small if 1 - meas[x[0]][x[1]][x[2], "busy"] /
             meas[x[0]][x[1]][x[2], "window"] >= 0.5]
    opt_idle = [1 - m[k]["opt", "busy"] / m[k]["opt", "window"] for m in meas.values()
                for k in m if k[0] != "vgg11"]
    vgg_idle = [1 - m[k]["opt", "busy"] / m[k]["opt", "window"] for m in meas.values()
                for k in m if k[0] == "vgg11"]
    opt_busy = [m[k]["opt", "busy"] for m in meas.values() for k in m]
    opt_win = [m[k]["opt", "window"] for m in meas.values() for k in m]
    busy_free = {b: [b16[k][ph, "busy"] / free[k][ph] for k in free if k in b16 and k[1] == b
                     for ph in ("infer", "fwd", "bwd")] for b in BATCHES}
    free_nets = names_of(k for k in points_of(meas, "bf16") if k in free)
    per_kernel = [free[k]["fwd"] / b16[k]["fwd", "phase kernels"] for k in free
                  if k in b16 and k[1] == 32]
    dev_busy = {p: [pred[p][k][ph, "device"] / meas[p][k][ph, "busy"] for k in meas[p]
                    for ph in ("fwd", "bwd")] for p in PRECISIONS}
    fwd_free = [pred["bf16"][k]["t_fwd"] / free[k]["fwd"] for k in free if k in b16
                and k[1] == 32]
    vgg = b16[("vgg11", 128)]

    def idle(k, ph):
        return 1 - b16[k][ph, "busy"] / b16[k][ph, "window"]

    runs128 = [(k, ph) for k in points_of(meas, "bf16", 128) for ph in ("fwd", "bwd")]
    hb128 = [(k, ph) for k, ph in runs128 if idle(k, ph) >= 0.5]
    dev128 = [(k, ph) for k, ph in runs128 if idle(k, ph) < 0.5]
    pass128 = [pred["bf16"][k]["t_" + ph] / b16[k][ph, "window"] for k, ph in dev128]
    hb_text = "" if not hb128 else " (leaving out " + and_list(
        f"{PRETTY[k[0]]}'s {'backward' if ph == 'bwd' else 'forward'} pass, "
        f"{pct(idle(k, ph))} idle" for k, ph in hb128) + ")"
    with open(os.path.join(ROOT, "configs", "frameworks", "pytorch-eager-hopper.ini")) as f:
        dispatch_fwd = float(re.search(r"^dispatch_fwd_us\s*=\s*([\d.]+)", f.read(),
                                       re.M).group(1))
    bullets = [
        f"""**cuDNN's transposes (issue 37) cost an estimated {est_all / model_all:.0%} of
        what the model prices for them.** Under bf16
        on NCHW tensors cuDNN ran `nchwToNhwcKernel`/`nhwcToNchwKernel` around
        {v['fwd', 'conv T', 'ops']:.0f} of ResNet-50's {v['fwd', 'conv', 'ops']:.0f} forward
        convolutions at batch 128 ({v['fwd', 'conv T ops', 'conv dense kxk']:.0f} of its
        {v['fwd', 'conv dense kxk', 'ops']:.0f} dense k x k, {v['fwd', 'conv T ops',
        'conv 1x1']:.0f} of its {v['fwd', 'conv 1x1', 'ops']:.0f} 1 x 1; the others ran as
        matrix products on NCHW),
        around {count_word(int(dw_t))} of the depthwise ones and around
        {count_word(int(cnx_t_ops))} of ConvNeXt-T's
        forward ones. At the
        streaming rate of the same runs' ReLUs ({tbs(rates['bf16'])} TB/s) they take an
        estimated {pct(share('bf16', r50, 'fwd'))} of ResNet-50's convolution kernel time at
        batch 128 forward ({ms(est('bf16', r50, 'fwd'))} of {ms(conv('bf16', r50, 'fwd'))}
        ms) and {pct(share('bf16', r50, 'bwd'))} backward; {span([share('bf16', k, ph) for k in
        dense for ph in ('fwd', 'bwd')])} in the {count_word(len(names_of(dense)))} dense
        networks ({and_list(names_of(dense))}), {span([share('bf16', k, ph) for k in mobile
        for ph in ('fwd', 'bwd')])} in {and_list(names_of(mobile))}, {span([share('bf16', k, ph)
        for k in cnx for ph in ('fwd', 'bwd')])} in ConvNeXt-T. The model prices ResNet-50's at
        {ms(pred['bf16'][r50]['fwd', 'transposes'])} ms forward,
        {pred['bf16'][r50]['fwd', 'transposes'] / est('bf16', r50, 'fwd'):.1f} times the
        estimate; over all bf16 points and both passes {model_all / 1000:.0f} ms against an
        estimated {est_all / 1000:.0f} ms (and at most {upper_all / 1000:.0f} ms, the whole
        kernel time of the ops that ran them, products included). TF32 runs the same
        transforms (fp32 in and out; ResNet-50 at batch 128 forward an estimated
        {pct(share('tf32', r50, 'fwd'))} of its convolutions), which the model does not
        price. With TF32 off (fp32) cuDNN ran them around {only(*fp_t['fwd'])}
        {fp_t['fwd'][0]:.0f} of the {fp_t['fwd'][1]:.0f} forward convolution ops and
        {fp_t['bwd'][0]:.0f} of the {fp_t['bwd'][1]:.0f} backward ones{fp_timed}.""",
        f"""**Where that price lands.** Summed over the bf16 points, the model's 1 x 1
        convolutions come out at {rel('bf16', 'conv 1x1', 'fwd'):.2f} of the measured forward
        and {rel('bf16', 'conv 1x1', 'bwd'):.2f} backward because of the transposes it prices
        around them, where cuDNN ran them around {only(*one_t['fwd'])}
        {one_t['fwd'][0]:.0f} of their {one_t['fwd'][1]:.0f} forward ops
        ({one_t['bwd'][0]:.0f} of {one_t['bwd'][1]:.0f} backward); priced as channels-last
        they come out at
        {rel('bf16', 'conv 1x1', 'fwd', 'channels-last'):.2f} and
        {rel('bf16', 'conv 1x1', 'bwd', 'channels-last'):.2f}. Dense k x k convolutions:
        {rel('bf16', 'conv dense kxk', 'fwd'):.2f} and {rel('bf16', 'conv dense kxk',
        'bwd'):.2f} with the transposes, {rel('bf16', 'conv dense kxk', 'fwd',
        'channels-last'):.2f} and {rel('bf16', 'conv dense kxk', 'bwd', 'channels-last'):.2f}
        without; grouped {rel('bf16', 'conv grouped', 'fwd'):.2f} and
        {rel('bf16', 'conv grouped', 'bwd'):.2f}. At TF32: dense
        {both('tf32', 'conv dense kxk')}, 1 x 1 {both('tf32', 'conv 1x1')}, grouped
        {both('tf32', 'conv grouped')}; at fp32 (TF32 off): dense
        {both('fp32', 'conv dense kxk')}, 1 x 1 {both('fp32', 'conv 1x1')}, grouped
        {both('fp32', 'conv grouped')} (forward/backward){grouped_text}.""",
        f"""**The stems.** The first convolution, on the image's 3 channels: ResNet-50's 7 x 7
        {'(as ' + and_list(tf_stem_others) + ') ' if tf_stem_others else ''}runs under bf16
        through a TF32 kernel
        (`nchwToNhwcKernel<__nv_bfloat16, float>`, a tf32 CUTLASS fprop) and takes
        {ms(v['stem', 'kernel'])} ms at batch 128,
        {pct(v['stem', 'kernel'] / conv('bf16', r50, 'fwd'))} of its forward
        convolution time (the model: {ms(pred['bf16'][r50]['stem'])} ms), against
        {ms(t32[r50]['stem', 'kernel'])} ms under TF32 and {ms(f32[r50]['stem', 'kernel'])} ms
        under fp32 ({stem_kernel('fp32', r50)}); VGG-11's first
        3 x 3 runs cuDNN's {stem_kernel('bf16', ('vgg11', 128))} in
        {ms(vgg['stem', 'kernel'])} ms,
        {pct(vgg['stem', 'kernel'] / conv('bf16', ('vgg11', 128), 'fwd'))} of its
        forward convolution time (the model: {ms(pred['bf16'][('vgg11', 128)]['stem'])}
        ms).""",
        f"""**Depthwise convolutions are far from memory-bound.** Their ops move their bytes at
        {dw('bf16', 'fwd', tbs)} TB/s forward ({dw('bf16', 'fwd', of48)} of 4.8 TB/s) and
        {dw('bf16', 'bwd', tbs)} TB/s backward ({dw('bf16', 'bwd', of48)}) under bf16,
        {dw('tf32', 'fwd', tbs)} and {dw('tf32', 'bwd', tbs)} TB/s under TF32,
        {dw('fp32', 'fwd', tbs)} and {dw('fp32', 'bwd', tbs)} TB/s under fp32; bf16 halves the
        bytes but not the time (MobileNet v2 at batch 128:
        {ms(b16[mb]['fwd', 'dw', 'kernel'])} ms forward at bf16,
        {ms(t32[mb]['fwd', 'dw', 'kernel'])} at TF32, {ms(f32[mb]['fwd', 'dw', 'kernel'])} at
        fp32), so PyTorch's `conv_depthwise2d`
        kernels (3 x 3, 5 x 5) and cuDNN's (ConvNeXt-T's 7 x 7) are bound by something other
        than DRAM: the SMs ("Direct convolutions" below). The model, pricing PyTorch's
        kernels by the SMs and ConvNeXt-T's by the DRAM at 0.7 of 4.8 TB/s, comes out at
        {rel('bf16', 'conv depthwise', 'fwd'):.2f} of the measured forward and
        {rel('bf16', 'conv depthwise', 'bwd'):.2f} backward at bf16,
        {rel('tf32', 'conv depthwise', 'fwd'):.2f} and {rel('tf32', 'conv depthwise',
        'bwd'):.2f} at TF32, where ConvNeXt-T's depthwise backward took
        {ms(cnx_t['bwd', 'dw', 'kernel'])} ms at batch 128 (FFT and transform kernels,
        {tbs(cnx_t['bwd', 'dw', 'bytes'] / (cnx_t['bwd', 'dw', 'kernel'] * 1e-6))} TB/s), and
        {rel('fp32', 'conv depthwise', 'fwd'):.2f} and {rel('fp32', 'conv depthwise',
        'bwd'):.2f} at fp32, where it took {ms(cnx_fv['bwd', 'dw', 'kernel'])} ms at batch
        {cnx_f[1]} ({tbs(cnx_fv['bwd', 'dw', 'bytes'] / (cnx_fv['bwd', 'dw', 'kernel'] * 1e-6))}
        TB/s, against {ms(t32[cnx_f]['bwd', 'dw', 'kernel'])} ms at TF32 and
        {ms(b16[cnx_f]['bwd', 'dw', 'kernel'])} at bf16{cnx_f_kernels}).""",
        f"""{bn_head} Under bf16 it is
        {span(bn_share['fwd'])} of the forward kernel time and {span(bn_share['bwd'])} of the
        backward in the networks that have it; the model prices it at
        {rel('bf16', 'batch norm', 'fwd'):.2f} of the measured forward and
        {rel('bf16', 'batch norm', 'bwd'):.2f} backward ({rel('tf32', 'batch norm',
        'fwd'):.2f} and {rel('tf32', 'batch norm', 'bwd'):.2f} at TF32,
        {rel('fp32', 'batch norm', 'fwd'):.2f} and {rel('fp32', 'batch norm', 'bwd'):.2f} at
        fp32). Autocast hands it bf16
        activations with fp32 parameters, which PyTorch runs in its own NCHW kernels
        ({bn_ops('bf16')}) instead of cuDNN's ({bn_ops(PRECISIONS[1])} at
        {' and '.join(UNDER_SHORT[p] for p in cudnn_bn)}):
        ResNet-50's batch norms take {ms(v['fwd', 'batch norm', 'kernel'])} ms forward at batch
        128 under bf16, on half the bytes of TF32's {ms(t32[r50]['fwd', 'batch norm',
        'kernel'])} ms and fp32's {ms(f32[r50]['fwd', 'batch norm', 'kernel'])} ms; more
        than its convolutions' {ms(conv('bf16', r50, 'fwd'))} ms. Over the
        {len(common)} points that all three precisions ran, batch norm took
        {ms(bn_all['bf16']['fwd'])} ms forward and {ms(bn_all['bf16']['bwd'])} backward under
        bf16, {ms(bn_all['tf32']['fwd'])} and {ms(bn_all['tf32']['bwd'])} under TF32,
        {ms(bn_all['fp32']['fwd'])} and {ms(bn_all['fp32']['bwd'])} under fp32.""",
        f"""**The other classes**, summed over the bf16 points (forward/backward):
        layer norm {both('bf16', 'layer norm')}, pooling {both('bf16', 'pooling')},
        concatenation {both('bf16', 'concat')}, elementwise {both('bf16', 'elementwise')},
        linear {both('bf16', 'linear')}. Activations: {rel('bf16', 'activation', 'fwd'):.2f}
        forward on the sum, {act(dense)} in the ReLU networks (their in-place ReLUs stream at
        {tbs(rates['bf16'])} TB/s, above the 0.7 x 4.8 = 3.36 TB/s the model takes for every
        memory-bound kernel), {act(mobile)} for MobileNet v2's ReLU6, EfficientNet-B0's SiLU
        and MobileNet v3 large's hard swish, ReLU and hard sigmoid;
        {rel('bf16', 'activation', 'bwd'):.2f} backward (TF32
        {rel('tf32', 'activation', 'bwd'):.2f}, fp32 {rel('fp32', 'activation', 'bwd'):.2f}).""",
        f"""**Host-bound phases.** The optimizer step idles the GPU {span(opt_idle)} of its
        window in every network but VGG-11 ({span(vgg_idle)}): SGD's
        `multi_tensor_apply_kernel`s are busy {span(opt_busy, ms)} ms of a
        {span(opt_win, ms)} ms window. Under the profiler {len(bound)} of the {len(small)}
        inference and forward passes at batch 32 idle the GPU half their window or more, but
        the profiler lengthens them (ResNet-50's batch-32 inference window
        {ms(b16[r50s]['infer', 'window'])} ms, {ms(free[r50s]['infer'])} ms without it).
        Without it ({and_list(free_nets)} under bf16) the GPU's kernels fill
        {span(busy_free[32])} of the passes at batch 32 and {span(busy_free[128])} at batch
        128: partly host-bound at 32, device-bound at 128.""",
        f"""**Whole passes.** The model's device time is {span(dev_busy['bf16'], f2)}
        of the GPU's busy time in the bf16 forward and backward passes{
        ': too low everywhere, by the classes above' if max(dev_busy['bf16']) < 1 else ''};
        {span(dev_busy['tf32'], f2)} in the TF32 ones, {span(dev_busy['fp32'], f2)} in the
        fp32 ones. At batch 128,
        where the GPU idled only {span([idle(k, ph) for k, ph in dev128])} of the profiled
        forward and backward windows{hb_text}, its t_fwd and t_bwd are
        {span(pass128, f2)} of them (ResNet-50:
        {pred['bf16'][r50]['t_fwd'] / v['fwd', 'window']:.2f} and
        {pred['bf16'][r50]['t_bwd'] / v['bwd', 'window']:.2f}, its device time alone
        {pred['bf16'][r50]['fwd', 'device'] / v['fwd', 'busy']:.2f} and
        {pred['bf16'][r50]['bwd', 'device'] / v['bwd', 'busy']:.2f} of the busy time): the
        dispatch it adds on top, which the GPU hid, makes up the difference. Against the
        unprofiled times (above) the batch-32 forward passes come out
        {span(fwd_free, f2)} times too long: they
        took {span(per_kernel, lambda x: f'{x:.0f}')} us per kernel launched, where the
        model's dispatch is {dispatch_fwd:g} us per kernel in the forward pass.""",
    ]
    out = ["## What it shows", ""]
    for b in bullets:
        out += para(b, bullet=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "ops-h200.md"))
    a = ap.parse_args()

    meas = {p: measure(p) for p in PRECISIONS}
    others = sorted({k[0] for m in meas.values() for k in m} - set(MODELS))
    for m in meas.values():  # networks without a name and an order here
        for k in [k for k in m if k[0] not in MODELS]:
            del m[k]
    nets = [n for n in MODELS if any(k[0] == n for m in meas.values() for k in m)]
    classes = {m: model_classes(a.bin, m) for m in nets}
    sm_count = h200_figures(a.bin)[2]
    pred = {p: {k: predict(a.bin, k[0], k[1], p, classes[k[0]], sm_count) for k in meas[p]}
            for p in PRECISIONS}
    for p in PRECISIONS:  # both sides class the same convolutions alike
        for k, v in meas[p].items():
            for c in CONV:
                n = sum(1 for x in classes[k[0]].values() if x == c)
                if v.get(("fwd", c, "ops"), 0) != n:
                    sys.exit(f"op_table: {k[0]}: {n} {c} layers in the model, "
                             f"{v.get(('fwd', c, 'ops'), 0):.0f} in the profile")

    names = [LONG.get(n, PRETTY[n]) for n in nets]
    under = [UNDER[p] + (f" (without {missing(meas, p)}: the leases' time ran out)"
                         if missing(meas, p) else "") for p in PRECISIONS]
    extra = (f" The files also hold {', '.join(others)}, which this tool does not name and "
             "leaves out." if others else "")
    md = ["# Eager PyTorch on an H200, op by op", ""]
    md += para(f"""Generated by `tools/op_table.py` (issue 38 item 4, issue 37); do not edit by
        hand. The data are `configs/calibrations/h200-pytorch-layers/` (its README):
        `tools/torch_layer_profile.py` on one H200 SXM over two leases, PyTorch 2.11, cuDNN
        9.19, NCHW tensors, cudnn.benchmark on, image 224, torchvision's
        {', '.join(names[:-1])} and {names[-1]} at batch
        {' and '.join(str(b) for b in BATCHES)}, under {', under '.join(under[:-1])} and under
        {under[-1]}.{extra} Each point's phases: inference
        (infer), the training forward pass with the loss (fwd), the backward pass (bwd) and SGD
        with momentum (opt). Each figure is the median of 3 profiled steps after 3 warm-up steps
        (per op where the steps ran the same ops, else per step of the sums below). The model's
        side is `scalemeter predict` of the same points with the shipped `h200` description,
        nothing fitted.""")
    md.append("")
    md += section_classes(meas)
    md += section_transposes(meas, pred)
    free = unprofiled()
    md += section_phases(meas, free)
    md += section_depthwise(meas, pred)
    md += section_model(meas, pred, free)
    md += section_keys(a.bin, meas, pred)
    md += section_direct(a.bin, meas, pred)
    md += findings(meas, pred, free)
    with open(a.out, "w") as fh:
        fh.write("\n".join(md) + "\n")
    print(f"{a.out}: {sum(len(meas[p]) for p in PRECISIONS)} points")


if __name__ == "__main__":
    main()
