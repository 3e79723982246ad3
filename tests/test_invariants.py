"""Relations every prediction must keep, over seeded random configurations of zoo models,
shipped devices, precisions, sharding, checkpointing, batches and node counts. Each relation
comes from the model's documented equations (docs/scaling.md, docs/memory.md, predict --help)
or from physics, never from an earlier output:
- t_step = K (t_fwd + t_bwd) + t_grad without --overlap (predict --help);
- t_epoch = ceil(D / global batch) t_step, throughput = global batch / t_step;
- fits is peak + context <= capacity; the peak holds at least each of the allocator's parts
  alone, at most all at once; inference's peak is no larger than DDP training's;
- a larger per-device batch takes no less time in either pass and no less memory;
- --max-batch B: B fits and B + 1 does not;
- sharding never adds gradient or optimizer memory, nor weights beyond the gathered units;
  checkpointing never removes backward time;
- 0 < mfu <= 1;
- predict is curve's one-point case: the same options, the same numbers.

usage: test_invariants.py SCALEMETER [--configs N] [--seed S]
"""
import json
import math
import random
import subprocess
import sys

from cli_checks import SM, check, finish

args = sys.argv[2:]
N_CONFIGS = int(args[args.index("--configs") + 1]) if "--configs" in args else 60
SEED = int(args[args.index("--seed") + 1]) if "--seed" in args else 20261125
REL = 2e-5  # the outputs are printed to 6 significant digits


def sm_json(*a):
    p = subprocess.run([SM, *a, "--format", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return json.loads(p.stdout), None


def close(a, b, rel=REL):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


models = [m["model"] for m in sm_json("models")[0]["models"]]
devices = [d for d in sm_json("devices")[0]["devices"] if d["device"] != "cpu"]
rng = random.Random(SEED)


def random_config():
    dev = rng.choice(devices)
    precisions = [p for p, v in dev["peak_tflops"].items() if v]
    return {
        "model": rng.choice(models),
        "device": dev["device"],
        "precision": rng.choice(precisions),
        "shard": rng.choice(["none", "optimizer", "gradients", "full"]),
        "checkpoint": rng.choice(["none", "selective", "full"]),
        "optimizer": rng.choice(["sgd", "momentum", "adam", "adamw"]),
        "accumulate": rng.choice([1, 1, 2, 4]),
        "batch": rng.choice([1, 2, 3, 8, 16, 32, 64]),
        "nodes": rng.choice([1, 2, 4, 16]),
        "gpus": rng.choice([1, 2, 8]),
    }


def options(c, **over):
    c = dict(c, **over)
    return [c["model"], "--device", c["device"], "--precision", c["precision"],
            "--shard", c["shard"], "--checkpoint", c["checkpoint"], "--optimizer",
            c["optimizer"], "--accumulate", str(c["accumulate"]), "--nodes", str(c["nodes"]),
            "-g", str(c["gpus"])]


def name(c, **over):
    return " ".join(options(c, **over)) + f" --batch {over.get('batch', c['batch'])}"


def one_point(c, d, what):
    """The relations within one prediction."""
    k, b = c["accumulate"], d["batch"]
    global_batch = b * k * c["nodes"] * c["gpus"]
    check(close(d["t_step"], k * (d["t_fwd"] + d["t_bwd"]) + d["t_grad"]),
          f"{what}: t_step {d['t_step']} is not K (t_fwd + t_bwd) + t_grad")
    for t in ("t_infer", "t_fwd", "t_bwd", "t_step"):
        check(math.isfinite(d[t]) and d[t] > 0, f"{what}: {t} = {d[t]}")
    check(d["t_grad"] >= 0, f"{what}: t_grad = {d['t_grad']}")
    if d.get("t_epoch") is not None:
        steps = math.ceil(d["dataset"] / global_batch)
        check(close(d["t_epoch"], steps * d["t_step"], 1e-4),
              f"{what}: t_epoch {d['t_epoch']} is not {steps} steps of {d['t_step']}")
    rate = d.get("images_per_s")
    if rate is not None:
        check(close(rate, global_batch / d["t_step"], 1e-4),
              f"{what}: images_per_s {rate} is not {global_batch} / {d['t_step']}")
    check(0 < d["mfu"] <= 1, f"{what}: mfu {d['mfu']}")
    m, mi = d["memory"], d["memory_infer"]
    # the allocator's parts; the context lies outside the allocator (docs/memory.md)
    parts = ("weights", "gradients", "optimizer", "activations", "backward", "workspace")
    for mem, phase in ((m, "training"), (mi, "inference")):
        check(mem["fits"] == (mem["peak"] + mem["context"] <= mem["capacity"]),
              f"{what}: {phase} fits {mem['fits']} with peak {mem['peak']}, context "
              f"{mem['context']} and capacity {mem['capacity']}")
        check(max(mem[p] for p in parts) <= mem["peak"] <= sum(mem[p] for p in parts),
              f"{what}: {phase} peak {mem['peak']} outside its parts {[mem[p] for p in parts]}")
    if c["shard"] == "none":  # inference holds the whole model, a sharded step a part of it
        check(mi["peak"] <= m["peak"], f"{what}: inference peak {mi['peak']} above "
              f"training's {m['peak']}")


checked = 0
for _ in range(N_CONFIGS):
    c = random_config()
    d, err = sm_json("predict", *options(c), "--batch", str(c["batch"]))
    if d is None:  # a refused configuration: one line saying why
        print(f"refused: {name(c)}: {err}")
        check(err.startswith("scalemeter predict:") and "\n" not in err,
              f"{name(c)}: refused without one line: {err!r}")
        continue
    checked += 1
    one_point(c, d, name(c))

    # a larger batch: no less time, no less memory
    bigger, _ = sm_json("predict", *options(c), "--batch", str(c["batch"] * 2))
    if bigger:
        one_point(c, bigger, name(c, batch=c["batch"] * 2))
        for key in ("t_infer", "t_fwd", "t_bwd"):
            check(bigger[key] >= d[key] * (1 - REL),
                  f"{name(c)}: {key} {d[key]} at batch {c['batch']}, {bigger[key]} at "
                  f"{c['batch'] * 2}")
        for key in ("activations", "peak"):
            check(bigger["memory"][key] >= d["memory"][key],
                  f"{name(c)}: memory {key} falls from {d['memory'][key]} to "
                  f"{bigger['memory'][key]} as the batch doubles")

    # sharding and checkpointing
    if c["nodes"] * c["gpus"] > 1 and c["shard"] != "none":
        plain, _ = sm_json("predict", *options(c, shard="none"), "--batch", str(c["batch"]))
        if plain:
            for key in ("gradients", "optimizer"):
                check(d["memory"][key] <= plain["memory"][key],
                      f"{name(c)}: sharded {key} {d['memory'][key]} above DDP's "
                      f"{plain['memory'][key]}")
            # fully sharded, the gathered units (the root and two blocks: docs/scaling.md)
            # come on top of the 1/N shard: at most the whole model once more
            n = c["nodes"] * c["gpus"]
            bound = plain["memory"]["weights"] * (1 + 1 / n if c["shard"] == "full" else 1)
            check(d["memory"]["weights"] <= bound + 1,
                  f"{name(c)}: sharded weights {d['memory']['weights']} above {bound:.0f} "
                  f"(DDP's {plain['memory']['weights']})")
    if c["checkpoint"] != "none":
        plain, _ = sm_json("predict", *options(c, checkpoint="none"), "--batch",
                           str(c["batch"]))
        # (not the activations: their part is a peak, and a recomputed block's tensors come
        # back during the backward pass, so a network of few small blocks, alexnet's
        # classifier, can peak a little higher checkpointed, as PyTorch's would)
        if plain:
            check(d["t_bwd"] >= plain["t_bwd"] * (1 - REL),
                  f"{name(c)}: checkpointed t_bwd {d['t_bwd']} below {plain['t_bwd']} without")

    # predict is curve's one-point case
    curve, err = sm_json("curve", *options(c), "--batch", str(c["batch"]))
    if curve:
        points = [p for p in curve["curves"][0]["points"] if p["nodes"] == c["nodes"]]
        check(len(points) == 1, f"{name(c)}: curve has no point at {c['nodes']} nodes")
        for p in points:
            for key in ("t_infer", "t_fwd", "t_bwd", "t_grad", "t_step", "mfu"):
                check(p[key] == d[key], f"{name(c)}: curve's {key} {p[key]}, predict's {d[key]}")
            check(p["memory"] == d["memory"], f"{name(c)}: curve's memory differs from predict's")
    else:
        check(False, f"{name(c)}: curve refused what predict took: {err}")

    # the largest batch
    mb, err = sm_json("predict", *options(c), "--max-batch")
    if mb and mb.get("max_batch"):
        b = mb["max_batch"]
        at, _ = sm_json("predict", *options(c), "--batch", str(b))
        above, _ = sm_json("predict", *options(c), "--batch", str(b + 1))
        check(at is not None and at["memory"]["fits"], f"{name(c)}: max batch {b} does not fit")
        check(above is None or not above["memory"]["fits"],
              f"{name(c)}: batch {b + 1}, above the max batch {b}, fits")

# batches whose forward and backward FLOPs each fit 64 bits and their sum does not:
# resnet50 at batch 4e8 has F = 3.29e18 and Fb = 6.56e18 (metrics), above 2^63 = 9.22e18
# together; mfu was negative (-0.095). mfu = (F + Fb) / (t_step x peak), tf32's 494.7 TFLOP/s
for batch in (300000000, 400000000):
    m, err = sm_json("metrics", "resnet50", "--batch", str(batch))
    what = f"resnet50 --device h100 --batch {batch}"
    for cmd in ("predict", "curve"):
        d, err = sm_json(cmd, "resnet50", "--device", "h100", "--batch", str(batch),
                         *(["--nodes", "1"] if cmd == "curve" else []))
        d = d["curves"][0]["points"][0] if d and cmd == "curve" else d
        if not (m and d):
            check(False, f"{cmd} {what}: {err}")
            continue
        want = (m["flops"] + m["bwd_flops"]) / (d["t_step"] * 494.7e12)
        check(d["mfu"] is not None and close(d["mfu"], want, 1e-4),
              f"{cmd} {what}: mfu {d['mfu']}, expected {want}")
# past 1e9 the network's 64-bit totals overflow (metrics refuses the batch) and mfu was null
# though every time was predicted: the FLOPs of resnet50 are the same per sample at any batch
# (those of batch 1, metrics), so mfu = B (F1 + Fb1) / (t_step x peak)
m, err = sm_json("metrics", "resnet50", "--batch", "1")
for batch in (1000000000, 4294967296):
    d, err = sm_json("predict", "resnet50", "--device", "h100", "--batch", str(batch))
    if not (m and d):
        check(False, f"predict resnet50 --batch {batch}: {err}")
        continue
    want = batch * (m["flops"] + m["bwd_flops"]) / (d["t_step"] * 494.7e12)
    check(d["mfu"] is not None and close(d["mfu"], want, 1e-4),
          f"predict resnet50 --device h100 --batch {batch}: mfu {d['mfu']}, expected {want}")

print(f"{checked} of {N_CONFIGS} configurations predicted (seed {SEED})")
check(checked >= N_CONFIGS // 2, f"only {checked} of {N_CONFIGS} configurations predicted")
finish()
