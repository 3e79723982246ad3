#!/usr/bin/env python3
"""One network, many GPUs: Lambda's published training throughput against the calibration-free
model, for every part of theirs that a shipped description describes. Writes
docs/accuracy-gpus.md.

    tools/gpus_validation.py [--bin build/bin/scalemeter] [--out docs/accuracy-gpus.md]

Each row is one system of Lambda's GPU benchmark (lambdal/deeplearning-benchmark at LAMBDA,
pytorch/pytorch-train-throughput-fp16.csv and -fp32.csv, the batch sizes from the -bs- files
of the same commit), predicted by `scalemeter predict --format json` with the options that
describe what ran (OPTIONS below). Nothing here is fitted to these figures. Standard library
only; takes a few seconds.
"""
import argparse
import configparser
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

import validation_rows
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAMBDA = "aa5addb6"

# What ran (lambdal/deeplearning-benchmark at aa5addb6 and the code it runs,
# LambdaLabsML/DeepLearningExamples c1781a37, which is NVIDIA's DeepLearningExamples 40eeae75
# with a tanh GELU in BERT; the NGC container from each BERT log's build id):
# - ResNet-50 v1.5 (Classification/ConvNets main.py): synthetic data, batch per GPU as below,
#   --amp is torch.cuda.amp.autocast with a GradScaler at a static 256, activations NCHW (its
#   --memory-format default; every log says nchw), SGD with momentum. The figure is
#   train.compute_ips of the run's Summary line: the mean of every iteration's images/s, the
#   first (cuDNN's autotuning) included: over 2 epochs of 100 iterations (--epochs 2 --prof 100),
#   but one epoch of 50 (--epochs 1 --prof 50) on the 48 GB cards (Quadro RTX 8000, RTX A6000,
#   RTX 6000 Ada: Lambda's 48 GB template), where the first weighs four times as much.
# - BERT-base and BERT-large SQuAD v1.1 fine-tuning (its run_squad.py as Lambda patches it):
#   sequences of 384 tokens, apex amp O2 at fp16 (the model cast to fp16, fp32 master weights,
#   FusedAdam), BertAdam at fp32, plain LayerNorm and GELU, eager attention
#   (configs/frameworks/dle-squad.ini, and dle-squad-fp32.ini at fp32). The figure is training_sequences_per_second: batch x 100
#   over the time of 101 steps, the first ones included.
# - fp32 on Ampere and later is TF32: cuDNN's convolutions by PyTorch's default, cuBLAS's
#   matrix products by the NGC containers' TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1; on Volta and
#   Turing (V100, Quadro RTX 8000) it is fp32.
#
# part: the shipped description; ngc: the container; figures per network: (batch fp16,
# images or sequences/s fp16, batch fp32, images or sequences/s fp32), as the CSVs give them.
SYSTEMS = [
    ("LambdaCloud V100 16GB", "v100", "22.10",
     {"resnet50": (256, 833, 128, 369), "bert_base": (48, 189, 24, 42),
      "bert_large": (16, 57, 8, 12)}),
    ("Quadro RTX 8000", "quadro-rtx8000", "22.10",
     {"resnet50": (928, 651, 496, 274), "bert_base": (192, 146, 96, 41),
      "bert_large": (64, 50, 32, 12)}),
    ("LambdaCloud A10", "a10", "22.10",
     {"resnet50": (448, 638, 224, 349), "bert_base": (80, 135, 48, 70),
      "bert_large": (28, 42, 12, 19)}),
    ("RTX 3090", "rtx3090", "22.09",
     {"resnet50": (448, 905, 224, 513), "bert_base": (96, 172, 48, 85),
      "bert_large": (28, 52, 16, 24)}),
    ("RTX A6000", "rtx-a6000", "22.10",
     {"resnet50": (928, 916, 496, 514), "bert_base": (192, 198, 96, 101),
      "bert_large": (64, 68, 32, 33)}),
    ("LambdaCloud A100 40GB PCIe", "a100-pcie-40gb", "22.10",
     {"resnet50": (720, 1396, 360, 882), "bert_base": (160, 368, 80, 179),
      "bert_large": (48, 117, 28, 53)}),
    ("A100 80GB PCIe", "a100-pcie-80gb", "22.10",
     {"resnet50": (1280, 1527, 640, 1014), "bert_base": (320, 415, 172, 224),
      "bert_large": (112, 140, 64, 70)}),
    ("A100 80GB SXM4", "a100", "22.09",
     {"resnet50": (1280, 1582, 640, 1066), "bert_base": (320, 443, 172, 239),
      "bert_large": (112, 152, 64, 75)}),
    ("RTX 4090", "rtx4090", "22.09",
     {"resnet50": (448, 1301, 224, 721), "bert_base": (96, 297, 48, 137),
      "bert_large": (28, 93, 16, 44)}),
    ("RTX 6000 Ada", "rtx6000-ada", "22.10",
     {"resnet50": (928, 1146, 496, 647), "bert_base": (192, 255, 96, 136),
      "bert_large": (64, 79, 32, 44)}),
    ("H100 80GB PCIe Gen5", "h100-pcie", "22.10",
     {"resnet50": (1280, 1866, 640, 1197), "bert_base": (320, 567, 172, 292),
      "bert_large": (112, 203, 64, 97)}),
    ("LambdaCloud H100 80GB PCIe Gen5", "h100-pcie", "22.10",
     {"resnet50": (1280, 1851, 640, 1182), "bert_base": (320, 558, 172, 266),
      "bert_large": (112, 200, 64, 89)}),
    ("H100 80GB SXM5", "h100", "22.10",
     {"resnet50": (1280, 2616, 640, 1753), "bert_base": (320, 812, 172, 408),
      "bert_large": (112, 301, 64, 141)}),
    ("Dell H100 80GB SXM5", "h100", "24.03",
     {"resnet50": (1280, 2776, 640, 1893), "bert_base": (320, 867, 172, 433),
      "bert_large": (112, 307, 64, 147)}),
    ("DellTexas H100 80GB SXM5", "h100", "24.03",
     {"resnet50": (1280, 2785, 640, 1893), "bert_base": (320, 858, 172, 423),
      "bert_large": (112, 307, 64, 140)}),
    ("SMC H100 80GB SXM5", "h100", "24.03",
     {"resnet50": (1280, 2787, 640, 1893), "bert_base": (320, 870, 172, 437),
      "bert_large": (112, 309, 64, 147)}),
    ("1CC H100 80GB SXM5", "h100", "24.03",
     {"resnet50": (1280, 2791, 640, 1898), "bert_base": (320, 877, 172, 436),
      "bert_large": (112, 311, 64, 148)}),
    ("RAIDZ1 H100 80GB SXM5", "h100", "24.03",
     {"resnet50": (1280, 2790, 640, 1894), "bert_base": (320, 871, 172, 434),
      "bert_large": (112, 309, 64, 147)}),
]
# The steady rate of the BERT runs, from the same logs (results/<system>_v1/PyTorch_bert_*/):
# dllogger stamps "Training Iteration: 51" and "... 101" after a loss.item() each, so the
# seconds between them are 50 whole steps. Per system: BERT-base fp16, fp32, BERT-large fp16,
# fp32 (LambdaCloud H100 PCIe: the mean of its four logs, as its figure is).
# (Against "Training Iteration: 1", the same logs' steps 1-51: steps 51-101 took 2.3-6.2%
# longer on the RTX 6000 Ada, 35.80 and 37.98 s at BERT-base fp16, 38.62 and 41.02 s at
# BERT-large fp16; on no other system more than 2.4% longer, the Quadro RTX 8000's most.)
STEADY = {
    "LambdaCloud V100 16GB": (12.397, 27.870, 13.509, 31.748),
    "Quadro RTX 8000": (65.393, 116.046, 63.699, 127.659),
    "LambdaCloud A10": (28.761, 33.418, 32.028, 30.093),
    "RTX 3090": (27.597, 27.676, 26.415, 31.952),
    "RTX A6000": (47.815, 46.628, 46.460, 47.443),
    "LambdaCloud A100 40GB PCIe": (21.336, 21.935, 20.055, 25.600),
    "A100 80GB PCIe": (38.087, 37.995, 39.442, 44.724),
    "A100 80GB SXM4": (35.476, 35.279, 35.987, 41.700),
    "RTX 4090": (15.826, 17.045, 14.623, 17.392),
    "RTX 6000 Ada": (37.980, 35.087, 41.018, 36.194),
    "H100 80GB PCIe Gen5": (27.304, 28.486, 26.674, 31.793),
    "LambdaCloud H100 80GB PCIe Gen5": (28.258, 31.844, 27.557, 35.435),
    "H100 80GB SXM5": (18.659, 20.475, 17.696, 21.601),
    "Dell H100 80GB SXM5": (17.907, 19.364, 17.667, 21.221),
    "DellTexas H100 80GB SXM5": (18.007, 19.722, 17.683, 22.271),
    "SMC H100 80GB SXM5": (17.800, 19.081, 17.566, 20.576),
    "1CC H100 80GB SXM5": (17.761, 19.264, 17.504, 21.153),
    "RAIDZ1 H100 80GB SXM5": (17.847, 19.358, 17.626, 21.271),
}
# Two GA102 parts' fp16 priced the other way (configs/devices: the evidence for each): the RTX
# 3090 without its own fp16 and bf16 keys (Ampere's 0.7 at the power model's clock), the RTX
# A6000 with the 0.7 its one public GEMM row gives as rtx4090.ini's rows give 0.9.
WHAT_IF = {
    "rtx3090": (("compute_efficiency_fp16", "compute_efficiency_bf16"), ()),
    "rtx-a6000": ((), ("compute_efficiency_fp16 = 0.7", "compute_efficiency_bf16 = 0.7")),
}
NETWORKS = ("resnet50", "bert_base", "bert_large")
UNIT = {"resnet50": "img/s", "bert_base": "seq/s", "bert_large": "seq/s"}
LABEL = {"resnet50": "ResNet-50 img/s", "bert_base": "BERT-base seq/s",
         "bert_large": "BERT-large seq/s"}


CUDNN8 = "pytorch-eager-cudnn8"  # configs/frameworks: every NCHW convolution transposed


def plain_eager(part):
    """Whether the part's description (a shipped name or a file) keeps configs/frameworks/
    pytorch-eager.ini's [framework] (its `base`), not the h100's and h200's rebuilt one. Read
    from the base, not from a key the rebuild set (host_runs_ahead): a plain description
    queued by a key of its own is still priced by cuDNN 8's rules in these containers."""
    path = part if part.endswith(".ini") else os.path.join(ROOT, "configs", "devices",
                                                           part + ".ini")
    with open(path) as f:
        base = framework_base(f.read())
    if base:
        return base == "pytorch-eager"
    return fitted_keys(path).get("host_runs_ahead", 0) != 1


def era(part):
    """The framework options of eager PyTorch as these containers ran it on the part: cuDNN 8
    (NGC 22.09 and 22.10 on every part but the H100 SXM and the H200, whose descriptions'
    rebuilt framework, op classes priced from PyTorch 2.11's profiles, stands for every
    container) transposing every NCHW convolution at fp16 where the description's plain eager
    framework says cuDNN 9's rule."""
    return ["--framework", CUDNN8] if plain_eager(part) else []


def options(net, precision, part):
    """The options that describe what ran, beside --device, --batch and --precision."""
    if net == "resnet50":
        return era(part)  # eager PyTorch, NCHW, autocast, as its cuDNN ran it
    squad = "dle-squad" if precision in ("fp16", "bf16") else "dle-squad-fp32"
    return ["--seq", "384", "--framework", squad]


def run(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"scalemeter {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def fp32_precision(devices, part):
    """fp32 as these containers ran it: TF32 where the part has it."""
    return "tf32" if devices[part]["peak_tflops"]["tf32"] else "fp32"


def predicted(binary, device, net, batch, precision):
    """Images or sequences per second of one GPU."""
    out = json.loads(run(binary, "predict", net, "--device", device, "-g", "1", "--batch",
                         str(batch), "--precision", precision, *options(net, precision, device),
                         "--format", "json"))
    return batch / out["t_step"]


def tf32_as_convolutions(devices, part, tmp):
    """The part's description with its TF32 matrix products at its TF32 convolutions'
    fraction, as every description had it before (device_arch.c)."""
    with open(os.path.join(ROOT, "configs", "devices", part + ".ini")) as f:
        lines = f.read().split("\n")
    conv = devices[part]["conv_efficiency"]["tf32"]
    lines = [l for l in lines if not l.replace(" ", "").startswith(("compute_efficiency_tf32=",
                                                                     "conv_efficiency_tf32="))]
    at = lines.index("[device]") + 1
    lines[at:at] = [f"compute_efficiency_tf32 = {conv}", f"conv_efficiency_tf32 = {conv}"]
    path = os.path.join(tmp, part + "-tf32-as-conv.ini")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def variant(part, tmp, tag, drop=(), add=(), section="device"):
    """The part's description without the keys named in drop and with the lines in add at
    the head of [section]."""
    with open(os.path.join(ROOT, "configs", "devices", part + ".ini")) as f:
        lines = f.read().split("\n")
    lines = [l for l in lines if l.split("=")[0].strip() not in drop]
    at = lines.index(f"[{section}]") + 1
    lines[at:at] = list(add)
    path = os.path.join(tmp, f"{part}-{tag}.ini")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def pct(x):
    return f"{100 * (x - 1):+.1f}%"


def spearman(a, b):
    """Spearman's rank correlation of two lists without ties."""
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0] * len(v)
        for k, i in enumerate(order):
            r[i] = k
        return r
    ra, rb, n = ranks(a), ranks(b), len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))


def stream_needed(binary, device, batch, published, efficiency):
    """The fraction of its datasheet bandwidth the part would stream at for ResNet-50 fp16 to
    run at the published rate, if the model's bytes and everything else in its step are right:
    the layers' passes the model finds memory-bound (`predict --per-layer`: their time less
    the host's dispatch in them) hold bytes / (bandwidth x efficiency); the published step
    less the rest of the predicted step is what those bytes had."""
    step = json.loads(run(binary, "predict", "resnet50", "--device", device, "-g", "1",
                          "--batch", str(batch), "--precision", "fp16", *era(device),
                          "--format", "json"))["t_step"]
    memory = 0.0
    lines = run(binary, "predict", "resnet50", "--device", device, "-g", "1", "--batch",
                str(batch), "--precision", "fp16", *era(device), "--per-layer", "--format",
                "csv")
    for r in csv.DictReader(lines.splitlines()):
        for ph in ("fwd", "bwd"):
            if r["bound_" + ph] == "memory":
                memory += float(r["t_" + ph]) - float(r["host_" + ph])
    return memory * efficiency / (batch / published - (step - memory))


KERNELS = "pytorch-eager-kernels"  # configs/frameworks: batch norm and transposes as measured


def framework_key(name, key):
    """A number of configs/frameworks/NAME.ini's [framework]."""
    ini = configparser.ConfigParser(inline_comment_prefixes=(";",))
    ini.read(os.path.join(ROOT, "configs", "frameworks", name + ".ini"))
    return float(ini["framework"][key])
SETS = (("h100-pytorch-bf16", "h100", "bf16"), ("h100-pytorch-tf32", "h100", "tf32"),
        ("h100-pytorch-fp32", "h100", "fp32"), ("h200-pytorch-bf16-rounds", "h200", "bf16"))


def step_time(binary, device, net, batch, precision, image=None, framework=None, form="added"):
    """predict's t_step of one device with the host's dispatch added to each layer's device
    time or queued (`--dispatch queued`: the host issuing each layer's kernels in order, the
    GPU running them once issued and once free), or None where it refuses the point."""
    args = [binary, "predict", net, "--device", device, "-g", "1", "--batch", str(batch),
            "--precision", precision, "--dispatch", form, "--format", "json"]
    args += ["--image", str(image)] if image else []
    args += ["--framework", framework] if framework else []
    r = subprocess.run(args, capture_output=True, text=True)
    return json.loads(r.stdout)["t_step"] if r.returncode == 0 else None


def set_errors(binary, name, device, precision, framework, form):
    """Step MAPE and median ratio over a shipped set's configurations (median of its rows)."""
    runs = {}
    with open(os.path.join(ROOT, "configs", "calibrations", name + ".csv"), newline="") as f:
        for r in csv.DictReader(f):
            runs.setdefault((r["model"], int(r["image"]), int(r["batch"])), []).append(
                float(r["t_step"]))
    ratios = []
    for (net, image, batch), steps in sorted(runs.items()):
        t = step_time(binary, device, net, batch, precision, image, framework, form)
        if t:
            ratios.append(t / statistics.median(steps))
    return statistics.mean(abs(x - 1) for x in ratios), statistics.median(ratios), len(ratios)


def with_framework(part, framework, queued, path):
    """The part's description with configs/frameworks/FRAMEWORK.ini's [framework] in place of
    its own, the host running ahead where queued: a base for fit --device-out, which takes no
    --framework."""
    with open(os.path.join(ROOT, "configs", "devices", part + ".ini")) as f:
        text = f.read()
    with open(os.path.join(ROOT, "configs", "frameworks", framework + ".ini")) as f:
        fw = f.read()
    fw = fw[re.search(r"^\[framework\]", fw, re.M).start():].rstrip("\n") + "\n"
    fw += "host_runs_ahead = 1\n" if queued else ""
    start = re.search(r"^\[framework\]", text, re.M).start()
    end = re.search(r"^\[node\]", text, re.M).start()
    with open(path, "w") as f:
        f.write(text[:start] + fw + "\n" + text[end:])
    return path


def framework_base(text):
    """The framework a description's [framework] starts from (`base = NAME`), or None."""
    base = re.search(r"(?m)^base\s*=\s*([\w-]+)\s*$", text)
    return base.group(1) if base else None


def fitted_keys(path):
    """The keys fit --device-out wrote: {key: value}; in a description whose [framework] starts
    from a base, the base's first (the description's own replace them)."""
    keys = {}
    with open(path) as f:
        text = f.read()
    base = framework_base(text)
    if base:
        keys.update(fitted_keys(os.path.join(ROOT, "configs", "frameworks", base + ".ini")))
    for line in text.splitlines():
        m = re.match(r"^(\w+)\s*=\s*([-+.\deE]+)\s*$", line)
        if m:
            keys[m.group(1)] = float(m.group(2))
    return keys


def transplant(fitted, target, path):
    """target's description with fitted's efficiency and dispatch keys: the H100's fit carried
    to the H200 (the same SMs and clock, 1.43 times the bandwidth)."""
    with open(target) as f:
        text = f.read()
    for key, value in fitted_keys(fitted).items():
        if not key.startswith(("compute_efficiency_", "conv_efficiency_", "memory_efficiency",
                               "dispatch_")):
            continue
        text = re.sub(rf"^{key}\s*=.*\n", "", text, flags=re.M)
        section = "[framework]" if key.startswith("dispatch_") else "[device]"
        text = text.replace(f"\n{section}\n", f"\n{section}\n{key} = {value:.6g}\n", 1)
    with open(path, "w") as f:
        f.write(text)
    return path


def validate_step(binary, runs, device):
    """validate's step MAPE and median ratio of a description on a set's rows."""
    out = json.loads(run(binary, "validate", runs, "--device", device, "--format", "json"))
    step = out["phases"]["step"]["overall"]
    return step["mape"], step["median_ratio"]


def section_queue(binary):
    """fit --device-out in both forms from the same base, on each H100 set, and the bf16 fit
    carried to the H200's unprofiled rounds."""
    md = ["## The queue in the model", ""]
    md += ["""A framework of `host_runs_ahead = 1` (or `--dispatch queued`) queues each pass:
        the host issues the layers' kernels in order, a layer's kernels start once issued and
        once the GPU is done with those before (docs/scaling.md has the equation), and `fit
        --device-out` from such a base fits its keys in that form, each row linear at the
        layer where the queue binds. Fitted from the h100 description with `pytorch-eager-kernels`
        (the two prices above), added and queued, on each H100 set: the keys it finds, the
        step MAPE (median ratio) of the written description on the same rows, and the bf16
        fit's keys carried to the h200 description (`h200` with `pytorch-eager-kernels`) on
        the H200's unprofiled rounds, which no fit saw:""", ""]
    md += ["| set | form | dispatch infer/fwd/bwd us | compute (conv) efficiency | "
           "memory efficiency | step, in the fit | h200-pytorch-bf16-rounds |",
           "|---|---|---|---|---:|---:|---:|"]
    asked = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, device, precision in SETS[:3]:
            runs = os.path.join(ROOT, "configs", "calibrations", name + ".csv")
            for form in ("added", "queued"):
                base = with_framework(device, KERNELS, form == "queued",
                                      os.path.join(tmp, f"base-{form}.ini"))
                out = os.path.join(tmp, f"{name}-{form}.ini")
                run(binary, "fit", runs, "-o", os.path.join(tmp, "coeffs.ini"), "--device-out",
                    out, "--device-base", base)
                k = fitted_keys(out)
                e, r = validate_step(binary, runs, out)
                h200 = ""
                if precision == "bf16":
                    target = with_framework("h200", KERNELS, form == "queued",
                                            os.path.join(tmp, f"h200-{form}.ini"))
                    carried = transplant(out, target, os.path.join(tmp, f"h200-fit-{form}.ini"))
                    he, hr = validate_step(binary, os.path.join(
                        ROOT, "configs", "calibrations", "h200-pytorch-bf16-rounds.csv"), carried)
                    h200 = f"{he:.3f} ({hr:.2f})"
                if form == "queued":
                    asked.append(k["memory_efficiency"])
                md.append(f"| {name} | {form} | {k['dispatch_infer_us']:.1f}/"
                          f"{k['dispatch_fwd_us']:.1f}/{k['dispatch_bwd_us']:.1f} | "
                          f"{k['compute_efficiency_' + precision]:.3f} "
                          f"({k['conv_efficiency_' + precision]:.3f}) | "
                          f"{k['memory_efficiency']:.2f} | {e:.3f} ({r:.2f}) | {h200} |")
    md += ["", f"""Queued, the fits predict their own rows about as well as added, and the bf16
        fit carried to the H200 better, but only at a memory efficiency of
        {min(asked):.2f}-{max(asked):.2f}, below what any streaming kernel reaches (the H200's
        ReLUs streamed at 0.91 of its bandwidth, ops-h200.md): where the host no longer pads
        the device-bound passes, the layers the model prices at the DRAM's rate and that run
        far below it (layer norms, cuDNN's depthwise kernels, and with TF32 off cuDNN's
        grouped ones, which the fp32 set's ResNeXt-50 and RegNet hold and the TF32 keys price
        at 0.16 of what an H200 measured; ops-h200.md, "All points together" and "Direct
        convolutions") take the memory efficiency down with them, and the transformers,
        whose element-wise kernels do stream, would be priced at that rate too. Pricing the
        grouped and depthwise convolutions by the SMs (pytorch-eager-kernels' `grouped_*` and
        `depthwise_*`) took the queued fits from 0.128, 0.146 and 0.133 to 0.109, 0.134 and
        0.131 and their memory efficiency from 0.44, 0.49 and 0.32 to 0.52, 0.53 and 0.33;
        the poolings (`pooling_*`, plugin ABI 15's SM_TRAIT_POOLING, at 0.92 to 1.02 of their
        measured kernel time on the H200 where the DRAM's rate gave 0.15 to 0.44) to 0.108,
        0.130 and 0.131 at 0.53, 0.55 and 0.33, and the bf16 convolutions' efficiency from
        0.26 to 0.30 of the peak; the device's own time a kernel launched beyond its price
        (`kernel_device_us`, the start and drain of its grid, ops-h200.md "What the framework
        keys take") to what the table shows. Added, the dispatch takes the same time less
        and nothing else moves: the sum cannot tell the two apart. Not yet a streaming
        kernel's efficiency. The h100 and h200 descriptions now take the queued form with
        these prices and their convolutions priced by kind and pass from the H100's profiles
        (docs/devices.md, "Eager PyTorch on Hopper"), at their own memory efficiency (0.7)
        and dispatch; other parts keep the added form until their kernels are profiled."""]
    return [" ".join(x.split()) if x.startswith(("A framework", "Queued")) else x for x in md]


def section_kernels(binary, devices, ratios):
    """ResNet-50 across the parts and the shipped GPU sets with batch norm and cuDNN's
    transposes priced as an H200 measured them (--framework pytorch-eager-kernels)."""
    md = ["## Two prices measured on an H200", ""]
    md += ["""`--framework pytorch-eager-kernels` is the descriptions' eager PyTorch with two
        prices the H200's per-op profiles measured ([ops-h200.md](ops-h200.md), "What the
        framework keys take from these profiles"): batch norms bound by the SMs (bytes per SM
        per clock of cuDNN's kernels, and of PyTorch's own at bf16, at the part's sustained
        clock, where that is below its DRAM's rate; in training on min(C, SMs) SMs, one to a
        channel; at inference on every SM; cuDNN's kernels at fp16 an element a clock as at
        fp32), and cuDNN 9's NHWC transposes at fp16 as an H100's profiles timed them, around
        every convolution but the dense 1 x 1 ones of stride 1 over 14 x 14 positions or more,
        at 1.87 elements per SM and clock or the DRAM's rate where that is lower
        ([ops-h100-h200.md](ops-h100-h200.md); Lambda's containers ran cuDNN 8.6, which the
        timm runs of PyTorch 1.12 suggest transposed every one, [accuracy-timm.md](accuracy-timm.md)).
        ResNet-50 in Lambda's runs, predicted over published, the
        medians per part, shipped and with those prices, the model's form (the host's dispatch
        added to each layer's device time) and queued (the host issuing the kernels while the
        GPU runs earlier ones, below):"""]
    md += ["", "| part | GB/s per SM | fp16 shipped | fp16 kernels | fp16 kernels, queued | "
           "fp32 shipped | fp32 kernels | fp32 kernels, queued |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    within = {v: {"fp16": 0, "fp32": 0} for v in ("shipped", "kernels", "queued")}
    per_sm, fp16_medians = [], {"shipped": [], "kernels": [], "queued": []}
    for part in dict.fromkeys(p for _, p, _, _ in SYSTEMS):
        cells = []
        for family in ("fp16", "fp32"):
            precision = "fp16" if family == "fp16" else fp32_precision(devices, part)
            mine = [r for s, p, r in ratios[(family, "resnet50")] if p == part]
            new, queued = [], []
            for system, p, _, figures in SYSTEMS:
                if p != part:
                    continue
                b16, p16, b32, p32 = figures["resnet50"]
                batch, published = (b16, p16) if family == "fp16" else (b32, p32)
                out = json.loads(run(binary, "predict", "resnet50", "--device", part, "-g", "1",
                                     "--batch", str(batch), "--precision", precision,
                                     "--framework", KERNELS, "--format", "json"))
                new.append(batch / out["t_step"] / published)
                t = step_time(binary, part, "resnet50", batch, precision, framework=KERNELS,
                              form="queued")
                queued.append(batch / t / published)
            for v, rs in (("shipped", mine), ("kernels", new), ("queued", queued)):
                within[v][family] += sum(abs(r - 1) <= 0.1 for r in rs)
                if family == "fp16":
                    fp16_medians[v].append(statistics.median(rs))
            cells += [f"{statistics.median(x):.2f}" for x in (mine, new, queued)]
        d = devices[part]
        per_sm.append(d["memory_bandwidth_gb_s"] / d["sm_count"])
        md.append(f"| `{part}` | {d['memory_bandwidth_gb_s'] / d['sm_count']:.1f} | " +
                  " | ".join(cells) + " |")
    n = len(SYSTEMS)
    md += ["", f"""Within 10% of the published figure: fp16 {within['shipped']['fp16']} of {n}
        shipped, {within['kernels']['fp16']} with those prices, {within['queued']['fp16']}
        with them queued; fp32 (TF32) {within['shipped']['fp32']},
        {within['kernels']['fp32']} and {within['queued']['fp32']}. The fp16 medians'
        Spearman's rho with the bandwidth per SM: {spearman(per_sm, fp16_medians['shipped']):.2f}
        shipped, {spearman(per_sm, fp16_medians['kernels']):.2f} with those prices; their
        range {min(fp16_medians['shipped']):.2f}-{max(fp16_medians['shipped']):.2f},
        {min(fp16_medians['kernels']):.2f}-{max(fp16_medians['kernels']):.2f} and queued
        {min(fp16_medians['queued']):.2f}-{max(fp16_medians['queued']):.2f}."""]
    md += ["", """The same prices on the shipped GPU sets (`configs/calibrations/`, each
        configuration's median step): step MAPE (median ratio) with the model's form, the
        host's dispatch added to each layer's device time, and with the host queueing the
        kernels while the GPU runs earlier ones (a layer's kernels start once issued and once
        the GPU is free):""", ""]
    md += ["| set | shipped, added | kernels, added | shipped, queued | kernels, queued |",
           "|---|---:|---:|---:|---:|"]
    errors = {}
    for name, device, precision in SETS:
        cells = []
        for framework, form in ((None, "added"), (KERNELS, "added"), (None, "queued"),
                                (KERNELS, "queued")):
            e, r, count = set_errors(binary, name, device, precision, framework, form)
            errors[name, framework, form] = e
            cells.append(f"{e:.3f} ({r:.2f})")
        md.append(f"| {name} ({count}) | " + " | ".join(cells) + " |")
    parts = list(dict.fromkeys(p for _, p, _, _ in SYSTEMS))
    low = [f"`{p}` {m:.2f}" for p, m in zip(parts, fp16_medians["queued"]) if m < 0.9]
    bn = json.loads(run(binary, "devices", "--format", "json"))["devices"]
    a100 = next(d for d in bn if d["device"] == "a100")
    key = framework_key(KERNELS, "batchnorm_train_bytes_per_sm_clock")
    stream = key * a100["sm_count"] * a100["light_clock_mhz"] * 1e6
    better, worse = [], []
    for name, _, _ in SETS:
        q, shipped = errors[name, KERNELS, "queued"], errors[name, None, "added"]
        (better if q < shipped else worse).append(f"{name} ({q:.3f} against {shipped:.3f})")
    md += ["", f"""Priced layer by layer and queued, ResNet-50's fp16 medians span
        {min(fp16_medians['queued']):.2f}-{max(fp16_medians['queued']):.2f} (shipped
        {min(fp16_medians['shipped']):.2f}-{max(fp16_medians['shipped']):.2f}), Spearman's rho
        with the bandwidth per SM {spearman(per_sm, fp16_medians['queued']):.2f} (shipped
        {spearman(per_sm, fp16_medians['shipped']):.2f}); below 0.9: {', '.join(low) or 'none'}. A batch norm's
        training kernels take one SM to a channel: the H200's ran in proportion to C up to its
        132 SMs (ops-h200.md), an A100's and a V100's did the same for 4 to 64 channels in a
        public benchmark (xwang233/code-snippet, batchnorm3d-channels-last: cuDNN 8.2, fp16
        NCDHW, 14 to 184 GB/s on an A100 as the channels double), and the A100's 64-channel
        rate, 1.0 element per channel and clock, is the H200's at fp32: the key counts bytes,
        so at fp16 cuDNN's takes half of them a clock. On the measured sets the prices, queued, beat
        the model's own form on {', '.join(better) or 'none'} and not on
        {', '.join(worse) or 'none'}: the descriptions' dispatch (21/36/43 us a kernel) was
        fitted added, on the H100's sets, beside batch norms priced at the DRAM's rate, and
        counts the GPU's busy time and the host's twice; fitted queued, below. At TF32 the A100s stay slow: the TF32 convolutions' fraction for Ampere
        (0.3) was derived from NVIDIA's ResNet-50 figures beside batch norms at the DRAM's
        rate, and a batch norm of {a100['sm_count']} channels or more carried to the A100
        ({a100['sm_count']} SMs at {a100['light_clock_mhz']:.0f} MHz) streams at
        {stream / 1e12:.2f} TB/s, {stream / (a100['memory_bandwidth_gb_s'] * 1e9):.2f} of its
        bandwidth, where no A100 measured it at fp32."""]
    return [" ".join(x.split()) if x.startswith(("`", "The", "Priced", "Within")) else x
            for x in md]



# Lambda's second round (pytorch/results_v2/ at LAMBDA): the same code in NGC 24.03 (PyTorch
# 2.3.0a0+40ec155e58.nv24.03 in every sys_pytorch.txt taken here) on an H200 and an H100.
# Per part: (label, {net: (batch fp16, rate fp16, batch fp32, rate fp32)}), the rate the median
# over the part's systems of each system's first log: ResNet-50's train.compute_ips, BERT's
# steady rate (batch x steps over the seconds between the first and the last "Training
# Iteration" line, 100 steps). h100: the 28 LambdaOD 1x H100 SXM5 instances on nv24.03
# (LambdaOD_1x_*, LambdaOD_Texas_1x*, LambdaOD_{2,4,8}x_Texas_1x*: one GPU of each; spread
# 0.3-4% per figure); h200: one bare-metal node (ENG04), LambdaBM_ENG04_1xH200 with and
# without hyper-threading (within 0.3%); h100-pcie: LambdaOD_1x_Texas_1xH100_80GB_PCIe.
V2 = {
    "h100": ("H100 SXM5, 28 instances",
             {"resnet50": (1280, 2791.4, 640, 1895.1), "bert_base": (320, 864.0, 172, 443.9),
              "bert_large": (112, 318.9, 64, 149.7)}),
    "h200": ("H200 SXM, one node twice",
             {"resnet50": (2560, 3079.8, 1280, 2260.2), "bert_base": (592, 952.2, 296, 526.0),
              "bert_large": (192, 360.1, 96, 184.7)}),
    "h100-pcie": ("H100 PCIe, 1 instance",
                  {"resnet50": (1280, 1980.0, 640, 1251.5), "bert_base": (320, 602.9, 172, 308.1),
                   "bert_large": (112, 209.9, 64, 103.6)}),
}


def v2_figure(part, net, family):
    """(batch, published rate) of V2's part, network and family (fp16 or fp32)."""
    b16, r16, b32, r32 = V2[part][1][net]
    return (b16, r16) if family == "fp16" else (b32, r32)


def bandwidth_share(ratio, bandwidths):
    """The share f of a step on the slower part that would follow the memory bandwidth, the
    rest taking as long on both, for the faster part to run it ratio times faster:
    1 / ratio = (1 - f) + f / bandwidths."""
    return (1 - 1 / ratio) / (1 - 1 / bandwidths)


def section_h200(binary, devices):
    """The H200 beside the H100 in one container: what follows the memory bandwidth."""
    rows, ratios, pred = [], [], {}
    for part, (label, _) in V2.items():
        cells = []
        for family in ("fp16", "fp32"):
            precision = "fp16" if family == "fp16" else fp32_precision(devices, part)
            for net in NETWORKS:
                batch, rate = v2_figure(part, net, family)
                p = pred[(part, family, net)] = predicted(binary, part, net, batch, precision)
                validation_rows.record(f"Lambda v2: {label}, NGC 24.03", part, net, precision,
                                       1, batch, rate, p, UNIT[net])
                cells.append(f"{batch}: {rate:,.0f} / {p:,.0f} ({pct(p / rate)})")
        rows.append(f"| `{part}` | {label} | " + " | ".join(cells) + " |")
    bw = devices["h200"]["memory_bandwidth_gb_s"] / devices["h100"]["memory_bandwidth_gb_s"]
    share_rows = []
    for family in ("fp16", "fp32"):
        for net in NETWORKS:
            measured = v2_figure("h200", net, family)[1] / v2_figure("h100", net, family)[1]
            model = pred[("h200", family, net)] / pred[("h100", family, net)]
            ratios.append((measured, model))
            share_rows.append(f"| {LABEL[net].split()[0]} | {family} | {measured:.3f} | "
                              f"{model:.3f} | {bandwidth_share(measured, bw):.2f} | "
                              f"{bandwidth_share(model, bw):.2f} |")
    kern_rows, kern = [], {}
    for family in ("fp16", "fp32"):
        cells = []
        for part in V2:
            precision = "fp16" if family == "fp16" else fp32_precision(devices, part)
            batch, rate = v2_figure(part, "resnet50", family)
            t = step_time(binary, part, "resnet50", batch, precision, framework=KERNELS,
                          form="queued")
            kern[(part, family)] = batch / t
            cells.append(f"{batch / t:,.0f} ({pct(batch / t / rate)})")
        ratio = kern[("h200", family)] / kern[("h100", family)]
        measured = (v2_figure("h200", "resnet50", family)[1] /
                    v2_figure("h100", "resnet50", family)[1])
        kern_rows.append(f"| {family} | " + " | ".join(cells) +
                         f" | {ratio:.3f} ({measured:.3f}) |")
    meas = [m for m, _ in ratios]
    mod = [p for _, p in ratios]
    h200_err, h100_err = ([pred[(part, f, n)] / v2_figure(part, n, f)[1]
                           for f in ("fp16", "fp32") for n in NETWORKS]
                          for part in ("h200", "h100"))
    md = ["## The H200 beside the H100, one container", ""]
    md += [f"""Lambda's second round (pytorch/results_v2/ at {LAMBDA}) ran the same code in one
container, NGC 24.03, on H100 SXM5 instances and on an H200 node, the H200 at larger batches
(its 141 GB). Per part and network, batch: published (ResNet-50's figure; BERT's steady rate
between the logs' first and last iteration lines) / predicted (difference), by `scalemeter
predict` as above:""", ""]
    md += ["| part | systems | " + " | ".join(f"{LABEL[n]} {f}" for f in ("fp16", "fp32")
                                         for n in NETWORKS) + " |",
           "|---|---|" + "---|" * 6]
    md += rows
    md += ["", f"""The two parts are one chip (132 SMs, 1,980 MHz, 700 W) with {bw:.2f} times the
memory bandwidth on the H200, so what one runs faster than the other says how much of the H100's
step follows the memory: a share f of it at the bandwidths' ratio, the rest alike, gives 1 / ratio
= (1 - f) + f / {bw:.2f}. The H200's rate over the H100's, measured and predicted, and the share f
each implies:""", ""]
    md += ["| network | precision | measured | predicted | f measured | f predicted |",
           "|---|---|---:|---:|---:|---:|"]
    md += share_rows
    md += ["", f"""The H200 ran these {min(meas):.2f} to {max(meas):.2f} times as fast as the H100;
the model says {min(mod):.2f} to {max(mod):.2f}. So on the H100 the model puts
{min(bandwidth_share(p, bw) for p in mod):.2f} to {max(bandwidth_share(p, bw) for p in mod):.2f}
of these steps on the memory, and the measured pairs {min(bandwidth_share(m, bw) for m in meas):.2f}
to {max(bandwidth_share(m, bw) for m in meas):.2f}, the fp16 runs least: it predicts the H100
within {max(abs(x - 1) for x in h100_err):.0%} of these figures and the H200
{min(h200_err) - 1:+.0%} to {max(h200_err) - 1:+.0%}. MLPerf's H200 and H100 under NVIDIA's
fused MXNet code say the same ([accuracy.md](accuracy.md): 33% of the H100's step on the
memory, 57% predicted). Either the kernels the model prices at the DRAM's rate are bound by
something the H200 does not have more of (its SMs and clock, as the batch norms, poolings and
depthwise convolutions an H200 profiled are, [ops-h200.md](ops-h200.md)), while the matrix
products and convolutions take more of the step than their prices give; or the H200's SMs run
slower under the same 700 W, its HBM3e taking more of it (docs/devices.md, "Not modelled
yet"). The H100's per-op profiles tell the two apart ([ops-h100-h200.md](ops-h100-h200.md),
2026-11-27): the H100's SM clock held 1,980 MHz under load, and a training step's kernels
took 1.07-1.08 times the H200's at the same shapes, only its activations and elementwise
kernels at the bandwidths' 1.43, batch norms, poolings, depthwise and grouped convolutions at
1.00-1.11. The first account, then; the H200's clock under load is still unsampled."""]
    md += ["", f"""For ResNet-50 the first account has prices already: `--framework {KERNELS}
--dispatch queued` (above: batch norms, poolings and grouped convolutions by the SMs at the
rates the H200's profiles measured, the device's own time a kernel, the host queueing kernels)
puts the same runs at (difference from the published figure; last column the H200's rate over
the H100's, measured in brackets):""", "",
           "| precision | " + " | ".join(f"`{p}`" for p in V2) + " | H200 / H100 |",
           "|---|---:|---:|---:|---:|"]
    md += kern_rows
    md += ["", """With the batch norms bound by the SMs, which the H200 does not have more of,
the H200's gain over the H100 comes out within a few hundredths of the measured one, in an
independent pair of measurements:
the prices were taken from the H200's own profiles, the ratio from Lambda's runs. What keeps
the shipped descriptions from them is in "The queue in the model" above."""]
    return md


# Later parts in later containers (pytorch/results_v2/ at LAMBDA), read as V2's: the system
# whose figures Lambda's own table publishes (pytorch/csv_v1_v2/pytorch-train-throughput-
# fp16.csv: "LambdaCloud 1x GH200 96GB", "LambdaCloud 1x B200 192GB SXM5"), ResNet-50's
# train.compute_ips of its Summary line, BERT's steady rate (batch x 100 steps over the
# seconds between the logs' "Training Iteration: 1" and "... 101" lines), the batches its
# benchmark.para files give. gh200: LambdaOD_1x_1xGH200_96GB_192-222-57-0_v2 (PyTorch
# 2.5.0a0+e000cf0ad9.nv24.10; nvidia-smi "NVIDIA GH200 480GB", 97871 MiB); b200:
# LambdaOD_test_1xB200_192GB_129-213-83-251_v2 (PyTorch 2.8.0a0+5228986c39.nv25.06, CUDA
# 12.9); `tools/multi_gpu_validation.py --logs` on a checkout prints the same figures from
# them. Per part: (label, NGC release, {net: (batch fp16, rate fp16, batch fp32, rate fp32)}).
LATER = {
    "gh200": ("GH200 96 GB, 1 instance", "24.10",
              {"resnet50": (1360, 2844.29, 720, 2063.32), "bert_base": (384, 994.2, 208, 463.9),
               "bert_large": (152, 347.5, 80, 150.7)}),
    "b200": ("B200, 1 instance", "25.06",
             {"resnet50": (3328, 3076.81, 1664, 2967.37), "bert_base": (768, 1503.7, 384, 873.6),
              "bert_large": (256, 533.4, 128, 303.9)}),
}


def section_later(binary, devices):
    """The GH200 and the B200 in later containers, beside the H100's second round."""
    rows, over_h100, h100 = [], [], {}
    for family in ("fp16", "fp32"):
        precision = "fp16" if family == "fp16" else fp32_precision(devices, "h100")
        for net in NETWORKS:
            batch, rate = v2_figure("h100", net, family)
            h100[(family, net)] = (rate, predicted(binary, "h100", net, batch, precision))
    for part, (label, ngc, figures) in LATER.items():
        cells = []
        for family in ("fp16", "fp32"):
            precision = "fp16" if family == "fp16" else fp32_precision(devices, part)
            for net in NETWORKS:
                b16, r16, b32, r32 = figures[net]
                batch, rate = (b16, r16) if family == "fp16" else (b32, r32)
                p = predicted(binary, part, net, batch, precision)
                validation_rows.record(f"Lambda v2: {label}, NGC {ngc}", part, net, precision,
                                       1, batch, rate, p, UNIT[net])
                cells.append(f"{batch}: {rate:,.0f} / {p:,.0f} ({pct(p / rate)})")
                h100_rate, h100_p = h100[(family, net)]
                over_h100.append((part, family, net, rate / h100_rate, p / h100_p))
        rows.append(f"| `{part}` | {label}, NGC {ngc} | " + " | ".join(cells) + " |")
    ratio_rows = [f"| {LABEL[net].split()[0]} | {family} | " +
                  " | ".join(f"{m:.2f} | {q:.2f}" for part, f, n, m, q in over_h100
                             if f == family and n == net) + " |"
                  for family in ("fp16", "fp32") for net in NETWORKS]
    bw = {p: devices[p]["memory_bandwidth_gb_s"] / devices["h100"]["memory_bandwidth_gb_s"]
          for p in LATER}
    peak = devices["b200"]["peak_tflops"]["fp16"] / devices["h100"]["peak_tflops"]["fp16"]
    b200 = [(m, q) for part, f, n, m, q in over_h100 if part == "b200"]
    b200_16 = [q / m for part, f, n, m, q in over_h100 if part == "b200" and f == "fp16"]
    b200_32 = [q / m for part, f, n, m, q in over_h100 if part == "b200" and f == "fp32"]
    md = ["## Later parts in later containers: the GH200 and the B200", ""]
    md += [f"""Lambda's second round also ran the same code on a GH200 (NGC 24.10) and a B200 (NGC
25.06), each at its own batches (their memory). Per part and network, batch: published
(ResNet-50's figure; BERT's steady rate) / predicted (difference), by `scalemeter predict` as
above, from the `gh200` and `b200` descriptions alone:""", ""]
    md += ["| part | system | " + " | ".join(f"{LABEL[n]} {f}" for f in ("fp16", "fp32")
                                         for n in NETWORKS) + " |",
           "|---|---|" + "---|" * 6]
    md += rows
    md += ["", """Each part's rate over the H100 SXM's of the same round (NGC 24.03, above),
measured and predicted:""", "",
           "| network | precision | " + " | ".join(f"`{p}` measured | predicted" for p in LATER)
           + " |", "|---|---|" + "---:|" * (2 * len(LATER))]
    md += ratio_rows
    md += ["", f"""The GH200 is the H100's chip with {bw['gh200']:.2f} times its memory
bandwidth (4.0 TB/s of HBM3) and a Grace host; the model gives it the H100's prices at that
bandwidth, and its figures come out as the H100's and the H200's do (BERT at TF32 above them,
ResNet-50 below: "The H200 beside the H100" says why). The B200 has {peak:.2f} times the H100's
dense fp16 peak and {bw['b200']:.2f} times its bandwidth; it ran these {min(m for m, _ in b200):.2f}
to {max(m for m, _ in b200):.2f} times as fast as the H100, where the model says
{min(q for _, q in b200):.2f} to {max(q for _, q in b200):.2f}: {min(b200_16):.2f} to
{max(b200_16):.2f} times too fast at fp16, {min(b200_32):.2f} to {max(b200_32):.2f} at TF32.
Its description takes Hopper's fractions of the peaks (0.7 of the products', cuDNN's
convolutions by kind), HBM3e's 0.7 of the bandwidth and the SMs' rates at its 1,965 MHz boost
clock, with no power model for Blackwell (docs/devices.md, "Not modelled yet"): which of the
three its 1,000 W and its two dies hold below Hopper's, these six figures, all of the step's
kinds of work scaled alike, cannot tell apart; a per-op profile on a B200 (docs/gpu.md's
checklist: `tools/torch_layer_profile.py`, `tools/torch_fp8_mm.py`) would. The containers
differ too (PyTorch 2.8 and CUDA 12.9 against 2.3 and 12.4)."""]
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy-gpus.md"))
    validation_rows.add_argument(ap)
    a = ap.parse_args()
    if not shutil.which(a.bin):
        sys.exit(f"{a.bin}: not found; build first (cmake --build build)")
    devices = {d["device"]: d for d in
               json.loads(run(a.bin, "devices", "--format", "json"))["devices"]}
    ratios = {}  # (family, net) -> [(system, part, predicted / published)]
    rate = {}  # (system, family, net) -> predicted images or sequences per second
    steady = {}  # (family, net) -> [predicted / steady rate]
    rows = {"fp16": [], "fp32": []}
    steady_rows = []
    for system, part, ngc, figures in SYSTEMS:
        for family in ("fp16", "fp32"):
            precision = "fp16" if family == "fp16" else fp32_precision(devices, part)
            cells = []
            for net in NETWORKS:
                b16, p16, b32, p32 = figures[net]
                batch, published = (b16, p16) if family == "fp16" else (b32, p32)
                p = rate[(system, family, net)] = predicted(a.bin, part, net, batch, precision)
                validation_rows.record(f"Lambda: {system}, NGC {ngc}", part, net, precision, 1,
                                       batch, published, p, UNIT[net])
                ratios.setdefault((family, net), []).append((system, part, p / published))
                cells.append(f"{batch} | {published:,} | {p:,.0f} | {pct(p / published)}")
            rows[family].append(f"| {system} | {ngc} | `{part}` | {precision} | " +
                                " | ".join(cells) + " |")
        cells = []
        for k, (net, family) in enumerate((("bert_base", "fp16"), ("bert_base", "fp32"),
                                           ("bert_large", "fp16"), ("bert_large", "fp32"))):
            b16, _, b32, _ = figures[net]
            measured = 50 * (b16 if family == "fp16" else b32) / STEADY[system][k]
            p = rate[(system, family, net)]
            steady.setdefault((family, net), []).append(p / measured)
            cells.append(f"{measured:,.0f} | {pct(p / measured)}")
        steady_rows.append(f"| {system} | `{part}` | " + " | ".join(cells) + " |")

    # the fp32 / fp16 speed of BERT, measured and predicted, with TF32 matrix products at the
    # convolutions' fraction as before: the evidence for one fraction for both
    with tempfile.TemporaryDirectory() as tmp:
        speed, ampere_before = [], []
        what_if = {}  # (part, net) -> BERT fp16 predicted / published with WHAT_IF's keys
        speed_measured = []  # published fp32 / fp16, BERT, the parts with TF32
        for system, part, ngc, figures in SYSTEMS:
            if fp32_precision(devices, part) != "tf32" or ngc == "24.03" and "Dell " not in system:
                continue
            old = tf32_as_convolutions(devices, part, tmp)
            for net in ("bert_base", "bert_large"):
                b16, p16, b32, p32 = figures[net]
                now16 = predicted(a.bin, part, net, b16, "fp16")
                if part in WHAT_IF:
                    path = variant(part, tmp, "what-if", *WHAT_IF[part])
                    what_if[(part, net)] = predicted(a.bin, path, net, b16, "fp16") / p16
                now32 = predicted(a.bin, part, net, b32, "tf32")
                before32 = predicted(a.bin, old, net, b32, "tf32")
                speed_measured.append(p32 / p16)
                speed.append(f"| {system} | {net} | {p32 / p16:.2f} | {now32 / now16:.2f} | "
                             f"{before32 / now16:.2f} | {pct(before32 / p32)} |")
                if part.startswith("a1"):
                    ampere_before.append((p32 / p16, before32 / now16, before32 / p32))

    reported = []  # published / steady, BERT
    for system, _, _, figures in SYSTEMS:
        for k, (net, family) in enumerate((("bert_base", "fp16"), ("bert_base", "fp32"),
                                           ("bert_large", "fp16"), ("bert_large", "fp32"))):
            b16, p16, b32, p32 = figures[net]
            b, pub = (b16, p16) if family == "fp16" else (b32, p32)
            reported.append(pub / (50 * b / STEADY[system][k]))
    out = []
    w = out.append
    w("# One network, many GPUs: Lambda's published runs")
    w("")
    w("Generated by `tools/gpus_validation.py` (issue 37); do not edit by hand. Lambda's GPU")
    w("benchmark trains the same NVIDIA DeepLearningExamples code on every GPU it rents or sells")
    w(f"(lambdal/deeplearning-benchmark at {LAMBDA}, pytorch/pytorch-train-throughput-fp16.csv and")
    w("-fp32.csv, batch sizes from the -bs- files; one GPU). Every part of theirs that a shipped")
    w("description describes is predicted from that description alone, by")
    w("`scalemeter predict NET --device D -g 1 --batch B --precision P`, with `--seq 384")
    w("--framework dle-squad` (`dle-squad-fp32` at fp32) for BERT. Nothing is fitted to these figures.")
    w("")
    w("What ran, from the benchmark's configs and logs and the code they run")
    w("(LambdaLabsML/DeepLearningExamples c1781a37: NVIDIA's DeepLearningExamples 40eeae75 with a")
    w("tanh GELU in BERT; the NGC PyTorch container from each BERT log's build id):")
    w("")
    w("- **ResNet-50 v1.5** (Classification/ConvNets): synthetic data, `--amp` is autocast with a")
    w("  static loss scale, activations NCHW (its `--memory-format` default: every log says nchw),")
    w("  SGD with momentum: the descriptions' own eager-PyTorch `[framework]` (cuDNN's transposes")
    w("  around each convolution at fp16). The figure is the mean of every iteration's images/s,")
    w("  cuDNN's autotuning first iteration included: 0.99 of the steady rate over the 200")
    w("  iterations of most runs, 0.97-0.98 over the 50 that the 48 GB cards ran (Quadro RTX 8000,")
    w("  RTX A6000, RTX 6000 Ada), from the logs.")
    w("- **BERT-base and BERT-large on SQuAD v1.1** (LanguageModeling/BERT's run_squad.py as")
    w("  Lambda patches it): 384 tokens a sequence, apex amp O2 at fp16 (the model cast to fp16,")
    w("  fp32 master weights, FusedAdam), BertAdam at fp32, plain LayerNorm and GELU, its own eager")
    w("  attention: `configs/frameworks/dle-squad.ini`, at fp32 `dle-squad-fp32.ini` (BertAdam's")
    w("  Python loop over the parameters, about 100 us of host time a tensor,")
    w("  tools/torch_optimizer_dispatch.py). The figure is batch x 100 over the time of")
    w("  101 steps, the first ones (cuBLAS's and apex's set-up) and a host synchronisation per")
    w(f"  step included: {min(reported):.2f} to {max(reported):.2f} of the steady rate (below), "
      "from the logs' timestamps")
    w("  of steps 51 and 101. The zoo's bert_base and bert_large are")
    w("  Hugging Face's BertModel with the pooler; the SQuAD head (a linear layer of 2 outputs)")
    w("  and the vocabulary padded to 30,528 are left out, under 0.001% of the FLOPs.")
    w("- **fp32** is TF32 on Ampere and later: cuDNN's convolutions by PyTorch's default, cuBLAS's")
    w("  matrix products by the NGC containers' `TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1` (set in")
    no_tf32 = [s_.replace("LambdaCloud ", "") for s_, p, _, _ in SYSTEMS
               if fp32_precision(devices, p) != "tf32"]
    w("  22.09's environment). The " + " and the ".join(no_tf32) +
      (" have no TF32 and run" if len(no_tf32) > 1 else " has no TF32 and runs") + " fp32.")
    w("")
    w("Columns per network: batch per GPU, published, predicted, difference.")
    w("")
    head = ("| system | NGC | part | precision | " +
            " | ".join(f"{LABEL[n]}: batch | published | predicted | diff" for n in NETWORKS) +
            " |")
    rule = "|---|---|---|---|" + "---:|---:|---:|---:|" * len(NETWORKS)
    for family, title in (("fp16", "Mixed precision (AMP, apex O2)"), ("fp32", "fp32 (TF32 "
                                                                           "from Ampere on)")):
        w(f"### {title}")
        w("")
        w(head)
        w(rule)
        for r in rows[family]:
            w(r)
        w("")
    w("Predicted over published, by part (the medians over its systems' rows):")
    w("")
    w("| part | " + " | ".join(f"{LABEL[n].split()[0]} {f}" for f in ("fp16", "fp32")
                                for n in NETWORKS) + " |")
    w("|---|" + "---:|" * (2 * len(NETWORKS)))
    parts = []
    for _, part, _, _ in SYSTEMS:
        if part not in parts:
            parts.append(part)
    for part in parts:
        cells = []
        for f in ("fp16", "fp32"):
            for n in NETWORKS:
                v = [r for s, p, r in ratios[(f, n)] if p == part]
                cells.append(f"{statistics.median(v):.2f}")
        w(f"| `{part}` | " + " | ".join(cells) + " |")
    w("")
    every = [r for v in ratios.values() for _, _, r in v]
    within = sum(abs(r - 1) <= 0.10 for r in every)
    w(f"{within} of {len(every)} figures within 10%; by network and precision, the median ratio "
      "and its range:")
    w("")
    w("| network | precision | median | lowest | highest | within 10% |")
    w("|---|---|---:|---:|---:|---:|")
    for f in ("fp16", "fp32"):
        for n in NETWORKS:
            v = [r for _, _, r in ratios[(f, n)]]
            w(f"| {n} | {f} | {statistics.median(v):.3f} | {min(v):.3f} | {max(v):.3f} | "
              f"{sum(abs(r - 1) <= 0.10 for r in v)} of {len(v)} |")
    w("")
    w("BERT against its steady rate (50 batches over the seconds between the logs' steps 51 and")
    w("101, both stamped after a synchronisation), which the model predicts; the published figure")
    w("above also holds the first steps:")
    w("")
    w("| system | part | BERT-base fp16: steady seq/s | diff | fp32 | diff | BERT-large fp16 | "
      "diff | fp32 | diff |")
    w("|---|---|" + "---:|" * 8)
    for r in steady_rows:
        w(r)
    w("")
    every = [r for v in steady.values() for r in v]
    w(f"{sum(abs(r - 1) <= 0.10 for r in every)} of {len(every)} within 10% of the steady rate "
      f"(median {pct(statistics.median(every))}); by network and precision:")
    w("")
    w("| network | precision | median | lowest | highest | within 10% |")
    w("|---|---|---:|---:|---:|---:|")
    for f in ("fp16", "fp32"):
        for n in ("bert_base", "bert_large"):
            v = steady[(f, n)]
            w(f"| {n} | {f} | {statistics.median(v):.3f} | {min(v):.3f} | {max(v):.3f} | "
              f"{sum(abs(r - 1) <= 0.10 for r in v)} of {len(v)} |")
    w("")
    w("## TF32 matrix products: one fraction of the peak with fp16's")
    w("")
    w("The TF32 peak of every part here with TF32 is half its fp16 peak, and BERT, almost all")
    w(f"matrix products, trains in fp32 (TF32) at {min(speed_measured):.2f}-"
      f"{max(speed_measured):.2f} of its fp16 speed on each of them (below): the")
    w("matrix products reach the same fraction of either peak. So do cuBLAS's large products,")
    w("0.82 of the H100's TF32 peak and 0.77 of its fp16 peak (zzc0721/torch-performance-test-data,")
    measured = [m for m, _, _ in ampere_before]
    before = [b for _, b, _ in ampere_before]
    slow = [100 * (1 - e) for _, _, e in ampere_before]
    w("database.md). Until this round the descriptions took TF32 matrix products at the fraction")
    w("measured on convolutions (0.3 on Ampere, NVIDIA's ResNet-50 TF32 figures; 0.44 on the H100,")
    w(f"its eager CNN runs), which put fp32 BERT at {min(before):.2f}-{max(before):.2f} of fp16 on "
      f"the A100s (measured {min(measured):.2f}-{max(measured):.2f})")
    w(f"and {min(slow):.0f}-{max(slow):.0f}% slow there; they now take 0.7, fp16's, and keep the "
      "convolutions' own (device_arch.c,")
    w("docs/devices.md). fp32 over fp16 speed, measured and predicted, and the fp32 rows as")
    w("predicted before (TF32 products at the convolutions' fraction):")
    w("")
    w("| system | network | measured fp32/fp16 | predicted | before | fp32 predicted before |")
    w("|---|---|---:|---:|---:|---:|")
    for r in speed:
        w(r)
    w("")
    def median_of(family, net, parts=None):
        return statistics.median(r for _, p, r in ratios[(family, net)]
                                 if parts is None or p in parts)

    b16, p16, _, _ = dict((p, f) for _, p, _, f in SYSTEMS)["rtx4090"]["resnet50"]
    nhwc = json.loads(run(a.bin, "predict", "resnet50", "--device", "rtx4090", "-g", "1",
                          "--batch", str(b16), "--precision", "fp16", "--framework",
                          "pytorch-channels-last", "--format", "json"))
    nhwc_4090 = b16 / nhwc["t_step"] / p16
    bert = [r for f in ("fp16", "fp32") for n in ("bert_base", "bert_large")
            for _, p, r in ratios[(f, n)]]
    older = [(r, s_, p) for f in ("fp16", "fp32") for s_, p, r in ratios[(f, "resnet50")]
             if devices[p]["tensor_cores"] in ("volta", "turing", "ampere")]
    rn_older = [r for r, _, _ in older]
    rn_most, rn_least = min(older), max(older)

    def mem_power(part):
        d = devices[part]
        return f"{d['memory_type'].upper()}, {d['power_limit_w']:g} W"

    def fp16_of(part, net):
        return pct(median_of("fp16", net, [part]))
    by_system = {(s_, f): r for f in ("fp16", "fp32") for s_, _, r in ratios[(f, "resnet50")]}
    w("## Where it misses, and why")
    w("")
    w(f"- **BERT.** On every part it comes out {pct(min(bert))} to "
      f"{pct(max(bert))} (median {pct(statistics.median(bert))}), as do")
    w("  NVIDIA's own BERT pretraining rows ([accuracy-lm.md](accuracy-lm.md)). A part of it is the")
    w("  figure: its 101 timed steps include the first ones and a synchronisation per step,")
    w(f"  {min(reported):.2f} to {max(reported):.2f} of the steady rate (above). What is left is "
      "the model's one matrix efficiency per")
    w("  precision (0.7 of the peak) for products 768 and 1,024 wide, and in fp32 BertAdam's")
    w("  traffic, about 128 bytes a weight where the model prices Adam's 28, behind its host time")
    w("  on the HBM parts but not on the V100 (0.9 TB/s). The score and context products of its eager attention (384 x 384 x 64 a head)")
    w("  are kernels of their own, bound by the scores they write and read, and its dropouts move")
    w("  their bytes in training: both priced since this round (device_roofline.c). Its mask's")
    w("  addition and the copies of its views (the context made contiguous, the Q, K and V")
    w("  gradients copied back from the heads' layout) run in PyTorch's non-vectorized loop at")
    w("  1.3-1.6 elements a SM and clock on an H200, a third to a half of its DRAM's rate, and")
    w("  are priced so (plugin ABI 18 and 19, [ops-bert-h200.md](ops-bert-h200.md)). Its plain")
    w("  LayerNorm, PyTorch's kernel of a block a row, is bound by the SMs too: priced by clocks")
    w("  a row and elements a clock as an H100's and an H200's ConvNeXt-T and BERT norms ran")
    w("  (`rownorm_*`, tools/rownorm_rates.py), the model cast to fp16 streaming its elements at")
    w("  their bytes (`rownorm_half_*`); at the DRAM's rate they were priced at under half the")
    w("  time they took on the H200. So are its products' bias gradients, summed over the tokens")
    w("  in PyTorch's reduce kernels of their own (plugin ABI 20, `bias_grad_*`), 4% of its")
    w("  step on the H200 and unpriced before.")
    w(f"- **RTX 4090 in mixed precision**: BERT-base "
      f"{pct(median_of('fp16', 'bert_base', ['rtx4090']))}, BERT-large "
      f"{pct(median_of('fp16', 'bert_large', ['rtx4090']))}, ResNet-50 "
      f"{pct(median_of('fp16', 'resnet50', ['rtx4090']))}. Its description")
    w("  takes 0.9 of its fp16 peak, not Ampere's 0.7: a GeForce part's tensor cores run fp32")
    w("  accumulation at half their fp16 rate, so their operand feed no longer limits them, and")
    w("  its large fp16 products reach the datasheet's 165.2 TFLOPS in full (158.9-172.4 on seven")
    w("  cards, zzc0721's database), where the H100's reach 0.78 of its peak for the model's 0.7")
    w("  (configs/devices/rtx4090.ini). ResNet-50 is the miss: most of its step is memory traffic")
    w("  in the model, and the same NCHW network predicted without cuDNN's transposes comes out")
    w(f"  {pct(nhwc_4090)} (`--framework pytorch-channels-last`): which kernels cuDNN 8.6 runs")
    w("  for NCHW fp16 on this part needs a profile (issue 38).")
    w(f"- **RTX 3090 in mixed precision**: BERT-base {fp16_of('rtx3090', 'bert_base')}, "
      f"BERT-large {fp16_of('rtx3090', 'bert_large')}. Its description takes")
    w("  0.96 of its fp16 peak, from the same database's three RTX 3090 rows as the RTX 4090's")
    w("  0.9 (75.5-75.9 of 71 TFLOPS; configs/devices/rtx3090.ini); without those keys, at")
    w("  Ampere's 0.7 and the clock the power model gives its 350 W (1388 MHz), BERT-base comes")
    w(f"  out {pct(what_if[('rtx3090', 'bert_base')])} and BERT-large "
      f"{pct(what_if[('rtx3090', 'bert_large')])}. Lambda's runs fall between the two: the")
    w("  database's products ran for half a second, the power model is anchored on GA100 (A100")
    w("  SXM), and Lambda's logs do not record the clock.")
    w(f"- **RTX A6000**: BERT-base {fp16_of('rtx-a6000', 'bert_base')}, BERT-large "
      f"{fp16_of('rtx-a6000', 'bert_large')} in mixed precision at Ampere's 0.7 and")
    w("  the power model's clock at 300 W (1284 MHz, 0.71 of its boost clock). One public GEMM")
    w("  row puts its large fp16 products at 0.78 of the peak (zzc0721's database), the H100's")
    w("  fraction, so near the boost clock; taken as the RTX 4090's rows are (0.7 unscaled), BERT")
    w(f"  would come out {pct(what_if[('rtx-a6000', 'bert_base')])} and "
      f"{pct(what_if[('rtx-a6000', 'bert_large')])}, nearer these runs, but on the RTX 3090 "
      "the same")
    w("  derivation overshoots as far as the model falls short (above), and one row of")
    w("  half-second products is not a clock held through training: the description keeps the")
    w("  model (configs/devices/rtx-a6000.ini).")
    w(f"- **RTX 6000 Ada in mixed precision**: BERT-base {fp16_of('rtx6000-ada', 'bert_base')}, "
      f"BERT-large {fp16_of('rtx6000-ada', 'bert_large')}. Ada's power")
    w("  model (docs/devices.md: through the L40S and the L4) holds this AD102 at 2143 MHz under")
    w("  its 300 W, 0.86 of its boost clock, which moves BERT little: most of its predicted step")
    w("  is memory traffic at 960 GB/s. And this card slowed as it ran: in its logs steps 51-101")
    w("  took 2.3-6.2% longer than steps 1-51 (41.02 and 38.62 s at BERT-large fp16), on no other")
    w("  system more than 2.4%, as a board settling to its power or thermal limit does (300 W for")
    w("  142 SMs, 2.1 W a SM, against the L40S's 2.5 and the RTX 4090's 3.5). So its published")
    w("  fp16 figures are the only ones above their steady rate, and the rate it settles to may be")
    w("  lower still; a clock measured under training (`sustained_clock_mhz`) would price it.")
    w(f"- **ResNet-50 on Volta, Turing and Ampere**: {pct(min(rn_older))} to "
      f"{pct(max(rn_older))}, most on the")
    w(f"  {rn_most[1]} ({mem_power(rn_most[2])}) and least on the {rn_least[1]}. Most of its step "
      "is memory")
    w("  traffic in the model (batch norms, ReLUs, additions and cuDNN's NCHW transposes at fp16),")
    w("  so the memory types' achievable fractions (0.7 of HBM, 0.68 of GDDR6, 0.77 of GDDR6X;")
    w("  the ReLUs and additions, plain element-wise kernels, at 0.83-0.88, 0.77 and 0.87)")
    w("  carry it; the same network under NVIDIA's own code on the A100 and")
    w("  V100 misses the same way ([accuracy.md](accuracy.md), DeepLearningExamples).")
    # ResNet-50 fp16 against the part's DRAM bandwidth per SM
    parts = sorted({p for _, p, _ in ratios[("fp16", "resnet50")]},
                   key=lambda p: devices[p]["memory_bandwidth_gb_s"] / devices[p]["sm_count"])
    per_sm = [devices[p]["memory_bandwidth_gb_s"] / devices[p]["sm_count"] for p in parts]
    r16 = [median_of("fp16", "resnet50", [p]) for p in parts]
    r32 = [median_of("fp32", "resnet50", [p]) for p in parts]
    need, cudnn9 = {}, {}
    for system, part, _, figures in SYSTEMS:
        b16, p16, _, _ = figures["resnet50"]
        need.setdefault(part, []).append(
            stream_needed(a.bin, part, b16, p16, devices[part]["memory_efficiency"]))
        # the description's own framework, cuDNN 9's rule for the transposes, in place of
        # cuDNN 8's every one (era): how much of the miss the transposes' count can hold
        own = json.loads(run(a.bin, "predict", "resnet50", "--device", part, "-g", "1", "--batch",
                             str(b16), "--precision", "fp16", "--format", "json"))
        cudnn9.setdefault(part, []).append(b16 / own["t_step"] / p16)
    r9 = [statistics.median(cudnn9[p]) for p in parts]
    w("- **ResNet-50 in mixed precision follows the part's bandwidth per SM.** Its median")
    w("  ratio per part ranks with the datasheet bandwidth over the SM count (Spearman's rho")
    w(f"  {spearman(per_sm, r16):.2f} over {len(parts)} parts; in fp32, whose step is more "
      f"the convolutions', {spearman(per_sm, r32):.2f}):")
    w("  the parts with the least bandwidth per SM, GDDR's, run faster than the model")
    w("  says. Had the model's bytes been right, the fraction of the datasheet bandwidth the")
    w("  part streamed them at (the memory-bound passes of `predict --per-layer` given the")
    w("  published step less the rest of the predicted one) is in the last column, against the")
    w("  model's (memory_efficiency) and what a copy kernel reaches (docs/devices.md: 0.79 HBM,")
    w("  0.77 GDDR6, 0.87 GDDR6X):")
    w("")
    w("| part | memory | GB/s per SM | ResNet-50 fp16 | fp16, cuDNN 9's transposes | fp32 | "
      "model's fraction | needed |")
    w("|---|---|---:|---:|---:|---:|---:|---:|")
    for p, x, f16, f9, f32 in zip(parts, per_sm, r16, r9, r32):
        d = devices[p]
        w(f"| `{p}` | {d['memory_type'].upper()} | {x:.1f} | {f16:.2f} | {f9:.2f} | {f32:.2f} | "
          f"{d['memory_efficiency']:.2f} | {statistics.median(need[p]):.2f} |")
    w("")
    plain = [(x, f9, p) for p, x, f9 in zip(parts, per_sm, r9) if plain_eager(p)]  # by per SM
    low, rest = [f9 for _, f9, _ in plain[:4]], [f9 for _, f9, _ in plain[4:]]
    furthest = max(plain[4:], key=lambda t: t[1])[2]
    w("  The transposes' count is not the miss alone. The column beside the shipped fp16 one")
    w("  prices them by cuDNN 9's rule (none around the dense 1 x 1 convolutions of stride 1")
    w("  over 196 positions or more, the descriptions' own framework) where these containers'")
    w("  cuDNN 8.6 is taken to transpose every one. Fewer transposes bring the four plain parts")
    w(f"  of the least bandwidth per SM ({plain[0][0]:.1f}-{plain[3][0]:.1f} GB/s) to "
      f"{min(low):.2f}-{max(low):.2f} of")
    w(f"  their published rate and put the others above it ({min(rest):.2f}-{max(rest):.2f}, "
      f"`{furthest}` the most): no")
    w("  rule for the transposes fits both, and the split by bandwidth per SM stands.")
    gddr = [statistics.median(need[p]) for p in parts if p in need and
            devices[p]["memory_type"].startswith("gddr")]
    hbm = [statistics.median(need[p]) for p in parts if p in need and
           devices[p]["memory_type"].startswith("hbm")]
    w(f"  The GDDR parts would need {min(gddr):.2f} to {max(gddr):.2f} of their bandwidth, at or")
    w("  above what copy kernels reach, so on them the model counts more bytes than moved;")
    w(f"  the HBM parts {min(hbm):.2f} to {max(hbm):.2f}, mostly the lower the more "
      "bandwidth per SM,")
    w("  at or below it, so on them something other than DRAM holds the step back. Both fit one")
    w("  account, which the H200's per-op profiles support ([ops-h200.md](ops-h200.md)): cuDNN")
    w("  transposes fewer convolutions than the model prices (an estimated 27% of their price")
    w("  ran), and the batch norms, poolings and depthwise convolutions run far below DRAM")
    w("  speed, bound by something else, the SMs' work per byte or their parallelism; a memory")
    w("  efficiency fitted on an H100 (0.7) trades the one against the other, which holds where")
    w("  bandwidth per SM is the H100's and not where it is a third of it. Which classes follow")
    w("  the SMs and which the DRAM, the same per-op profiles on an H100 (the H200's SMs and")
    w("  clock, 0.7 of its bandwidth) will say: issue 38, docs/gpu.md's checklist.")
    w(f"- **H100 SXM in 2022-23 (NGC 22.10)**: ResNet-50 fp32 "
      f"{pct(by_system[('H100 80GB SXM5', 'fp32')])}; the 2024 rows of the same part (NGC 24.03,")
    w(f"  a newer cuDNN) ran faster and come out {pct(by_system[('Dell H100 80GB SXM5', 'fp32')])}: "
      "software, not the part.")
    pub = {s_: f["resnet50"] for s_, _, _, f in SYSTEMS}
    sxm, card = "H100 80GB SXM5", "H100 80GB PCIe Gen5"
    over = {f: (pub[card][k] / pub[sxm][k], by_system[(card, f)] / by_system[(sxm, f)])
            for f, k in (("fp16", 1), ("fp32", 3))}
    w(f"- **H100 PCIe**: ResNet-50 fp16 {pct(by_system[(card, 'fp16')])} and "
      f"{pct(by_system[('LambdaCloud ' + card, 'fp16')])}, TF32 "
      f"{pct(by_system[(card, 'fp32')])} and {pct(by_system[('LambdaCloud ' + card, 'fp32')])},")
    w("  priced as the SXM part is (the same chip: `[framework] base = pytorch-eager-hopper`,")
    w("  its matrix products and convolutions at the card's 114 SMs and the 1,390 MHz its 350 W")
    w("  holds under dense work, the kernels it prices per SM and clock at its 1,755 MHz boost")
    w("  clock, docs/devices.md); with the plain eager framework, one")
    w("  fraction of the peak for every convolution, TF32 came out +18.8% and +20.3% (the card")
    w("  at 0.78 of the SXM part). PCIe over SXM in one container (NGC 22.10): fp16 "
      f"{over['fp16'][0]:.3f} measured,")
    w(f"  {over['fp16'][0] * over['fp16'][1]:.3f} predicted; TF32 {over['fp32'][0]:.3f} and "
      f"{over['fp32'][0] * over['fp32'][1]:.3f}. A board under its power limit runs the kernels")
    w("  that draw little power (batch norms, transposes, poolings: most of the fp16 step) at its")
    w("  boost clock, above the one it holds under dense work; with that one clock for all, as")
    w("  before, fp16 came out -11.4% and -10.7%, PCIe over SXM 0.653 predicted.")
    w("")
    for line in (section_kernels(a.bin, devices, ratios) + [""] + section_queue(a.bin) + [""] +
                 section_h200(a.bin, devices) + [""] + section_later(a.bin, devices)):
        out.extend(textwrap.wrap(line, 96, break_on_hyphens=False) if not line.startswith("|")
                   else [line])
        if not line:
            out.append("")
    with open(a.out, "w") as f:
        f.write("\n".join(out))
    validation_rows.write(a.rows)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
