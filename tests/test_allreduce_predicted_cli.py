#!/usr/bin/env python3
"""`scalemeter allreduce --device` against all_reduce_perf as operators measured it on real
nodes. The reference figures are nccl-tests' bus bandwidths reported in NVIDIA's issue trackers,
not numbers of the code under test:
- NVIDIA/nccl#1455: 8 x H100 SXM, 2-4 GB messages: NCCL_ALGO=RING ~365-370 GB/s at 2 to 8
  GPUs; NCCL_ALGO=NVLS 365-370 at 2-4 GPUs, 420, 440, 460, 480 at 5, 6, 7, 8;
- NVIDIA/nccl-tests#212 (NCCL's maintainer): 370 GB/s with the ring, ~480 (algbw ~275) with
  NVLink SHARP on 8 H100;
- NVIDIA/nccl-tests#175: one node of 8 A100 SXM4, 232.54 GB/s;
- NVIDIA/nccl-tests#309: two HGX H100 nodes with NVLS disabled, 368.76 GB/s; on one node NCCL
  ran ring/LL up to 1 MB and NVLS/Simple from 2 MB;
- NVIDIA/nccl#1752: 64 nodes of 8 H200 (Ethernet), NCCL_DEBUG: Tree/LL128 at 16 MiB,
  NVLSTree/Simple from 32 MiB.
It also checks the options that only one of measuring and predicting takes, and that
`fit-comm` reads the predicted CSV back into the description's own link terms.

Usage: test_allreduce_predicted_cli.py SCALEMETER_BINARY   (run from the source root)
"""
import csv
import io
import json
import os
import re
import tempfile

from cli_checks import check, near, run, finish


def predict(*args):
    rc, out, err = run("allreduce", "--format", "csv", *args)
    check(rc == 0, f"allreduce {' '.join(args)}: exit {rc}: {err}")
    return list(csv.DictReader(io.StringIO(out)))


def near_measured(got, want, tol, what):
    """Checks a predicted bandwidth against a measured one within tol (0.05: 5%)."""
    check(near(got, want, tol), f"{what}: {got:.1f} GB/s, measured {want} (+-{tol:.0%})")


tmp = tempfile.mkdtemp()
# the H100 description without NVLink SHARP, as NCCL_ALGO=RING or NCCL_NVLS_ENABLE=0 run it
with open("configs/devices/h100.ini") as f:
    text = f.read()
no_nvls = os.path.join(tmp, "h100-no-nvls.ini")
with open(no_nvls, "w") as f:
    f.write(re.sub(r"nvls_efficiency = .*", "nvls_efficiency = 0", text))

# one H100 node, 2 GiB: NCCL's choice on 2..8 GPUs against NVIDIA/nccl#1455
nvls_measured = {2: 370, 3: 370, 4: 370, 5: 420, 6: 440, 7: 460, 8: 480}
for g, busbw in nvls_measured.items():
    row = predict("--device", "h100", "-g", str(g), "--min-bytes", "2G", "--max-bytes", "2G")[0]
    near_measured(float(row["busbw_gb_s"]), busbw, 0.05, f"h100 x {g}, NCCL with NVLS")
    check(row["algorithm"] == ("nvls" if g >= 4 else "ring"),
          f"h100 x {g}: algorithm {row['algorithm']}")
for g in (2, 4, 8):
    row = predict("--device", no_nvls, "-g", str(g), "--min-bytes", "2G", "--max-bytes", "2G")[0]
    near_measured(float(row["busbw_gb_s"]), 370, 0.05, f"h100 x {g}, ring")
row = predict("--device", "h100", "--min-bytes", "4G", "--max-bytes", "4G")[0]
near_measured(float(row["algbw_gb_s"]), 275, 0.05, "h100 x 8 NVLS algbw (nccl-tests#212)")
# A100 and two H100 nodes without NVLS
row = predict("--device", "a100", "--min-bytes", "4G", "--max-bytes", "4G")[0]
near_measured(float(row["busbw_gb_s"]), 232.54, 0.05, "a100 x 8 (nccl-tests#175)")
row = predict("--device", no_nvls, "--nodes", "2", "--min-bytes", "4G", "--max-bytes", "4G")[0]
near_measured(float(row["busbw_gb_s"]), 368.76, 0.05, "2 x h100 x 8, NVLS off (nccl-tests#309)")
# NCCL's choice by size on one node (nccl-tests#309): ring/LL to 1 MB, NVLS/Simple from 2 MB
for row in predict("--device", "h100", "--min-bytes", "8", "--max-bytes", "16G"):
    b = int(row["bytes"])
    want = ("ring", "LL") if b <= 1 << 20 else ("nvls", "Simple")
    check((row["algorithm"], row["protocol"]) == want,
          f"{b} bytes: {row['algorithm']}/{row['protocol']}, NCCL ran {want}")
# NCCL's choice at scale (nccl#1752): the tree on LL128 at 16 MiB, the NVLS tree from 32 MiB.
# The model moves one size later, at 64 MiB (its tree and NVLS tree tie within 1% at 32 MiB;
# docs/scaling.md); without NCCL's caps it kept the tree to 128 MiB.
for row in predict("--device", "h200", "--nodes", "64", "--min-bytes", "16M",
                   "--max-bytes", "1G"):
    b = int(row["bytes"])
    if b == 32 << 20:
        continue
    want = ("tree", "LL128") if b <= 16 << 20 else ("nvls_tree", "Simple")
    check((row["algorithm"], row["protocol"]) == want,
          f"64 x h200 x 8, {b} bytes: {row['algorithm']}/{row['protocol']}, NCCL ran {want}")

# the hierarchical ring, read back by fit-comm, gives the description's own [node] terms
files = []
for nodes in (1, 2):
    rc, out, err = run("allreduce", "--device", "h100", "--collective", "ring", "--nodes",
                       str(nodes), "--min-bytes", "1M", "--max-bytes", "1G", "--format", "csv")
    files.append(os.path.join(tmp, f"ring-{nodes}.csv"))
    with open(files[-1], "w") as f:
        f.write(out)
rc, out, err = run("fit-comm", *files, "--device-base", "h100", "--collective", "ring",
                   "--format", "csv")
check(rc == 0, f"fit-comm of predicted CSVs: {err}")
fitted = {r["level"]: r for r in csv.DictReader(io.StringIO(out))}
for level, bandwidth, latency in (("intra", 370.8, 3.4), ("inter", 50, 14)):
    r = fitted.get(level, {"bandwidth_gb_s": "nan", "latency_us": "nan", "fitted": "0"})
    check(r["fitted"] == "1" and abs(float(r["bandwidth_gb_s"]) / bandwidth - 1) < 0.01 and
          abs(float(r["latency_us"]) / latency - 1) < 0.01,
          f"fit-comm {level}: {r}, the description says {bandwidth} GB/s, {latency} us")

# NCCL_ALGO=Ring NCCL_PROTO=Simple, as operators run all_reduce_perf for fit-comm: NVLS off on
# the description that has it, the ring's busbw at 2 GiB as nccl#1455 measured with NVLS off;
# the sweeps of 1 and 2 nodes, read back by fit-comm's NCCL form, give NVLink's figures (the
# network's 8 x 50 GB/s is faster than NVLink, so the runs cannot tell it)
row = predict("--device", "h100", "--algorithm", "Ring", "--protocol", "Simple",
              "--min-bytes", "2G", "--max-bytes", "2G")[0]
near_measured(float(row["busbw_gb_s"]), 370, 0.05, "h100 x 8, NCCL_ALGO=Ring NCCL_PROTO=Simple")
check((row["algorithm"], row["protocol"]) == ("ring", "Simple"), f"forced ring: {row}")
files = []
for nodes in (1, 2):
    rows = predict("--device", "h100", "--algorithm", "ring", "--protocol", "simple", "--nodes",
                   str(nodes), "--min-bytes", "1M", "--max-bytes", "1G")
    check(all((r["algorithm"], r["protocol"]) == ("ring", "Simple") for r in rows),
          f"{nodes} nodes: every size on the ring's Simple")
    files.append(os.path.join(tmp, f"nccl-ring-{nodes}.csv"))
    with open(files[-1], "w") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
rc, out, err = run("fit-comm", *files, "--device-base", "h100", "--collective", "nccl",
                   "--format", "csv")
fitted = {r["level"]: r for r in csv.DictReader(io.StringIO(out))}
intra = fitted.get("intra", {"bandwidth_gb_s": "nan", "latency_us": "nan"})
check(rc == 0 and abs(float(intra["bandwidth_gb_s"]) / 370.8 - 1) < 0.01 and
      abs(float(intra["latency_us"]) / 3.4 - 1) < 0.01,
      f"fit-comm --collective nccl of forced ring sweeps: {out} {err}")

# JSON names the collective the description chose: NCCL's for the GPUs, the ring for the CPU
for device, want in (("h100", "nccl"), ("cpu", "ring")):
    rc, out, err = run("allreduce", "--device", device, "--min-bytes", "1M", "--max-bytes", "2M",
                       "--format", "json")
    d = json.loads(out)
    check(d["collective"] == want and len(d["results"]) == 2 and d["device"] == device,
          f"{device} JSON: {d}")

# what restricts NCCL's model is said, as curve's description line says it: the caps a
# description without an architecture or tensor cores (which name it) leaves out (header and
# JSON), NCCL_ALGO's restriction, nothing for the shipped h100 or the ring (JSON's null)
no_arch = os.path.join(tmp, "h100-no-architecture.ini")
with open(no_arch, "w") as f:
    f.write(re.sub(r"(?m)^(architecture|tensor_cores) = .*$", "", text))
caveat = ("without NCCL's per-generation caps (no architecture or tensor_cores in the "
          "description)")
for device, args, fmt, want in ((no_arch, [], "table", caveat),
                                (no_arch, [], "json", caveat),
                                ("h100", ["--algorithm", "Ring"], "json",
                                 "(NCCL_ALGO=Ring, NCCL_PROTO=any)"),
                                ("h100", [], "json", None),
                                ("h100", ["--collective", "ring"], "json", None)):
    rc, out, err = run("allreduce", "--device", device, "--nodes", "2", "--min-bytes", "1M",
                       "--max-bytes", "1M", "--format", fmt, *args)
    if fmt == "json":
        got = json.loads(out).get("restriction", "missing") if rc == 0 else "failed"
        ok = got == want
    else:
        ok = rc == 0 and want in out.splitlines()[0]
    check(ok, f"allreduce --device {device} {' '.join(args)} --format {fmt}: {out!r}")

# options of one mode refused in the other, in one line, exit 2
for args, phrase in ((["--device", "h100", "--iters", "5"], "--iters times a run"),
                     (["--nodes", "2"], "--nodes describes a predicted layout"),
                     (["--device", "h100", "-g", "9"], "a node has 8 devices, not 9"),
                     (["--device", "h100", "--collective", "mpi"], "expected ring or nccl"),
                     (["--device", "nosuch"], "unknown device 'nosuch'"),
                     (["--algorithm", "ring"], "--algorithm describes a predicted layout"),
                     (["--device", "h100", "--algorithm", "butterfly"],
                      "--algorithm butterfly: expected a comma list of Ring, Tree, NVLS"),
                     (["--device", "h100", "--protocol", "LL256"], "--protocol LL256: expected"),
                     (["--device", "h100", "--collective", "ring", "--protocol", "LL"],
                      "it needs the nccl collective, not ring"),
                     (["--device", "h100", "--nodes", "2", "--algorithm", "NVLS"],
                      "no algorithm of NVLS on protocol any runs on 2 nodes of 8 devices"),
                     (["--device", "h100", "--op", "all_to_all"],
                      "--op all_to_all: expected all_reduce, all_gather or reduce_scatter"),
                     (["--op", "all_gather"], "--op describes a predicted layout")):
    rc, out, err = run("allreduce", *args)
    check(rc != 0 and phrase in err and err.count("\n") == 1,
          f"allreduce {' '.join(args)}: exit {rc}, {err!r}")
    if phrase.startswith(("--algorithm", "--protocol", "--op")):
        check(rc == 2, f"allreduce {' '.join(args)}: exit {rc}, not 2: the option's error")

# all_gather_perf and reduce_scatter_perf on tests/data/curve/round_device.ini's ring, 2 nodes
# of 4, 1 MiB (the gathered buffer): 3/4 x 1,048,576 / 100e9 + 3 x 2 us inside, 1/2 x
# (1,048,576 / 4) / 5e9 (two ports of 10 GB/s for four rings) + 5 us across: 4.507872e-5 s,
# half the all-reduce; nccl-tests' busbw = algbw x 7/8 (all-reduce: x 14/8).
for op, seconds, factor in (("all_gather", 4.507872e-5, 7 / 8),
                            ("reduce_scatter", 4.507872e-5, 7 / 8),
                            ("all_reduce", 9.015744e-5, 14 / 8)):
    rc, out, err = run("allreduce", "--format", "csv", "--device",
                       "tests/data/curve/round_device.ini", "--nodes", "2", "--op", op,
                       "--min-bytes", "1048576", "--max-bytes", "1048576")
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    ok = len(rows) == 1 and abs(float(rows[0]["time_s"]) / seconds - 1) < 1e-6
    algbw = 1048576 / seconds / 1e9
    ok = ok and abs(float(rows[0]["busbw_gb_s"]) - algbw * factor) < 1e-3
    check(ok, f"--op {op}: {seconds} s, busbw x {factor}: {out!r} {err!r}")

# nccl-tests' sizes: all_gather_perf and reduce_scatter_perf move count / nranks whole floats a
# rank, so 1K on 6 ranks is floor(1024 / 24) x 24 = 1008 bytes, 2K 2040, 4K 4080; on 8 ranks
# 4 to 16 bytes are below one float a rank (32 bytes) and left out with a warning, said in the
# JSON too; a sweep of nothing but such sizes is refused as --max-bytes'.
rc, out, err = run("allreduce", "--device", "h100", "-g", "6", "--op", "reduce_scatter",
                   "--min-bytes", "1K", "--max-bytes", "4K", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
check([r["bytes"] for r in rows] == ["1008", "2040", "4080"] and err == "",
      f"reduce_scatter on 6 ranks: {rc} {[r['bytes'] for r in rows]} {err!r}")
rc, out, err = run("allreduce", "--device", "h100", "-g", "8", "--op", "all_gather",
                   "--min-bytes", "4", "--max-bytes", "64", "--format", "json")
doc = json.loads(out) if rc == 0 else {"results": [], "warning": None}
check([r["bytes"] for r in doc["results"]] == [32, 64] and err.count("\n") == 1 and
      "below 32 bytes (one float a rank) left out" in err and doc["warning"] and
      doc["warning"] in err, f"all_gather below a float a rank: {rc} {out!r} {err!r}")
rc, out, err = run("allreduce", "--device", "h100", "-g", "8", "--min-bytes", "4",
                   "--max-bytes", "8", "--format", "json")
doc = json.loads(out) if rc == 0 else {"results": []}
check([r["bytes"] for r in doc["results"]] == [4, 8] and doc.get("warning", 0) is None and
      err == "", f"all_reduce of whole floats: {rc} {out!r} {err!r}")
rc, out, err = run("allreduce", "--device", "h100", "-g", "8", "--op", "all_gather",
                   "--min-bytes", "4", "--max-bytes", "16")
check(rc == 2 and out == "" and "--max-bytes 16: below one float a rank (32 bytes)" in err,
      f"all_gather of nothing but sub-float sizes: {rc} {out!r} {err!r}")

# One device all-reduces nothing in no time: bytes / 0 s is no bandwidth, null in JSON (never
# 0, docs/output.md), empty in CSV and - in the table; it was 0 in all three.
rc, out, err = run("allreduce", "--device", "h100", "-g", "1", "--max-bytes", "2K", "--format",
                   "json")
results = json.loads(out)["results"] if rc == 0 else []
check(len(results) == 2 and all(r["time_s"] == 0 and r["algbw_gb_s"] is None and
                                r["busbw_gb_s"] is None for r in results),
      f"allreduce on one device, JSON: exit {rc} {out!r} {err!r}")
rc, out, err = run("allreduce", "--device", "h100", "-g", "1", "--max-bytes", "2K", "--format",
                   "csv")
rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
check(len(rows) == 2 and all(r["algbw_gb_s"] == "" and r["busbw_gb_s"] == "" for r in rows),
      f"allreduce on one device, CSV: exit {rc} {out!r} {err!r}")
rc, out, err = run("allreduce", "--device", "h100", "-g", "1", "--max-bytes", "2K")
lines = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
check(len(lines) == 2 and all(f[4:6] == ["-", "-"] for f in lines),
      f"allreduce on one device, table: exit {rc} {out!r} {err!r}")

# A rate below 50 KB/s was 0.0000 in the CSV (four decimals) and 1.85873e-05 in JSON: 4 bytes
# over 8,388,608 ranks. Now the CSV has JSON's six digits, algbw = bytes / time_s / 1e9 and
# busbw = algbw x 2(n-1)/n, all positive.
args = ["allreduce", "--device", "h100", "--nodes", "1048576", "--min-bytes", "4",
        "--max-bytes", "8"]
rc, out, err = run(*args, "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
rc, jout, err = run(*args, "--format", "json")
results = json.loads(jout)["results"] if rc == 0 else []
check(len(rows) == 2 and len(results) == 2, f"allreduce on 2^20 nodes: {out!r} {jout!r}")
for r, j in zip(rows, results):
    n, t = int(r["ranks"]), float(r["time_s"])
    algbw = int(r["bytes"]) / t / 1e9
    check(float(r["algbw_gb_s"]) > 0 and near(float(r["algbw_gb_s"]), algbw, 1e-5) and
          near(float(r["busbw_gb_s"]), algbw * 2 * (n - 1) / n, 1e-5),
          f"CSV at {r['bytes']} bytes: algbw {r['algbw_gb_s']}, busbw {r['busbw_gb_s']}; "
          f"expected {algbw:.6g}")
    check(float(r["algbw_gb_s"]) == j["algbw_gb_s"] and
          float(r["busbw_gb_s"]) == j["busbw_gb_s"],
          f"CSV and JSON differ at {r['bytes']} bytes: {r} {j}")


# 2^20 nodes of 4096 devices are 2^32 ranks: the count wrapped an int to 0 (busbw -inf in the
# table and CSV, null in JSON) or, at 2^31, to -2147483648 (busbw -319.6)
with tempfile.TemporaryDirectory() as tmp:
    big = os.path.join(tmp, "big.ini")
    with open("configs/devices/h100.ini") as f:
        text = f.read().replace("devices_per_node = 8",
                                "devices_per_node = 8\nmax_devices_per_node = 4096", 1)
    with open(big, "w") as f:
        f.write(text)
    for nodes, ranks in (("524288", 2 ** 31), ("1048576", 2 ** 32)):
        rc, out, err = run("allreduce", "--device", big, "--nodes", nodes, "-g", "4096",
                           "--min-bytes", "1G", "--max-bytes", "1G", "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
        ok = len(rows) == 1 and int(rows[0]["ranks"]) == ranks
        if ok:
            algbw, busbw = float(rows[0]["algbw_gb_s"]), float(rows[0]["busbw_gb_s"])
            ok = near(busbw, algbw * 2 * (ranks - 1) / ranks, 1e-5)
        check(ok, f"{nodes} nodes x 4096: {rc} {out!r} {err!r}")

finish()
