#!/usr/bin/env python3
"""`fit -o C --device-out D`: both files or neither (docs/calibration.md: "a failing fit writes
neither file"). The hostile round of 2026-11-26 found the coefficient file replaced when the
description failed afterwards (a folder that does not exist, a fitted efficiency outside a
description's range), and a fit that exits 1 must leave what was there.

usage: test_fit_two_outputs.py SCALEMETER   (run from the source root)
"""
import csv
import os
import tempfile

from cli_checks import check, finish, run

RUNS = "configs/calibrations/h100-pytorch-fp32.csv"
tmp = tempfile.mkdtemp()


def path(name):
    return os.path.join(tmp, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


def leftovers():
    """Temporary files a fit left beside its outputs."""
    return [n for n in os.listdir(tmp) if ".tmp." in n]


def fails_keeping(args, keep, absent, what):
    """fit args exits 1 in one line, keep's files hold "OLD" still, absent's do not exist."""
    for k in keep:
        write(k, "OLD\n")
    rc, _, err = run("fit", *args)
    lines = [l for l in err.splitlines() if "weight term" not in l]  # the form chosen: a note
    check(rc == 1 and len(lines) == 1, f"{what}: exit {rc}, stderr {err!r}")
    for k in keep:
        with open(path(k)) as f:
            check(f.read() == "OLD\n", f"{what}: {k} was replaced by a fit that failed")
    for a in absent:
        check(not os.path.exists(path(a)), f"{what}: {a} was written by a fit that failed")
    check(not leftovers(), f"{what}: temporaries left: {leftovers()}")


# the description cannot be written: the coefficients stay as they were
fails_keeping([RUNS, "-o", path("c.ini"), "--device-out", path("no/such/folder/d.ini")],
              ["c.ini"], [], "--device-out in a folder that does not exist")

# the coefficients cannot be written: no description either
fails_keeping([RUNS, "-o", path("no/such/folder/c.ini"), "--device-out", path("d.ini")],
              [], ["d.ini"], "-o in a folder that does not exist")
fails_keeping([RUNS, "-o", path("no/such/folder/c.ini"), "--device-out", path("d2.ini")],
              ["d2.ini"], [], "-o in a folder that does not exist, the description there before")

# the fitted efficiency is outside a description's range: times a million times the measured
# ones ask for 2e-8 of the peak, under the loader's 1e-4
with open(RUNS, newline="") as f:
    rows = list(csv.DictReader(f))
    fields = list(rows[0].keys())
slow = path("slow.csv")
with open(slow, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    for r in rows:
        for k in ("t_infer", "t_fwd", "t_bwd", "t_grad", "t_step"):
            if r.get(k):
                r[k] = repr(float(r[k]) * 1e6)
        w.writerow(r)
fails_keeping([slow, "-o", path("c3.ini"), "--device-out", path("d3.ini")], ["c3.ini"],
              ["d3.ini"], "a fitted efficiency outside the range")

# and a fit that succeeds writes both, with nothing left beside them
rc, _, err = run("fit", RUNS, "-o", path("c4.ini"), "--device-out", path("d4.ini"))
check(rc == 0, f"fit of both: exit {rc}: {err}")
for name, head in (("c4.ini", "; scalemeter coefficient file"),
                   ("d4.ini", "; Device description written by `scalemeter fit --device-out`")):
    with open(path(name)) as f:
        check(f.read().startswith(head), f"{name} is not what fit writes")
check(not leftovers(), f"temporaries left after a good fit: {leftovers()}")
# --device-out - and a staged description: the standard output gets it whole
rc, out, err = run("fit", RUNS, "-o", path("c5.ini"), "--device-out", "-")
check(rc == 0 and out.startswith("; Device description written"), f"--device-out -: {rc} {err}")

finish()
