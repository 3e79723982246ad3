#!/usr/bin/env python3
"""tools/neusight_ops.py, which docs/ops-neusight.md comes from: which class each traced node of
NeuSight's per-op profiles falls in, the committed sums against NeuSight's own label CSV read
by hand, and the document and the README against the rows.

By hand from scripts/asplos/label/NVIDIA_L4/bert_large-inf-512-16.csv (trsharm25/NeuSight at
db1fdc9), the first layer's fw_latency in ms: the projections query 1.4411712408065795, key
1.4456768035888672, value 1.4409728050231934 and attention.output.dense 1.4149631977081298, sum
5.742784; the residual additions add_9 0.42719... and add_10 0.43294..., sum 0.86013; the GELU
1.14339.

From the P100's gpt2_large-inf-1024-8.csv, the first layer's two batched products: matmul of
[8, 20, 1024, 64] by [8, 20, 64, 1024], fw_latency 3.7989055633544924, and matmul_1 of
[8, 20, 1024, 1024] by [8, 20, 1024, 64], 5.243667316436768. Priced by hand from the P100's
description (9.3 TFLOP/s at 0.85, 732 GB/s at 0.7): the scores' 2 x 160 x 1024^2 x 64 =
21.475 GFLOP take 2.7166 ms, their 4 x 160 x 1024^2 = 671.09 MB 1.3097 ms: measured over the
larger 1.3984, over the sum 0.9436.

With the binary, the tool is run into a temporary folder: each cell of the forward table is
the median of its rows' ratios in the CSV, each row of the layer-against-pass table its runs'
figures, and the README's figures are the document's.

Usage: test_neusight_ops.py [SCALEMETER]   (run from the source root)
"""
import csv
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, "tools")
import neusight_ops as tool  # noqa: E402

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: {got!r}, want {want!r}")


def near(what, got, want, tol=5e-4):
    if abs(got - want) > tol:
        failures.append(f"{what}: {got!r}, want {want!r}")


BIG = "(16, 512, 1024)"
L0 = "bert.encoder.layer.0."
# node classes: (model, module, node name, output shape) -> class
for args, want in [
        (("bert_large", L0 + "attention.self.query", "bert_encoder_layer_0_attention_self_query",
          BIG), "attention_projections"),
        (("bert_large", L0 + "attention.output.dense", "x", BIG), "attention_projections"),
        (("bert_large", L0 + "attention.self", "matmul_1", "(16, 16, 512, 64)"),
         "attention_core"),
        (("bert_large", L0 + "attention.self", "softmax", "(16, 16, 512, 512)"),
         "attention_core"),
        (("bert_large", L0 + "attention.output", "add_9", BIG), "residual"),
        (("bert_large", L0 + "intermediate.dense", "x", "(16, 512, 4096)"), "mlp"),
        (("bert_large", L0 + "intermediate.intermediate_act_fn", "gelu", "(16, 512, 4096)"),
         "activation"),
        (("bert_large", L0 + "output.LayerNorm", "x", BIG), "layernorm"),
        (("bert_large", L0 + "attention.self", "view_3", BIG), None),        # a view
        (("bert_large", L0 + "attention.self", "size_5", "(1,)"), None),     # a shape query
        (("bert_large", L0 + "output.dropout", "x", BIG), None),             # eval dropout
        (("bert_large", "bert.encoder.layer.1.output.dense", "x", BIG), None),  # layer 1
        (("bert_large", "bert.encoder.layer.10.output.dense", "x", BIG), None),
        (("bert_large", L0 + "attention.self", "add_4", "(2,)"), None),      # scalar arithmetic
        (("gpt2_large", "transformer.h.0", "add_10", "(8, 1024, 1280)"), "residual"),
        (("gpt2_large", "transformer.h.0.attn.c_attn", "addmm", "(8192, 3840)"),
         "attention_projections"),
        (("gpt2_large", "transformer.h.0.attn", "where", "(8, 20, 1024, 1024)"),
         "attention_core"),
        (("gpt2_large", "transformer.h.0.mlp.c_proj", "addmm_3", "(8192, 1280)"), "mlp"),
        (("gpt2_large", "transformer.h.0.mlp.act", "tanh", "(8, 1024, 5120)"), "activation"),
        (("opt_1_3b", "model.decoder.layers.0.fc1", "x", "(4096, 8192)"), "mlp"),
        (("opt_1_3b", "model.decoder.layers.0.self_attn.q_proj", "x", "(2, 2048, 2048)"),
         "attention_projections"),
        (("opt_1_3b", "model.decoder.layers.0.final_layer_norm", "x", "(4096, 2048)"),
         "layernorm")]:
    check(f"class of {args[1]} {args[2]}", tool.op_class(*args), want)

# a node of the layer in no class is an error, not a silent omission
try:
    tool.op_class("bert_large", L0 + "crossgate", "mul", BIG)
    failures.append("a node in no class: no error")
except ValueError:
    pass

# a label CSV of three nodes, its columns as NeuSight's
META = ("\"{'nn_module_stack': OrderedDict([('bert', <class 'x'>), ('%s', <class 'y'>)])}\"")
label = ("op,meta,Name,output_shape,fw_latency,bw_latency\n"
         f"call_module,{META % (L0 + 'attention.self.query')},q,\"{BIG}\",1.5,2.0\n"
         f"call_module,{META % (L0 + 'attention.self.key')},k,\"{BIG}\",0.5,1.0\n"
         f"call_method,{META % (L0 + 'attention.self')},view,\"{BIG}\",0.01,0\n"
         f"call_function,{META % (L0 + 'attention.output')},add_9,\"{BIG}\",0.25,0\n")
check("classify_label", tool.classify_label("bert_large", label),
      {"attention_projections": [2, 2.0, 3.0], "residual": [1, 0.25, 0.0]})

# the two batched products of the first layer: a 2-D product and layer 1's left out
products_label = (
    "Name,meta,input_shapes,fw_latency,bw_latency\n"
    f"matmul_9,{META % (L0 + 'attention.self')},\"[[4, 64], [64, 8]]\",0.5,0\n"
    f"matmul,{META % (L0 + 'attention.self')},\"[[2, 16, 512, 64], [2, 16, 64, 512]]\",1.0,2.0\n"
    f"matmul_1,{META % (L0 + 'attention.self')},\"[[2, 16, 512, 512], [2, 16, 512, 64]]\","
    "1.5,3.0\n"
    f"matmul_2,{META % 'bert.encoder.layer.1.attention.self'},"
    "\"[[2, 16, 512, 64], [2, 16, 64, 512]]\",9.0,9.0\n")
check("score_products", tool.score_products("bert_large", products_label),
      [("scores", 32, 512, 512, 64, 1.0, 2.0), ("context", 32, 512, 64, 512, 1.5, 3.0)])
with open(tool.SCORE_PRODUCTS, newline="") as f:
    committed_products = {(r["part"], r["model"], r["mode"], r["seq"], r["batch"], r["product"]): r
                          for r in csv.DictReader(f)}
k = ("p100", "gpt2_large", "inf", "1024", "8")
check("P100 scores product", [committed_products[k + ("scores",)][c] for c in
                              ("count", "m", "n", "k", "fw_ms")],
      ["160", "1024", "1024", "64", "3.7989"])
check("P100 context product", [committed_products[k + ("context",)][c] for c in
                               ("count", "m", "n", "k", "fw_ms")],
      ["160", "1024", "64", "1024", "5.2437"])

# the committed sums against NeuSight's label CSV, by hand (above)
with open(tool.LAYER_OPS, newline="") as f:
    committed = {(r["part"], r["model"], r["mode"], r["seq"], r["batch"], r["class"]): r
                 for r in csv.DictReader(f)}
k = ("l4", "bert_large", "inf", "512", "16")
near("L4 projections", float(committed[k + ("attention_projections",)]["fw_ms"]), 5.742784)
check("L4 projection nodes", committed[k + ("attention_projections",)]["ops"], "4")
near("L4 residual", float(committed[k + ("residual",)]["fw_ms"]), 0.86013)
near("L4 gelu", float(committed[k + ("activation",)]["fw_ms"]), 1.14339)
# every published run has its layer
with open(os.path.join(tool.DATA, "published.csv"), newline="") as f:
    runs = {(r["part"], r["model"], r["mode"], r["seq"], r["batch"]) for r in csv.DictReader(f)}
check("runs with a layer", {key[:5] for key in committed}, runs)
check("runs with their two products", sorted(key[:6] for key in committed_products),
      sorted(r + (p,) for r in runs for p in ("scores", "context")))

if len(sys.argv) > 1:
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ops.md")
        sys.argv = [sys.argv[0], "--bin", binary, "--out", out]
        tool.main()
        with open(out) as f:
            doc = f.read()
        with open(os.path.join(tmp, "ops.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
    fwd = doc.split("## Forward")[1].split("## Backward")[0]
    for m in re.finditer(r"^\| `([^`]+)` \| (\d+) \| (.*) \|$", fwd, re.M):
        part, cells = m.group(1), m.group(3).split(" | ")
        for cls, cell in zip(tool.CLASSES + ["layer"], cells):
            v = [float(r["measured_fw_ms"]) / float(r["predicted_fw_ms"]) for r in rows
                 if r["part"] == part and r["class"] == cls]
            check(f"{part} {cls}", cell, f"{statistics.median(v):.2f}")
        passes = [float(r["pass_ratio"]) for r in rows if r["part"] == part and
                  r["class"] == "layer"]
        check(f"{part} runs", m.group(2), str(len(passes)))
        check(f"{part} pass", cells[-1], f"{statistics.median(passes):.2f}")
    parts = {r["part"] for r in rows}
    check("forward table's parts", len(re.findall(r"^\| `", fwd, re.M)), len(parts))
    against = doc.split("## The layer against the pass")[1].split("## The scores")[0]
    check("layer-against-pass table's parts", len(re.findall(r"^\| `", against, re.M)),
          len(parts))
    for m in re.finditer(r"^\| `([^`]+)` \| (\d+) \| (.*) \|$", against, re.M):
        part, cells = m.group(1), m.group(3).split(" | ")
        runs = [r for r in rows if r["part"] == part and r["class"] == "layer"]
        layer = [(float(r["measured_fw_ms"]) + float(r["measured_bw_ms"])) /
                 (float(r["predicted_fw_ms"]) + float(r["predicted_bw_ms"])) for r in runs]
        passes = [float(r["pass_ratio"]) for r in runs]
        d = [b - a for a, b in zip(layer, passes)]
        check(f"{part} against the pass", [m.group(2)] + cells,
              [str(len(runs)), f"{statistics.median(layer):.2f}",
               f"{statistics.median(passes):.2f}", f"{statistics.median(d):+.2f}",
               f"{min(d):+.2f}", f"{max(d):+.2f}"])
    # one product priced both ways, by hand (above)
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one.csv")
        with open(one, "w") as f:
            f.write(",".join(tool.PRODUCT_COLUMNS) + "\n"
                    "p100,gpt2_large,inf,1024,8,scores,160,1024,1024,64,3.7989,0.0000\n")
        got = tool.product_ratios(binary, one)["p100"]["scores"]
    near("P100 scores product over the larger", got["max"][0], 1.3984)
    near("P100 scores product over the sum", got["sum"][0], 0.9436)
    near("P100 scores product's rate", got["rate"][0], 21.475 / 3.7989, 5e-3)
    # each cell of the products' table: the medians of its rows' ratios
    products = tool.product_ratios(binary)
    section = doc.split("## The scores' batched products")[1].split("## Element-wise")[0]
    cells = re.findall(r"^\| `([^`]+)` \| (\d+) \| (.*) \|$", section, re.M)
    check("products table's parts", len(cells), len(parts))
    for part, n, rest in cells:
        p = products[part]
        want = [f"{statistics.median(p['scores']['rate']):.1f}",
                f"{statistics.median(p['context']['rate']):.1f}"]
        for k in ("scores", "context"):
            for form in ("max", "sum"):
                v = p[k][form]
                want.append(f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})")
        check(f"{part} products", [n] + rest.split(" | "),
              [str(len(p["scores"]["rate"]) + len(p["context"]["rate"]))] + want)
    with open("README.md") as f:
        readme = f.read()
    m = re.search(r"its attention ([0-9.]+) times its price", readme)
    p100 = re.search(r"^\| `p100` \| \d+ \| ([0-9.]+) \|", fwd, re.M)
    check("README's P100 attention", m and m.group(1), p100 and p100.group(1))
    slower = re.search(r"; on ((?:`[^`]+`(?:, )?)+) the passes ran slower than their ops",
                       doc).group(1)
    m = re.search(r"on (the [^;.]*?)\s+the\s+passes\s+ran\s+slower", readme)
    want = ", ".join(re.findall(r"`([^`]+)`", slower))
    names = {"t4": "T4", "a100-pcie-80gb": "A100 PCIe 80 GB", "l4": "L4"}
    got = m and ", ".join(k for k, v in names.items() if v in m.group(1))
    check("README's parts whose passes ran slower than their ops", got, want)
    # the element-wise kernels timed alone: each cell the median of its rows' fractions of the
    # datasheet bandwidth, recomputed from the CSV with the bandwidths `devices` lists
    fractions, described = tool.stream_fractions(binary)
    section = doc.split("## Element-wise kernels timed alone")[1].split("## What they show")[0]
    cells = re.findall(r"^\| `([^`]+)` \| ([0-9.]+) \| (\d+) \| (.*) \|$", section, re.M)
    check("streams table's parts", sorted(c[0] for c in cells), sorted(fractions))
    for part, bw, n, rest in cells:
        ops = fractions[part]
        every = [x for v in ops.values() for x in v]
        want = [f"{statistics.median(ops[o]):.3f}" for o in tool.STREAM_OPS]
        want += [f"{statistics.median(every):.3f}", f"{described[part][1]:g}"]
        check(f"{part} streams", (float(bw), int(n), rest.split(" | ")),
              (described[part][0], len(every), want))
    # by hand, the V100 PCIe's largest add (collect/add/p2.1.0/Tesla V100-PCIE-32GB.csv):
    # 15868 x 3953 fp32 elements, 12 bytes each (two read, one written), 0.9217151999473572 ms:
    # 816.6 GB/s, 0.9074 of the datasheet's 900
    with open(tool.STREAMS, newline="") as f:
        row = [r for r in csv.DictReader(f) if r["part"] == "v100-pcie-32gb" and
               r["op"] == "add" and (r["b"], r["h"]) == ("15868", "3953")]
    check("the V100's largest add", [(r["bytes_per_element"], r["ms"]) for r in row],
          [("12", "0.921715")])
    near("its fraction", max(fractions["v100-pcie-32gb"]["add"]), 0.9074, tol=0.05)
    near("its fraction, by hand", 12 * 15868 * 3953 / 0.9217151999473572e-3 / 900e9, 0.9074)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("test_neusight_ops: all checks passed")
