#!/usr/bin/env python3
"""One transformer layer, op class by op class, on seven GPUs: NeuSight's per-op timings against
the model's per-layer prices. Writes docs/ops-neusight.md and docs/ops-neusight.csv.

    tools/neusight_ops.py [--bin build/bin/scalemeter] [--out docs/ops-neusight.md]
    tools/neusight_ops.py --extract GIT_DIR   # rewrites tests/data/neusight/layer_ops.csv,
                                              # score_products.csv and streams.csv

NeuSight (Lee et al., ASPLOS'25) published, beside each end-to-end time it measured
(tests/data/neusight/published.csv), the time of every op of the same pass timed alone
(scripts/asplos/label/<GPU>/<run>.csv: torch.fx's nodes, each launched 25 times back to back
after a warm-up, the mean of its 5 fastest; fw_latency and, in training, bw_latency, in ms;
neusight/Tracing/trace.py, measure_cuda_kernel). --extract reads the first layer's ops of every
published run from a git directory of trsharm25/NeuSight at db1fdc9 (MIT) and sums them by class
into tests/data/neusight/layer_ops.csv: the attention's projections and its core (the scores'
products, their scaling, mask, softmax, the context's copy), the MLP's two products, its
activation, the residual additions, the layer norms. Views, shape queries and eval-mode dropout
(no kernel: the nodes' ~0.01 ms is the events' floor) are left out. The report runs `scalemeter
predict NET ... --per-layer` as tools/neusight_validation.py runs each row and sums the same
layer's rows by the same classes (the attention layer holds its projections and core).

NeuSight's training set holds element-wise ops timed alone too (scripts/asplos/data/dataset/train/
collect/<op>/p2.1.0/<GPU>.csv, neusight/Dataset/collect.py: fp32 tensors of B x H, CUDA events
around one call, the mean of the fastest): --extract keeps those that move 256 MB or more (far
past every part's L2) into tests/data/neusight/streams.csv, and the report sets the bandwidth
they streamed at beside the descriptions' streaming fraction. Standard library only; a few
seconds.
"""
import argparse
import ast
import csv
import io
import os
import re
import statistics
import subprocess
import sys

import neusight_validation as nv
import sm_fit  # `scalemeter devices`, read once a binary

ROOT = nv.ROOT
DATA = nv.DATA
LAYER_OPS = os.path.join(DATA, "layer_ops.csv")
COLUMNS = ["part", "model", "mode", "seq", "batch", "class", "ops", "fw_ms", "bw_ms"]
SCORE_PRODUCTS = os.path.join(DATA, "score_products.csv")
STREAMS = os.path.join(DATA, "streams.csv")
STREAM_COLUMNS = ["part", "op", "bytes_per_element", "b", "h", "ms"]
# NeuSight's element-wise ops (collect.py) and the fp32 bytes each element moves: a binary op
# reads two tensors and writes one, a unary one (and a binary one by a scalar: addu, mulu)
# reads one and writes one
STREAM_OPS = {"add": 12, "mul": 12, "addu": 8, "mulu": 8, "relu": 8, "gelu": 8, "tanh": 8}
# the parts of its training set a shipped description describes, as collect.py names them
STREAM_PARTS = {"p100": "Tesla P100-PCIE-16GB", "t4": "Tesla T4",
                "v100-pcie-32gb": "Tesla V100-PCIE-32GB", "a100-pcie-40gb": "NVIDIA A100-PCIE-40GB"}
STREAM_MIN_BYTES = 256e6
PRODUCT_COLUMNS = ["part", "model", "mode", "seq", "batch", "product", "count", "m", "n", "k",
                   "fw_ms", "bw_ms"]
# the first layer, as Hugging Face's modules name it and as the networks' files do
HF_LAYER = {"bert_large": "bert.encoder.layer.0.", "gpt2_large": "transformer.h.0.",
            "gpt3_xl": "transformer.h.0.", "gpt3_27": "transformer.h.0.",
            "opt_1_3b": "model.decoder.layers.0."}
OUR_LAYER = {"bert_large": "encoder.layer.0.", "gpt2_large": "h.0.", "gpt3_xl": "h.0.",
             "gpt3_27": "h.0.", "opt_1_3b": "model.decoder.layers.0."}
# nodes that launch no kernel (shape queries, views) whatever their timed floor
NO_KERNEL = {"size", "view", "reshape", "permute", "transpose", "split", "getattr", "getitem",
             "type", "to", "finfo", "full", "sub", "dim", "eq", "expand"}
PROJECTIONS = ("query", "key", "value", "c_attn", "c_proj", "q_proj", "k_proj", "v_proj",
               "out_proj", "attention.output.dense")
MLP = ("intermediate.dense", "output.dense", "mlp.c_fc", "mlp.c_proj", "fc1", "fc2")
CLASSES = ["attention", "mlp", "activation", "residual", "layernorm"]
CLASS_NAMES = {"attention": "attention (projections and core)", "mlp": "MLP products",
               "activation": "activation", "residual": "residual additions",
               "layernorm": "layer norms", "layer": "the layer"}
OUR_TYPES = {"attention": "attention", "linear": "mlp", "gelu": "activation",
             "relu": "activation", "add": "residual", "layernorm": "layernorm"}


def elements(shape):
    """Elements of a shape as the label CSVs print it, "(8, 1024, 1280)"; 0 for none."""
    try:
        dims = ast.literal_eval(shape)
    except (ValueError, SyntaxError):
        return 0
    n = 1
    for d in dims if isinstance(dims, tuple) else ():
        n *= d
    return n


def op_class(model, module, name, output_shape):
    """The class of one traced node of the first layer, or None: not the layer's, no kernel
    (a view, a shape query, dropout in eval mode), or a scalar's arithmetic."""
    prefix = HF_LAYER[model]
    if module.startswith(prefix):
        rel = module[len(prefix):]
    elif module + "." == prefix:
        rel = ""  # GPT-2's and OPT's residual additions sit at the block's own module
    else:
        return None
    base = re.sub(r"_\d+$", "", name)
    if base in NO_KERNEL or "drop" in rel or "drop" in base or elements(output_shape) < 65536:
        return None
    if "LayerNorm" in rel or "layer_norm" in rel or rel in ("ln_1", "ln_2"):
        return "layernorm"
    if rel in ("", "attention.output", "output") and base == "add":
        return "residual"
    if any(k in rel for k in MLP) and "attention" not in rel:
        return "mlp"
    if "act" in rel:
        return "activation"
    if "attn" in rel or "attention" in rel:
        return "attention_projections" if any(k in rel for k in PROJECTIONS) else "attention_core"
    raise ValueError(f"{model}: node {name} of module {module} in no class")


def classify_label(model, text):
    """{class: [nodes, fw ms, bw ms]} of one label CSV's first layer."""
    csv.field_size_limit(1 << 30)
    sums = {}
    for row in csv.DictReader(io.StringIO(text)):
        stack = re.findall(r"\('([^']*)', <class", row["meta"])
        c = op_class(model, stack[-1] if stack else "", row["Name"], row["output_shape"])
        if c is None:
            continue
        s = sums.setdefault(c, [0, 0.0, 0.0])
        s[0] += 1
        s[1] += float(row["fw_latency"] or 0)
        s[2] += float(row["bw_latency"] or 0)
    return sums


def score_products(model, text):
    """[(product, count, m, n, k, fw ms, bw ms)] of one label CSV's first layer: its two batched
    products of the attention's core (torch.matmul or torch.bmm of 3 or more dimensions), the
    scores' (Q K^T: m x n scores, k the head's depth) and the context's (the probabilities
    times V: k the keys' count)."""
    csv.field_size_limit(1 << 30)
    out = []
    for row in csv.DictReader(io.StringIO(text)):
        base = re.sub(r"_\d+$", "", row["Name"])
        stack = re.findall(r"\('([^']*)', <class", row["meta"])
        if base not in ("matmul", "bmm") or not stack or not stack[-1].startswith(HF_LAYER[model]):
            continue
        shapes = ast.literal_eval(row["input_shapes"])
        a, b = shapes[0], shapes[1]
        if len(a) < 3:
            continue
        count = 1
        for d in a[:-2]:
            count *= d
        m, k, n = a[-2], a[-1], b[-1]
        out.append(("scores" if not out else "context", count, m, n, k,
                    float(row["fw_latency"] or 0), float(row["bw_latency"] or 0)))
        if len(out) == 2:
            break
    return out


def extract_streams(git_dir):
    """The rows of STREAMS: every element-wise op of STREAM_OPS NeuSight timed on a part of
    STREAM_PARTS that moves STREAM_MIN_BYTES or more."""
    rows = []
    for part, gpu in STREAM_PARTS.items():
        for op, per in STREAM_OPS.items():
            path = f"scripts/asplos/data/dataset/train/collect/{op}/p2.1.0/{gpu}.csv"
            got = subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + path],
                                 capture_output=True, text=True)
            if got.returncode:
                sys.exit(f"neusight_ops: {path}: {got.stderr.strip()}")
            for r in csv.DictReader(io.StringIO(got.stdout)):
                if per * int(r["B"]) * int(r["H"]) >= STREAM_MIN_BYTES:
                    rows.append([part, op, per, r["B"], r["H"], f"{float(r['Latency']):.6f}"])
    return rows


def extract(git_dir, out=LAYER_OPS, products_out=SCORE_PRODUCTS, streams_out=STREAMS):
    rows, products = [], []
    with open(os.path.join(DATA, "published.csv"), newline="") as f:
        for r in csv.DictReader(f):
            path = r["file"][:-len(".json")] + ".csv"
            got = subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + path],
                                 capture_output=True, text=True)
            if got.returncode:
                sys.exit(f"neusight_ops: {path}: {got.stderr.strip()}")
            run = [r["part"], r["model"], r["mode"], r["seq"], r["batch"]]
            for c, (n, fw, bw) in sorted(classify_label(r["model"], got.stdout).items()):
                rows.append(run + [c, n, f"{fw:.4f}", f"{bw:.4f}"])
            got_products = score_products(r["model"], got.stdout)
            if [p[0] for p in got_products] != ["scores", "context"]:
                sys.exit(f"neusight_ops: {path}: {len(got_products)} batched products in the "
                         "trace, not the attention's two")
            for name, count, m, n, k, fw, bw in got_products:
                products.append(run + [name, count, m, n, k, f"{fw:.4f}", f"{bw:.4f}"])
    for path, columns, table in ((out, COLUMNS, rows), (products_out, PRODUCT_COLUMNS, products),
                                 (streams_out, STREAM_COLUMNS, extract_streams(git_dir))):
        with open(path, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(columns)
            w.writerows(table)
        print(f"neusight_ops: {path}: {len(table)} rows")


def measured():
    """{(part, model, mode, seq, batch): {class: (fw ms, bw ms)}}, the attention's two
    halves summed and kept apart too."""
    runs = {}
    with open(LAYER_OPS, newline="") as f:
        for r in csv.DictReader(f):
            k = (r["part"], r["model"], r["mode"], r["seq"], r["batch"])
            fw, bw = float(r["fw_ms"]), float(r["bw_ms"])
            cls = r["class"]
            d = runs.setdefault(k, {})
            d[cls] = (fw, bw)
            if cls.startswith("attention_"):
                a = d.get("attention", (0.0, 0.0))
                d["attention"] = (a[0] + fw, a[1] + bw)
    return runs


def predicted(binary, model, part, batch, seq, train):
    """{class: (fw ms, bw ms)} of the first layer's rows of predict --per-layer, the run as
    neusight_validation.py predicts it."""
    sums = {}
    for row in nv.run_predict(binary, model, part, batch, seq, train, per_layer=True)["layers"]:
        if not row["layer"].startswith(OUR_LAYER[model]) or row["type"] == "dropout":
            continue
        cls = OUR_TYPES.get(row["type"])
        if cls is None:
            sys.exit(f"neusight_ops: {model}: layer {row['layer']} of type {row['type']} "
                     "in no class")
        fw = float(row["t_fwd"] or 0) if train else float(row["t_infer"] or 0)
        bw = float(row["t_bwd"] or 0) if train else 0.0
        a = sums.get(cls, (0.0, 0.0))
        sums[cls] = (a[0] + 1e3 * fw, a[1] + 1e3 * bw)
    return sums


def compare(binary):
    """One row per run and class: measured and predicted ms, forward and backward; and the
    run's end-to-end ratio (published over predicted)."""
    published = {}
    with open(os.path.join(DATA, "published.csv"), newline="") as f:
        for r in csv.DictReader(f):
            published[(r["part"], r["model"], r["mode"], r["seq"], r["batch"])] = r
    rows = []
    for k, m in sorted(measured().items(), key=lambda kv: (nv.PARTS.index(kv[0][0]),) + kv[0]):
        part, model, mode, seq, batch = k
        train = mode == "train"
        p = predicted(binary, model, part, batch, seq, train)
        pub = published[k]
        pf, pb = nv.predict(binary, {"model": model, "part": part, "batch": batch, "seq": seq,
                                     "mode": mode})
        e2e = (float(pub["fw_ms"]) + float(pub["bw_ms"])) / (pf + pb)
        for cls in CLASSES + ["layer"]:
            if cls == "layer":
                mf = sum(m[c][0] for c in CLASSES if c in m)
                mb = sum(m[c][1] for c in CLASSES if c in m)
                qf = sum(p[c][0] for c in CLASSES if c in p)
                qb = sum(p[c][1] for c in CLASSES if c in p)
            elif cls in m and cls in p:
                (mf, mb), (qf, qb) = m[cls], p[cls]
            else:
                sys.exit(f"neusight_ops: {k}: class {cls} measured {cls in m}, "
                         f"predicted {cls in p}")
            # at the four decimals the CSV keeps, so that the document's medians are the
            # CSV's (a median of 0.92497 printed 0.92 where the CSV's 0.9250 gives 0.93)
            rows.append({"part": part, "model": model, "mode": mode, "seq": seq,
                         "batch": batch, "class": cls, "measured_fw_ms": kept(mf),
                         "predicted_fw_ms": kept(qf), "measured_bw_ms": kept(mb),
                         "predicted_bw_ms": kept(qb), "pass_ratio": kept(e2e)})
    return rows


def kept(x):
    """x as the CSV writes it (four decimals)."""
    return float(f"{x:.4f}")


def median_ratio(rows, part, cls, key, mode=None):
    v = [r["measured_" + key] / r["predicted_" + key] for r in rows
         if r["part"] == part and r["class"] == cls and r["predicted_" + key] > 0
         and r["measured_" + key] > 0 and (mode is None or r["mode"] == mode)]
    return statistics.median(v) if v else None


def layer_and_pass(rows, part):
    """Per run of part: the layer's measured over predicted time, forward and backward
    together, and the pass's."""
    lr, pr = [], []
    for r in rows:
        if r["part"] == part and r["class"] == "layer":
            lr.append((r["measured_fw_ms"] + r["measured_bw_ms"]) /
                      (r["predicted_fw_ms"] + r["predicted_bw_ms"]))
            pr.append(r["pass_ratio"])
    return lr, pr


def fmt(x):
    return "" if x is None else f"{x:.2f}"


def product_ratios(binary, path=SCORE_PRODUCTS):
    """{part: {product: {"rate": [TFLOP/s], "max": [ratios], "sum": [ratios]}}}: each
    traced score or context product (path, tests/data/neusight/score_products.csv), forward and
    backward apart, its measured time over the two ways of pricing it from the part's
    description (`scalemeter devices`: the fp32 rate, peak x efficiency at fp32, and the DRAM's
    stream, memory_bandwidth_gb_s x memory_efficiency): its
    arithmetic and its score matrix's traffic overlapped (the larger) or one after the other
    (the sum). The traffic is the score matrix's, as the model counts it (device_roofline.c):
    the scores product writes it, the context product reads the probabilities, 4 bytes a score
    at fp32; backward, each product's two gradients, twice the FLOPs and the traffic."""
    devices = sm_fit.devices(binary)
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            d = devices[r["part"]]
            rate = d["peak_tflops"]["fp32"] * 1e12 * d["efficiency"]["fp32"]
            stream = d["memory_bandwidth_gb_s"] * 1e9 * d["memory_efficiency"]
            count, m, n, k = (int(r[c]) for c in ("count", "m", "n", "k"))
            flops = 2.0 * count * m * n * k
            scores = count * m * (n if r["product"] == "scores" else k)
            e = out.setdefault(r["part"], {}).setdefault(
                r["product"], {"rate": [], "max": [], "sum": []})
            for ms, times in ((float(r["fw_ms"]), 1), (float(r["bw_ms"]), 2)):
                if ms <= 0:
                    continue
                arithmetic, traffic = times * flops / rate, times * 4.0 * scores / stream
                e["rate"].append(times * flops / (ms * 1e-3) / 1e12)
                e["max"].append(ms * 1e-3 / max(arithmetic, traffic))
                e["sum"].append(ms * 1e-3 / (arithmetic + traffic))
    return out


def products_section(products, parts):
    out = [
        "",
        "## The scores' batched products",
        "",
        "The attention's two batched products at fp32 (on the CUDA cores: TF32 off, PyTorch's "
        "default for products), each of every run's first layer (tests/data/neusight/"
        "score_products.csv; forward and backward apart): the scores' (Q K^T, as deep as a "
        "head, 64 to 128) and the context's (the probabilities times V, as deep as the keys). "
        "Each does 2 x depth FLOPs a score over 4 bytes a score of its matrix, 32 to 64 FLOPs a "
        "byte at fp32, where every part's CUDA cores meet its DRAM (about 14 to 70 FLOPs a "
        "byte at the descriptions' rates). Measured over priced, medians (range), when their "
        "arithmetic and their score matrix's traffic overlap (the larger of the two, a "
        "roofline's) and when they run one after the other (the sum, the model's at fp32 on a "
        "GPU: device_roofline.c):",
        "",
        "| part | products | scores' TFLOP/s | context's TFLOP/s | scores: overlapped | "
        "one after the other | context: overlapped | one after the other |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def cell(v):
        return f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
    for p in parts:
        if p not in products:
            continue
        s, c = products[p]["scores"], products[p]["context"]
        out.append(f"| `{p}` | {len(s['rate']) + len(c['rate'])} | "
                   f"{statistics.median(s['rate']):.1f} | {statistics.median(c['rate']):.1f} | "
                   f"{cell(s['max'])} | {cell(s['sum'])} | {cell(c['max'])} | "
                   f"{cell(c['sum'])} |")
    return out


def stream_fractions(binary, path=STREAMS):
    """{part: {op: [fraction of the part's datasheet bandwidth each row streamed at]}}, and the
    datasheet bandwidths (GB/s) and streaming fractions of the parts' descriptions."""
    devices = sm_fit.devices(binary)
    got = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            bw = devices[r["part"]]["memory_bandwidth_gb_s"] * 1e9
            moved = int(r["bytes_per_element"]) * int(r["b"]) * int(r["h"])
            got.setdefault(r["part"], {}).setdefault(r["op"], []).append(
                moved / (float(r["ms"]) * 1e-3) / bw)
    return got, {p: (devices[p]["memory_bandwidth_gb_s"], devices[p]["memory_efficiency"])
                 for p in got}


def streams_section(fractions, described):
    out = ["## Element-wise kernels timed alone", "",
           "NeuSight's training set (tests/data/neusight/streams.csv, from its "
           "scripts/asplos/data/dataset/train/collect/<op>/p2.1.0/<GPU>.csv): PyTorch's "
           "vectorised element-wise kernels on fp32 tensors that move 256 MB or more, each call "
           "timed alone with CUDA events. The bandwidth each streamed at, as a fraction of the "
           "part's datasheet figure (bytes an element: 12 for a binary op, 8 for a unary one or "
           "one by a scalar), medians over its rows, beside the fraction the part's description "
           "streams at (`memory_efficiency`, docs/devices.md):", "",
           "| part | datasheet GB/s | rows | " + " | ".join(STREAM_OPS) + " | all | description |",
           "|---|---:|---:|" + "---:|" * (len(STREAM_OPS) + 2)]
    every = {p: [x for v in ops.values() for x in v] for p, ops in fractions.items()}
    alls = {p: statistics.median(v) for p, v in every.items()}
    for part in [p for p in nv.PARTS if p in fractions]:
        ops = fractions[part]
        cells = [f"{statistics.median(ops[op]):.3f}" if op in ops else "-" for op in STREAM_OPS]
        bw, eff = described[part]
        out.append(f"| `{part}` | {bw:g} | {len(every[part])} | " + " | ".join(cells) +
                   f" | {alls[part]:.3f} | {eff:g} |")
    lo, hi = min(alls, key=alls.get), max(alls, key=alls.get)
    above = [p for p in alls if alls[p] > described[p][1]]
    hbm2 = [p for p in alls if p in ("p100", "v100-pcie-32gb")]
    out += ["", f"Alone, they stream at {alls[lo]:.2f} (`{lo}`) to {alls[hi]:.2f} (`{hi}`) of "
            "the datasheet's bandwidth, " +
            ("every part" if len(above) == len(alls) else f"{len(above)} of {len(alls)} parts") +
            " above its description's fraction" +
            ((", and not by memory type: the HBM2 of " + " and ".join(f"`{p}`" for p in hbm2) +
              " streams at " + " and ".join(f"{alls[p]:.2f}" for p in hbm2))
             if len(hbm2) == 2 else "") +
            ". The descriptions' fraction stands for whole steps, whose memory-bound kernels "
            "include reductions, strided copies and small tensors as well (docs/devices.md, "
            "\"Not modelled yet\"): these kernels' fractions are set here as evidence of what "
            "a part's plain element-wise kernels reach, not taken into its description."]
    return out


def report(rows, products, streams):
    parts = [p for p in nv.PARTS if any(r["part"] == p for r in rows)]
    runs = {(r["part"], r["model"], r["mode"], r["seq"], r["batch"]) for r in rows}
    out = [
        "# One transformer layer, op class by op class: NeuSight's per-op timings",
        "",
        "Generated by `python3 tools/neusight_ops.py --bin build/bin/scalemeter`; do not edit by "
        "hand. NeuSight published, beside each end-to-end time "
        "([accuracy-neusight.md](accuracy-neusight.md)), the time of every op of the same pass "
        "timed alone on the same GPU: each launched 25 times back to back, the mean of its 5 "
        "fastest, the end-to-end passes measured the same way (neusight/Tracing/trace.py at "
        "trsharm25/NeuSight db1fdc9). Here the first layer's ops of each of the "
        f"{len(runs)} runs (tests/data/neusight/layer_ops.csv) are summed by class and set "
        "beside the model's prices of the same layer from the part's shipped description "
        "(`scalemeter predict NET --device PART ... --per-layer`, the options "
        "tools/neusight_validation.py predicts the run with). Every row is in "
        "[ops-neusight.csv](ops-neusight.csv).",
        "",
        "Each figure is measured over predicted: above 1 the op class ran slower than priced. "
        "`pass` is the same ratio for the whole pass (published end-to-end over predicted). "
        "Medians over the part's runs.",
        "",
        "## Forward (inference, and training's forward)",
        "",
        "| part | runs | " + " | ".join(CLASS_NAMES[c] for c in CLASSES + ["layer"]) +
        " | pass |",
        "|---|---:|" + "---:|" * (len(CLASSES) + 2),
    ]
    for p in parts:
        n = len({k for k in runs if k[0] == p})
        cells = [fmt(median_ratio(rows, p, c, "fw_ms")) for c in CLASSES + ["layer"]]
        passes = [r["pass_ratio"] for r in rows if r["part"] == p and r["class"] == "layer"]
        out.append(f"| `{p}` | {n} | " + " | ".join(cells) +
                   f" | {statistics.median(passes):.2f} |")
    trained = [p for p in parts if any(r["part"] == p and r["mode"] == "train" for r in rows)]
    out += [
        "",
        "## Backward (training)",
        "",
        "NeuSight times each node's backward alone too. A residual addition has no backward "
        "kernel of its own (its gradient passes on; autograd sums the two branches' where they "
        "meet), so its column is left out here; the layer's sum keeps the model's price of it.",
        "",
        "| part | runs | " + " | ".join(CLASS_NAMES[c] for c in CLASSES if c != "residual") +
        " | the layer |",
        "|---|---:|" + "---:|" * len(CLASSES),
    ]
    for p in trained:
        n = len({k for k in runs if k[0] == p and k[2] == "train"})
        cells = [fmt(median_ratio(rows, p, c, "bw_ms", "train")) for c in CLASSES + ["layer"]
                 if c != "residual"]
        out.append(f"| `{p}` | {n} | " + " | ".join(cells) + " |")
    out += [
        "",
        "## The layer against the pass",
        "",
        "Per run, the layer's ratio over both passes (forward, and backward in training) beside "
        "the whole pass's: where the two agree the model composes the pass from its layers as "
        "the GPU ran it, and what is left of a miss is the ops' prices; where they do not, "
        "what the pass pays beyond its ops timed alone.",
        "",
        "| part | runs | the layer | the pass | pass less layer, median | lowest | highest |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in parts:
        lr, pr = layer_and_pass(rows, p)
        d = [b - a for a, b in zip(lr, pr)]
        out.append(f"| `{p}` | {len(lr)} | {statistics.median(lr):.2f} | "
                   f"{statistics.median(pr):.2f} | {statistics.median(d):+.2f} | "
                   f"{min(d):+.2f} | {max(d):+.2f} |")
    out += products_section(products, parts)
    out += [""] + streams_section(*streams)
    out += ["", "## What they show", ""] + shows(rows, parts, products)
    return "\n".join(out) + "\n"


def shows(rows, parts, products):
    """The findings, their numbers from the rows."""
    def rng(cls, key="fw_ms", only=None):
        v = [median_ratio(rows, p, cls, key) for p in (only or parts)]
        v = [x for x in v if x is not None]
        return f"{min(v):.2f}-{max(v):.2f}"
    follow, spread = {}, {}
    for p in parts:
        lr, pr = layer_and_pass(rows, p)
        follow[p] = statistics.median(b - a for a, b in zip(lr, pr))
        spread[p] = min(b - a for a, b in zip(lr, pr))
    def prng(form):
        v = [statistics.median(products[p][k][form]) for p in parts if p in products
             for k in ("scores", "context")]
        return f"{min(v):.2f}-{max(v):.2f}"
    under = [f"`{p}`" for p in parts if p in products and
             all(statistics.median(products[p][k]["sum"]) < 0.9 for k in ("scores", "context"))]
    agree = [f"`{p}`" for p in parts if abs(follow[p]) <= 0.03]
    slower = [f"`{p}`" for p in parts if follow[p] > 0.03]
    odd = [f"`{p}` ({spread[p]:+.2f})" for p in parts if spread[p] < -0.1]
    return [
        "- **Where the pass follows its layer** (the table above): on " + ", ".join(agree) +
        " the median of pass less layer is within 0.03, so their misses are the ops' prices "
        "(the P100's attention and products above); on " + ", ".join(slower) + " the passes "
        "ran slower than their ops timed alone say. Each op is timed in a burst of 25 launches "
        "of a few milliseconds, the pass for seconds: a board at its power limit can hold a "
        "higher clock through a burst than through the pass (the L4, 72 W, passively cooled), "
        "and the pass pays its launches and its allocator besides (the passes' fixed costs, "
        "[accuracy-neusight.md](accuracy-neusight.md)). The model prices the pass: an op class "
        "that comes out fast here on those parts was priced at the clock the pass holds. "
        + (("Some runs' ops timed alone took longer than their share of the pass: " +
            ", ".join(odd) + ", the lowest pass less layer; alone, each op pays a launch and "
            "its events' floor that a pass overlaps.") if odd else ""),
        f"- **The products** (projections and MLP): the MLP's at {rng('mlp')} of their price "
        "over the parts. The clock a part holds under FP32 work on its CUDA cores, taken as "
        "the one under dense tensor work, is the doubt: on the T4 and the A100 PCIe these "
        "ops alone ran faster than that clock gives. A model in which a 64-lane SM's SGEMM "
        "draws half the power a clock of 128 lanes' or dense tensor work (the clock then "
        "(128 / lanes)^(1/3) times higher under the same limit) was tried and not kept "
        "(docs/devices.md, \"Clock under the power limit\"): the Quadro RTX 8000's fp32 passes "
        "came from a median 0.905 to 1.04 of their published rate, but the T4's from 0.98 to "
        "1.16 and the A100 PCIe 80 GB's from 1.02 to 1.15: the passes hold the lower clock.",
        f"- **Element-wise work** (activation {rng('activation')}, residual additions "
        f"{rng('residual')}): streaming ops alone reach more of the DRAM's bandwidth than the "
        "model's streaming fraction (0.68-0.77 of the datasheet, fitted on an H100 against "
        "whole CNN steps) gives. The layer norms, priced by their rows on the SMs "
        f"(`rownorm_*`, measured on Hopper), go both ways ({rng('layernorm')}).",
        f"- **The attention** ({rng('attention')}): its projections and its core, the scores' "
        "batched products, scaling, mask and softmax, in one layer of the model; the "
        "measured halves are apart in layer_ops.csv (`attention_projections`, "
        "`attention_core`).",
        "- **The scores' products** (the table above): priced as a roofline prices them, "
        "their arithmetic hiding their score matrix's traffic, they ran " + prng("max") +
        " times that price, on every part; run one after the other, " + prng("sum") + ". "
        "On the CUDA cores every multiply-add is an instruction of its own, so a product this "
        "shallow keeps the SMs' issue slots full and its tiles' loads and stores wait for "
        "them: a score tile 64 deep is computed in a few steps and then written out, the next "
        "read in. The model prices them so at fp32 on a GPU (device_roofline.c, "
        "sm_scores_unhidden); at TF32 and 16 bits, one tensor-core instruction does a tile's "
        "step and copies run beside it, and it keeps the larger (an H200's BERT at fp16 and "
        "TF32 ran its products between the two, nearer the larger: ops-bert-h200.md, \"The "
        "score and context products\"). The sum comes out under 0.9 for both products on "
        + ", ".join(under) + ": there the ops alone ran faster than the model's fractions of "
        "the part's peaks give (the element-wise work above), or at a burst's clock (the parts "
        "whose passes ran slower than their ops).",
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "ops-neusight.md"))
    ap.add_argument("--extract", metavar="GIT_DIR",
                    help="rewrite tests/data/neusight/layer_ops.csv from NeuSight's label CSVs")
    a = ap.parse_args()
    if a.extract:
        extract(a.extract)
        return
    rows = compare(a.bin)
    with open(a.out, "w") as f:
        f.write(report(rows, product_ratios(a.bin), stream_fractions(a.bin)))
    with open(os.path.splitext(a.out)[0] + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})
    print(f"neusight_ops: {a.out}: {len(rows)} rows")


if __name__ == "__main__":
    main()
