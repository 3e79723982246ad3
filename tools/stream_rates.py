#!/usr/bin/env python3
"""How fast eager PyTorch's in-place ReLUs and residual additions stream their bytes, by the
size of the tensor, on an H100 and an H200: the evidence behind docs/devices.md's "Not modelled
yet" bullet on the L2 and on streaming kernels' fraction of the DRAM's bandwidth.

    tools/stream_rates.py

Reads the per-op profiles that time each kernel (configs/calibrations/h{100,200}-pytorch-
layers/bf16.csv.gz, inference and training forward passes) and, for every `aten::relu_`,
`aten::relu` and `aten::add_` over bf16 tensors, takes the bytes the op must move (read and
write: 2 x the tensor for a ReLU, 3 x for an addition) over its kernel time, as a fraction of
the part's datasheet bandwidth (3,350 and 4,800 GB/s), binned by the tensor's size against
the parts' 50 MiB L2 (tensors under 1 MiB, the batch norms' counters among them, are bound by
their launch, not their bytes, and left out). Standard library only.
"""
import csv
import gzip
import json
import os
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARTS = [("H100 SXM", 3350, "configs/calibrations/h100-pytorch-layers/bf16.csv.gz"),
         ("H200 SXM", 4800, "configs/calibrations/h200-pytorch-layers/bf16.csv.gz")]
OPS = {"aten::relu_": 2, "aten::relu": 2, "aten::add_": 3}  # tensors moved a tensor's size
BINS = [(1, 8), (8, 25), (25, 50), (50, 100), (100, float("inf"))]  # MiB of the tensor


def fractions(bandwidth, path):
    """The ops' streamed fraction of the datasheet bandwidth, per size bin."""
    out = {b: [] for b in BINS}
    with gzip.open(os.path.join(ROOT, path), "rt") as f:
        for r in csv.DictReader(f):
            if r["op"] not in OPS or r["phase"] not in ("infer", "fwd"):
                continue
            n = 1
            for x in json.loads(r["shapes"])[0]:
                n *= x
            t = float(r["kernel_us"])
            if t <= 0:
                continue
            size = 2 * n  # bf16
            mib = size / 2**20
            for lo, hi in BINS:
                if lo <= mib < hi:
                    out[(lo, hi)].append(OPS[r["op"]] * size / (t * 1e-6) / (bandwidth * 1e9))
    return out


def main():
    print("| part | tensor MiB | kernels | median fraction of the datasheet bandwidth | "
          "90th percentile |")
    print("|---|---|---:|---:|---:|")
    for name, bandwidth, path in PARTS:
        for (lo, hi), v in fractions(bandwidth, path).items():
            if v:
                v.sort()
                label = f"{lo}-{hi}" if hi != float("inf") else f"{lo} or more"
                print(f"| {name} | {label} | {len(v)} | {statistics.median(v):.2f} | "
                      f"{v[int(0.9 * (len(v) - 1))]:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
