#!/usr/bin/env python3
"""`scalemeter validate` over rows in any order: it loads each (model, image) network once
(a shuffled CSV of 10^6 rows used to reload one a row), and must say the same whatever the
order of the rows: the same report, the first failing row of the file named, the rows that
ran but are predicted not to fit said in the file's order.

usage: test_validate_cli.py SCALEMETER   (run from the source root)
"""
import os
import random
import tempfile

from cli_checks import check, finish, run

CSV = "configs/calibrations/cpu-amd-epyc-1thread.csv"
rows = open(CSV).read().splitlines()
header, body = rows[0], rows[1:]
tmp = tempfile.mkdtemp()


def write(name, lines):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("\n".join([header] + lines) + "\n")
    return path


# the same report from the rows shuffled (200 rows over 94 networks); models are listed in
# the order the file first names them
shuffled = body[:]
random.Random(7).shuffle(shuffled)
rc1, out1, err1 = run("validate", CSV, "--coeffs", "default", "--format", "csv")
rc2, out2, err2 = run("validate", write("shuffled.csv", shuffled), "--coeffs", "default",
                      "--format", "csv")
check(rc1 == 0 and rc2 == 0 and sorted(out1.splitlines()) == sorted(out2.splitlines()) and
      out1.count("\n") > 3, f"shuffled rows, the same report: {err1}{err2}")

# two rows of a model no registry has: the first of the file is named, whatever sorts first
bad = shuffled[:6]
bad[4] = bad[4].replace(bad[4].split(",")[0], "aaa_no_such_model", 1)
bad[2] = bad[2].replace(bad[2].split(",")[0], "zzz_no_such_model", 1)
path = write("unknown.csv", bad)
rc, out, err = run("validate", path, "--coeffs", "default")
check(rc != 0 and f"{path}:4: model zzz_no_such_model" in err and "aaa" not in err,
      f"the first failing line is named: {err}")

# rows that ran but are predicted not to fit an 80 GB H100, in the file's order: vgg16 keeps
# 73 MB a sample (PyTorch's count), so 4096 samples are 300 GB; resnet50 86 MB, so 8192 are
# 700 GB
ran = ["vgg16,224,4096,1,1,1.0,1.0,2.0,0.01,3.0,cuda,1,fp32,cuda",
       "resnet50,224,8,1,1,0.01,0.01,0.02,0.001,0.03,cuda,1,fp32,cuda",
       "resnet50,224,8192,1,1,1.0,1.0,2.0,0.01,3.0,cuda,1,fp32,cuda"]
path = write("ran.csv", ran)
rc, out, err = run("validate", path, "--device", "h100", "--precision", "fp32")
said = [l for l in err.splitlines() if "ran, but is predicted not to fit" in l]
check(rc == 0 and len(said) == 2 and f"{path}:2: vgg16" in said[0] and
      f"{path}:4: resnet50" in said[1], f"not-fit rows in the file's order: {err}")

# a --precision that names no precision is refused as one, as predict's and fit's are: it was
# "none of its 200 rows is of precision FP32" (and "... of precision " for "")
for p in ("FP32", "fp8", ""):
    rc, out, err = run("validate", "configs/calibrations/cpu-amd-epyc-1thread.csv", "--device",
                       "cpu", "--precision", p)
    check(rc == 2 and err == f"scalemeter validate: --precision {p}: expected fp32, tf32, fp16 "
          "or bf16\n" and out == "", f"validate --precision {p!r}: exit {rc}, {err!r}")
finish()
