#!/usr/bin/env python3
"""The keys and values GPT-2 returns at inference (Hugging Face's use_cache), against PyTorch:
tests/data/reference/kv_cache.json holds the CPU allocator's inference peak of GPT-2 small
(transformers 4.25's code, fp32, 1024 positions) without and with every layer's present
returned (tools/torch_kv_cache.py). scalemeter's inference memory of the zoo's gpt2 with
kv_cache=true on its attention layers, less without, must add what PyTorch's peak added, within
0.5% (here: 12 layers x 3 x 1024 x 768 x 4 bytes a sequence, the c_attn outputs the returned
views keep, 113,246,208 a sample: the peak, at the LM head, holds every layer's). The peaks
themselves are reported, not asserted (docs/memory.md: the model's live-tensor peak is of the
kind the allocator reaches).

Usage: test_kv_cache_reference.py SCALEMETER   (run from the source root)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
failures = []


def infer_activations(net, batch):
    p = subprocess.run([BIN, "predict", net, "--device", "cpu", "--batch", str(batch),
                        "--format", "json"], capture_output=True, text=True)
    if p.returncode:
        failures.append(f"predict {net} --batch {batch}: {p.stderr.strip()}")
        return 0.0
    return json.loads(p.stdout)["memory_infer"]["activations"]


with open("models/gpt2.ini") as f:
    zoo = f.read()
# kv_cache=true on the attention line, before its comment
cached, n = re.subn(r"^(attn = attention [^;\n]*?)(\s*;.*)?$",
                    lambda m: m.group(1) + " kv_cache=true" + (m.group(2) or ""), zoo,
                    flags=re.M)
if n != 1:
    failures.append(f"models/gpt2.ini: {n} attention lines, want 1")
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "gpt2_kv_cache.ini")
    with open(path, "w") as f:
        f.write(cached)
    with open("tests/data/reference/kv_cache.json") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    # the CPU's fp32 passes, which predict --device cpu prices
    rows = [r for r in rows if r.get("device", "cpu") == "cpu" and
            r.get("dtype", "float32") == "float32"]
    if not rows:
        failures.append("kv_cache.json: no rows")
    for r in rows:
        b = r["batch"]
        measured = r["peak_bytes_with_cache"] - r["peak_bytes_without_cache"]
        without, with_kv = infer_activations("models/gpt2.ini", b), infer_activations(path, b)
        model = with_kv - without
        print(f"gpt2 batch {b}: peak without {without:.0f} (PyTorch "
              f"{r['peak_bytes_without_cache']}), with {with_kv:.0f} "
              f"({r['peak_bytes_with_cache']}); the cache adds {model:.0f} ({measured})")
        if abs(model - measured) > 0.005 * measured:
            failures.append(f"batch {b}: the model's cache adds {model:.0f} bytes, PyTorch's "
                            f"peak {measured}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("test_kv_cache_reference: all checks passed")
