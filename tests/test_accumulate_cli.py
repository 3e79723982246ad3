#!/usr/bin/env python3
"""Gradient accumulation in `predict` and `curve` (--accumulate K): the step of K micro-batches
made by hand from the same run's K = 1 components, throughput, epochs, tokens, mfu, memory,
curve's columns and global batch, and every bad value refused with one line.

usage: test_accumulate_cli.py SCALEMETER   (run from the source root)
"""
import csv
import io

from cli_checks import SM, check, good_json, near, run, finish  # noqa: E402,F401


def refused(args, *words):
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    check(rc == 2 and len(lines) == 1 and all(w in err for w in words) and "Traceback" not in err,
          f"{' '.join(args)}: exit {rc}, {len(lines)} lines, expected {words}: {err.strip()}")


# DDP on 2 nodes x 8 H100, batch 64 a micro-batch, with and without overlap, and ZeRO-1: the
# all-reduce (overlapped: with the last micro-batch's backward pass) and the update once a
# step, so t_step(4) = 4 (t_fwd + t_bwd) + t_grad of the K = 1 run.
BASE = ["predict", "resnet50", "--device", "h100", "-g", "8", "--nodes", "2", "--batch", "64",
        "--dataset", "1000000"]
for extra in ([], ["--overlap"], ["--shard", "optimizer"]):
    one = good_json(*BASE, *extra)
    four = good_json(*BASE, *extra, "--accumulate", "4")
    if not one or not four:
        continue
    what = " ".join(extra) or "ddp"
    check(one["accumulate"] == 1 and four["accumulate"] == 4,
          f"{what}: accumulate {one.get('accumulate')}, {four.get('accumulate')}")
    step = 4 * (one["t_fwd"] + one["t_bwd"]) + one["t_grad"]
    check(near(four["t_step"], step), f"{what}: t_step {four['t_step']}, by hand {step}")
    for k in ("t_fwd", "t_bwd", "t_grad", "t_infer"):
        check(near(four[k], one[k]), f"{what}: {k} {four[k]} != K=1's {one[k]}")
    # 64 x 4 x 16 = 4096 samples a step; 1,000,000 of them: ceil(244.14) = 245 steps
    check(near(four["images_per_s"], 4096 / step), f"{what}: images_per_s {four['images_per_s']}")
    check(near(four["t_epoch"], 245 * step), f"{what}: t_epoch {four['t_epoch']} != 245 steps")
    check(near(one["t_epoch"], 977 * one["t_step"]), f"{what}: K=1 t_epoch: ceil(1e6/1024)=977")
    # mfu: the FLOPs of a step are K times one micro-batch's
    check(near(four["mfu"] * four["t_step"], 4 * one["mfu"] * one["t_step"]),
          f"{what}: mfu x t_step: {four['mfu'] * four['t_step']} != 4 x K=1's")
    check(four["memory"] == one["memory"], f"{what}: memory differs with K: {four['memory']}")

# FSDP's full sharding gathers and reduce-scatters with every micro-batch: t_grad = K x + u,
# so t_grad(4) - t_grad(1) = 3 (t_grad(2) - t_grad(1)), and x > 0
FSDP = ["predict", "llama3_8b", "--device", "h100", "-g", "8", "--nodes", "2", "--batch", "1",
        "--seq", "2048", "--shard", "full", "--precision", "bf16"]
g = {k: good_json(*FSDP, "--accumulate", str(k)) for k in (1, 2, 4)}
if all(g.values()):
    x = g[2]["t_grad"] - g[1]["t_grad"]
    check(x > 0, f"fsdp: the sharded collectives of a micro-batch take time: {x}")
    check(near(g[4]["t_grad"] - g[1]["t_grad"], 3 * x), f"fsdp: t_grad {g[4]['t_grad']}")
    check(near(g[4]["t_step"], 4 * (g[1]["t_fwd"] + g[1]["t_bwd"]) + g[4]["t_grad"]),
          "fsdp: t_step = 4 (t_fwd + t_bwd) + t_grad")
    # tokens: 1 x 4 x 16 sequences of 2048 a step
    check(near(g[4]["tokens_per_s"], 4 * 16 * 2048 / g[4]["t_step"]),
          f"fsdp: tokens_per_s {g[4]['tokens_per_s']}")
    check(g[4]["memory"] == g[1]["memory"], "fsdp: memory differs with K")

# the calibrated predictor (the shipped CPU calibration) honours it alike
one = good_json("predict", "resnet18", "--batch", "8")
three = good_json("predict", "resnet18", "--batch", "8", "--accumulate", "3")
if one and three:
    check(near(three["t_step"], 3 * (one["t_fwd"] + one["t_bwd"]) + one["t_grad"]),
          f"coeffs: t_step {three['t_step']}")
    check(near(three["images_per_s"], 24 / three["t_step"]), "coeffs: images_per_s")

# --max-batch answers the largest micro-batch: K does not change it
m1 = good_json("predict", "resnet50", "--device", "h100", "-g", "1", "--max-batch")
m4 = good_json("predict", "resnet50", "--device", "h100", "-g", "1", "--max-batch",
               "--accumulate", "4")
if m1 and m4:
    check(m1["max_batch"] == m4["max_batch"] and m1["max_batch"] > 0,
          f"max_batch {m1['max_batch']} with K=1, {m4['max_batch']} with K=4")

# CSV: accumulate beside global_batch = 64 x 4 x 16; predict's row is curve's point
rc, out, err = run(*BASE, "--accumulate", "4", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
check(len(rows) == 1, f"predict csv: exit {rc}: {err.strip()}")
if rows:
    check(rows[0]["accumulate"] == "4" and rows[0]["global_batch"] == "4096",
          f"predict csv: accumulate {rows[0].get('accumulate')}, "
          f"global_batch {rows[0].get('global_batch')}")
rc, out2, err = run("curve", "resnet50", "--device", "h100", "-g", "8", "--nodes", "2",
                    "--batch", "64", "--dataset", "1000000", "--accumulate", "4", "--format",
                    "csv")
check(rc == 0 and out2.splitlines()[0] == out.splitlines()[0],
      f"curve csv header differs from predict's: {out2.splitlines()[:1]}")

# curve, strong scaling: 1024 in 4 micro-batches of 256, over 8, 16, 32 devices
c = good_json("curve", "resnet50", "--device", "h100", "-g", "8", "--nodes", "1,2,4",
              "--global-batch", "1024", "--accumulate", "4")
if c:
    check(c.get("accumulate") == 4, f"curve json: accumulate {c.get('accumulate')}")
    pts = c["curves"][0]["points"]
    check([p["batch"] for p in pts] == [32, 16, 8], f"curve: batches {[p['batch'] for p in pts]}")
    check(all(p["global_batch"] == 1024 and p["accumulate"] == 4 for p in pts),
          "curve: global_batch 1024 and accumulate 4 at every point")
    check(all(near(p["images_per_s"], 1024 / p["t_step"]) for p in pts), "curve: images_per_s")
rc, out, err = run("curve", "resnet50", "--device", "h100", "-g", "8", "--nodes", "1",
                   "--batch", "64", "--accumulate", "4")
check(rc == 0 and "a step is 4 micro-batches" in out, f"curve table says K: {out[:300]}")
rc, out, err = run(*BASE, "--accumulate", "4")
check(rc == 0 and "x 4 micro-batches a step" in out and "K (t_fwd + t_bwd) + t_grad" in out,
      f"predict table says K: {out[:400]}")

# ZeRO-2 keeps only its shard of the gradients, so it reduce-scatters them with every
# micro-batch: t_grad grows by one reduce-scatter a micro-batch (t_grad(K) - t_grad(1) = (K - 1)
# x the same increment), where ZeRO-1, holding the whole gradients, reduces once a step as
# without accumulation; the two share K = 1's collectives. The increment is less than t_grad
# (the gather and the update come once). It was once a step for both (round 7), beside a memory
# of sharded gradients.
grads = {}
for shard in ("optimizer", "gradients"):
    for k in (1, 2, 3):
        grads[shard, k] = good_json("predict", "llama3_8b", "--device", "h200", "-g", "8",
                                    "--nodes", "4", "--shard", shard, "--checkpoint", "full",
                                    "--batch", "1", "--accumulate", str(k))["t_grad"]
step = grads["gradients", 2] - grads["gradients", 1]
check(grads["optimizer", 1] == grads["optimizer", 3] == grads["gradients", 1],
      f"ZeRO-1 once a step, K = 1 alike: {grads}")
check(0 < step < grads["gradients", 1] and
      near(grads["gradients", 3] - grads["gradients", 1], 2 * step),
      f"ZeRO-2 a reduce-scatter a micro-batch: {grads}")

# refusals, one line each
for bad in ("0", "-1", "x", "1.5", "", "2000000"):
    refused(["predict", "resnet50", "--batch", "8", "--accumulate", bad], "--accumulate")
    refused(["curve", "resnet50", "--batch", "8", "--nodes", "1", "--accumulate", bad],
            "--accumulate")
refused(["curve", "resnet50", "--device", "h100", "--nodes", "1,2", "--global-batch", "1000",
         "--accumulate", "3"], "--global-batch 1000", "--accumulate 3", "multiple of 3")
# 2^32 x 2^20 micro-batches x 4 devices = 2^54 samples a step: beyond 2^53
rc, out, err = run("predict", "resnet18", "--batch", str(2**32), "--accumulate", str(2**20),
                   "--nodes", "4")
check(rc != 0 and len(err.strip().splitlines()) == 1 and "2^53" in err and
      "micro-batches" in err, f"overflow: exit {rc}: {err.strip()}")

finish()
