#!/usr/bin/env python3
"""The device time a dense convolution's kernel takes beyond its arithmetic, from the per-op
profiles of the H100 and the H200 (configs/calibrations/h{100,200}-pytorch-layers/): the
`[framework] conv_pass_us` of the h100 and h200 descriptions and pytorch-eager-kernels.ini.

    tools/conv_pass.py [--bin build/bin/scalemeter] [--write | --check]

A convolution runs its K loop (input channels x taps) tile by tile; the pipeline's fill and
drain cost the same whatever the number of tiles, so a large convolution hides them over many
waves and a small one does not: one efficiency a kind (tools/conv_kinds.py) priced ResNet's and
GoogLeNet's small 3 x 3 convolutions at half their time and VGG's large ones at 1.4 times it.
For each whole number of microseconds from 0 to 12, the kinds are refitted at it
(conv_kinds.derive, each class's total time matched again) and every dense convolution's
forward pass (the kernels of its module's ops: the convolution, cuDNN's transposes, autocast's
casts; stems are direct kernels of their own, tools/stem_rates.py) is priced
(`predict --per-layer`, the layer's time less the host's dispatch in it) against its measured
time, at every profiled point and precision of both parts. The value whose prices have the
least root mean square of log(measured / priced) is the key's. Only forward passes: the
backward pass's ops carry no module, so its kernels cannot be told apart by layer (the key
counts two kernels a backward pass, the data and the weight gradients). --write puts it into
the three files (and the kinds refitted at it into both descriptions); --check exits 1 where
the shipped value is not the best of it and its two neighbours. Standard library only.

The device's own time a kernel (kernel_device_us, which tools/op_table.py takes from the H200's
busy time less the prices: docs/ops-h200.md) falls as the convolutions take their share of that
time, and the stems' and layer norms' rates (tools/stem_rates.py, tools/rownorm_rates.py) are
fitted less it: the shipped values are the fixed point of the four taken in turn (10 us a pass,
0.6 us a kernel; from 0 and 2.3 it took three rounds).
"""
import argparse
import math
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conv_kinds  # noqa: E402  (the kinds refitted at each value)
import op_table  # noqa: E402  (the op classes, scalemeter's JSON)

ROOT = op_table.ROOT
FILES = ("configs/frameworks/pytorch-eager-hopper.ini",
         "configs/frameworks/pytorch-eager-kernels.ini")
CANDIDATES = range(0, 13)
DENSE = ("conv dense kxk", "conv 1x1")


def measured_forward():
    """{(part, precision, model, batch): {module: forward kernel us}} of every profile."""
    out = {}
    for part in conv_kinds.PARTS:
        folder = os.path.join(ROOT, "configs", "calibrations", f"{part}-pytorch-layers")
        for precision in conv_kinds.PRECISIONS:
            path = os.path.join(folder, f"{precision}.csv.gz")
            if not os.path.exists(path):
                continue
            # one step a point: the medians, or the first where the steps differed
            for (model, batch), steps in op_table.load(path).items():
                point = out.setdefault((part, precision, model, batch), {})
                for r in steps[0].get("fwd", []):
                    if r["module"]:
                        point[r["module"]] = point.get(r["module"], 0.0) + \
                            float(r["kernel_us"] or 0)
    return out


def stems(binary, model):
    """The model's stems: dense convolutions over 4 input channels or fewer
    (sm_layer_is_stem)."""
    return {name for name, (_, groups, per_group) in op_table.conv_shapes(binary, model).items()
            if groups == 1 and per_group <= 4}


def log_errors(binary, paths, meas, classes, stem):
    """log(measured / priced) of every dense convolution's forward pass."""
    errs = []
    for (part, precision, model, batch), got in meas.items():
        layers = op_table.run(binary, "predict", model, "--device", paths[part], "-g", "1",
                              "--batch", str(batch), "--image", "224", "--precision", precision,
                              "--per-layer", "--format", "json")["layers"]
        for l in layers:
            name = l["layer"]
            if classes[model].get(name) not in DENSE or name in stem[model] or name not in got:
                continue
            price = (l["t_fwd"] - l["host_fwd"]) * 1e6
            if price > 0 and got[name] > 0:
                errs.append(math.log(got[name] / price))
    return errs


def with_value(text, us, path):
    return conv_kinds.set_key(text, "conv_pass_us", f"{us:g}", path)


def evaluate(binary, us, meas, classes, stem, tmp):
    """(rms of the log errors, the kinds refitted) with conv_pass_us = us."""
    paths = {}
    for part in conv_kinds.PARTS:
        with open(conv_kinds.description(part)) as f:
            text = with_value(f.read(), us, conv_kinds.description(part))
        paths[part] = os.path.join(tmp, f"{part}-{us}.ini")
        with open(paths[part], "w") as f:
            f.write(text)
    keys, _ = conv_kinds.derive(binary, paths)
    for part in conv_kinds.PARTS:
        conv_kinds.write_keys(paths[part], paths[part], keys)
    errs = log_errors(binary, paths, meas, classes, stem)
    return math.sqrt(sum(e * e for e in errs) / len(errs)), keys, len(errs)


def shipped_value():
    values = set()
    for path in FILES:
        with open(os.path.join(ROOT, path)) as f:
            m = re.search(r"(?m)^conv_pass_us\s*=\s*([\d.]+)", f.read())
        if not m:
            sys.exit(f"conv_pass: {path} has no line `conv_pass_us = ...`")
        values.add(float(m.group(1)))
    if len(values) != 1:
        sys.exit(f"conv_pass: the files give different values: {sorted(values)}")
    return values.pop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="set the key in the two files")
    what.add_argument("--check", action="store_true",
                      help="exit 1 where the shipped value is not the best of it and its "
                           "neighbours")
    a = ap.parse_args()
    if not shutil.which(a.bin) and not os.access(a.bin, os.X_OK):
        sys.exit(f"conv_pass: no scalemeter at {a.bin} (build first, or give --bin)")
    meas = measured_forward()
    models = sorted({k[2] for k in meas})
    classes = {m: op_table.model_classes(a.bin, m) for m in models}
    stem = {m: stems(a.bin, m) for m in models}
    shipped = shipped_value()
    candidates = [shipped - 1, shipped, shipped + 1] if a.check else list(CANDIDATES)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for us in candidates:
            if us < 0:
                continue
            rms, keys, n = evaluate(a.bin, us, meas, classes, stem, tmp)
            results[us] = (rms, keys)
            print(f"conv_pass_us = {us:g}: rms log error {rms:.4f} over {n} forward passes")
    best = min(results, key=lambda us: results[us][0])
    print(f"best: conv_pass_us = {best:g}")
    if a.write:
        for path in FILES:
            full = os.path.join(ROOT, path)
            with open(full) as f:
                text = with_value(f.read(), best, full)
            with open(full, "w") as f:
                f.write(text)
        conv_kinds.write_keys(conv_kinds.FRAMEWORK, conv_kinds.FRAMEWORK, results[best][1])
        print("wrote", ", ".join(FILES))
    elif a.check and best != shipped:
        print(f"conv_pass: the profiles give conv_pass_us = {best:g}, the files {shipped:g} "
              "(tools/conv_pass.py --write)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
