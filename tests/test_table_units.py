#!/usr/bin/env python3
"""A table column of times keeps one unit (cli/output.c time_unit): curve's t_epoch once read
10.4 min, 5.21 min, ..., 40 s down one column. With a 4096-sample epoch at batch 8, weak
scaling from 1 to 16 nodes runs 512, 256, 128, 64, 32 steps an epoch, so t_epoch spans
minutes to seconds; every cell must be in minutes, the unit of the largest, and equal
steps x t_step (t_step read from the CSV of the same run).

usage: test_table_units.py SCALEMETER
"""
import csv
import io
import subprocess
import sys

bin_ = sys.argv[1]
args = ["curve", "resnet18", "--coeffs", "default", "--batch", "8", "--nodes", "1:16",
        "--dataset", "4096"]
table = subprocess.run([bin_, *args], capture_output=True, text=True, check=True).stdout
rows = list(csv.DictReader(io.StringIO(
    subprocess.run([bin_, *args, "--format", "csv"], capture_output=True, text=True,
                   check=True).stdout)))
lines = table.splitlines()
head = next(i for i, l in enumerate(lines) if l.startswith("model "))
cols = lines[head].split()
failed = 0
cells = []
for line in lines[head + 1:head + 6]:
    # cells are separated by two spaces at least; a value and its unit by one
    parts = [p.strip() for p in line.split("  ") if p.strip()]
    cells.append(parts[cols.index("t_epoch")])
for n, (cell, row) in enumerate(zip(cells, rows)):
    value, unit = cell.split(" ")
    steps = 4096 // (8 * int(row["nodes"]))
    want = steps * float(row["t_step"]) / 60
    if unit != "min" or abs(float(value) - want) > 0.006 * want:
        failed += 1
        print(f"FAIL: {row['nodes']} nodes: t_epoch {cell!r}, expected {want:.3g} min")
if len(cells) != 5:
    failed += 1
    print(f"FAIL: {len(cells)} rows:\n{table}")
print(f"{len(cells) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
