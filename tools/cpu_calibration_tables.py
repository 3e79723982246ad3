#!/usr/bin/env python3
"""Regenerates the tables of docs/calibration.md's shipped CPU calibration from its runs
(configs/calibrations/cpu-amd-epyc-1thread.csv): the leave-one-model-out table of the shipped
fit, its comparison with ConvMeter's Table 1, and "What we tried". Each sits between
`<!-- cpu_calibration_tables.py: NAME -->` and `<!-- end NAME -->`; the prose around them is
written by hand from what they say.

    python3 tools/cpu_calibration_tables.py --bin build/bin/scalemeter [--check]

--check exits 1, naming the tables, where the document differs from what the fits give now.
"""
import argparse
import csv
import io
import re
import subprocess
import sys
import textwrap

RUNS = "configs/calibrations/cpu-amd-epyc-1thread.csv"
DOC = "docs/calibration.md"
SHIPPED = ["--weight-term"]  # configs/calibrations/default.ini: the dispatch form, as fitted
PHASES = ["infer", "fwd", "bwd", "grad", "step"]

# ConvMeter (Table 1: CPU inference, one core of a Xeon Gold 5318Y, each network left out of
# the fit): RMSE in seconds, NRMSE, MAPE, for the nine networks it reports
CONVMETER = {
    "resnet18": (0.56, 0.26, 0.21), "mobilenet_v2": (0.79, 0.17, 0.15),
    "squeezenet1_0": (0.12, 0.23, 0.52), "regnet_y_400mf": (0.22, 0.59, 0.62),
    "resnet50": (0.51, 0.07, 0.22), "vgg16": (0.83, 0.17, 0.18), "vgg11": (0.23, 0.22, 0.21),
    "resnext50_32x4d": (0.69, 0.08, 0.27), "wide_resnet50_2": (0.48, 0.10, 0.15),
}
CONVMETER_OVERALL = (0.59, 0.13, 0.25)

# "What we tried": ConvMeter's form from its own fit to ours, a change at a time, then the
# shipped dispatch form
TRIED = [
    ("ConvMeter as published: `--form convmeter --weighting none --no-nonneg --no-weight-term`",
     ["--form", "convmeter", "--weighting", "none", "--no-nonneg", "--no-weight-term"]),
    ("+ NNLS: `--form convmeter --weighting none --no-weight-term`",
     ["--form", "convmeter", "--weighting", "none", "--no-weight-term"]),
    ("+ relative weighting: `--form convmeter --no-nonneg --no-weight-term`",
     ["--form", "convmeter", "--no-nonneg", "--no-weight-term"]),
    ("relative + NNLS: `--form convmeter --no-weight-term`",
     ["--form", "convmeter", "--no-weight-term"]),
    ("+ `--weight-term`", ["--form", "convmeter", "--weight-term"]),
    ("+ `--update-term` instead", ["--form", "convmeter", "--no-weight-term", "--update-term"]),
    ("+ both, `--weighting none`",
     ["--form", "convmeter", "--weight-term", "--update-term", "--weighting", "none"]),
    ("+ both, `--no-nonneg`", ["--form", "convmeter", "--weight-term", "--update-term",
                                "--no-nonneg"]),
    ("+ both: ConvMeter's form at its best", ["--form", "convmeter", "--weight-term",
                                              "--update-term"]),
    ("**the dispatch form, `--weight-term` (shipped)**", SHIPPED),
]


def loo(binary, options):
    """{(phase, model): row} of `fit RUNS OPTIONS --cv loo --format csv`, and the models."""
    p = subprocess.run([binary, "fit", RUNS, *options, "--cv", "loo", "--format", "csv"],
                       capture_output=True, text=True, check=True)
    rows, models = {}, []
    for r in csv.DictReader(io.StringIO(p.stdout)):
        rows[(r["phase"], r["model"])] = r
        if r["model"] != "overall" and r["model"] not in models:
            models.append(r["model"])
    return rows, models


def ms(seconds):
    return f"{float(seconds) * 1e3:.1f} ms"


def loo_table(rows, models):
    out = ["| network | n | infer MAPE | fwd MAPE | bwd MAPE | grad MAPE | step MAPE | step RMSE "
           "| step R² |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for m in models + ["overall"]:
        mape = [f"{float(rows[(p, m)]['mape']):.2f}" for p in PHASES]
        step = rows[("step", m)]
        name = "**overall**" if m == "overall" else m
        out.append(f"| {name} | {step['n']} | {' | '.join(mape)} | {ms(step['rmse'])} | "
                   f"{float(step['r2']):.2f} |")
    o = {p: rows[(p, "overall")] for p in PHASES + ["bwd_grad"]}

    def three(p):
        return (f"{float(o[p]['rmse']) * 1e3:.3g} ms / {float(o[p]['nrmse']):.3f} / "
                f"{float(o[p]['r2']):.2f}")
    out += [""] + textwrap.wrap(
        f"Overall RMSE / NRMSE / R²: infer {three('infer')}, fwd {three('fwd')}, bwd "
        f"{three('bwd')}, grad {three('grad')}, bwd_grad (fitted together) {three('bwd_grad')} "
        f"with MAPE {float(o['bwd_grad']['mape']):.2f}, step {three('step')}.", 96)
    return out


def convmeter_table(rows, models):
    out = ["| network | RMSE | NRMSE | MAPE | R² | ConvMeter RMSE | NRMSE | MAPE |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for m in [m for m in models if m in CONVMETER]:
        r, c = rows[("infer", m)], CONVMETER[m]
        out.append(f"| {m} | {ms(r['rmse'])} | {float(r['nrmse']):.2f} | {float(r['mape']):.2f} "
                   f"| {float(r['r2']):.2f} | {c[0]:.2f} s | {c[1]:.2f} | {c[2]:.2f} |")
    others = len(models) - sum(m in CONVMETER for m in models)
    r, c = rows[("infer", "overall")], CONVMETER_OVERALL
    out.append(f"| ({others} networks ConvMeter did not report) | | | | | | | |")
    out.append(f"| **overall** ({len(models)} networks / ConvMeter's {len(CONVMETER)}) | "
               f"{ms(r['rmse'])} | {float(r['nrmse']):.2f} | **{float(r['mape']):.2f}** | "
               f"{float(r['r2']):.2f} | {c[0]:.2f} s | {c[1]:.2f} | **{c[2]:.2f}** |")
    return out


def tried_table(binary):
    out = ["| fit | infer | fwd | bwd | grad | step |", "|---|---:|---:|---:|---:|---:|"]
    for label, options in TRIED:
        rows, _ = loo(binary, options)
        cells = [f"{float(rows[(p, 'overall')]['mape']):.2f}" for p in PHASES]
        if label.startswith("**"):
            cells = [f"**{c}**" for c in cells]
        out.append(f"| {label} | {' | '.join(cells)} |")
    return out


def replace(text, name, lines):
    pattern = re.compile(rf"(<!-- cpu_calibration_tables.py: {name} -->\n).*?(<!-- end {name} -->)",
                         re.S)
    if not pattern.search(text):
        sys.exit(f"cpu_calibration_tables.py: {DOC} has no '{name}' markers")
    return pattern.sub(lambda m: m.group(1) + "\n".join(lines) + "\n" + m.group(2), text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/bin/scalemeter")
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    a = ap.parse_args()
    rows, models = loo(a.bin, SHIPPED)
    with open(DOC) as f:
        before = f.read()
    after = replace(before, "loo", loo_table(rows, models))
    after = replace(after, "convmeter", convmeter_table(rows, models))
    after = replace(after, "tried", tried_table(a.bin))
    if a.check:
        if after != before:
            sys.exit(f"cpu_calibration_tables.py: {DOC}'s tables differ from the fits; run "
                     "tools/cpu_calibration_tables.py")
        return
    with open(DOC, "w") as f:
        f.write(after)
    print(f"cpu_calibration_tables.py: wrote {DOC}")


if __name__ == "__main__":
    main()
