#!/usr/bin/env python3
"""The bytes eager PyTorch moves in one layer's forward and backward passes, op by op.

Every aten op the module runs (forward, then backward from a gradient of ones) is logged by a
TorchDispatchMode: the bytes of its tensor operands (read) and results (written), skipping views
(results that alias an operand without writing it) and the parameters (the host counts the
weights once, apart). Ops are split into matrix products (mm, addmm, bmm) and the rest, the
element-wise and reduction kernels that run between them. This is the outside reference for a
plugin's `bytes`, `serial_bytes` (plugin.h, ABI 6) and `upcast_bytes` (ABI 7: the same run in
bf16): what each kernel of PyTorch's own decomposition reads and writes, every tensor once per
kernel, no cache reuse assumed; and, counting those ops, for its `kernels_fwd` and
`kernels_bwd` (ABI 5).

    python3 tools/torch_eager_bytes.py [CASES.ini...]    # per sample, fp32, every case
    python3 tools/torch_eager_bytes.py -v [CASES.ini...] # and every op, forward and backward

tests/test_conformance_torch.py holds every plugin's `bytes` and `serial_bytes` cases to it.

Written against torch 1.13 (/usr/bin/python3 on the development machine).
"""
import os
import sys

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

MATMUL = {"mm", "addmm", "bmm", "baddbmm"}
# results that alias their operand although the schema does not say so: no kernel runs
NO_KERNEL = {"_unsafe_view"}


def _is_view(func):
    returns = func._schema.returns
    return bool(returns) and returns[0].alias_info is not None and not returns[0].alias_info.is_write


class Traffic(TorchDispatchMode):
    def __init__(self, params, backward=False):
        super().__init__()
        self.params = {p.data_ptr() for p in params}
        # the backward pass's weight gradients, known by their shapes (the cases' activations
        # have a batch dimension more than any weight)
        self.shapes = {tuple(p.shape) for p in params} | {tuple(p.shape[::-1]) for p in params}
        self.backward = backward
        self.ops = []

    def _bytes(self, objs):
        """Activation bytes: the parameters and their gradients left out."""
        total = 0
        for t in objs:
            if (isinstance(t, torch.Tensor) and t.data_ptr() not in self.params
                    and not (self.backward and tuple(t.shape) in self.shapes)):
                total += t.numel() * t.element_size()
        return total

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func._schema.name.split("::")[-1]
        if not _is_view(func) and name not in NO_KERNEL:
            outs = out if isinstance(out, (tuple, list)) else (out,)
            flat = list(args) + [v for v in (kwargs or {}).values()]
            flat = [x for a in flat for x in (a if isinstance(a, (tuple, list)) else (a,))]
            if any(isinstance(o, torch.Tensor) for o in outs):  # is_same_size: no kernel
                self.ops.append((name, self._bytes(flat), self._bytes(outs)))
        return out


def _forward(module, x):
    """The forward pass's ops, and its output."""
    with Traffic(list(module.parameters())) as fwd:
        y = module(x)
    return fwd.ops, y


def measure(module, x):
    """(forward ops, backward ops): lists of (op, bytes read, bytes written)."""
    x = x.clone().requires_grad_(True)
    fwd, y = _forward(module, x)
    with Traffic(list(module.parameters()), backward=True) as bwd:
        y.backward(torch.ones_like(y))
    return fwd, bwd.ops


def kernels(module, x):
    """(forward, backward): the kernels eager PyTorch launches in one training pass of the
    module over x, as plugin.h's kernels_fwd and kernels_bwd count them: every aten op that
    writes a tensor (views, which launch none, left out), the backward pass's from a gradient
    made before it; None where x takes no gradient (an index). Where an op runs one kernel on
    the CPU and another on a GPU (cuDNN's batch norm), the count is the CPU's: the cases that
    state one are modules written in Python ops, the same on either."""
    if not x.dtype.is_floating_point:
        return None
    for p in module.parameters():  # a gradient already there would be added to (add_)
        p.grad = None
    # not a leaf, so that an in-place module may write over it (a layer's input in a
    # network); a clone's backward passes the gradient on without a kernel
    x = x.clone().requires_grad_(True).clone()
    fwd, y = _forward(module, x)
    grad = torch.ones_like(y)
    with Traffic(list(module.parameters()), backward=True) as bwd:
        y.backward(grad)
    return len(fwd), len(bwd.ops)


def forward_bytes(module, x):
    """(bytes, serial_bytes) of one forward pass over the batch x: all its ops' traffic, and
    that of the ops that are not matrix products where the module runs matrix products too
    (element-wise work between them, plugin.h's serial_bytes), else 0."""
    ops, _ = _forward(module, x)
    mm = sum(r + w for n, r, w in ops if n in MATMUL)
    rest = sum(r + w for n, r, w in ops if n not in MATMUL)
    return mm + rest, rest if mm else 0


def main(argv):
    """What eager PyTorch moves for every conformance case's module: test_conformance_torch.py
    --derive, whose `bytes` and `serial_bytes` come from forward_bytes()."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "tests"))
    import test_conformance_torch

    if "-v" in argv:  # every op of each case's forward and backward passes
        for path, line, section, kv in test_conformance_torch.all_cases(
                [a for a in argv if a != "-v"]):
            module, x = test_conformance_torch.instance(kv["torch"], kv["input"])
            if x.dtype.is_floating_point:
                for phase, ops in zip(("forward", "backward"), measure(module, x)):
                    for op in ops:
                        print(f"{path}:{line} {section} {phase}", *op)
        return 0
    return test_conformance_torch.main(["--derive"] + argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
