#!/usr/bin/env python3
"""tools/device_scorecard.py, which docs/accuracy-devices.md comes from: its arithmetic on rows
whose ratios are worked out by hand, and the README's figures against the shipped document.

Usage: test_device_scorecard.py SCALEMETER   (run from the source root)
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, "tools")
import validation_rows  # noqa: E402

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: {got!r}, want {want!r}")


# a throughput predicted high by 5%, one low by 5%, a time predicted 20% short (the model 1.25
# times as fast), and a T4 at 0.8 of its published rate
ROWS = [("h100", 100, 105, "img/s"), ("h100", 200, 190, "seq/s"), ("h100", 10, 8, "ms"),
        ("t4", 50, 40, "img/s")]
check("rate ratio", validation_rows.speed_ratio({"unit": "img/s", "published": 100,
                                                  "predicted": 105}), 1.05)
check("time ratio", validation_rows.speed_ratio({"unit": "ms", "published": 10,
                                                 "predicted": 8}), 1.25)

binary = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    for part, pub, pred, unit in ROWS:
        validation_rows.record(f"Test: {part} {unit}", part, "resnet50", "fp16", 1, 8, pub, pred,
                               unit)
    rows = os.path.join(tmp, "rows.csv")
    validation_rows.write(rows)
    out, data = os.path.join(tmp, "doc.md"), os.path.join(tmp, "doc.csv")
    done = subprocess.run([sys.executable, "tools/device_scorecard.py", "--bin", binary, "--rows",
                           rows, "--out", out, "--csv", data], capture_output=True, text=True)
    check("exit status", done.returncode, 0)
    doc = open(out).read() if os.path.exists(out) else ""
    # h100: ratios 0.95, 1.05, 1.25: median 1.05, two within 10% and 7%; t4: 0.8
    check("h100's row", "| `h100` | 3 | Test | 1.050 | 0.950 | 1.250 | 2 | 2 | yes |" in doc, True)
    check("t4's row", "| `t4` | 1 | Test | 0.800 | 0.800 | 0.800 | 0 | 0 | **no** |" in doc, True)
    check("the total", "4 published figures of 2 parts: 2 within 10%, 2 within 7% (median 1.000, "
          "0.800 to 1.250); 1 of 2 parts' medians in 0.93-1.07, not `t4`." in doc, True)
    check("the CSV's rows", len(open(data).read().splitlines()) if os.path.exists(data) else 0, 5)
    # one configuration on three systems of one container: the spread of what they published
    # (110 / 100) and the model's ratios over them (100 / 110 to 100 / 100); one run of
    # another container is a configuration of its own
    validation_rows._rows.clear()
    for system, pub in (("A", 100), ("B", 105), ("C", 110), ("D", 90)):
        ngc = "24.03" if system != "D" else "22.10"
        validation_rows.record(f"Lambda: {system}, NGC {ngc}", "h100", "resnet50", "fp16", 1, 256,
                               pub, 100, "img/s")
    validation_rows.write(rows)
    done = subprocess.run([sys.executable, "tools/device_scorecard.py", "--bin", binary, "--rows",
                           rows, "--out", out, "--csv", data], capture_output=True, text=True)
    doc = open(out).read() if done.returncode == 0 else ""
    spread = doc[doc.find("## How far"):doc.find("## The")]
    check("the spread's row", "| Lambda, NGC 24.03 | `h100` | resnet50 | fp16 | 1 | 3 | 1.100 | "
          "0.909-1.000 |" in spread, True)
    check("one run is no spread", "NGC 22.10" in spread, False)
    # a part no description ships is refused
    validation_rows._rows.clear()
    validation_rows.record("Test", "no-such-gpu", "resnet50", "fp16", 1, 8, 1, 1, "img/s")
    validation_rows.write(rows)
    done = subprocess.run([sys.executable, "tools/device_scorecard.py", "--bin", binary, "--rows",
                           rows, "--out", out, "--csv", data], capture_output=True, text=True)
    check("unknown part refused", (done.returncode, "no-such-gpu" in done.stderr), (1, True))

# the README quotes the shipped document's total
with open("docs/accuracy-devices.md") as f:
    total = re.search(r"^([0-9]+) published figures of ([0-9]+) parts: ([0-9]+) within 10%.*?"
                      r"([0-9]+) of \2 parts' medians in 0.93-1.07", f.read(), re.M)
with open("README.md") as f:
    readme = " ".join(f.read().split())
check("the document's total", bool(total), True)
if total:
    n, parts, w10, band = total.groups()
    want = f"{w10} of {n} published figures within 10%, {band} of {parts} parts' median ratios"
    check("the README's scorecard", want in readme, True)

for f in failures:
    print("FAIL", f)
print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
