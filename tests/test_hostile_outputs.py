#!/usr/bin/env python3
"""Hostile names in the outputs, the fifth campaign: a network file whose path holds what a CSV
or an SVG document gives a meaning to must come out as the same text, read back by a standard
reader (Python's csv module; an XML parser).

usage: test_hostile_outputs.py SCALEMETER   (run from the source root)
"""
import csv
import io
import os
import re
import shutil
import subprocess
import tempfile

from cli_checks import SM, check, finish

tmp = tempfile.mkdtemp()
NET = "[network]\nname = t\ninput = 3x8x8\n[layers]\na = conv2d out=4 kernel=1\n"


def network(name):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(NET)
    return path


def run_bytes(*args):
    """stdout as bytes: text mode would turn a lone carriage return into a line end."""
    p = subprocess.run([SM, *args], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


# A carriage return in a path: written bare, a CSV reader ended the row there, and the row
# split in two ("x" and "y.ini,8,...").
cr = network("x\ry.ini")
for cmd in (["predict", cr, "--batch", "2"], ["curve", cr, "--batch", "2", "--nodes", "1,2"]):
    rc, out, err = run_bytes(*cmd, "--device", "h100", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out.decode(), newline="")))
    models = [r[0] for r in rows[1:]]
    check(rc == 0 and len(rows) == (2 if cmd[0] == "predict" else 3) and
          all(m == cr for m in models),
          f"{cmd[0]} --format csv of {cr!r}: exit {rc} {err.strip()}: rows {rows}")



def refused_output(args, out, name, option="-o"):
    """args with option OUT must be refused in one line naming out and the input it is (name),
    exit 2, the file untouched."""
    before = open(out, "rb").read()
    rc, _, err = run_bytes(*args, option, out)
    want = (f"scalemeter {args[0]}: {option} {out} is the input {name}: writing it would "
            "replace what is read; name another file")
    check(rc == 2 and err.strip() == want and open(out, "rb").read() == before,
          f"{' '.join(args)} {option} {out}: exit {rc}: {err.strip()!r}, want {want!r}")


# -o naming a network the runs CSV measured: fit and validate read them all, and wrote over one
# (`fit runs.csv -o net.ini`, the coefficients named after the network); and validate's -o
# naming its calibration by the file a name finds (--coeffs default, -o the data folder's
# default.ini: a copy here, found through SCALEMETER's own folder would be the shipped file)
tiny = []
for n in "abc":
    tiny.append(os.path.join(tmp, f"tiny_{n}.ini"))
    shutil.copy(f"tests/data/fit/tiny_{n}.ini", tiny[-1])
runs = os.path.join(tmp, "runs.csv")
with open(runs, "w") as f:
    f.write("model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n")
    for k, net in enumerate(tiny):
        for img in (8, 16):
            for b in (1, 2, 4, 8):
                ti = b * img * img * (1 + k) * 1e-6 + 1e-4 * (k + 1)
                tf, tb, tg = ti * 1.1, ti * 2.1, 1e-4 * (k + 2)
                f.write(f"{net},{img},{b},1,1,{ti:.6g},{tf:.6g},{tb:.6g},{tg:.6g},"
                        f"{tf + tb + tg:.6g}\n")
refused_output(["fit", runs], tiny[0], tiny[0])
refused_output(["validate", runs, "--device", "h100"], tiny[1], tiny[1])
refused_output(["fit", runs, "--device-base", "h100", "-o", os.path.join(tmp, "coeffs.ini")],
               tiny[2], tiny[2], "--device-out")
cal = os.path.join(tmp, "cal.ini")
shutil.copy("configs/calibrations/default.ini", cal)
refused_output(["validate", runs, "--coeffs", cal], cal, cal)
# --coeffs by name: -o a hard link to the shipped default.ini is that file (before, validate
# compared the name as given and wrote over it); were it not refused, the atomic write would
# replace the link alone. The link lies beside the source tree, on its file system.
here = tempfile.mkdtemp(dir=".")
link = os.path.join(here, "default.ini")
os.link("configs/calibrations/default.ini", link)
rc, _, err = run_bytes("validate", runs, "--coeffs", "default", "-o", link)
check(rc == 2 and f"-o {link} is the input " in err and "default.ini: writing it" in err,
      f"validate --coeffs default -o {link}: exit {rc}: {err.strip()}")
shutil.rmtree(here)

# Control bytes in what a message or a table quotes (the hostile round of 2026-11-26): a
# newline in a runs CSV's quoted model name split the one-line error in four, a layer type of
# escape sequences cleared the terminal, and a network path with a newline split validate's
# table row. Escaped now, as C writes them.
esc_net = os.path.join(tmp, "esc.ini")
with open(esc_net, "w") as f:
    f.write("[network]\nname = t\ninput = 3x8x8\n[layers]\na = \x1b[2J\x1b[31mrelu\n")
rc, _, err = run_bytes("metrics", esc_net)
check(rc != 0 and "\x1b" not in err and "'\\x1b[2J\\x1b[31mrelu'" in err and
      len(err.strip().splitlines()) == 1, f"metrics of a layer type of escapes: {err!r}")
nl_runs = os.path.join(tmp, "nl.csv")
with open(nl_runs, "w") as f:
    f.write("model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n"
            '"res\nnet18",64,8,1,1,0.01,0.01,0.02,0.001,0.031\n')
rc, _, err = run_bytes("validate", nl_runs, "--device", "h100")
check(rc != 0 and "'res\\nnet18'" in err and len(err.strip().splitlines()) == 1,
      f"validate of a model name holding a newline: {err!r}")
nl_net = network("we\nird.ini")
with open(nl_runs, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["model", "image", "batch", "nodes", "gpus_per_node", "t_infer", "t_fwd",
                "t_bwd", "t_grad", "t_step"])
    for b in (1, 2):
        w.writerow([nl_net, 8, b, 1, 1, 0.001, 0.001, 0.002, 0.0001, 0.0031])
rc, out, err = run_bytes("validate", nl_runs, "--device", "h100")
rows = [l for l in out.decode().splitlines() if l.startswith("infer ")]
check(rc == 0 and len(rows) == 2 and any("we\\nird.ini" in r for r in rows),
      f"validate's table of a network path holding a newline: exit {rc}: {out!r} {err}")

# A network file named overall: its rows and the aggregate row both read "infer,overall" in
# validate's CSV (the hostile round of 2026-11-26); the file's row is ./overall, the same file
with open(os.path.join(tmp, "overall"), "w") as f:
    f.write(NET)
with open(os.path.join(tmp, "ov.csv"), "w") as f:
    f.write("model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n"
            "overall,8,1,1,1,0.001,0.001,0.002,0.0001,0.0031\n"
            "overall,8,2,1,1,0.002,0.002,0.004,0.0001,0.0061\n")
p = subprocess.run([SM, "validate", "ov.csv", "--device", "h100", "--format", "csv"], cwd=tmp,
                   capture_output=True, text=True)
labels = [r[1] for r in csv.reader(io.StringIO(p.stdout)) if r and r[0] == "infer"]
check(p.returncode == 0 and labels == ["./overall", "overall"],
      f"validate of a network named overall: exit {p.returncode}: {labels} {p.stderr}")

# A rate past 1e15 was printed whole in the tables: a step of 2e-300 s (intercepts of 1e-300 s
# and nothing else) gave images_per_s 9999999999999999038030694074261139688982187661181031417898
# 33949, 47 of its digits float noise. 2 samples / 2e-300 s = 1e300/s, in an exponent as CSV and JSON
# write it; a rate of everyday size stays whole (9394, not 9.394e+03).
with open("tests/data/fit/tiny_coeffs.ini") as f:
    coeffs = f.read()
coeffs = re.sub(r"(?m)^(c\d_\w+) = .*$",
                lambda m: m.group(1) + (" = 1e-300" if m.group(1) == "c4_intercept" else " = 0"),
                coeffs)
tiny = os.path.join(tmp, "tiny_intercepts.ini")
with open(tiny, "w") as f:
    f.write(coeffs)
base = ["tests/data/fit/tiny_a.ini", "--batch", "2", "--coeffs", tiny]
p = subprocess.run([SM, "predict", *base], capture_output=True, text=True)
rate = [line.split()[1] for line in p.stdout.splitlines() if line.startswith("images_per_s")]
check(p.returncode == 0 and rate == ["1e+300"], f"predict table of 1e300 images/s: {rate}")
p = subprocess.run([SM, "curve", *base, "--nodes", "1"], capture_output=True, text=True)
check(p.returncode == 0 and re.search(r"  1e\+300  ", p.stdout), f"curve table: {p.stdout}")
p = subprocess.run([SM, "predict", "resnet18", "--batch", "8", "--device", "h100"],
                   capture_output=True, text=True)
rate = [line.split()[1] for line in p.stdout.splitlines() if line.startswith("images_per_s")]
check(len(rate) == 1 and re.fullmatch(r"[1-9]\d{3,}", rate[0]), f"an everyday rate: {rate}")

# An -o path that holds the words of the "not writable" refusal: output_to told that refusal
# apart by looking for ": not writable (" in the message, which quotes the path, so a folder
# that does not exist was reported as the file's own mode ("PATH: cannot write: ..." printed
# as if it were that refusal). The path's folder is missing: open's ENOENT, said as every
# other failure to write -o is: "cannot write PATH: REASON".
worded = os.path.join(tmp, "missing: not writable (x", "out.txt")
for cmd in (["devices"], ["predict", "resnet18", "--batch", "8", "--device", "h100"]):
    rc, _, err = run_bytes(*cmd, "-o", worded)
    check(rc == 1 and err == f"scalemeter {cmd[0]}: cannot write {worded}: No such file or "
          "directory\n", f"{cmd[0]} -o a path worded as the refusal: exit {rc}: {err!r}")

shutil.rmtree(tmp)
finish()
