#!/usr/bin/env python3
"""Hostile names in the outputs, the fifth campaign: a network file whose path holds what a CSV
or an SVG document gives a meaning to must come out as the same text, read back by a standard
reader (Python's csv module; an XML parser).

usage: test_hostile_outputs.py SCALEMETER   (run from the source root)
"""
import csv
import io
import os
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

shutil.rmtree(tmp)
finish()
