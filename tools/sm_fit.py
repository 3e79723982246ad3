"""What tools/rownorm_rates.py, tools/stem_rates.py and tools/transpose_rates.py share: fitting
a kernel class's time in SM clocks from the H100's and H200's per-op profiles
(configs/calibrations/h*-pytorch-layers/) to the [framework] keys that price it per SM and
clock, and their options. Standard library only."""
import argparse
import functools
import json
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_table  # noqa: E402  (the profiles' reader)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARTS = ("h100", "h200")
# the framework the h100 and h200 descriptions start from ([framework] base), which holds the
# keys their profiles give
HOPPER = os.path.join("configs", "frameworks", "pytorch-eager-hopper.ini")


@functools.lru_cache(maxsize=None)
def kernel_device_us():
    """The Hopper framework's kernel_device_us (the h100's and h200's): what the model adds to
    each kernel's price, which a fit takes off each measured kernel."""
    with open(os.path.join(ROOT, HOPPER)) as f:
        return float(re.search(r"(?m)^kernel_device_us\s*=\s*([\d.]+)", f.read()).group(1))


@functools.lru_cache(maxsize=None)
def devices(binary):
    """{name: what `scalemeter devices --format json` says of it}, run once a binary."""
    out = subprocess.run([binary, "devices", "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    return {d["device"]: d for d in json.loads(out)["devices"]}


def sm_clocks_per_us(binary, part):
    """The part's SMs x the clock the model takes the per-SM-clock keys at (light_clock_mhz:
    on the H100 and H200 their 1830 MHz sustained clock), in SM clocks a microsecond."""
    d = devices(binary)[part]
    return d["sm_count"] * d["light_clock_mhz"]


def profiled_points(part, timed=True, bert=False):
    """(file name, (network, batch), phases) of each profiled step of the part's CNN files
    (<precision>.csv.gz), or with bert of its BERT files (bert-<precision>.csv.gz), phases as
    op_table.load gives them: {phase: [rows in the order they ran]}; with timed, only the steps
    that time each kernel (every op that launched one has its kernel_name_us: a merged file
    leaves it empty in the steps profiled before the column)."""
    folder = os.path.join(ROOT, "configs", "calibrations", f"{part}-pytorch-layers")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".csv.gz") or name.startswith("bert-") != bert:
            continue
        for key, steps in op_table.load(os.path.join(folder, name)).items():
            for phases in steps:
                if not timed or all(r.get("kernel_name_us") for rows in phases.values()
                                    for r in rows
                                    if r["op"] != "(phase)" and float(r["kernels"] or 0) > 0):
                    yield name, key, phases


def profiled_steps(part, timed=True, bert=False):
    """The phases of each step profiled_points gives."""
    for _, _, phases in profiled_points(part, timed, bert):
        yield phases


def least_squares(samples):
    """(a, b, rms): the clocks per unit of each term that fit [(x, y, clocks)] as a x + b y in
    relative least squares (each sample weighted by its clocks), and the root mean square of
    the samples' relative errors."""
    aa = ab = bb = a1 = b1 = 0.0
    for x, y, k in samples:
        p, q = x / k, y / k
        aa, ab, bb, a1, b1 = aa + p * p, ab + p * q, bb + q * q, a1 + p, b1 + q
    det = aa * bb - ab * ab
    a, b = (a1 * bb - b1 * ab) / det, (aa * b1 - ab * a1) / det
    rms = math.sqrt(statistics.fmean(((a * x + b * y) / k - 1) ** 2 for x, y, k in samples))
    return a, b, rms


def least_squares_second(samples, a):
    """(b, rms): the clocks per unit of y that fit [(x, y, clocks)] as a x + b y with a given,
    in relative least squares as least_squares, and the root mean square of the relative
    errors."""
    qq = qr = 0.0
    for x, y, k in samples:
        q, r = y / k, 1 - a * x / k
        qq, qr = qq + q * q, qr + q * r
    b = qr / qq
    rms = math.sqrt(statistics.fmean(((a * x + b * y) / k - 1) ** 2 for x, y, k in samples))
    return b, rms


def shipped(pattern, paths=None):
    """{path: {key: value}} of the keys matching pattern (a regex of the key) in paths, or in
    every shipped description and framework that gives one."""
    if paths is None:
        paths = [os.path.join("configs", d, n) for d in ("devices", "frameworks")
                 for n in sorted(os.listdir(os.path.join(ROOT, "configs", d)))]
    out = {}
    for path in paths:
        with open(os.path.join(ROOT, path)) as f:
            keys = {m.group(1): float(m.group(2)) for m in re.finditer(
                rf"(?m)^({pattern})\s*=\s*([\d.eE+-]+)\s*$", f.read())}
        if keys:
            out[path] = keys
    return out


def differ(keys, files):
    """The files whose keys are not keys' values to three significant digits, or lack one."""
    return sorted(path for path, have in files.items()
                  if any(k not in have or f"{have[k]:.3g}" != f"{v:.3g}" for k, v in keys.items()))


def write(keys, path):
    """Set each of keys' lines in path (ROOT-relative) to its value to three significant
    digits, the rest of the file as it was; a key the file has no line for is an error (where
    it goes, beside which keys and with which comment, is for a person to say)."""
    full = os.path.join(ROOT, path)
    with open(full) as f:
        text = f.read()
    for k, v in keys.items():
        text, n = re.subn(rf"(?m)^({re.escape(k)}\s*=\s*)[\d.eE+-]+(\s*)$",
                          lambda m: f"{m.group(1)}{v:.3g}{m.group(2)}", text)
        if n != 1:
            sys.exit(f"{path}: {n} lines set {k}; add it by hand beside its kind, then --write")
    with open(full, "w") as f:
        f.write(text)


def settle(a, tool, keys, files):
    """What every key-fitting tool ends with: files ({path: {key: value}} as shipped() gives
    them, {} for a file that should have the keys and has none) compared with keys; --write
    sets the differing ones, --check fails on them. The exit status."""
    diff = differ(keys, files)
    if diff and a.write:
        for path in diff:
            write(keys, path)
        print(f"{tool}: wrote the profiles' values into " + ", ".join(diff))
        return 0
    if diff and a.check:
        print(f"{tool}: other values than the profiles' (or none) in " + ", ".join(diff) +
              f" (tools/{tool}.py --write sets them)", file=sys.stderr)
        return 1
    return 0


def arguments(doc, tool, files="the shipped keys"):
    """The --bin, --check and --write options every key-fitting tool takes, parsed, with the
    binary checked: tool's docstring gives the description, files what --check compares."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true",
                      help=f"exit 1 where {files} differ from the profiles'")
    what.add_argument("--write", action="store_true",
                      help=f"set {files} to the profiles' values (three significant digits)")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"{tool}: no scalemeter at {a.bin} (build first, or give --bin)")
    return a
