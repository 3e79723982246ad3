#!/usr/bin/env python3
"""The GPU validation tables of issue 7, from two measurement CSVs of the same GPU and
configurations (tools/gpu-validate.sh writes both):

  (a) leave-one-model-out MAPE on scalemeter's own runs (`scalemeter fit --cv loo`)
  (b) coefficients fitted on all of scalemeter's runs, predicting PyTorch's measured times
  (c) leave-one-model-out MAPE on PyTorch's runs
  (d) scalemeter's executor against PyTorch: measured step and inference time, per network

beside ConvMeter's Tables 1 and 3 (GPU inference MAPE 0.17, single-GPU training 0.18). Writes
Markdown (--out) and the coefficient files of both fits (--coeffs-dir). Uses only the standard
library and the scalemeter binary, so it runs wherever the CSVs and the binary are.

  python3 tools/gpu_report.py --scalemeter BIN --sm SM.csv --torch TORCH.csv \\
      --gpu "NVIDIA H100 80GB HBM3" --out report.md --coeffs-dir DIR
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys

PHASES = ["infer", "fwd", "bwd", "grad", "step"]
COLUMN = {"infer": "t_infer", "fwd": "t_fwd", "bwd": "t_bwd", "grad": "t_grad", "step": "t_step"}


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def rows_of(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if not r["model"].startswith("#")]


def number(text):
    try:
        v = float(text)
        return v if math.isfinite(v) and v > 0 else None
    except (TypeError, ValueError):
        return None


def loo(binary, path, options):
    return json.loads(run([binary, "fit", path, *options, "--cv", "loo", "--format",
                           "json"]))["phases"]


def fmt(v, digits=3):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def loo_table(phases):
    lines = ["| phase | MAPE | NRMSE | R² | points |", "|---|---|---|---|---|"]
    for ph in PHASES:
        o = phases.get(ph, {}).get("overall")
        if o:
            lines.append(f"| {ph} | {fmt(o['mape'])} | {fmt(o['nrmse'])} | {fmt(o['r2'])} | "
                         f"{o['n']} |")
    models = sorted({m for ph in PHASES for m in phases.get(ph, {}).get("per_model", {})})
    lines += ["", "| network | " + " | ".join(f"{ph} MAPE" for ph in PHASES) + " |",
              "|---|" + "---|" * len(PHASES)]
    for m in models:
        cells = [fmt(phases.get(ph, {}).get("per_model", {}).get(m, {}).get("mape"))
                 for ph in PHASES]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return lines


def cross_prediction(binary, coeffs, torch_rows):
    """(b): predict every PyTorch row with scalemeter's coefficients."""
    errors = {ph: [] for ph in PHASES}
    per_model = {}
    cache = {}
    for r in torch_rows:
        key = (r["model"], r["image"], r["batch"])
        if key not in cache:
            try:
                cache[key] = json.loads(run([binary, "predict", r["model"], "--coeffs", coeffs,
                                             "--batch", r["batch"], "--image", r["image"],
                                             "--format", "json"]))
            except RuntimeError as e:
                print(f"gpu_report.py: {e}", file=sys.stderr)
                cache[key] = None
        p = cache[key]
        if not p:
            continue
        for ph in PHASES:
            measured, predicted = number(r.get(COLUMN[ph])), p.get(COLUMN[ph])
            if measured and predicted is not None:
                e = abs(predicted - measured) / measured
                errors[ph].append(e)
                per_model.setdefault(r["model"], {}).setdefault(ph, []).append(e)
    lines = ["| phase | MAPE | points |", "|---|---|---|"]
    for ph in PHASES:
        if errors[ph]:
            lines.append(f"| {ph} | {fmt(statistics.mean(errors[ph]))} | {len(errors[ph])} |")
    lines += ["", "| network | " + " | ".join(f"{ph} MAPE" for ph in PHASES) + " |",
              "|---|" + "---|" * len(PHASES)]
    for m in sorted(per_model):
        cells = [fmt(statistics.mean(per_model[m][ph])) if per_model[m].get(ph) else "-"
                 for ph in PHASES]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return lines


def executor_vs_torch(sm_rows, torch_rows):
    """(d): measured times of the same configurations, scalemeter / PyTorch."""
    torch = {(r["model"], r["image"], r["batch"]): r for r in torch_rows}
    ratios = {}
    detail = ["| network | image | batch | scalemeter step | PyTorch step | ratio | "
              "scalemeter infer | PyTorch infer | ratio |", "|---|---|---|---|---|---|---|---|---|"]
    for r in sm_rows:
        t = torch.get((r["model"], r["image"], r["batch"]))
        if not t:
            continue
        cells = []
        for col in ("t_step", "t_infer"):
            a, b = number(r.get(col)), number(t.get(col))
            ratio = a / b if a and b else None
            if ratio:
                ratios.setdefault(r["model"], {}).setdefault(col, []).append(ratio)
            cells += [fmt(a * 1e3, 2) if a else "-", fmt(b * 1e3, 2) if b else "-", fmt(ratio, 2)]
        detail.append(f"| {r['model']} | {r['image']} | {r['batch']} | " + " | ".join(cells) + " |")
    summary = ["| network | step time ratio (geometric mean) | inference ratio | configurations |",
               "|---|---|---|---|"]
    all_step, all_infer = [], []
    for m in sorted(ratios):
        s, i = ratios[m].get("t_step", []), ratios[m].get("t_infer", [])
        all_step += s
        all_infer += i
        summary.append(f"| {m} | {fmt(statistics.geometric_mean(s), 2) if s else '-'} | "
                       f"{fmt(statistics.geometric_mean(i), 2) if i else '-'} | {len(s)} |")
    if all_step:
        summary.append(f"| **all** | {fmt(statistics.geometric_mean(all_step), 2)} | "
                       f"{fmt(statistics.geometric_mean(all_infer), 2) if all_infer else '-'} | "
                       f"{len(all_step)} |")
    return summary, detail


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scalemeter", required=True, help="the scalemeter binary")
    p.add_argument("--sm", required=True, help="scalemeter bench --backend cuda CSV")
    p.add_argument("--torch", required=True, help="examples/pytorch/measure.py CSV")
    p.add_argument("--gpu", default="GPU", help="the GPU's name, for the titles")
    p.add_argument("--precision", default="fp32")
    p.add_argument("--out", required=True, help="the Markdown report")
    p.add_argument("--coeffs-dir", required=True, help="where the two coefficient files go")
    p.add_argument("--fit-options", default="--weight-term --update-term",
                   help="scalemeter fit's options, as `scalemeter calibrate` fits (default: "
                        "--weight-term --update-term)")
    a = p.parse_args()
    fit_options = a.fit_options.split()

    sm_rows, torch_rows = rows_of(a.sm), rows_of(a.torch)
    stem = os.path.splitext(os.path.basename(a.sm))[0]
    sm_coeffs = os.path.join(a.coeffs_dir, stem + ".ini")
    torch_coeffs = os.path.join(a.coeffs_dir,
                                os.path.splitext(os.path.basename(a.torch))[0] + ".ini")
    run([a.scalemeter, "fit", a.sm, *fit_options, "-o", sm_coeffs, "--device-name",
         f"{a.gpu}, cuda {a.precision}"])
    run([a.scalemeter, "fit", a.torch, *fit_options, "-o", torch_coeffs, "--device-name",
         f"{a.gpu}, PyTorch {a.precision}"])
    models = sorted({r["model"] for r in sm_rows})
    out = [f"# GPU validation on {a.gpu} ({a.precision})", "",
           f"scalemeter runs: `{os.path.basename(a.sm)}` ({len(sm_rows)} rows, "
           f"{len(models)} networks); PyTorch runs: `{os.path.basename(a.torch)}` "
           f"({len(torch_rows)} rows). Fits: `scalemeter fit {' '.join(fit_options)}`. "
           "ConvMeter (Tables 1 and 3): GPU inference MAPE 0.17, single-GPU training 0.18; "
           "the aim here is 0.08 for (a) and (c).", ""]
    sections = [("(a) Leave-one-model-out on scalemeter's runs",
                 lambda: loo_table(loo(a.scalemeter, a.sm, fit_options))),
                ("(b) scalemeter's coefficients predicting PyTorch's times",
                 lambda: cross_prediction(a.scalemeter, sm_coeffs, torch_rows)),
                ("(c) Leave-one-model-out on PyTorch's runs",
                 lambda: loo_table(loo(a.scalemeter, a.torch, fit_options)))]
    for title, make in sections:
        out += [f"## {title}", ""]
        try:
            out += make()
        except (RuntimeError, KeyError, ValueError) as e:
            out.append(f"not computed: {e}")
        out.append("")
    summary, detail = executor_vs_torch(sm_rows, torch_rows)
    out += ["## (d) scalemeter's executor against PyTorch (measured time ratio, < 1: faster)", ""]
    out += summary + ["", "<details><summary>every configuration (ms)</summary>", ""] + detail
    out += ["", "</details>", ""]
    with open(a.out, "w") as f:
        f.write("\n".join(out))
    print(f"gpu_report.py: wrote {a.out}, {sm_coeffs}, {torch_coeffs}")


if __name__ == "__main__":
    main()
