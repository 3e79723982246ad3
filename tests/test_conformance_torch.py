#!/usr/bin/env python3
"""The expected values of every plugins/*/cases.ini against PyTorch itself.

A case's `torch = EXPR` is the PyTorch module (or function) it models; this runs it on a batch
of 2 of the case's input and compares with the case's output shape, weights (sum of
parameters' numel), param_tensors (len(parameters())), macs (multiply-accumulates of the
matrix products and convolutions PyTorch dispatches, as torch.utils.flop_counter counts them,
per sample), bytes and serial_bytes (what the forward pass's aten ops read and write,
tools/torch_eager_bytes.py, per sample) and upcast_bytes (what they move more in bf16 than half
of that), kernels_fwd and kernels_bwd (the aten ops a training pass launches, views left out),
linear_products, linear_flops, linear_input_elems and linear_output_elems (the products by a
weight matrix its forward pass dispatches, their FLOPs, inputs each once and outputs, per
sample),
activations (the unique storages autograd's saved tensors hold, parameters left out,
and the output's, per sample: what the plugin's saved() declaration must account for); and where the case gives input_values (and weight_values), its output_values against
the module's output on them at batch 1 in eval() mode, within 1e-4 of the largest. test_conformance then holds the plugin to the same
numbers, so that they are never derived from the code under test. `--derive FILE...` prints what PyTorch gives instead.

usage: test_conformance_torch.py [--derive] [CASES.ini...]
(default: plugins/*/cases.ini and examples/plugin/cases.ini)
"""
import glob
import math
import os
import sys

try:
    import torch
    import torch.nn as nn
    import torchvision
    from torch.utils._python_dispatch import TorchDispatchMode
except ImportError as e:  # ctest reads 77 as skipped, not passed
    print(f"SKIP: {e} (Debian's python3-torchvision)")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import torch_eager_bytes  # noqa: E402  (the tools folder, beside this one)

aten = torch.ops.aten


# ---- the helpers a case's torch expression may use --------------------------------------

class Fn(nn.Module):
    """A function of the input as a module without parameters."""
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


class NewGELU(nn.Module):
    """Hugging Face's NewGELUActivation (GPT-2's gelu_new), in Python ops as it is written."""
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                           (x + 0.044715 * torch.pow(x, 3.0))))


class First(nn.Module):
    """The first output of a module returning a tuple (nn.LSTM's output, h)."""
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)[0]


class Self(nn.Module):
    """Self-attention: nn.MultiheadAttention(x, x, x)'s output."""
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x, x, x, need_weights=False)[0]


class ChannelsLast(nn.Module):
    """A module on the last dim applied to dim 1 (ConvNeXt's LayerNorm2d)."""
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x.movedim(1, -1)).movedim(-1, 1)


class Scale(nn.Module):
    """ConvNeXt's layer_scale: x * gamma, gamma of the given shape."""
    def __init__(self, *shape):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(*shape))

    def forward(self, x):
        return x * self.gamma


class ClsToken(nn.Module):
    """ViT's class token prepended to the sequence."""
    def __init__(self, e):
        super().__init__()
        self.class_token = nn.Parameter(torch.zeros(1, 1, e))

    def forward(self, x):
        return torch.cat([self.class_token.expand(x.shape[0], -1, -1), x], dim=1)


class PosEmbedding(nn.Module):
    """GPT-2's wpe: x + table[0:S]."""
    def __init__(self, max_len, e):
        super().__init__()
        self.wpe = nn.Embedding(max_len, e)

    def forward(self, x):
        return x + self.wpe(torch.arange(x.shape[1]))


class TiedHead(nn.Module):
    """An LM head tied to the embedding: the matrix is the embedding's, the bias its own."""
    def __init__(self, e, vocab, bias):
        super().__init__()
        self.register_buffer("tied", torch.zeros(vocab, e))
        self.bias = nn.Parameter(torch.zeros(vocab)) if bias else None

    def forward(self, x):
        return nn.functional.linear(x, self.tied, self.bias)


class SwiGLU(nn.Module):
    """Llama's MLP: down(silu(gate(x)) * up(x)), no bias."""
    def __init__(self, e, f):
        super().__init__()
        self.gate_proj = nn.Linear(e, f, bias=False)
        self.up_proj = nn.Linear(e, f, bias=False)
        self.down_proj = nn.Linear(f, e, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class RMSNorm(nn.Module):
    """Llama's RMSNorm as Meta's reference code and torchtitan write it (torch 1.13 has no
    nn.RMSNorm): computed in fp32, cast back; upcast=False leaves the casts out."""
    def __init__(self, e, eps=1e-5, upcast=True):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(e))
        self.eps, self.upcast = eps, upcast

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        if self.upcast:
            return self._norm(x.float()).type_as(x) * self.weight
        return self._norm(x) * self.weight


class BertSelf(nn.Module):
    """Hugging Face's BertSelfAttention and the output projection of BertSelfOutput: the scores
    divided by sqrt(d) and the extended attention mask (B x 1 x 1 S, made once per model
    forward: a buffer here) added, each a kernel of its own."""
    def __init__(self, e, heads, s):
        super().__init__()
        self.h, self.d = heads, e // heads
        self.query, self.key, self.value, self.dense = (nn.Linear(e, e) for _ in range(4))
        self.register_buffer("mask", torch.zeros(4, 1, 1, s))

    def _heads(self, x):
        n, s, _ = x.shape
        return x.view(n, s, self.h, self.d).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self._heads(self.query(x)), self._heads(self.key(x)), self._heads(self.value(x))
        a = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d) + self.mask[:x.shape[0]]
        c = torch.matmul(a.softmax(-1), v).permute(0, 2, 1, 3).contiguous()
        return self.dense(c.view(x.shape[0], x.shape[1], -1))


class OptMasked(BertSelf):
    """BertSelf with Hugging Face's eager OPTAttention's mask: a causal mask of B x 1 x S x S
    added, then the scores held at the dtype's minimum (OPT's torch.max(scores,
    torch.tensor(min)); clamp_min here, the same kernel's traffic without the 0-dim tensor's
    read, and the same tensor kept for backward)."""
    def __init__(self, e, heads, s):
        super().__init__(e, heads, s)
        self.register_buffer("mask", torch.triu(torch.full((4, 1, s, s), -1e9), 1))

    def forward(self, x):
        q, k, v = self._heads(self.query(x)), self._heads(self.key(x)), self._heads(self.value(x))
        a = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d) + self.mask[:x.shape[0]]
        a = torch.clamp_min(a, torch.finfo(a.dtype).min)
        c = torch.matmul(a.softmax(-1), v).permute(0, 2, 1, 3).contiguous()
        return self.dense(c.view(x.shape[0], x.shape[1], -1))


class GQA(nn.Module):
    """Llama's attention: q, k, v, o projections without bias, kv_heads key/value heads."""
    def __init__(self, e, heads, kv_heads):
        super().__init__()
        d = e // heads
        self.h, self.kv, self.d = heads, kv_heads, d
        self.q_proj = nn.Linear(e, e, bias=False)
        self.k_proj = nn.Linear(e, kv_heads * d, bias=False)
        self.v_proj = nn.Linear(e, kv_heads * d, bias=False)
        self.o_proj = nn.Linear(e, e, bias=False)

    def forward(self, x):
        n, s, _ = x.shape
        q = self.q_proj(x).view(n, s, self.h, self.d).transpose(1, 2)
        k = self.k_proj(x).view(n, s, self.kv, self.d).transpose(1, 2)
        v = self.v_proj(x).view(n, s, self.kv, self.d).transpose(1, 2)
        k = k.repeat_interleave(self.h // self.kv, 1)
        v = v.repeat_interleave(self.h // self.kv, 1)
        a = (q @ k.transpose(-1, -2) / math.sqrt(self.d))
        mask = torch.ones(s, s, device=x.device).triu(1).bool()
        a = a.masked_fill(mask, float("-inf")).softmax(-1)
        return self.o_proj((a @ v).transpose(1, 2).reshape(n, s, -1))


# ---- a MAC counter: torch.utils.flop_counter's rules (torch >= 2.1) for torch 1.13 ----------

def _numel(shape):
    return math.prod(shape)


class MacCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.macs = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        packet = func._overloadpacket
        if packet in (aten.mm, aten.addmm):
            a, b = (args[0], args[1]) if packet is aten.mm else (args[1], args[2])
            self.macs += a.shape[0] * a.shape[1] * b.shape[1]
        elif packet in (aten.bmm, aten.baddbmm):
            a, b = (args[0], args[1]) if packet is aten.bmm else (args[1], args[2])
            self.macs += a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
        elif packet is aten.convolution:
            x, w, transposed = args[0], args[1], args[6]
            # each output element (input element, transposed) takes the weight's
            # channels-per-group x taps products
            self.macs += _numel((x if transposed else out).shape) * _numel(w.shape[1:])
        return out


def _storage(t):
    """The address of t's storage (torch 2's untyped storage; 1.13's typed one)."""
    return (t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()).data_ptr()


class LinearCounter(TorchDispatchMode):
    """The products by a weight matrix a forward pass dispatches: aten.mm and aten.addmm with
    an operand in a parameter's storage (nn.Linear's, F.linear's, Hugging Face's Conv1D's, not
    attention's score products between activations): how many, their FLOPs, the elements of
    their other operands, each storage once (q, k and v read one input), and of their
    outputs. What a float8 recipe runs in fp8 and casts (plugin ABI 22's linear fields)."""
    def __init__(self, params):
        super().__init__()
        self.params = params
        self.products = self.flops = self.outputs = 0
        self.inputs, self.keep = {}, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        packet = func._overloadpacket
        if packet in (aten.mm, aten.addmm):
            a, b = (args[0], args[1]) if packet is aten.mm else (args[1], args[2])
            weight_b = _storage(b) in self.params
            if weight_b or _storage(a) in self.params:
                x = a if weight_b else b
                self.products += 1
                self.flops += 2 * a.shape[0] * a.shape[1] * b.shape[1]
                self.inputs[_storage(x)] = x.numel()
                # held, so that no later tensor takes its freed storage's address
                self.keep.append(x)
                self.outputs += out.numel()
        return out


def linear_counts(m, x):
    """linear_products, and linear_flops, linear_input_elems and linear_output_elems per
    sample of the batch of 2."""
    counter = LinearCounter({_storage(p) for p in m.parameters()})
    with torch.no_grad(), counter:
        m(x)
    return {"linear_products": str(counter.products),
            "linear_flops": str(counter.flops // 2),
            "linear_input_elems": str(sum(counter.inputs.values()) // 2),
            "linear_output_elems": str(counter.outputs // 2)}


# ---- the cases files ----------------------------------------------------------------------

def cases(path):
    """(line, section, {key: value}) of each [case] with a torch key."""
    out, cur = [], None
    for n, raw in enumerate(open(path), 1):
        s = raw.strip()
        if not s or s[0] in "#;":
            continue
        if s.startswith("["):
            cur = (n, s, {})
            out.append(cur)
        elif cur and "=" in s:
            k, v = s.split("=", 1)
            cur[2][k.strip()] = v.strip()
    return [c for c in out if c[1].startswith("[case") and "torch" in c[2]]


def instance(expr, shape):
    """The case's module and a batch of 2 of its input."""
    torch.manual_seed(0)
    m = eval(expr)
    dims = [int(d) for d in shape.split("x")]
    if isinstance(m, nn.Embedding):
        return m, torch.zeros(2, *dims, dtype=torch.long)
    return m, torch.randn(2, *dims)


def upcast_bytes(m, x):
    """Bytes one sample's forward pass moves more in bf16 than half its fp32 bytes (plugin.h's
    upcast_bytes: a module that computes in fp32 whatever its input), or "-" where PyTorch has
    no bf16 CPU kernel for one of its ops. Per sample as the difference between batches of 4
    and 2, so that what a pass moves once whatever the batch (a loss's total weight) is not
    spread over the samples."""
    if not x.dtype.is_floating_point:
        return "0"

    def more(batch):
        xb = torch.cat([x] * (batch // x.shape[0]))
        full, _ = torch_eager_bytes.forward_bytes(m.to(torch.float32), xb)
        half, _ = torch_eager_bytes.forward_bytes(m.to(torch.bfloat16), xb.to(torch.bfloat16))
        return 2 * half - full

    try:
        return str((more(4) - more(2)) // 4)
    except RuntimeError:
        return "-"
    finally:
        m.to(torch.float32)


def kernel_counts(m, x):
    """kernels_fwd and kernels_bwd: the kernels a training pass of m launches
    (tools/torch_eager_bytes.py), "-" where no backward pass runs (no derivative, or an
    input that takes no gradient)."""
    try:
        counts = torch_eager_bytes.kernels(m, x)
    except (RuntimeError, AttributeError):  # no derivative, or an output that is no tensor
        counts = None
    return ("-", "-") if counts is None else (str(counts[0]), str(counts[1]))


def kept_bytes(m, x):
    """Bytes a training forward pass of m on x keeps for backward, its output included: the
    unique storages autograd's saved tensors hold (torch.autograd.graph.saved_tensors_hooks),
    the module's parameters and buffers left out, and the output's. The input is a copy made
    inside the graph, as a layer's input in a network is, so that an in-place module may write
    over it."""
    def storage(t):  # torch 2's untyped storage; 1.13's typed one
        return t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()

    params = {storage(p).data_ptr() for p in list(m.parameters()) + list(m.buffers())}
    seen = {}

    def pack(t):
        st = storage(t)
        if st.data_ptr() not in params:
            seen[st.data_ptr()] = st.nbytes()
        return t

    leaf = x.clone().requires_grad_() if x.dtype.is_floating_point else x
    m.train()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = m(leaf * 1 if x.dtype.is_floating_point else leaf)
    outs = y if isinstance(y, (tuple, list)) else (y,)
    for o in outs:
        seen[storage(o).data_ptr()] = storage(o).nbytes()
    return sum(seen.values())


def activations(m, x):
    """kept_bytes per sample, as the difference between batches 4 and 2: what a pass keeps
    whatever the batch (a norm's statistics) drops out, as the harness's count does."""
    torch.manual_seed(1)
    x4 = torch.cat([x, x])
    return str((kept_bytes(m, x4) - kept_bytes(m, x)) // 2)


def derive(expr, shape, upcast=True):
    m, x = instance(expr, shape)
    counter = MacCounter()
    with counter:
        y = m(x)
    moved, serial = torch_eager_bytes.forward_bytes(m, x)
    k_fwd, k_bwd = kernel_counts(m, x)
    return {
        "output": "x".join(str(d) for d in y.shape[1:]),
        "weights": str(sum(p.numel() for p in m.parameters())),
        "param_tensors": str(len(list(m.parameters()))),
        "macs": str(counter.macs // 2),  # per sample of the batch of 2
        "bytes": str(moved // 2),
        "serial_bytes": str(serial // 2),
        "upcast_bytes": upcast_bytes(m, x) if upcast else "-",
        "activations": activations(m, x),
        "kernels_fwd": k_fwd,
        "kernels_bwd": k_bwd,
        **linear_counts(m, x),
    }


def values(text):
    return [float(v) for v in text.replace(",", " ").split()]


def output_values(kv):
    """The module's output on the case's input_values (weight_values into its parameters, in
    order), batch 1, eval(): what the case's output_values must be."""
    m, _ = instance(kv["torch"], kv["input"])
    m.eval()
    dims = [int(d) for d in kv["input"].split("x")]
    x = torch.tensor(values(kv["input_values"]), dtype=torch.float32).reshape(1, *dims)
    if "weight_values" in kv:
        w = torch.tensor(values(kv["weight_values"]), dtype=torch.float32)
        at = 0
        with torch.no_grad():
            for p in m.parameters():
                p.copy_(w[at:at + p.numel()].reshape(p.shape))
                at += p.numel()
    with torch.no_grad():
        return m(x).flatten().tolist()


def all_cases(files):
    """(path, line, section, keys) of every case with a torch module, in files or all."""
    files = files or sorted(glob.glob("plugins/*/cases.ini")) + ["examples/plugin/cases.ini"]
    for path in files:
        for line, section, kv in cases(path):
            yield path, line, section, kv


def main(argv):
    show = "--derive" in argv
    failed = checked = 0
    for path, line, section, kv in all_cases([a for a in argv if a != "--derive"]):
        got = derive(kv["torch"], kv["input"], show or "upcast_bytes" in kv)
        if show:
            print(f"{path}:{line} {section} " + " ".join(f"{k}={v}" for k, v in got.items()))
            if "input_values" in kv:
                print("output_values = " + " ".join(f"{v:.7g}" for v in output_values(kv)))
            continue
        if "output_values" in kv and "input_values" in kv:
            checked += 1
            want, have = values(kv["output_values"]), output_values(kv)
            scale = max([1e-3] + [abs(v) for v in have])
            worst = max((abs(a - b) for a, b in zip(want, have)), default=0.0)
            if len(want) != len(have) or worst > 1e-4 * scale:
                failed += 1
                print(f"{path}:{line}: {section} output_values differ from PyTorch's by "
                      f"{worst:.3g} ({len(want)} given, {len(have)} from {kv['torch']}): "
                      + " ".join(f"{v:.7g}" for v in have))
        for key in ("output", "weights", "param_tensors", "macs", "bytes", "serial_bytes",
                    "upcast_bytes", "activations", "kernels_fwd", "kernels_bwd",
                    "linear_products", "linear_flops", "linear_input_elems",
                    "linear_output_elems"):
            if key not in kv:
                continue
            checked += 1
            if kv[key] != got[key]:
                failed += 1
                print(f"{path}:{line}: {section} {key} = {kv[key]}, PyTorch gives {got[key]}"
                      f" ({kv['torch']})")
    if not show:
        print(f"{checked - failed} passed, {failed} failed")
    return 1 if failed or (not show and checked == 0) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
