#!/usr/bin/env python3
"""What layer norm and group norm move and keep under CUDA autocast, per input element.

CUDA autocast runs layer_norm and group_norm in fp32 (ATen's autocast_mode.cpp, its fp32
list): a 16-bit input is cast up, the norm runs in fp32 and its result stays fp32 for the next
matrix product to cast back. This CPU's autocast has other lists, so the casts are written out
as CUDA's autocast inserts them, and PyTorch's own kernels and saved tensors are measured
(tools/torch_eager_bytes.py's op log, saved_tensors_hooks) beside the same norm run in bfloat16
and in fp32. Per input element (E 64 features or channels, 4 groups), the fp32 statistics left
out: the host's plugins count those apart. The host prices the autocast rows (plugin.h's
SM_TRAIT_AUTOCAST_FP32).

Usage: /usr/bin/python3 tools/torch_autocast_norm.py    (torch 1.13 here)
"""
import torch
from torch import nn
from torch.nn import functional as F

import torch_eager_bytes


class Norm(nn.Module):
    def __init__(self, kind, upcast, e):
        super().__init__()
        self.kind, self.upcast = kind, upcast
        self.weight = nn.Parameter(torch.ones(e))
        self.bias = nn.Parameter(torch.zeros(e))

    def forward(self, x):
        if self.upcast:  # autocast's fp32 policy: every floating argument cast to fp32
            x = x.float()
        w, b = self.weight.to(x.dtype), self.bias.to(x.dtype)
        if self.kind == "layer_norm":
            return F.layer_norm(x, x.shape[-1:], w, b)
        return F.group_norm(x, 4, w, b)


def kept(module, x):
    params = {p.data_ptr() for p in module.parameters()}
    seen = {}

    def pack(t):
        if t.storage().data_ptr() not in params and t.numel() == x.numel():
            seen[t.storage().data_ptr()] = t.storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        module(x.clone().requires_grad_(True))
    return sum(seen.values())


def main():
    e = 64
    print("norm        input     forward  backward  kept   bytes per input element")
    for kind in ("layer_norm", "group_norm"):
        shape = (2, 16, e) if kind == "layer_norm" else (2, e, 4, 4)
        for name, dtype, upcast in (("fp32", torch.float32, False),
                                    ("bf16", torch.bfloat16, False),
                                    ("autocast", torch.bfloat16, True),
                                    ("autocast", torch.float32, True)):
            x = torch.randn(*shape).to(dtype)
            m = Norm(kind, upcast, e)
            n = x.numel()
            fwd, bwd = torch_eager_bytes.measure(m, x)
            # kernels over the whole input: the weights' casts and the seed gradient left out
            f = sum(r + w for op, r, w in fwd if op != "_to_copy" or r >= n * 2) / n
            b = sum(r + w for op, r, w in bwd if op != "ones_like" and r + w >= n * 2) / n
            label = name if name != "autocast" else f"autocast {str(dtype)[6:]}"
            print(f"{kind:11} {label:17} {f:6.0f} {b:8.0f} {kept(m, x) / n:6g}")


if __name__ == "__main__":
    main()
