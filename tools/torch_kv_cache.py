#!/usr/bin/env python3
"""Measures, with PyTorch, what the keys and values a causal LM returns add to its inference
peak: the outside reference of `kv_cache=true` (plugin ABI 21's infer_kept_elems).

GPT-2 small as tools/torch_saved_tensors.py writes it out (transformers 4.25's modules and
forward code, random weights, eval mode, fp32, 1024 positions), run under torch.no_grad() twice
at each batch: as that file has it, returning the logits alone, and as Hugging Face's
GPT2LMHeadModel runs by default (use_cache): each GPT2Attention returns present = (key, value),
views (split, view, permute) of its c_attn output, and the model returns them all with the
logits, so every layer's c_attn output stays alive until the pass returns. The peak is the CPU
allocator's over the pass, above what it held before (torch_saved_tensors.inference_peak: the
profiler's allocation records). What the cache adds is the difference of the two peaks.

With --device cuda the same passes run on the GPU, the peak torch.cuda.max_memory_allocated over
the pass less what was allocated before it (the weights and the input), at --dtype float32 or
bfloat16 (the model cast, as `predict --precision bf16 --framework` of a cast model prices it).

Output: tests/data/reference/kv_cache.json (the CPU's), one line per batch: peak_bytes without
and with the cache, the device, the dtype and the torch version. tests/test_kv_cache_reference.py
holds scalemeter's inference memory of the zoo's gpt2 with kv_cache=true to it.

Usage: python3 tools/torch_kv_cache.py [-o FILE] [--batches 1,2] [--device cpu|cuda]
                                       [--dtype float32|bfloat16]   (needs torch, torchvision)
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_python import require_torch  # noqa: E402

require_torch("torch_kv_cache.py", ("torch", "torchvision"))
import torch  # noqa: E402

import torch_saved_tensors as ref  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class CachedAttention(ref.GPT2Attention):
    """GPT2Attention returning present = (key, value) beside its output, as transformers'
    does with use_cache: the key and value as split and permuted, views of c_attn's output."""

    def forward(self, hidden):
        out, key, value = self.attend(hidden)
        return out, (key, value)


class CachedBlock(ref.GPT2Block):
    def __init__(self):
        super().__init__()
        self.attn = CachedAttention()

    def forward(self, hidden):
        attn, present = self.attn(self.ln_1(hidden))
        hidden = attn + hidden
        return hidden + self.mlp(self.ln_2(hidden)), present


class CachedGPT2(ref.GPT2LMHeadModel):
    """GPT2LMHeadModel whose forward returns the logits and every layer's present, as
    transformers' does by default in eval mode (GPT2Model collects them as it goes)."""

    def __init__(self):
        super().__init__()
        self.h = torch.nn.ModuleList(CachedBlock() for _ in range(12))

    def forward(self, input_ids):
        seq = input_ids.shape[-1]
        position_ids = torch.arange(0, seq, dtype=torch.long).unsqueeze(0).view(-1, seq)
        hidden = self.drop(self.wte(input_ids) + self.wpe(position_ids))
        presents = ()
        for block in self.h:
            hidden, present = block(hidden)
            presents = presents + (present,)
        return self.lm_head(self.ln_f(hidden)), presents


def cuda_peak(model, x):
    """torch.cuda.max_memory_allocated over one no_grad pass, less what was allocated before it;
    the outputs are dropped before the next pass."""
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    with torch.no_grad():
        out = model(x)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - before
    del out
    return peak


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", default=os.path.join(ROOT, "tests", "data", "reference",
                                               "kv_cache.json"))
    ap.add_argument("--batches", default="1,2")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"))
    a = ap.parse_args()
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    lines = []
    for batch in (int(b) for b in a.batches.split(",")):
        x = ref.make_input("gpt2", batch)
        peaks = {}
        for name, cls in (("without", ref.GPT2LMHeadModel), ("with", CachedGPT2)):
            torch.manual_seed(0)
            model = cls().eval().to(getattr(torch, a.dtype))
            peaks[name] = (ref.inference_peak(model, x) if a.device == "cpu" else
                           cuda_peak(model.cuda(), x.cuda()))
        lines.append({"model": "gpt2", "batch": batch, "seq": 1024, "device": a.device,
                      "dtype": a.dtype, "peak_bytes_without_cache": peaks["without"],
                      "peak_bytes_with_cache": peaks["with"], "torch": torch.__version__})
        print(f"torch_kv_cache: batch {batch}: {peaks['without']} and {peaks['with']} bytes",
              file=sys.stderr)
    with open(a.o, "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    print(f"torch_kv_cache: {a.o}: {len(lines)} lines", file=sys.stderr)


if __name__ == "__main__":
    main()
