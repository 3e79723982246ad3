#!/usr/bin/python3
"""The bytes eager PyTorch moves, and what autograd keeps, for the two ways Llama's rotary
position embedding is written: the outside reference of gqa_attention's rope_form counts
(plugins/gqa_attention/gqa_attention.c, tests/test_llama.c).

  rotate_half  Hugging Face's apply_rotary_pos_emb: q * cos + rotate_half(q) * sin, cos and sin
               at the activations' dtype (LlamaRotaryEmbedding casts them to x.dtype)
  complex      Meta's reference code's and torchtitan's apply_rotary_emb: view_as_complex of
               x.float(), times freqs_cis (complex64), view_as_real, .type_as(x)

Both rotate q (S x heads x d) and k (S x kv_heads x d) of one sequence. Forward bytes come from
tools/torch_eager_bytes.py (every aten op's operands and results, views left out), in fp32 and
in bf16; upcast is bf16 less half the fp32 count (plugin.h's upcast_bytes). With N = S (h + kv) d
rotated elements the counts are a N + b S d; two sizes give a and b.

--saved prints what torch.autograd.graph.saved_tensors_hooks records for each form, and for
Hugging Face's eager LlamaAttention (projections, rotation, repeat_kv, scores, softmax in fp32,
context, o_proj) with rotation and without.

--softmax prints, per score, what Llama's softmax in fp32 moves (forward and backward, through
torch_eager_bytes.measure) and keeps, in bfloat16, beside a bf16 softmax: Hugging Face's
softmax(a, dtype=torch.float32).to(a.dtype) and Meta's softmax(a.float()).type_as(a), both of
which PyTorch runs at bf16 as a cast up, an fp32 softmax and a cast down (SoftMax.cpp's
softmax() fuses the cast into the softmax, half_to_float, for fp16 under dtype=float32 on
CUDA only; this CPU has no fp16 softmax to measure): plugin.h's SM_SOFTMAX_* costs.

Usage: /usr/bin/python3 tools/torch_rope_bytes.py [--saved] [--softmax]    (torch 1.13 here)
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_eager_bytes  # noqa: E402


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotate_half(x, cos, sin):
    """Hugging Face's apply_rotary_pos_emb on one of q and k."""
    return x * cos + rotate_half(x) * sin


def angles(s, d):
    inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
    return torch.outer(torch.arange(s).float(), inv)


class Rope(nn.Module):
    """Rotates the q and k halves of x (1 x S x (h + kv) d); returns both."""

    def __init__(self, form, h, kv, d, s, dtype):
        super().__init__()
        self.form, self.h, self.kv, self.d = form, h, kv, d
        f = angles(s, d)
        if form == "complex":
            self.freqs = torch.polar(torch.ones_like(f), f)  # complex64 whatever x is
        else:
            emb = torch.cat((f, f), -1)
            self.cos, self.sin = emb.cos().to(dtype)[None], emb.sin().to(dtype)[None]

    def rot(self, x):
        if self.form == "complex":
            z = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
            freqs = self.freqs.view(1, x.shape[1], 1, x.shape[-1] // 2)
            return torch.view_as_real(z * freqs).flatten(3).type_as(x)
        x = x.transpose(1, 2)  # Hugging Face rotates (n, heads, S, d)
        return apply_rotate_half(x, self.cos.unsqueeze(1), self.sin.unsqueeze(1))

    def forward(self, x):
        n, s, _ = x.shape
        q = x[..., : self.h * self.d].reshape(n, s, self.h, self.d)
        k = x[..., self.h * self.d:].reshape(n, s, self.kv, self.d)
        return self.rot(q), self.rot(k)


def repeat_kv(x, n):
    b, kv, s, d = x.shape
    return x[:, :, None].expand(b, kv, n, s, d).reshape(b, kv * n, s, d)


class LlamaAttention(nn.Module):
    """Hugging Face's LlamaAttention with eager_attention_forward (dropout 0)."""

    def __init__(self, e, h, kv, s, rope):
        super().__init__()
        self.h, self.kv, self.d, self.rope = h, kv, e // h, rope
        self.q_proj = nn.Linear(e, e, bias=False)
        self.k_proj = nn.Linear(e, kv * self.d, bias=False)
        self.v_proj = nn.Linear(e, kv * self.d, bias=False)
        self.o_proj = nn.Linear(e, e, bias=False)
        emb = torch.cat((angles(s, self.d),) * 2, -1)
        self.cos, self.sin = emb.cos()[None], emb.sin()[None]
        self.mask = torch.full((s, s), float("-inf")).triu(1)[None, None]

    def forward(self, x):
        n, s, _ = x.shape
        q = self.q_proj(x).view(n, s, -1, self.d).transpose(1, 2)
        k = self.k_proj(x).view(n, s, -1, self.d).transpose(1, 2)
        v = self.v_proj(x).view(n, s, -1, self.d).transpose(1, 2)
        if self.rope:
            c, si = self.cos.to(x.dtype).unsqueeze(1), self.sin.to(x.dtype).unsqueeze(1)
            q, k = apply_rotate_half(q, c, si), apply_rotate_half(k, c, si)
        k, v = repeat_kv(k, self.h // self.kv), repeat_kv(v, self.h // self.kv)
        a = torch.matmul(q, k.transpose(2, 3)) * self.d ** -0.5 + self.mask.to(x.dtype)
        a = F.dropout(Softmax("dtype_float32")(a), p=0.0, training=True)
        o = torch.matmul(a, v).transpose(1, 2).contiguous().reshape(n, s, -1)
        return self.o_proj(o)


def forward_bytes(form, h, kv, d, s, dtype):
    x = torch.randn(1, s, (h + kv) * d, dtype=dtype)
    return torch_eager_bytes.forward_bytes(Rope(form, h, kv, d, s, dtype), x)[0]


def saved(module, x):
    """(bytes, [(bytes, dtype, shape)]) of the storages autograd keeps, parameters left out."""
    params = {p.data_ptr() for p in module.parameters()}
    seen = {}

    def pack(t):
        ptr = t.storage().data_ptr()
        if ptr not in params:
            seen[ptr] = (t.storage().nbytes(), str(t.dtype).replace("torch.", ""), tuple(t.shape))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        module(tuple(t.requires_grad_(True) for t in x) if isinstance(x, tuple)
               else x.requires_grad_(True))
    return sum(v[0] for v in seen.values()), list(seen.values())


class Softmax(nn.Module):
    """The scores' softmax as form writes it: native, float (Meta's) or dtype_float32 (HF's)."""

    def __init__(self, form):
        super().__init__()
        self.form = form

    def forward(self, a):
        if self.form == "float":
            return F.softmax(a.float(), dim=-1).type_as(a)
        if self.form == "dtype_float32":
            return F.softmax(a, dim=-1, dtype=torch.float32).to(a.dtype)
        return F.softmax(a, dim=-1)


class Probs(nn.Module):
    """The probabilities through dropout p into the context product (p @ v)."""

    def __init__(self, form, p):
        super().__init__()
        self.form, self.p = form, p

    def forward(self, av):
        a, v = av
        if self.form == "autocast":
            probs = F.dropout(F.softmax(a, dim=-1, dtype=torch.float32), self.p).to(v.dtype)
        else:
            probs = F.dropout(Softmax(self.form)(a), self.p)
        return probs @ v


def softmax_costs():
    """Per score in bf16: forward and backward bytes (the backward's seed gradient left out)
    and the bytes autograd keeps, of each form."""
    a = torch.randn(2, 4, 5, 5).to(torch.bfloat16)
    n = a.numel()
    print("softmax        bf16 bytes per score: forward  backward  kept")
    for form in ("native", "float", "dtype_float32"):
        m = Softmax(form)
        fwd, bwd = torch_eager_bytes.measure(m, a)
        bwd = [op for op in bwd if op[0] != "ones_like"]
        kept, _ = saved(m, a.clone())
        f, b = (sum(r + w for _, r, w in ops) / n for ops in (fwd, bwd))
        print(f"{form:14} {f:27g} {b:9g} {kept / n:5g}")
    print("(kept: the softmax's own result; the context product keeps the bf16 probabilities,\n"
          " the same tensor as native's, beside float's and dtype_float32's fp32 one)")
    print("\nwith the context product, bf16 bytes per score kept (v and dropout's mask left out):")
    print("form                       no dropout  dropout")
    v = torch.randn(2, 4, 5, 3).to(torch.bfloat16)
    for form in ("native", "dtype_float32", "autocast"):
        row = []
        for p in (0.0, 0.1):
            torch.manual_seed(0)
            kept, _ = saved(Probs(form, p), (a.clone(), v.clone()))
            mask = n * (4 if form == "autocast" else 2) if p > 0 else 0  # CPU: the dtype's
            row.append((kept - v.numel() * 2 - mask) / n)
        print(f"{form:26} {row[0]:10g} {row[1]:8g}")
    print("(autocast: CUDA autocast's softmax(a, dtype=float32), dropout in fp32, and the\n"
          " product's cast back, as Hugging Face's BERT runs; dtype_float32: GPT-2's explicit\n"
          " .type(v.dtype) before its dropout. CPU dropout keeps its mask at the dtype's size;\n"
          " CUDA's keeps a bool, which dropout_mask_bytes counts.)")


def main(argv):
    sizes = ((4, 2, 2, 5), (8, 2, 16, 12))  # (heads, kv_heads, d, S): test_llama.c's first
    print("form         dtype     per N   per S d   (forward bytes = a N + b S d)")
    for form in ("rotate_half", "complex"):
        fits = {}
        for dtype in (torch.float32, torch.bfloat16):
            (n1, sd1, b1), (n2, sd2, b2) = [
                (s * (h + kv) * d, s * d, forward_bytes(form, h, kv, d, s, dtype))
                for h, kv, d, s in sizes]
            b = (b2 * n1 - b1 * n2) / (sd2 * n1 - sd1 * n2)
            a = (b1 - b * sd1) / n1
            fits[dtype] = (a, b)
            print(f"{form:12} {str(dtype)[6:]:9} {a:6g}   {b:6g}")
        (a32, b32), (a16, b16) = fits[torch.float32], fits[torch.bfloat16]
        print(f"{form:12} upcast    {a16 - a32 / 2:6g}   {b16 - b32 / 2:6g}")
    if "--softmax" in argv:
        softmax_costs()
    if "--saved" in argv:
        h, kv, d, s = sizes[0]
        for form in ("rotate_half", "complex"):
            x = torch.randn(1, s, (h + kv) * d)
            print(form, "keeps", *saved(Rope(form, h, kv, d, s, torch.float32), x))
        for rope in (True, False):
            for dtype in (torch.float32, torch.bfloat16):
                m = LlamaAttention(h * d, h, kv, s, rope).to(dtype)
                x = torch.randn(1, s, h * d, dtype=dtype)
                total, items = saved(m, x)
                print(f"LlamaAttention E {h * d} rope {rope} {str(dtype)[6:]}: {total} bytes")
                for item in items:
                    print("   ", *item)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
