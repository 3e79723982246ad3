#!/usr/bin/env python3
"""Which form of the gradient-synchronisation term extrapolates better from few nodes to many:
ConvMeter's linear c1 L + c2 W + c3 D (D = nodes x G devices), or the hierarchical ring form of
N nodes of G devices, c1 L + ci 2(G-1)/G 4W + cn 2(N-1)/N 4W/G + cis 2(G-1) k + cns 2(N-1) k with
k = ceil(4W / bucket) (the G terms only when the fit saw G > 1)?

No multi-node cluster is at hand, so the "measurements" are synthetic: the calibration-free
analytic model of `scalemeter curve --device h100` (a roofline per layer and an all-reduce in
25 MiB buckets: NCCL's cost model and choice of algorithm, the description's default, or with
--collective ring the hierarchical ring, docs/scaling.md) with fixed-seed uniform noise of +-3%
on every time. The ground truth is therefore that analytic model, not a real machine. Both forms are
fitted with `scalemeter fit --update-term` (the analytic model has an optimizer pass over the
weights, which the fit can only tell from communication with that term and single-device runs)
on single-device runs and runs on at most 4 nodes, and asked, through `scalemeter curve
--coeffs`, about 8 to 64 nodes. A third prediction keeps the ring form's passes and local
update and takes the all-reduce from a description that `scalemeter fit-comm` fitted to the
all_reduce_perf sweeps an operator would run on those 1 to 4 nodes (NCCL_ALGO=Ring
NCCL_PROTO=Simple for NCCL's form; the analytic model's sweeps, with the same noise), through
`scalemeter curve --coeffs ring.ini --device cluster.ini`. Its communication equation is the
truth's own, so it checks that the links fitted on a few nodes carry the collective's choice to
many, not the collective model itself (that is checked against nccl-tests, docs/accuracy.md).

usage: tools/scaling_study.py [--scalemeter build/bin/scalemeter] [--out DIR] [--seed 1]
                              [--noise 0.03] [--device h100] [--gpus-per-node G] [--seeds S]
                              [--collective ring|nccl]
Writes DIR/measurements.csv, DIR/train.csv, DIR/{linear,ring}.ini, DIR/allreduce-N.csv and
DIR/cluster.ini (DIR: /tmp/scaling_study by
default) and prints the Markdown tables of docs/scaling.md. With --seeds S > 1 it repeats the
study with the noise seeds SEED .. SEED+S-1 (in DIR/seedN/) and prints, per node count, the
median and the range of the t_grad errors over them: one seed's noise can favour a form.
Standard library only.
"""
import argparse
import configparser
import csv
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

MODELS = ["resnet18", "resnet50", "vgg16", "mobilenet_v2"]
BATCHES = [16, 32, 64, 128]
TRAIN_MAX_NODES = 4
TIMES = ["t_infer", "t_fwd", "t_bwd", "t_grad"]
FORMS = ("linear", "ring", "described")
LABEL = {"linear": "linear", "ring": "ring", "described": "ring passes + fit-comm"}
HEADER = ["model", "image", "batch", "nodes", "gpus_per_node"] + TIMES + ["t_step"]


def scalemeter(binary, *args):
    p = subprocess.run([binary, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"scalemeter {' '.join(args)} failed:\n{p.stderr}")
    return p.stdout


def curve_rows(binary, source, nodes, extra=()):
    out = scalemeter(binary, "curve", ",".join(MODELS), *source, "--batch",
                     ",".join(map(str, BATCHES)), "--nodes", nodes, "--format", "csv", *extra)
    return list(csv.DictReader(io.StringIO(out)))


def device_collective(binary, device):
    """The description's own collective, as `allreduce --device --format json` names it."""
    out = scalemeter(binary, "allreduce", "--device", device, "--min-bytes", "1M",
                     "--max-bytes", "1M", "--format", "json")
    return json.loads(out)["collective"]


def key(row):
    return row["model"], int(row["batch"]), int(row["nodes"]), int(row["gpus_per_node"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scalemeter", default="build/bin/scalemeter")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "scaling_study"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise", type=float, default=0.03)
    ap.add_argument("--device", default="h100")
    ap.add_argument("--gpus-per-node", default=None,
                    help="devices per node (default: the device file's)")
    ap.add_argument("--collective", default=None,
                    help="the truth's all-reduce: ring or nccl (default: the device file's)")
    ap.add_argument("--seeds", type=int, default=1,
                    help="repeat with this many noise seeds and summarise (default 1)")
    a = ap.parse_args()

    # 1. the analytic model's times at 1..64 nodes
    per_node = ["--gpus-per-node", a.gpus_per_node] if a.gpus_per_node else []
    if a.collective:
        per_node += ["--collective", a.collective]
    truth = curve_rows(a.scalemeter, ["--device", a.device, *per_node], "1:64")
    # single-device runs too, as a calibration has them: they tell the local update (c1 L,
    # cu W) apart from communication, which starts at 2 devices
    single = curve_rows(a.scalemeter, ["--device", a.device, "--gpus-per-node", "1",
                                       *(["--collective", a.collective] if a.collective else [])],
                        "1")

    sweeps = clean_sweeps(a, truth[0]["gpus_per_node"])
    errors = study(a, truth, single, sweeps, a.seed, a.out, report=True)
    if a.seeds > 1:
        runs = [errors] + [study(a, truth, single, sweeps, s, os.path.join(a.out, f"seed{s}"))
                           for s in range(a.seed + 1, a.seed + a.seeds)]
        print(f"\nt_grad MAPE against the noisy 'measurements' over noise seeds {a.seed} to "
              f"{a.seed + a.seeds - 1}: median (smallest to largest):\n")
        print("| nodes | GPUs | " + " | ".join(f"t_grad {LABEL[f]}" for f in FORMS) + " |")
        print("|---:|---:|" + "---:|" * len(FORMS))
        gpus = int(truth[0]["gpus_per_node"])
        for n in sorted(errors):
            cells = []
            for form in FORMS:
                e = sorted(r[n][form] for r in runs)
                cells.append(f"{statistics.median(e):.1%} ({e[0]:.1%} to {e[-1]:.1%})")
            print(f"| {n} | {n * gpus} | " + " | ".join(cells) + " |")


def clean_sweeps(a, gpus):
    """The all-reduce sweeps an operator would run on 1, 2 and 4 nodes, noise-free, made once
    for every seed: (collective, [(nodes, rows)]). NCCL's are forced to Ring/Simple, as
    fit-comm asks (one node of one device sends nothing: no sweep)."""
    collective = a.collective or device_collective(a.scalemeter, a.device)
    force = ["--algorithm", "ring", "--protocol", "simple"] if collective == "nccl" else []
    sweeps = []
    for n in [n for n in (1, 2, 4) if n > 1 or int(gpus) > 1]:
        text = scalemeter(a.scalemeter, "allreduce", "--device", a.device, "--nodes", str(n),
                          "-g", gpus, "--collective", collective, *force, "--min-bytes", "1M",
                          "--max-bytes", "1G", "--format", "csv")
        sweeps.append((n, list(csv.DictReader(io.StringIO(text)))))
    return collective, sweeps


def study(a, truth, single, clean, seed, out, report=False):
    """Noisy measurements with this seed, both fits on nodes <= 4, their predictions of 8 to 64
    nodes; prints the tables when report. clean: clean_sweeps' sweeps, to which this seed's
    noise is added. Returns {nodes: {form: t_grad MAPE (noisy)}}."""
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    gpus = truth[0]["gpus_per_node"]
    measured = {}
    seen = {key(r) for r in truth}
    for row in truth + [r for r in single if key(r) not in seen]:
        noisy = {t: float(row[t]) * (1 + rng.uniform(-a.noise, a.noise)) for t in TIMES}
        noisy["t_step"] = noisy["t_fwd"] + noisy["t_bwd"] + noisy["t_grad"]
        measured[key(row)] = {**{h: row[h] for h in HEADER[:5]}, **noisy}
    for name, keep in (("measurements.csv", lambda n: True),
                       ("train.csv", lambda n: n <= TRAIN_MAX_NODES)):
        with open(os.path.join(out, name), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(HEADER)
            for k in sorted(measured):
                if keep(k[2]):
                    r = measured[k]
                    w.writerow([r[h] if h in HEADER[:5] else f"{r[h]:.6g}" for h in HEADER])

    # 2. both forms fitted on nodes <= 4, 3. asked about 8..64 nodes
    train = os.path.join(out, "train.csv")
    predicted = {}
    for form in ("linear", "ring"):
        coeffs = os.path.join(out, f"{form}.ini")
        scalemeter(a.scalemeter, "fit", train, "--grad-model", form, "--update-term",
                   "-o", coeffs, "--device-name", f"analytic {a.device} +-{a.noise:.0%} noise")
        rows = curve_rows(a.scalemeter, ["--coeffs", coeffs, "--gpus-per-node", gpus], "8:64")
        predicted[form] = {key(r): r for r in rows}
    # the ring form's passes, the all-reduce of a description fitted to noisy sweeps of <= 4
    # nodes
    cluster = os.path.join(out, "cluster.ini")
    sweeps = []
    collective, clean_rows = clean
    for n, clean_n in clean_rows:
        rows = [dict(r) for r in clean_n]
        for r in rows:
            r["time_s"] = f"{float(r['time_s']) * (1 + rng.uniform(-a.noise, a.noise)):.6e}"
        sweeps.append(os.path.join(out, f"allreduce-{n}.csv"))
        with open(sweeps[-1], "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
    scalemeter(a.scalemeter, "fit-comm", *sweeps, "--device-base", a.device, "--collective",
               collective, "--device-out", cluster)
    rows = curve_rows(a.scalemeter, ["--coeffs", os.path.join(out, "ring.ini"), "--device",
                                     cluster, "--gpus-per-node", gpus], "8:64")
    predicted["described"] = {key(r): r for r in rows}

    # 4. errors against the noisy measurements (what a user would compare with) and against the
    # noise-free analytic model
    def ape(form, k, phase, ref):
        return abs(float(predicted[form][k][phase]) - ref) / ref

    truth_by_key = {key(r): r for r in truth}
    test_nodes = sorted({k[2] for k in predicted["ring"]})
    errors = {n: {form: statistics.mean(ape(form, k, "t_grad", measured[k]["t_grad"])
                                        for k in predicted["ring"] if k[2] == n)
                  for form in FORMS}
              for n in test_nodes}
    if not report:
        return errors
    print(f"Fitted on nodes <= {TRAIN_MAX_NODES} x {gpus} GPUs ({a.device} analytic model, "
          f"+-{a.noise:.0%} noise, seed {seed}); {len(MODELS)} networks x {len(BATCHES)} "
          "batches per node count.\n")
    print("Mean absolute percentage error of t_grad and t_step against the noisy "
          "'measurements' (noise-free analytic model in parentheses):\n")
    print("| nodes | GPUs | " + " | ".join(f"{phase} {LABEL[f]}" for phase in ("t_grad", "t_step")
                                           for f in FORMS) + " |")
    print("|---:|---:|" + "---:|" * 2 * len(FORMS))
    for n in test_nodes:
        ks = [k for k in predicted["ring"] if k[2] == n]
        cells = []
        for phase in ("t_grad", "t_step"):
            for form in FORMS:
                noisy = sum(ape(form, k, phase, measured[k][phase]) for k in ks) / len(ks)
                clean = sum(ape(form, k, phase, float(truth_by_key[k][phase]))
                            for k in ks) / len(ks)
                cells.append(f"{noisy:.1%} ({clean:.1%})")
        print(f"| {n} | {n * int(gpus)} | " + " | ".join(cells) + " |")

    print("\nPer network at 64 nodes, t_grad MAPE over the batches (noisy measurements):\n")
    print("| network | measured t_grad | " + " | ".join(LABEL[f] for f in FORMS) + " |")
    print("|---|---:|" + "---:|" * len(FORMS))
    for m in MODELS:
        ks = [k for k in predicted["ring"] if k[0] == m and k[2] == test_nodes[-1]]
        mean_t = sum(measured[k]["t_grad"] for k in ks) / len(ks)
        errs = [sum(ape(f, k, "t_grad", measured[k]["t_grad"]) for k in ks) / len(ks)
                for f in FORMS]
        print(f"| {m} | {mean_t * 1e3:.2f} ms | " + " | ".join(f"{e:.1%}" for e in errs) + " |")

    ini = configparser.ConfigParser()
    ini.read(os.path.join(out, "ring.ini"))
    print("\nThe ring form's fitted [grad] coefficients (ring.ini):\n")
    for name, value in ini["grad"].items():
        if name.startswith("c"):
            print(f"    {name} = {float(value):.4g}")
    return errors


if __name__ == "__main__":
    main()
