"""Descriptions and fit's outputs misused (tests/cli_misuse.cmake), each found by a hostile
audit and failing before its fix: a calibration beside a device without its precision, -o and
--device-out naming one file, TF32 or BF16 on Volta by architecture alone, memory_gib below
what the description holds itself, runs whose file name an INI file cannot hold, and fit's
faster-than-the-part warning naming the key it capped.

    test_description_misuse.py SCALEMETER
"""
import csv
import os
import re
import shutil
import subprocess
import tempfile

from cli_checks import SM, check, finish, run

CPU_CSV = os.path.abspath("configs/calibrations/cpu-amd-epyc-1thread.csv")
H100_FP32 = os.path.abspath("configs/calibrations/h100-pytorch-fp32.csv")
DEVICES = os.path.abspath("configs/devices")


def run_in(cwd, *args):
    p = subprocess.run([SM, *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def one_line_error(rc, err, text, what):
    check(rc != 0, f"{what}: exit 0: {err.strip()}")
    check(text in err, f"{what}: expected '{text}' in: {err.strip()}")
    check(len(err.strip().splitlines()) == 1, f"{what}: one line, got: {err.strip()}")


def edited(tmp, name, drop=(), add=(), replace=None):
    """configs/devices/NAME.ini with keys dropped, lines added after [device] and a key's line
    replaced, written beside it into tmp (its framework's base found by name from there)."""
    with open(os.path.join(DEVICES, name + ".ini")) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        key = line.split("=")[0].strip()
        if key in drop:
            continue
        if replace and key == replace[0]:
            line = f"{replace[0]} = {replace[1]}"
        out.append(line)
        if line.strip() == "[device]":
            out.extend(add)
    path = os.path.join(tmp, f"{name}-edited.ini")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return path, out


tmp = tempfile.mkdtemp(prefix="sm-description-misuse-")
try:
    # 1. an H100 bf16 calibration beside the CPU's description (no bf16 peak) printed a step
    # six times above the part's only peak, exit 0; tf32 beside a T4, bf16 beside a V100 too
    for coeffs, device, p in (("h100-pytorch-bf16", "cpu", "bf16"),
                              ("h100-pytorch-tf32", "t4", "tf32"),
                              ("h100-pytorch-bf16", "v100", "bf16")):
        rc, out, err = run("predict", "resnet50", "--coeffs", coeffs, "--device", device,
                           "--batch", "32")
        one_line_error(rc, err, f"device {device} has no {p} peak", f"{coeffs} beside {device}")
        check(out == "", f"{coeffs} beside {device}: printed {out[:200]}")
    rc, out, err = run("predict", "resnet50", "--coeffs", "h100-pytorch-bf16", "--device", "h100",
                       "--batch", "32")
    check(rc == 0 and "t_step" in out, f"bf16 calibration beside h100: {err.strip()}")

    # 2. -o c.ini --device-out ./c.ini wrote both into one file (the coefficients lost), exit 0
    rc, out, err = run_in(tmp, "fit", CPU_CSV, "--no-weight-term", "-o", "c.ini",
                          "--device-out", "./c.ini")
    one_line_error(rc, err, "-o c.ini and --device-out ./c.ini are one file", "./c.ini")
    check(not os.path.exists(os.path.join(tmp, "c.ini")), "./c.ini: a file was written")
    # 7. ... and one a link to the other was called "the input"
    open(os.path.join(tmp, "real.ini"), "w").close()
    os.symlink("real.ini", os.path.join(tmp, "link.ini"))
    rc, out, err = run_in(tmp, "fit", CPU_CSV, "--no-weight-term", "-o", "real.ini",
                          "--device-out", "link.ini")
    one_line_error(rc, err, "are one file", "--device-out a link to -o")
    check("the input" not in err, f"a link to -o called the input: {err.strip()}")
    check(os.path.getsize(os.path.join(tmp, "real.ini")) == 0, "real.ini written through a link")
    # one file under two names that do not exist yet; two files in two folders stay two
    os.mkdir(os.path.join(tmp, "sub"))
    rc, out, err = run_in(tmp, "fit", CPU_CSV, "--no-weight-term", "-o", "sub/../a.ini",
                          "--device-out", "a.ini")
    one_line_error(rc, err, "are one file", "sub/../a.ini and a.ini")
    rc, out, err = run_in(tmp, "fit", CPU_CSV, "--no-weight-term", "-o", "sub/a.ini",
                          "--device-out", "a.ini")
    check(rc == 0 and os.path.exists(os.path.join(tmp, "sub", "a.ini"))
          and os.path.exists(os.path.join(tmp, "a.ini")), f"sub/a.ini and a.ini: {err.strip()}")

    # 3. architecture = volta (Volta and Turing), tensor cores not named: no TF32 or BF16
    for key in ("peak_tf32_tflops", "peak_bf16_tflops"):
        path, lines = edited(tmp, "v100", drop=("tensor_cores",), add=(f"{key} = 31",))
        rc, out, err = run("predict", "resnet50", "--device", path, "--batch", "8")
        line = lines.index(f"{key} = 31") + 1
        one_line_error(rc, err, f"{path}:{line}: {key}, but architecture = volta", key)
    path, _ = edited(tmp, "v100", drop=("tensor_cores",))
    rc, out, err = run("predict", "resnet50", "--device", path, "--batch", "8", "--precision",
                       "fp16")
    check(rc == 0, f"volta without tensor_cores, fp16: {err.strip()}")

    # 4. memory_gib below the description's own context and workspaces (h100: 790 + 32 + 256
    # MiB) made every batch "does not fit"
    path, lines = edited(tmp, "h100", replace=("memory_gib", "1"))
    rc, out, err = run("predict", "resnet50", "--device", path, "--batch", "8")
    line = lines.index("memory_gib = 1") + 1
    one_line_error(rc, err, f"{path}:{line}: memory_gib = 1 is no more than", "memory_gib = 1")
    path, _ = edited(tmp, "h100", replace=("memory_gib", "1.2"))
    rc, out, err = run("predict", "resnet18", "--device", path, "--batch", "1")
    check(rc == 0, f"memory_gib = 1.2 (room for a small network): {err.strip()}")

    # 5-6. runs whose file name holds a line break or " ;": --device-out failed with "please
    # report it", -o refused after the whole fit; both now write the name escaped
    for name, shown in (("a\nb.csv", "a\\nb.csv"), ("x ;y.csv", "x \\x3by.csv")):
        runs = os.path.join(tmp, name)
        shutil.copy(CPU_CSV, runs)
        rc, out, err = run_in(tmp, "fit", name, "--no-weight-term", "-o", "c.ini",
                              "--device-out", "d.ini")
        check(rc == 0, f"fit {name!r}: exit {rc}: {err.strip()}")
        with open(os.path.join(tmp, "c.ini")) as f:
            text = f.read()
        check(f"source = {shown}\n" in text, f"{name!r}: the coefficient file's source")
        rc, out, err = run("predict", "resnet18", "--coeffs", os.path.join(tmp, "c.ini"),
                           "--batch", "1")
        check(rc == 0, f"{name!r}: the coefficients read back: {err.strip()}")
        rc, out, err = run("predict", "resnet18", "--device", os.path.join(tmp, "d.ini"),
                           "--batch", "1")
        check(rc == 0 and f"keys fitted to {shown})" in out,
              f"{name!r}: the description read back whole: {err.strip()} {out[:300]}")
        os.remove(runs)

    # 8. runs four times faster than an H100: the key capped at 1 is the framework's
    # conv_bwd_efficiency_fp32 (0.921, the largest of the pair and the per-kind keys), which
    # the warning called the fp32 compute efficiency
    with open(H100_FP32) as f:
        rows = list(csv.DictReader(f))
    fast = os.path.join(tmp, "fast.csv")
    with open(fast, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            for k in ("t_infer", "t_fwd", "t_bwd", "t_grad", "t_step"):
                if r.get(k):
                    r[k] = str(float(r[k]) / 4)
            w.writerow(r)
    rc, out, err = run_in(tmp, "fit", fast, "--device-out", "fast.ini")
    m = re.search(r"went faster than \S+ allows: its (\S+) fits", err)
    check(rc == 0 and m and m.group(1) == "conv_bwd_efficiency_fp32",
          f"faster than the part: the key named: {err.strip()}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

finish()
