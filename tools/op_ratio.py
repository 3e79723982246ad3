#!/usr/bin/env python3
"""The H100 beside the H200, op class by op class: the per-op profiles of eager PyTorch on both
(configs/calibrations/h100-pytorch-layers/ and h200-pytorch-layers/, tools/torch_layer_profile.py)
at the points both ran, kernel time summed by op class and phase as tools/op_table.py classes
them, H100 over H200. Writes docs/ops-h100-h200.md.

    tools/op_ratio.py [--out docs/ops-h100-h200.md]

Why: the two parts have the same 132 SMs and the same boost clock, and the H100 has 0.70 times
the H200's memory bandwidth (3.35 against 4.8 TB/s, datasheets), so a class whose kernels are
bound by the DRAM comes out near 1.43 and one bound by the SMs near 1.0 (docs/gpu.md, checklist
step 7). Which classes the model should price by bytes over bandwidth follows. The SM clocks the
leases sampled (tests/data/gpu-runs/*/clocks*.csv) say whether the clocks were equal.
Standard library only; a few seconds.
"""
import argparse
import csv
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_table  # noqa: E402  (the profiles' reader and the op classes)
import transpose_rates  # noqa: E402  (cuDNN's transposes by kind)

ROOT = op_table.ROOT
PARTS = ("h100", "h200")
BANDWIDTH = {"h100": 3.35e12, "h200": 4.8e12}  # bytes/s, NVIDIA's datasheets (SXM)
DRAM_RATIO = BANDWIDTH["h200"] / BANDWIDTH["h100"]
PHASES = ("fwd", "bwd", "infer")
# the classes tabulated: the priced ones, then the optimizer's and autocast's kernels
CLASSES = op_table.PRICED + ("autocast casts", "AccumulateGrad", "SGD step", "zero_grad")
# the model's prices beside the profiles: the descriptions' form before the rebuild, the SM
# prices of pytorch-eager-kernels, and the descriptions' own (None: no --framework)
FORMS = (("added", "pytorch-eager-cudnn8"), ("kernels", "pytorch-eager-kernels"), ("rebuilt", None))
MIN_US = 200.0  # a class's kernel time at a point under this is left out of its ratios (noise)


def profiles(root, part, precision):
    """{(model, batch): {key: median over the profiled steps}}, or {} where none ran."""
    folder = os.path.join(root, "configs", "calibrations", f"{part}-pytorch-layers")
    if not os.path.exists(os.path.join(folder, f"{precision}.csv.gz")):
        return {}
    return op_table.measure(precision, folder)


def busy_clocks(root, part):
    """The SM clocks (MHz) sampled under load (power above 250 W) in the part's leases."""
    mhz = []
    for path in sorted(glob.glob(os.path.join(root, "tests", "data", "gpu-runs", f"{part}-*",
                                              "clocks*.csv"))):
        with open(path, newline="") as f:
            for row in csv.reader(f):
                try:
                    sm, watts = float(row[1].split()[0]), float(row[3].split()[0])
                except (IndexError, ValueError):
                    continue
                if watts > 250:
                    mhz.append(sm)
    return mhz


def class_ratios(h100, h200, points, phase, cls):
    """(H100 total us, H200 total us, [per-point ratios]) of a class over the points."""
    a = b = 0.0
    per = []
    for p in points:
        x = h100[p].get((phase, cls, "kernel"), 0.0)
        y = h200[p].get((phase, cls, "kernel"), 0.0)
        a, b = a + x, b + y
        if x >= MIN_US and y >= MIN_US:
            per.append(x / y)
    return a, b, per


def fmt_range(per):
    return f"{min(per):.2f}-{max(per):.2f}" if per else "-"


def table_for(precision, h100, h200, points):
    nets = sorted({p[0] for p in points})
    md = op_table.para(f"{len(points)} point{'s' if len(points) > 1 else ''}: " + ", ".join(
        f"{op_table.PRETTY.get(n, n)} at batch " +
        " and ".join(str(p[1]) for p in points if p[0] == n) for n in nets) + ", image 224.")
    md += ["", "| class | phase | H100 ms | H200 ms | H100 / H200 | points' range |",
           "|---|---|---:|---:|---:|---:|"]
    rows = []
    for cls in CLASSES:
        for phase in PHASES:
            a, b, per = class_ratios(h100, h200, points, phase, cls)
            if b < MIN_US * len(points) / 4:
                continue
            rows.append((cls, phase, a, b, per))
            md.append(f"| {cls} | {phase} | {a / 1e3:.1f} | {b / 1e3:.1f} | {a / b:.2f} | "
                      f"{fmt_range(per)} |")
    for phase in PHASES:
        a, b, per = class_ratios(h100, h200, points, phase, "all")
        if b <= 0:  # a phase the profiles do not hold
            continue
        md.append(f"| **all kernels** | {phase} | {a / 1e3:.1f} | {b / 1e3:.1f} | {a / b:.2f} | "
                  f"{fmt_range(per)} |")
    md += [""] + op_table.para("Per network, the training step's kernels (forward, backward, "
                              "optimizer) and the step's windows (host and GPU together, under "
                              "the profiler):") + ["",
           "| network | batch | kernels H100 / H200 | window H100 / H200 |", "|---|---:|---:|---:|"]
    for p in points:
        k = [sum(part[p].get((ph, "all", "kernel"), 0.0) for ph in ("fwd", "bwd", "opt"))
             for part in (h100, h200)]
        w = [sum(part[p].get((ph, "window"), 0.0) for ph in ("fwd", "bwd", "opt"))
             for part in (h100, h200)]
        if k[1] > 0 and w[1] > 0:
            md.append(f"| {op_table.PRETTY.get(p[0], p[0])} | {p[1]} | {k[0] / k[1]:.2f} | "
                      f"{w[0] / w[1]:.2f} |")
    return md, rows


def bn_channels(h100, h200, points):
    """Training batch norm's forward kernel time by channel bucket, H100 over H200."""
    buckets = sorted({k[2] for p in points for k in h200[p]
                      if len(k) == 4 and k[:2] == ("fwd", "bn channels")})
    md = ["| channels | elements (H200 points) | H100 / H200 |", "|---:|---:|---:|"]
    for c in buckets:
        key = ("fwd", "bn channels", c, "kernel")
        a = sum(h100[p].get(key, 0.0) for p in points)
        b = sum(h200[p].get(key, 0.0) for p in points)
        n = sum(h200[p].get(("fwd", "bn channels", c, "elems"), 0.0) for p in points)
        if a > 0 and b > 0:
            md.append(f"| {c}-{2 * c - 1} | {n / 1e6:.0f} M | {a / b:.2f} |")
    return md


def priced(binary, part, model, batch, precision, classes, framework=None):
    """{(phase, class): us} of the model's device time per class (each layer's time less the
    host's dispatch in it; classes: op_table.model_classes) for the part's description, under
    its own framework or another."""
    args = ["predict", model, "--device", part, "-g", "1", "--batch", str(batch), "--image",
            "224", "--precision", precision, "--format", "json", "--per-layer"]
    args += ["--framework", framework] if framework else []
    out = {}
    for layer in op_table.run(binary, *args)["layers"]:
        for phase in PHASES:
            key = (phase, classes[layer["layer"]])
            out[key] = out.get(key, 0.0) + (layer["t_" + phase] - layer["host_" + phase]) * 1e6
    return out


def summed_prices(binary, part, points, precision, classes, framework=None):
    """{(phase, class): us} of priced() summed over the points (model, batch)."""
    out = {}
    for model, batch in points:
        for k, v in priced(binary, part, model, batch, precision, classes[model],
                           framework).items():
            out[k] = out.get(k, 0.0) + v
    return out


def prices_section(binary, summary):
    """Measured kernel time over the model's price, per class and phase, on both parts, with
    the descriptions' own framework and with pytorch-eager-kernels."""
    md = ["## The model's prices on both parts", ""]
    md += op_table.para("""Each class's measured kernel time over the model's device time for
        the same layers (`scalemeter predict NET --device PART --per-layer`, each layer's time
        less the host's dispatch in it), summed over the points above: with
        `--framework pytorch-eager-cudnn8` (the descriptions' form before issue 38's rebuild:
        one convolution efficiency per precision, every other class by its bytes, every NCHW
        convolution transposed), with
        `pytorch-eager-kernels` (batch norms, poolings and grouped convolutions priced by the
        SMs at the H200 profiles' rates, `kernel_device_us`) and with the descriptions' own,
        rebuilt (those, queued, and the convolutions by kind and pass that
        tools/conv_kinds.py takes from these profiles: docs/devices.md). 1.00 is a price that
        matches; a price that carries from one part to the other gives the same figure on
        both parts. Classes under half a millisecond over the points are left out.""") + [""]
    got_all = {}  # (precision, class, phase, framework): [H100, H200]
    classes = {m: op_table.model_classes(binary, m)
               for m in sorted({p[0] for s in summary for p in s[3]})}
    for precision, h100, h200, points, _ in summary:
        meas = {"h100": h100, "h200": h200}
        prices = {(part, fw): summed_prices(binary, part, points, precision, classes, name)
                  for part in PARTS for fw, name in FORMS}
        md += [f"### {op_table.UNDER[precision]}", "",
               "| class | phase | " + " | ".join(f"{p.upper()}, {fw}" for p in PARTS
                                                  for fw, _ in FORMS) + " |",
               "|---|---|" + "---:|" * (len(PARTS) * len(FORMS))]
        for cls in op_table.PRICED:
            for phase in PHASES:
                m = {part: sum(meas[part][p].get((phase, cls, "kernel"), 0.0) for p in points)
                     for part in PARTS}
                if min(m.values()) < 500:
                    continue
                cells = []
                for part in PARTS:
                    for fw, _ in FORMS:
                        price = prices[part, fw].get((phase, cls), 0.0)
                        cells.append(f"{m[part] / price:.2f}" if price > 0 else "-")
                        if price > 0:
                            got_all.setdefault((precision, cls, phase, fw), []).append(
                                m[part] / price)
                md.append(f"| {cls} | {phase} | " + " | ".join(cells) + " |")
        md.append("")
    return md + prices_say(got_all)


def prices_say(got):
    """The prices' findings, as ranges over both parts of the tables' figures."""
    def span(fw, classes, precisions=("bf16", "fp32"), phases=PHASES):
        x = [v for (p, c, ph, f), vs in got.items() for v in vs
             if f == fw and c in classes and p in precisions and ph in phases]
        return f"{min(x):.2f}-{max(x):.2f}" if x else "-"
    sm_priced = ("batch norm", "pooling", "conv grouped")
    convs = ("conv dense kxk", "conv 1x1")
    return op_table.para(f"""The SM prices of `pytorch-eager-kernels`, measured on the H200,
        carry to the H100: batch norms, poolings and grouped convolutions measure
        {span("kernels", sm_priced)} times their price on both parts, where the added form,
        pricing them by their bytes, gives {span("added", sm_priced)}; its per-kernel
        dispatch, fitted on whole steps and added to each layer, absorbed that gap
        (docs/accuracy-gpus.md, "The queue in the model"), which is why the H200's bandwidth
        showed in its predictions as a gain the runs do not have. By one efficiency per
        precision the convolutions measured {span("added", convs)} times their price (1 x 1
        ones with TF32 off {span("added", ("conv 1x1",), ("fp32",))}, dense k x k ones at bf16
        {span("added", ("conv dense kxk",), ("bf16",))}); priced by kind and pass (rebuilt)
        {span("rebuilt", convs)}. The activations' backward pass, once priced at twice its
        forward bytes, measures {span("rebuilt", ("activation",), phases=("bwd",))} at 1.5
        times. ConvNeXt-T's layer norms, priced by their rows in every form (PyTorch's kernel
        reduces a row in a block of its own: `rownorm_*`, tools/rownorm_rates.py; by their
        bytes they measured 1.97-5.41), measure {span("rebuilt", ("layer norm",))}, the
        forward pass's rest the cast of a 16-bit input to fp32 that autocast runs inside the
        op, which no key prices. Still mispriced on both parts, whichever framework: the small
        matrix products of the classifiers ({span("rebuilt", ("linear",))}), the likeliest
        causes, with the kernels
        no class holds, of the memory efficiency a queued fit still asks (docs/accuracy.md,
        "The rebuilt eager framework").""") + [""]


def what_it_says(summary):
    """The findings, from the tables' numbers: which share of the training kernels' time runs
    at the DRAM's pace on the H100 (a class at 1.25 or more), and the whole step's ratio."""
    md = ["## What it says", ""]
    for precision, h100, h200, points, rows in summary:
        train = [r for r in rows if r[1] in ("fwd", "bwd")]
        total = sum(r[3] for r in train)
        dram = [r for r in train if r[2] / r[3] >= 1.25]
        sm = [r for r in train if r[2] / r[3] <= 1.06]
        step = [sum(part[p].get((ph, "all", "kernel"), 0.0) for p in points
                    for ph in ("fwd", "bwd", "opt")) for part in (h100, h200)]
        names = sorted({r[0] for r in dram})
        md += op_table.para(f"""{op_table.UNDER_SHORT[precision]}: the training step's kernels
            took {step[0] / step[1]:.2f} times as long on the H100 as on the H200 summed over
            the {len(points)} points, where bandwidth alone would give {DRAM_RATIO:.2f}. Classes
            at 1.25 or more (the DRAM's pace): {op_table.and_list(names) or 'none'},
            {sum(r[3] for r in dram) / total:.0%} of the H200's forward and backward kernel
            time; at 1.06 or less (the SMs' pace, or the L2's):
            {sum(r[3] for r in sm) / total:.0%}.""", bullet=True)
    md += [""] + op_table.para("""So the shipped descriptions, which price batch norms,
        poolings, grouped convolutions, concatenations and layer norms by their bytes over the
        DRAM's bandwidth (depthwise convolutions already by the SMs), give the H200 a gain its
        kernels do not have: eager PyTorch's ResNet-50
        and BERT ran 1.10-1.23 times as fast on Lambda's H200 as on its H100s, the model says
        1.32-1.37 (docs/accuracy-gpus.md). Those classes want a price by the SMs (their
        elements per SM and clock, as `pytorch-eager-kernels` prices batch norm, poolings and
        the direct convolutions), which carries across the two parts unchanged; only the
        elementwise kernels and activations (PyTorch's vectorised loops over one or two
        tensors) stream at the DRAM's rate on both. The windows' ratios are the hosts': this
        H100 lease's host dispatched more slowly under the profiler than the H200 leases'
        (docs/accuracy.md, "The fp32 set again").""")
    return md + [""]


def report(root, binary=None):
    """The page's lines, from the profiles and clocks files under root (the source tree), with
    the model's prices beside them where a scalemeter binary is given."""
    clocks = {p: busy_clocks(root, p) for p in PARTS}
    md = ["# The H100 beside the H200, op class by op class", ""]
    md += op_table.para(f"""Generated by `tools/op_ratio.py` (issue 38 item 4, issue 37); do
        not edit by hand. Eager PyTorch's per-op profiles (torch.profiler, CUDA activities, the
        median of three profiled steps) on one H100 SXM5 80 GB (2026-11-27) and one H200 (two
        leases of 2026-11-26), PyTorch 2.11 and cuDNN 9.19 on both, at the points both ran. Each
        op's kernel time is summed into tools/op_table.py's classes. The two parts have the same
        132 SMs and boost clock; the H100's memory moves {1 / DRAM_RATIO:.2f} times the H200's
        bytes a second (3.35 against 4.8 TB/s), so kernels bound by the DRAM would take
        {DRAM_RATIO:.2f} times as long on the H100, kernels bound by the SMs the same time.
        Classes under {MIN_US:.0f} us at a point are left out of that point's ratio.""") + [""]
    for part in PARTS:
        mhz = clocks[part]
        if mhz:
            md += op_table.para(f"""{part.upper()}: SM clock under load (power above 250 W)
                {statistics.median(mhz):.0f} MHz median, {min(mhz):.0f}-{max(mhz):.0f} MHz,
                {len(mhz)} samples of the leases' clocks files.""") + [""]
        else:
            md += op_table.para(f"""{part.upper()}: no clocks sampled in its leases yet
                (tools/gpu-validate.sh has sampled them since 2026-11-27).""") + [""]
    summary = []
    for precision in op_table.PRECISIONS:
        h100, h200 = profiles(root, "h100", precision), profiles(root, "h200", precision)
        points = sorted(set(h100) & set(h200))
        if not points:
            continue
        tab, rows = table_for(precision, h100, h200, points)
        title = op_table.UNDER[precision]
        md += ["## " + title[0].upper() + title[1:], ""] + tab + [""]
        summary.append((precision, h100, h200, points, rows))
    md += what_it_says(summary)
    if binary:
        md += prices_section(binary, summary)
        md += fp16_section(root, binary)
        md += transpose_rates.section(binary)
    if summary:
        precision, h100, h200, points, _ = summary[0]
        md += ["## Training batch norm by channels (" + op_table.UNDER_SHORT[precision] + ")", ""]
        md += op_table.para("""The H200's batch norm in training ran at about one element per
            channel and clock up to the SMs' count (docs/ops-h200.md): a kernel bound by the SMs
            would give the same time on the H100, channel for channel.""") + [""]
        md += bn_channels(h100, h200, points) + [""]
    return md


def fp16_section(root, binary):
    """Measured kernel time over the h100 description's own price per class at fp16, which
    the H100 alone was profiled at; none where no H100 ran it or an H200 did too (then the
    tables above hold it)."""
    precision = "fp16"
    h100 = profiles(root, "h100", precision)
    if not h100 or profiles(root, "h200", precision):
        return []
    points = sorted(h100)
    classes = {m: op_table.model_classes(binary, m) for m in sorted({p[0] for p in points})}
    prices = summed_prices(binary, "h100", points, precision, classes)
    title = op_table.UNDER[precision]
    md = ["## " + title[0].upper() + title[1:] + ", the H100 alone", ""]
    md += op_table.para(f"""No H200 ran it. {len(points)} points: """ + ", ".join(
        f"{op_table.PRETTY.get(m, m)} at batch {b}" for m, b in points) + """, image 224.
        Each class's measured kernel time over the h100 description's device time for the
        same layers, as "rebuilt" above.""") + [""]
    md += ["| class | phase | measured ms | priced ms | measured / priced |",
           "|---|---|---:|---:|---:|"]
    for cls in op_table.PRICED:
        for phase in PHASES:
            m = sum(h100[p].get((phase, cls, "kernel"), 0.0) for p in points)
            price = prices.get((phase, cls), 0.0)
            if m < 500 or price <= 0:
                continue
            md.append(f"| {cls} | {phase} | {m / 1000:.1f} | {price / 1000:.1f} | "
                      f"{m / price:.2f} |")
    md += [""] + op_table.para("""At fp16 PyTorch 2.11 and cuDNN 9.19 split MobileNet v2's
        depthwise convolutions on NCHW tensors three ways: the unstrided ones in cuDNN's
        direct NCHW kernel (conv2d_c1_k1_nchw_shmem_tiling; backward dgrad2d_c1_k1 and
        wgrad2d_shmem_tiling), three of the four strided ones (features 2, 4 and 7) in
        PyTorch's own conv_depthwise2d, forward and backward, and the fourth (features 14,
        576 channels at 14 x 14) in a cuDNN grouped kernel. The model prices every fp16
        depthwise convolution as cuDNN's at the DRAM's rate (device_roofline.c,
        depthwise_in_pytorch), which none of the three reaches; PyTorch's strided data
        gradient at fp16 took the longest (conv_depthwise2d_backward_kernel: 2.6 ms for
        features 2 at batch 128). Batch norm
        at inference is priced at cuDNN's elements a clock of fp32, as in training (at
        fp32's bytes a clock it measured 1.80). The classifiers' small products miss as at
        bf16 (above).""") + [""]
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "ops-h100-h200.md"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    a = ap.parse_args()
    md = report(ROOT, a.bin)
    with open(a.out, "w") as f:
        f.write("\n".join(md).rstrip() + "\n")
    print(f"op_ratio.py: wrote {a.out}")


if __name__ == "__main__":
    main()
