#!/usr/bin/env python3
"""Configurations that ran must be predicted to fit: every row of the shipped H100
measurements (configs/calibrations/h100-*.csv: PyTorch and scalemeter's own runs on one H100
80GB, each row a (network, image, batch, precision) that trained without running out of
memory) is predicted by `predict --device h100 -g 1` to fit the device. The bench's `oom` rows,
where a set has any, must be predicted not to fit with a margin: none of the shipped sets has
one (their batches stop at 256), so that half waits for a GPU session's runs (issue 38).

usage: test_memory_measured.py SCALEMETER   (run from the source root)
"""
import csv
import glob
import json
import subprocess
import sys

SM = sys.argv[1]
failures, checks, seen = [], 0, set()
for path in sorted(glob.glob("configs/calibrations/h100-*.csv")):
    for row in csv.DictReader(open(path)):
        key = (row["model"], row["image"], row["batch"], row.get("precision") or "fp32")
        if key in seen or int(row.get("nodes") or 1) * int(row.get("gpus_per_node") or 1) != 1:
            continue
        seen.add(key)
        model, image, batch, precision = key
        p = subprocess.run([SM, "predict", model, "--device", "h100", "-g", "1", "--batch", batch,
                            "--image", image, "--precision", precision, "--format", "json"],
                           capture_output=True, text=True)
        checks += 1
        if p.returncode != 0:
            failures.append(f"{path}: {key}: {p.stderr.strip()}")
            continue
        mem = json.loads(p.stdout)["memory"]
        if mem["fits"] is not True:
            failures.append(f"{path}: {key} ran on an H100 but is predicted not to fit: "
                            f"{(mem['peak'] + mem['context']) / 2**30:.1f} GiB")
        oom = row.get("status") == "oom"
        if oom and mem["fits"] is True:
            failures.append(f"{path}: {key} ran out of memory but is predicted to fit")
for f in failures:
    print("FAIL:", f, file=sys.stderr)
print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures or not checks else 0)
