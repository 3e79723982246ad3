#!/usr/bin/env python3
"""`scalemeter validate --per-row`: every row of the file, in its order, with what it measured
(the CSV's own values) beside what the model predicts for its configuration, which must be
what `scalemeter predict` gives the same configuration (another command's path through the
model); the per-row ratios must give the summary's median ratio per network, and the table
must name the file's lines. Over the H100 fp32 rounds, whose configurations repeat.

usage: test_validate_per_row.py SCALEMETER   (run from the source root)
"""
import csv
import io
import json
import statistics

from cli_checks import check, finish, near, run

CSV = "configs/calibrations/h100-pytorch-fp32-rounds.csv"
rows = list(csv.DictReader(open(CSV)))
PHASES = ("infer", "fwd", "bwd", "grad", "step")

rc, out, err = run("validate", CSV, "--device", "h100", "--per-row", "--format", "csv")
got = list(csv.DictReader(io.StringIO(out)))
check(rc == 0 and len(got) == len(rows), f"one line a row: {len(got)} of {len(rows)} {err}")
check([int(g["line"]) for g in got] == list(range(2, len(rows) + 2)), "in the file's order")
same = all(float(g["measured_" + q]) == float(r["t_" + q]) for g, r in zip(got, rows)
           for q in PHASES)
check(same, "measured: the CSV's own values")

# predicted: what predict says of each configuration (validate steps SGD with momentum)
seen = {}
for g in got:
    key = (g["model"], g["image"], g["batch"])
    if key in seen:
        continue
    rc, out, err = run("predict", g["model"], "--device", "h100", "-g", "1", "--batch",
                       g["batch"], "--image", g["image"], "--precision", "fp32",
                       "--optimizer", "momentum", "--format", "json")
    seen[key] = json.loads(out) if rc == 0 else None
    if len(seen) >= 12:
        break
agree = []
for g in got:
    p = seen.get((g["model"], g["image"], g["batch"]))
    if p:
        agree.append(all(near(float(g["predicted_" + q]), p["t_" + q]) for q in PHASES))
check(len(agree) >= 12 and all(agree), f"predicted: predict's times ({len(agree)} rows)")
repeats = {}
for g in got:
    repeats.setdefault((g["model"], g["image"], g["batch"]), []).append(g["predicted_step"])
again = [v for v in repeats.values() if len(v) > 1]
check(again and all(len(set(v)) == 1 for v in again),
      f"a configuration measured again ({len(again)}): one prediction for all its rows")

# the summary's median ratio per network from the rows
rc, summary, err = run("validate", CSV, "--device", "h100", "--format", "csv")
medians = {(r["phase"], r["model"]): float(r["median_ratio"])
           for r in csv.DictReader(io.StringIO(summary))}
for q in ("step", "infer"):
    bad = []
    for model in sorted({g["model"] for g in got}):
        ratios = [float(g["predicted_" + q]) / float(g["measured_" + q])
                  for g in got if g["model"] == model]
        if abs(statistics.median(ratios) - medians[(q, model)]) > 1e-4:
            bad.append(model)
    check(not bad, f"{q}: the rows' median ratios are the summary's {bad}")

# the table: the file's lines, the step's ratio (its 12th field split on blanks: "1 x 1",
# "7.85 ms")
rc, table, err = run("validate", CSV, "--device", "h100", "--per-row")
lines = table.splitlines()
first = next((l.split() for l in lines if l.split()[:1] == ["2"]), [])
step_ratio = float(got[0]["predicted_step"]) / float(got[0]["measured_step"])
check(rc == 0 and "row by row" in lines[0] and first[:2] == ["2", rows[0]["model"]] and
      first[11] == f"{step_ratio:.2f}", f"table: line 2 first, its step ratio {first}")
check(sum(1 for l in lines if l.split()[:1] and l.split()[0].isdigit()) == len(rows),
      "table: a line a row")

# json: the rows with their configurations
rc, out, err = run("validate", CSV, "--device", "h100", "--per-row", "--format", "json")
j = json.loads(out) if rc == 0 else {}
check(len(j.get("rows", [])) == len(rows) and j["rows"][0]["line"] == 2 and
      j["rows"][0]["measured"]["step"] == float(rows[0]["t_step"]) and
      j["rows"][0]["measured"]["energy_step"] is None, "json: rows, measured as the CSV, "
      "null where not measured")
finish()
