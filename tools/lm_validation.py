#!/usr/bin/env python3
"""Language-model training against published measurements: writes docs/accuracy-lm.md.

    tools/lm_validation.py [--bin build/bin/scalemeter] [--out docs/accuracy-lm.md]

Each row is a published run (the source and what it measured are in ROWS below), predicted
by `scalemeter predict --format json` with the options that describe that run; the table
gives tokens per second per GPU and peak memory beside the published figures and the
difference. Nothing here is fitted to these figures. Standard library only; takes a second.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import validation_rows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TORCHTITAN_H100 = ("pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md, "
                   "Table 1 (8 GPUs) and Table 3 (128 GPUs), \"FSDP\" rows (no torch.compile, "
                   "no Float8); torch 2024-12-23, torchtitan 9dec370")
TORCHTITAN_COMPILED = ("pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md, "
                       "Tables 1 and 3, \"FSDP + torch.compile\" and \"FSDP + torch.compile + "
                       "Float8\" rows, and Table 2, \"FSDP 8, CP 1\" (32768 tokens, full "
                       "activation checkpointing, torch.compile and Float8); torch 2024-12-23, "
                       "torchao eab345c, torchtitan 9dec370")
TORCHTITAN_A100 = ("pytorch/torchtitan, docs/performance.md, \"Llama 3 performance numbers\": "
                   "64 A100 80GB, FSDP2, selective op AC")

# The network each torchtitan run ran: the zoo's llama3_8b (Hugging Face's module layout, the
# same weights and products) with torchtitan's own code (torchtitan/models/llama/model.py:
# apply_rotary_emb's complex rotation in fp32, its softmax in fp32 inside
# scaled_dot_product_attention), and the norm its preset chose (train_configs/llama3_8b.toml):
# "rmsnorm" (eager) at 9dec370, the H100 runs; "fused_rmsnorm", the Triton kernel, from
# df2dcc7 (2024-04-19) to 5e84866 (2024-05-02), when the A100 table was made (1ea476e,
# 2024-04-24). Written into a temporary folder by torchtitan_network().
EAGER_NORM, FUSED_NORM = "llama3_8b", "llama3_8b_fused_norm"

# label, scalemeter options (the network named as above), published tokens/s per GPU,
# published memory GiB (None: not published), source
ROWS = [
    ("Llama 3.1 8B, 8 x H100 (1 node), local batch 2",
     [EAGER_NORM, "--device", "h100-96gb-500w", "--nodes", "1", "-g", "8", "--batch", "2"],
     5762, 82.4, TORCHTITAN_H100),
    ("Llama 3.1 8B, 128 x H100 (16 nodes), local batch 2",
     [EAGER_NORM, "--device", "h100-96gb-500w", "--nodes", "16", "-g", "8", "--batch", "2"],
     5605, 67.0, TORCHTITAN_H100),
    ("Llama 3 8B, 64 x A100 80GB (8 nodes), local batch 1",
     [FUSED_NORM, "--device", "a100", "--nodes", "8", "-g", "8", "--batch", "1"],
     2973, None, TORCHTITAN_A100),
]
# The same H100 tables' torch.compile rows, and those with Float8 besides (torchao's
# Float8Linear on every nn.Linear but the output layer, dynamic tensorwise scaling): label,
# options beyond COMMON's (a row's own --seq and --checkpoint replace COMMON's), published
# tokens/s per GPU and memory GiB.
H100_8 = [EAGER_NORM, "--device", "h100-96gb-500w", "--nodes", "1", "-g", "8"]
H100_128 = [EAGER_NORM, "--device", "h100-96gb-500w", "--nodes", "16", "-g", "8"]
COMPILED_ROWS = [
    ("Llama 3.1 8B, 8 x H100, batch 2, torch.compile", H100_8 + ["--batch", "2", "--compile"],
     6667, 77.0),
    ("Llama 3.1 8B, 128 x H100, batch 2, torch.compile",
     H100_128 + ["--batch", "2", "--compile"], 6514, 62.0),
    ("Llama 3.1 8B, 8 x H100, batch 2, torch.compile + Float8",
     H100_8 + ["--batch", "2", "--compile", "--fp8"], 8532, 76.8),
    ("Llama 3.1 8B, 128 x H100, batch 2, torch.compile + Float8",
     H100_128 + ["--batch", "2", "--compile", "--fp8"], 8380, 61.8),
    ("Llama 3.1 8B, 8 x H100, batch 1 of 32,768 tokens, full checkpointing, torch.compile + "
     "Float8", H100_8 + ["--batch", "1", "--seq", "32768", "--checkpoint", "full", "--compile",
                         "--fp8"], 3890, 83.9),
]
# Runs of other frameworks, data-parallel (issue 36): label, scalemeter options (the run's
# own precision, framework, checkpointing and buckets, and its gradient accumulation steps k
# as --accumulate k: the step is k (t_fwd + t_bwd) + t_grad, one all-reduce and one update
# per k micro-batches), the published figure as published, the published tokens/s per GPU
# derived from it, source.
MEGATRON_2021 = ("NVIDIA/Megatron-LM, README.md and images/cases_april2021.png at 50a4b5f "
                 "(2021-04-08)")
MEGATRON_2024 = ("NVIDIA/Megatron-LM, README.md and images/model_table.png at f2e5db4 "
                 "(2024-07-15)")
DLE_BERT = ("NVIDIA/DeepLearningExamples, PyTorch/LanguageModeling/BERT/README.md at a07d20a "
            "(2022-05-25), \"Pre-training NVIDIA DGX A100 (8x A100 80GB) Multi-node Scaling\", "
            "mixed precision, sequence 128")


def megatron_tokens(tflops, l, h, s, v, recompute):
    """Tokens/s per GPU of a Megatron TFLOP/s figure: Narayanan et al. (SC21), appendix,
    96 B s l h^2 (1 + s/6h + V/(16 l h)) per iteration with full recomputation (4 forward
    passes of the blocks, 3 of the logits), and Megatron's num_floating_point_operations
    (2024), 72 B s l h^2 (1 + s/6h) + 6 B s h V without; divided by the B s tokens."""
    blocks = (96 if recompute else 72) * l * h * h * (1 + s / (6 * h))
    return tflops * 1e12 / (blocks + 6 * h * v)


# The 2021 row's published tokens/s per GPU at its 137 TFLOP/s (its FLOPs per token: 137e12 /
# this), for the text's share of the A100's fp16 peak.
MEGATRON_21_TPS = megatron_tokens(137, 24, 2304, 2048, 51200, True)
OTHER_ROWS = [
    ("Megatron-LM GPT 1.7B, 32 x A100 80GB (4 nodes), batch 512, full recomputation",
     ["megatron_gpt_1_7b", "--device", "a100", "--nodes", "4", "-g", "8", "--batch", "16",
      "--seq", "2048", "--precision", "fp16", "--checkpoint", "full", "--framework",
      "megatron", "--bucket-mib", "81920"],
     "137 TFLOP/s", MEGATRON_21_TPS, MEGATRON_2021),
    ("Megatron-Core GPT 1.7B, 48 x H100 (6 nodes), batch 192",
     ["megatron_gpt_1_7b_h100", "--device", "h100", "--nodes", "6", "-g", "8", "--batch", "4",
      "--seq", "4096", "--precision", "bf16", "--shard", "optimizer", "--overlap",
      "--bucket-mib", "183", "--framework", "megatron-core"],
     "408.8 TFLOP/s", megatron_tokens(408.8, 24, 2048, 4096, 131072, False), MEGATRON_2024),
] + [
    (f"BERT-large pretraining, {n * 8} x A100 80GB ({n} node{'s' if n > 1 else ''}), "
     f"batch 256 x {k} accumulated",
     ["bert_large", "--device", "a100", "--nodes", str(n), "-g", "8", "--batch", "256",
      "--seq", "128", "--precision", "fp16", "--framework", "dle-bert", "--bucket-mib", "81920"]
     + (["--accumulate", str(k)] if k > 1 else []),
     f"{seqs:,} sequences/s", seqs * 128 / (n * 8), DLE_BERT)
    for n, k, seqs in [(1, 32, 4553), (8, 4, 35774), (32, 1, 138294)]
]
COMMON = ["--seq", "8192", "--precision", "bf16", "--shard", "full", "--checkpoint", "selective",
          "--framework", "torchtitan", "--format", "json"]


def torchtitan_network(folder, name):
    """Writes torchtitan's Llama 3 8B (EAGER_NORM or FUSED_NORM) into folder; its path."""
    with open(os.path.join(ROOT, "models", "llama3_8b.ini")) as f:
        text = f.read()
    text = text.replace("max_len=131072", "max_len=131072 rope_form=complex softmax=float")
    if name == FUSED_NORM:
        text = text.replace("rmsnorm eps=1e-5", "rmsnorm eps=1e-5 fused=true")
    assert "rope_form=complex" in text and (name == EAGER_NORM or "fused=true" in text)
    path = os.path.join(folder, name + ".ini")
    with open(path, "w") as f:
        f.write(text.replace("name = llama3_8b", "name = " + name))
    return path


def predict(binary, opts, folder):
    opts = [torchtitan_network(folder, opts[0]), *opts[1:]]
    common = list(COMMON)
    for key in ("--seq", "--checkpoint"):  # a row's own replaces COMMON's
        if key in opts:
            at = common.index(key)
            del common[at:at + 2]
    out = subprocess.run([binary, "predict", *opts, *common], check=True, capture_output=True,
                         text=True, cwd=ROOT).stdout
    return json.loads(out)


def pct(pred, pub):
    return f"{100.0 * (pred - pub) / pub:+.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy-lm.md"))
    validation_rows.add_argument(ap)
    a = ap.parse_args()
    lines, at_700w, a100 = [], [], None
    folder = tempfile.mkdtemp(prefix="lm_validation.")
    for label, opts, tps, mem, source in ROWS:
        p = predict(a.bin, opts, folder)
        gpus = int(p["nodes"]) * int(p["gpus_per_node"])
        per_gpu = p["tokens_per_s"] / gpus
        if "h100-96gb-500w" in opts:  # the same run on the shipped 700 W HBM3 part, for the text
            q = predict(a.bin, ["h100" if o == "h100-96gb-500w" else o for o in opts], folder)
            q_per_gpu = q["tokens_per_s"] / gpus
            at_700w.append(f"{q_per_gpu:,.0f} ({pct(q_per_gpu, tps)})")
        if "a100" in opts:  # and with the eager norm, which the preset ran from May 2024 on
            e = predict(a.bin, [EAGER_NORM, *opts[1:]], folder)
            a100 = (pct(per_gpu, tps), f"{100 * p['mfu']:.1f}",
                    pct(e["tokens_per_s"] / gpus, tps))
        validation_rows.record(f"torchtitan: {label}", opts[opts.index("--device") + 1],
                               "llama3_8b", "bf16", gpus, opts[opts.index("--batch") + 1],
                               tps, per_gpu, "tokens/s")
        peak = p["memory"]["peak"] / 2**30
        mem_cells = (f"{mem:.1f} | {peak:.1f} | {pct(peak, mem)}" if mem is not None
                     else f"- | {peak:.1f} | -")
        lines.append(f"| {label} | {tps:,} | {per_gpu:,.0f} | {pct(per_gpu, tps)} | "
                     f"{100 * p['mfu']:.1f}% | {mem_cells} |")
    compiled, speedups = [], {}
    for label, opts, tps, mem in COMPILED_ROWS:
        p = predict(a.bin, opts, folder)
        gpus = int(p["nodes"]) * int(p["gpus_per_node"])
        per_gpu = p["tokens_per_s"] / gpus
        fp8 = "--fp8" in opts
        precision = "bf16, fp8 products" if fp8 else "bf16"
        validation_rows.record(f"torchtitan: {label}", "h100-96gb-500w", "llama3_8b", precision,
                               gpus, opts[opts.index("--batch") + 1], tps, per_gpu, "tokens/s")
        peak = p["memory"]["peak"] / 2**30
        shown = [o for o in opts[1:] if o not in ("--device", "h100-96gb-500w")]
        compiled.append(f"| {label} | {tps:,} | {per_gpu:,.0f} | {pct(per_gpu, tps)} | "
                        f"{mem:.1f} | {peak:.1f} | {pct(peak, mem)} | `{' '.join(shown)}` |")
        if "--seq" not in opts:
            speedups.setdefault(gpus, {})[fp8] = (tps, per_gpu)
    gain = " and ".join(
        f"{s[True][0] / s[False][0]:.2f} published, {s[True][1] / s[False][1]:.2f} predicted "
        f"on {g} GPUs" for g, s in sorted(speedups.items()))
    other, got = [], []  # got: (tokens/s per GPU, published, MFU) per row, for the text
    for label, opts, figure, tps, source in OTHER_ROWS:
        p = json.loads(subprocess.run([a.bin, "predict", *opts, "--format", "json"],
                                      check=True, capture_output=True, text=True,
                                      cwd=ROOT).stdout)
        per_gpu = p["tokens_per_s"] / (int(p["nodes"]) * int(p["gpus_per_node"]))
        got.append((per_gpu, tps, 100 * p["mfu"], p["memory"]["peak"] / 2**30))
        validation_rows.record(label.split(",")[0] + ": " + label.split(", ", 1)[1],
                               opts[opts.index("--device") + 1], opts[0],
                               opts[opts.index("--precision") + 1],
                               int(p["nodes"]) * int(p["gpus_per_node"]),
                               opts[opts.index("--batch") + 1], tps, per_gpu, "tokens/s")
        other.append(f"| {label} | {figure} | {tps:,.0f} | {per_gpu:,.0f} | {pct(per_gpu, tps)} "
                     f"| {100 * p['mfu']:.1f}% | `{' '.join(opts)}` |")
    bert = sorted(got[2:], key=lambda g: g[0] / g[1])
    cmd = " ".join(["scalemeter predict MODEL --device D --nodes N -g 8 --batch B", *COMMON[:-2]])
    text = TEMPLATE.format(table="\n".join(lines), cmd=cmd, h100=TORCHTITAN_H100,
                           compiled="\n".join(compiled), compiled_src=TORCHTITAN_COMPILED,
                           fp8_gain=gain, mem_less=" and ".join(
                               f"{ROWS[k][3] - COMPILED_ROWS[k][3]:.1f}" for k in (0, 1)),
                           fp8_less=" and ".join(
                               f"{COMPILED_ROWS[k][3] - COMPILED_ROWS[k + 2][3]:.1f}"
                               for k in (0, 1)),
                           a100=TORCHTITAN_A100, at_700w=" and ".join(at_700w),
                           other="\n".join(other), m21=MEGATRON_2021, m24=MEGATRON_2024,
                           dle=DLE_BERT, m21_diff=pct(*got[0][:2]), m21_tps=f"{got[0][0]:,.0f}",
                           m24_peak=got[1][3],
                           # Megatron's own count, the recomputed forward in: 96 B s l h^2 (...)
                           m21_hw=f"{got[0][0] * 137 / MEGATRON_21_TPS / 312 * 100:.0f}",
                           m24_diff=pct(*got[1][:2]), m24_mfu=f"{got[1][2]:.0f}",
                           bert_lo=pct(*bert[0][:2]), bert_hi=pct(*bert[-1][:2]),
                           a100_diff=a100[0], a100_mfu=a100[1], a100_eager=a100[2])
    shutil.rmtree(folder)
    with open(a.out, "w") as f:
        f.write(text)
    validation_rows.write(a.rows)
    print(f"wrote {os.path.relpath(a.out, ROOT)}")
    return 0


TEMPLATE = """# Language-model training against published runs

Generated by `tools/lm_validation.py` (issue 36); do not edit by hand. Every prediction is
`{cmd}` with the run's model, device, nodes and local batch. MODEL is the zoo's llama3_8b
with torchtitan's code (`rope_form=complex softmax=float`) and the norm its preset ran: eager
for the H100 rows, `rmsnorm fused=true` for the A100 row (below); the tool writes both
files. The options: FSDP's full sharding, torchtitan's
selective (op) activation checkpointing, bf16 with fp32 master weights and gradient
reduction, and the `torchtitan` framework file (configs/frameworks/torchtitan.ini: eager
PyTorch, AdamW, attention by `scaled_dot_product_attention`, that is FlashAttention-2: no score
matrices in memory, the scores recomputed in the backward pass). Nothing is fitted to these
figures.

| published run | tokens/s per GPU, published | predicted | diff | predicted MFU | memory GiB, published | predicted | diff |
|---|---:|---:|---:|---:|---:|---:|---:|
{table}

Sources: H100 rows, {h100}; A100 row, {a100}.

## What the rows measure, and where the model differs

- **Memory.** torchtitan logs `torch.cuda.max_memory_reserved()` (its metrics.py: "memory:
  {{max_reserved_gib}}GiB"), what the caching allocator holds at most, including blocks cached
  but free; the prediction is what the allocator hands out at most
  (`max_memory_allocated`), without the CUDA context. The reserved reading is above the
  allocated one by the allocator's fragmentation, which this model does not price: at this
  size, tensors of a few GiB (the loss's fp32 log-probabilities, 7.8 GiB at batch 2) are freed
  and new ones of other sizes made. The difference between the two H100 rows, where only the
  sharded states change (16 bytes per weight of AdamW in fp32 over 8 or 128 GPUs), is 15.4 GiB
  published and 14.0 GiB predicted.
- **What is counted.** States: fp32 weights, gradients and AdamW's two moments, 1/N each; the
  bf16 weights FSDP gathers (the root module's embedding and output layer, kept from the
  forward pass to the backward pass, and two blocks, the one computed and the one prefetched).
  Activations: what torchtitan's op policy keeps in each block (q_proj's and v_proj's outputs,
  the attention kernel's output and log-sum-exp, gate_proj's and down_proj's outputs, every
  second matrix product recomputed) and each block's input; the loss's fp32 log-probabilities
  and, in its backward pass, its two fp32 gradients of 128256 values per token; one block's
  recomputed tensors during its backward pass.
- **H100 throughput.** The published H100s are Meta's Grand Teton parts: 96 GB of HBM2e at
  2.4 TB/s, run at a 500 W power limit (torchtitan's footnote: their peak lies between the
  SXM's and the NVL's). The rows use the `h100-96gb-500w` description of that part: the SXM5's
  GH100 at 2.4 TB/s, whose clock under dense work the device model's power limit puts at 1559
  MHz where the 700 W part holds 1830 (docs/devices.md), so Hopper's efficiencies measured at
  700 W are taken at 0.852 of themselves. For the same runs the shipped 700 W HBM3 `h100`
  predicts {at_700w} tokens/s per GPU;
  the lower clock and bandwidth make the difference. The element-wise kernels of the eager
  blocks are priced from PyTorch's own decomposition (tools/torch_eager_bytes.py): SwiGLU's
  silu and product between its matrix products, as kernels of their own after them (plugin
  ABI 6's serial_bytes), and RMSNorm's six kernels over the activations instead of one read
  and one write; this took the H100 rows from +37% and +35%. RMSNorm computes in fp32
  (`self._norm(x.float()).type_as(x)`: torchtitan's models/norms.py, as Meta's reference code
  and Hugging Face's LlamaRMSNorm), so at bf16 its two casts and four fp32 kernels move 36
  bytes per element where half its fp32 count is 14, and the loss's cast and fp32
  log-softmax 12 bytes more per logit (tools/torch_eager_bytes.py on the modules in bf16,
  plugin ABI 7's upcast_bytes); pricing them took the H100 rows from +25.6% and +25.8%, and
  the A100 row from -7.2%. The rotary embedding is element-wise kernels of its own between
  the projections and the scores: Hugging Face's rotate_half, which the zoo's llama3_8b
  writes, moves 20 bytes per rotated element forward at bf16, and torchtitan's complex form
  (apply_rotary_emb, in fp32) 20 as well (tools/torch_rope_bytes.py; `rope_form=complex`
  counts it apart, 8 bytes at fp32 against rotate_half's 40). torchtitan's op policy
  recomputes it in the backward pass with SwiGLU's silu and product: only the outputs of
  matrix products and of attention are kept. Pricing the rotation took the H100 rows from
  +12.6% and +15.1% to +8.5% and +10.8%, and the recomputed element-wise kernels to +5.4%
  and +7.7%; the scores scaled and masked as Llama's code writes it (the scaling's and the
  mask's FLOPs on every score, where the queries were scaled before) to what the table
  shows. Not priced: the FSDP collectives' SMs and HBM traffic beside the matrix
  units, under the same 500 W. FlashAttention-2 reaches 35% of Hopper's
  peak (FlashAttention-3's paper) on the causal half of the scores it computes, where the
  model prices all the scores at 0.7: the two about cancel.
- **A100.** The A100 row, on the part the `a100` description describes, is the fair check
  of the time model: {a100_diff}, at {a100_mfu}% MFU where torchtitan counts 58.2% its own
  way (6 FLOPs per weight and token, the embedding's included, and the full score product).
  The table was made on 2024-04-24 (torchtitan 1ea476e), when the 64-A100 preset
  (train_configs/llama3_8b.toml) set `norm_type = "fused_rmsnorm"`: torchtitan's Triton
  RMSNorm, one kernel each way reading its rows at bf16 and computing in registers (rmsnorm's
  `fused=true`, 4 bytes per element forward where the eager module at bf16 moves 36); the
  preset went back to the eager norm on 2024-05-02 (5e84866), and the H100 runs of December
  2024 ran that. With the eager norm the prediction misses by {a100_eager}. What is left
  has the opposite sign of the H100 rows' misses: Llama 8B's matrix products (8192 tokens by
  4096 by 14336 in the MLP) are of the size at which an A100 reaches 0.85 of its bf16 peak
  (264.5 of 312 TFLOPS: zzc0721/torch-performance-test-data, database.md) and an H100 0.80
  (789.2 of 989.4), where the descriptions price every matrix product at 0.7 of the peak,
  which the Megatron and BERT rows below, of smaller products, do not exceed: one matrix
  efficiency per precision is what the model has.
- **FSDP's collectives, by unit.** torchtitan applies `fully_shard` to each transformer block
  and to the model (the root: the embedding, the final norm and the output layer), so the
  model gathers and reduce-scatters by those units: the root's weights once before the
  forward pass, kept to the end of the backward pass and reduce-scattered after it; each
  block's gathered while the one before it computes (forward) or the one after it (backward,
  beside that block's reduce-scatter). In memory: the sharded states, the root's gathered
  weights and two blocks'. By layer, as before, a short layer (a norm) did not cover the gather
  of the large one after it, and the memory held two of the largest layers.
- **Not modelled here.** The fp32 temporaries a norm allocates and frees within its pass
  beyond what autograd keeps of it (what it keeps, x.float() among it, is counted); the FSDP
  all-gathers' memory beyond two blocks; CUDA graphs.

## torch.compile and Float8 on the same H100s

The same tables' rows with `torch.compile` (each transformer block compiled) and with Float8
besides (torchao's `Float8Linear` on every nn.Linear but the output layer, dynamic tensorwise
scaling), and Table 2's run of 32,768 tokens under full checkpointing on one node (FSDP 8,
no context parallelism), each predicted as the rows above with the options shown: `--compile`
(each chain of element-wise work one kernel) and `--fp8` (the linear products at the fp8 peak,
their casts as torchao's own roofline counts them: docs/precision.md). Nothing is fitted to
these figures.

| published run | tokens/s per GPU, published | predicted | diff | memory GiB, published | predicted | diff | options |
|---|---:|---:|---:|---:|---:|---:|---|
{compiled}

Source: {compiled_src}.

- **Float8's gain**, over the compiled rows: {fp8_gain}. The model's is the projections at
  twice the bf16 rate, as the datasheet's peaks are, at the bf16 products' fraction (torchao's
  roofline takes one fraction for both), less the casts as torchao's roofline counts them (an
  amax and a cast of every input, weight and output gradient at the DRAM's rate, and their
  kernels at the eager dispatch the compiled rows keep); the attention and the element-wise
  work stay at 16 bits. The runs gained more: whether their FP8 products reach more of their
  peak than that fraction, or their casts cost less than torchao's count, no profile here
  tells.
- **Memory** is predicted as the eager rows' (`--compile` and `--fp8` change the times only):
  the compiled runs held {mem_less} GiB less than the eager ones (a compiler's fused kernels
  keep no fp32 temporaries of the norm and recompute the rotation inside one kernel), and
  Float8 {fp8_less} GiB less again; the model prices neither.
- **32,768 tokens.** At four times the sequence, FlashAttention's share of the step grows
  (its score products scale with the square of the sequence): the model prices them at the
  bf16 products' fraction of the peak, where FlashAttention-2 reaches 35% on Hopper (the
  H100 rows' paragraph above).

## Other frameworks: Megatron-LM and DeepLearningExamples (data-parallel)

Each row is `scalemeter predict` with the options shown (the run's own precision, framework
file, checkpointing, sharding and buckets) and `--format json`. Where the run accumulates
gradients over k micro-batches, `--accumulate k`: the step is k (t_fwd + t_bwd) + t_grad, one
all-reduce and one optimizer update per k micro-batches, and MFU counts the k micro-batches'
FLOPs. Published figures are converted to tokens/s per GPU
(column 3) and compared there; MFU is ours (model FLOPs, no recomputation, over the dense
peak at the precision). Nothing is fitted to these figures.

| published run | published | tokens/s per GPU, published | predicted | diff | predicted MFU | options |
|---|---:|---:|---:|---:|---:|---|
{other}

Sources: Megatron 2021 row, {m21}; Megatron 2024 row, {m24}; BERT rows, {dle}.

- **Megatron's TFLOP/s.** The 2021 table counts what the GPU computes, recomputation included
  (Narayanan et al., SC21, appendix: 96 B s l h^2 (1 + s/6h + V/(16 l h)) per iteration,
  activation checkpointing on, as the 2021 examples/pretrain_gpt*.sh run with
  --checkpoint-activations): 137 TFLOP/s is 9,288 tokens/s per GPU at l 24, h 2304, s 2048, V
  51,200 (1.475e10 FLOPs per token). The 2024 table's is model FLOPs (its "MFU" column, 41% =
  408.8 / 989.4, the H100's dense bf16 peak): Megatron's num_floating_point_operations at
  f2e5db4, 72 B s l h^2 (1 + s/6h) + 6 B s h V, so 408.8 TFLOP/s is 36,259 tokens/s per GPU
  at l 24, h 2048, s 4096, V 131,072. Both count the attention scores in full (4 B s^2 h
  forward per layer, causal mask or not), as scalemeter's attention plugin does.
- **Batch and micro-batch.** The tables give the global batch (512 over 32 GPUs, 192 over 48),
  not the micro-batch: the rows take the whole per-GPU batch (16 and 4) as one micro-batch.
  Accumulating in smaller micro-batches would add dispatch per micro-batch and change no
  arithmetic. The 2024 row at batch 4 without recomputation holds {m24_peak:.0f} GiB predicted
  (its states at Megatron-Core's 6 + 12/d bytes a parameter, its user guide's), within an
  H100's 79.6; whether it ran micro-batches of 1 or 2 is not published.
- **Megatron 2021, {m21_diff}.** The prediction is {m21_tps} tokens/s per GPU, {m21_hw}% of the A100's fp16
  peak counted Megatron's way (with the recomputed forward) against the published 44%. Eager
  attention (Megatron's CoreAttention of 2021: a batched score product, the fused
  scale-mask-softmax, dropout on the probabilities, the context product) moves its 24 heads x
  2048^2 scores per sequence through kernels of their own, which overlap none of the layer's
  matrix products: the softmax reads and writes every score, and in training the dropout
  reads and writes every probability and writes a 1-byte mask, forward and backward. By hand,
  16 x 24 x 2048^2 = 1.61e9 fp16 scores per layer: 6.4 GB through the softmax and 8.1 GB
  through the dropout in the forward pass. The model adds these to the layer's roofline
  instead of hiding them under its arithmetic (device_roofline.c); before, the row was +31%.
  The score product and the context product are batched products 96 deep (the head
  dimension: 2 x 96 FLOPs a score), which write and read the 3.2 GB of scores per layer and
  pass; below the A100's ridge they are bound by those bytes, kernels of their own beside the
  projections, and are priced so (before: +3.0%), and so is the dropout on the hidden states
  in training (nn.Dropout: 5 bytes an element each way at fp16; before, only its dispatch).
  What is left is within the goal; Megatron's own table shows
  the matrix efficiency growing with size (44% at h 2304 up to 52% at h 20480), which one
  efficiency per precision cannot show.
- **Megatron-Core 2024, {m24_diff}.** Its loss casts the 131,072 logits of every token to fp32
  (megatron/core/tensor_parallel/cross_entropy.py, calculate_logits_max: `.float()`), 2.1e9
  per GPU and step, which the model prices at their fp32 bytes since plugin ABI 7 (before:
  +21.3%), and its hidden states' dropout in training (before: +11.5%). The rest is the same
  limit: a constant bf16 efficiency of 0.7 predicts {m24_mfu}%
  MFU where Megatron measured 41% for this, the smallest model of the table, and 47-49% for the
  larger ones ("larger GEMMs have higher arithmetic intensity", its README). h 2048 matrix
  products and a 4096-token flash-attention kernel do not run at the efficiency of the large
  ones. What pulls the other way: the model prices the causal flash attention's full score
  product where the kernel skips the masked half, and exposes the distributed optimizer's
  parameter all-gather after the step where Megatron overlaps it with the next forward pass
  (--overlap-param-gather); neither explains a model that is too fast.
- **BERT-large phase 1, {bert_lo} to {bert_hi}.** bert_large is Hugging Face's BertModel (the encoder
  and pooler); the pretraining heads (the MLM transform and decoder, computed on the 20 masked
  tokens of each 128-token sequence only, dense_seq_output, and the NSP layer, 1.08 M weights)
  are left out, about 1.6% of the FLOPs. Its eager attention's softmax and dropout on the
  probabilities are priced as kernels of their own, as in Megatron's row (before: +24 to
  +26%), and so, since plugin ABI 7, are its division of the scores by sqrt(d) and its
  additive attention mask, eager kernels in DLE's modeling.py as in Hugging Face's: two more
  read-write passes over the scores per layer forward and one backward (bert_large's
  `scale_on=scores mask=additive`; before: +16.2 to +18.0%). Its score and context products
  are kernels of their own, bound by the scores they write and read (64 deep: 128 FLOPs a
  score), and its hidden states' dropouts move their bytes in training (before these two:
  +12.2 to +13.5%). Its mask's addition (plugin ABI 18; before: +10.1 to +11.4%) and the
  copies of its views, the context made contiguous forward and the Q, K and V gradients copied
  back from the heads' layout (ABI 19; before: +8.9 to +10.3%), run in PyTorch's
  non-vectorized loop, which the SMs bound: an H200's profiles of this code
  ([ops-bert-h200.md](ops-bert-h200.md)). Its products' bias gradients, summed over the
  tokens in PyTorch's reduce kernels of their own, are priced since plugin ABI 20 (dle-bert's
  `bias_grad_*`; before: +4.5 to +5.9%). The same code on SQuAD at 384 tokens, on twelve GPU
  models, comes out at medians within 3% of the published figures
  ([accuracy-gpus.md](accuracy-gpus.md)). Not priced yet: the matrix
  efficiency of an eager, jit-scripted model at h 1024. Across nodes the
  published scaling (30.4 x at 32 nodes, 0.95 per GPU) is matched within 2 points by the
  prediction (fp16 gradients once per accumulated step, one bucket, 8 HDR ports per node): the
  error is in the passes, not the all-reduce.
- **Not compared: BERT phase 2 (sequence 512).** Its data is binned by length (LDDL's
  bin_size 64: scripts/run_pretraining.sh, phase2_bin_size=64, and "Binned pretraining for
  phase2" in the README), so a batch is padded to its bin's longest sequence, not to 512; the
  published sequences/s (1,648 on one node: 105,472 tokens/s per GPU if every sequence were 512
  long, more than phase 1's 72,848 although every per-token cost grows with length) cannot be
  converted to tokens without the length distribution, which is not published.
- **No key for it.** The framework files cannot say "matrix efficiency falls with the matrix
  size" or "parameter all-gather overlapped with the next forward pass"; each is named above
  where it moves a row.
"""

if __name__ == "__main__":
    sys.exit(main())
