#!/usr/bin/env python3
"""Regenerates the shipped calibrations and docs/accuracy.md from the measurement CSVs in
configs/calibrations/: every number of the accuracy tables comes from running scalemeter here.

    tools/accuracy_report.py [--bin build/bin/scalemeter] [--out docs/accuracy.md]
                             [--no-write-calibrations]

For every data set: leave-one-model-out MAPE per phase of ConvMeter's form and of the dispatch
form (the default), "train on half the networks, predict the other half" in both directions,
the calibration-free device model as shipped and as fitted by `fit --device-out` on the training
half, and the A100 ResNet-50 throughput against NVIDIA's published figures, MLPerf's strong scaling and
single-node throughput, and the all-reduce against nccl-tests. Standard library
only; takes about a minute."""
import argparse
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpus_validation  # noqa: E402
import op_table  # noqa: E402  (the network files' convolutions)
import sm_fit  # noqa: E402  (the shipped framework keys)
import validation_rows  # noqa: E402  (a part's description with another framework)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAL = "configs/calibrations"

# name, CSV, device label, extra fit options, source (for people)
SETS = [
    ("h100-pytorch-tf32", "h100-pytorch-tf32.csv",
     "NVIDIA H100 80GB HBM3, PyTorch 2.11 eager, TF32", [],
     "PyTorch 2.11 (cu130), cuDNN 9.19, independent CUDA-event harness; 11 zoo CNNs, images "
     "96/160/224, batches 16/64/256"),
    ("h100-pytorch-bf16", "h100-pytorch-bf16.csv",
     "NVIDIA H100 80GB HBM3, PyTorch 2.11 eager, bf16 autocast", [],
     "the same harness under torch.autocast(bfloat16) with fp32 master weights; 7 CNNs, images "
     "128/224, batches 32/128/256"),
    ("h100-pytorch-fp32", "h100-pytorch-fp32.csv",
     "NVIDIA H100 80GB HBM3, PyTorch 2.11 eager, fp32 (TF32 off)", [],
     "examples/pytorch/measure.py, cudnn.benchmark on, TF32 off; 13 CNNs, images 64/128/224, "
     "batches 8/32/64"),
    ("h100-scalemeter-fp32", "h100-scalemeter-fp32.csv",
     "NVIDIA H100 80GB HBM3, scalemeter cuda backend, fp32", [],
     "scalemeter calibrate --backend cuda --precision fp32 --conv-algo measure at b1354bf, the "
     "same 117 configurations"),
    ("default", "cpu-amd-epyc-1thread.csv", "AMD EPYC, 1 thread (PyTorch 1.13 CPU)",
     ["--weight-term"],
     "PyTorch 1.13 on one core of the build machine; 19 zoo CNNs, images 64-224, batches 1-16"),
]
DEVICE_OF = {"h100-pytorch-tf32": "h100", "h100-pytorch-bf16": "h100",
             "h100-pytorch-fp32": "h100", "h100-scalemeter-fp32": "h100", "default": "cpu"}
PHASES = ["infer", "fwd", "bwd", "grad", "step"]



def lambda_h100_8x():
    """ResNet-50's per-GPU rate on 8 H100 SXM over one in Lambda's runs, both precisions."""
    from multi_gpu_validation import MULTI, measured
    out = []
    for folder, _, part, gpus, single in MULTI:
        if part == "h100" and gpus == 8:
            for family in ("fp16", "fp32"):
                _, many = measured(folder, gpus, family, "resnet50")
                _, one = measured(single, 1, family, "resnet50")
                out.append(many / (gpus * one))
    return out

def run(binary, *args):
    r = subprocess.run([binary] + list(args), cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"accuracy_report: scalemeter {' '.join(args)} failed:\n{r.stderr}")
    return r.stdout


def loo(binary, path, opts):
    d = json.loads(run(binary, "fit", path, "--cv", "loo", "--format", "json", *opts))
    return {p: d["phases"][p]["overall"]["mape"] for p in PHASES if p in d["phases"]}


def validate(binary, path, *how):
    d = json.loads(run(binary, "validate", path, *how, "--format", "json"))
    return {p: (d["phases"][p]["overall"]["mape"], d["phases"][p]["overall"]["median_ratio"])
            for p in PHASES if p in d["phases"]}


def validate_rows(binary, rows, fields, *how):
    """validate() of these rows (dicts; keys beyond fields left out) as a CSV of their own."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.csv")
        with open(path, "w", newline="") as f:
            cw = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            cw.writeheader()
            cw.writerows(rows)
        return validate(binary, path, *how)


def split(path, tmp):
    """Two CSVs: the networks at even and at odd places in sorted order."""
    with open(os.path.join(ROOT, path)) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    models = sorted({r[0] for r in body})
    halves = [models[0::2], models[1::2]]
    files = []
    for k, half in enumerate(halves):
        name = os.path.join(tmp, f"{os.path.basename(path)}.{k}.csv")
        with open(name, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(r for r in body if r[0] in half)
        files.append(name)
    return halves, files


RANKS = "tests/data/scaling/cpu-16-ranks-1-to-4.csv"
RANKS16 = "tests/data/scaling/xeon-16-vcpu-ranks-1-to-16.csv"
# label, fit options: the default, then the default less each of its terms beyond ConvMeter's
# communication, then the forms before them
RANK_FORMS = [("default", []),
              ("default less the contention terms", ["--no-contention"]),
              ("default less the weight term", ["--no-weight-term"]),
              ("grad fitted to the t_grad column (the default before)", ["--grad-column"]),
              ("t_grad column, ring, no contention, no weight term (round 1)",
               ["--grad-column", "--no-weight-term", "--no-contention"]),
              ("ConvMeter's linear communication", ["--grad-column", "--no-weight-term",
                                                    "--no-contention", "--grad-model", "linear"])]


def rank_split(path, tmp, fit_ranks, held):
    """The rows of fit_ranks, and those of each rank count of held, as CSVs in tmp."""
    with open(os.path.join(ROOT, path)) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    col = header.index("gpus_per_node")
    paths = {}
    for part, keep in [("fit", fit_ranks)] + [(g, (g,)) for g in held]:
        paths[part] = os.path.join(tmp, f"{part}.csv")
        with open(paths[part], "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(header)
            wr.writerows(r for r in body if int(r[col]) in keep)
    return paths


def ranks_table(a, w, path, fit_ranks, held):
    """One row per form of RANK_FORMS and held rank count: fitted on fit_ranks, validated."""
    w("| form | options | ranks | fwd | bwd | grad | step |")
    w("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        paths = rank_split(path, tmp, fit_ranks, held)
        for label, opts in RANK_FORMS:
            ini = os.path.join(tmp, "c.ini")
            run(a.bin, "fit", paths["fit"], *opts, "-o", ini)
            for g in held:
                m = validate(a.bin, paths[g], "--coeffs", ini)
                cells = " | ".join(f"{m[p][0]:.3f} ({m[p][1]:.2f})"
                                   for p in ("fwd", "bwd", "grad", "step"))
                w(f"| {label} | `{' '.join(opts) or '-'}` | {g} | {cells} |")


def ranks_section(a, w):
    """Fit on few ranks of a CPU node, predict more: 1-2 -> 4 (RANKS), 1-4 -> 8, 16 (RANKS16)."""
    w("\n## More ranks on one node than the fit saw (CPU)\n")
    w("Data-parallel training on one node under")
    w("`mpirun --bind-to core -np N scalemeter bench --backend cpu --threads 1`")
    w("(resnet18, mobilenet_v2, vgg11, squeezenet1_0; images 32, 64; per-rank batches 2-8),")
    w("fitted on the rows of few ranks (`scalemeter fit FIT.csv OPTIONS`), the rows of more ranks")
    w("predicted (`scalemeter validate`). MAPE (median ratio).\n")
    w(f"`{RANKS}`: a 16-core node, N = 1, 2, 4 (the runs at 8 and 16 ranks are kept back by the")
    w("project to check the extrapolation further). Fitted on 1 and 2 ranks:\n")
    ranks_table(a, w, RANKS, (1, 2), (4,))
    w(f"\n`{RANKS16}`: the 16 vCPUs (Intel Xeon, KVM) of the H100 machine lent to a session,")
    w("N = 1, 2, 4, 8, 16, measured the same way with `--reps 3` (`tools/rank_study.sh`).")
    w("Fitted on 1, 2 and 4 ranks:\n")
    ranks_table(a, w, RANKS16, (1, 2, 4), (8, 16))
    w("\nThe grad column is validated against what the step spends beyond its passes,")
    w("t_step - t_fwd - t_bwd, in every row (docs/calibration.md). The passes extrapolate worst:")
    w("each co-located rank slows by a factor that depends on the network (fwd + bwd at 16 ranks")
    w("over 1 rank: 1.2x for resnet18 and mobilenet_v2, 1.8x for vgg11, 2.1x for squeezenet1_0")
    w("at image 32, batch 4), which one contention coefficient per pass averages.")


# nccl-tests' all_reduce_perf bus bandwidths published in NVIDIA's issue trackers: (device,
# nodes, GPUs per node, NVLink SHARP on, message bytes, measured busbw GB/s, source)
NCCL_TESTS = [
    ("h100", 1, 8, False, 4 << 30, 370, "NVIDIA/nccl-tests#212, NCCL_ALGO=RING"),
    ("h100", 1, 8, True, 4 << 30, 480, "NVIDIA/nccl-tests#212, NVLS"),
    ("h100", 1, 2, True, 2 << 30, 370, "NVIDIA/nccl#1455"),
    ("h100", 1, 4, True, 2 << 30, 370, "NVIDIA/nccl#1455"),
    ("h100", 1, 5, True, 2 << 30, 420, "NVIDIA/nccl#1455"),
    ("h100", 1, 6, True, 2 << 30, 440, "NVIDIA/nccl#1455"),
    ("h100", 1, 7, True, 2 << 30, 460, "NVIDIA/nccl#1455"),
    ("h100", 1, 8, True, 2 << 30, 480, "NVIDIA/nccl#1455"),
    ("h100", 2, 8, False, 4 << 30, 368.76, "NVIDIA/nccl-tests#309, NVLS off"),
    ("h100", 2, 8, False, 4 << 30, 330, "NVIDIA/nccl#1221, RoCE, NVLS off"),
    ("h100", 2, 8, True, 4 << 30, 430, "NVIDIA/nccl#1221, RoCE"),
    ("h100", 4, 8, False, 4 << 30, 320, "NVIDIA/nccl#1221, RoCE, NVLS off"),
    ("h100", 4, 8, True, 4 << 30, 320, "NVIDIA/nccl#1221, RoCE"),
    ("a100", 1, 8, False, 4 << 30, 232.54, "NVIDIA/nccl-tests#175"),
]


def allreduce_section(a, w):
    w("\n## All-reduce bus bandwidth against nccl-tests, calibration-free\n")
    w("nccl-tests' `all_reduce_perf` bus bandwidth (busbw = algbw x 2(n-1)/n) on DGX/HGX nodes as")
    w("reported in NVIDIA's issue trackers, against `scalemeter allreduce --device D --nodes N -g")
    w("G --min-bytes S --max-bytes S` (NCCL's cost model, the GPU descriptions' collective; the")
    w("runs with NVLink SHARP off are predicted from the description with `nvls_efficiency =")
    w("0`). The links are NCCL's own figures (18 x 20.6 GB/s of NVLink on an H100, 12 x 20 on")
    w("an A100), not fitted to these runs.\n")
    w("| device | nodes x GPUs | NVLS | bytes | predicted | algorithm | measured | error | source |")
    w("|---|---|---|---|---|---|---|---|---|")
    predicted = {}
    with tempfile.TemporaryDirectory() as tmp:
        for dev, nodes, g, nvls, size, busbw, source in NCCL_TESTS:
            path = dev
            if not nvls:
                with open(os.path.join(ROOT, "configs/devices", dev + ".ini")) as f:
                    text = f.read()
                path = os.path.join(tmp, dev + "-no-nvls.ini")
                with open(path, "w") as f:
                    # every spelling of the key's line, not one value of it
                    f.write(re.sub(r"(?m)^\s*nvls_efficiency\s*=.*$", "nvls_efficiency = 0",
                                   text))
            rows = list(csv.DictReader(run(a.bin, "allreduce", "--device", path, "--nodes",
                                           str(nodes), "-g", str(g), "--min-bytes", str(size),
                                           "--max-bytes", str(size), "--format",
                                           "csv").splitlines()))
            got = float(rows[0]["busbw_gb_s"])
            predicted[(dev, nodes, g, nvls, size)] = got
            w(f"| {dev} | {nodes} x {g} | {'on' if nvls else 'off'} | {size >> 30} GiB | "
              f"{got:.1f} | {rows[0]['algorithm']} | {busbw} | {got / busbw - 1:+.1%} | "
              f"{source} |")
    # NCCL's choice by size: the runs of each algorithm and protocol in a sweep of one node
    w("\nNCCL's choice by message size on one H100 node of 8, predicted (8 B to 16 GiB): " +
      choice_spans(a, "h100", 1, "8", "16G") + ". NCCL_DEBUG on such a node")
    w("(NVIDIA/nccl-tests#309) showed ring/LL from 8 B to 1 MB and NVLS/Simple from 2 MB to")
    w("16 GB. On 64 nodes of 8 H200, predicted (1 MiB to 1 GiB): " +
      choice_spans(a, "h200", 64, "1M", "1G") + ". NCCL_DEBUG on such a cluster")
    w("(Ethernet, NVIDIA/nccl#1752) showed tree/LL128 at 16 MiB and NVLSTree/Simple from 32 MiB.")
    w("\nNVLink SHARP raised nccl#1221's RoCE cluster from 330 to 430 GB/s on two nodes and")
    gain = {n: predicted[("h100", n, 8, True, 4 << 30)] / predicted[("h100", n, 8, False, 4 << 30)]
            - 1 for n in (2, 4)}
    w(f"gained nothing on four. The model: {gain[2]:+.0%} on two nodes, where NCCL's per-channel")
    w(f"cap bounds the NVLS tree at 8 x 57.7 GB/s, and {gain[4]:+.0%} on four, where the cap of")
    w("8 x 45.5 GB/s leaves it below the ring's 370.8. That RoCE fabric runs 10-14% below the")
    w("InfiniBand of nccl-tests#309, which the description's 50 GB/s ports stand for.")


def choice_spans(a, device, nodes, lo, hi):
    """What NCCL runs over a predicted sweep, as spans of sizes of one algorithm/protocol."""
    sweep = list(csv.DictReader(run(a.bin, "allreduce", "--device", device, "--nodes",
                                    str(nodes), "--min-bytes", lo, "--max-bytes", hi,
                                    "--format", "csv").splitlines()))
    spans = []
    for r in sweep:
        choice = f"{r['algorithm']}/{r['protocol']}"
        if spans and spans[-1][0] == choice:
            spans[-1][2] = int(r["bytes"])
        else:
            spans.append([choice, int(r["bytes"]), int(r["bytes"])])
    return ", ".join(f"{c} from {size_text(lo)} to {size_text(hi)}" for c, lo, hi in spans)


def size_text(n):
    """Bytes in the largest binary unit that divides them: 8 B, 2 MiB, 16 GiB."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


# MLPerf Training v3.0 ResNet-50 on DGX H100-class nodes, global batch 3,200, bf16: training
# images per second and GPU, the median epoch (epochs 2 on) of each system's five result logs
# (tools/mlperf_epochs.py on github.com/mlcommons/training_results_v3.0), and the network
# code each ran (its config_*.sh: NETWORK=)
MLPERF_EPOCHS = [
    (8, 7009, "NVIDIA/results/dgxh100_ngc23.04_mxnet", "resnet-v1b-mainloop-fl", "fused"),
    (16, 6031, "Dell/results/2xXE9680x8H100-SXM-80GB", "resnet-v1b-fl", "fused-bn-relu"),
    (64, 4606, "NVIDIA/results/dgxh100_n8_ngc23.04_mxnet", "resnet-v1b-fl", "fused-bn-relu"),
]


def mlperf_as_submitted(a, w):
    w("\nThe same runs as submitted: their logs give each system's training throughput (the")
    w("median epoch of five runs, evaluation left out; `tools/mlperf_epochs.py` on")
    w("mlcommons/training_results_v3.0), whose ratios are the 0.86 and 0.66 above. The one-node")
    w("runs use NVIDIA's fused network (`NETWORK=resnet-v1b-mainloop-fl`: NormConvolution,")
    w("ScaleBiasAddRelu), the runs across nodes one whose batch norms are kernels of their own")
    w("(`resnet-v1b-fl`: BatchNorm with the ReLU fused, BatchNormAddRelu); each is predicted")
    w("with the framework that describes its code (`fused`, `fused-bn-relu`), by `scalemeter")
    w("curve resnet50 --device h100 --precision bf16 --global-batch 3200 --nodes N --framework")
    w("F --collective C`.\n")
    w("| GPUs | system | network | framework | measured img/s per GPU | collective | "
      "predicted | error | ratio to 8 GPUs, measured | predicted |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for coll in ("ring", "nccl"):
        base_pred = None
        for gpus, measured, system, network, fw in MLPERF_EPOCHS:
            d = json.loads(run(a.bin, "curve", "resnet50", "--device", "h100", "--precision",
                               "bf16", "--global-batch", "3200", "--nodes", str(gpus // 8),
                               "--framework", fw, "--collective", coll, "--format", "json"))
            pt = d["curves"][0]["points"][0]
            pred = pt["images_per_s"] / pt["devices"]
            base_pred = base_pred or pred
            w(f"| {gpus} | {system.split('/')[0]} {system.split('/')[-1]} | {network} | {fw} | "
              f"{measured} | {coll} | {pred:.0f} | {pred / measured - 1:+.1%} | "
              f"{measured / MLPERF_EPOCHS[0][1]:.3f} | {pred / base_pred:.3f} |")


# MLPerf Training v2.1, v3.1 and v4.0 ResNet-50, every closed-division single-node submission on
# the parts with shipped descriptions: (round, the system's results folder, description, GPUs,
# batch per GPU and network as the logs say them (d_batch_size, s_network), training images
# per second and GPU: tools/mlperf_epochs.py, the median epoch (epochs 2 on) of five runs;
# the logs' throughput lines agree within 1 img/s). Checkouts of github.com/mlcommons/
# training_results_v2.1 at 158189d4cbfbee366c10da1f0f086c85d8f15b5f, _v3.1 at
# d06288b2bd675a9d88e0e6181f5bb5626b71ec19 and _v4.0 at
# 6fe954378efe4a1a1bd665550b18ff8f26018def; each system's accelerator and count from its
# systems/<name>.json. Left out: v4.0's Dell XE9640x4H100-SXM-80GB and smc-dc-power (their
# logs are byte for byte v3.1's Dell and v4.0's smc-ac-power ones), Lenovo's
# SR675v3-4xH100_SXM5_96GB (an H100 SXM5 96 GB: no description), v2.1's A100 SXM 40 GB, A30
# and A5000 systems (no descriptions) and its dgxh100_preview (the preview category: software
# of before the part shipped, 6,555 img/s per GPU where the same code ran 7,009 in v3.0).
MLPERF_RUNS = {"v2.1": "158189d4cbfbee366c10da1f0f086c85d8f15b5f",
               "v3.1": "d06288b2bd675a9d88e0e6181f5bb5626b71ec19",
               "v4.0": "6fe954378efe4a1a1bd665550b18ff8f26018def"}
MLPERF_NODES = [
    ("v2.1", "ASUSTeK/results/ESC8000A-E11-8xA100-PCIE-80GB-NVBridge", "a100-pcie-80gb", 8, 408,
     "resnet-v1b-stats-fl", 3126),
    ("v2.1", "ASUSTeK/results/ESCN4A-E11", "a100", 4, 408,
     "resnet-v1b-stats-fl", 3440),
    ("v2.1", "Azure/results/NC96ads_A100_v4_mxnet", "a100-pcie-80gb", 4, 408,
     "resnet-v1b-stats-fl", 3156),
    ("v2.1", "Azure/results/ND96amsr_A100_v4_n1_mxnet", "a100", 8, 408,
     "resnet-v1b-stats-fl", 3370),
    ("v2.1", "Dell/results/R750xax4A100-PCIE-80GB-NVBRIDGE", "a100-pcie-80gb", 4, 408,
     "resnet-v1b-stats-fl", 3095),
    ("v2.1", "Dell/results/XE8545x4A100-SXM-80GB", "a100", 4, 408,
     "resnet-v1b-stats-fl", 3474),
    ("v2.1", "Fujitsu/results/gx_A100-SXMx8_mxnet_NGC_22.04", "a100", 8, 408,
     "resnet-v1b-stats-fl", 3405),
    ("v2.1", "Fujitsu/results/rx_A100-PCIex2_mxnet_NGC_22.04", "a100-pcie-80gb", 2, 408,
     "resnet-v1b-stats-fl", 3145),
    ("v2.1", "GIGABYTE/results/G492-ZD2_mxnet", "a100", 8, 408,
     "resnet-v1b-stats-fl", 3416),
    ("v2.1", "NVIDIA/results/dgxa100_ngc22.04_mxnet", "a100", 8, 408,
     "resnet-v1b-stats-fl", 3399),
    ("v2.1", "Supermicro/results/AS-4124GS-TNR_8_A100-PCIe-80GB-300W", "a100-pcie-80gb", 8, 408,
     "resnet-v1b-stats-fl", 3068),
    ("v3.1", "ASUSTeK/results/ESC-N8-E11", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7058),
    ("v3.1", "ASUSTeK/results/ESC8000-E11-8xH100-PCIE-80GB", "h100-pcie", 8, 400,
     "resnet-v1b-mainloop-fl", 4506),
    ("v3.1", "Azure/results/ND_H100_v5_mxnet", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 6979),
    ("v3.1", "Dell/results/XE8640x4H100-SXM-80GB", "h100", 4, 816,
     "resnet-v1b-mainloop-fl", 7280),
    ("v3.1", "Dell/results/XE9640x4H100-SXM-80GB", "h100", 4, 800,
     "resnet-v1b-mainloop-fl", 7098),
    ("v3.1", "Dell/results/XE9680x8H100-SXM-80GB", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7057),
    ("v3.1", "Fujitsu/results/primergy-cdi-A100x2-mxnet-ngc23.09", "a100-pcie-80gb", 2, 408,
     "resnet-v1b-stats-fl", 3351),
    ("v3.1", "Fujitsu/results/primergy-cdi-A100x4-mxnet-ngc23.09", "a100-pcie-80gb", 4, 408,
     "resnet-v1b-stats-fl", 3299),
    ("v3.1", "Fujitsu/results/primergy-cdi-A100x8-mxnet-ngc23.09", "a100-pcie-80gb", 8, 400,
     "resnet-v1b-stats-fl", 3182),
    ("v3.1", "Fujitsu/results/primergy-cdi-A100x10-mxnet-ngc23.09", "a100-pcie-80gb", 10, 320,
     "resnet-v1b-stats-fl", 3094),
    ("v3.1", "GigaComputing/results/G593-ZD2_mxnet", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7043),
    ("v3.1", "Lenovo/results/SR675v3-8xH100_PCIe_80GB_350W", "h100-pcie", 8, 400,
     "resnet-v1b-mainloop-fl", 4148),
    ("v3.1", "NVIDIA/results/eos_ngc23.09_mxnet", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7054),
    ("v3.1", "Quanta_Cloud_Technology/results/D54U-3U", "h100-pcie", 4, 816,
     "resnet-v1b-mainloop-fl", 4661),
    ("v3.1", "Quanta_Cloud_Technology/results/D74H-7U", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7034),
    ("v3.1", "Supermicro-RedHat/results/AS-4125GS-TNRT-RedHat-OpenShift", "h100-pcie", 8, 440,
     "resnet-v1b-mainloop-fl", 4488),
    ("v3.1", "Supermicro/results/AS-8125GS-TNHR", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7054),
    ("v3.1", "Supermicro/results/SYS-421GU-TNXR", "h100", 4, 400,
     "resnet-v1b-mainloop-fl", 7047),
    ("v3.1", "Supermicro/results/SYS-681E-TR", "h100-pcie", 8, 400,
     "resnet-v1b-mainloop-fl", 4402),
    ("v3.1", "Supermicro/results/SYS-821GE-TNHR", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7053),
    ("v3.1", "xFusion/results/G5500V7x8xL40S", "l40s", 8, 300,
     "resnet-v1b-fl", 2204),
    ("v4.0", "ASUSTeK/results/ESC8000A-E12-8xH100-PCIE-80GB", "h100-pcie", 8, 400,
     "resnet-v1b-mainloop-fl", 4524),
    ("v4.0", "ASUSTeK/results/ESC_N8A-E12", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7138),
    ("v4.0", "Dell/results/R760xax4L40S", "l40s", 4, 400,
     "resnet-v1b-fl", 2186),
    ("v4.0", "Dell/results/XE8640x4H100-SXM-80GB", "h100", 4, 400,
     "resnet-v1b-mainloop-fl", 7155),
    ("v4.0", "Dell/results/XE9680x8H100-SXM-80GB", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7140),
    ("v4.0", "Fujitsu/results/GX2560M7_H100_SXM_80GBx4", "h100", 4, 816,
     "resnet-v1b-mainloop-fl", 7450),
    ("v4.0", "Fujitsu/results/PRIMERGY-CDI-L40Sx8", "l40s", 8, 300,
     "resnet-v1b-fl", 1858),
    ("v4.0", "GigaComputing/results/G593-SD1_mxnet", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7134),
    ("v4.0", "HPE/results/HPE-Cray-XD670-Gen11-H100-SXM5-80GB_n1_mxnet_24.04", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7159),
    ("v4.0", "Lenovo/results/SR675V3-8xL40S_PCIe_48GB_350W", "l40s", 8, 300,
     "resnet-v1b-fl", 1852),
    ("v4.0", "Lenovo/results/SR685aV3-8xH100_SXM5_80GB_700W", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7126),
    ("v4.0", "NVIDIA/results/eos_ngc24.04_mxnet", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7161),
    ("v4.0", "NVIDIA/results/h200_ngc24.04_mxnet", "h200", 8, 400,
     "resnet-v1b-mainloop-fl", 7951),
    ("v4.0", "Oracle/results/1xBM.GPU.H100.8", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7080),
    ("v4.0", "Quanta_Cloud_Technology/results/D54U-3U", "h100-pcie", 4, 816,
     "resnet-v1b-mainloop-fl", 4705),
    ("v4.0", "Quanta_Cloud_Technology/results/D74H-7U", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7112),
    ("v4.0", "Supermicro/results/AS-8125GS-TNHR-1", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7154),
    ("v4.0", "Supermicro/results/AS-8125GS-TNHR_8_H100-SXM-80GB", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7132),
    ("v4.0", "Supermicro/results/SYS-421GE-TNHR2-LCC-1", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7171),
    ("v4.0", "Supermicro/results/SYS-821GE-TNHR-1", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7129),
    ("v4.0", "smc/results/1xSMC-H100-SXM-80GB", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7132),
    ("v4.0", "smc-ac-power/results/1xSMC-H100-SXM-80GB", "h100", 8, 400,
     "resnet-v1b-mainloop-fl", 7059),
]
# the framework file that describes each network of NVIDIA's MXNet code (symbols/<network>.py):
# resnet-v1b-stats-fl computes a norm's statistics in its convolution's epilogue, as
# mainloop-fl does, but applies the norm and ReLU in a kernel of its own (ScaleBiasAddRelu),
# as resnet-v1b-fl does; no [framework] key says that half, so it takes fused-bn-relu's
FRAMEWORK_OF = {"resnet-v1b-mainloop-fl": "fused", "resnet-v1b-fl": "fused-bn-relu",
                "resnet-v1b-stats-fl": "fused-bn-relu"}


def mlperf_predict(a, dev, gpus, batch, fw, path=None):
    """Images per second and GPU, and the step time, on one node of G devices (a PCIe part's
    server of G cards: -g G up to its description's max_devices_per_node, the cards reaching
    each other over the description's PCIe link); path: a description in place of dev's."""
    path = path or os.path.join(ROOT, "configs", "devices", dev + ".ini")
    d = json.loads(run(a.bin, "curve", "resnet50", "--device", path, "--precision", "bf16",
                       "--batch", str(batch), "--nodes", "1", "-g", str(gpus), "--framework", fw,
                       "--format", "json"))
    pt = d["curves"][0]["points"][0]
    return pt["images_per_s"] / pt["devices"], pt["t_step"]


def a100_at(a, conv_efficiency):
    """mlperf_predict's images per second and GPU of the 8-GPU A100 SXM node at batch 408, with
    the shipped a100 description's bf16 convolutions at another efficiency."""
    with open(os.path.join(ROOT, "configs", "devices", "a100.ini")) as f:
        text = f.read().replace("[device]\n",
                                f"[device]\nconv_efficiency_bf16 = {conv_efficiency}\n", 1)
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
        f.write(text)
    try:
        return mlperf_predict(a, "a100", 8, 408, "fused-bn-relu", path=f.name)[0]
    finally:
        os.unlink(f.name)


def mlperf_nodes_section(a, w):
    w("\n## MLPerf Training v2.1, v3.1 and v4.0 ResNet-50, single nodes, calibration-free\n")
    w("Every closed-division single-node ResNet-50 submission of MLPerf Training v3.1 and v4.0")
    w("on an H100 SXM, H100 PCIe, H200, A100 PCIe 80GB or L40S, and of v2.1 on an A100 SXM 80GB")
    w("or A100 PCIe 80GB: training images per second and")
    w("GPU, the median epoch of five runs (evaluation left out; `tools/mlperf_epochs.py` on")
    w("mlcommons/training_results_v2.1 at " + MLPERF_RUNS["v2.1"][:7] + ", _v3.1 at "
      + MLPERF_RUNS["v3.1"][:7] + " and _v4.0 at " + MLPERF_RUNS["v4.0"][:7] + ", the")
    w("systems' folder under `results/`; the logs' own throughput lines agree within 1 img/s),")
    w("against `scalemeter curve resnet50 --device D --precision bf16 --batch B --nodes 1 -g G")
    w("--framework F` with the batch per GPU and the network the logs name. All ran NVIDIA's")
    w("MXNet code: `resnet-v1b-mainloop-fl` is `fused`, `resnet-v1b-fl` `fused-bn-relu`, and")
    w("`resnet-v1b-stats-fl` (A100: the norms' statistics in the convolutions' epilogues,")
    w("their application in a kernel of its own) is taken as `fused-bn-relu` (marked *), whose")
    w("norms also take a pass of their own. PCIe parts are described one to a node; a server of")
    w("G cards is `-g G`, up to the description's `max_devices_per_node`.\n")
    w("| round | system | part | GPUs | batch per GPU | network | framework | measured img/s "
      "per GPU | predicted | error |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    ratios, steps = {}, {}
    for rnd, system, dev, gpus, batch, network, measured in MLPERF_NODES:
        fw = FRAMEWORK_OF[network]
        pred, t_step = mlperf_predict(a, dev, gpus, batch, fw)
        ratios.setdefault(dev, []).append(pred / measured)
        validation_rows.record(f"MLPerf Training {rnd}: {system.split('/')[0]} "
                               f"{system.split('/')[-1]}", dev, "resnet50 (" + network + ")",
                               "bf16", gpus, batch, measured, pred, "img/s")
        steps[system, rnd] = (batch / measured, t_step)
        star = "*" if network == "resnet-v1b-stats-fl" else ""
        w(f"| {rnd} | {system.split('/')[0]} {system.split('/')[-1]} | {dev} | {gpus} | "
          f"{batch} | {network} | {fw}{star} | {measured} | {pred:.0f} | "
          f"{pred / measured - 1:+.1%} |")
    fused_a100, _ = mlperf_predict(a, "a100-pcie-80gb", 8, 400, "fused")
    w("\nPer part, predicted over measured:\n")
    w("| part | systems | median | lowest | highest | within 10% |")
    w("|---|---|---|---|---|---|")
    for dev in ("h100", "h100-pcie", "h200", "a100", "a100-pcie-80gb", "l40s"):
        r = sorted(ratios[dev])
        med = statistics.median(r)
        w(f"| {dev} | {len(r)} | {med:.3f} | {r[0]:.3f} | {r[-1]:.3f} | "
          f"{sum(abs(x - 1) <= 0.10 for x in r)} |")
    # the same code (NGC 24.04) on H100 and H200 nodes: what scales with memory bandwidth
    m100, p100 = steps["NVIDIA/results/eos_ngc24.04_mxnet", "v4.0"]
    m200, p200 = steps["NVIDIA/results/h200_ngc24.04_mxnet", "v4.0"]
    bw = 3350 / 4800
    mem = (m100 - m200) / (1 - bw)
    w("\nWhere they miss, and why Hopper's convolutions are priced apart. The H200 is the H100's")
    w("chip (132 SMs, 1,980 MHz, 700 W) with 1.43 times its memory bandwidth (4.8 against 3.35")
    w("TB/s), and NVIDIA ran the same code on both (NGC 24.04): a step of 400 images took")
    w(f"{m100 * 1e3:.1f} ms on the H100 and {m200 * 1e3:.1f} ms on the H200, {m100 / m200:.3f} "
      f"times faster; predicted {p100 * 1e3:.1f} and")
    w(f"{p200 * 1e3:.1f} ms, {p100 / p200:.3f} times. Split into a part that follows the memory "
      "bandwidth and one")
    w(f"that does not, the measured pair puts {mem * 1e3:.1f} ms of the H100's step "
      f"({mem / m100:.0%}) on memory and")
    w(f"{(m100 - mem) * 1e3:.1f} ms on the SMs; the predicted pair, "
      f"{(p100 - p200) / (1 - bw) * 1e3:.1f} ms ({(p100 - p200) / (1 - bw) / p100:.0%}) on memory. "
      "The SMs' part is")
    w("the convolutions', which the Hopper descriptions price at 0.35 of the bf16 peak, half its")
    w("matrix products' 0.7 (`conv_efficiency_bf16`, docs/devices.md: `fit --device-out` on the")
    w("eager bf16 CNN runs of ../shared/data/h100 finds 0.344, independently of these figures);")
    w("at 0.7 for both, as before, the two parts were predicted 46.0 and 35.0 ms, 1.315 times,")
    w("and the H100 rows a median 1.22 of the measured throughput. What is left on the H200, a")
    w("step whose memory part the model still puts above the measured one, is NVIDIA's")
    w("NormConvolution kernels carrying their neighbours' norm statistics and application in")
    w("their epilogues and prologues, which the `fused` framework counts as no pass over memory")
    w("for the norms but a full one for each convolution's input and output. It carries to the")
    w("H100 PCIe:")
    mp, pp = steps["ASUSTeK/results/ESC8000A-E12-8xH100-PCIE-80GB", "v4.0"]
    w(f"PCIe over SXM is {m100 / mp:.3f} measured (ASUSTeK's ESC8000A-E12 and NVIDIA's eos, both "
      f"NGC 24.04) and")
    w(f"{p100 / pp:.3f} predicted, so the part's own limits (114 SMs at 1,755 MHz, 2 TB/s, 350 W) "
      "come out")
    w("right (its clock under 350 W included, docs/devices.md).")
    sxm = [m for r, _, d, _, _, _, m in MLPERF_NODES if r == "v2.1" and d == "a100"]
    pcie = [m for r, _, d, _, _, _, m in MLPERF_NODES if r == "v2.1" and d == "a100-pcie-80gb"]
    # the 8-GPU nodes' predicted steps, from the rows above (batch 408 over the step)
    sxm_pred = 408 / steps["NVIDIA/results/dgxa100_ngc22.04_mxnet", "v2.1"][1]
    pcie_pred = 408 / steps["ASUSTeK/results/ESC8000A-E11-8xA100-PCIE-80GB-NVBridge", "v2.1"][1]
    w("The A100s: in v2.1, where the SXM part and the PCIe card ran the same code (NGC 22.04 to")
    w("22.09, batch 408), PCIe over SXM is")
    w(f"{statistics.median(pcie) / statistics.median(sxm):.3f} measured (the systems' medians) "
      f"and {pcie_pred / sxm_pred:.3f} predicted (8 GPUs), so the PCIe card's clock")
    w("under its 300 W limit comes out right. Ampere's convolutions are priced at 0.5 of the")
    w("bf16 peak on GA100 (device_arch.c), 1,024 FLOP a SM and clock where Hopper's 0.35 are")
    w("1,325 at its boost clock; at 0.7, the fraction its matrix products reach and the one the")
    w(f"descriptions took before, the 8-GPU SXM node came out {a100_at(a, 0.7):.0f} img/s per GPU")
    w(f"against {statistics.median(sxm):.0f} measured, and the A100 rows 1.11-1.20 of their")
    w("figures. NVIDIA's DeepLearningExamples AMP rows above agree where the host runs ahead of")
    w("the device (their queued column), and Lambda's eager ResNet-50 on three A100 parts")
    w("([accuracy-gpus.md](accuracy-gpus.md)). GA102's tensor cores (A10, RTX A6000) do half")
    w("GA100's work a SM and clock, so their convolutions keep their products' 0.7.")
    w(f"`--framework fused` (convolutions that carry the norms) puts the A100 PCIe at {fused_a100:.0f}")
    w("img/s per GPU at 8 GPUs.")
    m2, p2 = steps["Fujitsu/results/primergy-cdi-A100x2-mxnet-ngc23.09", "v3.1"]
    m10, p10 = steps["Fujitsu/results/primergy-cdi-A100x10-mxnet-ngc23.09", "v3.1"]
    w("Its runs also lose more per")
    w(f"GPU from 2 to 10 GPUs ({(320 / m10) / (408 / m2):.3f} measured, "
      f"{(320 / p10) / (408 / p2):.3f} predicted) than the model's")
    w("all-reduce over one PCIe 4.0 link per card gives: ten cards share the host's root ports")
    w("and cross its two sockets. The L40S is the one part within reach, and its spread is not")
    w("the GPU's: the same eight cards at the same batch and network ran 2,204 img/s per GPU in")
    w("xFusion's server (NGC 23.09) and 1,858 and 1,852 in Fujitsu's and Lenovo's (NGC 24.04),")
    w("a host and software difference that no device description holds.")


# NVIDIA DeepLearningExamples, PyTorch/Classification/ConvNets at 7bdfc81d (2021-04-20, the
# pytorch-21.03 tables): per network and (device, precision), the batch per GPU its configs.yml
# gives the platform (DGXA100, DGX1V) and the published img/s on one GPU and on eight.
DLE = {
    "resnet50": {("a100", "tf32"): (256, 938, 7248), ("a100", "bf16"): (256, 2470, 16621),
                 ("v100", "fp32"): (112, 367, 2855), ("v100", "fp16"): (256, 1200, 8322)},
    "resnext101_32x4d": {("a100", "tf32"): (128, 456, 3471),
                         ("a100", "bf16"): (128, 1211, 7925),
                         ("v100", "fp32"): (64, 147, 1133), ("v100", "fp16"): (128, 587, 4065)},
    "se_resnext101_32x4d": {("a100", "tf32"): (128, 395, 2991),
                            ("a100", "bf16"): (128, 855, 5779),
                            ("v100", "fp32"): (64, 132, 1004),
                            ("v100", "fp16"): (112, 443, 2971)},
    "efficientnet_b0": {("a100", "tf32"): (256, 1078, 8193), ("a100", "bf16"): (256, 2489, 16652),
                        ("v100", "fp32"): (64, 655, 4672), ("v100", "fp16"): (128, 1301, 7789)},
}


# The same examples' inference tables (PyTorch/Classification/ConvNets/*/README.md at
# 7bdfc81d, "Inference performance", the pytorch-21.03 container): per network and (device,
# precision), at batch 256, the largest the tables give, the mean throughput (img/s), the mean
# latency and its 99th percentile (ms). A step is one validation step's compute, the loader's
# wait left out (image_classification/training.py, validate(): forward, loss and top-k under
# no_grad, synchronised); the throughput is the mean of each step's batch over its time.
DLE_INFER = {
    "resnet50": {("v100", "fp32"): (1261, 214.48, 202.88), ("v100", "fp16"): (3382, 84.14, 80.08),
                 ("t4", "fp32"): (415, 635.98, 625.21), ("t4", "fp16"): (1198, 225.95, 222.94)},
    "resnext101_32x4d": {("v100", "fp32"): (533, 496.76, 480.42),
                         ("v100", "fp16"): (1746, 154.68, 146.52),
                         ("t4", "fp32"): (161, 1615.79, 1583.43),
                         ("t4", "fp16"): (598, 439.3, 431.46)},
    "se_resnext101_32x4d": {("v100", "fp32"): (508, 519.84, 501.5),
                            ("v100", "fp16"): (1576, 170.79, 162.93),
                            ("t4", "fp32"): (158, 1641.96, 1614.52),
                            ("t4", "fp16"): (527, 496.23, 488.3)},
    "efficientnet_b0": {("a100", "tf32"): (5154, 60.71, 54.99),
                        ("a100", "bf16"): (10239, 39.05, 29.24),
                        ("v100", "fp32"): (2968, 94.86, 91.01),
                        ("v100", "fp16"): (6176, 49.36, 43.5)},
}
DLE_INFER_BATCH = 256


def without_dispatch(framework, tmp):
    """configs/frameworks/FRAMEWORK.ini with every dispatch cost 0: the device's part alone."""
    with open(os.path.join(ROOT, "configs", "frameworks", framework + ".ini")) as f:
        text = re.sub(r"(?m)^(dispatch_\w+_us) = .*$", r"\1 = 0", f.read())
    path = os.path.join(tmp, framework + "-no-dispatch.ini")
    with open(path, "w") as f:
        f.write(text)
    return path


def h100_medians(a):
    """The median step ratio of the h100 description (its eager framework queued, priced op
    class by op class) on each of the shipped H100 sets."""
    medians = []
    for name in ("h100-pytorch-tf32", "h100-pytorch-bf16", "h100-pytorch-fp32"):
        out = json.loads(run(a.bin, "validate", os.path.join(ROOT, CAL, name + ".csv"),
                             "--device", "h100", "--format", "json"))
        medians.append(out["phases"]["step"]["overall"]["median_ratio"])
    return medians


def dle_host_table(a, w):
    """The one-GPU rows' step split into the device's part and the host's dispatch."""
    w("\nThe one-GPU rows' step (`predict`'s t_fwd + t_bwd + t_grad, ms) beside the device's")
    w("part alone (the same framework file with every `dispatch_*_us` 0) and the published")
    w("step (batch over img/s); the model adds the host's dispatch of each kernel to the")
    w("device's time (docs/calibration.md); queued, the host issues each layer's kernels while")
    w("the device runs the earlier ones (`--dispatch queued`):\n")
    w("| network | device | precision | predicted step | device alone | host's dispatch | queued | published | predicted / published | device alone / published | queued / published |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = {}
    with tempfile.TemporaryDirectory() as tmp:
        for net, rows in DLE.items():
            for (dev, prec), (batch, one, _) in rows.items():
                framework = "pytorch-channels-last" if prec in ("fp16", "bf16") else "pytorch-eager"
                steps = []
                for fw, form in ((framework, "added"), (without_dispatch(framework, tmp), "added"),
                                 (framework, "queued")):
                    d = json.loads(run(a.bin, "predict", net, "--device", dev, "-g", "1",
                                       "--batch", str(batch), "--precision", prec,
                                       "--framework", fw, "--dispatch", form, "--format", "json"))
                    steps.append(d["t_fwd"] + d["t_bwd"] + d["t_grad"])
                published = batch / one
                ratios[net, dev, prec] = tuple(x / published for x in steps)
                w(f"| {net} | {dev} | {prec} | {steps[0] * 1e3:.1f} | {steps[1] * 1e3:.1f} | "
                  f"{(steps[0] - steps[1]) * 1e3:.1f} | {steps[2] * 1e3:.1f} | "
                  f"{published * 1e3:.1f} | {steps[0] / published:.2f} | "
                  f"{steps[1] / published:.2f} | {steps[2] / published:.2f} |")
    return ratios


def largest_runs_section(a, w):
    """Each network's largest run of the eager PyTorch H100 sets, phase by phase: where the
    device's work dominates, what the calibration-free model gets wrong per kind of layer
    shows, unmixed with the host's dispatch of the small runs."""
    w("\nThe same, each network's largest run alone (the greatest image x batch of its rows),")
    w("predicted over measured, `scalemeter predict NET --device h100 -g 1 --batch B --image S")
    w("--precision P --format json`. There the device's work is most of the step:\n")
    w("| data | network | image | batch | infer | fwd | bwd | step |")
    w("|---|---|---|---|---|---|---|---|")
    depthwise = {"mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "mnasnet1_0"}
    bwd, step_dw = {True: [], False: []}, []
    for name in ("h100-pytorch-tf32", "h100-pytorch-bf16", "h100-pytorch-fp32"):
        with open(os.path.join(ROOT, CAL, name + ".csv")) as f:
            rows = list(csv.DictReader(f))
        precision = rows[0]["precision"]
        largest = {}
        for r in rows:
            size = int(r["image"]) ** 2 * int(r["batch"])
            if int(r["nodes"]) * int(r["gpus_per_node"]) == 1 and \
                    size > largest.get(r["model"], (0, None))[0]:
                largest[r["model"]] = (size, r)
        for model in sorted(largest):
            r = largest[model][1]
            d = json.loads(run(a.bin, "predict", model, "--device", "h100", "-g", "1",
                               "--batch", r["batch"], "--image", r["image"], "--precision",
                               precision, "--format", "json"))
            ratio = {p: d["t_" + p] / float(r["t_" + p]) for p in ("infer", "fwd", "bwd", "step")}
            bwd[model in depthwise].append(ratio["bwd"])
            if model in depthwise:
                step_dw.append(ratio["step"])
            w(f"| {name} | {model} | {r['image']} | {r['batch']} | " +
              " | ".join(f"{ratio[p]:.2f}" for p in ("infer", "fwd", "bwd", "step")) + " |")
    w(f"\nAt their largest runs the backward pass comes out short for most networks: "
      f"{min(bwd[True]):.2f} to")
    w(f"{max(bwd[True]):.2f} of the measured one for those of depthwise convolutions "
      f"({', '.join(sorted(depthwise))}),")
    w(f"{min(bwd[False]):.2f} to {max(bwd[False]):.2f} for the others. The shipped efficiencies "
      "were fitted over every size of")
    w("these sets, where the small runs are mostly the host's dispatch (docs/calibration.md), and at")
    w("the largest the device's backward work is what the model prices lowest. PyTorch runs the")
    w("depthwise convolutions, in NCHW at fp32, tf32 and bf16, in kernels of its own rather than")
    w("cuDNN's (ATen's `use_cudnn_depthwise` takes fp16 or channels-last only), bound by the SMs,")
    w("not the DRAM: the descriptions price them per SM and clock as an H200 ran them")
    w("(`depthwise_*_per_sm_clock`, docs/ops-h200.md \"Direct convolutions\"; priced by the bytes")
    w("they move, as before, these backward passes came out at 0.50 to 0.73). A planner of")
    w("MobileNet or EfficientNet training at large batches should expect steps up to "
      f"{1 / min(step_dw):.1f} times the prediction.\n")


def dle_section(a, w):
    w("\n## DeepLearningExamples' ConvNets, one GPU and eight, calibration-free\n")
    w("NVIDIA DeepLearningExamples (PyTorch/Classification/ConvNets at 7bdfc81d, the")
    w("pytorch-21.03 container's tables; DDP), training throughput on one GPU and on the eight of a")
    w("node: DGX A100 80GB in TF32 and AMP, DGX-1 (V100 16GB) in FP32 and AMP, for ResNet-50 v1.5,")
    w("ResNeXt101-32x4d, SE-ResNeXt101-32x4d (the zoo's `resnext101_32x4d` and")
    w("`se_resnext101_32x4d`, written from the examples' own models/resnet.py) and EfficientNet-B0")
    w("(models/efficientnet.py's, the paper's B0 as torchvision's `efficientnet_b0` is, its")
    w("squeeze-excitation a quarter of the block's input wide). Each at the batch per GPU its")
    w("configs.yml gives the platform and precision (ResNet-50: 256, FP32 on the V100 112;")
    w("ResNeXt: 128, FP32 on the V100 64; SE-ResNeXt: 128, on the V100 64 in FP32 and 112 in AMP;")
    w("EfficientNet-B0: 256 on the A100, on the V100 64 in FP32 and 128 in AMP). AMP is fp16,")
    w("modelled at bf16 on the A100 (the same peak;")
    w("[precision.md](precision.md)). Predicted by `scalemeter curve MODEL --device D --batch B")
    w("--nodes 1 -g G --precision P --overlap` (eager PyTorch, the device files' framework; DDP")
    w("overlaps its buckets with the backward pass), with `--framework pytorch-channels-last` for")
    w("AMP, whose runs keep their activations channels-last (configs.yml: `memory_format: nhwc` in")
    w("every AMP configuration). The A100's and V100's files take their efficiencies from their")
    w("architecture (docs/devices.md: 64 FP32 lanes per SM reach 0.85 of the FP32 peak; tensor")
    w("cores 0.28 for Ampere's convolutions at TF32, 0.7 at fp16 and bf16).\n")
    w("| network | device | precision | framework | batch | GPUs | predicted img/s | published | error |")
    w("|---|---|---|---|---|---|---|---|---|")
    ips, errors = {}, {}
    for net, rows in DLE.items():
        for (dev, prec), (batch, *pubs) in rows.items():
            amp = prec in ("fp16", "bf16")
            framework = ("--framework", "pytorch-channels-last") if amp else ()
            for gpus, pub in zip((1, 8), pubs):
                d = json.loads(run(a.bin, "curve", net, "--device", dev, "--batch", str(batch),
                                   "--nodes", "1", "-g", str(gpus), "--precision", prec,
                                   *framework, "--overlap", "--format", "json"))
                if "curves" not in d:
                    sys.exit("accuracy_report: unexpected curve JSON")
                point = d["curves"][0]["points"][0]
                if point["memory"]["fits"] is not True:
                    sys.exit(f"accuracy_report: {net} at batch {batch} does not fit a {dev}")
                got = ips[net, dev, prec, gpus] = point["images_per_s"]
                errors[net, dev, prec, gpus] = got / pub - 1
                validation_rows.record("NVIDIA DeepLearningExamples ConvNets, pytorch-21.03",
                                       dev, net, prec, gpus, batch, pub, got, "img/s")
                w(f"| {net} | {dev} | {prec} | "
                  f"{framework[1] if amp else 'pytorch-eager'} | {batch} | {gpus} | "
                  f"{got:.0f} | {pub} | {got / pub - 1:+.1%} |")
    within = sum(abs(e) <= 0.10 for e in errors.values())
    w(f"\n{within} of {len(errors)} figures within 10%. Per precision and GPU count, the median")
    w("error:\n")
    w("| precision | 1 GPU | 8 GPUs |")
    w("|---|---|---|")
    for label, precs in (("TF32 (A100), FP32 (V100)", ("tf32", "fp32")),
                         ("AMP (A100, V100)", ("bf16", "fp16"))):
        cells = [statistics.median(e for (n, d, p, g), e in errors.items()
                                   if p in precs and g == gpus) for gpus in (1, 8)]
        w(f"| {label} | {cells[0]:+.1%} | {cells[1]:+.1%} |")
    ratios = dle_host_table(a, w)
    w("\nAMP over TF32 on one A100, ResNet-50: "
      f"{ips['resnet50', 'a100', 'bf16', 1] / ips['resnet50', 'a100', 'tf32', 1]:.2f} predicted,")
    w("2.63 published. Eight GPUs over one (the tables' \"strong scaling\", at a fixed batch per")
    w("GPU), predicted and published:\n")
    w("| network | device | precision | predicted | published |")
    w("|---|---|---|---|---|")
    for net, rows in DLE.items():
        for (dev, prec), (batch, one, eight) in rows.items():
            w(f"| {net} | {dev} | {prec} | {ips[net, dev, prec, 8] / ips[net, dev, prec, 1]:.2f} | "
              f"{eight / one:.2f} |")

    def span(values, form):
        values = sorted(values)
        return f"{form.format(values[0])} to {form.format(values[-1])}"

    amp = [r for (n, d, p), r in ratios.items() if p in ("fp16", "bf16")]
    full = [r for (n, d, p), r in ratios.items() if p not in ("fp16", "bf16")]
    scale_amp = [e / o for rows in DLE.values() for (d, p), (b, o, e) in rows.items()
                 if p in ("fp16", "bf16")]
    scale_full = [e / o for rows in DLE.values() for (d, p), (b, o, e) in rows.items()
                  if p not in ("fp16", "bf16")]
    grouped = [errors["resnext101_32x4d", "v100", "fp32", g] for g in (1, 8)]
    grouped += [errors["se_resnext101_32x4d", "v100", "fp32", g] for g in (1, 8)]
    w("\nWhere they miss, and which limit the model gets wrong:\n")
    w(f"- **One GPU in AMP** ({span([errors[k] for k in errors if k[2] in ('fp16', 'bf16') and k[3] == 1], '{:+.1%}')}): the")
    w(f"  device's part alone is {span([r[1] for r in amp], '{:.2f}')} of the published step, the host's dispatch")
    w(f"  added {span([r[0] for r in amp], '{:.2f}')}. With tensor cores the device's part is two to three times")
    w("  shorter while the host's grows (autocast's casts), and the published steps, near the")
    w("  device's part, say that the host of these runs queued its kernels ahead of the device,")
    w("  hiding most of its dispatch behind it: queued, the model puts them at "
      f"{span([r[2] for r in amp], '{:.2f}')}.")
    w("  It adds the two: the DLE frameworks' dispatch was fitted beside the H100's eager runs")
    w("  in the added form, before the h100 description's own eager framework queued its kernels")
    w("  with prices per op class (its steps at")
    w(f"  {span(h100_medians(a), '{:.2f}')} of the H100 sets' measured ones, median per set;")
    w("  [devices.md](devices.md)). In TF32 and FP32, where the device's part is")
    w(f"  longer, the sum comes out at {span([r[0] for r in full], '{:.2f}')}. SE-ResNeXt, whose squeeze-excitation")
    w("  launches five small kernels per block on 1 x 1 maps, lies between the two bounds: how")
    w("  much of the host's dispatch the device hides, layer by layer, is what per-layer timings")
    w("  on a GPU (issue 38) will fit.")
    w(f"- **Eight GPUs over one**: published {span(scale_amp, '{:.2f}')} in AMP, on both DGX generations and")
    w(f"  all four networks, and {span(scale_full, '{:.2f}')} in TF32 and FP32; predicted 8.00. The model's")
    w("  all-reduce hides behind the backward pass at these sizes (ResNeXt's 44 M fp32 gradients,")
    w("  177 MB, take about 1.3 ms over an A100's NVLink against a 106 ms AMP step). What the")
    w("  eight GPUs of a node share besides their links (the host's CPUs, for DALI's decoding")
    w("  and eight processes' dispatch) costs most where the step is shortest; no device")
    w("  description holds it ([scaling.md](scaling.md)). The two misses meet at eight GPUs in")
    w("  AMP (the median above). Lambda's runs of a later version of the same ResNet-50 code on")
    w(f"  synthetic data, no DALI, kept {span(lambda_h100_8x(), '{:.3f}')} of the one-GPU rate per GPU")
    w("  on eight H100 SXM (three vendors' HGX boards and a LambdaOD instance), in AMP and TF32,")
    w("  as the model says")
    w("  ([accuracy-multi-gpu.md](accuracy-multi-gpu.md)).")
    w(f"- **V100 FP32 ResNeXt** ({span(grouped, '{:+.1%}')}): most likely the 3 x 3 convolutions of 32")
    w("  groups of 4 channels, priced as dense ones of their FLOPs at 0.85 of the FP32 peak; the")
    w("  same networks on the A100 in TF32 come out within 4%, and ResNet-50, of dense")
    w("  convolutions, is under-predicted on the V100 (above). Whether cuDNN's grouped kernels")
    w("  on Volta reach less is what a rate per kind of convolution (dense, 1 x 1, grouped,")
    w("  depthwise), issue 38's per-op table, will say.")
    return {k: 1 + e for k, e in errors.items()}


def dense_3x3_layers(a, net):
    """The network's dense 3 x 3 convolutions of stride 1: kernel and groups from its network
    file (op_table.conv_shapes), stride 1 where the input's positions (its elements over its
    channels) are the output's."""
    layers = {layer["name"]: layer for layer in op_table.per_layer(a.bin, net)["per_layer"]}
    return {name for name, (taps, groups, per_group) in op_table.conv_shapes(a.bin, net).items()
            if taps == 9 and groups == 1 and
            layers[name]["inputs"] // per_group == math.prod(layers[name]["output"][1:])}


def dle_inference_section(a, w, dle_ratios):
    """dle_ratios: the training table's predicted over published, by (network, device,
    precision, GPUs)."""
    w("\n## DeepLearningExamples' ConvNets inference, calibration-free\n")
    w("The same examples' inference tables (the READMEs at 7bdfc81d, pytorch-21.03): one DGX-1")
    w("V100 16GB (`v100`), one T4 (`t4`) and, for EfficientNet-B0, one A100 80GB (`a100`), FP32 or")
    w("TF32 on NCHW tensors and AMP on channels-last ones (configs.yml), at batch 256, the tables'")
    w("largest. A step is one validation step's compute time, the loader's wait left out")
    w("(image_classification/training.py, validate(): forward, loss and top-k under no_grad,")
    w("synchronised). The figure compared is the tables' throughput, the mean of each step's")
    w("batch over its time, against batch over `scalemeter predict MODEL --device D -g 1 --batch")
    w("256 --precision P` t_infer (AMP: `--precision fp16 --framework pytorch-channels-last`, bf16")
    w("on the A100 as in the training table).")
    slow = sum(lat > p99 for rows in DLE_INFER.values() for ips, lat, p99 in rows.values())
    w(f"Not the mean latency: in {slow} of the {sum(map(len, DLE_INFER.values()))} rows it lies above "
      "the 99th percentile, a few slow")
    w("steps (cudnn.benchmark's first, which tries every algorithm) in its sum, which barely move")
    w("a mean of rates.\n")
    w("| network | device | precision | published img/s | predicted | predicted / published |")
    w("|---|---|---|---|---|---|")
    ratios = {}
    for net, rows in DLE_INFER.items():
        for (dev, prec), (ips, _, _) in rows.items():
            framework = (("--framework", "pytorch-channels-last")
                         if prec in ("fp16", "bf16") else ())
            d = json.loads(run(a.bin, "predict", net, "--device", dev, "-g", "1", "--batch",
                               str(DLE_INFER_BATCH), "--precision", prec, *framework,
                               "--format", "json"))
            got = DLE_INFER_BATCH / d["t_infer"]
            ratios[net, dev, prec] = got / ips
            validation_rows.record("NVIDIA DeepLearningExamples ConvNets inference, "
                                   "pytorch-21.03", dev, net, prec, 1, DLE_INFER_BATCH,
                                   ips, got, "img/s")
            w(f"| {net} | {dev} | {prec} | {ips} | {got:.0f} | {got / ips:.3f} |")
    within = sum(abs(r - 1) <= 0.10 for r in ratios.values())
    values = sorted(ratios.values())
    one_gpu = sorted(r for (n, d, p, g), r in dle_ratios.items() if g == 1)
    w(f"\n{within} of {len(ratios)} within 10%, from {values[0]:.2f} to {values[-1]:.2f} "
      f"(median {statistics.median(values):.2f}): the")
    w("model prices these forward passes slower than they ran, where the same code's one-GPU")
    w(f"training steps (the table above) come out at {one_gpu[0]:.2f} to {one_gpu[-1]:.2f} "
      f"(median {statistics.median(one_gpu):.2f}).")
    dense = dense_3x3_layers(a, "resnet50")
    w("\nResNet-50 in FP32 is the furthest off on both parts without TF32, and of the V100's and")
    w(f"T4's networks it alone has dense 3 x 3 convolutions ({len(dense)} of stride 1; ResNeXt's and")
    w("SE-ResNeXt's are grouped), which cuDNN 8 can run as Winograd transforms, 2.25 (F(2x2,")
    w("3x3)) to 4 (F(4x4, 3x3)) times fewer multiplies than the direct arithmetic the model")
    w("prices on the CUDA cores. How fast those layers would have to run for the prediction to")
    w("meet the figure:\n")
    w("| device | their share of the predicted pass | predicted / published | speed-up they would need |")
    w("|---|---|---|---|")
    need = {}
    for dev in ("v100", "t4"):
        d = json.loads(run(a.bin, "predict", "resnet50", "--device", dev, "-g", "1", "--batch",
                           str(DLE_INFER_BATCH), "--precision", "fp32", "--per-layer",
                           "--format", "json"))
        total = sum(layer["t_infer"] for layer in d["layers"])
        share = sum(layer["t_infer"] for layer in d["layers"] if layer["layer"] in dense) / total
        excess = 1 - ratios["resnet50", dev, "fp32"]
        need[dev] = share / (share - excess) if share > excess else float("inf")
        w(f"| `{dev}` | {share:.2f} | {ratios['resnet50', dev, 'fp32']:.2f} | "
          + (f"{need[dev]:.1f} |" if share > excess else "more than they take |"))
    w("\nWinograd's arithmetic gives at most 4, less its transforms' cost: those layers alone")
    w("do not close either miss, and the rest of ResNet-50's FP32 pass ran faster than priced")
    w("too. On Volta and Turing the model prices every convolution at one fraction of the FP32")
    w("peak (docs/devices.md), and the T4's description holds the part at its 70 W clock, 900")
    w("MHz, under FP32 work as under tensor work; which algorithm cuDNN 8 chose for each layer,")
    w("and at what clock the part ran, only a profile on it would say.")
    eff_train = {p: statistics.median(r for (n, d, q, g), r in dle_ratios.items()
                                      if n == "efficientnet_b0" and d == "a100" and q == p
                                      and g == 1) for p in ("tf32", "bf16")}
    keys = sm_fit.shipped(r"conv1x1_(?:fwd|bwd)_efficiency_tf32", [sm_fit.HOPPER])[sm_fit.HOPPER]
    hopper = {p: keys[f"conv1x1_{p}_efficiency_tf32"] for p in ("fwd", "bwd")}
    w(f"\nEfficientNet-B0 on the A100 at TF32: {ratios['efficientnet_b0', 'a100', 'tf32']:.2f} "
      f"here, the forward pass alone, and {eff_train['tf32']:.2f} in training")
    v100 = [abs(r - 1) for (n, d, q, g), r in dle_ratios.items()
            if n == "efficientnet_b0" and d == "v100" and g == 1]
    w(f"on one GPU, where its AMP training comes out at {eff_train['bf16']:.2f} and the V100's FP32 "
      "and AMP")
    w(f"training within {max(v100):.0%}: the miss is its TF32 backward pass. Most of "
      "EfficientNet's")
    w("arithmetic is in 1 x 1 convolutions, and on an H100 cuDNN's TF32 1 x 1 kernels reach")
    w(f"{hopper['bwd']:.3f} of the peak backward against {hopper['fwd']:.3f} forward "
      "(conv1x1_*_efficiency_tf32,")
    w("configs/frameworks/pytorch-eager-hopper.ini, from its profiles), where the A100's")
    w("description takes Ampere's one TF32 fraction, 0.28, for every convolution in both passes")
    w("(set on NVIDIA's ResNet-50 TF32 figures, device_arch.c); its depthwise")
    w("convolutions, PyTorch's own kernels at TF32, are priced per SM and clock as an H100 ran")
    w("them under PyTorch 2.11. Which of the two the A100's backward pass spent longer on, a")
    w("profile on an A100 would say.")


def h200_section(a, w):
    """The shipped h200 description against PyTorch's bf16 runs on an H200, which no
    description was fitted to (configs/calibrations/h200-pytorch-bf16-rounds.csv)."""
    path = f"{CAL}/h200-pytorch-bf16-rounds.csv"
    with open(os.path.join(ROOT, path), newline="") as f:
        rows = list(csv.DictReader(f))
    fields = list(rows[0].keys())
    # device-bound: the GPU's kernels filled 90% or more of such passes in the profiles of the
    # same machine (docs/ops-h200.md); host-bound: the rest
    groups = {"all": rows,
              "image 224, batch 128 and 256": [r for r in rows if r["image"] == "224" and
                                               int(r["batch"]) >= 128],
              "image 128, or batch 32": [r for r in rows if r["image"] != "224" or
                                         int(r["batch"]) < 128]}
    w("\n## An H200 no description was fitted to\n")
    w(f"`scalemeter validate {path} --device h200 --precision bf16`: PyTorch 2.11's bf16 runs on")
    w("one H200 (`tools/gpu-validate.sh --phase repeat`, CUDA events, the shipped H100 sets'")
    w("method), every round a row. Step MAPE and ratio per phase; the H200 description's")
    w("efficiencies and dispatch are the H100's (fitted on another machine's host).\n")
    w("| rows | n | " + " | ".join(PHASES) + " |")
    w("|---|---|" + "---|" * len(PHASES))
    for label, sub in groups.items():
        m = validate_rows(a.bin, sub, fields, "--device", "h200", "--precision", "bf16")
        cells = [f"{fmt(m[p][0])} ({m[p][1]:.2f})" if p in m else "-" for p in PHASES]
        w(f"| {label} | {len(sub)} | " + " | ".join(cells) + " |")
    by = {}
    for r in rows:
        by.setdefault((r["model"], r["image"], r["batch"]), []).append(float(r["t_step"]))
    spread = {k: max(v) / min(v) for k, v in by.items() if len(v) > 1}
    dev = [x for (m, i, b), x in spread.items() if i == "224" and int(b) >= 128]
    host = [x for (m, i, b), x in spread.items() if not (i == "224" and int(b) >= 128)]
    # the H200 over the H100 at the same device-bound configurations, measured and predicted
    with open(os.path.join(ROOT, CAL, "h100-pytorch-bf16.csv"), newline="") as f:
        h100 = {(r["model"], r["image"], r["batch"]): float(r["t_step"])
                for r in csv.DictReader(f)}
    speed = []
    for (m, i, b), v in sorted(by.items()):
        if i == "224" and int(b) == 256 and (m, i, b) in h100:
            pred = [json.loads(run(a.bin, "predict", m, "--device", d, "-g", "1", "--batch", b,
                                   "--image", i, "--precision", "bf16", "--format",
                                   "json"))["t_step"] for d in ("h200", "h100")]
            speed.append(f"{m} {min(v) / h100[(m, i, b)]:.2f} ({pred[0] / pred[1]:.2f})")
    w("")
    w(f"Between rounds of one configuration (slowest / fastest t_step): at most "
      f"{max(dev):.2f} where the GPU is busy ({len(dev)} configurations), up to {max(host):.2f} "
      f"where the host sets the pace ({len(host)}). Two misses of opposite sign. Where the host "
      "sets the pace the model is slow: this machine dispatched a kernel in less than half the "
      "time the description takes, which was fitted on the H100 machine's host "
      "(docs/ops-h200.md, \"Whole passes\"); a node's host is not the GPU's to describe. "
      "Where the GPU is busy the model is fast: the H200's step over the H100's at image 224 "
      f"and batch 256 was (predicted in brackets) {', '.join(speed)}. The model speeds every "
      "memory-bound kernel up with the H200's 43% more bandwidth; the batch norms and "
      "depthwise convolutions that hold most of that time in eager PyTorch run far below it "
      "on either part (docs/ops-h200.md; on the H100 at 1.00-1.11 of the H200's time, "
      "docs/ops-h100-h200.md), so the H200 gains less.")


def fp32_events_section(a, w):
    """The shipped H100 fp32 set (wall clock around synchronisations, measure.py) against the
    same configurations again with CUDA events in a later lease (tools/torch_repeat_runs.py)."""
    path = f"{CAL}/h100-pytorch-fp32-rounds.csv"
    with open(os.path.join(ROOT, path), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(ROOT, CAL, "h100-pytorch-fp32.csv"), newline="") as f:
        wall = {(r["model"], r["image"], r["batch"]): r for r in csv.DictReader(f)}
    first = [r for r in rows if r["round"] == "0"]
    key = lambda r: (r["model"], r["image"], r["batch"])  # noqa: E731
    busy = lambda r: r["image"] == "224" and r["batch"] == "64"  # noqa: E731
    fields = [k for k in rows[0] if k != "round"]
    w("\n## The fp32 set again, with CUDA events\n")
    w(f"`{path}`: the configurations of the shipped H100 fp32 set")
    w("(`h100-pytorch-fp32.csv`, examples/pytorch/measure.py, wall clock around synchronisations,")
    w("2026-11-22) run again on an H100 in two leases of 2026-11-27 by `tools/gpu-validate.sh")
    w("--phase repeat --repeat-precision fp32`: CUDA events, the bf16 and tf32 sets' method; round 0 whole")
    w(f"({len(first)} rows), {len(rows) - len(first)} of round 1.")
    w("The SM clock held 1,980 MHz throughout")
    w("(tests/data/gpu-runs/h100-2026-11-27*/clocks-*.csv).\n")
    w("| rows | n | the two measurements' t_step, MAPE | median ratio (events / wall) | "
      "shipped h100, step MAPE (ratio): wall | events |")
    w("|---|---|---|---|---|---|")
    groups = {"all": first, "image 224, batch 64 (the GPU busy)": [r for r in first if busy(r)],
              "the rest (the host sets the pace)": [r for r in first if not busy(r)]}
    for label, sub in groups.items():
        ratios = [float(r["t_step"]) / float(wall[key(r)]["t_step"]) for r in sub]
        mape = statistics.mean(abs(x - 1) for x in ratios)
        cells = []
        for measured in ([wall[key(r)] for r in sub], sub):
            m = validate_rows(a.bin, measured, fields, "--device", "h100")
            cells.append(f"{fmt(m['step'][0])} ({m['step'][1]:.2f})")
        w(f"| {label} | {len(sub)} | {mape:.3f} | {statistics.median(ratios):.2f} | "
          + " | ".join(cells) + " |")
    again = {key(r): float(r["t_step"]) for r in rows if r["round"] == "1"}
    spread = [again[key(r)] / float(r["t_step"]) for r in first if key(r) in again]
    grad = statistics.median(float(r["t_grad"]) / float(wall[key(r)]["t_grad"]) for r in first)
    w("")
    w("Where the GPU is busy the two agree within a few percent; where the host sets the pace")
    w(f"they differ by up to {max(abs(x - 1) for x in spread):.0%} between two rounds on one day")
    q = statistics.quantiles(spread, n=4) if len(spread) > 10 else None
    w(f"(round 1 over round 0, {len(spread)} configurations: " +
      (f"{min(spread):.2f} to {max(spread):.2f}, quartiles {q[0]:.2f}, {q[1]:.2f}, {q[2]:.2f}"
       if q else ", ".join(f"{x:.2f}" for x in sorted(spread))) + ") and by more")
    w("between leases: the step of a small configuration is the host's dispatch of its kernels,")
    w("and a cloud VM's host is not the same from one lease to the next. The fp32 set's optimizer")
    w("step, 2-3 times the tf32 set's on the same networks, stays so with events (events over")
    w(f"wall clock, median {grad:.2f}): it is this machine's host, not the timing (the tf32 and bf16")
    w("sets came from another harness, on a host that dispatched faster). So a host-bound")
    w("configuration's measured time carries an error of this size whatever the model, and a")
    w("node's host speed belongs to the node's description, as `[framework]`'s dispatch keys")
    w("are; 0.10 step MAPE on sets dominated by small configurations is near their own noise.")


def rebuilt_section(a, w):
    """The h100 and h200 descriptions' eager framework as rebuilt (queued, op classes priced
    from the profiles) beside the added form they had (configs/frameworks/pytorch-eager.ini as
    it was then, every NCHW convolution transposed: pytorch-eager-cudnn8.ini, in place of their
    own [framework]), on every shipped set of eager PyTorch on them."""
    sets = [("h100-pytorch-bf16.csv", "h100", None), ("h100-pytorch-tf32.csv", "h100", None),
            ("h100-pytorch-fp32.csv", "h100", None),
            ("h100-pytorch-fp32-rounds.csv", "h100", "0"),
            ("h200-pytorch-bf16-rounds.csv", "h200", None)]
    w("\n## The rebuilt eager framework\n")
    w("The Hopper descriptions' `[framework]` (`base = pytorch-eager-hopper`) prices eager PyTorch")
    w("op class by op class from the H100's and H200's profiles and queues the host's dispatch")
    w("ahead of the kernels")
    w("([devices.md](devices.md), \"Eager PyTorch on Hopper\"; the convolutions' keys by")
    w("`tools/conv_kinds.py`). Beside it, the added form the descriptions had: the same part with")
    w("`configs/frameworks/pytorch-eager-cudnn8.ini` (pytorch-eager as it was then: one")
    w("convolution efficiency per precision fitted on whole steps, the dispatch added to each")
    w("layer, every NCHW convolution transposed). `validate` step MAPE (median ratio), no")
    w("fitting; the fp32 rounds' round 0 (\"The fp32 set again\" above).\n")
    w("| data | device | added (pytorch-eager-cudnn8) | rebuilt (as shipped) |")
    w("|---|---|---|---|")
    got = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, part, rnd in sets:
            with open(os.path.join(ROOT, CAL, name), newline="") as f:
                rows = list(csv.DictReader(f))
            fields = [k for k in rows[0] if k != "round"]
            if rnd is not None:
                rows = [r for r in rows if r["round"] == rnd]
            added = gpus_validation.with_framework(part, gpus_validation.CUDNN8, False,
                                                   os.path.join(tmp, part + "-added.ini"))
            cells = []
            for dev in (added, part):
                m = validate_rows(a.bin, rows, fields, "--device", dev)["step"]
                got.setdefault(name, []).append(m)
                cells.append(f"{fmt(m[0])} ({m[1]:.2f})")
            w(f"| {name.removesuffix('.csv')} | {part} | " + " | ".join(cells) + " |")
        asked = []
        for name in ("h100-pytorch-bf16.csv", "h100-pytorch-tf32.csv", "h100-pytorch-fp32.csv"):
            out = os.path.join(tmp, "fitted.ini")
            run(a.bin, "fit", os.path.join(ROOT, CAL, name), "-o", os.path.join(tmp, "c.ini"),
                "--device-out", out, "--device-base", "h100")
            asked.append(gpus_validation.fitted_keys(out)["memory_efficiency"])
    h200 = got["h200-pytorch-bf16-rounds.csv"]
    fp32 = got["h100-pytorch-fp32.csv"][1][1], got["h100-pytorch-fp32-rounds.csv"][1][1]
    w("")
    w("What it mends: the H200's rounds, which the added form priced at the H100's dispatch plus")
    w(f"the DRAM's rate for classes the SMs bind (median {h200[0][1]:.2f}, issue 37), now at")
    w(f"{h200[1][1]:.2f}; the bf16 and tf32 sets, whose GPU-busy configurations the added dispatch")
    w("padded. What it does not: the fp32 sets, measured on a lease host that dispatched slower")
    w("(their optimizer step 2-3 times the tf32 set's, \"The fp32 set again\"), come out short")
    w(f"(median {fp32[0]:.2f} and {fp32[1]:.2f}), where the added form's dispatch on every kernel")
    w("hid the host's pace; the dispatch keys are the tf32 set's host's. `fit --device-out` from")
    w(f"the rebuilt description asks a memory efficiency of {min(asked):.2f}-{max(asked):.2f} on the")
    w("three H100 sets (bf16, tf32, fp32), below a")
    w("streaming kernel's 0.7-0.9: what the profiles still find mispriced (the classifiers'")
    w("small products at 1.2-2.2, elementwise kernels, autocast's casts inside layer norms;")
    w("[ops-h100-h200.md](ops-h100-h200.md)) and what no class holds (the loss, autocast's casts,")
    w("AccumulateGrad), so the descriptions keep 0.7 and the 0.10 targets of issue 38 stay open.")


def fmt(x):
    return "-" if x is None else f"{x:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/bin/scalemeter"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/accuracy.md"))
    ap.add_argument("--no-write-calibrations", action="store_true",
                    help="leave configs/calibrations/*.ini as they are")
    validation_rows.add_argument(ap)
    a = ap.parse_args()
    out = []
    w = out.append
    w("# Accuracy of scalemeter's predictions\n")
    w("Regenerated by `tools/accuracy_report.py` (which also refits the shipped calibrations of")
    w("`configs/calibrations/` from their CSVs); every prediction below is what scalemeter computed,")
    w("beside the measured or published figures it is compared with, which name their source.")
    w("MAPE is a fraction; *ratio* is the median of predicted / measured (below 1: optimistic).")
    w("ConvMeter (ICPP '24) reports, leave-one-model-out, 0.18 step MAPE for one-GPU training")
    w("(its Table 3) and 0.25 for CPU inference (its Table 1).\n")
    w("## Shipped calibrations\n")
    w("| name | precision | data | rows |")
    w("|---|---|---|---|")
    loo_rows, split_rows, device_rows = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, data, label, opts, source in SETS:
            path = f"{CAL}/{data}"
            with open(os.path.join(ROOT, path)) as f:
                n_rows = sum(1 for _ in f) - 1
            precision = "fp32"
            with open(os.path.join(ROOT, path)) as f:
                r = next(csv.DictReader(f))
                precision = r.get("precision") or "fp32"
            w(f"| `{name}` | {precision} | `{path}`: {source} | {n_rows} |")
            if not a.no_write_calibrations:
                run(a.bin, "fit", path, *opts, "--device-name", label, "-o", f"{CAL}/{name}.ini")
            conv = loo(a.bin, path, opts + ["--form", "convmeter", "--no-weight-term"]
                       if "--weight-term" not in opts else opts + ["--form", "convmeter"])
            disp = loo(a.bin, path, opts)
            loo_rows.append((name, "convmeter", conv))
            loo_rows.append((name, "dispatch (default)", disp))
            # train on one half of the networks, predict the other
            halves, files = split(path, tmp)
            for k in (0, 1):
                train, test = files[k], files[1 - k]
                ini = os.path.join(tmp, f"{name}.{k}.ini")
                dev = os.path.join(tmp, f"{name}.{k}.device.ini")
                run(a.bin, "fit", train, *opts, "-o", ini, "--device-out", dev,
                    "--device-base", DEVICE_OF[name])
                fitted = validate(a.bin, test, "--coeffs", ini)
                derived = validate(a.bin, test, "--device", dev)
                split_rows.append((name, halves[k], halves[1 - k], fitted["step"],
                                   derived["step"]))
            if DEVICE_OF[name] != "cpu":  # configs/devices/cpu.ini is a 40-core socket, the
                # CPU data one thread: nothing to compare
                device_rows.append((name, DEVICE_OF[name],
                                    validate(a.bin, path, "--device", DEVICE_OF[name])))
    w("")
    w("Each `.ini` beside its CSV is `scalemeter fit CSV` with the default (dispatch) form; the")
    w("CPU default adds `--weight-term` (which `fit` also chooses there by itself, below). Use")
    w("them by name: `--coeffs h100-pytorch-tf32`.\n")

    w("## Leave-one-model-out (as ConvMeter's Tables 1 and 3)\n")
    w("Each network predicted by a fit on the others (`scalemeter fit CSV --cv loo`).\n")
    w("| data | form | " + " | ".join(PHASES) + " |")
    w("|---|---|" + "---|" * len(PHASES))
    for name, form, m in loo_rows:
        w(f"| {name} | {form} | " + " | ".join(fmt(m.get(p)) for p in PHASES) + " |")

    w("\n## Train on these networks, predict those\n")
    w("The networks of each CSV in sorted order, split into the even and the odd places; a fit on")
    w("one half predicts the other (`scalemeter fit HALF.csv -o c.ini --device-out d.ini`, then")
    w("`scalemeter validate OTHER.csv --coeffs c.ini` and `--device d.ini`). Step MAPE and")
    w("ratio.\n")
    w("| data | trained on | predicted | fitted coefficients | device keys fitted (`--device-out`) |")
    w("|---|---|---|---|---|")
    for name, train, test, fitted, derived in split_rows:
        w(f"| {name} | {', '.join(train)} | {', '.join(test)} | {fmt(fitted[0])} "
          f"({fitted[1]:.2f}) | {fmt(derived[0])} ({derived[1]:.2f}) |")

    w("\n## The calibration-free model as shipped\n")
    w("`scalemeter validate CSV --device NAME` at the CSV's precision, no fitting at all. The")
    w("shipped H100 description models eager PyTorch (its `[framework]` section); scalemeter's own")
    w("CUDA backend dispatches differently, and `fit --device-out` describes it better (above).\n")
    w("| data | device | " + " | ".join(PHASES) + " |")
    w("|---|---|" + "---|" * len(PHASES))
    for name, dev, m in device_rows:
        cells = [f"{fmt(m[p][0])} ({m[p][1]:.2f})" if p in m else "-" for p in PHASES]
        w(f"| {name} | {dev} | " + " | ".join(cells) + " |")
    h200_section(a, w)
    largest_runs_section(a, w)
    fp32_events_section(a, w)
    rebuilt_section(a, w)

    dle_inference_section(a, w, dle_section(a, w))

    ranks_section(a, w)

    w("\n## MLPerf Training v3.0 ResNet-50, DGX H100, strong scaling, calibration-free\n")
    w("Per-GPU throughput at 16 and 64 GPUs relative to 8 GPUs at a fixed global batch of 3,200")
    w("(bf16), as MLPerf Training v3.0 measured it: 0.86 and 0.66 (issue 12's figures). Predicted")
    w("by `scalemeter curve resnet50 --device h100 --precision bf16 --global-batch 3200 --nodes")
    w("1,2,8 --framework F --collective C`, without and with `--overlap`. `fused` is CUDA graphs")
    w("with cuDNN's fused convolution, batch-norm and ReLU kernels and fp16 gradients, as NVIDIA's")
    w("submission runs; docs/scaling.md, \"Frameworks\".\n")
    w("| framework | collective | overlap | 8 GPUs img/s | 16 GPUs (0.86) | 64 GPUs (0.66) |")
    w("|---|---|---|---|---|---|")
    for fw in ("pytorch-eager", "cuda-graphs", "fused"):
        for coll in ("ring", "nccl"):
            for overlap in ((), ("--overlap",)):
                d = json.loads(run(a.bin, "curve", "resnet50", "--device", "h100", "--precision",
                                   "bf16", "--global-batch", "3200", "--nodes", "1,2,8",
                                   "--framework", fw, "--collective", coll, *overlap,
                                   "--format", "json"))
                pts = d["curves"][0]["points"]
                per = [p["images_per_s"] / p["devices"] for p in pts]
                w(f"| {fw} | {coll} | {'yes' if overlap else 'no'} | "
                  f"{pts[0]['images_per_s']:.0f} | "
                  f"{per[1] / per[0]:.3f} ({per[1] / per[0] - 0.86:+.3f}) | "
                  f"{per[2] / per[0]:.3f} ({per[2] / per[0] - 0.66:+.3f}) |")
    mlperf_as_submitted(a, w)
    mlperf_nodes_section(a, w)
    allreduce_section(a, w)
    w("")
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")
    validation_rows.write(a.rows)
    print(f"accuracy_report: wrote {os.path.relpath(a.out, ROOT)}")


if __name__ == "__main__":
    main()
