#!/usr/bin/env python3
"""Where BERT's time goes on an H200, kernel class by kernel class, beside what the model
prices each layer type at: the per-op profiles of BERT for SQuAD as Lambda's benchmark trains
it (configs/calibrations/h200-pytorch-layers/bert-*.csv.gz, tools/torch_layer_profile.py with
tools/torch_bert_models.py) and `scalemeter predict --per-layer` with the framework Lambda's
rows take (dle-squad at fp16, dle-squad-fp32 at TF32; docs/accuracy-gpus.md). Writes
docs/ops-bert-h200.md.

    tools/bert_ops.py [--bin build/bin/scalemeter] [--out docs/ops-bert-h200.md]

Each op of a profiled step goes to a class by the module that ran it (the forward pass's and
inference's ops carry one; the backward pass's ops are classed by their autograd node), and
each kernel of an op by its name where the class is the attention's: the query, key and value
projections (their input copies and bias additions apart from the products), the score and
context products, and the passes over the scores (scaling, mask, softmax, dropout). Standard
library only; a few seconds.
"""
import argparse
import collections
import functools
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import broadcast_rates  # noqa: E402  (PyTorch's plain element-wise loop, tensors' sizes)
import op_table  # noqa: E402  (the profiles' reader)
import sm_fit  # noqa: E402  (the part's SMs and clock)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "configs", "calibrations", "h200-pytorch-layers")
FRAMEWORK = {"fp16": "dle-squad", "tf32": "dle-squad-fp32"}
POINTS = (("bert_base", 96), ("bert_large", 32), ("bert_large", 96))
# the model's layer types, in the order the tables give them
TYPES = ("attention", "linear", "layernorm", "gelu", "dropout", "add", "embedding")


def forward_class(row):
    """(layer type, attention part or "") of a forward or inference op, by its module."""
    m, op = row["module"], row["op"]
    if ".attention.self." in m:
        return "attention", attention_part(op, m)
    if m.endswith("attention.output.dense"):
        return "attention", "output projection"
    if m.endswith(".dense"):
        return "linear", ""
    if m.endswith("LayerNorm"):
        return "layernorm", ""
    if "dropout" in m:
        return "dropout", ""
    if m.endswith("act_fn"):
        return "gelu", ""
    if "embeddings" in m:
        return "embedding", ""
    if op == "aten::add":
        return "add", ""
    return "other", ""


def attention_part(op, module):
    if module.endswith((".query", ".key", ".value")):
        return "Q, K, V projections"
    return {"aten::bmm": "score and context products", "aten::div": "passes over the scores",
            "aten::add": "passes over the scores", "aten::softmax": "passes over the scores",
            "aten::dropout": "passes over the scores",
            "aten::contiguous": "context copy"}.get(op, "other")


def kernel_kind(name):
    """What a kernel of the Q, K, V projections does: PyTorch's copy, its bias addition, or
    cuBLAS's product."""
    if "direct_copy" in name:
        return "input copies (non-contiguous)"
    if "CUDAFunctor_add" in name:
        return "bias additions (broadcast)"
    if name.startswith("Memset"):
        return "memsets"
    return "products"


# the autograd nodes of a view's backward, which copy a gradient that arrives strided
VIEW_NODES = ("ViewBackward", "UnsafeViewBackward")


def backward_class(op):
    """The class of an autograd node's kernels."""
    op = op.replace("autograd::engine::evaluate_function: ", "")
    table = (("AddmmBackward", "projections' gradients (AddmmBackward, MmBackward)"),
             ("MmBackward", "projections' gradients (AddmmBackward, MmBackward)"),
             ("BmmBackward", "score and context products (BmmBackward)"),
             ("SoftmaxBackward", "softmax (SoftmaxBackward)"),
             ("DivBackward", "scaling (DivBackward)"),
             ("NativeLayerNormBackward", "layer norms (NativeLayerNormBackward)"),
             ("NativeDropoutBackward", "dropouts (NativeDropoutBackward)"),
             ("GeluBackward", "GELU (GeluBackward)"),
             ("EmbeddingBackward", "embeddings (EmbeddingBackward)"),
             (VIEW_NODES, "the Q, K, V views' gradients: copies and their sum (ViewBackward)"))
    for prefix, cls in table:
        if op.startswith(prefix):
            return cls
    return "other"


HIDDEN = {"bert_base": 768, "bert_large": 1024}
SEQ = 384


def is_view_copy(row, name):
    """Whether a kernel is PyTorch's copy of a non-contiguous view that the attention declares
    (plugin.h's copy_elems_fwd and _bwd): the context made contiguous forward, the views'
    gradients copied back under their autograd nodes backward."""
    if "direct_copy" not in name:
        return False
    if row["phase"] == "fwd":
        return row["op"] == "aten::contiguous" and row["module"].endswith("attention.self.core")
    node = row["op"].replace("autograd::engine::evaluate_function: ", "")
    return row["phase"] == "bwd" and node.startswith(VIEW_NODES)


@functools.lru_cache(maxsize=None)
def profile(precision):
    """op_table.load of the precision's BERT profiles, read once for every point and table."""
    return op_table.load(os.path.join(FOLDER, f"bert-{precision}.csv.gz"))


def measured(precision, model, batch):
    """{phase: Counter(class: kernel us)} of the first step (or the median one) of a point,
    {"qkv": Counter(kind: us)} for the attention's projections' kernels forward, the elements
    and kernel time of the broadcast and strided kernels forward, and [(pass, kernel us)] of
    the view copies (each of one batch x sequence x hidden tensor)."""
    phases = profile(precision)[(model, batch)][0]
    out = collections.defaultdict(collections.Counter)
    strided, copies = [], []
    for r in (r for rows in phases.values() for r in rows):
        if r["op"] == "(phase)" or not float(r["kernels"] or 0):
            continue
        if r.get("kernel_name_us"):
            for n, t in zip(r["kernel_names"].split(";"), r["kernel_name_us"].split(";")):
                if is_view_copy(r, n):
                    copies.append((r["phase"], float(t)))
        us = float(r["kernel_us"])
        if r["phase"] in ("infer", "fwd"):
            cls, part = forward_class(r)
            out[r["phase"]][cls] += us
            if part:
                out[r["phase"] + " attention"][part] += us
            names = r["kernel_names"].split(";")
            times = [float(t) for t in r["kernel_name_us"].split(";")] if r.get(
                "kernel_name_us") else []
            if r["phase"] == "fwd" and part == "Q, K, V projections":
                for n, t in zip(names, times):
                    out["qkv"][kernel_kind(n)] += t
            if r["phase"] == "fwd" and len(names) == len(times):
                elems = max(broadcast_rates.tensor_sizes(r["shapes"]), default=0)
                for n, t in zip(names, times):
                    if n.startswith(broadcast_rates.LOOP) and t > broadcast_rates.MIN_US:
                        strided.append((elems, t, "Half" in n))
        elif r["phase"] == "bwd":
            out["bwd"][backward_class(r["op"])] += us
        elif r["phase"] == "opt":
            out["opt"]["optimizer"] += us
    return out, strided, copies


LAYERS = {"bert_base": 12, "bert_large": 24}
KINDS = ("forward", "input gradient", "weight gradient")


def product_kind(name):
    """What a kernel of a linear layer's forward op or of AddmmBackward / MmBackward is, by
    the operands' layouts its name gives (cuBLAS's nvjet kernels end in them, _TNT; its xmma
    and CUTLASS ones hold them, _tn_): the forward product (TN), the input's gradient (NN),
    the weight's (NT, a product over the tokens, with split-K's reduction), the bias
    gradient's sum over the tokens (PyTorch's reduce_kernel), or other (memsets, copies)."""
    if "splitKreduce" in name:
        return "weight gradient"
    if "reduce_kernel" in name:
        return "bias gradient"
    m = re.search(r"_([TN]{2})[TN]$", name) or re.search(r"_(tn|nn|nt)_", name)
    if not m:
        return "other"
    return {"TN": "forward", "NN": "input gradient", "NT": "weight gradient"}[m.group(1).upper()]


def products(precision, model, batch):
    """{kind: kernel us} of the encoder's products (product_kind), forward and backward."""
    phases = profile(precision)[(model, batch)][0]
    out = collections.Counter()
    for r in (r for ph in ("fwd", "bwd") for r in phases.get(ph, [])):
        if r["op"] == "(phase)" or not r.get("kernel_name_us"):
            continue
        node = r["op"].replace("autograd::engine::evaluate_function: ", "")
        cls, part = forward_class(r) if r["phase"] == "fwd" else ("", "")
        linear = cls == "linear" or part in ("Q, K, V projections", "output projection")
        if linear or (r["phase"] == "bwd" and node.startswith(("AddmmBackward", "MmBackward"))):
            for n, t in zip(r["kernel_names"].split(";"), r["kernel_name_us"].split(";")):
                out[product_kind(n)] += float(t)
    return out


def priced(binary, precision, model, batch):
    """{pass: Counter(layer type: ms)} from predict --per-layer, and the step's phases."""
    cmd = [binary, "predict", model, "--device", "h200", "-g", "1", "--batch", str(batch),
           "--precision", precision, "--seq", "384", "--framework", FRAMEWORK[precision],
           "--per-layer", "--format", "json"]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    by = collections.defaultdict(collections.Counter)
    for layer in out["layers"]:
        t = layer["type"] if layer["type"] in TYPES else "other"
        t = "embedding" if t == "pos_embedding" else t
        for p in ("infer", "fwd", "bwd"):
            by[p][t] += layer["t_" + p] * 1e6
    return by


HEADS = {"bert_base": 12, "bert_large": 16}


def score_products_row(part, precision, model, batch, meas, ratios):
    """[(pass, measured ms, overlapped ms, sum ms)] of a point's score and context products,
    forward and backward, each ratio appended to ratios["max"] and ratios["sum"]."""
    scores = LAYERS[model] * batch * HEADS[model] * SEQ * SEQ
    rate = part["peak_tflops"][precision] * 1e12 * part["efficiency"][precision]
    stream = part["memory_bandwidth_gb_s"] * 1e9 * part["memory_efficiency"]
    elem = 2 if precision == "fp16" else 4
    out = []
    for phase, us, times in (("fwd", meas["fwd attention"]["score and context products"], 1),
                             ("bwd", meas["bwd"]["score and context products (BmmBackward)"],
                              2)):
        arithmetic = times * 4 * 64 * scores / rate * 1e3
        traffic = times * 2 * elem * scores / stream * 1e3
        m = us / 1e3
        hi, both = max(arithmetic, traffic), arithmetic + traffic
        ratios["max"].append(m / hi)
        ratios["sum"].append(m / both)
        out.append((precision, f"{model} {batch}", phase, m, hi, both))
    return out


def score_rows_flat(rows):
    return [[p, pt, ph, f"{m:.2f}", f"{hi:.2f}", f"{m / hi:.2f}", f"{both:.2f}",
             f"{m / both:.2f}"] for point in rows for p, pt, ph, m, hi, both in point]


def span_of(v):
    return f"{min(v):.2f}-{max(v):.2f}"


def table(md, head, rows):
    md.append("| " + " | ".join(head) + " |")
    md.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|")
    md.extend("| " + " | ".join(r) + " |" for r in rows)
    md.append("")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "ops-bert-h200.md"))
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"bert_ops: no scalemeter at {a.bin} (build first, or give --bin)")
    md = ["# BERT on an H200, op class by op class", "",
          "Written by `tools/bert_ops.py` from configs/calibrations/h200-pytorch-layers/"
          "bert-*.csv.gz (one H200, PyTorch 2.11, 2026-11-28; "
          "tests/data/gpu-runs/h200-2026-11-28/) and `scalemeter predict --per-layer` with "
          "the framework Lambda's BERT rows take (dle-squad at fp16, dle-squad-fp32 at TF32). "
          "Sequence 384. Measured: the kernels' time of one profiled step (the profiler's "
          "host times are inflated by it and left out); priced: the layers' time in the "
          "prediction (device time, the kernel's fixed cost and any wait on the host).", ""]
    per_us = sm_fit.sm_clocks_per_us(a.bin, "h200")
    strided_all = []
    copies_all = collections.defaultdict(list)
    copy_rate = sm_fit.shipped("broadcast_elements_per_sm_clock", [os.path.join(
        "configs", "frameworks", FRAMEWORK["fp16"] + ".ini")]).popitem()[1][
        "broadcast_elements_per_sm_clock"]
    bwd_total = {}
    score_rows, score_ratios = [], collections.defaultdict(list)
    part = sm_fit.devices(a.bin)["h200"]
    for precision in ("fp16", "tf32"):
        for model, batch in POINTS:
            meas, strided, copies = measured(precision, model, batch)
            score_rows.append(score_products_row(part, precision, model, batch, meas,
                                                 score_ratios))
            elems = batch * SEQ * HIDDEN[model]
            for phase, us in copies:
                copies_all[(precision, phase)].append(elems / (us * per_us))
            strided_all += strided
            pred = priced(a.bin, precision, model, batch)
            md += [f"## {model} at batch {batch}, {precision}", ""]
            rows = []
            for p in ("infer", "fwd"):
                for c in [t for t in TYPES if meas[p][t] or pred[p][t]] + ["other"]:
                    m, q = meas[p][c] / 1e3, pred[p][c] / 1e3
                    rows.append([p, c, f"{m:.2f}", f"{q:.2f}" if q else "-",
                                 f"{m / q:.2f}" if q and m else "-"])
                m, q = sum(meas[p].values()) / 1e3, sum(pred[p].values()) / 1e3
                rows.append([p, "**all**", f"{m:.2f}", f"{q:.2f}", f"{m / q:.2f}"])
            # backward kernels run under autograd's nodes, not the layers (a residual sum's
            # accumulation under the node returning the second gradient, a projection's
            # gradients under AddmmBackward whichever layer it is): by node, totals compared
            for c, us in sorted(meas["bwd"].items(), key=lambda kv: -kv[1]):
                if us >= 50:
                    rows.append(["bwd", c, f"{us / 1e3:.2f}", "", ""])
            m, q = sum(meas["bwd"].values()) / 1e3, sum(pred["bwd"].values()) / 1e3
            bwd_total[(precision, model, batch)] = (m, q)
            rows.append(["bwd", "**all**", f"{m:.2f}", f"{q:.2f}", f"{m / q:.2f}"])
            rows.append(["opt", "optimizer", f"{meas['opt']['optimizer'] / 1e3:.2f}", "", ""])
            table(md, ["pass", "class", "measured ms", "priced ms", "measured / priced"], rows)
            md.append("The backward pass priced by layer type: " + "; ".join(
                f"{t} {pred['bwd'][t] / 1e3:.2f} ms" for t in TYPES + ("other",)
                if pred["bwd"][t]) + ".")
            md.append("")
            att = meas["fwd attention"]
            qkv = meas["qkv"]
            md.append("The attention's forward pass, measured: " + "; ".join(
                f"{k} {v / 1e3:.2f} ms" for k, v in att.most_common()) + ". Of the Q, K, V "
                "projections: " + "; ".join(f"{k} {v / 1e3:.2f} ms" for k, v in qkv.most_common())
                + ".")
            md.append("")
    md += ["## The score and context products", "",
           "The attention's two batched products (Q K^T and the probabilities times V, 64 deep "
           "a head, on the tensor cores at fp16 and TF32), every layer's, measured against the "
           "two ways of pricing them from the H200's description: their arithmetic (4 x 64 "
           "FLOPs a score forward, at the precision's peak x efficiency) and their score "
           "matrices' traffic (the scores written, the probabilities read: 2 bytes a score at "
           "fp16, 4 at TF32, at the DRAM's bandwidth x memory efficiency; backward twice "
           "both) overlapped, the larger of the two (the model's on tensor cores), or one "
           "after the other, the sum (the model's at fp32 on the CUDA cores, "
           "device_roofline.c):", ""]
    table(md, ["precision", "point", "pass", "measured ms", "overlapped ms",
               "measured / overlapped", "one after the other ms", "measured / sum"],
          score_rows_flat(score_rows))
    md += [f"Measured over the larger {span_of(score_ratios['max'])}, over the sum "
           f"{span_of(score_ratios['sum'])}: on the tensor cores the traffic runs mostly, "
           "not wholly, beside the arithmetic.", ""]
    md += ["## Matrix products by pass", "",
           "The encoder's projections (Q, K, V, the attention's output, the two of the feed-"
           "forward block: 12 h^2 weights a layer) by what cuBLAS's kernels compute, each "
           "2 x tokens x weights FLOPs, as a fraction of the H200's dense peak (`scalemeter "
           "devices`), where the model takes the description's compute efficiency for every "
           "pass; and the bias gradients' sums over the tokens, kernels of their own:", ""]
    peaks = part
    rows, fracs, gaps = [], collections.defaultdict(list), []
    for precision in ("fp16", "tf32"):
        peak = peaks["peak_tflops"][precision] * 1e12
        eff = peaks["efficiency"][precision]
        for model, batch in POINTS:
            got = products(precision, model, batch)
            flops = 2 * batch * SEQ * LAYERS[model] * 12 * HIDDEN[model] ** 2
            frac = {k: flops / (got[k] * 1e-6) / peak for k in KINDS if got[k]}
            for k, f in frac.items():
                fracs[(precision, k)].append(f)
            rows.append([precision, f"{model} {batch}", f"{eff:.2f}"] + [
                f"{frac.get(k, 0):.2f} ({got[k] / 1e3:.1f} ms)" for k in KINDS] +
                [f"{got['bias gradient'] / 1e3:.1f}"])
            if precision == "tf32":
                # the backward products' time over their price at the model's fraction (the
                # bias gradients' sums are priced, bias_grad_*): against what the pass
                # measures over its price
                at_eff = flops / (eff * peak) * 1e3
                short = sum(got[k] / 1e3 - at_eff for k in KINDS[1:])
                m, q = bwd_total[(precision, model, batch)]
                gaps.append(f"{model} at batch {batch} {short:.1f} of {m - q:.1f} ms")
    table(md, ["precision", "point", "model's fraction", "forward", "input gradient",
               "weight gradient", "bias gradients ms"], rows)

    def span(precision, *kinds):
        return span_of([f for k in kinds for f in fracs[(precision, k)]])
    md += [f"At 16 bits cuBLAS's products reach {span('fp16', *KINDS)} of the peak in every "
           f"pass, about the model's {peaks['efficiency']['fp16']:.2f}. At TF32 the forward "
           f"products reach {span('tf32', 'forward')}, the input's gradient "
           f"{span('tf32', 'input gradient')} and the weight's, a product over every token of "
           f"the batch (K = batch x 384), {span('tf32', 'weight gradient')}. Their time over "
           "their price at the model's fraction, against what the backward pass measures over "
           "its price (the bias gradients' sums priced apart, plugin ABI 20's bias_grad_elems "
           "at the framework's `bias_grad_*`): "
           + "; ".join(gaps) + ". A fraction per pass for the products, as the convolutions "
           "have by kind, would price them (issue 38's per-op table).", ""]
    md += ["## Copies of non-contiguous views", "",
           "PyTorch's copies of the views BERT's eager attention makes (its context made "
           "contiguous forward; backward, the query's, key's and value's gradients copied back "
           "from the heads' layout under their views' autograd nodes), each of batch x 384 x "
           "hidden elements, in output elements per SM and clock (the H200's 132 SMs at its "
           "sustained clock), against what the model prices them at: the framework's "
           "`broadcast_elements_per_sm_clock`, TensorIterator's non-vectorized loop "
           f"({copy_rate}), or the DRAM's rate where that is slower (plugin.h's "
           "copy_elems_fwd and _bwd, ABI 19):", ""]
    rows = []
    for precision in ("fp16", "tf32"):
        for phase in ("fwd", "bwd"):
            rates = sorted(copies_all[(precision, phase)])
            if not rates:
                continue
            slow = sum(r < 0.5 * rates[len(rates) // 2] for r in rates)
            rows.append([precision, phase, str(len(rates)), f"{rates[len(rates) // 2]:.2f}",
                         f"{rates[0]:.2f}-{rates[-1]:.2f}", str(slow)])
    table(md, ["precision", "pass", "kernels", "median", "range", "under half the median"],
          rows)
    md += ["One copy a layer forward and three backward, of which one runs at under half the "
           "others' rate: a copy whose source it reads across the rows (most likely the key's "
           "gradient, which the score product returns transposed). Priced at the loop's rate, "
           "that one is left short, the others a little long at 16 bits.", ""]
    md += ["## PyTorch's strided and broadcast element-wise kernels", ""]
    for half, name in ((True, "16-bit"), (False, "32-bit")):
        rates = sorted(e / (t * per_us) for e, t, h in strided_all if h == half)
        if rates:
            md.append(f"- {name}: {len(rates)} kernels of over 20 us forward, output elements "
                      f"per SM and clock: median {rates[len(rates) // 2]:.2f}, range "
                      f"{rates[0]:.2f}-{rates[-1]:.2f} ({rates[len(rates) // 2] * (4 if half else 8):.1f}"
                      " bytes of output and input a clock).")
    md += ["", "Where an operand is broadcast (the additive mask over the scores, the bias over "
           "a product's rows in the first layer) or lies transposed (that layer's input, "
           "seq-first in this code), PyTorch's TensorIterator runs its non-vectorized loop "
           "(`elementwise_kernel<128, 4>`, `<128, 2>` at 32 bits): bound by the SMs, at 0.3 "
           "(16-bit) to 0.5 (32-bit) of the H200's DRAM rate, where its vectorized kernels (the "
           "scaling, GELU) stream at 0.9 of it. The mask's addition is one such kernel a layer "
           "over every score, which the model prices at the framework's "
           "`broadcast_elements_per_sm_clock` (plugin.h's scores_broadcast_passes, ABI 18); "
           "the copies of views above run the same loop.", ""]
    with open(a.out, "w") as f:
        f.write("\n".join(md))
    print(f"bert_ops: wrote {os.path.relpath(a.out, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
