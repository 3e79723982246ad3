#!/usr/bin/env python3
"""Every zoo network's activation memory against PyTorch's own record of what autograd keeps
(tests/data/reference/saved_tensors.json, made by tools/torch_saved_tensors.py with PyTorch
1.13 on the CPU, train mode, unique storages, parameters and buffers left out), at the
reference's two batch sizes: within 3% each (the issue's target). The comparison runs
`scalemeter predict --device cpu`, the description of a CPU, whose framework keeps PyTorch's
CPU dropout mask (a float, as the reference's runs did) and fp32 activations.

Also the inference peak where the reference measured one: the model's live-tensor peak is an
upper bound of the kind the allocator reaches; reported, not asserted (docs/memory.md).

usage: test_memory_zoo.py SCALEMETER [--report]   (run from the source root)
"""
import json
import subprocess
import sys

SM = sys.argv[1]
REPORT = "--report" in sys.argv
ref = json.load(open("tests/data/reference/saved_tensors.json"))
failures, checks, rows = [], 0, []
for name, model in sorted(ref["models"].items()):
    # images at the reference's size; sequences at their own length (the file's default)
    image = ref["image"] if model["input"].startswith("image") else None
    for batch, r in sorted(model["batches"].items(), key=lambda kv: int(kv[0])):
        args = [SM, "predict", name, "--device", "cpu", "--batch", batch, "--format", "json"]
        if image:
            args += ["--image", str(image)]
        p = subprocess.run(args, capture_output=True, text=True)
        checks += 1
        if p.returncode != 0:
            failures.append(f"{name} batch {batch}: {p.stderr.strip()}")
            continue
        got = json.loads(p.stdout)["memory"]["activations"]
        want = r["saved_bytes"]
        err = got / want - 1
        rows.append((name, batch, want, got, err))
        if abs(err) > 0.03:
            failures.append(f"{name} batch {batch}: {got:.0f} bytes, PyTorch {want} "
                            f"({err * 100:+.2f}%)")
if REPORT:
    print("| network | batch | PyTorch (bytes) | scalemeter | error |\n|---|---|---|---|---|")
    for name, batch, want, got, err in rows:
        print(f"| {name} | {batch} | {want:,} | {got:,.0f} | {err * 100:+.2f}% |")
for f in failures:
    print("FAIL:", f, file=sys.stderr)
worst = max(rows, key=lambda r: abs(r[4])) if rows else None
if worst:
    print(f"worst: {worst[0]} batch {worst[1]}: {worst[4] * 100:+.4f}%", file=sys.stderr)
print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
