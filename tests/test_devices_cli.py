#!/usr/bin/env python3
"""`scalemeter devices` against the datasheets, and the loader's architecture checks.

usage: test_devices_cli.py SCALEMETER_BIN"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile

from cli_checks import SM, check, near, run, finish

NAMES = ["h100", "h100-pcie", "h200", "b200", "a100", "a100-pcie-40gb", "a100-pcie-80gb", "a10",
         "l4", "l40s", "t4", "v100", "v100-pcie-32gb", "p100", "rtx4090", "h100-96gb-500w",
         "rtx3090", "rtx-a6000", "rtx6000-ada", "quadro-rtx8000", "gh200"]


def expect(what, got, want, tol=0.005):
    """Checks a listed figure: within tol of a number, equal to anything else (None: absent)."""
    if not isinstance(want, (int, float)) or got is None:
        ok = got == want
    else:
        ok = near(got, want, tol)
    check(ok, f"{what}: got {got}, expected {want}")


rc, out, err = run("devices", "--format", "json")
check(rc == 0, f"devices --format json: {err}")
if rc != 0:
    finish()
devs = {d["device"]: d for d in json.loads(out)["devices"]}
for n in NAMES:
    check(n in devs, f"{n}: not listed")
    check(n not in devs or devs[n]["source"], f"{n}: no source")
# datasheet figures (dense TFLOPS, GB/s), typed in from the datasheets, not from the files
sheet = {
    ("h100", "bf16"): 989.4, ("h100", "fp32"): 66.9,
    ("a100", "bf16"): 312, ("a100", "fp32"): 19.5, ("a100", "tf32"): 156,
    ("t4", "fp16"): 65, ("t4", "tf32"): None, ("t4", "bf16"): None,
    ("l4", "bf16"): 121, ("l4", "fp32"): 30.3,
    ("v100", "fp16"): 125, ("v100", "fp32"): 15.7, ("v100", "bf16"): None,
    ("p100", "fp16"): 18.7, ("p100", "tf32"): None,
    ("l40s", "bf16"): 362.05, ("rtx4090", "bf16"): 165.2, ("h100-pcie", "bf16"): 756,
    ("b200", "bf16"): 2250, ("a10", "fp16"): 125, ("v100-pcie-32gb", "fp16"): 112,
    ("h100-96gb-500w", "bf16"): 989.4, ("h100-96gb-500w", "fp32"): 66.9,
    # GH200 datasheet: the H100 SXM's compute (BF16 1,979 and FP8 3,958 TFLOPS with sparsity)
    ("gh200", "bf16"): 1979 / 2, ("gh200", "fp8"): 3958 / 2, ("gh200", "fp32"): 67,
    # RTX A6000 datasheet: tensor 309.7 TFLOPS with sparsity, 309.7 / 2 = 154.8 dense (FP16
    # with FP32 accumulate at full rate on a professional part); GA102 whitepaper: TF32 77.4
    ("rtx-a6000", "fp16"): 154.8, ("rtx-a6000", "tf32"): 77.4, ("rtx-a6000", "fp32"): 38.7,
    # RTX 6000 Ada datasheet: tensor 1457.0 TFLOPS, FP8 with sparsity: / 2 dense / 2 for FP16
    # = 364.25; FP32 91.1
    ("rtx6000-ada", "bf16"): 1457.0 / 4, ("rtx6000-ada", "fp32"): 91.1,
    # GA102 whitepaper, RTX 3090: FP16 with FP16 accumulate 142, FP32 accumulate half of it
    # (a GeForce part): 71; TF32 35.6, as its FP32
    ("rtx3090", "fp16"): 142 / 2, ("rtx3090", "tf32"): 35.6, ("rtx3090", "fp32"): 35.6,
    # Quadro RTX 8000 datasheet: FP32 16.3, tensor 130.5; Turing: no TF32, no BF16
    ("quadro-rtx8000", "fp16"): 130.5, ("quadro-rtx8000", "fp32"): 16.3,
    ("quadro-rtx8000", "tf32"): None, ("quadro-rtx8000", "bf16"): None,
    # FP8 (`--fp8`), the datasheets' "with sparsity" figures halved: H100 SXM and H200 3,958,
    # H100 PCIe 3,026, HGX B200 72 PFLOPS over 8 GPUs, L4 485, L40S 1,466, RTX 6000 Ada 1,457;
    # the Ada whitepaper's RTX 4090 with FP32 accumulate 660.6; none before Ada and Hopper
    ("h100", "fp8"): 3958 / 2, ("h200", "fp8"): 3958 / 2, ("h100-pcie", "fp8"): 3026 / 2,
    ("b200", "fp8"): 72000 / 8 / 2, ("l4", "fp8"): 485 / 2, ("l40s", "fp8"): 1466 / 2,
    ("rtx6000-ada", "fp8"): 1457 / 2, ("rtx4090", "fp8"): 660.6 / 2, ("a100", "fp8"): None,
    ("t4", "fp8"): None, ("v100", "fp8"): None, ("rtx3090", "fp8"): None,
}
for (n, p), want in sheet.items():
    expect(f"{n} peak {p}", devs[n]["peak_tflops"][p], want)
for n, bw in {"a100": 2039, "t4": 320, "l4": 300, "v100": 900, "h100": 3350, "h200": 4800,
              "a100-pcie-40gb": 1555, "a100-pcie-80gb": 1935, "l40s": 864, "rtx4090": 1008,
              "p100": 732, "a10": 600, "b200": 7672, "h100-96gb-500w": 2400, "gh200": 4000,
              "rtx3090": 936, "rtx-a6000": 768, "rtx6000-ada": 960,
              "quadro-rtx8000": 672}.items():
    expect(f"{n} bandwidth", devs[n]["memory_bandwidth_gb_s"], bw)
# (b200: the driver's 7,680-bit bus at 3,996 MHz, double data rate, pytorch/ao pull 4002, not
# the datasheet's 8 TB/s)
# memory: nvidia-smi's MiB totals / 1024 (T4 15360, L4 23034, V100 16 GB 16160, A100 81920)
for n, mib in {"t4": 15360, "l4": 23034, "v100": 16160, "a100": 81920}.items():
    expect(f"{n} memory", devs[n]["memory_gib"], mib / 1024, tol=0.01)
# Lambda's benchmarked cards (lambdal/deeplearning-benchmark, pytorch/results/*/sys_pytorch.txt,
# nvidia-smi --query-gpu=memory.total): RTX A6000 and RTX 6000 Ada 49140 MiB, RTX 3090 24576,
# Quadro RTX 8000 49152
for n, mib in {"rtx-a6000": 49140, "rtx6000-ada": 49140, "rtx3090": 24576,
               "quadro-rtx8000": 49152}.items():
    expect(f"{n} memory", devs[n]["memory_gib"], mib / 1024, tol=0.01)
# Quadro RTX 8000: the GPU's 260 W (the datasheet's 295 W board power adds the VirtualLink port's
# 35 W); the workstation cards' memory types
expect("quadro-rtx8000 power", devs["quadro-rtx8000"]["power_limit_w"], 260)
for n, m in {"rtx3090": "gddr6x", "rtx-a6000": "gddr6", "rtx6000-ada": "gddr6",
             "quadro-rtx8000": "gddr6"}.items():
    expect(f"{n} memory type", devs[n]["memory_type"], m)
# torchtitan's Grand Teton H100s: 96 GB HBM2e, 94 GiB as reported (arXiv 2604.11391), 500 W
expect("h100-96gb-500w memory", devs["h100-96gb-500w"]["memory_gib"], 94)
expect("h100-96gb-500w power", devs["h100-96gb-500w"]["power_limit_w"], 500)
expect("h100-96gb-500w memory type", devs["h100-96gb-500w"]["memory_type"], "hbm2e")
# GH200 96 GB: HBM3 (datasheet), nvidia-smi's 97871 MiB on Lambda's instances
# (lambdal/deeplearning-benchmark, pytorch/results_v2/*GH200*/sys_pytorch.txt), one a node
expect("gh200 memory type", devs["gh200"]["memory_type"], "hbm3")
expect("gh200 memory", devs["gh200"]["memory_gib"], 97871 / 1024, tol=0.01)
expect("gh200 devices per node", devs["gh200"]["devices_per_node"], 1)
for n, g in {"h100": 8, "a100": 8, "v100": 8, "b200": 8, "t4": 1, "l4": 1, "rtx4090": 1,
             "h100-96gb-500w": 8, "rtx3090": 1, "rtx-a6000": 1, "rtx6000-ada": 1,
             "quadro-rtx8000": 1}.items():
    expect(f"{n} devices per node", devs[n]["devices_per_node"], g)
# the FP32 peak is SMs x FP32 lanes x 2 FLOP x boost clock (the whitepapers' arithmetic)
for n in NAMES:
    d = devs[n]
    derived = d["sm_count"] * d["fp32_lanes_per_sm"] * 2 * d["boost_clock_mhz"] / 1e6
    expect(f"{n} fp32 from SMs and clock", d["peak_tflops"]["fp32"], derived, tol=0.03)
# the architecture's defaults (docs/devices.md): 64 lanes reach 0.85; 128 lanes
# (64 x 0.85 + 64 x 0.67) / 128 = 0.76; Volta/Turing tensor cores 0.7 at fp16, Ampere/Ada matrix
# products 0.7 at tf32 too, their convolutions 0.28;
# each times the part's sustained/boost clock over that of the part they were measured on
# (H100 SXM 1830/1980 MHz, A100 SXM 1305/1410, V100 SXM2 taken at its boost). Parts at their
# reference's power per SM, or without a power model, keep them:
expect("v100 fp32 efficiency", devs["v100"]["efficiency"]["fp32"], 0.85)
expect("a100 tf32 efficiency", devs["a100"]["efficiency"]["tf32"], 0.7)
expect("a100 tf32 conv efficiency", devs["a100"]["conv_efficiency"]["tf32"], 0.28)
expect("h200 bf16 efficiency", devs["h200"]["efficiency"]["bf16"], 0.7)
# L40S: Ada's model is anchored on it at 2360 MHz of 2520, over the A100's 1305 of 1410:
# 0.93651 / 0.92553 = 1.01186; 0.76 x 1.01186
expect("l40s fp32 efficiency", devs["l40s"]["efficiency"]["fp32"], 0.7690)
expect("h100 bf16 efficiency", devs["h100"]["efficiency"]["bf16"], 0.7)  # its own, measured
# T4: the Turing model is anchored at 900 MHz at 70 W: 0.7 x 900 / 1590 = 0.3962
expect("t4 fp16 efficiency", devs["t4"]["efficiency"]["fp16"], 0.3962)
expect("t4 fp32 efficiency", devs["t4"]["efficiency"]["fp32"], 0.4811)  # 0.85 x 900 / 1590
# L4: sustained_clock_mhz = 1190 (Ada's model's other point): 0.76 x (1190 / 2040) / (1305 / 1410)
# = 0.76 x 0.5833 / 0.9255 = 0.4790
expect("l4 fp32 efficiency", devs["l4"]["efficiency"]["fp32"], 0.4790)
# Hopper's model by hand: W per SM 700/132 = 5.3030 at 1.83 GHz and 350/114 = 3.0702 at 1.39:
# k = (5.3030 - 3.0702) / (1.83^3 - 1.39^3) = 2.2328 / 3.4429 = 0.64855 W per SM per GHz^3,
# s = 5.3030 - 0.64855 x 6.1285 = 1.3284 W per SM. At 500 W: (3.7879 - 1.3284) / 0.64855
# = 3.7923, cube root 1.5595 GHz; 1559.5 / 1830 = 0.8522 of the 700 W part's: 0.7 x 0.8522
expect("h100-96gb-500w bf16 efficiency", devs["h100-96gb-500w"]["efficiency"]["bf16"], 0.5965)
# H100 PCIe at 350 W: its own 1390 MHz,
# 1390 / 1755 over 1830 / 1980 = 0.8569: 0.7 x 0.8569
expect("h100-pcie bf16 efficiency", devs["h100-pcie"]["efficiency"]["bf16"], 0.5998)
# Hopper's convolutions at fp16/bf16: 0.35 at the 700 W part's clock, 0.35 x 0.8569 here; the
# h100's own key; GA100's convolutions at 0.5 of its peak (its 2,049 FLOP a SM and clock is
# the reference's); GA102's, half that rate a SM and clock, at its matrix products' fraction
# (A10 at 150 W: 974.4 MHz of its 1695, over the A100's 1305 of 1410: 0.7 x 0.6211 = 0.4348)
expect("h100-pcie bf16 conv efficiency", devs["h100-pcie"]["conv_efficiency"]["bf16"], 0.2999)
expect("h100 bf16 conv efficiency", devs["h100"]["conv_efficiency"]["bf16"], 0.35)
expect("h100 tf32 conv efficiency", devs["h100"]["conv_efficiency"]["tf32"], 0.44)
expect("h100 tf32 efficiency", devs["h100"]["efficiency"]["tf32"], 0.7)  # its own key
# H100 PCIe: Hopper's tf32 convolutions 0.44 x 0.8569, its matrix products 0.7 x 0.8569
expect("h100-pcie tf32 conv efficiency", devs["h100-pcie"]["conv_efficiency"]["tf32"], 0.3770)
expect("h100-pcie tf32 efficiency", devs["h100-pcie"]["efficiency"]["tf32"], 0.5998)
expect("a100 bf16 conv efficiency", devs["a100"]["conv_efficiency"]["bf16"], 0.5)
expect("a10 fp16 conv efficiency", devs["a10"]["conv_efficiency"]["fp16"], 0.4348)
# and its TF32 ones at GA100's 0.28 x its 1,024.6 TF32 FLOP a SM and clock over the A10's 512.1
# (62.5 TFLOPS / (72 x 1.695 GHz)) for the same reason: 0.5602 x 0.6211
expect("a10 tf32 conv efficiency", devs["a10"]["conv_efficiency"]["tf32"], 0.3479)
# TF32 allows the tensor cores, it does not force them: where Ampere's TF32 fraction of the
# tensor-core peak is below what the FP32 lanes reach (GA102, Ada), tf32 runs at the fp32 rate.
# RTX 4090: 82.6 TFLOPS both ways, 0.7 x 82.6 = 57.8 and 0.28 x 82.6 = 23.1 below 0.76 x 82.6 =
# 62.8: its fp32 fraction of its TF32 peak for both, at its boost clock (Ada's model: 2843 MHz
# at 450 W, above its 2520) over the A100's 0.92553: 0.76 x 1.08046 = 0.8211. L40S: its
# convolutions 0.7690 x 91.6 / 183 = 0.3849 (above 0.28 x 1.01186), its matrix products 0.7 x
# 1.01186 = 0.7083. A100: 0.85 x 19.5 / 156 = 0.106, 0.28 and 0.7 stay.
expect("rtx4090 tf32 efficiency", devs["rtx4090"]["efficiency"]["tf32"], 0.8211)
expect("rtx4090 tf32 conv efficiency", devs["rtx4090"]["conv_efficiency"]["tf32"], 0.8211)
expect("l40s tf32 conv efficiency", devs["l40s"]["conv_efficiency"]["tf32"], 0.3849)
expect("l40s tf32 efficiency", devs["l40s"]["efficiency"]["tf32"], 0.7083)
expect("a100 tf32 conv efficiency, above its fp32 rate", devs["a100"]["conv_efficiency"]["tf32"],
       0.28)
# so no part trains slower at tf32 than at fp32
for n in NAMES:
    if devs[n]["peak_tflops"]["tf32"] is None:
        continue
    steps = {}
    for prec in ("fp32", "tf32"):
        rc, out, err = run("predict", "resnet50", "--device", n, "--batch", "64", "-g", "1",
                           "--precision", prec, "--format", "json")
        check(rc == 0, f"predict resnet50 --device {n} --precision {prec}: {err}")
        steps[prec] = json.loads(out)["t_step"] if rc == 0 else None
    if None not in steps.values():
        check(steps["tf32"] <= steps["fp32"],
              f"{n}: resnet50 step at tf32 {steps['tf32']} s, slower than at fp32 {steps['fp32']} s")
# Ampere's: one point (A100 SXM, 400 W, 108 SMs, 1305 MHz) and Hopper's static share
# 1.3284 / 5.3030 = 0.2505: s = 0.2505 x 3.7037 = 0.9278, k = (3.7037 - 0.9278) / 1.305^3
# = 1.2490. A100 PCIe 40 GB at 250 W: (2.3148 - 0.9278) / 1.2490 = 1.1105, cube root 1.0355
# GHz; 1035.5 / 1305 = 0.7935: 0.7 x 0.7935 at bf16
expect("a100-pcie-40gb bf16 efficiency", devs["a100-pcie-40gb"]["efficiency"]["bf16"], 0.5555)
# RTX A6000 at 300 W, 84 SMs: (3.5714 - 0.9278) / 1.2490 = 2.1166, cube root 1.2839 GHz;
# 1283.9 / 1800 = 0.7133, over A100 SXM's 1305 / 1410 = 0.9255: 0.7707; 0.7 x 0.7707 at bf16
expect("rtx-a6000 bf16 efficiency", devs["rtx-a6000"]["efficiency"]["bf16"], 0.5395)
# RTX 3090 at 350 W, 82 SMs: (4.2683 - 0.9278) / 1.2490 = 2.6745, cube root 1.3881 GHz;
# 1388.1 / 1695 = 0.8189, / 0.9255 = 0.8848: fp32 0.76 x 0.8848 = 0.6725, and tf32 the same
# (its TF32 peak is its FP32 peak); fp16 its own key, from zzc0721's GEMMs: 75.64 of 71
# TFLOPS (median of three), 0.7 x 1.065 / 0.78 (the H100's measured fraction) = 0.96
expect("rtx3090 tf32 efficiency", devs["rtx3090"]["efficiency"]["tf32"], 0.6725)
expect("rtx3090 fp16 efficiency", devs["rtx3090"]["efficiency"]["fp16"], 0.96)
# Turing's model at the T4's 70 W, 40 SMs, 900 MHz with Hopper's static share: s = 0.2505 x
# 1.75 = 0.4384, k = 1.3116 / 0.729 = 1.7992. Quadro RTX 8000 at 260 W, 72 SMs: (3.6111 -
# 0.4384) / 1.7992 = 1.7634, cube root 1.2081 GHz; 1208.1 / 1770 = 0.6826 (Volta's reference
# at its boost clock): fp16 0.7 x 0.6826, fp32 0.85 x 0.6826
expect("quadro-rtx8000 fp16 efficiency", devs["quadro-rtx8000"]["efficiency"]["fp16"], 0.4778)
expect("quadro-rtx8000 fp32 efficiency", devs["quadro-rtx8000"]["efficiency"]["fp32"], 0.5802)
# RTX 6000 Ada: Ada's model at 300 W, 2143.3 MHz of 2505 (test_device_file.c by hand): 0.85562
# / 0.92553 = 0.92446; its TF32 convolutions at its fp32 rate, 0.76 x 0.92446 x 91.1 / 182.1
expect("rtx6000-ada tf32 conv efficiency", devs["rtx6000-ada"]["conv_efficiency"]["tf32"], 0.3515)
# memory: HBM 0.7 (H100's); GDDR6 0.7 x 0.77 / 0.79 = 0.68; GDDR6X 0.7 x 0.87 / 0.79 = 0.77
for n, m in {"v100": 0.7, "a100": 0.7, "h200": 0.7, "t4": 0.68, "l4": 0.68, "rtx4090": 0.77,
             "rtx3090": 0.77, "rtx-a6000": 0.68}.items():
    expect(f"{n} memory efficiency", devs[n]["memory_efficiency"], m)

rc, out, err = run("devices", "--format", "csv")
check(out.startswith("device,description,peak_fp32_tflops,"), "csv header")
check("\nt4,NVIDIA T4 16 GB,8.1,,65,,15,320,1,40,1590,4,turing,gddr6," in out,
      "csv row of t4: " + out[:200])
# what a description does not give is empty, as JSON's null: the cpu has no SMs, clock or L2
cpu = [ln for ln in out.splitlines() if ln.startswith("cpu,")]
check(cpu and ",5.89,,,,256,204.8,2,,,,,," in cpu[0], f"csv row of cpu: {cpu}")
# CSV and JSON hold the same keys (the CSV's efficiencies flat), and what a description does
# not give is null in JSON, not "" (output.md); the clock the model takes is listed: the L4's
# sustained_clock_mhz, the A100 PCIe's power model's at 250 W (the hostile round of 2026-11-26)
rows = {r["device"]: r for r in csv.DictReader(io.StringIO(out))}
for name, d in devs.items():
    flat = {k: v for k, v in d.items() if not isinstance(v, dict) and k != "path"}
    for k in ("peak_tflops", "efficiency", "conv_efficiency"):
        for p, v in d[k].items():
            flat[f"peak_{p}_tflops" if k == "peak_tflops" else f"{k}_{p}"] = v
    for k, v in flat.items():
        got = rows.get(name, {}).get(k)
        same = (got == "") if v is None else got is not None and (
            got == v if isinstance(v, str) else got != "" and near(float(got), v, 1e-5))
        check(same, f"devices {name} {k}: json {v!r}, csv {got!r}")
# the eager framework each part is priced with, and the shipped one its [framework] starts from:
# the same chip's measured one for every Hopper part (and the B200), pytorch-eager for the rest
for name, d in devs.items():
    m = re.search(r"(?m)^base\s*=\s*(\S+)", open(d["path"]).read())
    check(d["framework_base"] == (m.group(1) if m else None),
          f"devices {name}: framework_base {d['framework_base']!r}, the file's {m and m.group(1)!r}")
for names, want in ((("h100", "h100-pcie", "h100-96gb-500w", "h200", "b200"),
                     "pytorch-eager-hopper"), (("a100", "v100", "t4", "rtx4090"), "pytorch-eager")):
    for name in names:
        check(devs[name]["framework"] == want == devs[name]["framework_base"],
              f"devices {name}: framework {devs[name]['framework']!r}, base "
              f"{devs[name]['framework_base']!r}, not {want}")
check(devs["cpu"]["tensor_cores"] is None and devs["cpu"]["source"] is None,
      f"cpu's missing texts: {devs['cpu']['tensor_cores']!r} {devs['cpu']['source']!r}")
check(devs["l4"]["sustained_clock_mhz"] == 1190, f"l4 clock {devs['l4']['sustained_clock_mhz']}")
# the clock of the kernels priced per SM and clock: boost x 1830 / 1980, at least the dense
# clock (docs/devices.md): H100 1830; H100 PCIe 1755 x 0.924242 = 1622.05 above its 1390; L4
# 2040 x 0.924242 = 1885.45 above its 1190; V100 (no power model) its 1530 boost
for name, mhz in (("h100", 1830), ("h100-pcie", 1622.05), ("l4", 1885.45), ("v100", 1530)):
    check(abs(devs[name]["light_clock_mhz"] - mhz) < 0.01,
          f"{name} light clock {devs[name]['light_clock_mhz']}, not {mhz}")
check(devs["cpu"]["light_clock_mhz"] is None, f"cpu light clock {devs['cpu']['light_clock_mhz']}")
check(devs["h100"]["sustained_clock_mhz"] <= devs["h100"]["boost_clock_mhz"] and
      devs["h100"]["max_devices_per_node"] == 8 and devs["h100"]["inter_node_ports"] >= 1,
      f"h100's node keys: {devs['h100']}")

# the loader refuses peaks the architecture cannot have, naming file and line
base = """[device]
peak_fp32_tflops = 15.7
%s
memory_bandwidth_gb_s = 900
sm_count = 80
boost_clock_mhz = 1530
fp32_lanes_per_sm = %d
tensor_cores = volta
[node]
devices_per_node = 1
intra_node_bandwidth_gb_s = 15
intra_node_latency_us = 3
inter_node_bandwidth_gb_s = 12.5
inter_node_latency_us = 14
"""
with tempfile.TemporaryDirectory() as tmp:
    for extra, lanes, want in [
            ("peak_tf32_tflops = 125", 64, ":3: peak_tf32_tflops on volta tensor cores, which have no tf32"),
            ("peak_fp16_tflops = 125", 128, ":2: peak_fp32_tflops = 15.7 is not sm_count x fp32_lanes_per_sm x 2 x boost_clock_mhz = 31.3 TFLOP/s")]:
        path = os.path.join(tmp, "bad.ini")
        with open(path, "w") as f:
            f.write(base % (extra, lanes))
        rc, out, err = run("predict", "resnet18", "--device", path, "-g", "1", "--batch", "8")
        check(rc != 0 and want in err and err.count("\n") == 1,
              f"{extra}, {lanes} lanes: rc {rc}, {err!r}")

# the loader refuses a clock or a power limit the part cannot have, naming file and line
node = """[node]
devices_per_node = 1
intra_node_bandwidth_gb_s = 15
intra_node_latency_us = 3
inter_node_bandwidth_gb_s = 12.5
inter_node_latency_us = 14
"""
hopper = """[device]
peak_fp32_tflops = 66.9
memory_bandwidth_gb_s = 3350
sm_count = 132
boost_clock_mhz = 1980
tensor_cores = hopper
%s
""" + node
with tempfile.TemporaryDirectory() as tmp:
    # 132 SMs x 1.3284 W = 175 W of static power above a 150 W limit
    for extra, want in [
            ("sustained_clock_mhz = 2100", ":7: sustained_clock_mhz = 2100 is above boost_clock_mhz = 1980"),
            # a fraction above the boost clock, said in its digits (it read "1980 is above 1980")
            ("sustained_clock_mhz = 1980.0001",
             ":7: sustained_clock_mhz = 1980.0001 is above boost_clock_mhz = 1980\n"),
            ("power_limit_w = 150", ":7: power_limit_w = 150 is below the static power the model takes for 132 hopper SMs (175 W)"),
            ("sustained_clock_mhz = fast", ":7: sustained_clock_mhz = fast: expected a number"),
            # NCCL's tables go by compute capability: Hopper's tensor cores are hopper's
            # (an H100 of architecture = volta lost NVLS and took Volta's caps)
            ("architecture = volta", ":7: architecture is not hopper, the generation NCCL's "
             "tables take for tensor_cores = hopper (line 6)"),
            # GHz for MHz: 1.5 of 1980 made the efficiencies 1320 times smaller, every layer
            # as much slower; no GPU clocks below 100 MHz (nvidia-smi: V100 135 at least)
            ("sustained_clock_mhz = 1.5", ":7: sustained_clock_mhz = 1.5: expected a number "
             "from 100 and at most 100000 (the clock in MHz"),
            ("memory_type = hbm9",
             ":7: memory_type = hbm9: expected hbm2, hbm2e, hbm3, hbm3e, gddr6 or gddr6x")]:
        path = os.path.join(tmp, "bad.ini")
        with open(path, "w") as f:
            f.write(hopper % extra)
        rc, out, err = run("predict", "resnet18", "--device", path, "-g", "1", "--batch", "8")
        check(rc != 0 and path + want in err and err.count("\n") == 1,
              f"{extra}: rc {rc}, {err!r}")
    # a generation the table lacks, named at its line (6) as every other bad value is
    path = os.path.join(tmp, "bad.ini")
    with open(path, "w") as f:
        f.write((hopper % "").replace("tensor_cores = hopper", "tensor_cores = kepler"))
    rc, out, err = run("predict", "resnet18", "--device", path, "-g", "1", "--batch", "8")
    want = (path + ":6: tensor_cores = kepler: expected none, volta, turing, ampere, ada, "
            "hopper or blackwell")
    check(rc != 0 and want in err and err.count("\n") == 1,
          f"tensor_cores = kepler: rc {rc}, {err!r}")
    # more network ports than devices: the rings take one port a device at most, so AWS p5's
    # 32 EFA ports of 12.5 GB/s for 8 GPUs were read as 8 (100 GB/s a node of its 400)
    path = os.path.join(tmp, "p5.ini")
    h100 = open("configs/devices/h100.ini").read()
    with open(path, "w") as f:
        f.write(h100.replace("inter_node_ports = 8", "inter_node_ports = 32")
                .replace("inter_node_bandwidth_gb_s = 50", "inter_node_bandwidth_gb_s = 12.5"))
    line = h100[:h100.index("inter_node_ports = 8")].count("\n") + 1
    rc, out, err = run("allreduce", "--device", path, "--nodes", "2")
    check(rc != 0 and f"{path}:{line}: inter_node_ports = 32 is more than the 8 devices of a "
          "node" in err and "give 8 ports of 50 GB/s" in err, f"32 ports: rc {rc}, {err!r}")
    # NVLink SHARP on an A100: NCCL builds its NVLS kernels for compute capability 9.0 and
    # later (src/device/generate.py); the a100 took NVLS at 1.4 times its ring's bandwidth
    path = os.path.join(tmp, "a100-nvls.ini")
    a100 = open("configs/devices/a100.ini").read()
    with open(path, "w") as f:
        f.write(a100 + "nvls_efficiency = 0.85\n")
    line = a100.count("\n") + 1
    arch = a100[:a100.index("\narchitecture =")].count("\n") + 2
    rc, out, err = run("allreduce", "--device", path)
    check(rc != 0 and f"{path}:{line}: nvls_efficiency = 0.85, but architecture = ampere "
          f"(line {arch}) has no NVLink SHARP" in err, f"NVLS on an A100: rc {rc}, {err!r}")
    # the same A100 without its architecture line: tensor_cores = ampere names the generation
    # (it took NVLS, and went without NCCL's Ampere caps); a part without tensor cores, before
    # Volta, has none either
    no_arch = re.sub(r"(?m)^architecture = .*\n", "", a100)
    tc = no_arch[:no_arch.index("\ntensor_cores =")].count("\n") + 2
    for cores in ("ampere", "none"):
        with open(path, "w") as f:
            f.write(no_arch.replace("tensor_cores = ampere", "tensor_cores = " + cores) +
                    "nvls_efficiency = 0.85\n")
        rc, out, err = run("allreduce", "--device", path)
        check(rc != 0 and f"{path}:{line - 1}: nvls_efficiency = 0.85, but tensor_cores = "
              f"{cores} (line {tc}) has no NVLink SHARP" in err and err.count("\n") == 1,
              f"NVLS on tensor_cores = {cores}: rc {rc}, {err!r}")
    with open(path, "w") as f:
        f.write(no_arch)
    rc, out, err = run("allreduce", "--device", path, "--nodes", "2", "--format", "json")
    check(rc == 0 and json.loads(out)["restriction"] is None,
          f"tensor_cores = ampere gives NCCL's caps: rc {rc}, {out[:300]} {err!r}")
    path = os.path.join(tmp, "bad.ini")
    with open(path, "w") as f:
        f.write((hopper % "").replace("boost_clock_mhz = 1980", "boost_clock_mhz = 1.98"))
    rc, out, err = run("predict", "resnet18", "--device", path, "-g", "1", "--batch", "8")
    check(rc != 0 and path + ":5: boost_clock_mhz = 1.98: expected a number from 100" in err
          and "1980, not 1.98 GHz" in err, f"boost clock in GHz: rc {rc}, {err!r}")
    path = os.path.join(tmp, "bad.ini")
    with open(path, "w") as f:
        f.write("[device]\npeak_fp32_tflops = 66.9\nmemory_bandwidth_gb_s = 3350\n"
                "sustained_clock_mhz = 1500\n" + node)
    rc, out, err = run("predict", "resnet18", "--device", path, "-g", "1", "--batch", "8")
    check(rc != 0 and path + ":4: sustained_clock_mhz without boost_clock_mhz" in err,
          f"sustained clock without boost: rc {rc}, {err!r}")

    # max_devices_per_node: -g up to it (a PCIe part's 8- or 10-card servers), one line past it
    # or below devices_per_node
    path = os.path.join(tmp, "pcie.ini")
    with open(path, "w") as f:
        f.write(hopper % "" + "max_devices_per_node = 8\n")
    rc, out, err = run("predict", "resnet18", "--device", path, "-g", "8", "--batch", "8")
    check(rc == 0, f"-g 8 within max_devices_per_node 8: {err!r}")
    rc, out, err = run("predict", "resnet18", "--device", path, "-g", "9", "--batch", "8")
    check(rc != 0 and "a node holds at most 8 devices, not 9" in err,
          f"-g 9 past max_devices_per_node 8: rc {rc}, {err!r}")
    with open(path, "w") as f:
        f.write((hopper % "").replace("devices_per_node = 1", "devices_per_node = 2") +
                "max_devices_per_node = 1\n")
    rc, out, err = run("predict", "resnet18", "--device", path, "-g", "1", "--batch", "8")
    check(rc != 0 and "max_devices_per_node 1 is below devices_per_node 2" in err,
          f"max below devices_per_node: rc {rc}, {err!r}")
    # the shipped PCIe parts take their servers' card counts (configs/devices: sources there)
    for dev, most in (("h100-pcie", 8), ("a100-pcie-80gb", 10), ("l40s", 8)):
        ok, _, _ = run("curve", "resnet50", "--device", dev, "--batch", "8", "--nodes", "1",
                       "-g", str(most), "--format", "csv")
        past, _, _ = run("curve", "resnet50", "--device", dev, "--batch", "8", "--nodes", "1",
                         "-g", str(most + 1))
        check(ok == 0 and past != 0, f"{dev}: -g {most} rc {ok}, -g {most + 1} rc {past}")

# cuDNN's NCHW <-> NHWC transposes are for tensor cores: the P100 (tensor_cores = none) runs its
# fp16 on FP16x2 lanes in NCHW, so NCHW and channels-last take one time there, and nothing is
# said of transposes; the V100's NCHW step is the longer by them (the hostile round of
# 2026-11-26: the P100 was 19% slower in NCHW, "cuDNN transposes around convolutions" said)
for dev, same in (("p100", True), ("v100", False)):
    steps, lines = [], []
    for framework in ("pytorch-eager", "pytorch-channels-last"):
        rc, out, err = run("predict", "resnet50", "--device", dev, "--precision", "fp16",
                           "--batch", "64", "--framework", framework, "--format", "json")
        check(rc == 0, f"{dev} {framework}: {err}")
        steps.append(json.loads(out or "{}").get("t_step", 0))
        rc, out, err = run("predict", "resnet50", "--device", dev, "--precision", "fp16",
                           "--batch", "64", "--framework", framework)
        lines.append(out)
    check((steps[0] == steps[1]) == same and steps[0] >= steps[1] > 0,
          f"{dev}: NCHW {steps[0]} s, channels-last {steps[1]} s")
    check(("transposes" in lines[0]) != same, f"{dev}: {lines[0][:300]}")

# Today's PyTorch (2.3 and later) runs cuDNN 9, which runs the dense 1 x 1 convolutions of
# stride 1 over 14 x 14 positions or more on NCHW untransposed (docs/ops-h100-h200.md): every
# description with tensor cores says so of a CNN at fp16 and predicts ResNet-50 faster than as
# cuDNN 8 ran it (--framework pytorch-eager-cudnn8: every convolution transposed), and the same
# at TF32, where neither transposes anything (the Hopper descriptions' own framework prices
# more than the transposes, the P100 has no tensor cores: above)
hopper_framework = {n for n in NAMES if devs[n]["framework_base"] == "pytorch-eager-hopper"}
check(hopper_framework >= {"h100", "h200"}, f"the Hopper framework's parts: {hopper_framework}")
for dev in (n for n in NAMES if n not in hopper_framework | {"p100"}):
    steps = {}
    for framework in ((), ("--framework", "pytorch-eager-cudnn8")):
        for prec in ("fp16", "tf32" if devs.get(dev, {}).get("peak_tflops", {}).get("tf32")
                     else "fp32"):
            rc, out, err = run("predict", "resnet50", "--device", dev, "--precision", prec,
                               "--batch", "64", *framework, "--format", "json")
            check(rc == 0, f"{dev} {framework} {prec}: {err}")
            steps[framework, prec == "fp16"] = json.loads(out or "{}").get("t_step", 0)
    cudnn8 = ("--framework", "pytorch-eager-cudnn8")
    check(0 < steps[(), True] < steps[cudnn8, True],
          f"{dev}: fp16 step {steps[(), True]} s, as cuDNN 8 ran it {steps[cudnn8, True]} s")
    check(steps[(), False] == steps[cudnn8, False] > 0,
          f"{dev}: TF32/fp32 step {steps[(), False]} s, with pytorch-eager-cudnn8 "
          f"{steps[cudnn8, False]} s")
    rc, out, err = run("predict", "resnet50", "--device", dev, "--precision", "fp16", "--batch",
                       "64")
    check("not dense 1 x 1 ones of stride 1 over 196 positions or more" in out,
          f"{dev}: {out[:300]}")

# A description that gives no description, no source and, one device a node, no intra-node
# link, listed from a data folder of its own (the program, its library and plugins, and
# share/scalemeter/configs/devices beside them): what it does not give is null in JSON and
# empty in CSV, its description too ("" before, where its source was null).
with tempfile.TemporaryDirectory() as tree:
    build = os.path.dirname(os.path.dirname(os.path.abspath(SM)))
    for sub in ("bin", "lib", "share/scalemeter/configs/devices"):
        os.makedirs(os.path.join(tree, sub))
    shutil.copy(SM, os.path.join(tree, "bin"))
    shutil.copy(os.path.join(build, "lib", "libscalemeter.so.0"), os.path.join(tree, "lib"))
    os.symlink(os.path.join(build, "lib", "scalemeter"), os.path.join(tree, "lib", "scalemeter"))
    with open(os.path.join(tree, "share/scalemeter/configs/devices/bare.ini"), "w") as f:
        f.write("[device]\npeak_fp32_tflops = 10\nmemory_bandwidth_gb_s = 1000\n[node]\n"
                "devices_per_node = 1\ninter_node_bandwidth_gb_s = 50\n"
                "inter_node_latency_us = 10\n")
    own = os.path.join(tree, "bin", "scalemeter")
    p = subprocess.run([own, "devices", "--format", "json"], capture_output=True, text=True)
    bare = json.loads(p.stdout)["devices"] if p.returncode == 0 else []
    check(len(bare) == 1 and all(bare[0][k] is None for k in (
              "description", "source", "intra_node_bandwidth_gb_s", "intra_node_latency_us")),
          f"bare description listed: {p.returncode} {bare} {p.stderr}")
    p = subprocess.run([own, "devices", "--format", "csv"], capture_output=True, text=True)
    row = next(csv.DictReader(io.StringIO(p.stdout)), {})
    check(row.get("description") == "" and row.get("intra_node_latency_us") == "",
          f"bare description in CSV: {row}")

finish()
