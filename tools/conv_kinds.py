#!/usr/bin/env python3
"""The fractions of the peak eager PyTorch's convolutions reach on Hopper, by kind and pass, from
the per-op profiles of the H100 and the H200 (configs/calibrations/h{100,200}-pytorch-layers/,
tools/torch_layer_profile.py): the h100 and h200 descriptions' [framework]
conv_fwd_efficiency_P, conv_bwd_efficiency_P, conv1x1_fwd_efficiency_P and
conv1x1_bwd_efficiency_P (docs/devices.md, "Eager PyTorch on Hopper").

    tools/conv_kinds.py [--bin build/bin/scalemeter] [--write | --check]

For each precision profiled (fp32 with TF32 off, tf32, bf16, fp16), kind (dense k x k, 1 x 1, as
tools/op_table.py classes them) and pass (forward, backward), the kernel time measured over
every profiled point of both parts, against the model's device time for the same layers
(`predict --per-layer`, each layer's time less the host's dispatch in it): each key is scaled by
price over measured, and the prices taken again, until every class is within 1% of its measured
time (a convolution's price is not its arithmetic alone: at bf16 the transposes cuDNN runs
around it are priced too, and a stem and a bias by their own keys, tools/stem_rates.py, so one
scaling does not land), or at the most a key takes (on
tensor cores the description's compute_efficiency_P, its matrix products'): at bf16 the 1 x 1
ones' forward stops there, the transposes priced around them more than ran. The two parts are pooled: their
convolutions ran within 1-6% of each other (docs/ops-h100-h200.md). --write puts the keys into
both descriptions; --check exits 1 where the shipped keys are not what the profiles give (to
their three digits). Standard library only; a minute or two.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpus_validation  # noqa: E402  (a description's keys)
import op_ratio  # noqa: E402  (the profiles of both parts and the model's prices)
import op_table  # noqa: E402  (the op classes)

ROOT = op_table.ROOT
PARTS = ("h100", "h200")
PRECISIONS = ("fp32", "tf32", "bf16", "fp16")
KINDS = {"conv dense kxk": "conv", "conv 1x1": "conv1x1"}
PASSES = ("fwd", "bwd")
TOLERANCE = 0.01
ROUNDS = 30


def key(cls, phase, precision):
    return f"{KINDS[cls]}_{phase}_efficiency_{precision}"


def description(part):
    return os.path.join(ROOT, "configs", "devices", part + ".ini")


# the keys' home: the framework both parts' descriptions start from ([framework] base)
FRAMEWORK = os.path.join(ROOT, "configs", "frameworks", "pytorch-eager-hopper.ini")


def matmul_efficiency(path, precision):
    """The most a convolution's key takes: on tensor cores the description's
    compute_efficiency_P (its matrix products'), which a convolution, an implicit or plain
    matrix product to cuDNN, does not pass; with TF32 off the peak itself, as cuDNN's Winograd
    and FFT kernels do fewer multiplies than the direct FLOPs the model counts."""
    if precision == "fp32":
        return 1.0
    return gpus_validation.fitted_keys(path).get(f"compute_efficiency_{precision}", 1.0)


def read_keys(path):
    """{key: value} of the kind keys a description gives."""
    return {k: v for k, v in gpus_validation.fitted_keys(path).items()
            if re.fullmatch(r"conv(1x1)?_(fwd|bwd)_efficiency_\w+", k)}


def set_key(text, key, value, src):
    """text with key's line set to value; in a description whose [framework] starts from a
    base that gives it, a line after the base's, which replaces the base's value."""
    text, n = re.subn(rf"(?m)^{key}\s*=\s*[\d.]+", f"{key} = {value}", text)
    if n == 0:
        text, n = re.subn(r"(?m)^(base\s*=.*)$", lambda m: f"{m.group(1)}\n{key} = {value}",
                          text, count=1)
    if n != 1:
        sys.exit(f"conv_kinds: {src} has no line `{key} = ...` to set")
    return text


def write_keys(src, dst, keys):
    """src's text with each kind key's value replaced; in a description whose [framework]
    starts from a base that gives them, each set after the base's line, replacing its value."""
    with open(src) as f:
        text = f.read()
    for k, v in keys.items():
        text = set_key(text, k, f"{v:.3f}", src)
    with open(dst, "w") as f:
        f.write(text)


def measured(precision):
    """{part: {(model, batch): {...}}} of the parts that profiled the precision."""
    return {p: m for p in PARTS if (m := op_ratio.profiles(ROOT, p, precision))}


def ratios(binary, paths, meas, precision, classes):
    """{(class, phase): measured over priced} summed over every point of both parts."""
    sums = {(c, ph): [0.0, 0.0] for c in KINDS for ph in PASSES}
    for part, points in meas.items():
        for (model, batch), got in points.items():
            price = op_ratio.priced(binary, paths[part], model, batch, precision,
                                    classes[model])
            for c, ph in sums:
                sums[c, ph][0] += got.get((ph, c, "kernel"), 0.0)
                sums[c, ph][1] += price.get((ph, c), 0.0)
    return {k: m / p for k, (m, p) in sums.items() if p > 0 and m > 0}


def derive(binary, bases=None):
    """({key: value}, {key: measured over priced at that value}) for every precision
    profiled: the shipped keys where they price every class within TOLERANCE. bases: {part:
    the description to start from} (default the shipped ones; tools/conv_pass.py gives its
    own)."""
    bases = bases or {p: description(p) for p in PARTS}
    keys = read_keys(bases["h100"])
    last = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {p: os.path.join(tmp, p + ".ini") for p in PARTS}
        for precision in PRECISIONS:
            meas = measured(precision)
            if not meas:
                continue
            models = sorted({m for pts in meas.values() for m, _ in pts})
            classes = {m: op_table.model_classes(binary, m) for m in models}
            top = matmul_efficiency(bases["h100"], precision)
            for _ in range(ROUNDS):
                for part in PARTS:
                    write_keys(bases[part], paths[part], keys)
                got = ratios(binary, paths, meas, precision, classes)
                for (c, ph), r in got.items():
                    last[key(c, ph, precision)] = r
                at_top = {k for k, v in keys.items() if k.endswith(precision) and v >= top}
                if all(abs(r - 1) <= TOLERANCE or (r < 1 and key(c, ph, precision) in at_top)
                       for (c, ph), r in got.items()):
                    break
                for (c, ph), r in got.items():
                    k = key(c, ph, precision)
                    keys[k] = min(top, keys[k] / r)
    return keys, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="set the keys in pytorch-eager-hopper.ini")
    what.add_argument("--check", action="store_true",
                      help="exit 1 where the shipped keys differ from what the profiles give")
    a = ap.parse_args()
    if not shutil.which(a.bin) and not os.access(a.bin, os.X_OK):
        sys.exit(f"conv_kinds: no scalemeter at {a.bin} (build first, or give --bin)")
    keys, last = derive(a.bin)
    shipped = read_keys(description("h100"))
    differ = []
    for k in sorted(keys):
        note = f"  (measured / priced: {last[k]:.3f})" if k in last else ""
        print(f"{k} = {keys[k]:.3f}{note}")
        if round(keys[k], 3) != round(shipped[k], 3):
            differ.append(k)
    if a.write:
        write_keys(FRAMEWORK, FRAMEWORK, keys)
        print("wrote", FRAMEWORK)
    elif a.check and differ:
        print("conv_kinds: the shipped keys differ from the profiles':", ", ".join(differ),
              "(tools/conv_kinds.py --write)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
