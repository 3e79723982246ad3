#!/usr/bin/env python3
"""What an optimizer written as a Python loop over its parameters costs the host, per tensor.

    /usr/bin/python3 tools/torch_optimizer_dispatch.py [--reps N]

The per-parameter body of BertAdam, the fp32 optimizer of NVIDIA DeepLearningExamples' BERT
fine-tuning (LanguageModeling/BERT/optimization.py: clip_grad_norm_ on the one parameter, the
two moments' in-place updates, the update over the root of the second moment, weight decay,
the learning rate and the step), written out here with the same tensor operations. A
TorchDispatchMode counts the aten kernels one parameter launches, with weight decay (weights)
and without (biases and norms, DLE's no_decay list); the loop is timed on tensors of 4 elements,
where the time is the host's: Python, the dispatcher and the allocator, without the CUDA
launch each kernel adds on a GPU. configs/frameworks/dle-squad-fp32.ini prices its update with
these figures (docs/accuracy-gpus.md). Written against torch 1.13.
"""
import argparse
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode

B1, B2, EPS, LR, MAX_NORM = 0.9, 0.999, 1e-6, 1e-3, 1.0


def bertadam_body(p, m, v, weight_decay):
    """One parameter's step, as BertAdam's loop body runs it."""
    torch.nn.utils.clip_grad_norm_(p, MAX_NORM)
    g = p.grad.data
    m.mul_(B1).add_(g, alpha=1 - B1)
    v.mul_(B2).addcmul_(g, g, value=1 - B2)
    update = m / (v.sqrt() + EPS)
    if weight_decay > 0:
        update += weight_decay * p.data
    update_with_lr = LR * update
    p.data.add_(-update_with_lr)


class Count(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))


def parameter(n):
    p = torch.nn.Parameter(torch.ones(n))
    p.grad = torch.full((n,), 0.5)
    return p, torch.zeros(n), torch.zeros(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=20000)
    a = ap.parse_args()
    torch.set_num_threads(1)
    for wd, what in ((0.01, "a weight (weight decay)"), (0.0, "a bias or norm (none)")):
        p, m, v = parameter(4)
        with Count() as c:
            bertadam_body(p, m, v, wd)
        # detach and views make no kernel
        kernels = [op for op in c.ops if op not in ("detach", "view", "alias")]
        for _ in range(a.reps // 10):
            bertadam_body(p, m, v, wd)
        rounds = []  # the fastest of five rounds: what the loop costs with nothing else running
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(a.reps // 5):
                bertadam_body(p, m, v, wd)
            rounds.append((time.perf_counter() - t) / (a.reps // 5) * 1e6)
        us = min(rounds)
        print(f"{what}: {len(kernels)} kernels ({', '.join(kernels)}), {us:.1f} us of host "
              f"time, {us / len(kernels):.2f} us a kernel (torch {torch.__version__})")


if __name__ == "__main__":
    main()
