#!/usr/bin/env python3
"""Tokens as the unit of sequence networks in `predict` and `curve` (issue 36): --seq,
tokens_per_s, --tokens with SI suffixes, mfu, and every bad input refused with one line.

usage: test_tokens_cli.py SCALEMETER   (run from the source root)
"""
import csv
import io
import json
import math
import os

from cli_checks import SM, check, good_json, near, run, finish  # noqa: E402,F401

# the line of gpt2's position embedding in its network file, which an error names
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models",
                       "gpt2.ini")) as f:
    WPE_LINE = next(n for n, l in enumerate(f, 1) if l.startswith("wpe "))


# GPT-2 small by hand (docs/transformers.md): E = 768, F = 4E, 12 layers, V = 50257, tied head.
# Per layer the MACs are 12 S E^2 (QKV 3, output 1, MLP 8) + 2 S^2 E (scores and their sum);
# the head S E V. A step trains with forward 2 MACs and backward 4 MACs: 6 x MACs, within the
# element-wise FLOPs (biases, GELU, softmax, norms: under 0.5%).
S, E, V, B = 512, 768, 50257, 8
MACS = B * (12 * (12 * S * E * E + 2 * S * S * E) + S * E * V)
H100_BF16 = 989.4e12  # NVIDIA's dense BF16 peak of the H100 SXM5

d = good_json("predict", "gpt2", "--device", "h100", "--precision", "bf16", "--batch", "8",
              "--seq", "512", "-g", "8")
if d:
    t = d["t_step"]
    check(d.get("seq") == 512, f"predict: seq 512: {d.get('seq')}")
    # 8 devices x batch 8 = 64 sequences of 512 tokens a step
    check(near(d["tokens_per_s"], 8 * 8 * 512 / t), f"tokens_per_s {d['tokens_per_s']}")
    # a sequence network speaks tokens: no image, no images_per_s, and no epoch of
    # ImageNet's 1,281,167 samples without --tokens (its corpus is not known)
    check("images_per_s" not in d and "image" not in d, f"predict: no image keys: {list(d)}")
    check(d.get("dataset", 0) is None and d.get("t_epoch", 0) is None,
          f"predict: no dataset, no epoch: {d.get('dataset')}, {d.get('t_epoch')}")
    check(near(d["mfu"] * t * H100_BF16, 6 * MACS, 5e-3),
          f"mfu x t_step x peak = {d['mfu'] * t * H100_BF16:.4g}, 6 x MACs = {6 * MACS:.4g}")
    rc, out, _ = run("metrics", "gpt2", "--batch", "8", "--image", "512", "--format", "json")
    m = json.loads(out) if rc == 0 else {}
    if m:
        check(near(d["mfu"], (m["flops"] + m["bwd_flops"]) / (t * H100_BF16), 1e-4),
              "mfu = (F + Fb) / (t_step x 989.4 TFLOP/s) with the metrics command's F, Fb")

# --tokens 1B at global batch 64 x 512: ceil(1e9 / 32768) = 30518 steps an epoch
d = good_json("predict", "gpt2", "--device", "h100", "--batch", "8", "--seq", "512", "-g", "8",
              "--tokens", "1B", "--epochs", "2")
if d:
    check(d.get("tokens") == 10**9, f"tokens {d.get('tokens')}")
    check(near(d["t_epoch"], 30518 * d["t_step"]), f"t_epoch {d['t_epoch']} = 30518 steps")
    check(near(d["t_train"], 2 * 30518 * d["t_step"]), "t_train = 2 epochs")

# --dataset counts sequences when given
d = good_json("predict", "gpt2", "--device", "h100", "--batch", "8", "--seq", "512", "-g", "8",
              "--dataset", "640")
check(d.get("dataset") == 640 and near(d["t_epoch"], 10 * d["t_step"]),
      f"--dataset 640 sequences = 10 steps of 64: {d.get('t_epoch')}")
rc, out, err = run("curve", "gpt2", "--device", "h100", "--batch", "2", "--seq", "256",
                   "--nodes", "1")
check(rc == 0 and "1281167" not in out and "--tokens T" in out,
      f"curve header: no ImageNet epoch for gpt2: {out.splitlines()[1] if out else err}")
rc, out, err = run("curve", "gpt2,resnet50", "--device", "h100", "--batch", "2", "--nodes", "1",
                   "--format", "csv")
rows = {r["model"]: r for r in csv.DictReader(io.StringIO(out))}
check(rc == 0 and rows.get("gpt2", {}).get("t_epoch") == "" and
      rows.get("gpt2", {}).get("images_per_s") == "" and
      rows.get("resnet50", {}).get("dataset") == "1281167" and
      float(rows.get("resnet50", {}).get("t_epoch") or 0) > 0,
      f"curve CSV: gpt2 without an epoch, resnet50 with ImageNet's: {out[-300:]} {err}")

# SI suffixes are powers of 1000
for text, value in [("15T", 15 * 10**12), ("2.5B", 2_500_000_000), ("300M", 300_000_000),
                    ("7K", 7000), ("1.25G", 1_250_000_000), ("4096", 4096),
                    # either case: "1k" was taken and "1m" refused (round 7)
                    ("1k", 1000), ("1m", 10**6), ("2.5b", 2_500_000_000), ("3t", 3 * 10**12)]:
    d = good_json("predict", "gpt2", "--device", "h100", "--batch", "1", "--tokens", text)
    check(d.get("tokens") == value, f"--tokens {text}: {d.get('tokens')}, expected {value}")

# a calibration states no peak: mfu null, empty in CSV
d = good_json("predict", "gpt2", "--batch", "1", "--seq", "64")
check("mfu" in d and d["mfu"] is None, f"a calibration's mfu is null: {d.get('mfu')}")
# beside a description, a calibration's mfu has the description's peak at its precision:
# F + Fb of resnet50's batch of 64 over t_step x 989.4 TFLOP/s (the h100's BF16 peak)
d = good_json("predict", "resnet50", "--coeffs", "h100-pytorch-bf16", "--device", "h100",
              "--batch", "64")
rc, out, _ = run("metrics", "resnet50", "--batch", "64", "--format", "json")
m = json.loads(out) if rc == 0 else {}
check(d.get("mfu") is not None and m and
      near(d["mfu"] * d["t_step"] * H100_BF16, m["flops"] + m["bwd_flops"], 1e-4),
      f"--coeffs --device: mfu {d.get('mfu')} on the h100's bf16 peak")
d = good_json("predict", "resnet50", "--device", "h100", "--batch", "8")
check(d.get("mfu", 0) > 0 and "tokens_per_s" not in d and "seq" not in d,
      "an image network: mfu, no tokens")

# curve: tokens_per_s per point, the epoch in tokens, CSV columns
d = good_json("curve", "gpt2", "--device", "h100", "--precision", "bf16", "--batch", "2",
              "--seq", "1024", "--nodes", "1:4", "--tokens", "15T")
pts = d.get("curves", [{}])[0].get("points", []) if d else []
check(len(pts) == 3, f"curve: 3 points: {len(pts)}")
for p in pts:
    gb = 2 * 8 * p["nodes"]
    check(near(p["tokens_per_s"], gb * 1024 / p["t_step"]), f"curve tokens_per_s at {p['nodes']}")
    steps = math.ceil(15e12 / (gb * 1024))
    check(near(p["t_epoch"], steps * p["t_step"]), f"curve t_epoch at {p['nodes']} nodes")
check(d.get("tokens") == 15 * 10**12 and d.get("curves", [{}])[0].get("seq") == 1024,
      "curve JSON: tokens and seq")
rc, out, err = run("curve", "gpt2", "--device", "h100", "--batch", "2", "--seq", "256",
                   "--nodes", "1", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
check(rc == 0 and len(rows) == 1 and rows[0]["image"] == "256" and
      near(float(rows[0]["tokens_per_s"]), 16 * 256 / float(rows[0]["t_step"]), 1e-4) and
      float(rows[0]["mfu"]) > 0, f"curve CSV tokens_per_s, mfu: {out[:200]} {err}")
rc, out, err = run("curve", "gpt2", "--device", "h100", "--batch", "2", "--seq", "256",
                   "--nodes", "1")
check(rc == 0 and "tokens/s" in out and "images/s" not in out and "mfu" in out,
      "curve table: tokens/s instead of images/s, and mfu")
rc, out, err = run("predict", "gpt2", "--device", "h100", "--batch", "2", "--seq", "256",
                   "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
check(rc == 0 and rows and near(float(rows[0]["tokens_per_s"]), 16 * 256 /
                                float(rows[0]["t_step"]), 1e-4), "predict CSV tokens_per_s")

# bad input: one line naming the option (or the file and line), non-zero exit
for cmd in (["predict", "--batch", "1"], ["curve", "--batch", "1", "--nodes", "1"]):
    for args, needle in [
            (["gpt2", "--device", "h100", "--tokens", "0"], "0 tokens"),
            (["gpt2", "--device", "h100", "--tokens", "15X"], "--tokens 15X"),
            (["gpt2", "--device", "h100", "--tokens", "1.5"], "whole number"),
            (["gpt2", "--device", "h100", "--tokens", "2000P"], "--tokens 2000P"),
            (["gpt2", "--device", "h100", "--image", "64"], "--image: gpt2 is a sequence"),
            (["resnet50", "--device", "h100", "--seq", "64"], "--seq: resnet50 is an image"),
            # a size of the other kind that no layer takes: the option named, not a layer
            # (the network was read at that size first: gpt2's positions end at 1024,
            # vit_b_16's 16x16 patches need 16 pixels)
            (["gpt2", "--device", "h100", "--image", "100000"], "--image: gpt2 is a sequence"),
            (["vit_b_16", "--device", "h100", "--seq", "1"], "--seq: vit_b_16 is an image"),
            (["vit_b_16", "--device", "h100", "--seq", "1", "--tokens", "1M"],
             "--seq: vit_b_16 is an image"),
            (["resnet50", "--device", "h100", "--tokens", "1B"], "--tokens: resnet50"),
            (["gpt2", "--device", "h100", "--tokens", "1B", "--dataset", "9"], "one of the two"),
            # a dataset in tokens written as --dataset: the option that counts them is named
            (["gpt2", "--device", "h100", "--dataset", "15T"], "is --tokens 15T"),
            (["gpt2", "--device", "h100", "--seq", "2048"], f"gpt2.ini:{WPE_LINE}: layer wpe")]:
        rc, out, err = run(cmd[0], *args, *cmd[1:])
        lines = err.strip().splitlines()
        check(rc != 0 and len(lines) == 1 and needle in err,
              f"{cmd[0]} {' '.join(args)}: exit {rc}, {err.strip()!r} (wanted {needle!r})")

for cmd in ("predict", "curve"):
    rc, out, _ = run(cmd, "--help")
    check(rc == 0 and "--seq" in out and "--tokens" in out and "mfu" in out, f"{cmd} --help")

finish()
