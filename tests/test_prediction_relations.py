"""Metamorphic relations between predictions: a change of the input whose effect on the output
is known from physics or from the documented equations (docs/scaling.md, docs/memory.md,
docs/devices.md, docs/output.md, predict --help), checked over seeded random configurations of
the zoo, the shipped devices and frameworks, precisions, sharding, checkpointing, optimizers,
accumulation, overlap, batches and node counts. test_invariants.py checks the relations inside
one prediction; these compare two or more:

- weak scaling (curve --batch B --nodes 1..32): t_infer, t_fwd and t_bwd do not depend on the
  node count (every exposed collective is in t_grad); DDP's memory is the same on every count of
  two devices or more, and its t_grad never falls (efficiency <= 1); sharded, no part of the
  memory grows with the devices. Also with a ring-form calibration fitted here;
- the layout: N nodes of G devices hold and compute what N' of G' do when N G = N' G';
- a faster description (more peak, bandwidth, efficiency, sustained clock, power; less
  dispatch, launch or link latency; more link bandwidth) is never slower in a pass or a step,
  nor in t_grad where no compute hides the collectives (DDP or ZeRO-1/2 without --overlap; link
  edits always); it changes no memory; more memory_gib changes no time and never lowers
  --max-batch. A cheaper [framework] (less dispatch, no casts, channels-last, fused epilogues
  or BN-ReLU kernels where neither was, 2-byte gradients without --overlap, whose byte-sized
  buckets then hold other layers) likewise;
- --checkpoint: full keeps no more activations than selective, selective no more than none;
  t_infer and t_fwd unchanged, full recomputes at least what selective does;
- --accumulate K at B: one micro-batch's memory, passes and --max-batch; the step's FLOPs
  (mfu x t_step x peak) are batch K B's;
- network files: renaming every layer, block and template changes nothing; writing a repeated
  block's repetitions out one by one changes nothing; an identity or a dropout of p = 0 after
  any layer changes nothing (the output's lifetime, fusion); repeating a block range twice adds
  exactly the range's per-block metrics and takes more time and memory;
- per-layer and per-block metrics add up to the network's; predict --per-block adds up to
  t_fwd (predict --help);
- JSON, CSV and the table carry the same numbers (the table to its printed digits);
- round trips: curve's CSV validated against its own predictor has errors of 0; `fit` on a
  calibration's own curve predicts other networks as that calibration does;
- a calibration's passes are affine in the batch (ConvMeter's equations), its t_grad does not
  depend on it, and beside --device its passes and one device's update are its own;
- the roofline: a pass at batch 2b takes at most twice batch b's (and memory at most doubles);
- tf32 is never slower than fp32 (it allows the tensor cores, does not force them); fp16 and
  bf16 are the same step on a network without attention where their peaks and efficiencies
  agree; fused attention keeps and moves no more than eager;
- NCCL restricted (--algorithm, --protocol) never synchronises faster than its free choice;
- the hierarchical ring's t_sync equation of docs/scaling.md, to the byte and microsecond;
- allreduce --device: time never falls with the size or the nodes; algbw and busbw as
  nccl-tests computes them;
- strong scaling's point is the weak point at floor(G / (K devices)); several networks and
  batches in one curve are each its curve alone, and a node count alone its point in a sweep;
- a larger --image or --seq takes no less time or memory;
- t_infer and memory_infer do not depend on how training runs (sharding, checkpointing, the
  optimizer, accumulation, nodes, overlap): inference is a replica's forward pass;
- memory: --coeffs default holds what --device cpu holds; a GPU calibration beside --device
  what the description alone holds; sgd <= momentum <= adam = adamw in optimizer state
  and in the update's time;
- energy: power = e_step / t_step, e_epoch = steps x e_step, e_train = E x e_epoch, and the
  job's inference energy is one device's times the devices.

usage: test_prediction_relations.py SCALEMETER [--scale F] [--seed S]   (run from the source root)
"""
import csv
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

from cli_checks import SM, check, finish, flattened

args = sys.argv[2:]
SCALE = float(args[args.index("--scale") + 1]) if "--scale" in args else 1.0
SEED = int(args[args.index("--seed") + 1]) if "--seed" in args else 20261126
REL = 2e-5  # outputs are printed to 6 significant digits
TIMES = ("t_infer", "t_fwd", "t_bwd", "t_grad", "t_step")
PASSES = ("t_infer", "t_fwd", "t_bwd")
METRICS = ("flops", "macs", "bwd_flops", "inputs", "outputs", "weights", "layers",
           "param_tensors", "kernels", "bytes", "kernels_infer", "kernels_fwd", "kernels_bwd")
TMP = tempfile.mkdtemp(prefix="sm_invariants_")
counts = {}


def n(k):
    """How many draws a relation gets: k at scale 1."""
    return max(1, int(k * SCALE))


def counted(relation):
    counts[relation] = counts.get(relation, 0) + 1


def run(*a):
    p = subprocess.run([SM, *map(str, a)], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def sm_json(*a):
    rc, out, err = run(*a, "--format", "json")
    return (json.loads(out), None) if rc == 0 else (None, err.strip())


def predict_pair(what, first, second):
    """predict's JSON of two argument lists, or None where one is refused (and then the other
    must be refused too: an edit that changes no validity)."""
    a, ea = sm_json("predict", *first)
    b, eb = sm_json("predict", *second)
    if a is None or b is None:
        check((a is None) == (b is None), f"{what}: refused one way only: {ea} | {eb}")
        return None
    return a, b


def close(a, b, rel=REL):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def not_above(a, b, rel=REL):
    """a <= b to the printed digits."""
    return a <= b * (1 + rel) + 1e-12


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def show(a):
    return " ".join(map(str, a))


zoo = sm_json("models")[0]["models"]
models = [m["model"] for m in zoo]
inputs = {m["model"]: m["input"] for m in zoo}
model_path = {m["model"]: m["path"] for m in zoo}
devices = sm_json("devices")[0]["devices"]
device_path = {d["device"]: d["path"] for d in devices}
gpus = [d for d in devices if d["device"] != "cpu"]
frameworks = sorted(f[:-4] for f in os.listdir("configs/frameworks") if f.endswith(".ini"))
calibrations = ["default", "h100-pytorch-tf32", "h100-pytorch-bf16", "h100-pytorch-fp32",
                "h100-scalemeter-fp32"]
attention = [m for m in models if m.startswith(("bert", "gpt", "llama", "megatron", "vit"))]


def has_depthwise(model):
    """Whether the network has a depthwise convolution (groups = out = its input channels,
    read as conv2d's groups equal to its out), which PyTorch runs in its own kernel at bf16
    and in cuDNN's at fp16 (ATen's use_cudnn_depthwise): fp16 and bf16 then differ."""
    with open(model_path[model]) as f:
        for line in f:
            g = re.search(r"\bconv2d\b.*\bgroups=(\d+)", line)
            o = re.search(r"\bout=(\d+)", line)
            if g and o and g.group(1) == o.group(1):
                return True
    return False


def precisions(dev):
    return [p for p, v in dev["peak_tflops"].items() if v]


def max_g(dev_name):
    text = open(device_path[dev_name]).read()
    m = re.search(r"^max_devices_per_node\s*=\s*(\d+)", text, re.M) or \
        re.search(r"^devices_per_node\s*=\s*(\d+)", text, re.M)
    return int(m.group(1))


def draw(rng, dev=None, shard=True, checkpoint=True, model=None):
    """predict's options for one random configuration (batch and layout apart)."""
    dev = dev or rng.choice(devices)
    o = [model or rng.choice(models), "--device", dev["device"], "--precision",
         rng.choice(precisions(dev))]
    if shard:
        o += ["--shard", rng.choice(["none", "optimizer", "gradients", "full"])]
    if checkpoint:
        o += ["--checkpoint", rng.choice(["none", "selective", "full"])]
    o += ["--optimizer", rng.choice(["sgd", "momentum", "adam", "adamw"])]
    o += rng.choice([[], [], ["--overlap"], ["--collective", "ring"]])
    if dev["device"] != "cpu" and rng.random() < 0.25:
        o += ["--framework", rng.choice(frameworks)]
    return o


# ---- weak scaling ----------------------------------------------------------------------------
def weak_scaling(rng, predictor_options):
    g = rng.choice([1, 2, 8])
    opts = predictor_options + ["-g", g, "--batch", rng.choice([1, 2, 16]), "--accumulate",
                                rng.choice([1, 1, 3])]
    shard = opts[opts.index("--shard") + 1] if "--shard" in opts else "none"
    nodes = "2,4,8,16,32" if g == 1 and shard == "full" else "1,2,4,8,16,32"
    d, _ = sm_json("curve", *opts, "--nodes", nodes)
    if d is None:
        return
    counted("weak scaling")
    what = "curve " + show(opts) + " --nodes " + nodes
    pts = d["curves"][0]["points"]
    for t in PASSES:
        check(all(p[t] == pts[0][t] for p in pts),
              f"{what}: {t} varies with the nodes: {[p[t] for p in pts]}")
    multi = [p for p in pts if p["devices"] >= 2]
    for a, b in zip(multi, multi[1:]):
        if shard == "none":
            check(a["memory"] == b["memory"],
                  f"{what}: DDP memory differs at {a['nodes']} and {b['nodes']} nodes")
            check(not_above(a["t_grad"], b["t_grad"]), f"{what}: DDP t_grad falls from "
                  f"{a['t_grad']} to {b['t_grad']} at {b['nodes']} nodes")
        else:
            for k in ("weights", "gradients", "optimizer", "activations", "backward", "peak"):
                check(b["memory"][k] <= a["memory"][k], f"{what}: sharded memory {k} grows "
                      f"from {a['memory'][k]} to {b['memory'][k]} at {b['nodes']} nodes")
    if shard == "none":
        for p in pts:
            check(p["efficiency"] is None or p["efficiency"] <= 1 + REL,
                  f"{what}: DDP efficiency {p['efficiency']} at {p['nodes']} nodes")


rng = random.Random(SEED)
for _ in range(n(240)):
    weak_scaling(rng, draw(rng))
for _ in range(n(40)):
    weak_scaling(rng, [rng.choice(models), "--coeffs", rng.choice(calibrations)])

# a ring-form calibration with every communication term, fitted to the hierarchical ring
fit_models = "resnet18,resnet50,vgg11,mobilenet_v2,squeezenet1_0,densenet121,alexnet"


def fit_curves(name, predictor):
    """A calibration fitted to curve's CSV of fit_models under the predictor's options, at 1 and
    4 devices per node: NAME.ini, beside the runs NAME_runs.csv."""
    rows = []
    for g in (1, 4):
        rc, out, err = run("curve", fit_models, *predictor, "--batch", "4,16,64", "--nodes",
                           "1,2,4", "-g", g, "--format", "csv")
        check(rc == 0, f"curve {' '.join(predictor)} for the {name} calibration: {err}")
        rows += out.splitlines()[(0 if g == 1 else 1):]
    runs = os.path.join(TMP, f"{name}_runs.csv")
    with open(runs, "w") as f:
        f.write("\n".join(rows) + "\n")
    cal = os.path.join(TMP, f"{name}.ini")
    rc, _, err = run("fit", runs, "-o", cal)
    check(rc == 0, f"fit {runs}: {err}")
    return cal


ring_cal = fit_curves("ring", ["--device", "h100", "--collective", "ring"])
for _ in range(n(40)):
    weak_scaling(rng, [rng.choice(models), "--coeffs", ring_cal,
                       *rng.choice([[], ["--overlap"], ["--device", "h100"],
                                    ["--device", "a100", "--collective", "ring", "--overlap"]])])

# ---- inference is one replica's forward pass, however training runs (docs/memory.md) -------------
for _ in range(n(60)):
    dev = rng.choice(devices)
    opts = draw(rng, dev, shard=False, checkpoint=False)[:5] + ["--batch", rng.choice([1, 4, 32])]
    alone, _ = sm_json("predict", *opts, "-g", 1)
    training = ["--shard", rng.choice(["none", "optimizer", "gradients", "full"]), "--checkpoint",
                rng.choice(["none", "selective", "full"]), "--optimizer",
                rng.choice(["sgd", "adamw"]), "--accumulate", rng.choice([1, 3]), "--nodes",
                rng.choice([1, 2, 8]), "-g", 2, *rng.choice([[], ["--overlap"]])]
    d, _ = sm_json("predict", *opts, *training)
    if alone and d:
        counted("inference apart from training")
        check(d["t_infer"] == alone["t_infer"] and d["memory_infer"] == alone["memory_infer"],
              f"predict {show(opts)} {show(training)}: inference differs from one device's")

# ---- the layout: N x G devices are N x G devices ---------------------------------------------
for _ in range(n(80)):
    dev = rng.choice([d for d in devices if max_g(d["device"]) >= 8])
    opts = draw(rng, dev) + ["--batch", rng.choice([1, 4, 32])]
    outs = [sm_json("predict", *opts, "--nodes", nn, "-g", g)[0]
            for nn, g in ((1, 8), (2, 4), (4, 2), (8, 1))]
    if not all(outs):
        continue
    counted("layout")
    for o, (nn, g) in zip(outs[1:], ((2, 4), (4, 2), (8, 1))):
        check(o["memory"] == outs[0]["memory"],
              f"predict {show(opts)}: memory on {nn} x {g} differs from 1 x 8")
        for t in PASSES:
            check(o[t] == outs[0][t], f"predict {show(opts)}: {t} on {nn} x {g} "
                  f"{o[t]}, on 1 x 8 {outs[0][t]}")


# ---- faster descriptions and frameworks ---------------------------------------------------------
def set_key(text, key, fn):
    pat = re.compile(rf"^({key}\s*=\s*)([^\s;]+)", re.M)
    m = pat.search(text)
    if not m:
        return None
    return pat.sub(lambda x: x.group(1) + repr(fn(float(x.group(2)))), text, count=1)


LINKS = ("intra_node_bandwidth_gb_s", "inter_node_bandwidth_gb_s", "intra_node_latency_us",
         "inter_node_latency_us", "nvls_efficiency")
DEVICE_EDITS = [
    ("peak_fp32_tflops", lambda v: v * 1.02),  # the loader holds it to SMs x lanes x clock, 3%
    ("peak_tf32_tflops", lambda v: v * 1.5),
    ("peak_fp16_tflops", lambda v: v * 1.5),
    ("peak_bf16_tflops", lambda v: v * 1.5),
    ("memory_bandwidth_gb_s", lambda v: v * 1.5),
    ("power_limit_w", lambda v: v * 1.3),
    ("compute_efficiency_fp32", lambda v: min(1, v * 1.2)),
    ("compute_efficiency_tf32", lambda v: min(1, v * 1.2)),
    ("compute_efficiency_bf16", lambda v: min(1, v * 1.2)),
    ("conv_efficiency_bf16", lambda v: min(1, v * 1.2)),
    ("compute_efficiency", lambda v: min(1, v * 1.2)),
    ("memory_efficiency", lambda v: min(1, v * 1.2)),
    ("sustained_clock_mhz", lambda v: v * 1.1),
    ("launch_overhead_us", lambda v: v / 2),
    ("dispatch_infer_us", lambda v: v / 2),
    ("dispatch_fwd_us", lambda v: v / 2),
    ("dispatch_bwd_us", lambda v: v / 2),
    ("dispatch_update_us", lambda v: v / 2),
    ("intra_node_bandwidth_gb_s", lambda v: v * 1.5),
    ("inter_node_bandwidth_gb_s", lambda v: v * 1.5),
    ("intra_node_latency_us", lambda v: v / 2),
    ("inter_node_latency_us", lambda v: v / 2),
    ("nvls_efficiency", lambda v: min(1, v * 1.1)),
    ("memory_gib", lambda v: v * 2),
]
variants = []
for dev in devices:
    text = flattened(device_path[dev["device"]])  # its framework's keys to edit
    base = write(f"{dev['device']}.ini", text)
    for key, fn in DEVICE_EDITS:
        edited = set_key(text, key, fn)
        if edited:
            variants.append((dev, key, base, write(f"{dev['device']}-{key}.ini", edited)))
    boost = re.search(r"^boost_clock_mhz\s*=\s*(\S+)", text, re.M)
    if boost and "sustained_clock_mhz" not in text:  # a clock where the power model gave one
        clock = float(boost.group(1))
        slow, fast = (text.replace("[device]\n", "[device]\nsustained_clock_mhz = "
                                   f"{f * clock:.0f}\n", 1) for f in (0.7, 0.9))
        variants.append((dev, "sustained_clock_mhz", write(f"{dev['device']}-s7.ini", slow),
                         write(f"{dev['device']}-s9.ini", fast)))
def without(opts, option):
    """opts less an option and its value."""
    if option not in opts:
        return opts
    i = opts.index(option)
    return opts[:i] + opts[i + 2:]


for dev, key, base, edited in rng.sample(variants, min(len(variants), n(300))):
    for _ in range(2):
        # the description's own [framework]: the edit may be of it
        opts = without(without(draw(rng, dev), "--device"), "--framework")
        opts += ["--batch", rng.choice([1, 8, 64]), "--nodes", rng.choice([1, 2, 8]),
                 "-g", rng.choice([g for g in (1, 2, 8) if g <= max_g(dev["device"])])]
        what = f"predict {show(opts)} --device {dev['device']} with {key} edited"
        pair = predict_pair(what, [*opts, "--device", base], [*opts, "--device", edited])
        if pair is None:
            continue
        a, b = pair
        counted("faster description")
        # the passes hide collectives: only max(0, comm - compute) shows (docs/scaling.md)
        hidden = "--overlap" in opts or opts[opts.index("--shard") + 1] == "full"
        # where the host runs ahead of a faster device, a host-bound pass keeps its length but
        # its units' spans on the GPU shift (the queue's), and a collective beside a shorter
        # one shows more: the passes are no slower, the step by no more than its collectives
        queued = hidden and re.search(r"(?m)^host_runs_ahead\s*=\s*1", open(base).read())
        for t in TIMES:
            if t == "t_grad" and hidden and key not in LINKS:
                continue
            if key == "memory_gib":
                check(a[t] == b[t], f"{what}: {t} {a[t]} -> {b[t]}")
            elif t == "t_step" and queued and key not in LINKS:
                check(not_above(b[t] - b["t_grad"], a[t] - a["t_grad"]),
                      f"{what}: {t} less t_grad {a[t] - a['t_grad']} -> {b[t] - b['t_grad']}")
            else:
                check(not_above(b[t], a[t]), f"{what}: {t} {a[t]} -> {b[t]}")
        if key == "memory_gib":
            check(not a["memory"]["fits"] or b["memory"]["fits"], f"{what}: fits no more")
        else:
            check(a["memory"] == b["memory"], f"{what}: memory changes")
    if key == "memory_gib":
        m = rng.choice(models)
        a, _ = sm_json("predict", m, "--device", base, "--max-batch")
        b, _ = sm_json("predict", m, "--device", edited, "--max-batch")
        if a and b:
            check(a["max_batch"] <= b["max_batch"], f"predict {m} --max-batch: "
                  f"{a['max_batch']} on {dev['device']}, {b['max_batch']} with twice its memory")


# The shipped parts that are another part with every limit at least as high, by their
# datasheets (every peak the slower has, the DRAM's bandwidth, SMs x boost clock, the power
# limit), priced by the same eager framework ([framework] base): the H200 over the H100, an SXM
# module over its PCIe card, the A100 PCIe 80GB over the 40GB, the L40S over the L4, ... The
# faster never takes longer on one device. A file that kept an older fit of the dispatch made
# the H200 slower than the H100; the H100 at 700 W and 3.35 TB/s came out slower than Grand
# Teton's at 500 W and 2.4 TB/s at TF32 while the one priced its convolutions by kind and the
# other not.
def datasheet(dev):
    figures = {f"peak_{p}": v for p, v in dev["peak_tflops"].items() if v}
    figures.update(bandwidth=dev["memory_bandwidth_gb_s"], power=dev["power_limit_w"] or 0,
                   sm_clock=(dev["sm_count"] or 0) * (dev["boost_clock_mhz"] or 0))
    return figures


SIBLINGS = []
for fast, slow in ((a, b) for a in gpus for b in gpus if a is not b):
    f, s_ = datasheet(fast), datasheet(slow)
    if set(s_) <= set(f) and all(f[k] >= s_[k] for k in s_) and \
            any(f[k] > s_[k] for k in s_) and fast["framework_base"] == slow["framework_base"]:
        SIBLINGS.append((fast["device"], slow["device"]))
for pair in (("h200", "h100"), ("h100", "h100-pcie"), ("h100", "h100-96gb-500w"),
             ("a100", "a100-pcie-80gb"), ("a100-pcie-80gb", "a100-pcie-40gb"),
             ("v100", "v100-pcie-32gb")):
    check(pair in SIBLINGS, f"{pair[0]} over {pair[1]}: not a pair by their datasheets and "
          "framework bases (a figure or the base changed?)")
by_name = {d["device"]: d for d in devices}
for fast, slow in SIBLINGS:
    for _ in range(max(1, n(3))):
        common = [p for p in precisions(by_name[slow]) if p in precisions(by_name[fast])]
        opts = [rng.choice(models), "--precision", rng.choice(common), "--batch",
                rng.choice([1, 8, 64]), "-g", 1, "--checkpoint",
                rng.choice(["none", "selective", "full"])]
        opts += rng.choice([[], ["--framework", rng.choice(frameworks)]])
        what = f"predict {show(opts)} on {fast} and {slow}"
        pair = predict_pair(what, [*opts, "--device", fast], [*opts, "--device", slow])
        if pair is None:
            continue
        a, b = pair
        counted("a faster sibling part")
        for t in TIMES:
            check(not_above(a[t], b[t]), f"{what}: {t} {a[t]} on {fast}, {b[t]} on {slow}")


def set_framework_key(text, key, value):
    pat = re.compile(rf"^{key}\s*=.*$", re.M)
    if pat.search(text):
        return pat.sub(f"{key} = {value}", text, count=1)
    return text.replace("[framework]\n", f"[framework]\n{key} = {value}\n", 1)


def framework_key(text, key):
    m = re.search(rf"^{key}\s*=\s*([^\s;]+)", text, re.M)
    return m.group(1) if m else None


cheaper = []
for fw in frameworks:
    text = open(f"configs/frameworks/{fw}.ini").read()
    base = write(f"fw-{fw}.ini", text)
    edits = [(k, float(framework_key(text, k)) / 2) for k in
             ("dispatch_infer_us", "dispatch_fwd_us", "dispatch_bwd_us", "dispatch_update_us")
             if framework_key(text, k)]
    if framework_key(text, "autocast_casts_per_matmul") not in (None, "0"):
        edits.append(("autocast_casts_per_matmul", 0))
    if framework_key(text, "channels_last") in (None, "0"):
        edits.append(("channels_last", 1))
    # fuse_epilogues wins where both are set (docs/scaling.md), dropping BN-ReLU's kernels for
    # its own rule: each is cheaper only than a framework of neither
    if framework_key(text, "fuse_epilogues") in (None, "0") and \
            framework_key(text, "fuse_bn_relu") in (None, "0"):
        edits += [("fuse_epilogues", 1), ("fuse_bn_relu", 1)]
    if framework_key(text, "grad_bytes_per_weight") in (None, "4"):
        edits.append(("grad_bytes_per_weight", 2))
    for k, v in edits:
        cheaper.append((fw, f"{k} = {v}", base,
                        write(f"fw-{fw}-{k}.ini", set_framework_key(text, k, v))))
# channels-last takes cuDNN's transposes away, but PyTorch then hands every depthwise
# convolution to cuDNN's NHWC kernels, slower than its own at fp32 and TF32 (an H200's
# ConvNeXt-T: 0.013 and 0.030 elements a clock backward, its own kernel 0.34): no relation
# for the networks of grouped convolutions
grouped = {m for m in models if re.search(r"\bgroups=", open(model_path[m]).read())}
for fw, edit, base, edited in cheaper:
    for _ in range(n(8)):
        dev = rng.choice(gpus)
        model = rng.choice([m for m in models if m not in grouped]) \
            if edit.startswith("channels_last") else None
        opts = without([a for a in draw(rng, dev, model=model) if a != "--overlap"],
                       "--framework")
        # 2-byte gradients fill DDP's byte-sized buckets with twice the layers, so with
        # --overlap the last bucket, sent after the backward pass, can be larger: no relation
        overlap = [] if edit.startswith("grad_bytes") else rng.choice([[], ["--overlap"]])
        opts += overlap + ["--batch", rng.choice([1, 8, 64]), "--nodes", rng.choice([1, 2, 8]),
                           "-g", rng.choice([1, 2])]
        what = f"predict {show(opts)} --framework {fw} with {edit}"
        pair = predict_pair(what, [*opts, "--framework", base], [*opts, "--framework", edited])
        if pair is None:
            continue
        a, b = pair
        counted("cheaper framework")
        for t in ("t_infer", "t_fwd", "t_bwd", "t_step") + \
                (("t_grad",) if edit.startswith("grad_bytes") else ()):
            check(not_above(b[t], a[t]), f"{what}: {t} {a[t]} -> {b[t]}")
        # a cast model keeps the plugins' own forms; a framework whose gradients are kept in
        # the buckets themselves (gradient_buffer_is_bucket) keeps them at grad_bytes_per_weight
        if edit.startswith("autocast") or edit.startswith("grad_bytes"):
            check(b["memory"]["peak"] <= a["memory"]["peak"], f"{what}: memory grows")
        else:
            check(a["memory"] == b["memory"], f"{what}: memory changes")

# ---- checkpointing, accumulation, optimizers, the largest batch ---------------------------------
for _ in range(n(120)):
    opts = [a for a in draw(rng, checkpoint=False) if a != "--checkpoint"]
    opts += ["--batch", rng.choice([1, 2, 8, 32]), "--nodes", rng.choice([1, 2]), "-g", 2]
    r = {c: sm_json("predict", *opts, "--checkpoint", c)[0] for c in ("none", "selective", "full")}
    if not all(r.values()):
        continue
    counted("checkpoint")
    act = {c: r[c]["memory"]["activations"] for c in r}
    check(act["full"] <= act["selective"] <= act["none"],
          f"predict {show(opts)}: activations none {act['none']}, selective "
          f"{act['selective']}, full {act['full']}")
    for t in ("t_infer", "t_fwd"):
        check(r["none"][t] == r["selective"][t] == r["full"][t],
              f"predict {show(opts)}: --checkpoint changes {t}")
    check(not_above(r["selective"]["t_bwd"], r["full"]["t_bwd"]),
          f"predict {show(opts)}: selective t_bwd {r['selective']['t_bwd']} above full's "
          f"{r['full']['t_bwd']}")

for _ in range(n(120)):
    opts = draw(rng) + ["--nodes", rng.choice([1, 2]), "-g", rng.choice([1, 2])]
    b, k = rng.choice([1, 2, 8]), rng.choice([2, 3, 4])
    one, _ = sm_json("predict", *opts, "--batch", b)
    acc, _ = sm_json("predict", *opts, "--batch", b, "--accumulate", k)
    big, _ = sm_json("predict", *opts, "--batch", b * k)
    if not (one and acc and big):
        continue
    counted("accumulate")
    what = f"predict {show(opts)} --batch {b} --accumulate {k}"
    check(one["memory"] == acc["memory"], f"{what}: memory is not one micro-batch's")
    for t in PASSES:
        check(one[t] == acc[t], f"{what}: {t} {acc[t]}, K = 1's {one[t]}")
    if acc["mfu"] is not None and big["mfu"] is not None:
        check(close(acc["mfu"] * acc["t_step"], big["mfu"] * big["t_step"], 1e-4),
              f"{what}: the step's FLOPs differ from batch {b * k}'s")
    if rng.random() < 0.3:
        x, _ = sm_json("predict", *opts, "--max-batch")
        y, _ = sm_json("predict", *opts, "--max-batch", "--accumulate", k)
        if x and y:
            check(x["max_batch"] == y["max_batch"], f"{what}: --max-batch {x['max_batch']}, "
                  f"with --accumulate {y['max_batch']}")

for _ in range(n(60)):
    opts = [a for a in draw(rng) if a not in ("sgd", "momentum", "adam", "adamw", "--optimizer")]
    opts += ["--batch", rng.choice([1, 8]), "--nodes", rng.choice([1, 2]), "-g", 2]
    st = {o: sm_json("predict", *opts, "--optimizer", o)[0] for o in
          ("sgd", "momentum", "adam", "adamw")}
    if not all(st.values()):
        continue
    counted("optimizer state")
    s = {o: st[o]["memory"]["optimizer"] for o in st}
    check(s["sgd"] <= s["momentum"] <= s["adam"] == s["adamw"],
          f"predict {show(opts)}: optimizer state {s}")
    # the update streams that state: no faster with more of it (a calibration measured its
    # own optimizer: the same t_grad whichever is named)
    g = {o: st[o]["t_grad"] for o in st}
    check(not_above(g["sgd"], g["momentum"]) and not_above(g["momentum"], g["adam"])
          and close(g["adam"], g["adamw"]), f"predict {show(opts)}: t_grad {g}")

for _ in range(n(50)):
    dev = rng.choice(gpus)
    opts = draw(rng, dev)
    shard = opts[opts.index("--shard") + 1]
    largest = []
    for nodes in (1, 2, 4, 16):
        d, _ = sm_json("predict", *opts, "--nodes", nodes, "-g", 2, "--max-batch")
        largest.append(d["max_batch"] if d else None)
    if None in largest:
        continue
    counted("max batch over nodes")
    if shard == "none":
        check(len(set(largest)) == 1, f"predict {show(opts)} -g 2 --max-batch: DDP's largest "
              f"batch varies with the nodes: {largest}")
    check(largest == sorted(largest), f"predict {show(opts)} -g 2 --max-batch: falls with "
          f"the nodes: {largest}")


# ---- network files ---------------------------------------------------------------------------
def renamed(name):
    if name.startswith("@"):
        return name
    name = re.sub(r"\{(\d+)\.\.(\d+)\}", r"{\1~\2}", name)
    return ".".join("r" + c for c in name.split(".")).replace("~", "..")


def rename_froms(text):
    return re.sub(r"from=([^\s;]+)",
                  lambda m: "from=" + ",".join(renamed(x) for x in m.group(1).split(",")), text)


def sections(text):
    """Each line with the header of its section; blocks that use a template take arguments."""
    lines, out, header = text.split("\n"), [], None
    uses = set()
    for line in lines:
        if line.strip().startswith("["):
            header = line.strip()
        elif header and header.startswith("[block") and re.match(r"use\s*=", line.strip()):
            uses.add(header)
    header = None
    for line in lines:
        if line.strip().startswith("["):
            header = line.strip()
            out.append((line, None, False))
        else:
            out.append((line, header, header in uses))
    return out


def rename_network(text):
    """Every layer, block and template renamed, one name for one name."""
    out = []
    for line, header, args_only in sections(text):
        s = line.strip()
        m = re.match(r"^\[(block|template)\s+(\S+?)\]", s)
        if m:
            name = renamed(m.group(2)) if m.group(1) == "block" else m.group(2) + "_r"
            out.append(f"[{m.group(1)} {name}]")
        elif header is None or header.startswith("[network") or not s or s.startswith(";"):
            out.append(line)
        elif line[0] in " \t":
            out.append(rename_froms(line))
        else:
            key, eq, rest = re.match(r"^(\S+)(\s*=\s*)(.*)$", line).groups()
            if key == "use":
                out.append(f"use{eq}{rest.split()[0]}_r")
            elif key == "from":
                out.append(f"from{eq}" + ",".join(renamed(x.strip())
                                                  for x in rest.split(";")[0].split(",")))
            elif args_only:
                out.append(line)
            else:
                out.append(renamed(key) + eq + rename_froms(rest))
    return "\n".join(out)


def is_layer(line, header, args_only):
    s = line.strip()
    return not (header is None or header.startswith("[network") or args_only or not s or
                s.startswith(";") or line[0] in " \t" or re.match(r"^from\s*=", s))


def with_identities(text, rng, layer_type):
    """A layer of layer_type (an identity) after some of the layers, but in a block of one
    layer, which it would make a checkpointing and FSDP unit (docs/memory.md)."""
    out, k = [], 0
    rows = sections(text)
    size = {}
    for line, header, args_only in rows:
        size[header] = size.get(header, 0) + is_layer(line, header, args_only)
    for i, (line, header, args_only) in enumerate(rows):
        out.append(line)
        if not is_layer(line, header, args_only) or \
                (header.startswith(("[block", "[template")) and size[header] < 2):
            continue
        m = re.match(r"^(\S+)\s*=", line)
        if i + 1 < len(rows) and rows[i + 1][0][:1] in (" ", "\t") and rows[i + 1][0].strip():
            continue  # the next line continues this one
        if rng.random() < 0.3:
            k += 1
            out.append(f"{m.group(1)}_id{k} = {layer_type}")
    return "\n".join(out)


def expanded(text):
    """Every repeated block written out one repetition at a time."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^\[block\s+(\S*)\{(\d+)\.\.(\d+)\}(\S*)\]", lines[i].strip())
        if not m:
            out.append(lines[i])
            i += 1
            continue
        body, i = [], i + 1
        while i < len(lines) and not lines[i].strip().startswith("["):
            body.append(lines[i])
            i += 1
        for r in range(int(m.group(2)), int(m.group(3)) + 1):
            out.append(f"[block {m.group(1)}{r}{m.group(4)}]")
            out += [re.sub(r"\$\{([^}]*)\}",
                           lambda x: "${" + re.sub(r"\bi\b", str(r), x.group(1)) + "}", b)
                    for b in body]
    return "\n".join(out)


def same_predictions(tag, model, path, rng, configs):
    for _ in range(configs):
        dev = rng.choice(devices)
        opts = draw(rng, dev, model="X")[1:] + ["--batch", rng.choice([1, 4]), "--nodes",
                                                rng.choice([1, 2]), "-g", 2]
        opts += rng.choice([[], ["--attention", "eager"], ["--attention", "fused"]])
        what = f"predict {model} ({tag}) {show(opts)}"
        pair = predict_pair(what, [model, *opts, "--per-block"], [path, *opts, "--per-block"])
        if pair is None:
            continue
        a, b = pair
        counted(tag)
        for k in a:
            if k in ("model", "per_block"):
                continue
            check(a[k] == b[k], f"{what}: {k} {a[k]} -> {b[k]}")
        if tag == "repetitions written out":  # the same blocks of the same names
            check(a["per_block"] == b["per_block"], f"{what}: per-block times differ")


for m in rng.sample(models, min(len(models), n(80))):
    text = open(model_path[m]).read()
    a, _ = sm_json("metrics", m, "--per-layer")
    for tag, edited in (("renamed", rename_network(text)),
                        ("identities", with_identities(text, rng, "identity")),
                        ("dropouts of p = 0", with_identities(text, rng, "dropout p=0")),
                        ("repetitions written out", expanded(text))):
        path = write(f"{m}-{tag.replace(' ', '_')}.ini", edited)
        b, err = sm_json("metrics", path, "--per-layer")
        check(b is not None, f"metrics {m} ({tag}): {err}")
        if b is None:
            continue
        for k in METRICS:
            check(a[k] == b[k], f"metrics {m} ({tag}): {k} {a[k]} -> {b[k]}")
        same_predictions(tag, m, path, rng, 2)

for m in models:
    text = open(model_path[m]).read()
    blocks = list(re.finditer(r"^\[block\s+(\S*)\{(\d+)\.\.(\d+)\}(\S*)\]", text, re.M))
    if not blocks:
        continue
    for r in blocks:
        pre, first, last, post = r.group(1), int(r.group(2)), int(r.group(3)), r.group(4)
        k = last - first + 1
        doubled = write(f"{m}-twice.ini", text[:r.start()] +
                        f"[block {pre}{{{first}..{first + 2 * k - 1}}}{post}]" + text[r.end():])
        b, err = sm_json("metrics", doubled)
        if b is None:  # the range's new names are taken (mobilenet_v2's features.7)
            check("named twice" in err, f"metrics {m} with {pre}{{..}} twice: {err}")
            continue
        counted("a block range twice")
        a, _ = sm_json("metrics", m, "--per-block")
        names = {f"{pre}{i}{post}" for i in range(first, last + 1)}
        for key in METRICS:
            want = a[key] + sum(x[key] for x in a["per_block"] if x["name"] in names)
            check(b[key] == want, f"metrics {m} with {pre}{{{first}..{last}}}{post} twice: "
                  f"{key} {b[key]}, expected {want}")
        opts = draw(rng, model="X")[1:] + ["--batch", rng.choice([1, 4]), "-g", 2]
        x, _ = sm_json("predict", m, *opts)
        y, _ = sm_json("predict", doubled, *opts)
        if x and y:
            for t in PASSES + ("t_step",):
                check(y[t] > x[t], f"predict {m} {show(opts)}: {t} {x[t]}, {y[t]} with the "
                      f"range {pre}{{..}} twice")
            for key in ("weights", "activations", "peak"):
                check(y["memory"][key] > x["memory"][key], f"predict {m} {show(opts)}: memory "
                      f"{key} does not grow with the range {pre}{{..}} twice")
        break

# ---- sums --------------------------------------------------------------------------------------
for m in rng.sample(models, min(len(models), n(80))):
    b = rng.choice([1, 3])
    d, err = sm_json("metrics", m, "--per-layer", "--per-block", "--batch", b)
    if d is None:
        check(False, f"metrics {m}: {err}")
        continue
    counted("metrics sums")
    for part in ("per_layer", "per_block"):
        for k in METRICS:
            check(sum(x[k] for x in d[part]) == d[k],
                  f"metrics {m} --batch {b}: {part} {k} does not add up to {d[k]}")
    pred = ["--coeffs", rng.choice(calibrations)] if rng.random() < 0.4 else draw(rng)[1:5]
    if "--device" in pred and pred[2] != "cpu" and rng.random() < 0.5:
        pred += ["--framework", rng.choice(frameworks)]
    opts = [m, *pred, "--batch", rng.choice([1, 8, 64])]
    d, _ = sm_json("predict", *opts, "--per-block")
    if d and d["t_fwd"] is not None:
        counted("predict per-block sums")
        s = sum(x["t_fwd"] for x in d["per_block"])
        check(close(s, d["t_fwd"], 1e-4), f"predict {show(opts)} --per-block: blocks add up "
              f"to {s}, t_fwd {d['t_fwd']}")

# ---- JSON, CSV and table -----------------------------------------------------------------------
UNITS = {"d": 86400, "h": 3600, "min": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "GiB": 2 ** 30,
         "%": 0.01}
# the printed digits: days %.1f, hours and minutes %.2f, GiB %.1f from 0.1 (%.0f from 100),
# percent %.1f, else three significant digits
ABSOLUTE = {"d": 0.05 * 86400, "h": 0.005 * 3600, "min": 0.005 * 60, "%": 0.0005}


def table_value(cell):
    m = re.match(r"^(-?[\d,.]+(?:e[-+]?\d+)?)\s*(d|h|min|s|ms|us|GiB|%)?(?: oom)?$", cell.strip())
    if not m:
        return None, 0
    v, unit = float(m.group(1).replace(",", "")), m.group(2)
    slack = ABSOLUTE.get(unit, 0)
    if unit == "GiB":
        slack = 2 ** 30 * (0.5 if v >= 100 else 0.05 if v >= 0.1 else 0.0005)
    return v * UNITS.get(unit, 1), slack


def table_agrees(cell, value, what):
    if value is None:
        check(cell == "-", f"{what}: table {cell!r}, JSON null")
        return
    t, slack = table_value(cell)
    check(t is not None and abs(t - value) <= 0.006 * abs(value) + slack + 1e-12,
          f"{what}: table {cell!r}, JSON {value}")


def csv_agrees(cell, value, what):
    if isinstance(value, bool):
        check(cell == str(value).lower(), f"{what}: CSV {cell!r}, JSON {value}")
    elif value is None:
        check(cell == "", f"{what}: CSV {cell!r}, JSON null")
    elif isinstance(value, (int, float)):
        check(cell != "" and close(float(cell), value, 1e-9), f"{what}: CSV {cell!r}, "
              f"JSON {value}")
    else:
        check(cell == str(value), f"{what}: CSV {cell!r}, JSON {value!r}")


def point_value(p, curve, top, key):
    """The JSON value of a CSV column for one point of curve (predict's JSON as both)."""
    if key == "memory":
        return p["memory"]["peak"] + p["memory"]["context"]
    if key == "memory_capacity":
        return p["memory"]["capacity"]
    if key == "fits":
        return p["memory"]["fits"]
    if key.startswith("allreduce_"):
        return p["allreduce"][key[10:]] if p.get("allreduce") else None
    if key == "turning_point":
        tp = curve.get("turning_point")
        return tp["nodes"] if tp else None
    if key == "image" and "seq" in curve:
        return curve["seq"]
    for source in (p, curve, top):
        if key in source:
            return source[key]
    return "absent"


for _ in range(n(100)):
    m = rng.choice(models)
    pred = ["--coeffs", rng.choice(calibrations)] if rng.random() < 0.3 else draw(rng, model=m)[1:]
    opts = [m, *pred, "--batch", rng.choice([1, 8, 64]), "-g", rng.choice([1, 2]),
            *rng.choice([[], ["--epochs", 3], ["--accumulate", 2], ["--dataset", 5000]])]
    nodes = rng.choice(["1,2,4", "2,8"])
    what = f"curve {show(opts)} --nodes {nodes}"
    j, err = sm_json("curve", *opts, "--nodes", nodes)
    if j is None:
        continue
    counted("formats")
    curve = j["curves"][0]
    pts = curve["points"]
    rc, out, _ = run("curve", *opts, "--nodes", nodes, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    check(len(rows) == len(pts), f"{what}: {len(rows)} CSV rows for {len(pts)} points")
    for row, p in zip(rows, pts):
        for key, cell in row.items():
            v = point_value(p, curve, j, key)
            if v == "absent":  # precision (the predictor's line says it), a sequence's images
                check(key == "precision" or cell == "", f"{what}: CSV {key} {cell!r} not in JSON")
                continue
            csv_agrees(cell, v, f"{what}: {key} at {p['nodes']} nodes")
    rc, out, _ = run("curve", *opts, "--nodes", nodes)
    lines = out.splitlines()
    head = next((i for i, line in enumerate(lines) if line.startswith("model ")), None)
    if head is None:
        check(False, f"{what}: no table")
        continue
    cols = lines[head].split()
    any_fits = any(p["memory"]["fits"] is not False for p in pts)
    for line, p in zip(lines[head + 1:], pts):
        values = re.split(r"\s{2,}", line.strip())
        check(len(values) == len(cols), f"{what}: {len(values)} cells for {len(cols)} columns")
        cells = dict(zip(cols, values))
        fits = p["memory"]["fits"] is not False
        for key, column in (("t_fwd", "t_fwd"), ("t_bwd", "t_bwd"), ("t_grad", "t_grad"),
                            ("t_step", "t_step"), ("t_epoch", "t_epoch"), ("t_train", "t_train"),
                            ("mfu", "mfu"), ("efficiency", "efficiency"),
                            ("images_per_s", "images/s"), ("tokens_per_s", "tokens/s")):
            if column not in cells:
                continue
            if cells[column] == "-" and (not fits or (key == "efficiency" and not any_fits)):
                continue  # a point that does not fit shows none of its figures
            table_agrees(cells[column], p.get(key), f"{what}: {column} at {p['nodes']} nodes")
        table_agrees(cells.get("memory", "?"), p["memory"]["peak"] + p["memory"]["context"],
                     f"{what}: memory at {p['nodes']} nodes")

PREDICT_ROWS = {"weights": ("weights",), "gradients": ("gradients",),
                "optimizer": ("optimizer",), "activations": ("activations",),
                "backward": ("backward",), "workspace": ("workspace", "context")}
for _ in range(n(100)):
    m = rng.choice(models)
    pred = ["--coeffs", rng.choice(calibrations)] if rng.random() < 0.3 else draw(rng, model=m)[1:]
    opts = [m, *pred, "--batch", rng.choice([1, 8, 64]), "-g", rng.choice([1, 2]),
            "--nodes", rng.choice([1, 2, 4]),
            *rng.choice([[], ["--epochs", 3], ["--accumulate", 2], ["--dataset", 5000]])]
    what = f"predict {show(opts)}"
    j, err = sm_json("predict", *opts)
    if j is None:
        continue
    counted("formats")
    rc, out, _ = run("predict", *opts, "--format", "csv")
    row = next(csv.DictReader(io.StringIO(out)))
    derived = {"efficiency": 1, "turning_point": None,
               "global_batch": j["batch"] * j["accumulate"] * j["nodes"] * j["gpus_per_node"],
               "devices": j["nodes"] * j["gpus_per_node"]}
    for key, cell in row.items():
        v = derived[key] if key in derived else point_value(j, j, j, key)
        if v == "absent":
            check(cell == "", f"{what}: CSV {key} {cell!r} not in JSON")
            continue
        csv_agrees(cell, v, f"{what}: {key}")
    rc, out, _ = run("predict", *opts)
    cells = {}
    for line in out.splitlines():
        parts = re.split(r"\s{2,}", line.strip())
        if len(parts) >= 2:
            cells[parts[0]] = parts[1]
    fits = j["memory"]["fits"] is not False
    for key in TIMES + ("t_epoch", "t_train", "images_per_s", "tokens_per_s", "mfu"):
        if key not in cells or (cells[key] == "-" and not fits):
            continue
        if key == "t_infer" and cells[key] == "-" and j["memory_infer"]["fits"] is False:
            continue
        table_agrees(cells[key], j.get(key), f"{what}: {key}")
    for key, parts in PREDICT_ROWS.items():
        table_agrees(cells.get(key, "?"), sum(j["memory"][p] for p in parts), f"{what}: {key}")
    for key in ("memory", "memory_infer"):
        table_agrees(cells.get(key, "?"), j[key]["peak"] + j[key]["context"], f"{what}: {key}")

# ---- round trips -------------------------------------------------------------------------------
for i in range(n(24)):
    if rng.random() < 0.35:
        pred = ["--coeffs", rng.choice(calibrations)]
    else:
        dev = rng.choice(devices)
        pred = ["--device", dev["device"], "--precision", rng.choice(precisions(dev))]
    g = rng.choice([g for g in (1, 8) if "--coeffs" in pred or g <= max_g(pred[1])])
    path = os.path.join(TMP, f"runs{i}.csv")
    # validate prices runs as the benchmarks step them, SGD with momentum, whatever a
    # network's recipe (ConvNeXt's, Llama's AdamW): the curve's rows are priced so too
    opts = [",".join(rng.sample(models, 3)), *pred, "--batch", "1,8", "--nodes",
            rng.choice(["1", "1,2,4"]), "-g", g, "--optimizer", "momentum"]
    rc, _, err = run("curve", *opts, "--format", "csv", "-o", path)
    if rc:
        continue
    with open(path) as f:
        runs = list(csv.DictReader(f))
    v, err = sm_json("validate", path, *pred)
    check(v is not None, f"validate the CSV of curve {show(opts)}: {err}")
    if v is None:
        continue
    counted("validate round trip")
    step = max(float(r["t_step"]) for r in runs)
    for phase, d in v["phases"].items():
        o = d["overall"]
        if o["n"] == 0:
            continue
        # a several-device row's grad is t_step - t_fwd - t_bwd of 6-digit figures
        ok = o["rmse"] <= 1e-5 * step if phase == "grad" else o["mape"] <= 1e-4
        check(ok, f"validate the CSV of curve {show(opts)}: {phase} MAPE {o['mape']}, "
              f"RMSE {o['rmse']}")

refit = fit_curves("refit", ["--coeffs", ring_cal])
unseen = [m for m in models if m not in fit_models.split(",")]
for m in rng.sample(unseen, min(len(unseen), n(12))):
    opts = [m, "--batch", rng.choice([2, 32]), "--nodes", rng.choice([1, 8]), "-g", 4]
    a, _ = sm_json("predict", *opts, "--coeffs", ring_cal)
    b, _ = sm_json("predict", *opts, "--coeffs", refit)
    if a and b:
        counted("fit round trip")
        for t in TIMES:
            check(close(a[t], b[t], 1e-4), f"predict {show(opts)}: {t} {a[t]} with the "
                  f"calibration, {b[t]} with its refit on its own predictions")

# ---- calibrations ------------------------------------------------------------------------------
for _ in range(n(60)):
    m, cal = rng.choice(models), rng.choice(calibrations)
    r = [sm_json("predict", m, "--coeffs", cal, "--batch", b, "-g", 1)[0] for b in (1, 2, 3, 5)]
    if not all(r):
        continue
    counted("calibration in the batch")
    for t in PASSES:
        if r[0][t] is None:
            continue
        slope = r[1][t] - r[0][t]
        for x, b in zip(r, (1, 2, 3, 5)):
            check(abs(x[t] - (r[0][t] + (b - 1) * slope)) <= REL * b * max(x[t], r[0][t]),
                  f"predict {m} --coeffs {cal}: {t} is not affine in the batch: "
                  f"{[y[t] for y in r]}")
    check(all(x["t_grad"] == r[0]["t_grad"] for x in r),
          f"predict {m} --coeffs {cal}: t_grad varies with the batch")
    cal = rng.choice(calibrations[1:])
    dev = rng.choice([d for d in gpus if d["peak_tflops"].get("tf32")])
    opts = [m, "--coeffs", cal, "--batch", rng.choice([1, 8]), "-g", 1]
    a, _ = sm_json("predict", *opts)
    b, _ = sm_json("predict", *opts, "--device", dev["device"])
    if a and b:
        counted("calibration beside a description")
        for t in TIMES:
            check(a[t] == b[t], f"predict {show(opts)}: {t} {a[t]}, with --device "
                  f"{dev['device']} {b[t]}")

# ---- the roofline in the batch, precisions, attention ---------------------------------------
for _ in range(n(120)):
    opts = draw(rng) + ["-g", 2]
    b = rng.choice([1, 2, 3, 8, 16, 64])
    x, _ = sm_json("predict", *opts, "--batch", b)
    y, _ = sm_json("predict", *opts, "--batch", 2 * b)
    if not (x and y):
        continue
    counted("twice the batch")
    for t in PASSES:
        check(not_above(y[t], 2 * x[t]), f"predict {show(opts)}: {t} at batch {2 * b} "
              f"{y[t]}, above twice batch {b}'s {x[t]}")
    for k in ("activations", "peak"):
        check(y["memory"][k] <= 2 * x["memory"][k] + 2, f"predict {show(opts)}: memory {k} "
              f"more than doubles from batch {b}")

for _ in range(n(80)):
    dev = rng.choice([d for d in devices if "tf32" in precisions(d)])
    opts = [rng.choice(models), "--device", dev["device"], "--batch", rng.choice([1, 8, 64]),
            "--nodes", rng.choice([1, 2]), "-g", rng.choice([1, 2])]
    a, _ = sm_json("predict", *opts, "--precision", "fp32")
    c, _ = sm_json("predict", *opts, "--precision", "tf32")
    if a and c:
        counted("tf32 <= fp32")
        for t in TIMES:
            check(not_above(c[t], a[t]), f"predict {show(opts)}: tf32 {t} {c[t]} above "
                  f"fp32's {a[t]}")
        check(a["memory"] == c["memory"], f"predict {show(opts)}: tf32 memory is not fp32's")

def halves_apart(dev):
    """Whether the description's framework prices fp16 and bf16 kernels apart: PyTorch's own
    batch norm at bf16 (cuDNN's takes no bf16), or convolutions by kind at one of them."""
    text = flattened(device_path[dev["device"]])
    return bool(re.search(r"(?m)^(batchnorm_bf16_\w+|conv1?x?1?_(fwd|bwd)_efficiency_(fp16|bf16))"
                          r"\s*=", text))


same_half = [d for d in devices if d["peak_tflops"].get("fp16") and
             d["peak_tflops"]["fp16"] == d["peak_tflops"].get("bf16") and
             d["efficiency"]["fp16"] == d["efficiency"]["bf16"] and
             d["conv_efficiency"]["fp16"] == d["conv_efficiency"]["bf16"] and
             not halves_apart(d)]
for _ in range(n(60)):
    dev = rng.choice(same_half)
    opts = [rng.choice([m for m in models if m not in attention and not has_depthwise(m)]),
            "--device", dev["device"],
            "--batch", rng.choice([1, 8, 64]), "--nodes", rng.choice([1, 2]), "-g", 2,
            "--checkpoint", rng.choice(["none", "full"])]
    a, _ = sm_json("predict", *opts, "--precision", "fp16")
    b, _ = sm_json("predict", *opts, "--precision", "bf16")
    if a and b:
        counted("fp16 = bf16")
        for t in TIMES:
            check(a[t] == b[t], f"predict {show(opts)}: {t} fp16 {a[t]}, bf16 {b[t]}")
        check(a["memory"] == b["memory"], f"predict {show(opts)}: fp16 and bf16 memory differ")

for _ in range(n(60)):
    m = rng.choice(attention)
    opts = draw(rng, model=m) + ["--batch", rng.choice([1, 2, 8]), "-g", 2]
    if m.startswith(("llama", "megatron")):
        opts += ["--seq", rng.choice([256, 1024])]
    e, _ = sm_json("predict", *opts, "--attention", "eager")
    f, _ = sm_json("predict", *opts, "--attention", "fused")
    if e and f:
        counted("fused attention")
        check(f["memory"]["activations"] <= e["memory"]["activations"],
              f"predict {show(opts)}: fused attention keeps more than eager")
        check(f["memory_infer"]["peak"] <= e["memory_infer"]["peak"],
              f"predict {show(opts)}: fused attention's inference peak above eager's")
        for t in ("t_infer", "t_fwd"):
            check(not_above(f[t], e[t]), f"predict {show(opts)}: fused {t} {f[t]} above "
                  f"eager's {e[t]}")

# ---- NCCL's choice restricted; the ring's equation ---------------------------------------------
for _ in range(n(60)):
    opts = draw(rng, rng.choice(gpus), checkpoint=False)
    opts = [a for a in opts if a not in ("--collective", "ring")]
    opts += ["--batch", rng.choice([1, 8]), "--nodes", rng.choice([1, 2, 8]), "-g", 2]
    free, _ = sm_json("predict", *opts)
    if not free:
        continue
    for limit in (["--algorithm", "Ring"], ["--algorithm", "Tree"], ["--protocol", "Simple"],
                  ["--protocol", "LL"], ["--algorithm", "Ring,Tree"],
                  ["--protocol", "LL128,Simple"]):
        r, _ = sm_json("predict", *opts, *limit)
        if not r:
            continue
        counted("NCCL restricted")
        check(not_above(free["t_grad"], r["t_grad"]), f"predict {show(opts)} {show(limit)}: "
              f"t_grad {r['t_grad']} below NCCL's free choice {free['t_grad']}")
        check(all(r[t] == free[t] for t in PASSES) and r["memory"] == free["memory"],
              f"predict {show(opts)} {show(limit)}: a pass or the memory changes")


def ini_keys(path):
    text = open(path).read()
    return {m.group(1): m.group(2) for m in re.finditer(r"^(\w+)\s*=\s*([^\s;]+)", text, re.M)}


for _ in range(n(80)):
    dev = rng.choice(devices)["device"]
    c = ini_keys(device_path[dev])
    m = rng.choice(models)
    G = rng.choice([g for g in (1, 2, 4, 8) if g <= max_g(dev)])
    N, mib = rng.choice([1, 2, 3, 8, 64]), rng.choice([1, 25, 100])
    opts = [m, "--device", dev, "--collective", "ring", "--batch", 2, "--bucket-mib", mib]
    one, _ = sm_json("predict", *opts, "--nodes", 1, "-g", 1)
    d, _ = sm_json("predict", *opts, "--nodes", N, "-g", G)
    if not (one and d):
        continue
    counted("ring equation")
    counts = sm_json("metrics", m)[0]
    S = float(c.get("grad_bytes_per_weight", 4)) * counts["weights"]
    # equal buckets of the bucket size, at most one per parameter tensor (DDP never splits one)
    k = min(math.ceil(S / (mib * 1048576)), counts["param_tensors"])
    b_in = float(c["intra_node_bandwidth_gb_s"]) * 1e9
    l_in = float(c["intra_node_latency_us"]) * 1e-6
    b_out = float(c["inter_node_bandwidth_gb_s"]) * 1e9
    l_out = float(c["inter_node_latency_us"]) * 1e-6
    ring = b_out * min(int(c.get("inter_node_ports", 1)), G) / G
    want = 2 * (G - 1) / G * S / b_in + 2 * (N - 1) / N * (S / G) / ring + \
        k * (2 * (G - 1) * l_in + 2 * (N - 1) * l_out)
    got = d["t_grad"] - one["t_grad"]  # the update is the same on every layout without sharding
    check(abs(got - want) <= REL * d["t_grad"] + 1e-9, f"predict {show(opts)} --nodes {N} -g "
          f"{G}: t_sync {got}, the ring's equation {want}")

for dev in rng.sample(devices, min(len(devices), n(12))):
    for G in (1, 8):
        if G > max_g(dev["device"]):
            continue
        for op in ("all_reduce", "all_gather", "reduce_scatter"):
            coll = rng.choice(["nccl", "ring"])
            sweeps = {}
            for N in (1, 2, 4, 16, 64):
                rc, out, _ = run("allreduce", "--device", dev["device"], "--nodes", N, "-g", G,
                                 "--op", op, "--collective", coll, "--min-bytes", "4",
                                 "--max-bytes", "4G", "--format", "csv")
                if rc == 0:
                    sweeps[N] = list(csv.DictReader(io.StringIO(out)))
            what = f"allreduce --device {dev['device']} -g {G} --op {op} --collective {coll}"
            counted("collective sweeps")
            for N, rows in sweeps.items():
                ranks = N * G
                for a, b in zip(rows, rows[1:]):
                    check(float(b["time_s"]) >= float(a["time_s"]) * (1 - 1e-6),
                          f"{what} --nodes {N}: time falls from {a['bytes']} to {b['bytes']} B")
                for r in rows:
                    t = float(r["time_s"])
                    if ranks == 1 or t == 0:
                        check(ranks == 1, f"{what} --nodes {N}: {r['bytes']} B in 0 s")
                        continue
                    alg = int(r["bytes"]) / t / 1e9
                    bus = alg * (2 if op == "all_reduce" else 1) * (ranks - 1) / ranks
                    check(close(float(r["algbw_gb_s"]), alg, 1e-4) and
                          close(float(r["busbw_gb_s"]), bus, 1e-4),
                          f"{what} --nodes {N}: {r['bytes']} B: algbw {r['algbw_gb_s']}, busbw "
                          f"{r['busbw_gb_s']}, expected {alg:.6g} and {bus:.6g}")
            counts_ = sorted(sweeps)
            for a, b in zip(counts_, counts_[1:]):
                for x, y in zip(sweeps[a], sweeps[b]):
                    check(float(y["time_s"]) >= float(x["time_s"]) * (1 - 1e-6),
                          f"{what}: {x['bytes']} B: {x['time_s']} s on {a} nodes, "
                          f"{y['time_s']} on {b}")

# ---- strong scaling, curves side by side, input sizes ------------------------------------------
for _ in range(n(60)):
    dev = rng.choice(devices)
    k, g = rng.choice([1, 2, 4]), rng.choice([1, 2])
    opts = draw(rng, dev)[:5] + ["-g", g, "--accumulate", k,
                                 "--shard", rng.choice(["none", "optimizer"])]
    gb = k * rng.choice([16, 50, 300])
    st, _ = sm_json("curve", *opts, "--global-batch", gb, "--nodes", "1,2,4")
    if not st:
        continue
    counted("strong = weak")
    for p in st["curves"][0]["points"]:
        per = gb // k // (p["nodes"] * g)
        w, _ = sm_json("curve", *opts, "--batch", per, "--nodes", p["nodes"])
        q = w["curves"][0]["points"][0]
        for key in ("t_fwd", "t_bwd", "t_grad", "t_step", "global_batch", "t_epoch", "mfu",
                    "images_per_s", "tokens_per_s", "memory"):
            check(p.get(key) == q.get(key), f"curve {show(opts)} --global-batch {gb}: "
                  f"{key} at {p['nodes']} nodes {p.get(key)}, weak at batch {per} {q.get(key)}")

for _ in range(n(40)):
    dev = rng.choice(devices)
    opts = ["--device", dev["device"], "--precision", rng.choice(precisions(dev)),
            "-g", rng.choice([1, 2])]
    pair = rng.sample(models, 2)
    both, _ = sm_json("curve", ",".join(pair), *opts, "--batch", "1,8", "--nodes", "1,2,4")
    if not both:
        continue
    counted("curves side by side")
    for c in both["curves"]:
        alone, _ = sm_json("curve", c["model"], *opts, "--batch", c["batch"], "--nodes", "1,2,4")
        check(alone and alone["curves"][0]["points"] == c["points"],
              f"curve {','.join(pair)} {show(opts)}: {c['model']} at batch {c['batch']} is "
              f"not its curve alone")
        p = rng.choice(c["points"])
        one, _ = sm_json("curve", c["model"], *opts, "--batch", c["batch"], "--nodes", p["nodes"])
        q = one["curves"][0]["points"][0]
        check(all(p[key] == q[key] for key in p if key != "efficiency"),
              f"curve {c['model']} {show(opts)}: the point at {p['nodes']} nodes differs alone")

for _ in range(n(60)):
    m = rng.choice(models)
    dev = rng.choice(devices)
    opts = [m, "--device", dev["device"], "--precision", rng.choice(precisions(dev)),
            "--batch", rng.choice([1, 4, 16]), "-g", rng.choice([1, 2])]
    flag, sizes = ("--image", (96, 128, 160)) if len(inputs[m]) == 3 else ("--seq", (64, 128, 256))
    r = [sm_json("predict", *opts, flag, s)[0] for s in sizes]
    if not all(r):
        continue
    counted("input size")
    for x, y, s in zip(r, r[1:], sizes[1:]):
        for t in PASSES + ("t_step",):
            check(not_above(x[t], y[t]), f"predict {show(opts)}: {t} falls to {y[t]} at "
                  f"{flag} {s}")
        for k in ("activations", "peak"):
            check(x["memory"][k] <= y["memory"][k], f"predict {show(opts)}: memory {k} falls "
                  f"at {flag} {s}")

# ---- memory of the predictors; energy --------------------------------------------------------
for m in rng.sample(models, min(len(models), n(30))):
    b, g = rng.choice([1, 4]), rng.choice([1, 2])
    a, _ = sm_json("predict", m, "--coeffs", "default", "--batch", b, "-g", g)
    c, _ = sm_json("predict", m, "--device", "cpu", "--batch", b, "-g", g)
    x, _ = sm_json("predict", m, "--coeffs", "h100-pytorch-tf32", "--device", "h100",
                   "--batch", b, "-g", g)
    y, _ = sm_json("predict", m, "--device", "h100", "--precision", "tf32", "--batch", b, "-g", g)
    if a and c and x and y:
        counted("memory of the predictors")
        parts = ("weights", "gradients", "optimizer", "activations", "backward", "workspace",
                 "context", "peak")
        check(all(a["memory"][k] == c["memory"][k] for k in parts),
              f"predict {m} --batch {b} -g {g}: --coeffs default's memory is not --device cpu's")
        check(x["memory"] == y["memory"], f"predict {m} --batch {b} -g {g}: "
              f"--coeffs h100-pytorch-tf32 --device h100's memory is not --device h100's")

for _ in range(n(40)):
    m = rng.choice(models)
    b, k = rng.choice([1, 4, 32]), rng.choice([1, 3])
    N, g = rng.choice([1, 2, 4]), rng.choice([1, 2])
    opts = [m, "--coeffs", "h100-scalemeter-fp32", "--batch", b, "--accumulate", k]
    d, _ = sm_json("predict", *opts, "--nodes", N, "-g", g, "--epochs", 2, "--dataset",
                   rng.choice([1000, 1281167]))
    one, _ = sm_json("predict", *opts, "--nodes", 1, "-g", 1)
    if not (d and one) or d.get("e_step_j") is None:
        continue
    counted("energy")
    steps = math.ceil(d["dataset"] / (b * k * N * g))
    what = f"predict {show(opts)} --nodes {N} -g {g}"
    check(close(d["power_w"], d["e_step_j"] / d["t_step"], 1e-4), f"{what}: power_w")
    check(close(d["e_epoch_j"], steps * d["e_step_j"], 1e-4), f"{what}: e_epoch_j")
    check(close(d["e_train_j"], 2 * d["e_epoch_j"], 1e-4), f"{what}: e_train_j")
    check(close(d["e_infer_j"], N * g * one["e_infer_j"], 1e-4), f"{what}: e_infer_j is not "
          f"{N * g} devices' {one['e_infer_j']}")

# docs/energy.md's step, E = P_idle x t_step + the terms: with K micro-batches the passes' terms
# K times and the gradients' once, the idle power over the whole step as printed (with a
# description's all-reduce too). So E - P_idle x t_step x devices is linear in K, and a device
# never draws less than its idle power. It was the one micro-batch's E scaled by the step's
# time, and the idle term used the calibration's own step time (64 devices at 33 W each
# under a 70 W idle power; kWh per epoch fell as nodes were added at K = 4).
IDLE = 70
idle_ini = os.path.join(TMP, "idle70.ini")
run("fit", "configs/calibrations/h100-scalemeter-fp32.csv", "--idle-watts", IDLE, "-o", idle_ini)
for _ in range(n(12)):
    m = rng.choice(models)
    b, N = rng.choice([1, 8, 32]), rng.choice([1, 4, 64])
    opts = [m, "--coeffs", idle_ini, "--device", "h100-pcie", "--collective", "ring",
            "--batch", b, "--nodes", N]
    work = {}
    for k in (1, 2, 4):
        d, _ = sm_json("predict", *opts, "--accumulate", k)
        if d and d.get("e_step_j") is not None:
            devices = d["nodes"] * d["gpus_per_node"]
            work[k] = d["e_step_j"] - IDLE * d["t_step"] * devices
            check(d["power_w"] / devices >= IDLE * (1 - 1e-6),
                  f"predict {show(opts)} --accumulate {k}: {d['power_w'] / devices:.1f} W "
                  f"a device, below the calibration's idle {IDLE} W")
    if len(work) == 3:
        counted("energy of accumulated steps")
        check(close(work[4] - work[1], 3 * (work[2] - work[1]), 1e-4),  # 6 printed digits
              f"predict {show(opts)}: the energy above idle is not linear in K: {work}")

shutil.rmtree(TMP, ignore_errors=True)
print(f"seed {SEED}, scale {SCALE}: configurations per relation:")
for relation, count in counts.items():
    print(f"  {relation}: {count}")
finish()
