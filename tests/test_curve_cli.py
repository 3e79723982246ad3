#!/usr/bin/env python3
"""`scalemeter curve` as a user runs it: CSV, JSON, table and SVG output against numbers
derived by hand, and every bad input refused with one line and a non-zero exit.

usage: test_curve_cli.py SCALEMETER   (run from the source root)
"""
import csv
import io
import json
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import cli_checks
from cli_checks import SM, check, near, finish  # noqa: F401


def run(*args):
    """`scalemeter curve ARGS`: (exit status, stdout, stderr)."""
    return cli_checks.run("curve", *args)


def good(*args):
    rc, out, err = run(*args)
    check(rc == 0, f"curve {' '.join(args)}: exit {rc}: {err.strip()}")
    return out


ROUND = ["tests/data/curve/conv_relu.ini", "--device", "tests/data/curve/round_device.ini"]

# --- CSV against hand numbers -----------------------------------------------------------------
# conv_relu on round_device at batch 32 (tests/test_device_predictor.c derives each term):
#   t_fwd 1.6025108992e-3 s, t_bwd 3.1336415744e-3 s, update 1.147456e-5 s.
# 1 node x 4 devices: all-reduce inside the node only, 147,456 bytes in one bucket:
#   2 x 3/4 x 147,456 / 100e9 = 2.21184e-6 s + 2 x 3 x 2 us = 1.421184e-5 s;
#   t_grad = 2.56864e-5 s, t_step = 4.7618388736e-3 s, 128 images / t_step.
# 3 nodes x 4: t_grad 5.55168e-5 s (test_device_predictor.c), t_step 4.7916692736e-3 s.
FWD, BWD = 1.6025108992e-3, 3.1336415744e-3
GRAD1, GRAD3 = 2.56864e-5, 5.55168e-5
STEP1, STEP3 = FWD + BWD + GRAD1, FWD + BWD + GRAD3
out = good(*ROUND, "--batch", "32", "--nodes", "1,3", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
header = out.splitlines()[0].split(",")
for col in ["model", "image", "batch", "nodes", "gpus_per_node", "t_infer", "t_fwd", "t_bwd",
            "t_grad", "t_step", "images_per_s", "efficiency", "turning_point"]:
    check(col in header, f"CSV column {col}")
check(header[:10] == ["model", "image", "batch", "nodes", "gpus_per_node", "t_infer", "t_fwd",
                      "t_bwd", "t_grad", "t_step"], "CSV starts with the measurement columns")
check(len(rows) == 2, "two node counts, two rows")
if len(rows) == 2:
    r1, r3 = rows
    check(r1["gpus_per_node"] == "4", "the device file's 4 devices per node by default")
    check(r1["image"] == "56", "image column: the input's height")
    check(near(float(r1["t_fwd"]), FWD), "t_fwd")
    check(near(float(r1["t_bwd"]), BWD), "t_bwd")
    check(near(float(r1["t_grad"]), GRAD1), f"t_grad at 1 node: {r1['t_grad']}")
    check(near(float(r3["t_grad"]), GRAD3), f"t_grad at 3 nodes: {r3['t_grad']}")
    check(near(float(r1["images_per_s"]), 128 / STEP1), "images/s at 1 node")
    check(near(float(r3["images_per_s"]), 384 / STEP3), "images/s at 3 nodes")
    # efficiency = (384 / STEP3) / (3 x 128 / STEP1) = STEP1 / STEP3
    check(near(float(r3["efficiency"]), STEP1 / STEP3), "efficiency at 3 nodes")
    check(r1["turning_point"] == "" and r3["turning_point"] == "", "no turning point")
    check(r3["global_batch"] == "384", "global batch 32 x 12")

# Time to train: 1,000 samples a epoch over 128 (1 node) and 384 (3 nodes) a step are
# ceil(1000/128) = 8 and ceil(1000/384) = 3 steps; 5 epochs of them.
out = good(*ROUND, "--batch", "32", "--nodes", "1,3", "--dataset", "1000", "--epochs", "5",
           "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
check(out.splitlines()[0].endswith(",t_epoch,epochs,t_train,allreduce_algorithm,"
                                   "allreduce_protocol,mfu,memory,memory_capacity,fits"),
      "CSV: the epoch columns after t_epoch, then the description's all-reduce")
if len(rows) == 2:
    r1, r3 = rows
    check(near(float(r1["t_epoch"]), 8 * STEP1), f"t_epoch at 1 node: {r1['t_epoch']}")
    check(near(float(r3["t_epoch"]), 3 * STEP3), f"t_epoch at 3 nodes: {r3['t_epoch']}")
    check(r3["epochs"] == "5", "epochs column")
    check(near(float(r3["t_train"]), 15 * STEP3), f"t_train at 3 nodes: {r3['t_train']}")
# without --epochs: an ImageNet epoch, 1,281,167 samples: 128 x 10,009 = 1,281,152 falls 15
# short, so 10,010 steps
doc = json.loads(good(*ROUND, "--batch", "32", "--nodes", "1", "--format", "json"))
pt = doc["curves"][0]["points"][0]
check(doc["dataset"] == 1281167 and "t_train" not in pt, "JSON: default dataset, no t_train")
check(near(pt["t_epoch"], 10010 * STEP1), f"JSON t_epoch: {pt['t_epoch']}")
out = good(*ROUND, "--batch", "32", "--nodes", "1", "--dataset", "1000", "--epochs", "2")
check("t_train" in out and "training 2 epochs" in out, "table: t_train column and its epochs")
for bad in (["--epochs", "0"], ["--dataset", "-3"], ["--epochs", "x"]):
    rc, _, err = run(*ROUND, "--batch", "32", "--nodes", "1", *bad)
    check(rc != 0 and err.count("\n") == 1 and bad[0] in err, f"{bad} refused in one line: {err}")

# --collective nccl: NCCL's choice by bucket size. On one node of 4 the conv's 147,456 bytes
# (one bucket) go by ring LL: round_device's 2 us NVLink step x 0.6/3.4 per step,
# 6.6 us + 6 x 2 us x 0.6/3.4 = 8.71764706 us of latency, + 147,456 x 6/4 / (100e9 x 0.5)
# = 4.42368e-6 s; t_grad adds the update, 1.147456e-5 s (tests/test_device_predictor.c):
# 8.71764706e-6 + 4.42368e-6 + 1.147456e-5 = 2.461588706e-5 s. (ring Simple: 8.4 + 6 x 2 us
# + 2.21184 us = 22.6 us; LL128: 14 + 6 x 2 x 1.9/3.4 + 147,456 x 1.5 / 92e9 = 23.1 us.)
out = good(*ROUND, "--batch", "32", "--nodes", "1", "--collective", "nccl", "--format", "csv")
row = next(csv.DictReader(io.StringIO(out)))
check(near(float(row["t_grad"]), 2.461588706e-5), f"--collective nccl t_grad: {row['t_grad']}")

# A:B doubles from A up to B; repeats and order of --nodes do not matter
out = good(*ROUND, "--batch", "32", "--nodes", "24,3:48,6", "--format", "csv")
nodes = [r["nodes"] for r in csv.DictReader(io.StringIO(out))]
check(nodes == ["3", "6", "12", "24", "48"], f"3:48 sweep: {nodes}")
out = good(*ROUND, "--batch", "32", "--nodes", "2,1,1", "--format", "csv")
nodes = [r["nodes"] for r in csv.DictReader(io.StringIO(out))]
check(nodes == ["1", "2"], f"--nodes 2,1,1: {nodes}")

# strong scaling: the per-device batch shrinks, the global batch stays
out = good(*ROUND, "--global-batch", "512", "--nodes", "1:4", "--format", "csv")
got = [(r["batch"], r["global_batch"]) for r in csv.DictReader(io.StringIO(out))]
check(got == [("128", "512"), ("64", "512"), ("32", "512")], f"strong scaling batches: {got}")

# A global batch the devices do not divide is rounded down to a whole number a device: 1000
# over 8 devices is 125 each; over 24, 1000 / 24 = 41.67, so 41 each and 41 x 24 = 984 in all.
# Said once a point on stderr (the 24 devices only), never in the CSV or JSON on stdout.
NOTE24 = "scalemeter curve: note: global batch 1000 over 24 devices: 41 each, 984 in all"
for fmt in ["csv", "json"]:
    rc, out, err = run("resnet50", "--device", "h100", "--global-batch", "1000", "--nodes", "1,3",
                       "-g", "8", "--format", fmt)
    check(rc == 0 and err.splitlines() == [NOTE24], f"{fmt}: one note on stderr: {err!r}")
    check("note" not in out, f"{fmt}: no note on stdout")
    if fmt == "csv":
        got = [(r["batch"], r["global_batch"]) for r in csv.DictReader(io.StringIO(out))]
        check(got == [("125", "1000"), ("41", "984")], f"rounded global batch: {got}")
    else:
        check(json.loads(out)["warning"] is None, "json: the note is no warning")
# two models share the points: still one note a point; with --accumulate 2, 500 samples a
# micro-batch: 500 / 8 = 62 each (992 in all), 500 / 24 = 20 each (960 in all)
rc, out, err = run("resnet18,resnet50", "--device", "h100", "--global-batch", "1000",
                   "--nodes", "1,3", "-g", "8", "--accumulate", "2", "--format", "csv")
check(rc == 0 and err.splitlines() == [
    "scalemeter curve: note: global batch 1000 over 8 devices in 2 micro-batches: 62 each, "
    "992 in all",
    "scalemeter curve: note: global batch 1000 over 24 devices in 2 micro-batches: 20 each, "
    "960 in all"], f"--accumulate 2: a note a point: {err!r}")

# coefficients (the ring form, tests/data/curve/ring_coeffs.ini) on tiny_resnet, W = 24,666,
# L = 17, F = 27,460,266 a sample: t_fwd(8) = 8 x 27,460,266e-12 + 1e-3 = 1.219682128e-3 s;
# t_grad = 17 x 10 us + 1e-10 x 2(N-1)/N x 98,664 + 10 us x 2(N-1): 1.7e-4 s at N = 1,
# 1.998664e-4 s at 2, 2.447996e-4 s at 4.
out = good("examples/tiny_resnet.ini", "--coeffs", "tests/data/curve/ring_coeffs.ini",
           "--batch", "8", "--nodes", "1:4", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
check([r["gpus_per_node"] for r in rows] == ["1"] * 3, "coefficients: 1 device per node")
check(near(float(rows[0]["t_fwd"]), 1.219682128e-3), "coefficients: t_fwd")
for r, want in zip(rows, [1.7e-4, 1.998664e-4, 2.447996e-4]):
    check(near(float(r["t_grad"]), want), f"coefficients: t_grad at {r['nodes']} nodes")

# --- fitted passes, the description's all-reduce (--coeffs and --device together) ------------
# ring_coeffs.ini's passes and local update (17 x 10 us = 1.7e-4 s), round_device.ini's ring
# (it names no collective) on 4 devices a node, 4 x 24,666 = 98,664 bytes in one bucket:
#   1 node: 2 x 3/4 x 98,664 / 100e9 + 2 x 3 x 2 us = 1.347996e-5 s, t_grad 1.8347996e-4 s;
#   3 nodes: + 2 x 2/3 x (98,664 / 4) / (10e9 x 2 ports / 4 rings) + 2 x 2 x 5 us
#            = 1.347996e-5 + 6.5776e-6 + 2e-5 = 4.005756e-5 s, t_grad 2.1005756e-4 s.
HYBRID = ["examples/tiny_resnet.ini", "--coeffs", "tests/data/curve/ring_coeffs.ini",
          "--device", "tests/data/curve/round_device.ini", "--batch", "8", "--format", "csv"]
out = good(*HYBRID, "--nodes", "1,3")
rows = list(csv.DictReader(io.StringIO(out)))
check([r["gpus_per_node"] for r in rows] == ["4", "4"], "both: the description's 4 devices a node")
check(all(near(float(r["t_fwd"]), 1.219682128e-3) for r in rows), "both: the fitted t_fwd")
for r, want in zip(rows, [1.8347996e-4, 2.1005756e-4]):
    check(near(float(r["t_grad"]), want), f"both: t_grad at {r['nodes']} nodes, {r['t_grad']}")
# one bucket, ready when the backward pass ends (98,664 bytes fill no 1 MiB first bucket): the
# overlapped all-reduce hides nothing
out = good(*HYBRID, "--nodes", "3", "--overlap")
check(near(float(list(csv.DictReader(io.StringIO(out)))[0]["t_grad"]), 2.1005756e-4),
      "both, --overlap, one bucket: nothing hidden")
# NCCL's choice: the local update plus what `allreduce --device` predicts for the bucket
out = good(*HYBRID, "--nodes", "3", "--collective", "nccl")
t_grad = float(list(csv.DictReader(io.StringIO(out)))[0]["t_grad"])
p = subprocess.run([SM, "allreduce", "--device", "tests/data/curve/round_device.ini", "--nodes",
                    "3", "-g", "4", "--collective", "nccl", "--min-bytes", "98664",
                    "--max-bytes", "98664", "--format", "csv"], capture_output=True, text=True)
sweep = list(csv.DictReader(io.StringIO(p.stdout)))
check(p.returncode == 0 and len(sweep) == 1, f"allreduce --device: {p.stderr}")
check(near(t_grad, 1.7e-4 + float(sweep[0]["time_s"]), 1e-4),
      f"both, nccl: t_grad {t_grad} = 1.7e-4 + all_reduce {sweep[0]['time_s']}")
# predict takes the same pair: one row of the curve
p = subprocess.run([SM, "predict", "examples/tiny_resnet.ini", "--coeffs",
                    "tests/data/curve/ring_coeffs.ini", "--device",
                    "tests/data/curve/round_device.ini", "--batch", "8", "--nodes", "3",
                    "--format", "json"], capture_output=True, text=True)
doc = json.loads(p.stdout) if p.returncode == 0 else {}
check(doc.get("gpus_per_node") == 4 and near(doc.get("t_grad", 0), 2.1005756e-4),
      f"predict --coeffs --device: {p.stdout[:300]} {p.stderr}")
# DDP's 25 MiB buckets hide behind ResNet-50's backward pass: overlap shortens t_grad
grads = []
for extra in ([], ["--overlap"]):
    out = good("resnet50", "--coeffs", "tests/data/curve/ring_coeffs.ini", "--device", "h100",
               "--batch", "64", "--nodes", "4", "--format", "csv", *extra)
    grads.append(float(list(csv.DictReader(io.StringIO(out)))[0]["t_grad"]))
check(grads[1] < grads[0], f"both, resnet50 on 4 h100 nodes: overlap {grads[1]} < {grads[0]}")
rc, out, err = run("resnet50", "--coeffs", "tests/data/curve/ring_coeffs.ini", "--device",
                   "h100", "--batch", "64", "--nodes", "1")
check(rc == 0 and "gradients all-reduced by h100's NCCL model" in out,
      f"both: the table says whose all-reduce: {out[:200]}")

# --- what one bucket's all-reduce runs ---------------------------------------------------------
# ResNet-50's 25,557,032 fp32 gradients (102,228,128 bytes) go in ceil(102,228,128 / 25 MiB)
# = 4 equal buckets of 25,557,032 bytes. On one H100 node NCCL runs NVLS on Simple from 2 MB
# (NCCL_DEBUG on such a node, NVIDIA/nccl-tests#309); across nodes the column is what
# `allreduce --device` says NCCL picks for the same bucket.
BUCKET = "25557032"
out = good("resnet50", "--device", "h100", "--batch", "64", "--nodes", "1,2,4,64",
           "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
check((rows[0]["allreduce_algorithm"], rows[0]["allreduce_protocol"]) == ("nvls", "Simple"),
      f"all-reduce on one H100 node: {rows[0]}")
for r in rows[1:]:
    p = subprocess.run([SM, "allreduce", "--device", "h100", "--nodes", r["nodes"], "--min-bytes",
                        BUCKET, "--max-bytes", BUCKET, "--format", "csv"],
                       capture_output=True, text=True)
    sweep = list(csv.DictReader(io.StringIO(p.stdout)))
    check(p.returncode == 0 and len(sweep) == 1 and
          (r["allreduce_algorithm"], r["allreduce_protocol"]) ==
          (sweep[0].get("algorithm"), sweep[0].get("protocol")),
          f"all-reduce on {r['nodes']} nodes: curve {r['allreduce_algorithm']}/"
          f"{r['allreduce_protocol']}, allreduce --device {sweep} {p.stderr}")
# the same in JSON, with one bucket's time; the table's column; the ring collective; one device
# sends nothing; a calibration alone has no algorithm to tell
doc = json.loads(good("resnet50", "--device", "h100", "--batch", "64", "--nodes", "1",
                      "--format", "json"))
a = doc["curves"][0]["points"][0].get("allreduce") or {}
check(a.get("algorithm") == "nvls" and a.get("protocol") == "Simple" and a.get("bucket_s", 0) > 0,
      f"JSON allreduce: {a}")
rc, out, err = run("resnet50", "--device", "h100", "--batch", "64", "--nodes", "1")
check(rc == 0 and "all-reduce" in out.splitlines()[3] and "nvls/Simple" in out,
      f"the table's all-reduce column: {out[:600]}")
out = good("resnet50", "--device", "h100", "--batch", "64", "--nodes", "1,2", "-g", "1",
           "--collective", "ring", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out)))
check([(r["allreduce_algorithm"], r["allreduce_protocol"]) for r in rows] ==
      [("", ""), ("ring", "")], f"ring collective, one device then two: {rows}")
out = good("resnet50", "--coeffs", "tests/data/curve/ring_coeffs.ini", "--batch", "64",
           "--nodes", "1,2", "--format", "csv")
check("allreduce_algorithm" not in out.splitlines()[0], "a calibration alone: no all-reduce column")
out = good(*HYBRID, "--nodes", "3")
check(list(csv.DictReader(io.StringIO(out)))[0]["allreduce_algorithm"] == "ring",
      "both: the description's ring collective")
# NCCL_ALGO / NCCL_PROTO: the local update plus what `allreduce --device` predicts for the
# bucket under the same restriction, which runs NCCL's model on a description of the ring
out = good(*HYBRID, "--nodes", "3", "--algorithm", "ring", "--protocol", "simple")
row = list(csv.DictReader(io.StringIO(out)))[0]
p = subprocess.run([SM, "allreduce", "--device", "tests/data/curve/round_device.ini", "--nodes",
                    "3", "-g", "4", "--algorithm", "ring", "--protocol", "simple", "--min-bytes",
                    "98664", "--max-bytes", "98664", "--format", "csv"],
                   capture_output=True, text=True)
sweep = list(csv.DictReader(io.StringIO(p.stdout)))
check(p.returncode == 0 and len(sweep) == 1 and
      near(float(row["t_grad"]), 1.7e-4 + float(sweep[0]["time_s"]), 1e-4) and
      (row["allreduce_algorithm"], row["allreduce_protocol"]) == ("ring", "Simple"),
      f"both, forced Ring/Simple: {row} against {sweep} {p.stderr}")
# a restriction leaves NCCL fewer choices, never a faster one: forced Ring/Simple on h100 nodes
# is at least NCCL's own choice at every node count, and says ring/Simple
free_, forced = (list(csv.DictReader(io.StringIO(good(
    "resnet50", "--device", "h100", "--batch", "64", "--nodes", "1:64", "--format", "csv",
    *extra)))) for extra in ([], ["--algorithm", "Ring", "--protocol", "Simple"]))
check(all(float(f["t_grad"]) >= float(n["t_grad"]) and
          (f["allreduce_algorithm"], f["allreduce_protocol"]) == ("ring", "Simple")
          for f, n in zip(forced, free_)) and len(forced) == 7,
      f"forced Ring/Simple: {[(f['t_grad'], f['allreduce_algorithm']) for f in forced]}")
rc, out, err = run("resnet50", "--device", "h100", "--batch", "64", "--nodes", "1",
                   "--algorithm", "Ring", "--protocol", "Simple")
check(rc == 0 and "(NCCL_ALGO=Ring, NCCL_PROTO=Simple)" in out.splitlines()[0] and
      "per-generation caps" not in out, f"the table says the restriction: {out[:200]}")
# a description that names no architecture (nor tensor cores) runs NCCL's model without its
# per-generation caps, and the table says so; the ring collective has no such caps to leave out
for collective, said in (("nccl", True), ("ring", False)):
    rc, out, err = run("resnet50", "--device", "tests/data/curve/round_fused_device.ini",
                       "--batch", "8", "--nodes", "2", "--collective", collective)
    check(rc == 0 and ("without NCCL's per-generation caps (no architecture or tensor_cores in "
                       "the description)" in out.splitlines()[0]) == said,
          f"{collective}: the caveat {'said' if said else 'left out'}: {out[:300]} {err}")
for args, phrase in [
        (["--algorithm", "ring", "--collective", "ring"], "it needs the nccl collective"),
        (["--algorithm", "rng"], "--algorithm rng: expected a comma list of Ring, Tree"),
        (["--protocol", "LL,"], "protocol LL,: expected a comma list"),
        (["--algorithm", "nvls", "--nodes", "2"], "no algorithm of nvls on protocol any runs on "
                                                  "2 nodes of 8 devices")]:
    cmd = ["resnet50", "--device", "h100", "--batch", "64", *args]
    if "--nodes" not in args:
        cmd += ["--nodes", "1"]
    rc, out, err = run(*cmd)
    check(rc != 0 and len(err.strip().splitlines()) == 1 and phrase in err,
          f"{args}: exit {rc}, {err!r}")
rc, out, err = run("resnet50", "--coeffs", "h100-pytorch-bf16", "--batch", "64", "--nodes", "1",
                   "--algorithm", "ring")
check(rc != 0 and "apply to --device" in err, f"--algorithm without --device: {err!r}")
p = subprocess.run([SM, "predict", "resnet50", "--batch", "64", "--protocol", "simple"],
                   capture_output=True, text=True)
check(p.returncode == 2 and "apply to --device" in p.stderr,
      f"predict --protocol without --device: {p.stderr}")
# predict --coeffs --device says the same as curve for the same layout
curve_pt = json.loads(good("resnet50", "--coeffs", "h100-pytorch-bf16", "--device", "h100",
                           "--batch", "64", "--nodes", "16", "--format", "json"))
curve_ar = curve_pt["curves"][0]["points"][0]["allreduce"]
p = subprocess.run([SM, "predict", "resnet50", "--coeffs", "h100-pytorch-bf16", "--device",
                    "h100", "--batch", "64", "--nodes", "16", "--format", "json"],
                   capture_output=True, text=True)
doc = json.loads(p.stdout) if p.returncode == 0 else {}
check(doc.get("allreduce") == curve_ar and curve_ar["algorithm"] != "none",
      f"predict's all-reduce {doc.get('allreduce')} is curve's {curve_ar}")
# predict takes curve's --overlap, --bucket-mib and --collective, and predicts the same row
for extra in (["--overlap"], ["--collective", "ring"], ["--bucket-mib", "5", "--overlap"],
              ["--algorithm", "ring,tree", "--protocol", "LL128,simple"]):
    c = csv.DictReader(io.StringIO(good("resnet50", "--coeffs", "h100-pytorch-bf16", "--device",
                                        "h100", "--batch", "64", "--nodes", "16",
                                        "--format", "csv", *extra)))
    want = next(c)
    p = subprocess.run([SM, "predict", "resnet50", "--coeffs", "h100-pytorch-bf16", "--device",
                        "h100", "--batch", "64", "--nodes", "16", "--format", "csv", *extra],
                       capture_output=True, text=True)
    got = next(csv.DictReader(io.StringIO(p.stdout)), {}) if p.returncode == 0 else {}
    check(got.get("t_grad") == want["t_grad"] and
          got.get("allreduce_algorithm") == want["allreduce_algorithm"],
          f"predict {extra}: {got.get('t_grad')} {got.get('allreduce_algorithm')}, curve "
          f"{want['t_grad']} {want['allreduce_algorithm']} {p.stderr}")
p = subprocess.run([SM, "predict", "resnet50", "--batch", "64", "--collective", "nccl"],
                   capture_output=True, text=True)
check(p.returncode == 2 and "apply to --device" in p.stderr and
      len(p.stderr.strip().splitlines()) == 1, f"predict --collective without --device: {p.stderr}")
p = subprocess.run([SM, "predict", "resnet50", "--coeffs", "h100-pytorch-bf16", "--device",
                    "h100", "--batch", "64", "--nodes", "16"], capture_output=True, text=True)
check(p.returncode == 0 and f"{curve_ar['algorithm']}/{curve_ar['protocol']}" in
      next((ln for ln in p.stdout.splitlines() if ln.startswith("all-reduce")), ""),
      f"predict's table row: {p.stdout[-400:]}")

# --- predict is curve's one-row case: equal options, equal numbers ---------------------------
# --device alone is the calibration-free model for both (predict once kept the shipped CPU
# calibration's passes under --device: 1.68 min a step of resnet50 at batch 256 on an H100).
# conv_relu on round_device at 3 nodes: the hand numbers above (FWD, BWD, GRAD3).
p = subprocess.run([SM, "predict", *ROUND, "--batch", "32", "--nodes", "3", "--format", "json"],
                   capture_output=True, text=True)
doc = json.loads(p.stdout) if p.returncode == 0 else {}
check(doc.get("gpus_per_node") == 4 and near(doc.get("t_fwd", 0), FWD) and
      near(doc.get("t_bwd", 0), BWD) and near(doc.get("t_grad", 0), GRAD3) and
      near(doc.get("t_step", 0), STEP3), f"predict --device alone: {p.stdout[:400]} {p.stderr}")
TIMES = ("t_fwd", "t_bwd", "t_grad", "t_step")
for args in (["resnet50", "--device", "h100", "--batch", "256", "-g", "1", "--nodes", "1"],
             ["resnet50", "--device", "h100", "--precision", "bf16", "--batch", "64", "-g", "8",
              "--nodes", "4"],
             ["resnet50", "--device", "a100", "--framework", "fused", "--batch", "32",
              "--nodes", "2"],
             ["resnet50", "--coeffs", "h100-pytorch-bf16", "--device", "h100", "--batch", "64",
              "--nodes", "16", "--precision", "bf16"],
             ["resnet50", "--coeffs", "h100-pytorch-tf32", "--batch", "256", "--nodes", "2",
              "-g", "4"],
             ["resnet18", "--coeffs", "default", "--batch", "8", "--image", "128", "--nodes", "1"],
             ["examples/tiny_resnet.ini", "--coeffs", "tests/data/curve/ring_coeffs.ini",
              "--batch", "8", "--nodes", "4", "--overlap"]):
    c = json.loads(good(*args, "--format", "json") or "{}")
    want = c["curves"][0]["points"][0] if c else {}
    p = subprocess.run([SM, "predict", *args, "--format", "json"], capture_output=True, text=True)
    got = json.loads(p.stdout) if p.returncode == 0 else {}
    check(want and all(got.get(k) == want[k] for k in TIMES) and
          got.get("coeffs") == c.get("predictor"),
          f"predict {' '.join(args)}: {[got.get(k) for k in TIMES]}, curve "
          f"{[want.get(k) for k in TIMES]} {p.stderr}")
# the case by magnitude: an H100 step of resnet50 at batch 256 is about 0.14 s
# (README: measured 0.138 s), not minutes
p = subprocess.run([SM, "predict", "resnet50", "--device", "h100", "--batch", "256", "-g", "1",
                    "--format", "json"], capture_output=True, text=True)
doc = json.loads(p.stdout) if p.returncode == 0 else {}
check(0.1 < doc.get("t_step", 0) < 0.2, f"predict --device h100: t_step {doc.get('t_step')}")
p = subprocess.run([SM, "predict", "resnet50", "--coeffs", "default", "--framework", "fused",
                    "--batch", "8"], capture_output=True, text=True)
check(p.returncode == 2 and "--framework" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
      f"predict --coeffs --framework refused: {p.stderr}")

# --- warnings: each said once a command, naming what it applies to, and in JSON too ------------
# the shipped CPU calibration (configs/calibrations/default.ini): single-device runs, batches 1
# to 16, images 64 to 224, cnn networks. 3 models x 3 batches x 4 node counts = 36 points, three
# warnings: several devices (nodes 2 to 8, every batch), batches 32 and 64 (every node count),
# and vit_b_16's family; every network at its own image size, inside the image range (vit_b_16
# runs at 224 alone: its position table is added whole).
WARN_ARGS = ["resnet18,resnet50,vit_b_16", "--coeffs", "default", "--batch", "8,32,64",
             "--nodes", "1:8"]
WANT_WARNINGS = [
    "batch 8, 32, 64 on 2, 4, 8 nodes: the calibration saw single-device runs only: t_grad on "
    "several devices is the local update alone",
    "batch 32, 64 on 1, 2, 4, 8 nodes: a batch beyond the calibrated range (1 to 16): times "
    "extrapolate",
    "vit_b_16: the calibration was fitted on cnn networks only, and the layers of transformer "
    "networks cost differently"]
for fmt in ("table", "csv", "json"):
    rc, out, err = run(*WARN_ARGS, "--format", fmt)
    lines = [ln for ln in err.splitlines() if ln.startswith("scalemeter curve: warning: ")]
    check(rc == 0 and len(lines) == 3 and len(err.splitlines()) == 3 and
          all(any(ln[len("scalemeter curve: warning: "):].startswith(w) for ln in lines)
              for w in WANT_WARNINGS), f"curve --format {fmt}: warnings {err}")
    if fmt == "json" and rc == 0:
        doc = json.loads(out)
        said = [ln[len("scalemeter curve: warning: "):] for ln in lines]
        check(doc.get("warning") == "; ".join(said),
              f"curve JSON warning is what stderr says: {doc.get('warning')!r}")
# --overlap on single-device rows: no all-reduce to overlap; the warning says so, and the
# header no longer claims buckets all-reduced during the backward pass
rc, out, err = run("resnet18", "--coeffs", "default", "--overlap", "--batch", "8", "--nodes",
                   "1:2")
check(rc == 0 and "the overlap has nothing to hide" in err and "during the backward" not in out,
      f"curve --overlap on single-device rows: {err}{out[:300]}")
doc = json.loads(good(*ROUND, "--batch", "32", "--nodes", "1,3", "--format", "json") or "{}")
check("warning" in doc and doc["warning"] is None, "curve JSON: warning null when none")
# predict says the same as the one-row curve
args = ["resnet50", "--coeffs", "default", "--batch", "32", "--nodes", "2", "-g", "4"]
c = json.loads(good(*args, "--format", "json") or "{}")
p = subprocess.run([SM, "predict", *args, "--format", "json"], capture_output=True, text=True)
got = json.loads(p.stdout) if p.returncode == 0 else {}
check(c.get("warning") and got.get("warning") == c.get("warning") and
      got["warning"].startswith("batch 32 on 2 nodes x 4 devices: the calibration saw "
                                "single-device runs only"),
      f"predict's warning {got.get('warning')!r}, curve's {c.get('warning')!r}")
# What no predictor can price, said whatever the predictor: at 32 x 32 ResNet-50's layer4.0.bn2
# normalises a 1 x 1 map, one value per channel at batch 1, which PyTorch refuses to train
# ("Expected more than 1 value per channel when training"); at batch 2 it holds two. And an
# epoch of 100 samples under a global batch of 256 x 8 is one step of fewer samples.
rc, out, err = run("resnet50", "--device", "h100", "-g", "1", "--batch", "1,2", "--image", "32",
                   "--nodes", "1")
want = ("scalemeter curve: warning: resnet50: training at batch 1: layer 'layer4.0.bn2' "
        "(batchnorm2d) normalises one value per channel, which PyTorch refuses")
check(rc == 0 and err.startswith(want) and len(err.splitlines()) == 1 and "batch 2" not in err,
      f"curve at one value per channel: {err}")
rc, out, err = run("resnet50", "--device", "h100", "--batch", "256", "--nodes", "1",
                   "--dataset", "100")
check(rc == 0 and err.strip() == "scalemeter curve: warning: batch 256 on 1 node x 8 devices: the "
      "global batch (the batch x the micro-batches x the devices) is more than the dataset's "
      "100 samples: an epoch is one step of fewer samples, priced as a whole one",
      f"curve with a global batch above the dataset: {err}")
rc, out, err = run("resnet50", "--device", "h100", "--batch", "256", "--nodes", "1",
                   "--dataset", "2048")
check(rc == 0 and err == "", f"curve with a global batch of the dataset's size: {err}")

# --- JSON, several models and batches, turning points -----------------------------------------
out = good("resnet18,vgg16", "--device", "h100", "--global-batch", "1024,4096", "--nodes", "1:64",
           "--format", "json")
doc = json.loads(out)
check(doc["scaling"] == "strong" and doc["gpus_per_node"] == 8, "JSON header")
# the header carries the settings (docs/output.md), precision and optimizer too, as predict's
# JSON and curve's CSV do; they were only inside the free-text predictor
doc_po = json.loads(good("resnet18", "--batch", "8", "--nodes", "1", "--device", "h100",
                         "--precision", "bf16", "--optimizer", "adam", "--format", "json"))
check(doc_po.get("precision") == "bf16" and doc_po.get("optimizer") == "adam" and
      doc_po["curves"][0].get("optimizer") == "adam",
      f"curve's JSON says --precision and --optimizer: {dict(list(doc_po.items())[:12])}")
# without --optimizer each network's recipe (docs/memory.md): torchvision's momentum for
# resnet18, Adam for GPT-2; the header's is null where they differ
doc_po = json.loads(good("resnet18,gpt2", "--batch", "8", "--nodes", "1", "--device", "h100",
                         "--format", "json"))
check(doc_po.get("precision") == "tf32" and "optimizer" in doc_po and
      doc_po["optimizer"] is None and
      [c.get("optimizer") for c in doc_po["curves"]] == ["momentum", "adam"],
      f"two recipes: header {doc_po.get('optimizer', 'missing')}, curves "
      f"{[c.get('optimizer') for c in doc_po['curves']]}")
check(doc.get("optimizer") == "momentum" and doc.get("precision") == "tf32",
      f"resnet18 and vgg16 share torchvision's momentum: {doc.get('optimizer')}")
check(len(doc["curves"]) == 4, "2 models x 2 global batches = 4 curves")
turning = 0
for c in doc["curves"]:
    pts = c["points"]
    check(len(pts) == 7, "1:64 = 7 node counts")
    check(pts[0]["efficiency"] == 1, "efficiency 1 at the smallest node count")
    tp = c["turning_point"]
    if tp is not None:
        turning += 1
        # the turning point's next doubling gains less than 10%, every earlier one more
        i = [p["nodes"] for p in pts].index(tp["nodes"])
        gains = [pts[k + 1]["images_per_s"] / pts[k]["images_per_s"] - 1 for k in range(i + 1)]
        check(gains[-1] < 0.1 and all(g >= 0.1 for g in gains[:-1]),
              f"turning point of {c['model']} {c['global_batch']}: gains {gains}")
        check(near(tp["gain_per_doubling"], gains[-1], 1e-3), "gain_per_doubling")
check(turning >= 2, "strong scaling to 64 nodes turns")

# --- table ----------------------------------------------------------------------------------
out = good("resnet50", "--device", "h100", "--batch", "64", "--nodes", "1:8")
check("turning points" in out and "resnet50, batch 64: none up to 8 nodes" in out,
      "table names the turning point (none here)")

# --- SVG: well-formed, one line per curve, axes, legend, turning points -------------------------
with tempfile.TemporaryDirectory() as tmp:
    svg = os.path.join(tmp, "c.svg")
    # the ring collective: its step latencies turn both curves within 64 nodes
    rc, out, err = run("resnet50,vgg16", "--device", "h100", "--global-batch", "4096",
                       "--nodes", "1:64", "--collective", "ring", "--format", "svg", "-o", svg)
    check(rc == 0 and out == "", f"-o writes the file, nothing to stdout: {err}")
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.parse(svg).getroot()  # raises on malformed XML
    check(root.tag == "{http://www.w3.org/2000/svg}svg", "root element svg")
    series = root.findall(".//s:polyline[@class='series']", ns)
    check(len(series) == 2, f"one throughput line per curve: {len(series)}")
    check(all(len(p.get("points").split()) == 7 for p in series), "7 points per line")
    texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for want in ["throughput (images/s, log scale)", "efficiency (%)",
                 "nodes (8 devices each, log2 scale)", "resnet50", "vgg16",
                 "ideal (linear) scaling", "doubling gains < 10%"]:
        check(want in texts, f"SVG text '{want}'")
    for tick in ["1", "2", "4", "8", "16", "32", "64"]:
        check(tick in texts, f"node tick {tick}")
    rc, out, err = run("resnet50,vgg16", "--device", "h100", "--global-batch", "4096",
                       "--nodes", "1:64", "--collective", "ring", "--format", "json")
    want = sum(c["turning_point"] is not None for c in json.loads(out)["curves"])
    marks = root.findall(".//s:g[@class='turning-point']", ns)
    check(len(marks) == want and want > 0, f"turning-point marks {len(marks)}, curves {want}")
    check(any(t.startswith("turns at ") for t in texts), "turning point labelled")

    # --- bad input: one line naming the problem, non-zero exit --------------------------------
    # calibrations whose t_grad holds communication: the linear form on 1, 2 and 4 ranks; any
    # form on rows of 2 ranks alone
    RANKS = "tests/data/scaling/cpu-16-ranks-1-to-4.csv"
    LINEAR, ONE_LAYOUT = os.path.join(tmp, "linear.ini"), os.path.join(tmp, "one_layout.ini")
    with open(RANKS) as f, open(os.path.join(tmp, "two.csv"), "w") as two:
        for i, line in enumerate(f):
            if i == 0 or line.split(",")[4] == "2":
                two.write(line)
    for args in ([RANKS, "--grad-model", "linear", "-o", LINEAR],
                 [os.path.join(tmp, "two.csv"), "-o", ONE_LAYOUT]):
        p = subprocess.run([SM, "fit", *args], capture_output=True, text=True)
        check(p.returncode == 0, f"fit {args}: {p.stderr}")
    missing = os.path.join(tmp, "nobw.ini")
    with open(missing, "w") as f:
        f.write("[device]\npeak_fp32_tflops = 10\n[node]\ndevices_per_node = 8\n"
                "intra_node_bandwidth_gb_s = 450\nintra_node_latency_us = 3\n"
                "inter_node_bandwidth_gb_s = 50\ninter_node_latency_us = 10\n")
    H100 = ["resnet50", "--device", "h100", "--batch", "64"]
    bad = [
        (H100 + ["--nodes", "0"], "--nodes 0: expected integers from 1"),
        (H100 + ["--nodes", "-4"], "--nodes -4: expected integers from 1"),
        (H100 + ["--nodes", "8:2"], "--nodes 8:2: the range 8:2 runs backwards"),
        (H100 + ["--nodes", "1,,2"], "--nodes 1,,2: expected integers"),
        (H100 + ["--nodes", "two"], "--nodes two: expected integers"),
        (H100 + ["--nodes", "1:4x"], "--nodes 1:4x: unexpected 'x'"),
        (H100 + [], "which node counts?"),
        # a batch is a curve, in the order given: one given twice is refused (node counts are a
        # set, sorted, their repeats dropped: docs/scaling.md)
        (["resnet50", "--device", "h100", "--batch", "32,64,32", "--nodes", "1"],
         "--batch: 32 is given twice; each batch is one curve"),
        (["resnet50", "--device", "h100", "--global-batch", "1024:4096,2048", "--nodes", "1"],
         "--global-batch: 2048 is given twice"),
        # ... and so is a model (two identical curves followed)
        (["gpt2,resnet50,gpt2", "--device", "h100", "--batch", "8", "--nodes", "1"],
         "MODEL 'gpt2,resnet50,gpt2': gpt2 is given twice; each model is one curve"),
        (["resnet50", "--device", "h100", "--global-batch", "4", "--nodes", "1"],
         "--global-batch 4 is smaller than the 8 devices of 1 node x 8: every device needs a "
         "sample (a global batch of at least 8, or fewer --nodes)"),
        (["resnet50", "--device", "h100", "--global-batch", "64", "--nodes", "1:16"],
         "--global-batch 64 is smaller than the 128 devices of 16 nodes x 8"),
        (["resnet50", "--device", "h100", "--global-batch", "128", "--nodes", "1:16",
          "--accumulate", "2"], "--global-batch 128 (64 per micro-batch of --accumulate 2) is "
         "smaller than the 128 devices of 16 nodes x 8: every device needs a sample (a global "
         "batch of at least 256"),
        (H100 + ["--global-batch", "64", "--nodes", "1"], "give one of --batch"),
        (["resnet50", "--batch", "64", "--nodes", "1"], "give --coeffs FILE, --device NAME, or both"),
        (["resnet50", "--device", missing, "--batch", "64", "--nodes", "1"],
         missing + ": [device] memory_bandwidth_gb_s is missing"),
        (["resnet50", "--device", "nope", "--batch", "64", "--nodes", "1"],
         "unknown device 'nope'"),
        (["nonet", "--device", "h100", "--batch", "64", "--nodes", "1"], "unknown model 'nonet'"),
        (H100 + ["--nodes", "1", "--threshold", "0"], "--threshold 0: expected a gain above 0"),
        (H100 + ["--nodes", "1", "--threshold", "150%"], "--threshold 150%"),
        # in decimal, as the other real-valued options: strtod took hexadecimal (0x1p-3 was
        # 12.5%), a sign and a leading space
        (H100 + ["--nodes", "1", "--threshold", "0x1p-3"], "--threshold 0x1p-3: expected a gain "
         "above 0 and at most 1, in decimal"),
        (H100 + ["--nodes", "1", "--threshold", "+0.1"], "--threshold +0.1: expected a gain"),
        (H100 + ["--nodes", "1", "--threshold", " 10%"], "--threshold  10%: expected a gain"),
        (H100 + ["--nodes", "1", "--format", "xml"], "--format xml"),
        (H100 + ["--nodes", "1", "-g", "16"], "a node has 8 devices, not 16"),
        # fp8 is no precision of a whole model: the message says what to give
        (H100 + ["--nodes", "1", "--precision", "fp8"],
         "--precision fp8: a float8 recipe runs the linear products in fp8 and the rest at 16 "
         "bits: give --precision bf16 --fp8"),
        (H100 + ["--nodes", "1", "--precision", "fp32", "--fp8"],
         "--fp8: a float8 recipe runs the linear products in fp8 and the rest at 16 bits, not "
         "at fp32: give --precision bf16 (or fp16)"),
        (["resnet50", "--device", "a100", "--batch", "64", "--nodes", "1", "--precision", "bf16",
          "--fp8"], "--fp8: device a100 has no fp8 peak: its ampere tensor cores have no FP8"),
        (["resnet50", "--device", "cpu", "--batch", "64", "--nodes", "1", "--precision", "bf16"],
         "--precision bf16: device cpu has no bf16 peak ([device] peak_bf16_tflops in "),
        # the precision asked for is named, with what the device has: the key alone was said
        (["resnet50", "--device", "v100", "--batch", "64", "--nodes", "1", "--precision", "tf32"],
         "--precision tf32: device v100 has no tf32 peak ([device] peak_tf32_tflops in "),
        (["resnet50", "--device", "v100", "--batch", "64", "--nodes", "1", "--precision", "tf32"],
         "v100.ini); it has peaks for fp32, fp16 only: give one of those"),
        (H100 + ["--nodes", "1", "--bucket-mib", "0"], "--bucket-mib 0"),
        (["resnet50", "--coeffs", "tests/data/curve/ring_coeffs.ini", "--batch", "64",
          "--nodes", "1", "--bucket-mib", "5"], "apply to --device"),
        (["resnet50", "--coeffs", "tests/data/fit/tiny_coeffs.ini", "--batch", "64",
          "--nodes", "1", "--overlap"], "overlap needs the ring form"),
        (["resnet50", "--coeffs", "tests/data/curve/ring_coeffs.ini", "--batch", "64",
          "--nodes", "1", "--collective", "nccl"], "apply to --device"),
        (H100 + ["--nodes", "1", "--collective", "tree"], "--collective tree: expected ring or nccl"),
        (HYBRID + ["--nodes", "1", "--framework", "fused"], "--framework applies to --device alone"),
        (HYBRID + ["--nodes", "1", "--fp8"], "--fp8 applies to --device alone"),
        (HYBRID + ["--nodes", "1", "-g", "8"], "round: a node has 4 devices, not 8"),
        # the calibration is named, not the description's all-reduce beside it
        (HYBRID + ["--nodes", "1", "--precision", "bf16"],
         "points) is a calibration of fp32 runs; it cannot predict bf16"),
        (HYBRID + ["--nodes", "1", "--collective", "tree"], "--collective tree: expected ring or nccl"),
        (["resnet50", "--coeffs", LINEAR, "--device", "cpu", "--batch", "4", "--nodes", "1"],
         "the linear form's t_grad does not tell the local update from communication"),
        (["resnet50", "--coeffs", ONE_LAYOUT, "--device", "cpu", "--batch", "4", "--nodes", "1"],
         "its t_grad holds the communication of the one layout its runs had"),
        (H100 + ["--nodes", "1", "-o", os.path.join(tmp, "no", "dir.svg")], "cannot write"),
        (["examples/tiny_resnet.ini", "--coeffs", "tests/data/curve/infer_coeffs.ini",
          "--batch", "8", "--nodes", "1"], "the predictor gives no training step time"),
        (H100 + ["--nodes", "1", "--batch"], "option --batch needs a value"),
        (H100 + ["--nodes", "1", "--frobnicate"], "unknown option '--frobnicate'"),
    ]
    for args, phrase in bad:
        rc, out, err = run(*args)
        lines = err.strip().splitlines()
        check(rc != 0, f"{args}: exit {rc}")
        check(len(lines) == 1 and phrase in lines[0], f"{args}: stderr {err!r}, want {phrase!r}")
        check(out == "", f"{args}: printed {out[:80]!r}")
        # the option's error, however late it is found, exits 2 (docs/output.md)
        if phrase.startswith(("--global-batch", "--collective", "--algorithm", "--precision")):
            check(rc == 2, f"{args}: exit {rc}, not 2: the option's error")
    check(not os.path.exists(os.path.join(tmp, "no")), "no file left by a failed run")

rc, out, _ = run("--help")
check(rc == 0 and "--global-batch" in out and "turning point" in out, "--help")

# --- predict --per-layer: the same hand numbers, layer by layer -------------------------------
# conv_relu on round_device at batch 32 (tests/test_device_predictor.c): the conv's forward
# 1.4897504512e-3 s and backward 2.9695009024e-3 s, compute-bound; the relu's 1.12760448e-4 s
# and 1.64140672e-4 s, memory-bound; each pass's one kernel dispatched in the bare 10 us.
rc, out, err = cli_checks.run("predict", *ROUND, "--batch", "32", "-g", "1", "--per-layer",
                              "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
check(rc == 0 and [r["layer"] for r in rows] == ["conv", "relu"], f"--per-layer csv: {rc} {err}")
if len(rows) == 2:
    conv, relu = rows
    check(near(float(conv["t_fwd"]), 1.4897504512e-3) and
          near(float(conv["t_bwd"]), 2.9695009024e-3) and
          conv["bound_fwd"] == conv["bound_bwd"] == "compute", f"conv: {conv}")
    check(near(float(relu["t_fwd"]), 1.12760448e-4) and near(float(relu["t_bwd"]), 1.64140672e-4)
          and relu["bound_fwd"] == "memory" and near(float(relu["host_fwd"]), 10e-6),
          f"relu: {relu}")
    check(conv["type"] == "conv2d" and conv["fused"] == "0", f"conv's type and fusion: {conv}")
rc, out, err = cli_checks.run("predict", *ROUND, "--batch", "32", "-g", "1", "--per-layer",
                              "--format", "json")
d = json.loads(out) if rc == 0 else {}
check(rc == 0 and near(sum(x["t_fwd"] for x in d["layers"]), FWD) and near(d["t_bwd"], BWD),
      f"--per-layer json: the layers add up to the passes: {rc} {err}")
rc, out, err = cli_checks.run("predict", *ROUND, "--batch", "32", "-g", "1", "--per-layer")
check(rc == 0 and "conv" in out and "compute" in out and "the host's dispatch" in out,
      f"--per-layer table: {out}")
# what limits a backward pass that recomputes its forward: two ReLUs in a block at batch 1
# under a framework of 100 us a forward kernel and 1 us a backward one. Each forward moves
# 1,605,632 bytes, 3.211264e-6 s beside 100 us of dispatch: host-bound; its backward 1.5 times the
# bytes (the output's gradient and the output read, the input's written), 4.816896e-6 s beside
# 1 us: memory-bound. Under --checkpoint full the backward pass runs the forward again,
# 1.0902816e-4 s of which the host's 101 us: host-bound. It was named
# memory, as if the recomputation did not run.
with tempfile.TemporaryDirectory() as tmp:
    relus = os.path.join(tmp, "relu_block.ini")
    with open(relus, "w") as f:
        f.write("[network]\nname = relu_block\ninput = 64x56x56\n[block b]\nrelu = relu\n"
                "relu2 = relu\n")
    slow_forward = os.path.join(tmp, "slow_forward.ini")
    with open(slow_forward, "w") as f:
        f.write("[framework]\nname = slow-forward\ndispatch_infer_us = 100\n"
                "dispatch_fwd_us = 100\ndispatch_bwd_us = 1\n")
    # the dispatch costs a framework leaves out cost the launch, and the description says so:
    # a file of dispatch_infer_us alone priced training kernels at the h100's 5 us unseen
    infer_only = os.path.join(tmp, "infer_only.ini")
    with open(infer_only, "w") as f:
        f.write("[framework]\nname = infer-only\ndispatch_infer_us = 21\n")
    notes = {}
    for fw in (infer_only, slow_forward, "pytorch-eager"):
        rc, out, err = cli_checks.run("predict", "resnet50", "--device", "h100", "--framework",
                                      fw, "--batch", "8", "-g", "1", "--format", "json")
        notes[fw] = json.loads(out)["coeffs"] if rc == 0 else err
    check("infer-only dispatch (dispatch_fwd_us, dispatch_bwd_us and dispatch_update_us not "
          "given: the launch's 5 us)," in notes[infer_only], f"infer-only: {notes[infer_only]}")
    check("slow-forward dispatch (dispatch_update_us not given: the launch's 5 us)," in
          notes[slow_forward], f"slow-forward: {notes[slow_forward]}")
    check("pytorch-eager dispatch," in notes["pytorch-eager"] and
          "not given" not in notes["pytorch-eager"], f"pytorch-eager: {notes['pytorch-eager']}")
    for ckpt, t_bwd, host_bwd, bound in (("none", 5.816896e-6, 1e-6, "memory"),
                                         ("full", 1.0902816e-4, 101e-6, "host")):
        rc, out, err = cli_checks.run("predict", relus, "--device", ROUND[2], "--framework",
                                      slow_forward, "--batch", "1", "-g", "1", "--per-layer",
                                      "--checkpoint", ckpt, "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
        check(len(rows) == 2 and all(near(float(r["t_bwd"]), t_bwd) and
                                     near(float(r["host_bwd"]), host_bwd) and
                                     r["bound_fwd"] == "host" and r["bound_bwd"] == bound
                                     for r in rows),
              f"--per-layer --checkpoint {ckpt}: want t_bwd {t_bwd}, bound_bwd {bound}: {rc} "
              f"{err} {rows}")
# a calibration prices whole passes; --per-block is the other breakdown
for args, want in ((["--per-layer"], "--per-layer needs --device NAME"),
                   (["--per-layer", "--per-block", "--device", "h100"],
                    "--per-layer or --per-block, one of the two"),
                   # beside --coeffs the passes are the calibration's: refused as the option
                   # it is, not as "come from a device description (--device)" with exit 1
                   (["--per-layer", "--coeffs", "default", "--device", "h100"],
                    "--per-layer prices each layer on --device alone")):
    rc, out, err = cli_checks.run("predict", "resnet50", "--batch", "8", *args)
    check(rc == 2 and err.count("\n") == 1 and want in err, f"predict {args}: {rc} {err!r}")

# what limits an LSTM's passes: lstm_tiny (hidden 8, four steps) at batch 1 is cuDNN's own
# launches, 2 S + 1 = 9 forward at the h100's bare 5 us (45 us) beside its 36 us of dispatch,
# the 0.6 us its one kernel takes on the device beyond its price (kernel_device_us) and next to
# no arithmetic: t_fwd 81.6 us, "launch" (it read "memory"); an LSTM of 1024 over 64
# steps at batch 1024, 4 x 2 x 2048 x 1024 x 64 x 1024 = 1.1e12 FLOPs forward at tf32's
# 0.7 x 494.7 TFLOP/s (3.2 ms) against 129 launches (0.65 ms), is compute-bound
rc, out, err = cli_checks.run("predict", "tests/data/curve/lstm_tiny.ini",
                              "--device", "h100", "-g", "1", "--batch", "1", "--per-layer",
                              "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
check(len(rows) == 1 and rows[0]["bound_fwd"] == "launch" and rows[0]["bound_bwd"] == "launch"
      and near(float(rows[0]["t_fwd"]), 36e-6 + 9 * 5e-6 + 0.6e-6, 1e-3),
      f"lstm_tiny at batch 1: {rc} {err} {rows}")
with tempfile.TemporaryDirectory() as tmp:
    big = os.path.join(tmp, "lstm_big.ini")
    with open(big, "w") as f:
        f.write("[network]\nname = lstm_big\ninput = 64x1024\n[layers]\nrnn = lstm hidden=1024\n")
    rc, out, err = cli_checks.run("predict", big, "--device", "h100", "-g", "1", "--batch",
                                  "1024", "--per-layer", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    check(len(rows) == 1 and rows[0]["bound_fwd"] == "compute", f"lstm_big: {rc} {err} {rows}")

# a step the model cannot price (a network that only views its input: no kernel, 0 s) is
# refused naming the layout in words: "1 node x 1 device", "2 nodes x 8 devices"
with tempfile.TemporaryDirectory() as tmp:
    view = os.path.join(tmp, "viewonly.ini")
    with open(view, "w") as f:
        f.write("[network]\nname = viewonly\ninput = 3x8x8\n[layers]\nf = flatten\n")
    for nodes, g, words in (("1", "1", "on 1 node x 1 device:"),
                            ("2", "8", "on 2 nodes x 8 devices:")):
        rc, out, err = cli_checks.run("predict", view, "--device", "h100", "--nodes", nodes,
                                      "-g", g, "--batch", "4")
        check(rc == 1 and err.count("\n") == 1 and words in err and "is not positive" in err,
              f"a step of 0 s on {nodes} x {g}: exit {rc}: {err!r}")


# --- what the table says of its own CSV (hostile round 6) ---------------------------------------
# days in four digits, as predict gives them (3.706 d, not 3.7 d: 5% near a day), and no
# exponent where a time rounds to 1000 of its unit (999.7 ms is "1000 ms", not "1e+03 ms")
MOBILE = ["mobilenet_v2", "--coeffs", "default", "--image", "368", "--batch", "4", "--nodes", "1,3"]
rows = list(csv.DictReader(io.StringIO(good(*MOBILE, "--format", "csv"))))
table = good(*MOBILE)
check("e+0" not in table, f"an exponent in the table:\n{table}")
for r in rows:
    days = float(r["t_epoch"]) / 86400
    if 1 <= days < 10:
        check(f"{days:.3f} d" in table, f"t_epoch {r['t_epoch']} s is {days:.3f} d:\n{table}")
# a point that does not fit runs no step: no time, power or energy (predict says "-" too)
rc, out, err = run("resnet50", "--coeffs", "h100-scalemeter-fp32", "--device", "h100", "--batch",
                   "2048", "--nodes", "1")
line = [l for l in out.splitlines() if l.startswith("resnet50")]
check(rc == 0 and line and " oom" in line[0] and " W " not in line[0] + " " and "kW" not in line[0],
      f"an oom point's energy: {rc} {line}")
# a sequence network given no --tokens has no epoch: "-", not nan
rc, out, err = run("gpt2,resnet18", "--coeffs", "h100-scalemeter-fp32", "--batch", "8", "--nodes",
                   "1,2")
check(rc == 0 and "nan" not in out, f"nan in the table: {out}")
# the turning point is judged up to the last node count that fits, and says so
rc, out, err = run("resnet50", "--device", "h100", "--batch", "969", "-g", "1", "--nodes", "1:64",
                   "--format", "csv")
fits = [int(r["nodes"]) for r in csv.DictReader(io.StringIO(out)) if r["t_step"]]
if rc == 0 and fits and fits[-1] < 64:
    table = good("resnet50", "--device", "h100", "--batch", "969", "-g", "1", "--nodes", "1:64")
    n = fits[-1]
    check(f"none up to {n} node{'' if n == 1 else 's'}, the most that fit" in table,
          f"the last node count that fits is {n}:\n{table}")
# an SVG of sequence networks plots sequences/s, and says so
with tempfile.TemporaryDirectory() as tmp:
    svg = os.path.join(tmp, "g.svg")
    good("gpt2", "--device", "h100", "--batch", "8", "--nodes", "1:16", "--format", "svg", "-o", svg)
    with open(svg) as f:
        text = f.read()
    check("throughput (sequences/s, log scale)" in text, "gpt2's SVG axis")
# a range's end that the doubling does not reach is said, not dropped without a word
rc, out, err = run("resnet50", "--device", "h100", "--batch", "64", "--nodes", "1:100")
check(rc == 0 and "--nodes 1:100: doubling from 1 stops at 64, below 100" in err, err)

finish()
