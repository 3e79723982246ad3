#!/usr/bin/env python3
"""tools/op_ratio.py, which docs/ops-h100-h200.md comes from, on profiles and clocks written
here: one point (ResNet-50, batch 32, bf16) on each part with a ReLU of 1,430 us on the H100
against 1,000 us on the H200 (the bandwidths' ratio, 4.8 / 3.35 = 1.43) and a batch norm of
1,000 us on both. By hand: activation 1.43, batch norm 1.00, all kernels 2,430 / 2,000 = 1.22;
the ReLU is 1,000 of the H200's 2,000 us, so the DRAM's pace holds 50% and the SMs' 50%. The
clocks: samples at or under 250 W (idle) are left out, a malformed line skipped, so the median
of 1,980, 1,980 and 1,755 MHz is 1,980 and the range 1755-1980.

Usage: test_op_ratio.py   (run from the source root)
"""
import csv
import gzip
import os
import sys
import tempfile

sys.path.insert(0, "tools")
import op_ratio  # noqa: E402

FIELDS = ["model", "image", "batch", "precision", "step", "phase", "seq", "op", "shapes", "module",
          "host_self_us", "host_us", "kernels", "kernel_us", "kernel_names"]
SHAPE = "[[32, 64, 56, 56], [64], [64], [64], [64], [], [], [], []]"


def write_profile(root, part, relu_us):
    folder = os.path.join(root, "configs", "calibrations", f"{part}-pytorch-layers")
    os.makedirs(folder)
    rows = [("aten::batch_norm", SHAPE, 1000.0), ("aten::relu_", "[[32, 64, 56, 56]]", relu_us),
            ("(phase)", "", 1000.0 + relu_us)]
    with gzip.open(os.path.join(folder, "bf16.csv.gz"), "wt", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for seq, (op, shapes, us) in enumerate(rows):
            w.writerow({"model": "resnet50", "image": 224, "batch": 32, "precision": "bf16",
                        "step": "median of 3", "phase": "fwd", "seq": seq, "op": op,
                        "shapes": shapes, "module": "layer1", "host_self_us": 20,
                        "host_us": 5000 if op == "(phase)" else 30, "kernels": 1,
                        "kernel_us": us, "kernel_names": "k"})


def main():
    failures = 0

    def check(cond, what):
        nonlocal failures
        if not cond:
            failures += 1
            print(f"FAILED: {what}")

    with tempfile.TemporaryDirectory() as root:
        write_profile(root, "h100", 1430.0)
        write_profile(root, "h200", 1000.0)
        runs = os.path.join(root, "tests", "data", "gpu-runs", "h100-2026-11-27")
        os.makedirs(runs)
        with open(os.path.join(runs, "clocks-1.csv"), "w") as f:
            f.write("2026/11/27 08:30:38.612, 345 MHz, 2619 MHz, 71.78 W, 33\n"
                    "2026/11/27 08:31:00.000, 1980 MHz, 2619 MHz, 650.10 W, 60\n"
                    "2026/11/27 08:31:00.500, 1980 MHz, 2619 MHz, 690.00 W, 61\n"
                    "2026/11/27 08:31:01.000, [N/A], 2619 MHz, 690.00 W, 61\n"
                    "2026/11/27 08:31:01.500, 1755 MHz, 2619 MHz, 700.00 W, 62\n")
        md = "\n".join(op_ratio.report(root))
    for line in ("| activation | fwd | 1.4 | 1.0 | 1.43 | 1.43-1.43 |",
                 "| batch norm | fwd | 1.0 | 1.0 | 1.00 | 1.00-1.00 |",
                 "| **all kernels** | fwd | 2.4 | 2.0 | 1.22 | 1.22-1.22 |"):
        check(line in md, f"the table has {line!r}")
    flat = " ".join(md.split())
    check("took 1.22 times as long on the H100" in flat, "the step's ratio 1.22")
    check("the DRAM's pace): activation, 50% of the H200's" in flat, "DRAM's pace: 50%")
    check("at 1.06 or less (the SMs' pace, or the L2's): 50%" in flat, "SMs' pace: 50%")
    check("1980 MHz median, 1755-1980 MHz, 3 samples" in flat, "busy clocks")
    check("H200: no clocks sampled" in flat, "no H200 clocks")
    check("## Fp32" not in md, "no fp32 section without fp32 profiles")
    if failures:
        print(md)
        sys.exit(1)
    print("test_op_ratio: all checks passed")


if __name__ == "__main__":
    main()
