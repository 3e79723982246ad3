#!/usr/bin/env python3
"""kv_cache=true (attention, gqa_attention): the keys and values Hugging Face's causal LMs return
at inference, alive to the pass's end (plugin ABI 21's infer_kept_elems), in `predict`'s
inference memory; by hand.

Two self-attention layers of E 64 over S 16 at batch 2, predicted on the h100 description: the
inference peak comes while the second runs, when the first's keys and values are alive beside
it, so the cache adds the first layer's alone (the second's are among its own tensors while it
runs either way):

- packed (GPT-2's c_attn, whose views keep the whole output): 3 S E x 2 x 4 bytes = 24,576
- packed=false (OPT's copies): 2 S E x 2 x 4 = 16,384; at bf16, 2 bytes each: 8,192
- gqa_attention of 4 heads over 1 key/value head (Llama's, its rotated keys and its values
  before repeat_kv): 2 S E_kv, E_kv = 64 / 4 = 16: 2 x 16 x 16 x 2 x 4 = 4,096

Training's memory is unchanged (autograd keeps them for the backward pass anyway). And a bad
value is refused naming the file and line.

`predict --kv-cache` reads every attention layer so, whatever its line says: the same
memory as kv_cache=true written on each (kv_cache=false on the line included), said in the
JSON; the zoo's gpt2 at batch 1 adds its 12 layers' 3 x 1024 x 768 x 4 bytes = 113,246,208 (the
presents PyTorch's allocator counts, tests/data/reference/kv_cache.json). An attention type that takes no kv_cache (window_attention, Swin's) is refused
naming the option and the layer; a network without attention is refused naming the option
(it has no keys and values to return).

Usage: test_kv_cache_cli.py SCALEMETER   (run from the source root)
"""
import json
import os
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: {got!r}, want {want!r}")


def memory(tmp, layer, cache, *extra):
    """predict's memory (training) and memory_infer for two layers of `layer`; cache a
    kv_cache value written on each line ("" none; True for "true")."""
    path = os.path.join(tmp, "net.ini")
    kv = " kv_cache=" + ("true" if cache is True else cache) if cache else ""
    with open(path, "w") as f:
        f.write(f"[network]\nname = two\ninput = 16x64\n\n[layers]\n"
                f"a = {layer}{kv}\nb = {layer}{kv}\n")
    p = subprocess.run([BIN, "predict", path, "--device", "h100", "-g", "1", "--batch", "2",
                        "--format", "json", *extra], capture_output=True, text=True)
    if p.returncode:
        failures.append(f"predict {layer}{kv} {extra}: {p.stderr.strip()}")
        return {"activations": 0}, {"activations": 0}
    d = json.loads(p.stdout)
    return d["memory"], d["memory_infer"]


with tempfile.TemporaryDirectory() as tmp:
    for layer, extra, want in [
            ("attention dim=64 heads=4 causal=true", (), 24576),
            ("attention dim=64 heads=4 causal=true packed=false", (), 16384),
            ("attention dim=64 heads=4 causal=true packed=false", ("--precision", "bf16"), 8192),
            ("gqa_attention dim=64 heads=4 kv_heads=1", (), 4096)]:
        train_kv, infer_kv = memory(tmp, layer, True, *extra)
        train, infer = memory(tmp, layer, False, *extra)
        check(f"{layer} {extra}: inference", infer_kv["activations"] - infer["activations"], want)
        check(f"{layer} {extra}: training", train_kv["activations"], train["activations"])

    # --kv-cache: as written on every line, kv_cache=false included
    for layer, extra in [("attention dim=64 heads=4 causal=true", ()),
                         ("gqa_attention dim=64 heads=4 kv_heads=1", ("--precision", "bf16"))]:
        _, written = memory(tmp, layer, True, *extra)
        for line in ("", "false"):
            _, switched = memory(tmp, layer, line, "--kv-cache", *extra)
            check(f"{layer} kv_cache={line} --kv-cache", switched["activations"],
                  written["activations"])

    def zoo(*args):
        p = subprocess.run([BIN, *args, "--device", "h200", "-g", "1", "--precision", "fp32",
                            "--format", "json"], capture_output=True, text=True)
        if p.returncode:
            failures.append(f"{args}: exit {p.returncode}: {p.stderr.strip()}")
            return {}
        return json.loads(p.stdout)
    plain, cached = zoo("predict", "gpt2", "--batch", "1"), zoo("predict", "gpt2", "--batch",
                                                                 "1", "--kv-cache")
    if plain and cached:
        check("gpt2 --kv-cache: inference", cached["memory_infer"]["activations"] -
              plain["memory_infer"]["activations"], 113246208)
        check("gpt2 --kv-cache: training", cached["memory"], plain["memory"])
        check("gpt2: JSON kv_cache", (plain["kv_cache"], cached["kv_cache"]), (False, True))
    # a network without attention has no keys and values to return: refused, where before
    # its memory_infer line said they were in it
    p = subprocess.run([BIN, "predict", "resnet18", "--device", "h100", "--batch", "2",
                        "--kv-cache"], capture_output=True, text=True)
    if (p.returncode != 2 or p.stdout or "scalemeter predict: --kv-cache: resnet18 has no "
            "attention layer" not in p.stderr):
        failures.append(f"--kv-cache on resnet18: exit {p.returncode}, {p.stderr.strip()}")
    path = os.path.join(tmp, "swin.ini")
    with open(path, "w") as f:
        f.write("[network]\nname = swin\ninput = 3x56x56\n\n[layers]\n"
                "embed = conv2d out=96 kernel=4 stride=4\n"
                "attn = window_attention dim=96 heads=3 window=7\n")
    p = subprocess.run([BIN, "predict", path, "--device", "h100", "--batch", "2", "--kv-cache"],
                       capture_output=True, text=True)
    if (p.returncode == 0 or not p.stderr.startswith("scalemeter predict: --kv-cache: ") or
            f"{path}:7" not in p.stderr or "window_attention" not in p.stderr):
        failures.append(f"--kv-cache on window_attention: exit {p.returncode}, "
                        f"{p.stderr.strip()}")

    path = os.path.join(tmp, "bad.ini")
    with open(path, "w") as f:
        f.write("[network]\nname = bad\ninput = 16x64\n\n[layers]\n"
                "a = attention dim=64 heads=4 kv_cache=maybe\n")
    p = subprocess.run([BIN, "predict", path, "--device", "h100", "--batch", "2"],
                       capture_output=True, text=True)
    if p.returncode == 0 or f"{path}:6" not in p.stderr or "kv_cache" not in p.stderr:
        failures.append(f"kv_cache=maybe: exit {p.returncode}, {p.stderr.strip()}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("test_kv_cache_cli: all checks passed")
