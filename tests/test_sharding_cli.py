#!/usr/bin/env python3
"""--shard and --checkpoint in `scalemeter predict` and `curve`, as a user sees them.

tests/data/curve/gelu_units.ini on tests/data/curve/round_device.ini at fp32, batch 1, AdamW,
one node of 4 devices; every figure by hand (tests/test_memory_sharding.c derives the bytes):
weights 668 (4 x 668 = 2672 bytes), the largest layer fc1's 144, FSDP's units the root (embed
and head, 108) and the two blocks (280 each), all gathered at once; activations kept per
sample 400 bytes, 144 fully checkpointed, 272 selectively, and the backward pass's gradients
and recomputation 48, 176 and 112 more at the peak. Each layer's passes are the 10 us launch
and a few nanoseconds of roofline, so the recomputed forward adds 10 us a recomputed layer:
the six layers of the two units under full; under selective the two GELUs and the two fc2,
every second matrix product (each fc1's output is kept).

usage: test_sharding_cli.py SCALEMETER   (run from the source root)
"""
import json

from cli_checks import check, run, finish

NET = "tests/data/curve/gelu_units.ini"
ROUND = ["--device", "tests/data/curve/round_device.ini"]


def predict(*opts):
    rc, out, err = run("predict", NET, *ROUND, "-g", "4", "--batch", "1", "--optimizer",
                       "adamw", "--format", "json", *opts)
    check(rc == 0, f"predict {' '.join(opts)}: exit {rc}: {err.strip()}")
    return json.loads(out) if rc == 0 else {"memory": {}}


def refused(args, message):
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    check(rc != 0 and len(lines) == 1 and message in lines[0],
          f"{' '.join(args)}: one line with '{message}', got exit {rc}: {err.strip()}")


# --- memory: each sharding divides one more state by 4 ---
none = predict()
check(none.get("shard") == "none" and none.get("checkpoint") == "none", f"defaults: {none}")
m = none["memory"]
check((m.get("weights"), m.get("gradients"), m.get("optimizer"), m.get("activations"),
       m.get("backward")) == (2672, 5344, 5344, 400, 48),
      f"DDP: weights, gradients and bucket copy, Adam's two: {m}")
m = predict("--shard", "optimizer")["memory"]
check((m.get("gradients"), m.get("optimizer")) == (5344, 1336), f"ZeRO-1: {m}")
m = predict("--shard", "gradients")["memory"]
check((m.get("weights"), m.get("gradients")) == (2672, 668 + 4 * 144), f"ZeRO-2: {m}")
full = predict("--shard", "full", "--checkpoint", "full")
m = full["memory"]
check(full.get("shard") == "full" and full.get("checkpoint") == "full", f"JSON names: {full}")
check((m.get("weights"), m.get("gradients"), m.get("optimizer"), m.get("activations"),
       m.get("backward")) == (668 + 2672, 1244, 1336, 144, 176),
      f"ZeRO-3 and full checkpointing: {m}")
check(m.get("peak") == 3340 + 1244 + 1336 + 144 + 176, f"peak adds them: {m}")
m = predict("--checkpoint", "selective")["memory"]
check((m.get("activations"), m.get("backward")) == (272, 112),
      f"selective checkpointing keeps 272 bytes and peaks at 384: {m}")

# --- time: the recomputed forward in the backward pass ---
sel = predict("--checkpoint", "selective")
ful = predict("--checkpoint", "full")
if "t_bwd" in none and "t_bwd" in sel and "t_bwd" in ful:
    check(abs(sel["t_bwd"] - none["t_bwd"] - 4e-5) < 1e-7, f"selective: +4 x 10 us: {sel}")
    check(abs(ful["t_bwd"] - none["t_bwd"] - 6e-5) < 1e-7, f"full: +6 x 10 us: {ful}")
    check(ful["t_fwd"] == none["t_fwd"], "the forward pass is not recomputed in itself")

# --- what one gradient bucket's collective runs: sharded, a reduce-scatter ---
# the hierarchical ring on one node of 4 (100 GB/s, 2 us a step), the bucket all 2672 bytes:
# all-reduce 2 x 3/4 x 2672 B / 100 GB/s + 6 x 2 us. Fully sharded there are no buckets: the
# gradients are reduce-scattered a unit at a time, the largest unit's a block's fc1 (144
# weights) and fc2 (136), 280 x 4 = 1120 bytes: 3/4 x 1120 B / 100 GB/s + 3 x 2 us (the whole
# gradient's, as a bucket of 25 MiB, was shown: 6.02e-6 s, and "one gradient bucket's")
ar = none.get("allreduce", {}).get("bucket_s", 0)
rs = full.get("allreduce", {}).get("bucket_s", 0)
want_ar, want_rs = 2 * 0.75 * 2672 / 100e9 + 6 * 2e-6, 0.75 * 1120 / 100e9 + 3 * 2e-6
check(abs(ar - want_ar) < 1e-5 * want_ar, f"DDP's all-reduce: {ar}, not {want_ar}")
check(abs(rs - want_rs) < 1e-5 * want_rs, f"fully sharded reduce-scatter: {rs}, not {want_rs}")
rc, out, err = run("predict", NET, *ROUND, "-g", "4", "--batch", "1", "--shard", "full")
check(rc == 0 and "the largest FSDP unit's reduce-scatter" in out and
      "a unit at a time (FSDP)" in out and "MiB buckets" not in out, f"predict's row: {out}")
# ZeRO-2 keeps DDP's buckets: the whole gradient's 2672 bytes, reduce-scattered
rc, out, err = run("predict", NET, *ROUND, "-g", "4", "--batch", "1", "--shard", "gradients",
                   "--format", "json")
rs2 = json.loads(out).get("allreduce", {}).get("bucket_s", 0) if rc == 0 else 0
want_rs2 = 0.75 * 2672 / 100e9 + 3 * 2e-6
check(abs(rs2 - want_rs2) < 1e-5 * want_rs2, f"ZeRO-2's reduce-scatter: {rs2}, not {want_rs2}")
rc, out, err = run("curve", NET, *ROUND, "-g", "4", "--batch", "1", "--nodes", "1",
                   "--shard", "gradients")
header = next((l for l in out.splitlines() if l.startswith("model")), "")
check(rc == 0 and "reduce-scatter" in header and "all-reduce" not in header,
      f"curve's column: {header}")

# --- curve takes them too, alike ---
rc, out, err = run("curve", NET, *ROUND, "-g", "4", "--batch", "1", "--nodes", "1,2",
                   "--optimizer", "adamw", "--shard", "full", "--format", "json")
check(rc == 0, f"curve --shard full: exit {rc}: {err.strip()}")
if rc == 0:
    pts = json.loads(out)["curves"][0]["points"]
    check(pts[0]["memory"]["weights"] == 3340, f"curve on 4 devices: {pts[0]['memory']}")
    check(pts[1]["memory"]["weights"] == 2672 / 8 + 2672, f"curve on 8: {pts[1]['memory']}")

# --- refusals, one line each ---
# every sharding, not full alone: one rank has nothing to shard across (ZeRO-1 and -2 were
# taken there and divided nothing), in predict and in a curve one of whose points is one
# device, which is refused whole as full's is
for mode in ("optimizer", "gradients", "full"):
    refused(["predict", NET, *ROUND, "-g", "1", "--batch", "1", "--shard", mode],
            f"shard {mode} on one device: there is nothing to shard across")
    # the curve's message names the point: its first, 1 node of 1 device
    refused(["curve", NET, *ROUND, "-g", "1", "--batch", "1", "--nodes", "1,2,4",
             "--shard", mode],
            f"1 node x 1 device: shard {mode} on one device: there is nothing to shard across")
    # (the round device knows no capacity: --max-batch asks an H100's, where gpt2 is bounded)
    refused(["predict", "gpt2", "--device", "h100", "-g", "1", "--max-batch", "--shard", mode],
            f"shard {mode} on one device")
# from two devices on they run, and none runs on one
rc, out, err = run("curve", NET, *ROUND, "-g", "1", "--batch", "1", "--nodes", "2,4",
                   "--shard", "optimizer")
check(rc == 0, f"curve --shard optimizer from 2 devices: exit {rc}: {err.strip()}")
rc, out, err = run("predict", NET, *ROUND, "-g", "1", "--batch", "1", "--shard", "none")
check(rc == 0, f"predict --shard none on one device: exit {rc}: {err.strip()}")
# each named as given: "--shard and --checkpoint" was said of --shard alone (the LM audit)
refused(["predict", NET, "--coeffs", "default", "--batch", "1", "--shard", "optimizer"],
        "--shard applies to --device alone: a calibration measured DDP")
refused(["curve", NET, "--coeffs", "default", "--batch", "1", "--nodes", "1",
         "--checkpoint", "full"], "--checkpoint applies to --device alone: a calibration "
        "measured steps without checkpointing")
refused(["predict", NET, "--coeffs", "default", "--batch", "1", "--shard", "optimizer",
         "--checkpoint", "full"], "--shard and --checkpoint apply to --device alone")
refused(["predict", NET, *ROUND, "--batch", "1", "--shard", "zero3"],
        "--shard: expected none, optimizer, gradients or full")
refused(["curve", NET, *ROUND, "--batch", "1", "--nodes", "1", "--checkpoint", "most"],
        "--checkpoint: expected none, selective or full")


# --- a cast model's states: Megatron-Core as its user guide counts them ----------------------
# ("Distributed Optimizer": "float16 param, fp32 grads", 18 bytes a parameter, 6 + 12/d with
# the distributed optimizer over d ranks): bf16 parameters 2, the fp32 gradient buffer that is
# the buckets themselves 4, the fp32 master weights and Adam's moments 12. They were priced as
# AMP's, 4 + 8 + 12/d with the 16-bit copies of the matrix weights among the activations.
def megatron(batch, *opts, precision="bf16", framework="megatron-core"):
    rc, out, err = run("predict", "megatron_gpt_1_7b_h100", "--device", "h100", "--nodes", "6",
                       "-g", "8", "--batch", batch, "--seq", "4096", "--precision", precision,
                       "--framework", framework, "--format", "json", *opts)
    check(rc == 0, f"megatron-core {batch} {opts}: exit {rc}: {err.strip()}")
    return json.loads(out)["memory"] if rc == 0 else {}


rc, out, err = run("metrics", "megatron_gpt_1_7b_h100", "--format", "json")
weights = json.loads(out)["weights"] if rc == 0 else 0
for shard, per_weight in (("none", 18), ("optimizer", 6 + 12 / 48)):
    m = megatron("1", "--shard", shard)
    states = m.get("weights", 0) + m.get("gradients", 0) + m.get("optimizer", 0)
    check(weights > 0 and abs(states / weights - per_weight) < 1e-6,
          f"megatron-core --shard {shard}: {states / max(weights, 1):.4f} bytes a parameter, "
          f"the guide's {per_weight:.4f}")
# At fp32 (TF32) there is no cast: fp32 parameters that Adam updates, fp32 gradients, Adam's two
# moments: 4 + 4 + 8 = 16 bytes a parameter, 8 + 8/d with the distributed optimizer (the guide's
# fp32 row); they were 2 + 4 + 12, "16-bit weights" beside 4-byte activations (round 7)
for shard, per_weight in (("none", 16), ("optimizer", 8 + 8 / 48)):
    m = megatron("1", "--shard", shard, precision="tf32")
    states = m.get("weights", 0) + m.get("gradients", 0) + m.get("optimizer", 0)
    check(weights > 0 and abs(states / weights - per_weight) < 1e-6,
          f"megatron-core --precision tf32 --shard {shard}: {states / max(weights, 1):.4f} "
          f"bytes a parameter, the guide's {per_weight:.4f}")
# Fully sharded, each device keeps its shard of the bf16 parameters, 2W/48, beside the fp32 master
# copy among the optimizer's 12W/48: the weights row is AMP's (fp32 shards, 4W/48, and the same
# bf16 units gathered) less 2W/48; it held 4W/48, the master weights counted twice (round 7)
full = megatron("1", "--shard", "full")
amp = megatron("1", "--shard", "full", "--optimizer", "adam", framework="pytorch-eager")
check(weights > 0 and abs(full.get("weights", 0) - (amp.get("weights", 0) - 2 * weights / 48)) <= 2
      and abs(full.get("optimizer", 0) - 12 * weights / 48) <= 1,
      f"megatron-core --shard full: weights {full.get('weights')} (AMP's {amp.get('weights')}, "
      f"W {weights}), optimizer {full.get('optimizer')}")
# ZeRO-1 gathers the updated parameters as the devices store them: AMP's fp32 at any precision
# (the same t_grad at tf32 and bf16: 4-byte gradients reduce-scattered, 4-byte weights gathered),
# a cast model's 16 bits at bf16 (less). The gather was priced at 2 bytes under AMP's bf16 beside
# fp32 weights in memory (round 7).
def zero1_grad(precision, framework):
    rc, out, err = run("predict", "megatron_gpt_1_7b", "--device", "a100", "-g", "8", "--nodes",
                       "4", "--shard", "optimizer", "--batch", "1", "--precision", precision,
                       "--framework", framework, "--format", "json")
    check(rc == 0, f"ZeRO-1 {precision} {framework}: {err.strip()}")
    return json.loads(out)["t_grad"] if rc == 0 else 0


amp = {p: zero1_grad(p, "pytorch-eager") for p in ("tf32", "bf16")}
cast = zero1_grad("bf16", "megatron-core")
check(amp["tf32"] == amp["bf16"] > cast > 0, f"ZeRO-1's gather: AMP {amp}, cast bf16 {cast}")
# and no 16-bit copy of its weights beside them: the activations grow with the batch alone
# (the copies, 2 bytes a matrix weight, were a part that did not)
acts = [megatron(b).get("activations", 0) for b in ("1", "2")]
check(acts[0] > 0 and abs(acts[1] - 2 * acts[0]) / acts[0] < 1e-3,
      f"megatron-core's activations grow with the batch alone: {acts}")

finish()
