#!/usr/bin/env python3
"""Many networks, two layouts: timm's published GPU benchmarks against the calibration-free
model. Writes docs/accuracy-timm.md.

    tools/timm_validation.py [--bin build/bin/scalemeter] [--out docs/accuracy-timm.md]

The figures are Ross Wightman's benchmark CSVs in huggingface/pytorch-image-models (results/,
at TIMM below): training on an RTX 3090 and inference on an RTX 3090 and an RTX 4090, each
in NCHW and in channels-last (NHWC), under autocast at fp16, for every network of theirs that
the zoo holds with the same architecture (the parameter count the CSVs give, to 0.01 M).
Each is predicted by `scalemeter predict --format json` from the shipped description alone;
nothing is fitted to these figures. Standard library only; a few seconds.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap

import validation_rows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMM = "aa4b5850"

# timm's names and the zoo's (torchvision's) for the same architectures
ZOO = {
    "resnet18": "resnet18", "resnet34": "resnet34", "resnet50": "resnet50",
    "resnet101": "resnet101", "resnet152": "resnet152", "resnext50_32x4d": "resnext50_32x4d",
    "vgg11": "vgg11", "vgg16": "vgg16", "vgg16_bn": "vgg16_bn", "mobilenetv2_100": "mobilenet_v2",
    "mobilenetv3_large_100": "mobilenet_v3_large", "efficientnet_b0": "efficientnet_b0",
    "densenet121": "densenet121", "convnext_tiny": "convnext_tiny",
    "vit_base_patch16_224": "vit_b_16", "regnety_016": "regnet_y_1_6gf",
    "inception_v3": "inception_v3",
}

# What ran (benchmark.py of the commit that added each file): synthetic input of the CSV's batch
# and image size (224, Inception v3 299), cudnn.benchmark on, torch.cuda.amp.autocast (fp16),
# warm-up steps, then CUDA-synchronised timing of every step.
# - train: zero_grad, forward, cross-entropy loss, backward, and timm's "sgd" optimizer step
#   (torch.optim.SGD with momentum 0.9, Nesterov), no GradScaler; timm 0.6.6 on PyTorch 1.12 and
#   CUDA 11.3, whose attention is eager (q @ k^T, softmax, @ v). The figure is samples/s.
# - infer: eval mode under no_grad, the forward alone; timm 1.0.10.dev0 on PyTorch 2.4 and CUDA
#   12.4, whose attention is F.scaled_dot_product_attention (timm.layers.use_fused_attn).
# Each set: (results/ file, mode, shipped description, channels-last, rows of (timm name, batch,
# samples/s)). The 3090's NHWC inference file has no VGG-11 at 224.
SETS = [
    ("benchmark-train-amp-nchw-pt112-cu113-rtx3090.csv", "train", "rtx3090", False, [
        ("resnet18", 512, 2764.22), ("resnet34", 512, 1622.41), ("resnet50", 512, 826.06),
        ("resnet101", 256, 568.98), ("resnet152", 192, 370.08),
        ("resnext50_32x4d", 384, 663.39), ("vgg11", 512, 825.98), ("vgg16", 384, 465.36),
        ("vgg16_bn", 256, 388.69), ("mobilenetv2_100", 512, 1832.14),
        ("mobilenetv3_large_100", 512, 2167.29), ("efficientnet_b0", 384, 1459.11),
        ("densenet121", 256, 730.11), ("convnext_tiny", 256, 813.16),
        ("vit_base_patch16_224", 192, 390.86), ("regnety_016", 512, 954.26),
        ("inception_v3", 384, 602.27)]),
    ("benchmark-train-amp-nhwc-pt112-cu113-rtx3090.csv", "train", "rtx3090", True, [
        ("resnet18", 512, 3481.78), ("resnet34", 512, 2036.51), ("resnet50", 512, 1218.01),
        ("resnet101", 256, 747.89), ("resnet152", 192, 501.44),
        ("resnext50_32x4d", 384, 1001.03), ("vgg11", 512, 954.03), ("vgg16", 384, 546.06),
        ("vgg16_bn", 256, 470.3), ("mobilenetv2_100", 512, 2313.1),
        ("mobilenetv3_large_100", 512, 2732.43), ("efficientnet_b0", 512, 1751.72),
        ("densenet121", 256, 913.65), ("convnext_tiny", 256, 819.24),
        ("vit_base_patch16_224", 192, 392.99), ("regnety_016", 512, 650.07),
        ("inception_v3", 384, 782.35)]),
    ("benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv", "infer", "rtx3090", False, [
        ("resnet18", 1024, 9260.29), ("resnet34", 1024, 5454.89), ("resnet50", 1024, 3219.06),
        ("resnet101", 1024, 1956.19), ("resnet152", 1024, 1373.51),
        ("resnext50_32x4d", 1024, 2577.31), ("vgg11", 1024, 2887.76), ("vgg16", 1024, 1021.7),
        ("vgg16_bn", 1024, 1364.4), ("mobilenetv2_100", 1024, 8629.73),
        ("mobilenetv3_large_100", 1024, 11135.72), ("efficientnet_b0", 1024, 6924.93),
        ("densenet121", 1024, 2764.41), ("convnext_tiny", 1024, 3090.39),
        ("vit_base_patch16_224", 1024, 1570.66), ("regnety_016", 1024, 4256.18),
        ("inception_v3", 1024, 2349.22)]),
    ("benchmark-infer-amp-nhwc-pt240-cu124-rtx3090.csv", "infer", "rtx3090", True, [
        ("resnet18", 1024, 11188.75), ("resnet34", 1024, 6529.57), ("resnet50", 1024, 3729.86),
        ("resnet101", 1024, 2287.55), ("resnet152", 1024, 1606.24),
        ("resnext50_32x4d", 1024, 3135.91), ("vgg16", 1024, 1729.39),
        ("vgg16_bn", 1024, 1534.81), ("mobilenetv2_100", 1024, 9887.57),
        ("mobilenetv3_large_100", 1024, 13556.89), ("efficientnet_b0", 1024, 8241.4),
        ("densenet121", 1024, 3031.71), ("convnext_tiny", 1024, 3120.16),
        ("vit_base_patch16_224", 1024, 1572.08), ("regnety_016", 1024, 3879.4),
        ("inception_v3", 1024, 2561.31)]),
    ("benchmark-infer-amp-nchw-pt240-cu124-rtx4090.csv", "infer", "rtx4090", False, [
        ("resnet18", 1024, 13537.15), ("resnet34", 1024, 8192.41), ("resnet50", 1024, 4217.6),
        ("resnet101", 1024, 2736.75), ("resnet152", 1024, 1941.85),
        ("resnext50_32x4d", 1024, 3427.06), ("vgg11", 1024, 4384.0), ("vgg16", 1024, 2165.35),
        ("vgg16_bn", 1024, 1909.7), ("mobilenetv2_100", 1024, 10810.08),
        ("mobilenetv3_large_100", 1024, 14191.17), ("efficientnet_b0", 1024, 8926.12),
        ("densenet121", 1024, 3614.99), ("convnext_tiny", 1024, 4796.99),
        ("vit_base_patch16_224", 1024, 2787.15), ("regnety_016", 1024, 5939.38),
        ("inception_v3", 1024, 3663.18)]),
    ("benchmark-infer-amp-nhwc-pt240-cu124-rtx4090.csv", "infer", "rtx4090", True, [
        ("resnet18", 512, 18247.43), ("resnet34", 512, 11246.05), ("resnet50", 512, 5088.39),
        ("resnet101", 512, 3320.94), ("resnet152", 512, 2347.77),
        ("resnext50_32x4d", 512, 4219.51), ("vgg11", 512, 4978.9), ("vgg16", 512, 2904.86),
        ("vgg16_bn", 512, 2469.22), ("mobilenetv2_100", 512, 11768.03),
        ("mobilenetv3_large_100", 512, 16891.88), ("efficientnet_b0", 512, 9831.68),
        ("densenet121", 512, 3896.08), ("convnext_tiny", 512, 4844.53),
        ("vit_base_patch16_224", 512, 2843.0), ("regnety_016", 512, 5793.48),
        ("inception_v3", 512, 4356.9)]),
]
IMAGE = {"inception_v3": 299}
# Networks with depthwise convolutions, and ResNet-like ones of dense convolutions only: the
# two groups the findings below compare.
DEPTHWISE = ("mobilenetv2_100", "mobilenetv3_large_100", "efficientnet_b0", "convnext_tiny")
DENSE = ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "vgg11", "vgg16",
         "vgg16_bn", "densenet121", "inception_v3")


def run(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"scalemeter {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def predicted(binary, f, mode, device, nhwc, name, batch):
    """Samples per second of one GPU, predicted with the options that describe what ran (f:
    the results file, which names its PyTorch: 1.12's cuDNN 8 transposed every NCHW
    convolution, 2.4's cuDNN 9 not the dense 1 x 1 ones over 14 x 14 positions or more, the
    descriptions' eager framework)."""
    args = ["predict", ZOO[name], "--device", device, "-g", "1", "--batch", str(batch),
            "--precision", "fp16", "--image", str(IMAGE.get(name, 224)), "--optimizer",
            "momentum", "--format", "json"]
    if nhwc:
        args += ["--framework", "pytorch-channels-last"]
    elif "-pt112-" in f:
        args += ["--framework", "pytorch-eager-cudnn8"]
    if name == "vit_base_patch16_224":
        args += ["--attention", "eager" if mode == "train" else "fused"]
    out = json.loads(run(binary, *args))
    return batch / (out["t_step"] if mode == "train" else out["t_infer"])


def pct(x):
    return f"{100 * (x - 1):+.1f}%"


def label(s):
    f, mode, device, nhwc, _ = s
    sw = "PyTorch 1.12" if "pt112" in f else "PyTorch 2.4"
    return f"{'training' if mode == 'train' else 'inference'}, `{device}`, " \
           f"{'NHWC' if nhwc else 'NCHW'}, {sw}"


def streamed(binary, device, name, published):
    """The fraction of the part's datasheet bandwidth at which the model's activation bytes
    (metrics' bytes at fp16, the weights left out: read once a batch) pass at the published
    rate, and the model's own fraction (memory_efficiency)."""
    m = json.loads(run(binary, "metrics", ZOO[name], "--format", "json"))
    per_sample = (m["bytes"] - 4 * m["weights"]) / 2
    d = {x["device"]: x for x in json.loads(run(binary, "devices", "--format", "json"))["devices"]}
    bw = d[device]["memory_bandwidth_gb_s"] * 1e9
    return per_sample * published / bw, d[device]["memory_efficiency"], d[device]["l2_mib"]


def para(text, bullet=False):
    """A paragraph wrapped at 95 columns; a bullet's lines after the first indented by two."""
    lead = "- " if bullet else ""
    return textwrap.wrap(lead + " ".join(text.split()), 95,
                         subsequent_indent="  " if bullet else "")


def findings(binary, ratios, pred):
    """What the sets show, with the numbers they show it by."""
    def r(k, name):
        return ratios[k, name]

    def span(values):
        lo, hi = f"{min(values):.2f}", f"{max(values):.2f}"
        return lo if lo == hi else f"{lo}-{hi}"

    def rows(k):
        return {n: v for n, _, v in SETS[k][4]}

    def layout(nchw, nhwc, names):
        a, b = rows(nchw), rows(nhwc)
        pub = [b[n] / a[n] for n in names if n in a and n in b]
        mod = [pred[nhwc, n] / pred[nchw, n] for n in names if n in a and n in b]
        return span(pub), span(mod)

    def median(k, names):
        return f"{statistics.median([r(k, n) for n in names if (k, n) in ratios]):.2f}"

    resnets = ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d")
    mobile = ("mobilenetv2_100", "mobilenetv3_large_100", "efficientnet_b0")
    vit, convnext = "vit_base_patch16_224", "convnext_tiny"
    t_pub, t_mod = layout(0, 1, resnets)
    i_pub, i_mod = layout(2, 3, resnets)
    m_pub, m_mod = layout(2, 3, mobile)
    mt_pub, mt_mod = layout(0, 1, mobile[:2])
    dense_train = [r(k, n) for k in (0, 1) for n in DENSE]
    low = min(DENSE, key=lambda n: min(r(0, n), r(1, n)))
    high = max(DENSE, key=lambda n: max(r(0, n), r(1, n)))
    f3, _, l3 = streamed(binary, "rtx3090", "resnet50", rows(3)["resnet50"])
    f4, e4, l4 = streamed(binary, "rtx4090", "resnet50", rows(5)["resnet50"])
    bullets = [
        f"""**Dense CNNs in training** (the ResNets, VGGs, DenseNet-121, Inception v3 on the
        3090): median {statistics.median(dense_train):.2f} of the published rate in either
        layout, from {min(dense_train):.2f} ({low}) to {max(dense_train):.2f} ({high});
        {sum(abs(x - 1) <= 0.1 for x in dense_train)} of {len(dense_train)} within 10%. The
        layouts differ as published: NHWC over NCHW {t_pub} published, {t_mod} predicted for
        the ResNets and ResNeXt. In PyTorch 1.12 cuDNN ran its fp16 convolutions on NCHW
        tensors at about the transposes' cost the model prices.""",
        f"""**NCHW in PyTorch 2.4 costs less**: at inference the same ResNets run NHWC only
        {i_pub} times faster than NCHW on the 3090, where the model says {i_mod}: PyTorch 2.4's
        cuDNN 9 runs the dense 1 x 1 convolutions of stride 1 over 14 x 14 positions or more
        as matrix products on NCHW and transposes the rest, where PyTorch 1.12's cuDNN 8
        transposed every one (the training rows above, predicted with `--framework
        pytorch-eager-cudnn8`). An H100's profiles under cuDNN 9.19, each kernel timed, say
        which ([ops-h100-h200.md](ops-h100-h200.md), "cuDNN's transposes by kind"); the
        descriptions' eager framework takes it (`nchw_matmul_1x1_positions = 196`), which
        took the NCHW inference rows' dense median from 0.90 to {median(2, DENSE)} on the
        3090 and from 0.82 to {median(4, DENSE)} on the 4090, parts no profile ran (the
        NHWC rows: {median(3, DENSE)} and {median(5, DENSE)}).""",
        f"""**Depthwise convolutions** (MobileNet v2 and v3, EfficientNet-B0): at inference
        NHWC is {m_pub} times NCHW's speed published, {m_mod} predicted. PyTorch runs
        depthwise convolutions in kernels of its own or, at fp16 (these runs' AMP) and on
        channels-last tensors, cuDNN's depthwise ones (ATen's use_cudnn_depthwise), not the
        implicit-GEMM kernels the transposes feed: the model prices no transposes around
        them (an H200's bf16 profiles ran none, docs/ops-h200.md). Yet their rows come out
        {span([r(1, n) for n in mobile])} of the published rate in NHWC training and
        {span([r(0, n) for n in mobile])} in NCHW training (NHWC over NCHW {mt_pub}
        published, {mt_mod} predicted). cuDNN's depthwise kernels, which PyTorch picks for
        channels-last inputs and, at fp16, for filters of 1, 3 and 5 over 32 channels or
        more of stride 1 (of stride 2 where its workload rule says), are bound by the SMs as
        PyTorch's own are: the `cudnn_depthwise_*` keys price them per SM and clock as an
        H100 ran them under cuDNN 9.19 (tools/cudnn_depthwise_rates.py), and
        pytorch-eager-cudnn8 takes the same rates for cuDNN 8, which no profile ran. Priced
        by their bytes at the DRAM's rate, as before those keys, the training rows came out
        1.19-1.29 (NHWC) and 1.13-1.25 (NCHW) of the published rate. At inference the
        3090's rows come out {span([r(2, n) for n in mobile])} (NCHW) and
        {span([r(3, n) for n in mobile])} (NHWC): there the keys' forward rates, the H100's,
        price the 3090's depthwise kernels slower than they ran.""",
        f"""**The RTX 4090 at inference**: dense networks at {median(5, DENSE)} (NHWC) of the
        published rate. At its published NHWC rate ResNet-50's activation bytes pass at
        {f4:.2f} of the 4090's datasheet bandwidth (the 3090's: {f3:.2f}), above the {e4:.2f}
        the model takes for GDDR6X (device_arch.c: the H100's fitted 0.70 scaled by copy
        kernels), while convolutions run beside them. Its L2 is {l4:.0f} MiB against the
        3090's {l3:.0f} (`l2_mib`, not yet used by the model); at these batches few tensors
        between kernels fit in it, so the L2 alone does not explain the rate.""",
        f"""**RegNetY-1.6GF in NHWC training** ({r(1, 'regnety_016'):.2f}): PyTorch 1.12's
        channels-last grouped convolutions ran slower than its NCHW ones (published
        NHWC/NCHW {rows(1)['regnety_016'] / rows(0)['regnety_016']:.2f}); a software
        version's slow path, which no description holds.""",
        f"""**ViT-B/16** on the 3090: {r(0, vit):.2f} in training (eager attention),
        {r(2, vit):.2f} at inference (fused), the same direction as BERT on the 3090 in
        Lambda's runs ([accuracy-gpus.md](accuracy-gpus.md)). Its fp16 fraction (0.96:
        cuBLAS's large products on three 3090s, scaled as the H100's, rtx3090.ini) prices the
        forward's products right; what training adds, the backward's products or a lower
        clock over a whole training run, step times cannot tell apart. **ConvNeXt-T** ({r(0, convnext):.2f} and
        {r(1, convnext):.2f} in training, {r(2, convnext):.2f} and {r(3, convnext):.2f} at
        inference on the 3090, {r(4, convnext):.2f} and {r(5, convnext):.2f} on the 4090):
        its 7 x 7 depthwise convolutions, LayerNorm and GELU are what set it apart from the
        ResNets. Its layer norms, 96 to 768 channels a position, are priced by their rows
        (`rownorm_*`: PyTorch's kernel reduces a row in a block of its own, and on Hopper
        ran at a fifth of the DRAM's rate, tools/rownorm_rates.py), which took inference on
        the 3090 from 1.23 to the figures above. Training, in PyTorch 1.12, whose kernels are not those
        profiled (2.11's), stays fast of the published rate; which op it prices short no
        profile of that version says.""",
    ]
    out = ["## What they show", ""]
    for b in bullets:
        out += para(b, bullet=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy-timm.md"))
    validation_rows.add_argument(ap)
    a = ap.parse_args()

    ratios = {}  # (set index, timm name) -> predicted / published
    pred = {}
    for k, (f, mode, device, nhwc, rows) in enumerate(SETS):
        for name, batch, published in rows:
            p = predicted(a.bin, f, mode, device, nhwc, name, batch)
            pred[k, name] = p
            ratios[k, name] = p / published
            validation_rows.record(f"timm: {f}", device, ZOO[name], "fp16", 1, batch,
                                   published, p, "img/s")

    md = ["# Many networks, two layouts: timm's published benchmarks", ""]
    md += para(f"""Generated by `tools/timm_validation.py` (issue 37); do not edit by hand.
        Ross Wightman's benchmark CSVs in huggingface/pytorch-image-models (results/, at
        {TIMM}) time timm's networks on an RTX 3090 (training and inference) and an RTX 4090
        (inference), each in NCHW and in channels-last (NHWC), under autocast at fp16. Every
        network of theirs that the zoo holds with the same architecture (torchvision's: the
        parameter count the CSVs give, to 0.01 M; their MACs within 1.3%, the three mobile
        networks' two-digit 0.23-0.40 GMACs within 6%) is predicted from the shipped
        description alone, by `scalemeter predict NET --device D -g 1 --batch B --precision
        fp16 --optimizer momentum` (`--framework pytorch-channels-last` for NHWC, `--framework
        pytorch-eager-cudnn8` for PyTorch 1.12's NCHW, whose cuDNN 8 transposed every
        convolution): training as batch over t_step, inference as batch over t_infer.
        Nothing is fitted to these figures.""") + [""]
    md += para("""What ran (benchmark.py of the commit that added each file): synthetic input at
        the CSV's batch and image size, cudnn.benchmark on, CUDA-synchronised timing after
        warm-up steps. Training is zero_grad, forward, cross-entropy, backward and SGD with
        Nesterov momentum, no GradScaler, in timm 0.6.6 on PyTorch 1.12 and CUDA 11.3, whose
        ViT attention is eager (`--attention eager`); inference is the forward under no_grad
        in timm 1.0.10.dev0 on PyTorch 2.4 and CUDA 12.4, whose attention is
        scaled_dot_product_attention (`--attention fused`).""") + [""]

    for k, s in enumerate(SETS):
        f, mode, device, nhwc, rows = s
        md += [f"### {label(s)}", "", f"results/{f}", "",
               "| network | zoo | batch | published samples/s | predicted | diff |",
               "|---|---|---:|---:|---:|---:|"]
        for name, batch, published in rows:
            md.append(f"| {name} | `{ZOO[name]}` | {batch} | {published:,.0f} | "
                      f"{pred[k, name]:,.0f} | {pct(ratios[k, name])} |")
        md.append("")

    md += ["## Summary", ""]
    md += para("""Predicted over published, per set: the median and range, and the medians of
        the networks with depthwise convolutions (MobileNet v2 and v3, EfficientNet-B0,
        ConvNeXt-T) and of those of dense convolutions alone (the ResNets, VGGs,
        DenseNet-121, Inception v3):""")
    md += ["",
           "| set | median | lowest | highest | within 10% | depthwise | dense |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    total = within = 0
    for k, s in enumerate(SETS):
        r = [ratios[k, name] for name, _, _ in s[4]]
        dw = [ratios[k, n] for n, _, _ in s[4] if n in DEPTHWISE]
        de = [ratios[k, n] for n, _, _ in s[4] if n in DENSE]
        w = sum(abs(x - 1) <= 0.1 for x in r)
        total += len(r)
        within += w
        md.append(f"| {label(s)} | {statistics.median(r):.2f} | {min(r):.2f} | {max(r):.2f} | "
                  f"{w} of {len(r)} | {statistics.median(dw):.2f} | "
                  f"{statistics.median(de):.2f} |")
    md += ["", f"{within} of {total} figures within 10%.", ""]
    md += para("""The layouts: NHWC's speed over NCHW's, published and predicted, for the
        networks both files of a set hold (the model's NCHW pays cuDNN's transposes around
        every convolution at fp16):""")
    md += ["",
           "| network | training 3090: published | predicted | inference 3090: published | "
           "predicted | inference 4090: published | predicted |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    pairs = [(0, 1), (2, 3), (4, 5)]
    for name in ZOO:
        cells = []
        for nchw, nhwc in pairs:
            pub = {n: v for n, _, v in SETS[nchw][4]}
            pub2 = {n: v for n, _, v in SETS[nhwc][4]}
            if name in pub and name in pub2:
                cells += [f"{pub2[name] / pub[name]:.2f}",
                          f"{pred[nhwc, name] / pred[nchw, name]:.2f}"]
            else:
                cells += ["", ""]
        md.append(f"| {name} | " + " | ".join(cells) + " |")
    md += [""] + para("""(Samples per second of either file at its own batch: the 4090's NHWC
        file ran 512 a batch, its NCHW file 1024, and EfficientNet-B0's training 512 and 384.
        Blank: one file lacks the network.)""") + [""]

    md += findings(a.bin, ratios, pred)
    with open(a.out, "w") as fh:
        fh.write("\n".join(md) + "\n")
    validation_rows.write(a.rows)
    print(f"{a.out}: {within} of {total} within 10%")


if __name__ == "__main__":
    main()
