#!/usr/bin/env python3
"""tools/merge_profiles.py and sm_fit's --write on files written here.

  merge: a target of two points (resnet50 at batch 32 and 128, no kernel_name_us column) and a
    new file of resnet50 at 128 (one row, with the column) and densenet121 at 32: the result
    keeps resnet50 32's rows and order, holds the new 128 row alone in place of the old two,
    appends densenet121, has kernel_name_us as its last column (empty in the old rows), and is
    the same bytes when merged again. A new file of another precision is refused, exit 1,
    naming the file; so is a CSV without the profiler's columns.
  write: a description with `a_key = 1.5` and `b_key=2` gets 0.123456 and 1234.5 as 0.123 and
    1.23e+03, its comment and other lines as they were; a key the file lacks is an error that
    names the file and the key, the file left as it was.

usage: test_merge_profiles.py SCALEMETER   (run from the source root)
"""
import argparse
import csv
import gzip
import os
import subprocess
import sys
import tempfile

from cli_checks import check, finish

sys.path.insert(0, "tools")
import sm_fit  # noqa: E402

HEAD = ["model", "image", "batch", "precision", "step", "phase", "seq", "op", "kernels",
        "kernel_us"]


def write_gz(path, fields, rows):
    with gzip.open(path, "wt", newline="") as f:
        w = csv.writer(f)
        w.writerow(fields)
        w.writerows(rows)


def read_gz(path):
    with gzip.open(path, "rt", newline="") as f:
        r = csv.reader(f)
        return next(r), list(r)


def merge(*paths):
    return subprocess.run([sys.executable, "tools/merge_profiles.py", *paths],
                          capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    target, new = os.path.join(tmp, "tf32.csv.gz"), os.path.join(tmp, "new.csv.gz")
    write_gz(target, HEAD, [
        ["resnet50", "224", "32", "tf32", "0", "fwd", "0", "aten::conv2d", "1", "10"],
        ["resnet50", "224", "32", "tf32", "0", "fwd", "1", "aten::relu", "1", "2"],
        ["resnet50", "224", "128", "tf32", "0", "fwd", "0", "aten::conv2d", "1", "40"],
        ["resnet50", "224", "128", "tf32", "0", "fwd", "1", "aten::relu", "1", "8"]])
    write_gz(new, HEAD + ["kernel_name_us"], [
        ["resnet50", "224", "128", "tf32", "0", "fwd", "0", "aten::conv2d", "2", "41", "30;11"],
        ["densenet121", "224", "32", "tf32", "0", "fwd", "0", "aten::conv2d", "1", "5", "5"]])
    p = merge(target, new)
    check(p.returncode == 0, f"merge: exit {p.returncode}: {p.stderr.strip()}")
    fields, rows = read_gz(target)
    check(fields == HEAD + ["kernel_name_us"], f"merged columns {fields}")
    check([r[0] + r[2] + r[7] for r in rows] ==
          ["resnet5032aten::conv2d", "resnet5032aten::relu", "resnet50128aten::conv2d",
           "densenet12132aten::conv2d"], f"merged rows {rows}")
    check(rows[0][-1] == "" and rows[2][-1] == "30;11" and rows[2][9] == "41",
          f"merged values {rows}")
    with open(target, "rb") as f:
        once = f.read()
    merge(target, new)
    with open(target, "rb") as f:
        check(f.read() == once, "merging the same file again changes the bytes")

    other = os.path.join(tmp, "fp16.csv.gz")
    write_gz(other, HEAD, [["resnet18", "224", "32", "fp16", "0", "fwd", "0", "x", "1", "1"]])
    p = merge(target, other)
    check(p.returncode == 1 and "fp16.csv.gz" in p.stderr and "tf32" in p.stderr,
          f"another precision: exit {p.returncode}, {p.stderr.strip()}")
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("a,b\n1,2\n")
    p = merge(target, bad)
    check(p.returncode == 1 and "bad.csv" in p.stderr and "model" in p.stderr,
          f"not a profile: exit {p.returncode}, {p.stderr.strip()}")
    with open(target, "rb") as f:
        check(f.read() == once, "a refused merge changed the target")

    # sm_fit.write and settle, on a file under ROOT's eyes: a path relative to it
    ini = os.path.join(tmp, "d.ini")
    text = "[framework]\n; the rate, measured\na_key = 1.5\nb_key=2\nc_key = 7\n"
    with open(ini, "w") as f:
        f.write(text)
    rel = os.path.relpath(ini, sm_fit.ROOT)
    a = argparse.Namespace(write=True, check=False)
    rc = sm_fit.settle(a, "test", {"a_key": 0.123456, "b_key": 1234.5},
                       sm_fit.shipped(r"[ab]_key", [rel]))
    with open(ini) as f:
        got = f.read()
    check(rc == 0 and got == text.replace("1.5", "0.123").replace("b_key=2", "b_key=1.23e+03"),
          f"written: rc {rc}, {got!r}")
    a = argparse.Namespace(write=False, check=True)
    check(sm_fit.settle(a, "test", {"a_key": 0.123456, "b_key": 1234.5},
                        sm_fit.shipped(r"[ab]_key", [rel])) == 0, "--check after --write")
    check(sm_fit.settle(a, "test", {"a_key": 0.2}, sm_fit.shipped(r"[ab]_key", [rel])) == 1,
          "--check of another value")
    try:
        sm_fit.write({"d_key": 1.0}, rel)
        check(False, "a key the file lacks was written")
    except SystemExit as e:
        check("d_key" in str(e) and "d.ini" in str(e), f"missing key: {e}")
    with open(ini) as f:
        check(f.read() == got, "a failed write changed the file")

finish()
