#!/usr/bin/env python3
"""Training throughput of MLPerf Training ResNet-50 submissions from their result logs: the
median time of an epoch (epoch_start to epoch_stop in the MLLOG lines, epochs 2 on, so neither
start-up nor evaluation counts), the median over a system's runs, and the images per second
that makes (1,281,167 images an epoch). Beside it, the same median of the logs' own
throughput lines (tracked_stats, v3.1 on: images per second of each epoch), the network the
code built (s_network: NVIDIA's MXNet code logs its --network) and the batch per GPU
(d_batch_size). docs/accuracy.md's MLPerf sections quote its output.

    tools/mlperf_epochs.py CHECKOUT RESULTS_DIR[:GPUS] ...

CHECKOUT: a clone of github.com/mlcommons/training_results_v3.0, _v3.1 or _v4.0 (a working
tree or a bare repository); RESULTS_DIR: a system's results folder in it, e.g.
NVIDIA/results/dgxh100_ngc23.04_mxnet:8. GPUS defaults to the global batch over the batch
per GPU. Standard library only."""
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
    """Epoch times (s) and throughput lines (img/s) of epochs 2 on, and the run's settings."""
    starts, times, rates = {}, [], []
    info = {"global_batch": None, "batch_per_gpu": None, "network": None}
    for line in text.splitlines():
        if ":::MLLOG" not in line:
            continue
        event = json.loads(line.split(":::MLLOG", 1)[1])
        key, meta = event["key"], event.get("metadata", {})
        epoch = meta.get("epoch_num")
        if key == "global_batch_size":
            info["global_batch"] = event["value"]
        elif key == "d_batch_size":
            info["batch_per_gpu"] = event["value"]
        elif key == "s_network" and info["network"] is None:
            info["network"] = event["value"]
        elif key == "epoch_start":
            starts[epoch] = event["time_ms"]
        elif key == "epoch_stop" and epoch is not None and epoch >= 2 and epoch in starts:
            times.append((event["time_ms"] - starts[epoch]) / 1000)
        elif (key == "tracked_stats" and isinstance(event["value"], dict)
              and "throughput" in event["value"] and meta.get("step", 0) >= 2):
            rates.append(event["value"]["throughput"])
    return times, rates, info


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    checkout = sys.argv[1]
    print("system,gpus,global_batch,runs,median_epoch_s,images_per_s,images_per_s_per_gpu,"
          "logged_images_per_s_per_gpu,batch_per_gpu,network")
    for arg in sys.argv[2:]:
        folder, _, gpus = arg.partition(":")
        runs, logged, info = [], [], {}
        for path in listing(checkout, folder.rstrip("/") + "/resnet"):
            if os.path.basename(path).startswith("result_"):
                times, rates, info = epoch_times(read(checkout, path))
                if times:
                    runs.append(statistics.median(times))
                if rates:
                    logged.append(statistics.median(rates))
        if not runs:
            sys.exit(f"mlperf_epochs: {folder}: no result logs with epochs")
        if not gpus and info["global_batch"] and info["batch_per_gpu"]:
            gpus = str(info["global_batch"] // info["batch_per_gpu"])
        n = int(gpus) if gpus else float("nan")
        t = statistics.median(runs)
        # v3.0's logs have no throughput lines, network or batch per GPU: empty fields
        rate = f"{statistics.median(logged) / n:.0f}" if logged else ""
        print(f"{folder},{gpus},{info['global_batch']},{len(runs)},{t:.3f},{EPOCH_IMAGES / t:.0f},"
              f"{EPOCH_IMAGES / t / n:.0f},{rate},{info['batch_per_gpu'] or ''},"
              f"{info['network'] or ''}")


if __name__ == "__main__":
    main()
