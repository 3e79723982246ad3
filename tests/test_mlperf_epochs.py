#!/usr/bin/env python3
"""tools/mlperf_epochs.py on a results folder laid out as mlcommons/training_results_v3.0's,
with MLLOG lines written here: epoch 1 (start-up) and the evaluation between epochs are left
out, each run's median epoch is taken, then the median over runs, and images per second are
1,281,167 over it. A v3.1/v4.0-style log adds the throughput lines (tracked_stats), the
network and the batch per GPU, from which the GPU count follows. Expected values worked out
by hand below.

Usage: test_mlperf_epochs.py   (run from the source root)
"""
import json
import os
import subprocess
import sys
import tempfile


def mllog(key, t_ms, epoch=None, value=None, step=None):
    meta = {"file": "fit.py", "lineno": 1}
    if epoch is not None:
        meta["epoch_num"] = epoch
    if step is not None:
        meta["step"] = step
    return ":::MLLOG " + json.dumps({"namespace": "", "time_ms": t_ms, "event_type": "X",
                                     "key": key, "value": value, "metadata": meta})


def run_log(epoch_seconds, logged=None):
    """epoch 1 takes 100 s; evaluation after each epoch takes 50 s and is not counted;
    logged: the throughput line of each epoch (v3.1 on), with the network and batch per GPU"""
    lines = ["noise before the log", mllog("global_batch_size", 0, value=3200)]
    if logged:
        lines += [mllog("d_batch_size", 0, value=400),
                  mllog("s_network", 0, value="resnet-v1b-mainloop-fl"),
                  mllog("s_network", 0, value="ignored: the first one counts")]
    t = 1000
    for e, secs in enumerate([100] + epoch_seconds, start=1):
        lines.append(mllog("epoch_start", t, e))
        t += int(secs * 1000)
        lines.append(mllog("epoch_stop", t, e))
        if logged:
            lines.append(mllog("tracked_stats", t, value={"throughput": logged[e - 1]}, step=e))
        t += 50000
    return "\n".join(lines) + "\n"


failures = 0
with tempfile.TemporaryDirectory() as d:
    folder = os.path.join(d, "Vendor", "results", "sys")
    os.makedirs(os.path.join(folder, "resnet"))
    # run medians: 20 s (of 20, 20, 30), 22 s (of 22, 21, 25), 30 s (of 30, 40, 28): median 22 s
    for i, epochs in enumerate([[20, 20, 30], [22, 21, 25], [30, 40, 28]]):
        with open(os.path.join(folder, "resnet", f"result_{i}.txt"), "w") as f:
            f.write(run_log(epochs))
    p = subprocess.run([sys.executable, "tools/mlperf_epochs.py", d, "Vendor/results/sys:16"],
                       capture_output=True, text=True)
    rows = p.stdout.strip().splitlines()
    want = "Vendor/results/sys,16,3200,3,22.000,58235,3640,,,"  # 1281167 / 22 = 58234.9; / 16
    if p.returncode != 0 or len(rows) != 2 or rows[1] != want:
        failures += 1
        print(f"FAIL: {p.returncode} {p.stdout!r} {p.stderr!r}, expected {want}")
    # v3.1 on: 3200 / 400 = 8 GPUs; epochs 20, 25, 20 s: median 20, 1281167 / 20 = 64058.35,
    # / 8 = 8007; throughput lines of epochs 2-4 (epoch 1's 9999 left out): 64000, 60000,
    # 64100, median 64000, / 8 = 8000
    folder = os.path.join(d, "Vendor", "results", "new")
    os.makedirs(os.path.join(folder, "resnet"))
    with open(os.path.join(folder, "resnet", "result_0.txt"), "w") as f:
        f.write(run_log([20, 25, 20], logged=[9999, 64000, 60000, 64100]))
    p = subprocess.run([sys.executable, "tools/mlperf_epochs.py", d, "Vendor/results/new"],
                       capture_output=True, text=True)
    rows = p.stdout.strip().splitlines()
    want = "Vendor/results/new,8,3200,1,20.000,64058,8007,8000,400,resnet-v1b-mainloop-fl"
    if p.returncode != 0 or len(rows) != 2 or rows[1] != want:
        failures += 1
        print(f"FAIL: {p.returncode} {p.stdout!r} {p.stderr!r}, expected {want}")
    p = subprocess.run([sys.executable, "tools/mlperf_epochs.py", d, "Vendor/results/none:8"],
                       capture_output=True, text=True)
    if p.returncode == 0 or "Vendor/results/none: no result logs" not in p.stderr:
        failures += 1
        print(f"FAIL: a folder without logs: {p.returncode} {p.stderr!r}")
print("ok" if not failures else f"{failures} failures")
sys.exit(1 if failures else 0)
