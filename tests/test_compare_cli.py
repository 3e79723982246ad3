#!/usr/bin/env python3
"""scalemeter compare: each part's row is what predict says for that part with the same options
(its CSV row, its JSON's times), a part that cannot run the options says why and leaves the
others, a batch that does not fit has no times, `all` is every shipped description, and the
list's slips are usage errors.

Usage: test_compare_cli.py SCALEMETER
"""
import csv
import io
import math
import json
import subprocess
import sys

BIN = sys.argv[1]
failures = []


def run(*args):
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(what, ok, detail=""):
    if not ok:
        failures.append(f"{what}{': ' + detail if detail else ''}")


# every row of the CSV is predict's CSV row of that part, the device column before it
for net, opts in (("resnet50", ["--batch", "64", "--precision", "bf16"]),
                  ("resnet50", ["--batch", "32", "-g", "1"]),
                  ("gpt2", ["--max-batch", "--seq", "1024", "--precision", "bf16", "-g", "2"])):
    rc, out, err = run("compare", net, "--device", "a10,h100,l4,a100", *opts, "--format", "csv")
    check(f"compare {net} {opts}: exit", rc == 0, err)
    lines = out.splitlines()
    check(f"compare {net} {opts}: rows", len(lines) == 5, out)
    for line in lines[1:]:
        device = line.split(",", 1)[0]
        rc, mine, err = run("predict", net, "--device", device, *opts, "--format", "csv")
        want = mine.splitlines()
        check(f"{net} on {device}: header", lines[0] == "device," + want[0], lines[0])
        check(f"{net} on {device}: the row is predict's", line == device + "," + want[1],
              f"{line} against {want[1]}")

# JSON: the parts in the list's order, each with predict's times; one without the precision
# says why and the command still succeeds
rc, out, err = run("compare", "resnet50", "--device", "a10,v100,h100", "--batch", "64",
                   "--precision", "bf16", "--format", "json")
check("json: exit", rc == 0, err)
d = json.loads(out) if rc == 0 else {"parts": []}
check("json: parts in order", [p["device"] for p in d["parts"]] == ["a10", "v100", "h100"])
for p in d["parts"]:
    if p["device"] == "v100":
        check("json: v100 has no bf16", "no bf16" in p.get("error", ""), json.dumps(p))
        continue
    rc, mine, _ = run("predict", "resnet50", "--device", p["device"], "--batch", "64",
                      "--precision", "bf16", "--format", "json")
    q = json.loads(mine)
    check(f"json: {p['device']}'s t_step", p["t_step"] == q["t_step"], f"{p['t_step']} {q['t_step']}")
    check(f"json: {p['device']}'s memory", p["memory"] == q["memory"])

# the table: a row each, the part without the precision blank and named below it
rc, out, err = run("compare", "resnet50", "--device", "a10,v100", "--batch", "64", "--precision",
                   "bf16")
rows = [l.split() for l in out.splitlines() if l.split()[:1] in (["a10"], ["v100"])]
check("table: exit", rc == 0, err)
check("table: a10 has a step", len(rows) == 2 and rows[0][1] == "bf16" and rows[0][5] == "ms",
      out)
check("table: v100's row is blank", len(rows) == 2 and rows[1][1:] == ["-"] * 9, out)
check("table: v100 says why", "  v100: --precision bf16: device v100 has no bf16 peak" in out, out)

# no part can: each says why, a usage error (the precision is the option's)
rc, out, err = run("compare", "resnet50", "--device", "v100,t4", "--batch", "8", "--precision",
                   "bf16")
check("none can: exit 2", rc == 2 and out == "", f"{rc} {out}")
check("none can: each named", "compare: v100: " in err and "compare: t4: " in err, err)

# a batch past the memory: no times, fits false, what would make it fit
rc, out, err = run("compare", "resnet50", "--device", "l4", "--batch", "2000", "-g", "1")
row = [l.split() for l in out.splitlines() if l.startswith("l4 ")]
check("oom: no step", rc == 0 and row and row[0][4] == "-" and "oom" in row[0], out)
check("oom: what would fit", "l4: does not fit: needs" in out and "--max-batch" in out, out)
rc, out, err = run("compare", "resnet50", "--device", "l4", "--batch", "2000", "--format", "csv")
check("oom: the CSV's fits", rc == 0 and next(csv.DictReader(io.StringIO(out)))["fits"] == "false",
      out)

# all: every shipped description, in `devices`' order
rc, out, err = run("compare", "resnet50", "--device", "all", "--batch", "16", "--format", "json")
rc2, devs, _ = run("devices", "--format", "json")
names = [x["device"] for x in json.loads(devs)["devices"]]
check("all: every description", rc == 0 and [p["device"] for p in json.loads(out)["parts"]] == names,
      err)

# --price: an epoch's cost is price x devices x ceil(dataset / global batch) x t_step / 3600,
# from predict's own t_step; --epochs times it
rc, out, err = run("compare", "resnet50", "--device", "a10,a100", "--batch", "64", "--price",
                   "1.5,4", "--epochs", "3", "--format", "csv")
check("price: exit", rc == 0, err)
for r in csv.DictReader(io.StringIO(out)) if rc == 0 else []:
    price = {"a10": 1.5, "a100": 4.0}[r["device"]]
    devices, t_step = int(r["devices"]), float(r["t_step"])
    steps = -(-1281167 // (64 * devices))
    want = price * devices * steps * t_step / 3600
    check(f"price: {r['device']}'s price", float(r["price_per_device_hour"]) == price)
    check(f"price: {r['device']}'s epoch", abs(float(r["cost_epoch"]) / want - 1) < 1e-5,
          f"{r['cost_epoch']} against {want}")
    check(f"price: {r['device']}'s run", abs(float(r["cost_train"]) / (3 * want) - 1) < 1e-5)
rc, out, err = run("compare", "resnet50", "--device", "a10,a100", "--batch", "64", "--price",
                   "1.5,4")
check("price: the table's column", rc == 0 and "cost/epoch" in out and "cost/run" not in out, out)
# a sequence network's epoch is --tokens': without it the cost column is empty and the table
# says what to give; with it, costs above 1000 in whole units (it printed 1.406e+07): the
# h100's 8 devices at 2 an hour over ceil(1e12 / (8 x 1 x 1024)) steps of t_step
rc, out, err = run("compare", "gpt2", "--device", "h100", "--batch", "1", "--seq", "1024",
                   "--price", "2")
check("price without --tokens: says what to give", rc == 0 and
      "cost/epoch: gpt2 is a sequence network, whose epoch is --tokens T" in out, out)
rc, out, err = run("compare", "gpt2", "--device", "h100", "--batch", "1", "--seq", "1024",
                   "--price", "2", "--tokens", "1T", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
want = 2 * 8 * math.ceil(1e12 / (8 * 1024)) * float(rows[0]["t_step"]) / 3600 if rows else 0
check("price with --tokens: the epoch's cost", rows and
      abs(float(rows[0]["cost_epoch"]) / want - 1) < 1e-5, f"{rows} {err}")
rc, out, err = run("compare", "gpt2", "--device", "h100", "--batch", "1", "--seq", "1024",
                   "--price", "2", "--tokens", "1T")
cell = [line.split()[-1] for line in out.splitlines() if line.startswith("h100")]
check("the table's cost in whole units", rc == 0 and cell and cell[0] == f"{want:.0f}"
      and "cost/epoch: gpt2" not in out, f"{cell} {want:.0f}")
for price, says in (("1", "1 price for 2 parts"), ("1,2,3", "3 prices for 2 parts"),
                    ("1,x", "'x' is not a price"), ("1,-2", "'-2' is not a price"),
                    ("1,inf", "'inf' is not a price"), ("1,,2", "'' is not a price")):
    rc, out, err = run("compare", "resnet50", "--device", "a10,l4", "--batch", "8", "--price", price)
    check(f"--price {price}: exit 2", rc == 2 and out == "", f"{rc} {out}")
    check(f"--price {price}: says", says in err, err)

# the list's slips and the options compare does not take
for args, says in (
        (["--device", "a10,nosuch", "--batch", "8"], "--device nosuch: unknown device 'nosuch'"),
        (["--device", "a10,,l4", "--batch", "8"], "an empty name in the list"),
        (["--device", "a10,a10", "--batch", "8"], "a10 is given twice"),
        (["--device", "all,h100", "--batch", "8"], "all is every shipped description"),
        (["--batch", "8"], "which parts? --device LIST"),
        (["--device", "a10", "--coeffs", "default", "--batch", "8"], "--coeffs is one machine's"),
        (["--device", "a10"], "give --batch B"),
        (["--device", "-", "--batch", "8"], "not the standard input")):
    rc, out, err = run("compare", "resnet50", *args)
    check(f"compare {' '.join(args)}: exit 2", rc == 2 and out == "", f"{rc} {out}")
    check(f"compare {' '.join(args)}: says", says in err and err.startswith("scalemeter compare: "),
          err)

for f in failures:
    print("FAIL", f)
print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
