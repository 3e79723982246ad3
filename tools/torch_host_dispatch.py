#!/usr/bin/env python3
"""What eager PyTorch's host spends on one layer's pass: a part per module call and a part per
kernel, measured on modules of one kernel and of many.

The framework's dispatch (configs/frameworks/*.ini, dispatch_fwd_us and dispatch_bwd_us) is one
price per kernel a layer declares (plugin.h's kernels_fwd and kernels_bwd), fitted on CNNs whose
layers launch one or two. Layers written in Python ops launch many (tests/test_conformance_torch.py
--derive: Llama's RMSNorm 6 forward and 14 backward, SwiGLU 5 and 10, Hugging Face's eager
attention 12-14 and 17-27), and a module call's own cost (Python, nn.Module's hooks, autograd's
node) is paid once however many kernels it launches. This probe times each module's training
forward pass, and forward and backward, on tensors so small that the host, not the device,
sets the pace (the GPU's kernels finish before the next is launched), counts the kernels each
pass launches (tools/torch_eager_bytes.py), and fits host time = per call + per kernel x
kernels by least squares over the modules, per pass. On a GPU the per-kernel part includes the
CUDA launch; on a CPU it is the dispatcher's and the kernel's own (tiny) work. The input's own
kernel and the backward pass's start (backward() is called once a pass here, once a step in a
network) are timed alone, on an identity, and taken out.

On this project's build machine (one core of its CPU, torch 1.13; five runs of 400 passes, 5
or 9 rounds): 7-12 us a kernel forward and 9-15 backward, the per-call part within -17 to +16
us of nothing, the noise of a shared machine. The framework's 36 and 43 us a declared kernel
were fitted on an H100 host's CNN runs, and an H200 host's unprofiled CNN forward passes took
14-16 us a kernel (docs/ops-h200.md).

    python3 tools/torch_host_dispatch.py [--device cpu|cuda] [--reps N] [-o FILE]

Output: one CSV row per module (module, device, kernels_fwd, kernels_bwd, host_fwd_us,
host_bwd_us: medians of --rounds rounds of --reps passes) and the fits, printed. Written
against torch 1.13 (/usr/bin/python3 here); needs torch and torchvision.
"""
import argparse
import csv
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_python import require_torch  # noqa: E402

require_torch("torch_host_dispatch.py", ("torch", "torchvision"))
import torch  # noqa: E402
from torch import nn  # noqa: E402

import torch_eager_bytes  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import test_conformance_torch as ref  # noqa: E402  (its modules: Hugging Face's and Llama's)

E, S, HEADS = 16, 4, 2  # a sequence of 4 tokens of 16 features: every kernel is tiny


def modules():
    """(name, module, input) of one kernel a pass and of many."""
    seq = (1, S, E)
    return [
        ("linear", nn.Linear(E, E), seq),
        ("linear_nobias", nn.Linear(E, E, bias=False), seq),
        ("relu", nn.ReLU(), seq),
        ("layernorm", nn.LayerNorm(E), seq),
        ("conv2d", nn.Conv2d(4, 4, 3, padding=1, bias=False), (1, 4, 4, 4)),
        ("batchnorm2d", nn.BatchNorm2d(4), (2, 4, 4, 4)),
        ("gelu_composite", ref.NewGELU(), seq),
        ("rmsnorm", ref.RMSNorm(E, upcast=False), seq),
        ("swiglu", ref.SwiGLU(E, 2 * E), seq),
        ("bert_attention", ref.BertSelf(E, HEADS, S), seq),
        ("gqa_attention", ref.GQA(E, HEADS, 1), seq),
    ]


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def per_pass_us(module, x, reps, rounds, device, backward):
    """Median over rounds of the mean host time of one pass (forward, or forward and
    backward), microseconds."""
    x = x.clone().requires_grad_(True)
    grad = None
    out = []
    for r in range(rounds + 1):  # the first round warms the allocator and the caches
        sync(device)
        t0 = time.perf_counter()
        for _ in range(reps):
            y = module(x * 1)  # a non-leaf, as a layer's input: in-place modules may write it
            if backward:
                if grad is None:
                    grad = torch.ones_like(y)
                y.backward(grad)
        sync(device)
        if r:
            out.append((time.perf_counter() - t0) / reps * 1e6)
    return statistics.median(out)


def fit(points):
    """Least squares of host = a + b k over (k, host) points: (a, b)."""
    slope, intercept = statistics.linear_regression(*zip(*points))
    return intercept, slope


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("-o", "--out", help="CSV file (default: the standard output)")
    a = ap.parse_args()
    if a.device == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_host_dispatch.py: --device cuda, and torch sees no GPU")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rows = []
    for name, module, shape in modules():
        # counted on the CPU: the ops a module's Python runs are the same on either device
        x = torch.randn(*shape)
        k_fwd, k_bwd = torch_eager_bytes.kernels(module, x)
        module = module.to(a.device)
        x = x.to(a.device)
        # the input's x * 1 (a kernel forward and one backward) and the backward pass's start
        # (the autograd engine's, once a step in a network): a module that launches nothing
        # pays them alone, and they are taken out
        ident = nn.Identity().to(a.device)
        fwd = (per_pass_us(module, x, a.reps, a.rounds, a.device, False) -
               per_pass_us(ident, x, a.reps, a.rounds, a.device, False))
        both = (per_pass_us(module, x, a.reps, a.rounds, a.device, True) -
                per_pass_us(ident, x, a.reps, a.rounds, a.device, True))
        rows.append({"module": name, "device": a.device, "kernels_fwd": k_fwd,
                     "kernels_bwd": k_bwd, "host_fwd_us": round(fwd, 2),
                     "host_bwd_us": round(both - fwd, 2)})
        print(f"{name}: {k_fwd} and {k_bwd} kernels, {fwd:.1f} and {both - fwd:.1f} us",
              file=sys.stderr)
    f = open(a.out, "w", newline="") if a.out else sys.stdout
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    if a.out:
        f.close()
    for phase in ("fwd", "bwd"):
        call, kernel = fit([(r[f"kernels_{phase}"], r[f"host_{phase}_us"]) for r in rows])
        print(f"{phase}: host = {call:.1f} us a module call + {kernel:.2f} us a kernel "
              f"({a.device}, torch {torch.__version__})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
