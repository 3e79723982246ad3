#!/usr/bin/env python3
"""Repeated, interleaved end-to-end runs of PyTorch training and inference on a GPU, timed with
CUDA events, for the spread of the shipped GPU sets (issue 38 item 5).

    python3 tools/torch_repeat_runs.py --configs configs/calibrations/h100-pytorch-bf16.csv \\
        --precision bf16 --rounds 3 --out h200-bf16-rounds.csv

The configurations (model, image, batch) are those of --configs, a measurement CSV. Each round
runs all of them in its own shuffled order (seeded by the round), so that a slow stretch of the
machine (clocks, temperature) falls on different networks each round. Per configuration, the
method of the shipped sets (../shared/data/README.md): --warmup untimed SGD-momentum steps, then
the median over --reps repetitions of CUDA-event timings, each phase synchronised: t_infer (eval,
no_grad forward), t_fwd (train forward + loss), t_bwd (backward), t_grad (optimizer.step), and
t_step, one whole iteration (zero_grad, forward, loss, backward, step) timed on its own.
Precision: fp32 (TF32 off), tf32, bf16 (torch.autocast, fp32 master weights); cuDNN's benchmark
mode on. Writes scalemeter's measurement columns with round, so that `scalemeter validate`
reads the file and the rounds can be compared:

    model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,device,precision,
    clock,round

Rows already in --out are skipped (a run cut off by a time limit goes on where it stopped);
--time-limit stops starting configurations after that many seconds.
"""
import argparse
import csv
import gc
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also when imported
from torch_python import require_torch  # noqa: E402  (torch may be in another Python)

require_torch("torch_repeat_runs.py", ("torch", "torchvision"))
import torch  # noqa: E402
import torchvision  # noqa: E402
from torch_zoo_models import build  # noqa: E402

FIELDS = ["model", "image", "batch", "nodes", "gpus_per_node", "t_infer", "t_fwd", "t_bwd",
          "t_grad", "t_step", "device", "precision", "clock", "round"]


def timed(fn):
    """fn's time on the device in seconds, between two CUDA events, synchronised."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    out = fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3, out


def run_config(name, image, batch, precision, warmup, reps):
    amp = precision == "bf16"
    dev = torch.device("cuda")
    model = build(name).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.0, momentum=0.9)  # the update runs
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(batch, 3, image, image, device=dev) * 2 - 1
    y = torch.randint(0, 1000, (batch,), device=dev)

    def autocast():
        return torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp)

    def infer():
        with torch.no_grad(), autocast():
            return model(x)

    def fwd():
        with autocast():
            return loss_fn(model(x), y)

    def whole():
        opt.zero_grad(set_to_none=True)
        with autocast():
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    model.train()
    for _ in range(warmup):
        whole()
    model.eval()
    for _ in range(2):
        infer()
    torch.cuda.synchronize()
    t = {"t_infer": [], "t_fwd": [], "t_bwd": [], "t_grad": [], "t_step": []}
    for _ in range(reps):
        model.eval()
        t["t_infer"].append(timed(infer)[0])
        model.train()
        opt.zero_grad(set_to_none=True)
        dt, loss = timed(fwd)
        t["t_fwd"].append(dt)
        t["t_bwd"].append(timed(loss.backward)[0])
        t["t_grad"].append(timed(opt.step)[0])
        t["t_step"].append(timed(whole)[0])
    del model, opt, x, y
    gc.collect()
    torch.cuda.empty_cache()
    return {k: f"{statistics.median(v):.6g}" for k, v in t.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--configs", required=True, help="a CSV with model, image, batch columns")
    p.add_argument("--precision", choices=("fp32", "tf32", "bf16"), required=True)
    p.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps (default 3)")
    p.add_argument("--reps", type=int, default=6, help="timed repetitions (default 6)")
    p.add_argument("--models", default="", help="only these models of --configs")
    p.add_argument("--time-limit", type=float, default=0, help="seconds (0: none)")
    p.add_argument("--out", required=True, help="the CSV (appended to where it exists)")
    a = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_repeat_runs.py: this PyTorch sees no CUDA device")
    if a.rounds < 1 or a.reps < 1 or a.warmup < 0:
        sys.exit("torch_repeat_runs.py: --rounds and --reps at least 1, --warmup at least 0")
    only = {m for m in a.models.split(",") if m}
    try:
        with open(a.configs, newline="") as f:
            configs = sorted({(r["model"], int(r["image"]), int(r["batch"]))
                              for r in csv.DictReader(f)
                              if not only or r["model"] in only})
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"torch_repeat_runs.py: {a.configs}: {e}")
    for m in {c[0] for c in configs}:
        if not callable(getattr(torchvision.models, m, None)):
            sys.exit(f"torch_repeat_runs.py: {a.configs}: torchvision has no model '{m}'")
    torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
    torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
    torch.backends.cudnn.benchmark = True
    deadline = time.monotonic() + a.time_limit if a.time_limit > 0 else float("inf")
    device = torch.cuda.get_device_name(0)
    fresh = not os.path.exists(a.out) or os.path.getsize(a.out) == 0
    done = set()
    if not fresh:
        with open(a.out, newline="") as f:
            done = {(r["model"], int(r["image"]), int(r["batch"]), r["precision"],
                     int(r["round"])) for r in csv.DictReader(f)}
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if fresh:
            w.writeheader()
        for rnd in range(a.rounds):
            order = list(configs)
            random.Random(rnd).shuffle(order)
            for m, image, batch in order:
                if (m, image, batch, a.precision, rnd) in done:
                    continue
                if time.monotonic() > deadline:
                    print("torch_repeat_runs.py: time limit reached", file=sys.stderr)
                    return
                try:
                    t = run_config(m, image, batch, a.precision, a.warmup, a.reps)
                except torch.cuda.OutOfMemoryError:
                    print(f"torch_repeat_runs.py: {m} {image} {batch}: out of memory, skipped",
                          file=sys.stderr)
                    gc.collect()
                    torch.cuda.empty_cache()
                    continue
                w.writerow({"model": m, "image": image, "batch": batch, "nodes": 1,
                            "gpus_per_node": 1, **t, "device": device,
                            "precision": a.precision, "clock": "cuda-events", "round": rnd})
                f.flush()


if __name__ == "__main__":
    main()
