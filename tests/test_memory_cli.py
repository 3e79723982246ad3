#!/usr/bin/env python3
"""Memory in `scalemeter predict` and `curve` as a user sees it: whether a configuration fits,
the largest batch, points that cannot run kept out of the times and the chart.

The expected figures come from outside the code: PyTorch 1.13's record of what autograd keeps
for ResNet-50 at batch 1, 86,121,984 bytes (tools/torch_saved_tensors.py; per sample
86,121,984 - 8 x 26,560 BN channels = 85,909,504, the statistics being per layer), and the
h100 description's memory_gib = 79.6 (nvidia-smi's 81,559 MiB), 85,469,849,190 bytes.

usage: test_memory_cli.py SCALEMETER   (run from the source root)
"""
import json
import os
import tempfile

from cli_checks import SM, check, good_json, run, finish  # noqa: F401

H100 = ["--device", "h100", "-g", "1"]
CAPACITY = 79.6 * 2**30
PER_SAMPLE = 86121984 - 8 * 26560  # ResNet-50's activations per sample, PyTorch's count


# --- the two configurations: they do not fit, and no time is shown as if they could ---
rc, out, err = run("curve", "vgg16", *H100, "--batch", "65536", "--nodes", "1")
row = [l for l in out.splitlines() if l.startswith("vgg16 ")]
check(rc == 0 and row and " oom " in row[0] and " 53.6 s " not in row[0],
      f"vgg16 at 65536: the table marks oom and shows no step time: {row}")
check("fits at no node count" in out, "vgg16 at 65536: the memory note says it fits nowhere")
d = good_json("curve", "vgg16", *H100, "--batch", "65536", "--nodes", "1")
mem = d["curves"][0]["points"][0]["memory"] if d else {}
check(mem.get("fits") is False, f"vgg16 at 65536: JSON memory.fits false: {mem}")
# vgg16 keeps 73,355,264 bytes a sample (PyTorch), so 65536 samples need over 4.4 TiB
check(mem.get("activations", 0) > 65536 * 73.3e6, f"vgg16 activations: {mem}")
d = good_json("predict", "resnet50", *H100, "--batch", "4096")
check(d.get("memory", {}).get("fits") is False, "resnet50 at 4096 does not fit an H100")
check(abs(d["memory"]["activations"] / (4096 * PER_SAMPLE + 8 * 26560) - 1) < 0.03,
      f"resnet50 at 4096: activations within 3% of PyTorch's count: {d.get('memory')}")
rc, out, err = run("predict", "resnet50", *H100, "--batch", "4096")
t_step = [l for l in out.splitlines() if l.startswith("t_step")]
check(t_step and t_step[0].split()[1] == "-", f"predict's table shows no t_step: {t_step}")
check("DOES NOT FIT" in out, "predict's table says it does not fit")
# inference is judged by its own memory: at 4096 it fits (no more than four tensors of at most
# 256 x 56 x 56 or 64 x 112 x 112 fp32, 3.2 MB a sample, are alive at once: 53 GB), at 16384
# it cannot (the stem's convolution output and batch norm's, 2 x 3.2 MB a sample: 105 GB)
t_infer = [l for l in out.splitlines() if l.startswith("t_infer")]
check(t_infer and t_infer[0].split()[1] != "-", f"resnet50 at 4096 infers: {t_infer}")
rc, out, err = run("predict", "resnet50", *H100, "--batch", "16384")
t_infer = [l for l in out.splitlines() if l.startswith("t_infer")]
infer = [l for l in out.splitlines() if l.startswith("memory_infer")]
check(t_infer and t_infer[0].split()[1] == "-", f"no t_infer where inference does not fit: {out}")
check(infer and "oom" in infer[0] and "DOES NOT FIT" in infer[0],
      f"the memory_infer row says inference does not fit: {infer}")
d = good_json("predict", "resnet50", *H100, "--batch", "16384")
check(d.get("memory_infer", {}).get("fits") is False, "JSON memory_infer.fits false at 16384")
# nor a training time or a block's time for it
rc, out, err = run("predict", "resnet50", *H100, "--batch", "4096", "--epochs", "3",
                   "--per-block")
t_train = [l for l in out.splitlines() if l.startswith("t_train")]
check(t_train and t_train[0].split()[1] == "-", f"predict's table shows no t_train: {t_train}")
check("layer4 " not in out and "does not fit" in out,
      f"--per-block shows no block times for a configuration that does not fit: {out}")

# --- the largest batch, consistent with fits: that batch fits, one more does not ---
d = good_json("predict", "resnet50", *H100, "--max-batch")
b = d.get("max_batch", 0)
fixed = sum(d["memory"][k] for k in ("weights", "gradients", "optimizer", "workspace",
                                      "context")) if d else 0
expected = int((CAPACITY - fixed - 8 * 26560) // PER_SAMPLE)
check(abs(b - expected) <= expected * 0.03, f"max_batch {b}, PyTorch's count gives {expected}")
check(d.get("batch") == b and d.get("memory", {}).get("fits") is True, "max_batch fits")
d2 = good_json("predict", "resnet50", *H100, "--batch", str(b + 1))
check(d2.get("memory", {}).get("fits") is False, f"batch {b + 1} does not fit")
rc, out, err = run("predict", "resnet50", "--max-batch")
check(rc != 0 and "--device" in err and len(err.strip().splitlines()) == 1,
      f"--max-batch without --device: one line: {err}")

# --- the largest batch whose inference fits: between 4096 and 16384 for ResNet-50 (above), the
# batch fits and one more does not, and inference's memory grows by the same bytes a sample: the
# largest batch is what batches 1 and 2 say, (capacity - fixed) // per sample ---
d = good_json("predict", "resnet50", *H100, "--max-infer-batch")
b = d.get("max_batch", 0)
check(4096 <= b < 16384 and d.get("max_batch_of") == "inference" and d.get("batch") == b,
      f"resnet50 --max-infer-batch: {b}, {d.get('max_batch_of')}")
check(d.get("memory_infer", {}).get("fits") is True, f"inference at {b} fits")
d2 = good_json("predict", "resnet50", *H100, "--batch", str(b + 1))
check(d2.get("memory_infer", {}).get("fits") is False, f"inference at {b + 1} does not fit")
one, two = (good_json("predict", "resnet50", *H100, "--batch", n)["memory_infer"]["total"]
            for n in ("1", "2"))
check(b == int((d["memory_infer"]["capacity"] - (2 * one - two)) // (two - one)),
      f"resnet50 --max-infer-batch {b}: batches 1 and 2 say "
      f"{(d['memory_infer']['capacity'] - (2 * one - two)) // (two - one)}")
check(good_json("predict", "resnet50", *H100, "--max-batch").get("max_batch_of") == "training",
      "--max-batch's JSON says training")
rc, out, err = run("predict", "resnet50", *H100, "--max-infer-batch")
mb = [l for l in out.splitlines() if l.startswith("max_batch")]
check(mb and mb[0].split()[1] == str(b) and mb[0].endswith("whose inference fits"),
      f"the table's max_batch row: {mb}")
# the keys and values GPT-2 returns take room from the batch
g = good_json("predict", "gpt2", *H100, "--max-infer-batch")
k = good_json("predict", "gpt2", *H100, "--max-infer-batch", "--kv-cache")
check(0 < k.get("max_batch", 0) < g.get("max_batch", 0),
      f"gpt2 --max-infer-batch {g.get('max_batch')}, with --kv-cache {k.get('max_batch')}")
# the weights alone past the memory: nothing fits, and the row says how much they are
rc, out, err = run("predict", "llama3_70b", *H100, "--max-infer-batch")
mb = [l for l in out.splitlines() if l.startswith("max_batch")]
check(rc == 0 and mb and mb[0].split()[1] == "0" and
      "not even one sample per device fits at inference: the weights are 263 GiB" in mb[0],
      f"llama3_70b --max-infer-batch: {mb}")
for args, want in ((["--max-infer-batch"], "needs --device"),
                   (["--device", "h100", "--max-infer-batch", "--max-batch"], "one of the three"),
                   (["--device", "h100", "--max-infer-batch", "--batch", "4"],
                    "one of the three")):
    rc, out, err = run("predict", "resnet50", *args)
    check(rc == 2 and want in err and len(err.strip().splitlines()) == 1,
          f"predict resnet50 {args}: {rc} {err}")
rc, out, err = run("predict", "resnet50", "--device", "tests/data/curve/round_device.ini",
                   "--max-batch")
check(rc != 0 and "memory_gib" in err, f"--max-batch on a description without memory: {err}")
# the table says why the capacity is unknown: no --device, or a description without it
rc, out, err = run("predict", "resnet50", "--device", "tests/data/curve/round_device.ini",
                   "--batch", "8")
check(rc == 0 and "the description has no memory_gib" in out and "--device D" not in out,
      f"a description without memory_gib is named as the reason: {out}")
rc, out, err = run("predict", "resnet50", "--batch", "8")
check(rc == 0 and "capacity not known: --device D tells" in out, f"no --device: {out}")
rc, out, err = run("curve", "resnet50", "--device", "tests/data/curve/round_device.ini",
                   "--batch", "8", "--nodes", "1:2")
check(rc == 0 and "capacity is not known (the description has no memory_gib)" in out and
      "--device D" not in out, f"curve names memory_gib as the reason: {out}")
rc, out, err = run("validate", "configs/calibrations/cpu-amd-epyc-1thread.csv", "--device",
                   "tests/data/curve/round_device.ini")
check(rc == 0 and "capacity is not known (the description has no memory_gib)" in out,
      f"validate names memory_gib as the reason: {out[-300:]}")
# nothing fits: 70B parameters' 16 bytes each are 1 TB beside 80 GB; the table says what to try
# (at the description's tf32: without --precision the network's recipe, bf16, is taken)
rc, out, err = run("predict", "llama3_70b", "--device", "h100", "--max-batch", "--precision",
                   "tf32")
mb = [l for l in out.splitlines() if l.startswith("max_batch")]
# (the states, 1314 GiB on each of the node's 8, are most of one sample's: a fixed list said
# "--checkpoint full" too, which leaves them as they are)
check(rc == 0 and mb and mb[0].split()[1] == "0" and mb[0].endswith(
      "weights, gradients and optimizer state are most of it (1314 GiB of 1848 GiB): "
      "try --shard full"), f"max_batch 0: {mb}")
# sharded over the 8, the activations of a sequence of 8192 at fp32 are most of it
rc, out, err = run("predict", "llama3_70b", "--device", "h100", "--max-batch", "--shard", "full",
                   "--precision", "tf32")
check(rc == 0 and "activations are most of it" in out and "--precision bf16" in out,
      f"with --shard full: {out}")
# on one device --shard full is refused, so the advice is more devices with it (it said "try
# --shard full, ..." where following it gave "shard full on one device: nothing to shard
# across", then "--checkpoint full or more devices", neither of which shrinks the states)
rc, out, err = run("predict", "llama3_70b", *H100, "--max-batch")
mb = [l for l in out.splitlines() if l.startswith("max_batch")]
check(rc == 0 and mb and mb[0].split()[1] == "0" and
      mb[0].endswith("try more devices with --shard full"), f"max_batch 0 on one device: {mb}")
# --checkpoint full is not advised where PyTorch refuses it (EfficientNet-B0's in-place
# dropout) or where it saves nothing (AlexNet: its features are one unit, recomputed whole)
for net, batch in (("efficientnet_b0", "8192"), ("alexnet", "100000")):
    rc, out, err = run("predict", net, "--batch", batch, "--device", "t4")
    hint = [l for l in out.splitlines() if l.startswith("to fit")]
    check(rc == 0 and hint and "--precision fp16" in hint[0] and "--checkpoint" not in hint[0],
          f"{net}: to fit: {hint}")
rc, out, err = run("predict", "resnet50", "--batch", "4096", "--device", "t4")
check(rc == 0 and "--checkpoint full" in out, f"resnet50: --checkpoint full still advised: {out}")
d = good_json("predict", "resnet50", "--device", "tests/data/curve/round_device.ini",
              "--batch", "8")
check(d.get("memory", {}).get("fits", 0) is None and d["memory"]["capacity"] is None,
      "no capacity: fits null, memory still counted")
check(d.get("memory", {}).get("activations", 0) > 0, "no capacity: activations counted")

# --- the optimizer's state: Adam's two fp32 moments of 25,557,032 weights ---
d = good_json("predict", "resnet50", *H100, "--batch", "32", "--optimizer", "adam")
check(d.get("memory", {}).get("optimizer") == 8 * 25557032, f"adam: {d.get('memory')}")
d = good_json("predict", "resnet50", *H100, "--batch", "32", "--optimizer", "sgd")
check(d.get("memory", {}).get("optimizer") == 0, "plain SGD keeps no state")
rc, out, err = run("predict", "resnet50", *H100, "--batch", "32", "--optimizer", "lion")
check(rc != 0 and "--optimizer" in err, f"unknown optimizer refused: {err}")
# A network without a [block] of several layers has no unit to checkpoint: --checkpoint full
# once gave the memory and the times of no checkpointing, silently; refused in one line, by
# predict and curve, and none still runs.
for cmd in (["predict", "--batch", "8"], ["curve", "--batch", "8", "--nodes", "1:2"]):
    for ckpt in ("full", "selective"):
        rc, out, err = run(cmd[0], "tests/data/fit/tiny_a.ini", *H100, *cmd[1:],
                           "--checkpoint", ckpt)
        check(rc == 1 and len(err.strip().splitlines()) == 1 and "tiny_a.ini" in err and
              f"checkpoint {ckpt}: the network has no [block] of more than one layer" in err,
              f"{cmd[0]} --checkpoint {ckpt} on a network without blocks: {rc} {err}")
d = good_json("predict", "tests/data/fit/tiny_a.ini", *H100, "--batch", "8", "--checkpoint",
              "none")
check(d.get("memory", {}).get("fits") is True, f"--checkpoint none without blocks: {d}")

# --- strong scaling: the first node count at which the global batch fits ---
# 8192 samples: 1024 a device on 8 nodes need 1024 x 85.9 MB = 88 GB > 85.5 GB; 512 on 16 fit
d = good_json("curve", "resnet50", *H100, "--global-batch", "8192", "--nodes", "1:32")
c = d["curves"][0] if d else {}
check(c.get("fits_from_nodes") == 16, f"fits from 16 nodes: {c.get('fits_from_nodes')}")
fits = [p["memory"]["fits"] for p in c.get("points", [])]
check(fits == [False] * 4 + [True] * 2, f"fits per node count: {fits}")
tp = c.get("turning_point")
check(tp is None or tp["nodes"] >= 16, f"the turning point is among points that fit: {tp}")
rc, out, err = run("curve", "resnet50", *H100, "--global-batch", "8192", "--nodes", "1:32")
check("fits from 16 nodes on (batch 512 per device" in out, "the table says where it fits")
rc, svg, err = run("curve", "resnet50", *H100, "--global-batch", "8192", "--nodes", "1:32",
                   "--format", "svg")
# the markers of the one curve (circles, its first style), not the legend's sample of them
groups = [g.split("</g>")[0] for g in svg.split("<g class=\"markers\"")[1:]]
drawn = sum(g.count("r=\"3.5\"/>") for g in groups)
check(drawn == 2 * 2, f"the chart draws the 2 points that fit, in both panels: {drawn} markers")
check("4 points not drawn" in svg, "the chart says why points are missing")
rc, out, err = run("curve", "resnet50", *H100, "--global-batch", "8192", "--nodes", "1:32",
                   "--format", "csv")
rows = out.splitlines()
check(rows[0].endswith(",memory,memory_capacity,fits") and rows[1].endswith(",false") and
      rows[-1].endswith(",true"), f"CSV memory columns: {rows[0]} / {rows[1]}")

# --- validate: every measured row ran, so each should be predicted to fit ---
d = good_json("validate", "configs/calibrations/h100-pytorch-tf32.csv", "--device", "h100")
check(d.get("memory") == {"rows_with_capacity": d.get("rows"), "ran_but_predicted_not_to_fit": 0},
      f"validate: every H100 row fits: {d.get('memory')}")
import os, tempfile  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    # an H100 of 1 MiB holding nothing of its own (a description whose context and workspaces
    # fill its memory is refused): no row can fit
    tiny = os.path.join(tmp, "tiny.ini")
    with open("configs/devices/h100.ini") as f:
        text = "".join("memory_gib = 0.001\n" if l.startswith("memory_gib")
                       else "" if l.startswith(("context_mib", "workspace_mib",
                                                "conv_workspace_mib")) else l for l in f)
    with open(tiny, "w") as f:
        f.write(text)
    rc, out, err = run("validate", "configs/calibrations/h100-pytorch-tf32.csv", "--device", tiny,
                       "--format", "json")
    d = json.loads(out) if rc == 0 else {}
    check(d.get("memory", {}).get("ran_but_predicted_not_to_fit") == d.get("rows"),
          f"validate on a 1 MiB device: every row flagged: {d.get('memory')}")
    warned = [l for l in err.splitlines() if "ran, but is predicted not to fit" in l]
    check(len(warned) == 5 and "h100-pytorch-tf32.csv:2: " in warned[0],
          f"validate names the first five rows by file and line: {warned[:2]}")

# --- Korthikanti et al. (2022), "Reducing activation recomputation in large transformer
# models", eq. 1: a GPT layer keeps s b h (34 + 5 a s / h) bytes at fp16 with 1-byte dropout
# masks, for Megatron's kernels. GPT-2 (s 1024, h 768, a 12) at bf16 on a CUDA device: the
# per-sample growth of the activations, less the parts outside the 12 blocks (the ids 8 s, the
# embedding dropout's mask s h, ln_f's fp32 input 4 s h and statistics 8 s, the head's input
# 2 s h, the loss's fp32 log-probabilities 4 s V (V 50257), which cross-entropy keeps for its
# backward pass where the 16-bit logits it reads are freed, and its output, the losses, 2 s;
# the gradients come with the backward pass, in memory.backward), per block. Hugging Face's eager block (--attention eager) differs in four places the paper's count leaves out or
# fuses: its composite gelu_new keeps four 4h tensors where Megatron's GELU keeps its input,
# and under CUDA autocast three of them fp32 (pow is among the ops autocast runs in fp32, so it
# keeps x's fp32 copy, and promotion makes tanh's result and 1 + it fp32; 0.5 x stays 16-bit):
# 4 + 4 + 4 + 2 bytes of 4h where Megatron keeps 2 (48 s b h more), each of its two layer norms
# keeps fp32 mean and rstd (16 s more), and CUDA
# autocast runs its softmax in fp32 (ATen's autocast_mode.cpp, fp32_set_opt_dtype), whose result
# autograd keeps where Megatron's fused kernel keeps fp16: 2 a s^2 more (PyTorch's saved
# tensors: 6 bytes a score beside 4, `/usr/bin/python3 tools/torch_rope_bytes.py --softmax`),
# and its layer norms too (autocast_mode.cpp's fp32 list), whose fp32 inputs, the residual
# stream, are kept: 2 x 2 s b h more (as ln_f's above: 4 bytes an element, not 2,
# `/usr/bin/python3 tools/torch_autocast_norm.py`).
# Hugging Face's default attention, scaled_dot_product_attention (FlashAttention at bf16),
# keeps none of the paper's 5 a s^2 (the softmax's output, the dropout's mask and output), nor
# the fp32 softmax, but its fp32 log-sum-exp of every row, 4 a s (Dao et al. 2022, alg. 2).
s_, h_, a_ = 1024, 768, 12
outside = 8 * s_ + s_ * h_ + 4 * s_ * h_ + 8 * s_ + 2 * s_ * h_ + 4 * s_ * 50257 + 2 * s_
paper = s_ * h_ * (34 + 5 * a_ * s_ / h_)
for attention, want, what in (
        ("eager", paper + 52 * s_ * h_ + 16 * s_ + 2 * a_ * s_ * s_, "+ 52sbh + 16s + 2as^2"),
        (None, paper - 5 * a_ * s_ * s_ + 52 * s_ * h_ + 16 * s_ + 4 * a_ * s_,
         "- 5as^2 + 52sbh + 16s + 4as")):
    opts = ["--attention", attention] if attention else []
    act = [good_json("predict", "gpt2", *H100, "--batch", str(b), "--precision", "bf16", *opts)
           .get("memory", {}).get("activations", 0) for b in (1, 2)]
    per_layer = (act[1] - act[0] - outside) / 12
    check(abs(per_layer - want) <= 1e-4 * paper,
          f"GPT-2 layer, {attention or 'sdpa'} attention: {per_layer:.0f} bytes, Korthikanti "
          f"{paper:.0f} {what} = {want:.0f}")

# --- what the device's kernels and libraries hold is the device's, whatever the framework ---
# PyTorch's cuBLAS workspace per handle (aten/src/ATen/cuda/CublasHandlePool.cpp,
# parseChosenWorkspaceSize): 4096 x 8 KiB = 32 MiB on Hopper, 4096 KiB x 2 + 16 KiB x 8 =
# 8,519,680 bytes before it; cuDNN's convolution workspace (the descriptions' 256 MiB) only
# where the network has a convolution
MIB = 2**20
for model, dev, want in (("resnet50", "h100", 32 * MIB + 256 * MIB),
                         ("gpt2", "h100", 32 * MIB),
                         ("resnet50", "a100", 8519680 + 256 * MIB),
                         ("bert_base", "a100", 8519680)):
    d = good_json("predict", model, "--device", dev, "-g", "1", "--batch", "8")
    check(d.get("memory", {}).get("workspace") == want,
          f"{model} on {dev}: workspace {d.get('memory', {}).get('workspace')}, want {want}")
# a framework put on the CPU keeps the CPU's float dropout masks, no workspace and no context
# (they were [framework] keys, and --framework reset them to CUDA's)
base = good_json("predict", "bert_base", "--device", "cpu", "--batch", "8").get("memory", {})
eager = good_json("predict", "bert_base", "--device", "cpu", "--batch", "8", "--framework",
                  "pytorch-eager").get("memory", {})
check(base and eager == base and base["workspace"] == 0 and base["context"] == 0,
      f"--framework on the CPU leaves its memory as it was: {base} against {eager}")
# a framework file that still sets one of them: one line naming the file, the line and [device]
with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
    f.write("[framework]\nname = old\ndispatch_fwd_us = 30\ndropout_mask_bytes = 1\n")
try:
    rc, out, err = run("predict", "bert_base", "--device", "h100", "--batch", "8", "--framework",
                       f.name)
finally:
    os.unlink(f.name)
check(rc != 0 and f"{f.name}:4:" in err and "[device]" in err and len(err.splitlines()) == 1,
      f"dropout_mask_bytes in [framework]: one line naming file, line and [device]: {err}")

# a calibration keeps what its backend's kernels keep: the shipped default, PyTorch 1.13 on a
# CPU, the CPU's float dropout masks. PyTorch 2.5.1's own record of Hugging Face's BERT on the
# CPU at batch 2 (tests/data/reference/torch2/saved_tensors.json): 228,911,104 bytes
ref = json.load(open("tests/data/reference/torch2/saved_tensors.json"))
want = ref["models"]["bert_base"]["batches"]["2"]["saved_bytes"]
cal = good_json("predict", "bert_base", "--batch", "2").get("memory", {})
check(cal and abs(cal["activations"] / want - 1) < 0.03,
      f"bert_base on the CPU calibration: activations within 3% of PyTorch's {want}: {cal}")
check(cal and cal["fits"] is None and cal["capacity"] is None,
      f"a calibration says nothing of its machine's capacity: {cal}")

# --- what to change when nothing fits: the largest part of the memory and what shrinks it ---
def hint_of(out):
    rows = [l for l in out.splitlines() if l.startswith("to fit")]
    return rows[0] if rows else ""


# Llama 3 70B's states: 70,553,706,496 weights (Meta's published count) x (4 fp32 weights + 4
# gradients + 4 DDP bucket copy + 8 AdamW's two moments, its recipe's optimizer, which the h100
# description's framework leaves to the network) = 20 bytes = 1314.2 GiB, far above its
# activations at batch 1 (its 80 layers' bf16 tensors of 8192 x 8192 are tens of GiB)
rc, out, err = run("predict", "llama3_70b", "--device", "h100", "-g", "8", "--batch", "1",
                   "--precision", "bf16")
hint = hint_of(out)
check(rc == 0 and "weights, gradients and optimizer state are most of it (1314 GiB" in hint
      and hint.endswith("try --shard full"), f"llama3_70b on 8 GPUs: shard the states: {hint}")
rc, out, err = run("predict", "llama3_70b", *H100, "--batch", "1", "--precision", "bf16")
check("try more devices with --shard full" in hint_of(out),
      f"llama3_70b on one GPU: sharding needs more devices first: {hint_of(out)}")
# vgg16 at 65536: over 4.4 TiB of activations (above) against 1.5 GiB of states (138,357,544
# weights x 12 bytes on one device): a half precision, a smaller batch; not checkpointing,
# which leaves its peak as it is (its features are one unit, recomputed whole)
rc, out, err = run("predict", "vgg16", *H100, "--batch", "65536")
hint = hint_of(out)
check(hint.startswith("to fit") and "activations are most of it" in hint
      and "--precision bf16, a smaller --batch (--max-batch finds" in hint,
      f"vgg16 at 65536: what shrinks the activations: {hint}")
# a V100 has no bf16 (its datasheet: fp16 tensor cores only), so the half precision is fp16
rc, out, err = run("predict", "vgg16", "--device", "v100", "-g", "1", "--batch", "512")
check("--precision fp16," in hint_of(out), f"vgg16 on a V100: fp16, not bf16: {hint_of(out)}")
# already at bf16 and fully checkpointed: neither is offered again
rc, out, err = run("predict", "vgg16", *H100, "--batch", "65536", "--precision", "bf16",
                   "--checkpoint", "full")
check("--precision" not in hint_of(out) and "--checkpoint" not in hint_of(out)
      and "a smaller --batch" in hint_of(out), f"vgg16 bf16, full: the batch is left: {hint_of(out)}")
# a device of 1.1 GiB: the h100's libraries' workspace (32 + 256 MiB, its description) and
# CUDA context (790 MiB) alone are 1.05 GiB, more than resnet18's states at batch 1 (11,689,512
# weights x 12 bytes = 0.13 GiB) and its activations; no option shrinks them, and the hint sent
# the planner to shard the states
with open("configs/devices/h100.ini") as fh:
    tiny = "".join("memory_gib = 1.1\n" if l.startswith("memory_gib") else l for l in fh)
with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
    f.write(tiny)
rc, out, err = run("predict", "resnet18", "--device", f.name, "-g", "1", "--batch", "1")
os.unlink(f.name)
hint = hint_of(out)
check(rc == 0 and "the libraries' workspace and the CUDA context are most of it (1.1 GiB" in hint
      and hint.endswith("try a device with more memory") and "--shard" not in hint,
      f"a 1.1 GiB device: the fixed part, not the states: {hint}")
# what fits gets no hint
rc, out, err = run("predict", "resnet50", *H100, "--batch", "32")
check(rc == 0 and not hint_of(out), f"resnet50 at 32 fits: no hint: {hint_of(out)}")
# a strong-scaling curve: ResNet-50 at 8192 on 1 and 2 nodes of one H100 needs least at 2
# nodes (4096 a device, over 300 GiB by PyTorch's count: 4096 x 85,909,504 bytes = 328 GiB)
rc, out, err = run("curve", "resnet50", "--device", "h100", "-g", "1", "--global-batch", "8192",
                   "--nodes", "1,2")
note = [l for l in out.splitlines() if "fits at no node count" in l]
check(note and "needs at least 33" in note[0] and note[0].endswith("at 2 nodes)"),
      f"the curve's note names the point that needs least: {note}")
check("try --precision bf16, --checkpoint full, more --nodes or a smaller --global-batch" in out,
      f"strong scaling: more nodes or a smaller global batch: {out}")


# --- the optimizer a network trains with: the framework's, --optimizer, else its recipe's ---
# Published parameter counts: torchvision's vit_b_16 86,567,656 and resnet50 25,557,032. State
# per weight in fp32: AdamW's two moments 8 bytes, momentum's buffer 4, plain SGD none. The
# h100 description's framework names no optimizer, so ViT (torchvision's recipe: --opt adamw)
# kept momentum's 4 bytes a weight before: 346 MB under what it holds.
VIT, RESNET = 86567656, 25557032
for args, weights, name in (
        (["vit_b_16", *H100], VIT, "adamw"),                    # its recipe's
        (["resnet50", *H100], RESNET, "momentum"),              # names none: torchvision's SGD
        (["vit_b_16", *H100, "--optimizer", "sgd"], VIT, "sgd"),  # the option over the recipe
        (["vit_b_16", *H100, "--framework", "fused"], VIT, "momentum"),  # a framework's key
        (["llama3_8b", *H100, "--framework", "torchtitan"], 8030261248, "adamw")):
    d = good_json("predict", *args, "--batch", "1")
    per = {"adamw": 8, "momentum": 4, "sgd": 0}[name]
    check(d.get("optimizer") == name and
          abs(d.get("memory", {}).get("optimizer", -1) - per * weights) < 1,
          f"predict {' '.join(args)}: optimizer {name}, {per} x {weights} bytes: "
          f"{d.get('optimizer')} {d.get('memory', {}).get('optimizer')}")
rc, out, err = run("predict", "vit_b_16", *H100, "--batch", "1")
check(rc == 0 and any(l.startswith("optimizer ") and "(adamw)" in l for l in out.splitlines()),
      f"predict's table names the optimizer: {out}")
# and the update's time follows it: AdamW streams 28 bytes a weight where momentum streams 20
t = {o: good_json("predict", "vit_b_16", *H100, "--batch", "1", "--optimizer", o)["t_grad"]
     for o in ("momentum", "adamw")}
check(t["adamw"] > t["momentum"], f"vit_b_16's update is longer with AdamW: {t}")
check(good_json("predict", "vit_b_16", *H100, "--batch", "1")["t_grad"] == t["adamw"],
      "vit_b_16's update is AdamW's by default")
# validate compares with runs that stepped SGD with momentum (bench's and the PyTorch scripts'
# update, docs/calibration.md), so it prices momentum whatever the network's recipe: a
# convnext_tiny row (recipe AdamW) measured as predict prices momentum validates at 0 error
d = good_json("predict", "convnext_tiny", *H100, "--batch", "8", "--optimizer", "momentum")
with tempfile.TemporaryDirectory() as tmp:
    runs = os.path.join(tmp, "runs.csv")
    with open(runs, "w") as f:
        f.write("model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,"
                "device,precision\n")
        f.write(f"convnext_tiny,224,8,1,1,{d['t_infer']},{d['t_fwd']},{d['t_bwd']},"
                f"{d['t_grad']},{d['t_step']},NVIDIA H100 80GB HBM3,tf32\n")
    v = good_json("validate", runs, "--device", "h100")
    grad = v.get("phases", {}).get("grad", {}).get("overall", {})
    check(grad.get("mape", 1) < 1e-4, f"validate prices the runs' momentum update: {grad}")
# a network file's optimizer is one of the four, refused at its line otherwise
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.ini")
    with open(bad, "w") as f:
        f.write("[network]\nname = bad\ninput = 8\noptimizer = lamb\n[layers]\nfc = linear out=4\n")
    rc, out, err = run("predict", bad, *H100, "--batch", "1")
    check(rc == 1 and err.count("\n") == 1 and
          "bad.ini:4: optimizer = lamb: expected sgd, momentum, adam or adamw" in err,
          f"a network's unknown optimizer: exit {rc}: {err!r}")

# predict --per-layer prices a step that runs: where training does not fit, one line with what
# it needs and what shrinks it, no layer times (Llama 3 70B's states alone, 70,553,706,496 x 16
# bytes = 1051 GiB, are 13 times an H100's 80 GB)
rc, out, err = run("predict", "llama3_70b", *H100, "--batch", "1", "--per-layer")
check(rc == 1 and out == "" and err.count("\n") == 1 and
      "llama3_70b: training at batch 1 needs" in err and "does not fit in 79.6 GiB" in err and
      "(1051 GiB of" in err and "--shard full" in err,
      f"--per-layer where training does not fit: exit {rc}: {err!r} {out[:200]!r}")
rc, out, err = run("predict", "resnet50", *H100, "--batch", "8", "--per-layer", "--format", "csv")
check(rc == 0 and out.startswith("layer,type,block,fused,") and out.count("\n") > 100,
      f"--per-layer where training fits: exit {rc}: {err!r}")
# where training does not fit and inference does (ResNet-50 at batch 4096 on an H100: 332 GiB
# to train, 43 GiB to infer), the inference pass layer by layer, training's columns left out;
# its layers add up to predict's t_infer
rc, out, err = run("predict", "resnet50", *H100, "--batch", "4096", "--per-layer", "--format",
                   "json")
d = json.loads(out) if rc == 0 else {}
layers = d.get("layers", [])
whole = good_json("predict", "resnet50", *H100, "--batch", "4096")
t_infer = whole.get("t_infer", 0) if whole else 0
check(rc == 0 and d.get("training_fits") is False and d.get("t_fwd", 0) is None and
      len(layers) > 100 and all(x["t_fwd"] is None and x["bound_bwd"] is None for x in layers)
      and abs(sum(x["t_infer"] for x in layers) - t_infer) <= 1e-6 * t_infer and t_infer > 0,
      f"--per-layer where only inference fits (json): exit {rc}: {err!r} {out[:300]!r}")
rc, out, err = run("predict", "resnet50", *H100, "--batch", "4096", "--per-layer", "--format",
                   "csv")
rows = out.splitlines()
check(rc == 0 and rows[1].startswith("conv1,conv2d,conv1,0,") and
      rows[1].split(",")[5:7] == ["", ""] and rows[1].split(",")[4] != "",
      f"--per-layer where only inference fits (csv): exit {rc}: {rows[:2]}")
rc, out, err = run("predict", "resnet50", *H100, "--batch", "4096", "--per-layer")
check(rc == 0 and "the inference pass, layer by layer: training does not fit" in out and
      "t_infer" in out and "t_fwd" not in out, f"--per-layer, only inference fits: {out[:300]!r}")

# training's forward pass holds its tensors until their last reader: a global pool over a large
# image keeps nothing for the backward pass, and training was priced at 0.8 GiB where inference
# took 193 GiB (--max-batch 919651294; the fifth audit). By hand, fp32 (the H100's tf32 keeps
# fp32 activations): while the pool runs, its input (256 x 3 x 8192 x 8192 x 4 bytes) and its
# output (256 x 3 x 4); while the upsampling runs, its input (512 x 3 x 64 x 64 x 4) and its
# output (512 x 3 x 4096 x 4096 x 4), the largest held at once
with tempfile.TemporaryDirectory() as tmp:
    for name, body, batch, want in (
            ("gap", "input = 3x8192x8192\n[layers]\npool = adaptive_avgpool2d size=1\n", 256,
             256 * 3 * 8192 * 8192 * 4 + 256 * 3 * 4),
            ("upmean", "input = 3x64x64\n[layers]\nup = upsample mode=nearest scale=64\n"
             "pool = adaptive_avgpool2d size=1\n", 512,
             512 * 3 * 64 * 64 * 4 + 512 * 3 * 4096 * 4096 * 4)):
        path = os.path.join(tmp, name + ".ini")
        with open(path, "w") as f:
            f.write(f"[network]\nname = {name}\n{body}flat = flatten\nfc = linear out=10\n")
        d = good_json("predict", path, *H100, "--batch", str(batch))
        m = d.get("memory", {})
        check(m.get("activations", 0) + m.get("backward", 0) == want,
              f"{name}: training's forward pass holds {want} bytes at once: {m}")
    d = good_json("predict", os.path.join(tmp, "gap.ini"), *H100, "--max-batch")
    # 79.6 GiB less the context and workspace over 805 MB of input a sample: 104 or 105
    check(100 <= d.get("max_batch", 0) <= 106, f"gap: --max-batch in 80 GiB: {d.get('max_batch')}")

# full checkpointing under torch.autocast keeps each block's input, which is the fp32 residual
# stream (Hugging Face's GPT-2 adds each 16-bit branch to an fp32 embedding sum: type
# promotion; torchvision's ViT adds its fp32 position embedding), 4 bytes an element: they were
# counted at 2 (the LM audit). By hand, per sample, autocast less the same model cast to 16 bits
# (dle-squad: its stream is 16-bit) is 2 bytes an element of the blocks' 12 inputs and of the
# final norm's input, which it keeps in fp32 under autocast: GPT-2 13 x 1024 x 768 x 2, ViT-B/16
# 13 x 197 x 768 x 2. A CNN's stream is 16-bit under autocast (convolutions, batch norms): none.
def per_sample(model, *extra):
    acts = []
    for batch in (1, 2):
        d = good_json("predict", model, *H100, "--batch", str(batch), "--precision", "bf16",
                      "--checkpoint", "full", *extra)
        acts.append(d.get("memory", {}).get("activations", 0) if d else 0)
    return acts[1] - acts[0]


for model, extra, want in (("gpt2", ["--attention", "fused"], 13 * 1024 * 768 * 2),
                           ("vit_b_16", [], 13 * 197 * 768 * 2)):
    got = per_sample(model, *extra) - per_sample(model, *extra, "--framework", "dle-squad")
    check(got == want, f"{model} --checkpoint full: autocast keeps {got} bytes more a sample "
          f"than a cast model, expected {want} (the blocks' fp32 inputs and the final norm's)")
# ResNet-50's blocks read 16-bit tensors under autocast: its cast and autocast peaks differ by
# nothing that a block's input holds
got = per_sample("resnet50") - per_sample("resnet50", "--framework", "dle-squad")
check(got == 0, f"resnet50 --checkpoint full: autocast against cast, {got} bytes a sample")

finish()
