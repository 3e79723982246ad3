#!/usr/bin/env python3
"""Will it fit? The memory model against what PyTorch's CUDA allocator held on an H200. Writes
docs/accuracy-memory.md.

    tools/memory_gpu_validation.py [--bin build/bin/scalemeter] [--out docs/accuracy-memory.md]

The measurements are configs/calibrations/h200-pytorch-memory.csv (tools/torch_gpu_memory.py,
run by `tools/gpu-validate.sh --phase memory`): 16 torchvision networks of the zoo training with
SGD and momentum at batch 32 and 128, fp32 (TF32 off) and bf16 autocast, the allocator's peak
of a steady training step and of an inference pass, the CUDA context, and the largest
training batch of two. Each is predicted by `scalemeter predict --device h200 --optimizer
momentum --format json` from the shipped description alone; nothing is fitted to them.
Standard library only; seconds.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = "configs/calibrations/h200-pytorch-memory.csv"
MB = 1e6
GIB = 2 ** 30


def predict(binary, model, batch, image, precision, extra=()):
    """predict's JSON; batch None asks for --max-batch."""
    sizing = ["--max-batch"] if batch is None else ["--batch", str(batch)]
    args = [binary, "predict", model, "--device", "h200", "-g", "1", *sizing,
            "--image", str(image), "--precision", precision, "--optimizer", "momentum",
            "--format", "json", *extra]
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    if r.returncode:
        sys.exit(f"memory_gpu_validation.py: {' '.join(args[1:])}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def line_of(points):
    """(slope, intercept) of the line through two (batch, bytes) points."""
    (b0, y0), (b1, y1) = points
    slope = (y1 - y0) / (b1 - b0)
    return slope, y0 - slope * b0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "scalemeter"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy-memory.md"))
    a = ap.parse_args()
    with open(os.path.join(ROOT, DATA), newline="") as f:
        rows = list(csv.DictReader(f))
    steps = [r for r in rows if r["kind"] == "step" and r["status"] == "ok"]
    largest = [r for r in rows if r["kind"] == "max_train"]
    meta = steps[0]

    table, lines, ratios = [], [], {"train": {}, "infer": {}}
    nets = sorted({(r["model"], r["precision"]) for r in steps},
                  key=lambda k: (k[1] != "fp32", k[0]))
    for model, precision in nets:
        mine = sorted((r for r in steps if r["model"] == model and r["precision"] == precision),
                      key=lambda r: int(r["batch"]))
        meas_t, pred_t, meas_i, pred_i = [], [], [], []
        for r in mine:
            b, image = int(r["batch"]), int(r["image"])
            p = predict(a.bin, model, b, image, precision)
            mt, mi = int(r["train_peak"]), int(r["infer_peak"])
            pt, pi = p["memory"]["peak"], p["memory_infer"]["peak"]
            meas_t.append((b, mt)); pred_t.append((b, pt - p["memory"]["workspace"]))
            meas_i.append((b, mi)); pred_i.append((b, pi - p["memory_infer"]["workspace"]))
            ratios["train"].setdefault((precision, b), []).append(pt / mt)
            ratios["infer"].setdefault((precision, b), []).append(pi / mi)
            table.append(f"| {model} | {precision} | {b} | {mt / GIB:.2f} | {pt / GIB:.2f} | "
                         f"{pt / mt:.2f} | {mi / GIB:.2f} | {pi / GIB:.2f} | {pi / mi:.2f} |")
        if len(mine) == 2:
            (ms, mc), (ps, pc) = line_of(meas_t), line_of(pred_t)
            (mis, mic), (pis, pic) = line_of(meas_i), line_of(pred_i)
            ws = p["memory"]["workspace"]  # the description's, the same at every batch
            lines.append(f"| {model} | {precision} | {ms / MB:.1f} | {ps / MB:.1f} | "
                         f"{ps / ms:.2f} | {mc / MB:.0f} | {pc / MB:.0f} | {mic / MB:.0f} | "
                         f"{pic / MB:.0f} | {(mic - pic) / MB:.0f} | {ws / MB:.0f} |")

    def summary(kind):
        out = []
        for (precision, b), v in sorted(ratios[kind].items(), key=lambda kv: (kv[0][0] != "fp32",
                                                                             kv[0][1])):
            out.append(f"| {kind} | {precision} | {b} | {statistics.median(v):.2f} | "
                       f"{min(v):.2f} | {max(v):.2f} | "
                       f"{sum(1 for x in v if abs(x - 1) <= 0.10)} of {len(v)} |")
        return out

    big, over = [], {}
    for r in largest:
        p = predict(a.bin, r["model"], None, int(r["image"]), r["precision"])
        big.append(f"| {r['model']} | {r['precision']} | {r['batch']} | {p['max_batch']} | "
                   f"{p['max_batch'] / int(r['batch']):.2f} |")
        over[(r["model"], r["precision"])] = p["max_batch"] / int(r["batch"]) - 1

    def above(precision):  # "9% for ResNet-50 and 21% for ViT-B/16"
        pretty = {"resnet50": "ResNet-50", "vit_b_16": "ViT-B/16"}
        return " and ".join(f"{100 * x:.0f}% for {pretty.get(m, m)}"
                            for (m, pr), x in over.items() if pr == precision)
    ctx = [int(r["context_bytes"]) / 2 ** 20 for r in steps]
    res = [int(r["reserved_peak"]) / int(r["train_peak"]) for r in steps]
    h200 = p["memory"]  # the context and capacity are the description's, whatever the network
    total = int(meta["total_bytes"])
    v = int(meta["cudnn"])  # torch.backends.cudnn.version(): 91900 is 9.19.0
    cudnn = f"{v // 10000}.{v % 10000 // 100}.{v % 100}"

    doc = f"""# Memory against an H200's allocator

Generated by `tools/memory_gpu_validation.py` from `{DATA}`; do not edit by hand.

What ran (`tools/gpu-validate.sh --phase memory`, tools/torch_gpu_memory.py): one {meta['device']},
PyTorch {meta['torch']}, cuDNN {cudnn}, 2026-11-26. Each torchvision network of the zoo
trains with SGD and momentum 0.9 (`zero_grad(set_to_none=True)`, cuDNN's benchmark mode off as
PyTorch's default) at fp32 with TF32 off, and under bf16 autocast with fp32 master weights; the
second step's `torch.cuda.max_memory_allocated` is the training peak (the momentum buffers exist
then, as in every later step), and one eval forward pass under `no_grad` the inference peak
(weights included). The model's figure is `predict`'s `memory.peak` and `memory_infer.peak`
(`scalemeter predict NET --device h200 -g 1 --batch B --precision P --optimizer momentum`),
which hold the same parts (docs/memory.md); the context is outside both and compared apart.

## Peaks, network by network

Training and inference peaks in GiB, measured and predicted, and predicted / measured:

| network | precision | batch | train | model | ratio | infer | model | ratio |
|---|---|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(table)}

| peak | precision | batch | median ratio | min | max | within 10% |
|---|---|---:|---:|---:|---:|---:|
{chr(10).join(summary("train") + summary("infer"))}

## What grows with the batch, and what does not

The two batches give each network a line: bytes per sample (the activations and what the
backward pass holds beside them) and a fixed part. The model's fixed part is shown without its
libraries' workspace (the last column, `workspace_mib` + `conv_workspace_mib`), so that the
difference of the inference columns is the workspace the libraries really held at the peak
(with PyTorch's rounding of blocks):

| network | precision | MB / sample | model | ratio | train fixed MB | model (no workspace) | infer fixed MB | model (no workspace) | infer difference | model workspace |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(lines)}

## The largest batch that trains

The largest training batch that ran (doubling from 128, then bisection to within 2%), against
`predict --max-batch` (peak + context within `memory_gib`):

| network | precision | ran | model | model / ran |
|---|---|---:|---:|---:|
{chr(10).join(big)}

## The context and the capacity

- The CUDA context, cuDNN's and cuBLAS's handles and the loaded kernels (cudaMemGetInfo's used
  memory less the allocator's reserve): {min(ctx):.0f} to {max(ctx):.0f} MiB, growing as the
  networks loaded kernels; the Hopper descriptions' `context_mib` is
  {h200['context'] / 2 ** 20:.0f}.
- CUDA offers {total / GIB:.2f} GiB of the H200 ({total:,} bytes); the description's
  `memory_gib` is nvidia-smi's total, {h200['capacity'] / GIB:.2f} GiB.
- The allocator's reserve (`max_memory_reserved`) is {statistics.median(res):.2f} times its peak
  allocation (median; {min(res):.2f} to {max(res):.2f}): blocks cached after cuDNN's
  workspace and freed activations, which PyTorch releases and retries before it reports out of
  memory.

## What it shows

- What grows with the batch is right: the bytes per sample are within 2% for 10 of the 16
  networks at either precision, and within 8% for all at bf16 (tools/torch_saved_tensors.py
  had checked the saved tensors on the CPU). At fp32 with TF32 off, the networks with large
  dense convolutions (ResNet-18, -50, -101, VGG-16, Inception v3) and ViT-B/16 hold 4 to 30%
  more per sample than the model counts, where at bf16 they are within 1 to 5%: cuDNN's and
  the attention kernels' fp32 algorithms take workspace that grows with the batch. That is
  why `--max-batch` is above what ran, by {above("fp32")} at fp32, and
  a planner sizing an fp32 job at its limit should keep that margin; at bf16, where the
  bytes per sample agree, it is still above by {above("bf16")}
  (the bisection stops within 2%; the rest is not yet placed). Which kernels hold it
  needs the allocator's timeline (`torch.cuda.memory._record_memory_history`) on a GPU:
  issue 38.
- What does not grow is where the model errs at small batches: the libraries' workspace at
  the inference peak is 74 to 290 MB for the CNNs, not the 256 + 32 MiB counted, 0.4 to 0.6
  GB for ViT-B/16, and VGG-16's large convolutions take 3.1 GB at fp32 and 0.6 GB at bf16.
  So small networks at batch 32 are predicted up to 1.47 times their training peak (2.4 times
  in inference), while at batch 128 the training peak is within 10% for 30 of the 32 (ResNet-18
  and VGG-16 at fp32 are under by 12% and 19%, the workspace above).
- The context is half as large again as the estimate of 512 MiB it replaced: 0.77 GiB,
  measured, and now the Hopper descriptions' figure.
"""
    with open(a.out, "w") as f:
        f.write(doc)
    print(f"memory_gpu_validation.py: wrote {os.path.relpath(a.out, ROOT)}")


if __name__ == "__main__":
    main()
