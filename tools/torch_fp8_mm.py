#!/usr/bin/env python3
"""What fraction of the FP8 tensor peak a float8 recipe's products reach, beside bf16's.

`--fp8` (docs/precision.md, "FP8 products") prices the linear layers' products at the
description's peak_fp8_tflops times compute_efficiency_fp8, which no measurement gives yet:
it defaults to the run's 16-bit fraction. This probe times, on one GPU with CUDA events, the
three products of each linear layer of Llama 3 8B and 70B in a training step (forward
X W^T, the input's gradient dY W, the weight's gradient dY^T X) at bf16 (torch.mm) and in
fp8 (torch._scaled_mm: e4m3 operands, per-tensor scales, fp32 accumulation, bf16 out, as
torchao's Float8Linear and Transformer Engine's current scaling run them; the gradients'
products in e5m2 x e4m3 as torchao's default recipe; fast accumulation on or off), and
writes each product's TFLOP/s. Over the description's peaks (`scalemeter devices --format
json`: peak_tflops.bf16 and .fp8) the medians per pass are the fractions to set
(compute_efficiency_bf16 and compute_efficiency_fp8; docs/devices.md).

    python3 tools/torch_fp8_mm.py [--tokens 8192,16384] [--reps 50] [-o fp8-mm.csv]

Needs a CUDA GPU with FP8 tensor cores (Ada, Hopper, Blackwell) and torch 2.1 or later
(torch.float8_e4m3fn, torch._scaled_mm); says so and exits 2 elsewhere.
"""
import argparse
import csv
import statistics
import sys

# (network, layer, in_features, out_features): Meta's configs (hidden 4096 / 8192, 8 key and
# value heads of 128, intermediate 14336 / 28672); q, k and v are three nn.Linear in Hugging
# Face's and torchtitan's Llama, gate and up two
LAYERS = [
    ("llama3_8b", "q_proj", 4096, 4096),
    ("llama3_8b", "k_proj", 4096, 1024),
    ("llama3_8b", "o_proj", 4096, 4096),
    ("llama3_8b", "gate_proj", 4096, 14336),
    ("llama3_8b", "down_proj", 14336, 4096),
    ("llama3_70b", "q_proj", 8192, 8192),
    ("llama3_70b", "k_proj", 8192, 1024),
    ("llama3_70b", "gate_proj", 8192, 28672),
    ("llama3_70b", "down_proj", 28672, 8192),
]


def products(tokens, k, n):
    """(pass, M, K, N) of a linear layer of k inputs and n outputs over tokens rows."""
    return [("forward", tokens, k, n), ("grad_input", tokens, n, k), ("grad_weight", n, tokens, k)]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tokens", default="8192,16384",
                   help="rows of each product: tokens a micro-batch (default 8192,16384)")
    p.add_argument("--reps", type=int, default=50, help="timed launches a product (default 50)")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("-o", "--output", default="fp8-mm.csv")
    a = p.parse_args(argv)
    try:
        a.tokens = [int(t) for t in a.tokens.split(",")]
    except ValueError:
        p.error(f"--tokens {a.tokens}: expected numbers joined by commas")
    if any(t < 1 for t in a.tokens) or a.reps < 1 or a.warmup < 0:
        p.error("--tokens and --reps take positive numbers, --warmup 0 or more")
    return a


def main(argv):
    a = parse_args(argv)
    try:
        import torch
    except ImportError:
        print("torch_fp8_mm.py: needs torch (2.1 or later) on a CUDA GPU", file=sys.stderr)
        return 2
    if not torch.cuda.is_available() or not hasattr(torch, "float8_e4m3fn") or \
            not hasattr(torch, "_scaled_mm"):
        print(f"torch_fp8_mm.py: needs a CUDA GPU and torch 2.1 or later with float8 "
              f"(this torch {torch.__version__}, CUDA available: {torch.cuda.is_available()})",
              file=sys.stderr)
        return 2
    cap = torch.cuda.get_device_capability()
    if cap < (8, 9):
        print(f"torch_fp8_mm.py: {torch.cuda.get_device_name()} (sm_{cap[0]}{cap[1]}) has no "
              "FP8 tensor cores (Ada sm_89, Hopper sm_90 and later)", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    one = torch.ones((), device=dev, dtype=torch.float32)
    e4m3, e5m2 = torch.float8_e4m3fn, torch.float8_e5m2

    def timed(fn):
        for _ in range(a.warmup):
            fn()
        start = [torch.cuda.Event(enable_timing=True) for _ in range(a.reps)]
        end = [torch.cuda.Event(enable_timing=True) for _ in range(a.reps)]
        for s, e in zip(start, end):
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) for s, e in zip(start, end))  # ms

    def scaled(x, w, fast):
        out = torch._scaled_mm(x, w, scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                               use_fast_accum=fast)
        return out[0] if isinstance(out, tuple) else out  # torch 2.1-2.3 return (out, amax)

    rows = []
    for tokens in a.tokens:
        for net, layer, k_in, n_out in LAYERS:
            for pas, m, k, n in products(tokens, k_in, n_out):
                x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
                # _scaled_mm's second operand column-major: the transpose of a row-major (n, k)
                w = torch.randn(n, k, device=dev, dtype=torch.bfloat16).t()
                flops = 2.0 * m * k * n
                row = {"network": net, "layer": layer, "pass": pas, "m": m, "k": k,
                       "n": n, "gpu": torch.cuda.get_device_name(), "torch": torch.__version__}
                ms = timed(lambda: torch.mm(x, w))
                row["bf16_ms"], row["bf16_tflops"] = ms, flops / ms / 1e9
                # the gradients' products take an e5m2 operand (dY), the forward's two e4m3
                xa = x.to(e5m2 if pas != "forward" else e4m3)
                wa = w.t().contiguous().to(e4m3).t()
                for fast in (False, True):
                    ms = timed(lambda: scaled(xa, wa, fast))
                    key = "fp8_fast" if fast else "fp8"
                    row[f"{key}_ms"], row[f"{key}_tflops"] = ms, flops / ms / 1e9
                rows.append(row)
                print(f"{net} {layer} {pas} {m}x{k}x{n}: bf16 {row['bf16_tflops']:.0f}, "
                      f"fp8 {row['fp8_tflops']:.0f}, fast {row['fp8_fast_tflops']:.0f} TFLOP/s",
                      flush=True)
                del x, w, xa, wa
    with open(a.output, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(rows[0]))
        out.writeheader()
        out.writerows(rows)
    for pas in ("forward", "grad_input", "grad_weight"):
        own = [r for r in rows if r["pass"] == pas]
        print(f"{pas}: median TFLOP/s bf16 {statistics.median(r['bf16_tflops'] for r in own):.0f}, "
              f"fp8 {statistics.median(r['fp8_tflops'] for r in own):.0f}, fp8 fast "
              f"{statistics.median(r['fp8_fast_tflops'] for r in own):.0f}")
    print(f"wrote {a.output}: {len(rows)} products")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
