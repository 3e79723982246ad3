#!/usr/bin/env python3
"""Two to eight GPUs of one node: Lambda's published multi-GPU training against the
calibration-free model. Writes docs/accuracy-multi-gpu.md.

    tools/multi_gpu_validation.py [--bin build/bin/scalemeter] [--out docs/accuracy-multi-gpu.md]
    tools/multi_gpu_validation.py --logs PATH   # print FIGURES from a checkout of Lambda's repo

Lambda's GPU benchmark (lambdal/deeplearning-benchmark at LAMBDA, pytorch/results/) ran the
same NVIDIA DeepLearningExamples code as tools/gpus_validation.py on one GPU and on 2, 4 and 8
GPUs of one system, at the same batch per GPU: ResNet-50 under PyTorch DDP (25 MiB buckets of
fp32 gradients, autocast at fp16), BERT-base and BERT-large SQuAD under apex's DDP (buckets of
10^7 gradients, fp16 under amp O2, fp32 otherwise), both overlapping the all-reduce with the
backward pass. What the figures are, per network (FIGURES, from the logs by --logs):
- ResNet-50: train.compute_ips of the run's Summary line, as in Lambda's CSVs.
- BERT: the steady rate, steps x batch x GPUs over the seconds between the first and the last
  "Training Iteration" line of dllogger (each stamped after a loss.item()). Lambda's own
  figure divides 100 steps by the run's time, and at 4 and 8 GPUs BERT-base's two epochs of
  SQuAD hold fewer steps than that (35 an epoch at batch 320 on 8 GPUs), so it would overstate
  them by up to 1.43 times.
Each multi-GPU system is paired with the one-GPU system of the same name. Predicted by
`scalemeter predict NET --device PART -g G --batch B --precision P --overlap --bucket-mib M`
and without --overlap, the options tools/gpus_validation.py gives each network. Nothing here is
fitted to these figures. Standard library only.
"""
import argparse
import collections
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap

from gpus_validation import LAMBDA, ROOT, fp32_precision, options, run, variant

NETWORKS = ("resnet50", "bert_base", "bert_large")
# One multi-GPU row: what ran, the measured scaling efficiency, the all-reduce's bytes, the
# seconds a step gained over one GPU's, and the model's one-GPU rate and overlapped efficiency.
Row = collections.namedtuple("Row", "net family gpus batch precision part eff grad_bytes "
                                    "penalty one_rate overlapped")
NAME = {"resnet50": "ResNet-50", "bert_base": "BERT-base", "bert_large": "BERT-large"}
PARAMS = {}  # net -> weights, from `scalemeter predict --format json`'s memory

# (results folder, system, part, GPUs, the one-GPU folder it pairs with). The links between
# the GPUs are the part's description's (NVLink for the SXM parts, PCIe for the others).
MULTI = [
    ("LambdaCloud_2xV100_16GB_v1", "LambdaCloud 2x V100 16GB", "v100", 2,
     "LambdaCloud_V100_16GB_v1"),
    ("LambdaCloud_4xV100_16GB_v1", "LambdaCloud 4x V100 16GB", "v100", 4,
     "LambdaCloud_V100_16GB_v1"),
    ("LambdaCloud_8xV100_16GB_v1", "LambdaCloud 8x V100 16GB", "v100", 8,
     "LambdaCloud_V100_16GB_v1"),
    ("2xA6000_v1", "2x RTX A6000", "rtx-a6000", 2, "A6000_v1"),
    ("2x3090_v1", "2x RTX 3090", "rtx3090", 2, "3090_v1"),
    ("2x4090_v1", "2x RTX 4090", "rtx4090", 2, "4090_v1"),
    ("2xAdaA6000_v1", "2x RTX 6000 Ada", "rtx6000-ada", 2, "AdaA6000_v1"),
    ("4xAdaA6000_v1", "4x RTX 6000 Ada", "rtx6000-ada", 4, "AdaA6000_v1"),
    ("8xAdaA6000_v1", "8x RTX 6000 Ada", "rtx6000-ada", 8, "AdaA6000_v1"),
    ("2xA100_80GB_PCIe_v1", "2x A100 80GB PCIe", "a100-pcie-80gb", 2, "A100_80GB_PCIe_v1"),
    ("2xA100_80GB_SXM4_v1", "2x A100 80GB SXM4", "a100", 2, "A100_80GB_SXM4_v1"),
    ("4xA100_80GB_SXM4_v1", "4x A100 80GB SXM4", "a100", 4, "A100_80GB_SXM4_v1"),
    ("8xA100_80GB_SXM4_v1", "8x A100 80GB SXM4", "a100", 8, "A100_80GB_SXM4_v1"),
    ("2xH100_80GB_PCIe5_v1", "2x H100 80GB PCIe Gen5", "h100-pcie", 2, "H100_80GB_PCIe5_v1"),
    ("4xH100_80GB_PCIe5_v1", "4x H100 80GB PCIe Gen5", "h100-pcie", 4, "H100_80GB_PCIe5_v1"),
    ("8xH100_80GB_PCIe5_v1", "8x H100 80GB PCIe Gen5", "h100-pcie", 8, "H100_80GB_PCIe5_v1"),
    ("2xH100_80GB_SXM5_v1", "2x H100 80GB SXM5", "h100", 2, "H100_80GB_SXM5_v1"),
    ("4xH100_80GB_SXM5_v1", "4x H100 80GB SXM5", "h100", 4, "H100_80GB_SXM5_v1"),
    ("8xH100_80GB_SXM5_v1", "8x H100 80GB SXM5", "h100", 8, "H100_80GB_SXM5_v1"),
    ("Dell_2xH100_80GB_SXM5_v1", "Dell 2x H100 80GB SXM5", "h100", 2, "Dell_H100_80GB_SXM5_v1"),
    ("Dell_4xH100_80GB_SXM5_v1", "Dell 4x H100 80GB SXM5", "h100", 4, "Dell_H100_80GB_SXM5_v1"),
    ("Dell_8xH100_80GB_SXM5_v1", "Dell 8x H100 80GB SXM5", "h100", 8, "Dell_H100_80GB_SXM5_v1"),
    ("SMC_2xH100_80GB_SXM5_v1", "SMC 2x H100 80GB SXM5", "h100", 2, "SMC_H100_80GB_SXM5_v1"),
    ("SMC_4xH100_80GB_SXM5_v1", "SMC 4x H100 80GB SXM5", "h100", 4, "SMC_H100_80GB_SXM5_v1"),
    ("SMC_8xH100_80GB_SXM5_v1", "SMC 8x H100 80GB SXM5", "h100", 8, "SMC_H100_80GB_SXM5_v1"),
    # the second round (v2/: pytorch/results_v2/, NGC 24.03): 1, 2, 4 and 8 of one instance's
    # 8 H100s, and a bare-metal H200 node
    ("v2/LambdaOD_8x_Texas_2xH100_80GB_SXM5_192-222-52-149_v2", "LambdaOD 2 of 8x H100 SXM5",
     "h100", 2, "v2/LambdaOD_8x_Texas_1xH100_80GB_SXM5_192-222-52-149_v2"),
    ("v2/LambdaOD_8x_Texas_4xH100_80GB_SXM5_192-222-52-149_v2", "LambdaOD 4 of 8x H100 SXM5",
     "h100", 4, "v2/LambdaOD_8x_Texas_1xH100_80GB_SXM5_192-222-52-149_v2"),
    ("v2/LambdaOD_8x_Texas_8xH100_80GB_SXM5_192-222-52-149_v2", "LambdaOD 8x H100 SXM5",
     "h100", 8, "v2/LambdaOD_8x_Texas_1xH100_80GB_SXM5_192-222-52-149_v2"),
    ("v2/LambdaBM_ENG04_8xH200_140GB_SXM_h200_v2", "LambdaBM 8x H200 SXM", "h200", 8,
     "v2/LambdaBM_ENG04_1xH200_140GB_SXM_h200_v2"),
]

# Per folder, fp16 then fp32: ResNet-50 (batch per GPU, images/s), BERT-base and BERT-large
# (batch per GPU, steps, seconds), from `--logs` (each the folder's one log of the test).
FIGURES = {
    "LambdaCloud_V100_16GB_v1": ((256, 833.42), (48, 100, 24.723), (16, 100, 27.026),
                                 (128, 369.66), (24, 100, 55.307), (8, 100, 63.497)),
    "LambdaCloud_2xV100_16GB_v1": ((256, 1571.39), (48, 100, 27.467), (16, 100, 35.577),
                                   (128, 710.95), (24, 100, 60.637), (8, 100, 80.454)),
    "LambdaCloud_4xV100_16GB_v1": ((256, 3107.7), (48, 100, 27.743), (16, 100, 37.886),
                                   (128, 1422.93), (24, 100, 61.583), (8, 100, 81.189)),
    "LambdaCloud_8xV100_16GB_v1": ((256, 6174.05), (48, 100, 28.434), (16, 100, 40.728),
                                   (128, 2817.85), (24, 100, 65.206), (8, 100, 86.286)),
    "AdaA6000_v1": ((928, 1146.22), (192, 100, 73.776), (64, 100, 79.635),
                    (496, 647.31), (96, 100, 69.368), (32, 100, 70.539)),
    "2xAdaA6000_v1": ((928, 2301.75), (192, 100, 75.002), (64, 100, 82.240),
                      (496, 1269.76), (96, 100, 74.371), (32, 100, 82.262)),
    "4xAdaA6000_v1": ((928, 4548.86), (192, 100, 68.508), (64, 100, 74.296),
                      (496, 2559.04), (96, 100, 71.630), (32, 100, 76.657)),
    "8xAdaA6000_v1": ((928, 9211.37), (192, 58, 39.880), (64, 100, 76.913),
                      (496, 5126.04), (96, 100, 72.822), (32, 100, 81.115)),
    "A6000_v1": ((928, 916.74), (192, 100, 95.585), (64, 100, 92.850),
                 (496, 514.91), (96, 100, 93.206), (32, 100, 94.769)),
    "2xA6000_v1": ((928, 1775.51), (192, 100, 101.353), (64, 100, 106.803),
                   (496, 995.58), (96, 100, 105.548), (32, 100, 127.179)),
    "3090_v1": ((448, 905.44), (96, 100, 55.053), (28, 100, 52.583),
                (224, 513.16), (48, 100, 55.267), (16, 100, 63.636)),
    "2x3090_v1": ((448, 1751.92), (96, 100, 57.929), (28, 100, 61.943),
                  (224, 979.15), (48, 100, 61.252), (16, 100, 82.289)),
    "4090_v1": ((448, 1301.69), (96, 100, 31.664), (28, 100, 29.245),
                (224, 721.24), (48, 100, 34.185), (16, 100, 34.776)),
    "2x4090_v1": ((448, 2468.46), (96, 100, 34.856), (28, 100, 39.202),
                  (224, 1363.59), (48, 100, 40.582), (16, 100, 56.656)),
    "A100_80GB_PCIe_v1": ((1280, 1527.66), (320, 100, 76.027), (112, 100, 78.732),
                          (640, 1014.97), (172, 100, 75.806), (64, 100, 89.222)),
    "2xA100_80GB_PCIe_v1": ((1280, 2979.62), (320, 100, 80.374), (112, 100, 89.069),
                            (640, 1957.13), (172, 100, 84.619), (64, 100, 114.852)),
    "A100_80GB_SXM4_v1": ((1280, 1582.44), (320, 100, 70.932), (112, 100, 71.882),
                          (640, 1066.99), (172, 100, 70.401), (64, 100, 83.378)),
    "2xA100_80GB_SXM4_v1": ((1280, 3038.07), (320, 100, 76.746), (112, 100, 88.886),
                            (640, 2029.72), (172, 100, 82.173), (64, 100, 118.754)),
    "4xA100_80GB_SXM4_v1": ((1280, 6070.9), (320, 70, 52.817), (112, 100, 89.320),
                            (640, 4042.56), (172, 100, 81.631), (64, 100, 111.250)),
    "8xA100_80GB_SXM4_v1": ((1280, 11439.64), (320, 35, 29.048), (112, 99, 115.295),
                            (640, 7397.81), (172, 65, 64.033), (64, 100, 199.207)),
    "H100_80GB_PCIe5_v1": ((1280, 1866.74), (320, 100, 54.576), (112, 100, 53.312),
                           (640, 1197.47), (172, 100, 57.497), (64, 100, 64.134)),
    "2xH100_80GB_PCIe5_v1": ((1280, 3707.08), (320, 100, 55.095), (112, 100, 54.615),
                             (640, 2373.42), (172, 100, 58.683), (64, 100, 66.688)),
    "4xH100_80GB_PCIe5_v1": ((1280, 7378.69), (320, 70, 38.516), (112, 100, 55.478),
                             (640, 4719.73), (172, 100, 59.968), (64, 100, 69.138)),
    "8xH100_80GB_PCIe5_v1": ((1280, 14713.4), (320, 35, 19.564), (112, 99, 55.605),
                             (640, 9397.65), (172, 65, 38.683), (64, 100, 68.633)),
    "H100_80GB_SXM5_v1": ((1280, 2616.25), (320, 100, 37.441), (112, 100, 35.786),
                          (640, 1753.83), (172, 100, 41.226), (64, 100, 43.564)),
    "2xH100_80GB_SXM5_v1": ((1280, 5179.32), (320, 100, 37.715), (112, 100, 36.210),
                            (640, 3477.95), (172, 100, 41.647), (64, 100, 44.757)),
    "4xH100_80GB_SXM5_v1": ((1280, 10406.84), (320, 70, 26.080), (112, 100, 36.170),
                            (640, 6930.29), (172, 100, 41.676), (64, 100, 45.815)),
    "8xH100_80GB_SXM5_v1": ((1280, 20728.88), (320, 35, 13.108), (112, 99, 36.274),
                            (640, 13856.79), (172, 65, 26.925), (64, 100, 45.862)),
    "Dell_H100_80GB_SXM5_v1": ((1280, 2776.72), (320, 100, 35.807), (112, 100, 35.315),
                               (640, 1893.25), (172, 100, 38.729), (64, 100, 42.432)),
    "Dell_2xH100_80GB_SXM5_v1": ((1280, 5511.98), (320, 100, 37.478), (112, 100, 35.752),
                                 (640, 3744.62), (172, 100, 38.977), (64, 100, 42.738)),
    "Dell_4xH100_80GB_SXM5_v1": ((1280, 11031.76), (320, 70, 26.341), (112, 100, 35.940),
                                 (640, 7480.32), (172, 100, 39.022), (64, 100, 43.068)),
    "Dell_8xH100_80GB_SXM5_v1": ((1280, 22048.48), (320, 35, 12.566), (112, 99, 35.568),
                                 (640, 14981.78), (172, 65, 25.240), (64, 100, 43.397)),
    "SMC_H100_80GB_SXM5_v1": ((1280, 2787.96), (320, 100, 35.612), (112, 100, 35.115),
                              (640, 1893.96), (172, 100, 38.156), (64, 100, 41.825)),
    "SMC_2xH100_80GB_SXM5_v1": ((1280, 5526.94), (320, 100, 37.226), (112, 100, 35.434),
                                (640, 3747.74), (172, 100, 38.264), (64, 100, 41.602)),
    "SMC_4xH100_80GB_SXM5_v1": ((1280, 11050.78), (320, 70, 26.037), (112, 100, 35.484),
                                (640, 7502.56), (172, 100, 38.409), (64, 100, 41.835)),
    "SMC_8xH100_80GB_SXM5_v1": ((1280, 22045.43), (320, 35, 12.530), (112, 99, 35.138),
                                (640, 14972.4), (172, 65, 24.884), (64, 100, 42.041)),
    "v2/LambdaOD_8x_Texas_1xH100_80GB_SXM5_192-222-52-149_v2":
        ((1280, 2789.37), (320, 100, 35.708), (112, 100, 35.244),
         (640, 1896.02), (172, 100, 39.209), (64, 100, 43.744)),
    "v2/LambdaOD_8x_Texas_2xH100_80GB_SXM5_192-222-52-149_v2":
        ((1280, 5524.18), (320, 100, 37.839), (112, 100, 35.612),
         (640, 3744.89), (172, 100, 39.899), (64, 100, 44.741)),
    "v2/LambdaOD_8x_Texas_4xH100_80GB_SXM5_192-222-52-149_v2":
        ((1280, 11030.39), (320, 70, 26.881), (112, 100, 35.565),
         (640, 7491.72), (172, 100, 39.956), (64, 100, 44.779)),
    "v2/LambdaOD_8x_Texas_8xH100_80GB_SXM5_192-222-52-149_v2":
        ((1280, 22060.73), (320, 35, 12.606), (112, 99, 35.542),
         (640, 14975.37), (172, 65, 26.088), (64, 100, 45.477)),
    "v2/LambdaBM_ENG04_1xH200_140GB_SXM_h200_v2":
        ((2560, 3079.98), (592, 100, 62.094), (192, 100, 53.398),
         (1280, 2259.99), (296, 100, 56.338), (96, 100, 51.77)),
    "v2/LambdaBM_ENG04_8xH200_140GB_SXM_h200_v2":
        ((2560, 24480.79), (592, 19, 11.82), (192, 58, 31.37),
         (1280, 17956.58), (296, 38, 21.107), (96, 100, 53.957)),
}


def from_logs(repo, folders=None):
    """FIGURES as the logs of a checkout of Lambda's repository give them (those of MULTI's
    folders, or of the folders named)."""
    def git(*a):
        return subprocess.run(["git", "-C", repo, *a], capture_output=True, text=True,
                              check=True).stdout

    def logs(folder, test):
        where = ("pytorch/results_v2/" + folder[3:] if folder.startswith("v2/")
                 else "pytorch/results/" + folder)
        return [git("show", "HEAD:" + f) for f in
                git("ls-tree", "--name-only", "HEAD", f"{where}/PyTorch_{test}/").split()
                if f.endswith(".txt")]

    def resnet(folder, family):
        for t in logs(folder, "resnet50_" + ("AMP" if family == "fp16" else "FP32")):
            ips = re.search(r"Summary: train.loss.*?train.compute_ips : ([\d.]+)", t)
            batch = re.search(r"batch_size : (\d+)", t)
            if ips and batch:
                return (int(batch.group(1)), float(ips.group(1)))
        sys.exit(f"{folder}: no ResNet-50 {family} Summary line")

    def bert(folder, net, family):
        for t in logs(folder, f"{net}_squad_{family.upper()}"):
            batch = re.search(r"train_batch_size : (\d+)", t)
            stamps = [(int(n), datetime.datetime.fromisoformat(f"{d} {s}").timestamp())
                      for d, s, n in re.findall(
                          r"DLL (\S+) (\S+) - Training Epoch: \d+ Training Iteration: (\d+)", t)]
            if batch and len(stamps) >= 2:
                return (int(batch.group(1)), stamps[-1][0] - stamps[0][0],
                        round(stamps[-1][1] - stamps[0][1], 3))
        sys.exit(f"{folder}: no two BERT {net} {family} iteration lines")

    if folders is None:
        folders = []
        for folder, _, _, _, single in MULTI:
            folders += [f for f in (single, folder) if f not in folders]
    for f in folders:
        cells = []
        for family in ("fp16", "fp32"):
            cells += [resnet(f, family), bert(f, "bert_base", family),
                      bert(f, "bert_large", family)]
        print(f'    "{f}": {tuple(cells)},')


def measured(folder, gpus, family, net):
    cell = FIGURES[folder][(0 if family == "fp16" else 3) + NETWORKS.index(net)]
    if net == "resnet50":
        return cell[0], cell[1]
    batch, steps, seconds = cell
    return batch, steps * batch * gpus / seconds


def predicted(binary, part, net, batch, precision, gpus, overlap):
    if net == "resnet50":
        bucket = "25"  # DDP's default
    else:  # apex DDP's message_size of 10^7 gradients, at their own width
        bucket = f"{1e7 * (2 if precision == 'fp16' else 4) / 2**20:.2f}"
    out = json.loads(run(binary, "predict", net, "--device", part, "-g", str(gpus), "--batch",
                         str(batch), "--precision", precision, *options(net, precision, part),
                         "--bucket-mib", bucket, *(["--overlap"] if overlap else []),
                         "--format", "json"))
    return batch * gpus / out["t_step"]


def grad_bytes(net, precision):
    """Bytes of one step's all-reduce: ResNet-50's fp32 gradients under autocast, BERT's at
    the width amp O2 (fp16) or fp32 gives them."""
    return PARAMS[net] * (2 if (net != "resnet50" and precision == "fp16") else 4)


def lost(rows):
    """Whether a node lost a tenth or more of BERT-large's rate per GPU (its rows' median)."""
    return statistics.median(r.eff for r in rows if r.net == "bert_large") < 0.9


def short(folder):
    """A results folder without its round's marks."""
    return re.sub(r"^v2/|_v2$|_v1$", "", folder)


def ring_bytes(nbytes, gpus):
    """What each GPU sends in a ring all-reduce: bus bandwidth x time."""
    return nbytes * 2 * (gpus - 1) / gpus


def node_section(binary, node, devices):
    """One all-reduce bandwidth per node, from ResNet-50's and BERT-base's rows, carried to
    BERT-large's: the step time the GPUs added, taken as one all-reduce of the gradients after
    the backward pass at the node's bus bandwidth (least squares through the origin). Returns
    the section, the bandwidths (GB/s by one-GPU folder) and BERT-large's mean error on the
    nodes that lost, as shipped and carried."""
    md = []
    w = md.append
    w("## One bandwidth per node, carried to BERT-large")
    w("")
    w("Where the model misses above, the time each step gained grows with the gradients' bytes,")
    w("not with the backward pass that would hide them: on each PCIe system and on Lambda's")
    w("V100 and A100 SXM4 systems the last column holds a few GB/s whatever the network. Taken")
    w("as one all-reduce after the backward pass at a bus bandwidth of the node's own, fitted")
    w("to its ResNet-50 and BERT-base rows (both precisions, every GPU count; the ring's bytes,")
    w("2(G-1)/G of the gradients), then carried to its BERT-large rows by the model itself (the")
    w("part's description with `intra_node_bandwidth_gb_s` at that bandwidth and `collective =")
    w("ring`, `scalemeter predict` without `--overlap`), the efficiency predicted over")
    w("measured:")
    w("")
    w("| node (one-GPU system) | part | fitted bus GB/s | description's | BERT-large rows | "
      "shipped, overlapped | at the node's bandwidth, after |")
    w("|---|---|---:|---:|---|---|---|")
    tmp = tempfile.mkdtemp()
    carried, shipped = {True: [], False: []}, {True: [], False: []}
    fitted = {}
    for single, rows in node.items():
        fit = [(ring_bytes(r.grad_bytes, r.gpus), r.penalty) for r in rows
               if r.net != "bert_large"]
        k = sum(x * y for x, y in fit) / sum(x * x for x, _ in fit)
        part = rows[0].part
        described = devices[part]["intra_node_bandwidth_gb_s"]
        if k <= 0:  # the GPUs added no time in all: nothing to carry
            w(f"| {short(single)} | `{part}` | none lost | {described:.1f} | | | |")
            continue
        bus = fitted[single] = 1 / k / 1e9
        path = variant(part, tmp, "node-" + single.replace("/", "-"),
                       drop=("intra_node_bandwidth_gb_s", "collective"),
                       add=(f"intra_node_bandwidth_gb_s = {bus:.2f}", "collective = ring"),
                       section="node")
        slow = lost(rows)
        cells_now, cells_at = [], []
        for r in rows:
            if r.net != "bert_large":
                continue
            at = predicted(binary, path, r.net, r.batch, r.precision, r.gpus, False)
            shipped[slow].append(r.overlapped / r.eff)
            carried[slow].append(at / (r.gpus * r.one_rate) / r.eff)
            cells_now.append(f"{shipped[slow][-1]:.2f}")
            cells_at.append(f"{carried[slow][-1]:.2f}")
        labels = ", ".join(sorted({f"{r.gpus}x" for r in rows}, key=lambda v: int(v[:-1])))
        w(f"| {short(single)} | `{part}` | {bus:.1f} | "
          f"{described:.1f} | {labels}, fp16 and fp32 | {' '.join(cells_now)} | "
          f"{' '.join(cells_at)} |")
    shutil.rmtree(tmp)
    w("")
    err = lambda v: statistics.mean(abs(x - 1) for x in v)
    w(f"On the nodes that lost a tenth or more of BERT-large's rate per GPU (the median of "
      f"their rows), BERT-large's {len(carried[True])} rows: mean absolute error of the "
      f"efficiency {err(shipped[True]):.3f} as shipped, {err(carried[True]):.3f} at the node's "
      f"bandwidth after the backward pass (median ratio {statistics.median(shipped[True]):.2f} "
      f"and {statistics.median(carried[True]):.2f}). On the others ({len(carried[False])} rows) "
      f"the shipped form stays the better, {err(shipped[False]):.3f} against "
      f"{err(carried[False]):.3f}: there DDP's overlap holds and the fitted bandwidth is mostly "
      f"noise, a few milliseconds a step.")
    w("")
    return md, fitted, (err(shipped[True]), err(carried[True]))


def misses(by_class, node, fitted, carried):
    """What the tables say, in figures the tables hold."""
    nv = [p / m for (link, _), v in by_class.items() if link.startswith("371")
          for m, p, _ in v]
    # the nodes that lost a tenth or more of BERT-large's rate per GPU (the median of its rows)
    slow = {k: fitted[k] for k, rows in node.items() if lost(rows)}
    md = ["## Where it misses, and why", ""]
    same = {k: [r.eff for r in node[k] if r.gpus == 2] for k in ("4090_v1", "AdaA6000_v1")}
    md.append(textwrap.fill(
        f"On the H100 and H200 SXM nodes (three vendors' HGX boards, a LambdaOD instance and "
        f"a bare-metal H200 node, 2 to 8 GPUs) the model's scaling, "
        f"the all-reduce overlapped as DDP runs it, comes out at {min(nv):.2f} to "
        f"{max(nv):.2f} of the measured one: NVLink's all-reduce hides behind the backward "
        f"pass, as the model says. Elsewhere it predicts the same near-perfect scaling and "
        f"the systems lost up to "
        f"{100 * (1 - min(m for v in by_class.values() for m, _, _ in v)):.0f}% of it: the "
        f"step time the GPUs added grew with the gradients' bytes, as one all-reduce after "
        f"the backward pass at {min(slow.values()):.1f} to {max(slow.values()):.1f} GB/s of "
        f"bus bandwidth would ({', '.join(short(k) for k in slow)}), not at the "
        f"rate of their links. What these systems are (sys_pytorch.txt beside each run): "
        f"GeForce cards in a Threadripper workstation (ASUS WRX80E), the RTX 3090 and the RTX "
        f"4090, which has no peer-to-peer access at all, so that NCCL stages its transfers "
        f"through host memory; the RTX A6000 and "
        f"the A100 PCIe in one EPYC server (GIGABYTE MZ22-G20); LambdaCloud's V100 VMs; and "
        f"an HGX A100 board (Supermicro H12DGO-6), whose NVLink these runs did not reach "
        f"for reasons their logs do not say. In the same workstation two RTX 6000 Ada, "
        f"which have peer-to-peer access, kept "
        f"{min(same['AdaA6000_v1']):.2f}-{max(same['AdaA6000_v1']):.2f} of their one-GPU "
        f"rate per GPU where two RTX 4090 kept {min(same['4090_v1']):.2f}-"
        f"{max(same['4090_v1']):.2f}. So it is the node, its driver and its hypervisor, not "
        f"the part: a description holds the part's links. For such a node, take its own "
        f"all-reduce into a copy of the part's description (nccl-tests' all_reduce_perf on "
        f"the node, through `scalemeter fit-comm node.txt --device-out my-node.ini`, or "
        f"`[node] intra_node_bandwidth_gb_s` at its bus bandwidth and `collective = ring`) "
        f"and predict without `--overlap`: fitted on two networks and "
        f"carried to a third, that takes BERT-large's mean error of the efficiency on those "
        f"nodes from {carried[0]:.2f} to {carried[1]:.2f} (above).", 92, break_on_hyphens=False))
    md.append("")
    md.append(textwrap.fill(
        "Where the efficiency is above 1 (the RTX 6000 Ada's BERT rows at fp16), the one-GPU "
        "run is the slow one: that card slowed as it ran, 2.3-6.2% between the first and the "
        "last 50 steps of its one-GPU logs (accuracy-gpus.md).", 92, break_on_hyphens=False))
    md.append("")
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy-multi-gpu.md"))
    ap.add_argument("--logs", metavar="PATH",
                    help="print FIGURES from a checkout of lambdal/deeplearning-benchmark")
    a = ap.parse_args()
    if a.logs:
        from_logs(a.logs)
        return
    if not shutil.which(a.bin):
        sys.exit(f"{a.bin}: not found; build first (cmake --build build)")
    devices = {d["device"]: d for d in
               json.loads(run(a.bin, "devices", "--format", "json"))["devices"]}
    for net in NETWORKS:
        PARAMS[net] = json.loads(run(a.bin, "metrics", net, "--format", "json"))["weights"]
    rows, errs = [], {True: [], False: []}
    by_class = {}  # (links, net) -> [(measured efficiency, predicted overlapped, not)]
    node = {}  # one-GPU folder -> [Row]
    for folder, system, part, gpus, single in MULTI:
        link = f"{devices[part]['intra_node_bandwidth_gb_s']:.0f} GB/s"
        for family in ("fp16", "fp32"):
            precision = "fp16" if family == "fp16" else fp32_precision(devices, part)
            cells = []
            for net in NETWORKS:
                batch, many = measured(folder, gpus, family, net)
                _, one = measured(single, 1, family, net)
                eff = many / (gpus * one)
                p1 = predicted(a.bin, part, net, batch, precision, 1, True)
                pov = predicted(a.bin, part, net, batch, precision, gpus, True)
                pser = predicted(a.bin, part, net, batch, precision, gpus, False)
                e_ov, e_ser = pov / (gpus * p1), pser / (gpus * p1)
                penalty = batch * gpus / many - batch / one
                needed = grad_bytes(net, precision) / penalty / 1e9 if penalty > 0 else None
                errs[True].append(abs(e_ov / eff - 1))
                errs[False].append(abs(e_ser / eff - 1))
                by_class.setdefault((link, net), []).append((eff, e_ov, e_ser))
                node.setdefault(single, []).append(Row(net, family, gpus, batch, precision, part,
                                                       eff, grad_bytes(net, precision), penalty,
                                                       p1, e_ov))
                cells.append(f"{eff:.2f} | {e_ov:.2f} | {e_ser:.2f} | {1e3 * penalty:.0f} | "
                             + (f"{needed:.1f}" if needed else "-"))
            rows.append(f"| {system} | `{part}` | {link} | {precision} | "
                        + " | ".join(cells) + " |")

    md = []
    w = md.append
    w("# Two to eight GPUs of one node: Lambda's published runs")
    w("")
    w("Generated by `tools/multi_gpu_validation.py` (issue 37); do not edit by hand. Lambda's GPU")
    w(f"benchmark (lambdal/deeplearning-benchmark at {LAMBDA}, pytorch/results/) trained the same")
    w("NVIDIA DeepLearningExamples code as [accuracy-gpus.md](accuracy-gpus.md) on one GPU and on")
    w("2, 4 and 8 GPUs of one system at the same batch per GPU: ResNet-50 under PyTorch's DDP")
    w("(25 MiB buckets of fp32 gradients), BERT-base and BERT-large on SQuAD under apex's DDP")
    w("(buckets of 10^7 gradients, fp16 under amp O2, fp32 otherwise); both all-reduce the")
    w("buckets while the backward pass runs. Per network: the measured scaling efficiency (the")
    w("G GPUs' rate over G times the one GPU's), the model's with the all-reduce overlapped")
    w("(`scalemeter predict NET --device PART -g G --overlap --bucket-mib M`, the options of")
    w("accuracy-gpus.md) and after the backward pass (without `--overlap`), each over the")
    w("model's own one-GPU rate; the step time the G GPUs added (ms); and the bandwidth an")
    w("all-reduce of the step's gradients, run alone after the backward pass, would have had to")
    w("take all of it (GB/s, the gradients' bytes over that time). ResNet-50's figure is")
    w("Lambda's (train.compute_ips); BERT's the steady rate between the logs' first and last")
    w("iteration lines, since Lambda's own divides 100 steps by the run's time, and BERT-base's")
    w("two epochs of SQuAD hold fewer steps than that at 4 and 8 GPUs (35 an epoch at 8 x 320),")
    w("which overstates them up to 1.43 times. Nothing is fitted to these figures.")
    w("")
    head = " | ".join(f"{NAME[n]}: measured | overlapped | after | +ms | GB/s" for n in NETWORKS)
    w(f"| system | part | links (description) | precision | {head} |")
    w("|---|---|---|---|" + "---:|" * 15)
    md += rows
    w("")
    w("Scaling efficiency, predicted over measured, by the description's links between GPUs")
    w("(`intra_node_bandwidth_gb_s`) and network (median, lowest, highest):")
    w("")
    w("| links | network | rows | overlapped | after the backward pass |")
    w("|---|---|---:|---|---|")
    for (link, net), v in sorted(by_class.items(), key=lambda kv: (float(kv[0][0].split()[0]),
                                                                    kv[0][1])):
        ov = [p / m for m, p, _ in v]
        ser = [s / m for m, _, s in v]
        w(f"| {link} | {NAME[net]} | {len(v)} | {statistics.median(ov):.2f} "
          f"({min(ov):.2f}-{max(ov):.2f}) | {statistics.median(ser):.2f} "
          f"({min(ser):.2f}-{max(ser):.2f}) |")
    w("")
    w(f"Mean absolute error of the efficiency over all {len(errs[True])} rows: overlapped "
      f"{statistics.mean(errs[True]):.3f}, after the backward pass "
      f"{statistics.mean(errs[False]):.3f}.")
    w("")
    section, fitted, carried = node_section(a.bin, node, devices)
    md += section
    md += misses(by_class, node, fitted, carried)
    with open(a.out, "w") as f:
        f.write("\n".join(md))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
