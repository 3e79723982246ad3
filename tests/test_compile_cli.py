#!/usr/bin/env python3
"""--compile (torch.compile: the framework's fuse_pointwise): element-wise work fused, priced by
hand on a toy part that streams 1000 GB/s in full, computes for free and dispatches nothing
(tests/data/compile/), so that a layer's time is its bytes over 1e12.

- A composite GELU (gelu_new) over 10^6 fp32 elements a sample at batch 10: eager, its 8
  kernels move 72 bytes an element, 720 MB: 720 us; compiled, one kernel reads and writes
  each element once, 8 bytes: 80 us, and its gradient reads the output's gradient and the input
  and writes the input's, 12 bytes: 120 us.
- GPT-2's eager attention (2 heads, 64 positions, batch 10): the scores are 10 x 2 x 64 x 64
  fp32, 327,680 bytes a read or a write; compiled, the division by sqrt(d) and torch.where's
  mask ride in the softmax's kernel: two passes fewer, each a read and a write, 1,310,720 bytes
  or 1.31072 us less in either pass.

And the option's refusals and its word in the predictor's description.

Usage: test_compile_cli.py SCALEMETER   (run from the source root)
"""
import json
import subprocess
import sys

BIN = sys.argv[1]
DATA = "tests/data/compile/"
failures = []


def check(what, got, want, tol=1e-9):
    if not abs(got - want) <= tol * max(1.0, abs(want)):
        failures.append(f"{what}: {got!r}, want {want!r}")


def predict(net, *extra):
    p = subprocess.run([BIN, "predict", DATA + net, "--device", DATA + "toy_device.ini",
                        "--batch", "10", "--per-layer", "--format", "json", *extra],
                       capture_output=True, text=True)
    if p.returncode:
        failures.append(f"predict {net} {extra}: {p.stderr.strip()}")
        return {"t_infer": 0, "t_fwd": 0, "t_bwd": 0, "predictor": ""}
    return json.loads(p.stdout)


eager = predict("gelu_composite.ini")
compiled = predict("gelu_composite.ini", "--compile")
check("gelu eager t_infer", eager["t_infer"], 720e-6, 1e-6)
check("gelu compiled t_infer", compiled["t_infer"], 80e-6, 1e-6)
check("gelu compiled t_fwd", compiled["t_fwd"], 80e-6, 1e-6)
check("gelu compiled t_bwd", compiled["t_bwd"], 120e-6, 1e-6)
if "compiled (element-wise work fused)" not in compiled["predictor"]:
    failures.append(f"the predictor does not say compiled: {compiled['predictor']}")
if "compiled" in eager["predictor"]:
    failures.append(f"the eager predictor says compiled: {eager['predictor']}")

eager = predict("attention_where.ini", "--attention", "eager")
compiled = predict("attention_where.ini", "--attention", "eager", "--compile")
for k in ("t_infer", "t_fwd", "t_bwd"):
    check(f"attention: {k} eager less compiled", eager[k] - compiled[k], 1.31072e-6, 1e-4)

# a calibration measured the code as it ran; the option is a flag
for args, says in ((["--coeffs", "default", "--compile"], "--compile applies to --device alone"),
                   (["--device", "h100", "--compile=yes"], "--compile")):
    p = subprocess.run([BIN, "predict", "resnet50", "--batch", "8", *args], capture_output=True,
                       text=True)
    if p.returncode != 2 or says not in p.stderr:
        failures.append(f"predict {' '.join(args)}: exit {p.returncode}, {p.stderr.strip()}")

for f in failures:
    print("FAIL", f)
print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
