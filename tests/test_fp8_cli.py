#!/usr/bin/env python3
"""`predict --fp8`: a float8 recipe's linear products at the fp8 peak, their casts, the output
projection at 16 bits (docs/precision.md, "FP8 products"); by hand.

A part of round numbers (tests write it): bf16 100 TFLOP/s at 0.5, fp8 200 TFLOP/s, a DRAM of
1,000 GB/s at 0.5 (500 GB/s), and no dispatch. A network of two linear layers without bias
over a sequence of 4096 x 4096: a to 4096 features, then b to 16, the output projection.

- a at bf16, forward: 2 x 4096^3 FLOPs over 100e12 x 0.5 = 2.749 ms (its bytes take less).
- a with --fp8: the products at the fp8 peak, 2 x 4096^3 / (200e12 x 0.5) = 1.374 ms, and the
  casts after them, torchao's count (its roofline_utils.py): the input's amax (2 bytes an
  element) and its cast (2 read, 2 x 1 written), 6 x 4096^2, and the weight's, 6 x 4096^2:
  201 MB at 500 GB/s, 0.403 ms; 1.777 ms in all. Backward: twice the FLOPs, 2.749 ms, and the
  output gradient's cast, 6 x 4096^2 bytes, 0.201 ms: 2.950 ms.
- compiled (--compile), the input's amax rides its producer: 4 x 4096^2 + 6 x 4096^2 bytes
  forward, 4 x 4096^2 backward.
- b, the output projection, as without --fp8.

And the zoo's llama3_8b on the h100 description: its lm_head's inference time unchanged by
--fp8, its MLP's faster over 8192 tokens but not twice as fast, and slower over 512, where
the weights' casts, every pass, outweigh the products' gain. On resnet50, whose one linear
layer is its output projection, --fp8 changes nothing and warns. --fp8 at fp32, on a part
without an fp8 peak, beside --coeffs, and --precision fp8 are refused saying what to give;
compare prices a part without FP8 tensor cores at 16 bits beside one with them, and says so.

Usage: test_fp8_cli.py SCALEMETER   (run from the source root)
"""
import json
import os
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
failures = []


def check(what, ok, detail=""):
    if not ok:
        failures.append(f"{what}: {detail}")


def near(a, b, tol=1e-4):
    return abs(a - b) <= tol * abs(b)


def predict(*args):
    out = subprocess.run([BIN, "predict", *args, "--format", "json"], capture_output=True,
                         text=True)
    if out.returncode:
        failures.append(f"predict {' '.join(args)}: {out.stderr.strip()}")
        return None
    return json.loads(out.stdout)


def refused(args, want):
    out = subprocess.run([BIN, "predict", *args], capture_output=True, text=True)
    check(f"predict {' '.join(args)} refused", out.returncode == 2 and want in out.stderr,
          f"exit {out.returncode}: {out.stderr.strip()!r}, want {want!r}")


TOY = """[device]
name = toy
precision = bf16
peak_fp32_tflops = 10
peak_bf16_tflops = 100
peak_fp8_tflops = 200
compute_efficiency_bf16 = 0.5
memory_bandwidth_gb_s = 1000
memory_efficiency = 0.5
launch_overhead_us = 0
[framework]
name = bare
dispatch_infer_us = 0
dispatch_fwd_us = 0
dispatch_bwd_us = 0
dispatch_update_us = 0
autocast_casts_per_matmul = 0
[node]
devices_per_node = 1
inter_node_bandwidth_gb_s = 50
inter_node_latency_us = 10
"""
NET = """[network]
name = two
input = 4096x4096
[layers]
a = linear out=4096 bias=false
b = linear out=16 bias=false
"""

with tempfile.TemporaryDirectory() as tmp:
    device, net = os.path.join(tmp, "toy.ini"), os.path.join(tmp, "two.ini")
    with open(device, "w") as f:
        f.write(TOY)
    with open(net, "w") as f:
        f.write(NET)
    n = 4096
    flops, elems = 2.0 * n ** 3, float(n * n)
    stream = 1000e9 * 0.5

    def layers(*extra):
        d = predict(net, "--device", device, "--batch", "1", "--per-layer", *extra)
        return {r["layer"]: r for r in d["layers"]} if d else None

    plain, fp8, compiled = layers(), layers("--fp8"), layers("--fp8", "--compile")
    if plain and fp8 and compiled:
        check("a at bf16, forward", near(plain["a"]["t_fwd"], flops / 50e12),
              plain["a"]["t_fwd"])
        want_fwd = flops / 100e12 + (6 * elems + 6 * elems) / stream
        check("a with --fp8, forward", near(fp8["a"]["t_fwd"], want_fwd),
              f"{fp8['a']['t_fwd']} for {want_fwd}")
        check("a with --fp8, inference", near(fp8["a"]["t_infer"], want_fwd),
              f"{fp8['a']['t_infer']} for {want_fwd}")
        want_bwd = 2 * flops / 100e12 + 6 * elems / stream
        check("a with --fp8, backward", near(fp8["a"]["t_bwd"], want_bwd),
              f"{fp8['a']['t_bwd']} for {want_bwd}")
        want_fwd = flops / 100e12 + (4 * elems + 6 * elems) / stream
        check("a compiled, forward", near(compiled["a"]["t_fwd"], want_fwd),
              f"{compiled['a']['t_fwd']} for {want_fwd}")
        want_bwd = 2 * flops / 100e12 + 4 * elems / stream
        check("a compiled, backward", near(compiled["a"]["t_bwd"], want_bwd),
              f"{compiled['a']['t_bwd']} for {want_bwd}")
        for k in ("t_fwd", "t_bwd", "t_infer"):
            check(f"b, the output projection, {k}", plain["b"][k] == fp8["b"][k],
                  f"{fp8['b'][k]} for {plain['b'][k]}")
    refused([net, "--device", device, "--batch", "1", "--precision", "fp32", "--fp8"],
            "--fp8: a float8 recipe runs the linear products in fp8 and the rest at 16 bits, "
            "not at fp32: give --precision bf16 (or fp16)")

# the zoo: Llama 3 8B's output layer stays at bf16; its SwiGLU (3 x 4096 x 14336 weights, 176 M)
# runs faster over 8192 tokens, less than twice (its casts: the input's and hidden's 6 bytes
# an element, the weights' 6 bytes each, 1.97 GB), and slower over 512, where the weights'
# casts (1.06 GB, every pass whatever the tokens) outweigh the products' 180 GFLOP halved
for seq, faster in (("8192", True), ("512", False)):
    common = ["llama3_8b", "--device", "h100", "--batch", "1", "--seq", seq, "--precision",
              "bf16", "--per-layer"]
    a, b = predict(*common), predict(*common, "--fp8")
    if not (a and b):
        continue
    la = {r["layer"]: r for r in a["layers"]}
    lb = {r["layer"]: r for r in b["layers"]}
    # training does not fit one device at this batch: --per-layer gives the inference pass
    check(f"llama3_8b lm_head unchanged at {seq}",
          la["lm_head"]["t_infer"] == lb["lm_head"]["t_infer"],
          f"{lb['lm_head']['t_infer']} for {la['lm_head']['t_infer']}")
    mlp_a, mlp_b = la["layers.0.mlp"]["t_infer"], lb["layers.0.mlp"]["t_infer"]
    if faster:
        check(f"llama3_8b's MLP faster at {seq}, not twice", mlp_a / 2 < mlp_b < mlp_a,
              f"{mlp_b} of {mlp_a}")
    else:
        check(f"llama3_8b's MLP slower at {seq}", mlp_b > mlp_a, f"{mlp_b} of {mlp_a}")
    check("the header says fp8", "with fp8 linear products" in b["predictor"], b["predictor"])
# a CNN's convolutions are no nn.Linear: --fp8 changes nothing there, and says so
cnn = predict("resnet50", "--device", "h100", "--batch", "64", "--precision", "bf16", "--fp8")
check("resnet50 --fp8 warns", cnn and "--fp8 changes nothing: no network here has linear "
      "products but its output projection" in (cnn["warning"] or ""), cnn and cnn["warning"])
refused(["llama3_8b", "--device", "a100", "--batch", "1", "--precision", "bf16", "--fp8"],
        "--fp8: device a100 has no fp8 peak: its ampere tensor cores have no FP8 (they came "
        "with Ada and Hopper); drop --fp8")
with tempfile.TemporaryDirectory() as tmp:  # a part of no known generation: what to give
    bare = os.path.join(tmp, "nofp8.ini")
    with open(bare, "w") as f:
        f.write(TOY.replace("peak_fp8_tflops = 200\n", ""))
    refused(["llama3_8b", "--device", bare, "--batch", "1", "--precision", "bf16", "--fp8"],
            "--fp8: device toy has no fp8 peak: give [device] peak_fp8_tflops in ")
# compare sets a part without FP8 tensor cores beside those with them: its products at 16
# bits, as predict prices the part without --fp8, and said under the table
opts = ["--batch", "1", "--shard", "full", "--checkpoint", "full"]
out = subprocess.run([BIN, "compare", "llama3_8b", "--device", "h100,a100", *opts, "--fp8",
                      "--format", "json"], capture_output=True, text=True)
parts = {p["device"]: p for p in json.loads(out.stdout)["parts"]} if out.returncode == 0 else {}
check("compare --fp8 runs", out.returncode == 0 and set(parts) == {"h100", "a100"},
      out.stderr.strip())
if parts:
    h100 = predict("llama3_8b", "--device", "h100", *opts, "--fp8")
    a100 = predict("llama3_8b", "--device", "a100", *opts)
    check("compare's h100 row has fp8", parts["h100"].get("fp8") is True and h100 and
          near(parts["h100"].get("t_step", 0), h100["t_step"]), parts["h100"])
    check("compare's a100 row at bf16 without fp8", parts["a100"].get("fp8") is False and
          parts["a100"].get("precision") == "bf16" and a100 and
          near(parts["a100"].get("t_step", 0), a100["t_step"]), parts["a100"])
    check("compare says the a100 lacks fp8 (json: stderr)",
          "a100: no FP8 tensor cores" in out.stderr, out.stderr)
# an Ada part (FP8 tensor cores) whose file gives no fp8 peak: not priced at 16 bits as if it
# had none, but the row predict gives, saying what to give
with tempfile.TemporaryDirectory() as tmp:
    ada = os.path.join(tmp, "l4-nofp8.ini")
    with open("configs/devices/l4.ini") as f, open(ada, "w") as g:
        g.write("".join(line for line in f if not line.startswith("peak_fp8_tflops")))
    out = subprocess.run([BIN, "compare", "llama3_8b", "--device", "h100," + ada, *opts,
                          "--fp8", "--format", "json"], capture_output=True, text=True)
    rows = json.loads(out.stdout)["parts"] if out.returncode == 0 else []
    check("compare --fp8 on an Ada file without its peak says what to give",
          len(rows) == 2 and "give [device] peak_fp8_tflops" in rows[1].get("error", ""),
          out.stdout + out.stderr)
table = subprocess.run([BIN, "compare", "llama3_8b", "--device", "h100,a100", *opts, "--fp8"],
                       capture_output=True, text=True).stdout
rows = {line.split()[0]: line.split()[1] for line in table.splitlines()
        if line.split() and line.split()[0] in ("h100", "a100") and len(line.split()) > 2}
check("compare's table marks fp8", rows == {"h100": "bf16+fp8", "a100": "bf16"}, rows)
check("compare's table notes the a100", "a100: no FP8 tensor cores (they came with Ada and "
      "Hopper): --fp8's products priced at 16 bits" in table, table)
refused(["llama3_8b", "--device", "h100", "--batch", "1", "--precision", "fp8"],
        "--precision fp8: a float8 recipe runs the linear products in fp8 and the rest at 16 "
        "bits: give --precision bf16 --fp8")
refused(["resnet50", "--coeffs", "h100-pytorch-bf16", "--batch", "32", "--precision", "bf16",
         "--fp8"], "--fp8 applies to --device alone")

for f in failures:
    print("FAIL:", f)
print(f"{'all passed' if not failures else f'{len(failures)} failed'}")
sys.exit(1 if failures else 0)
