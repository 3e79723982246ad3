#!/usr/bin/env python3
"""Without --precision a device model prices the precision the network's reference recipe
computes in, its file's [network] precision (docs/precision.md).

The zoo's Llama 3 files say bf16 (torchtitan's mixed_precision_param default), so
`predict llama3_8b --device h100` gives what `--precision bf16` gives, not the description's
TF32: bf16's dense peak is twice TF32's on an H100 (989.4 and 494.7 TFLOP/s, its datasheet),
and the inference pass, mostly products, is faster. On parts without bf16 (V100, P100) the
recipe runs at fp16 as autocast did before Ampere; on the cpu description, which has fp32
alone, at fp32; the header says which. A network that names none (resnet50) keeps the
description's; so does a curve of networks whose recipes differ, and --precision and a
calibration (--coeffs) always win. A network file of our own names the recipe the same way.

Usage: test_recipe_precision_cli.py SCALEMETER   (run from the source root)
"""
import json
import os
import tempfile

from cli_checks import check, finish, good_json, run


def predict(*args):
    return good_json("predict", *args)


LLAMA = ("llama3_8b", "--batch", "1", "--shard", "full", "-g", "2")

# the recipe's bf16 on the h100: the same numbers as asking for it
d = predict(*LLAMA, "--device", "h100")
bf16 = predict(*LLAMA, "--device", "h100", "--precision", "bf16")
tf32 = predict(*LLAMA, "--device", "h100", "--precision", "tf32")
check(d.get("precision") == "bf16", f"llama3_8b on h100: bf16: {d.get('precision')}")
check(d.get("t_step") == bf16.get("t_step") and d.get("t_infer") == bf16.get("t_infer"),
      f"the recipe's bf16 is --precision bf16: {d.get('t_step')} {bf16.get('t_step')}")
check(d.get("t_infer", 1) < 0.75 * tf32.get("t_infer", 0),
      f"faster than TF32 (twice the dense peak): {d.get('t_infer')} {tf32.get('t_infer')}")
check("bf16 (the network's recipe's)" in d.get("coeffs", ""),
      f"header says the recipe: {d.get('coeffs')}")
# --precision wins
check(tf32.get("precision") == "tf32" and "recipe" not in tf32.get("coeffs", "x"),
      f"--precision tf32 wins: {tf32.get('coeffs')}")

# a part without bf16: fp16, as autocast before Ampere; without either: the description's
for part in ("v100", "p100"):
    d = predict(*LLAMA, "--device", part)
    f16 = predict(*LLAMA, "--device", part, "--precision", "fp16")
    check(d.get("precision") == "fp16" and d.get("t_step") == f16.get("t_step"),
          f"{part}: fp16: {d.get('precision')} {d.get('t_step')} {f16.get('t_step')}")
    check("fp16 (the network's recipe: bf16, which this part lacks)" in d.get("coeffs", ""),
          f"{part}: header says bf16 is lacking: {d.get('coeffs')}")
d = predict(*LLAMA, "--device", "cpu")
check(d.get("precision") == "fp32" and
      "the description's; the network's recipe: bf16, which this part lacks" in
      d.get("coeffs", ""), f"cpu: its own fp32: {d.get('coeffs')}")

# no recipe: the description's (TF32 on the h100), as before
d = predict("resnet50", "--batch", "32", "--device", "h100")
check(d.get("precision") == "tf32", f"resnet50 names no recipe: tf32: {d.get('precision')}")
# ViT-B/16's torchvision recipe runs --amp: fp16
d = predict("vit_b_16", "--batch", "32", "--device", "h100")
check(d.get("precision") == "fp16", f"vit_b_16: fp16: {d.get('precision')}")

# a calibration keeps its own precision (the shipped CPU one is fp32), with or without a
# description for its all-reduce
for extra in ((), ("--device", "h100")):
    d = predict("llama3_8b", "--batch", "1", "--coeffs", "default", *extra)
    check(d.get("precision") == "fp32",
          f"--coeffs default {' '.join(extra)}: fp32: {d.get('precision')}")

# curve: networks that agree take it, networks that differ the description's
for models, want in (("llama3_8b,llama3_2_1b", "bf16"), ("llama3_8b,resnet50", "tf32")):
    rc, out, err = run("curve", models, "--device", "h100", "--batch", "1", "--nodes", "1:2",
                       "--format", "json")
    got = json.loads(out).get("precision") if rc == 0 else err
    check(got == want, f"curve {models}: {want}: {got}")

# ... and says so, on stderr and in the JSON's warning
rc, out, err = run("curve", "resnet50,llama3_8b", "--device", "h100", "--batch", "1", "--nodes",
                   "1:2", "--format", "json")
said = "llama3_8b's recipe computes in bf16, resnet50's names none: the networks are priced at " \
    "the description's precision; give --precision to choose"
check(rc == 0 and said in err and said in (json.loads(out).get("warning") or ""),
      f"curve of differing recipes warns: {err.strip()}")
rc, out, err = run("curve", "resnet50,llama3_8b", "--device", "h100", "--batch", "1", "--nodes",
                   "1:2", "--precision", "bf16")
check(rc == 0 and "recipe" not in err, f"no warning with --precision: {err.strip()}")

# compare: each part its own fallback
rc, out, err = run("compare", "llama3_8b", "--device", "h100,v100,cpu", "--batch", "1", "-g",
                   "2", "--shard", "full", "--format", "csv")
rows = {}
if rc == 0:
    lines = out.strip().splitlines()
    head = lines[0].split(",")
    for line in lines[1:]:
        cols = dict(zip(head, line.split(",")))
        rows[cols["device"]] = cols.get("precision")
check(rows == {"h100": "bf16", "v100": "fp16", "cpu": "fp32"},
      f"compare: bf16, fp16, fp32: {rows} {err.strip()}")

# a network file of our own names its recipe's; a bad one is refused at its line
with tempfile.TemporaryDirectory() as tmp:
    good = os.path.join(tmp, "mine.ini")
    with open(good, "w") as f:
        f.write("[network]\ninput = 64\nprecision = fp16\n[layers]\n"
                "embed = embedding vocab=1000 dim=64\nout = linear out=1000\n")
    d = predict(good, "--batch", "4", "--device", "h100")
    check(d.get("precision") == "fp16", f"a file's precision = fp16: {d.get('precision')}")
    bad = os.path.join(tmp, "bad.ini")
    with open(bad, "w") as f:
        f.write("[network]\ninput = 64\nprecision = fp8\n[layers]\nout = linear out=10\n")
    rc, out, err = run("predict", bad, "--batch", "4", "--device", "h100")
    check(rc != 0 and "bad.ini:3: precision = fp8: expected fp32, tf32, fp16 or bf16" in err,
          f"precision = fp8 refused at its line: {err.strip()}")

finish()
