#!/usr/bin/env python3
"""A measurement CSV whose quoted field runs over 120,000 lines (an ignored column's note, the
most a record may hold being 1 MiB): it must be read as one row, and the lines after it
counted right. Whether a record ended inside quotes was decided by scanning the whole record
again with each line, lines x bytes: a stray quote before 400,000 blank lines took 33 s to be
refused, this file about a minute.

The file: the shipped H100 CSV's first two rows with a `note` column, the first row's note
120,000 lines of 8 bytes; then a row whose batch is not a number. validate must name that row
at its line, 2 + 120,000 + 1 = 120,003, and, without it, compare both rows of resnet18.

usage: test_csv_multiline_cli.py SCALEMETER   (run from the source root)
"""
import json
import os
import tempfile

from cli_checks import check, finish, run

LINES = 120000
rows = open("configs/calibrations/h100-pytorch-tf32.csv").read().splitlines()
header, first, second = rows[0], rows[1], rows[2]
check(first.startswith("resnet18,") and second.startswith("resnet18,"), "two rows of resnet18")
note = "\n".join("line%03d" % (i % 1000) for i in range(LINES))
tmp = tempfile.mkdtemp()


def write(name, extra):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(f"{header},note\n{first},\"{note}\"\n{second},short\n" + extra)
    return path


bad = write("bad.csv", second.replace(",64,", ",x,", 1) + ",\n")
rc, out, err = run("validate", bad, "--device", "h100")
check(rc != 0 and f"{bad}:{2 + LINES + 1}:" in err and "batch" in err,
      f"the bad row named at line {2 + LINES + 1}: {err.strip()}")

good = write("good.csv", "")
rc, out, err = run("validate", good, "--device", "h100", "--format", "json")
report = json.loads(out) if rc == 0 else {}
infer = report.get("phases", {}).get("infer", {}).get("per_model", {})
check(rc == 0 and report.get("rows") == 2 and infer.get("resnet18", {}).get("n") == 2,
      f"two rows of resnet18: {rc} rows {report.get('rows')} {infer} {err.strip()}")
finish()
