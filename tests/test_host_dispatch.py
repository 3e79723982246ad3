#!/usr/bin/env python3
"""tools/torch_host_dispatch.py, the probe of the host's price per module call and per kernel,
run for a few passes on the CPU: a row per module with the kernels each training pass launches
(PyTorch's own ops, counted as tools/torch_eager_bytes.py counts them: Llama's RMSNorm 6 and
14, SwiGLU 5 and 10, GPT-2's composite GELU 8 and 11, nn.Linear 1 and 3 with a bias and 1 and 2
without, as tests/test_conformance_torch.py --derive gives for the plugins' cases) and finite
host times; and its least-squares fit recovering a line it is given. No time is asserted: the
probe's figures are what a GPU node measures (docs/gpu.md's checklist).

usage: test_host_dispatch.py   (run from the source root by Debian's /usr/bin/python3;
                                skipped, 77, without torch)
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

try:
    import torch  # noqa: F401
    import torchvision  # noqa: F401
except ImportError as e:
    print(f"SKIP: {e} (Debian's python3-torchvision)")
    sys.exit(77)

sys.path.insert(0, "tools")
import torch_host_dispatch  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


a, b = torch_host_dispatch.fit([(1, 15.0), (6, 40.0), (14, 80.0)])
check(abs(a - 10.0) < 1e-9 and abs(b - 5.0) < 1e-9, f"fit of 10 + 5 k: {a}, {b}")

WANT = {"rmsnorm": (6, 14), "swiglu": (5, 10), "gelu_composite": (8, 11), "linear": (1, 3),
        "linear_nobias": (1, 2), "relu": (1, 1)}
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "host.csv")
    p = subprocess.run([sys.executable, "tools/torch_host_dispatch.py", "--reps", "3",
                        "--rounds", "1", "-o", out], capture_output=True, text=True)
    check(p.returncode == 0, f"exit {p.returncode}: {p.stderr.strip()}")
    check("us a module call" in p.stderr and "us a kernel" in p.stderr,
          f"no fit printed: {p.stderr.strip()}")
    rows = list(csv.DictReader(open(out))) if os.path.exists(out) else []
    names = [r["module"] for r in rows]
    check(len(rows) == len(torch_host_dispatch.modules()), f"{len(rows)} rows: {names}")
    for r in rows:
        check(r["device"] == "cpu", f"{r['module']}: device {r['device']}")
        for key in ("host_fwd_us", "host_bwd_us"):
            check(math.isfinite(float(r[key])), f"{r['module']}: {key} {r[key]}")
        if r["module"] in WANT:
            got = (int(r["kernels_fwd"]), int(r["kernels_bwd"]))
            check(got == WANT[r["module"]], f"{r['module']}: kernels {got}, "
                  f"PyTorch's {WANT[r['module']]}")
    check(set(WANT) <= set(names), f"modules missing: {set(WANT) - set(names)}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("test_host_dispatch: all checks passed")
