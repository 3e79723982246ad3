#!/usr/bin/env python3
"""Training throughput of MLPerf Training ResNet-50 submissions from their result logs: the
median time of an epoch (epoch_start to epoch_stop in the MLLOG lines, epochs 2 on, so neither
start-up nor evaluation counts), the median over a system's runs, and the images per second
that makes (1,281,167 images an epoch). docs/accuracy.md's MLPerf section quotes its output.

    tools/mlperf_epochs.py CHECKOUT RESULTS_DIR[:GPUS] ...

CHECKOUT: a clone of github.com/mlcommons/training_results_v3.0 (a working tree or a bare
repository); RESULTS_DIR: a system's results folder in it, e.g.
NVIDIA/results/dgxh100_ngc23.04_mxnet:8. Standard library only."""
import json
import os
import statistics
import subprocess
import sys

EPOCH_IMAGES = 1281167


def git(checkout, *args):
    return subprocess.run(["git", "-C", checkout, *args], capture_output=True, text=True,
                          check=True).stdout


def read(checkout, path):
    full = os.path.join(checkout, path)
    if os.path.isfile(full):
        with open(full) as f:
            return f.read()
    return git(checkout, "show", "HEAD:" + path)


def listing(checkout, folder):
    full = os.path.join(checkout, folder)
    if os.path.isdir(full):
        return [os.path.join(folder, n) for n in sorted(os.listdir(full))]
    try:
        return git(checkout, "ls-tree", "--name-only", "HEAD", folder + "/").split()
    except (subprocess.CalledProcessError, OSError):
        return []


def epoch_times(text):
    starts, times, batch = {}, [], None
    for line in text.splitlines():
        if ":::MLLOG" not in line:
            continue
        event = json.loads(line.split(":::MLLOG", 1)[1])
        key, epoch = event["key"], event.get("metadata", {}).get("epoch_num")
        if key == "global_batch_size":
            batch = event["value"]
        elif key == "epoch_start":
            starts[epoch] = event["time_ms"]
        elif key == "epoch_stop" and epoch is not None and epoch >= 2 and epoch in starts:
            times.append((event["time_ms"] - starts[epoch]) / 1000)
    return times, batch


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    checkout = sys.argv[1]
    print("system,gpus,global_batch,runs,median_epoch_s,images_per_s,images_per_s_per_gpu")
    for arg in sys.argv[2:]:
        folder, _, gpus = arg.partition(":")
        runs, batch = [], None
        for path in listing(checkout, folder.rstrip("/") + "/resnet"):
            if os.path.basename(path).startswith("result_"):
                times, batch = epoch_times(read(checkout, path))
                if times:
                    runs.append(statistics.median(times))
        if not runs:
            sys.exit(f"mlperf_epochs: {folder}: no result logs with epochs")
        t = statistics.median(runs)
        per_gpu = EPOCH_IMAGES / t / int(gpus) if gpus else float("nan")
        print(f"{folder},{gpus},{batch},{len(runs)},{t:.3f},{EPOCH_IMAGES / t:.0f},{per_gpu:.0f}")


if __name__ == "__main__":
    main()
