#!/usr/bin/env python3
"""A path that is there but is not a regular file (a folder, a FIFO, /dev/null), given where a
network, device, framework or coefficient file is looked up, is refused in one line saying what
it is: it was "no such file" (a folder said "not a coefficient file file"). The readers of
runs CSVs say a folder is one; a pipe there (bash's <(...)) still reads; "-" still reads.

usage: test_not_regular_files.py SCALEMETER   (run from the source root)
"""
import os
import subprocess
import tempfile

from cli_checks import SM, check, finish

tmp = tempfile.mkdtemp()
folder = os.path.join(tmp, "folder")
os.mkdir(folder)
fifo = os.path.join(tmp, "fifo")
os.mkfifo(fifo)
missing = os.path.join(tmp, "missing.ini")


def run(*args, stdin=subprocess.DEVNULL, pass_fds=()):
    # a FIFO opened for reading waits for a writer: a timeout, so that a hang fails
    try:
        p = subprocess.run([SM, *args], capture_output=True, text=True, stdin=stdin,
                           pass_fds=pass_fds, timeout=30)
    except subprocess.TimeoutExpired:
        return -1, "", "timed out"
    return p.returncode, p.stdout, p.stderr


def refused(args, phrase):
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    check(rc == 1 and len(lines) == 1 and phrase in lines[0] and "no such file" not in err
          and "file file" not in err,
          f"{' '.join(args)}: exit {rc}, want one line with '{phrase}': {err.strip()}")


# where each kind of file is looked up, and what the message calls it
places = [
    ("model", lambda p: ["predict", p, "--device", "h100", "--batch", "2"]),
    ("model", lambda p: ["metrics", p]),
    ("model", lambda p: ["curve", p, "--device", "h100", "--batch", "2", "--nodes", "1"]),
    ("device", lambda p: ["predict", "resnet18", "--device", p, "--batch", "2"]),
    ("device", lambda p: ["curve", "resnet18", "--device", p, "--batch", "2", "--nodes", "1"]),
    ("coefficient", lambda p: ["predict", "resnet18", "--coeffs", p, "--batch", "2"]),
    ("coefficient", lambda p: ["curve", "resnet18", "--coeffs", p, "--batch", "2",
                               "--nodes", "1"]),
    ("framework", lambda p: ["predict", "resnet18", "--device", "h100", "--framework", p,
                             "--batch", "2"]),
]
for what, args in places:
    refused(args(folder), f"{folder}: is a folder, not a {what} file")
    refused(args(fifo), f"{fifo}: is a pipe, not a {what} file")
    refused(args("/dev/null"), f"/dev/null: is a character device, not a {what} file")
    # only a path that is not there is "no such file"
    rc, out, err = run(*args(missing))
    check(rc == 1 and f"'{missing}': no such file" in err,
          f"{' '.join(args(missing))}: exit {rc}: {err.strip()}")

# a zoo name that resolves to a folder in the working directory
rc, out, err = run("predict", "models", "--device", "h100", "--batch", "2")
check(rc == 1 and "models: is a folder, not a model file" in err,
      f"predict models: exit {rc}: {err.strip()}")

# "-" reads the standard input, as before
with open("configs/devices/h100.ini") as f:
    rc, out, err = run("predict", "resnet18", "--device", "-", "--batch", "2", stdin=f)
check(rc == 0 and "t_step" in out, f"--device - < h100.ini: exit {rc}: {err.strip()}")

# the readers of runs CSVs: a folder says so (it was "read error after line 0", or "no data
# rows" for fit-comm)
for args in (["fit", folder], ["validate", folder, "--coeffs", "default"],
             ["fit-comm", folder]):
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    check(rc == 1 and len(lines) == 1 and f"{folder}: Is a directory" in lines[0],
          f"{' '.join(args)}: exit {rc}: {err.strip()}")

# and a pipe of bash's <(...) (/dev/fd/N) is still read there
runs = "configs/calibrations/cpu-amd-epyc-1thread.csv"
r, w = os.pipe()
with open(runs, "rb") as f:
    data = f.read()
writer = os.fork()
if writer == 0:
    os.close(r)
    os.write(w, data)
    os._exit(0)
os.close(w)
rc, out, err = run("fit", f"/dev/fd/{r}", pass_fds=(r,))
os.close(r)
os.waitpid(writer, 0)
check(rc == 0 and "c1" in out, f"fit /dev/fd/N (a pipe): exit {rc}: {err.strip()[:300]}")

finish()
