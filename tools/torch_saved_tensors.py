#!/usr/bin/python3
"""Records, with PyTorch, what autograd keeps for backward at the end of one training forward
pass of every zoo network (models/*.ini): the outside reference of scalemeter's activation memory
(issue 33).

Per network and batch it builds the model (random weights, train mode: dropout active, batch norm
on batch statistics), runs one forward pass under torch.autograd.graph.saved_tensors_hooks, and
counts every tensor autograd packs. Tensors are grouped by storage (its data_ptr()): a view,
an in-place result or a tensor saved by two ops counts once, at its storage's full nbytes.
Storages of parameters and buffers (model.parameters(), model.buffers()) are left out: they are
the weights, not activations. No loss, no backward: a loss's own saved tensors (log_softmax of
the logits) are not here, and gradients, optimizer state and the allocator's caching are not
counted either.

  saved_bytes      sum of nbytes over the unique non-parameter storages packed
  saved_tensors    number of pack calls on non-parameter tensors (views counted apart)
  storages         number of unique non-parameter storages
  by_dtype         saved_bytes split by dtype ("float32", "int64", "bool" ...)
  input_bytes      nbytes of the network input (images float32, token ids int64); it is in
                   saved_bytes when the first layer saves it (Conv2d and Embedding do)
  inference_peak_bytes
                   eval mode under torch.no_grad(): the peak, over the forward pass, of the
                   bytes the CPU allocator holds beyond what it held before (the input and the
                   weights), from the profiler's allocation records (profile_memory=True, each
                   with the allocator's running total). It is the live tensors plus the
                   temporaries of the kernels (oneDNN weight reorders, im2col), as a memory
                   model of inference must count them.

Per module (batch 1 only, in saved_tensors_layers.json): the bytes of storages first packed
while that module was the innermost one running (forward pre/post hooks bracket the pack calls),
so functional ops in a parent's forward (ResNet's `out += identity`, ViT's class token concat,
nn.MultiheadAttention's functional body) count at the parent's name. A storage saved again by a
later module (a convolution's input that an in-place ReLU saved before) counts at the first.

--by-type prints, for each module type, every pattern of saved tensors seen (role: input,
output, param, other = a new tensor, each with dtype and shape relative to the module's input
and output), the table docs/memory-reference.md gives.

Sizes: images 224 x 224 for every CNN and ViT (the native size of most; the same for all, so
that one scalemeter command checks the zoo), sequences at the model file's default length
(BERT 128, GPT-2 1024). Batches 1 and 2: two points give the per-sample part and the constant
part (BN's save_mean/save_invstd, GPT-2's position ids). Memory is not what limits the batch
(regnet_y_128gf saves 1.27 GB at batch 2, beside 2.6 GB of weights; the run peaks at 8 GB
resident); time is: the whole zoo at batches 1 and 2 takes 10.4 minutes of CPU time with 2
threads, 19.5 minutes wall on two cores shared with other jobs, and every larger batch adds
its multiple of the forward passes.

BERT-base and GPT-2 small: no Hugging Face transformers here, so BertModel and GPT2LMHeadModel
are written out below with the modules, names and forward code of transformers 4.25 (eager
attention), random weights: what they save is what the library's modules would.

Output: tests/data/reference/saved_tensors.json (one line per model and batch) and
tests/data/reference/saved_tensors_layers.json (one line per module, batch 1). That reference
was made with Debian's PyTorch 1.13, which ran every attention eagerly; the networks whose code
calls scaled_dot_product_attention under PyTorch 2 (vit_b_16) were recorded again under
PyTorch 2.5.1 into tests/data/reference/torch2 (`pip install torch==2.5.1 torchvision==0.20.1
transformers==4.46.3` in a venv, then VENV/bin/python tools/torch_saved_tensors.py --hf -o
tests/data/reference/torch2 vit_b_16 bert_base gpt2): torchvision's ViT and Hugging Face's
default attention, scaled_dot_product_attention, which on the CPU runs fused without dropout
and its math path with it (BERT's and GPT-2's 0.1).

Usage: /usr/bin/python3 tools/torch_saved_tensors.py [-o DIR] [--batches 1,2] [--by-type]
                                                     [--no-peak] [--hf] [MODEL ...]
Needs torch and torchvision (Debian: python3-torchvision).
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_python import require_torch  # noqa: E402

require_torch("torch_saved_tensors.py")
import torch  # noqa: E402
import torchvision  # noqa: E402
from torch import nn  # noqa: E402
from torch_reference import ZOO  # noqa: E402

IMAGE = 224
BATCHES = (1, 2)


# ---- Hugging Face BERT-base (bert-base-uncased) and GPT-2 small, transformers 4.25 -----------

class BertEmbeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(30522, 768, padding_idx=0)
        self.position_embeddings = nn.Embedding(512, 768)
        self.token_type_embeddings = nn.Embedding(2, 768)
        self.LayerNorm = nn.LayerNorm(768, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.register_buffer("position_ids", torch.arange(512).expand((1, -1)))
        self.register_buffer("token_type_ids", torch.zeros((1, 512), dtype=torch.long),
                             persistent=False)

    def forward(self, input_ids):
        batch, seq = input_ids.shape
        position_ids = self.position_ids[:, :seq]
        token_type_ids = self.token_type_ids[:, :seq].expand(batch, seq)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings += self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(embeddings))


class BertSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads, self.head_size = 12, 64
        self.query = nn.Linear(768, 768)
        self.key = nn.Linear(768, 768)
        self.value = nn.Linear(768, 768)
        self.dropout = nn.Dropout(0.1)

    def split(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.head_size)).permute(0, 2, 1, 3)

    def forward(self, hidden, mask):
        query = self.split(self.query(hidden))
        key = self.split(self.key(hidden))
        value = self.split(self.value(hidden))
        scores = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(self.head_size)
        probs = self.dropout(nn.functional.softmax(scores + mask, dim=-1))
        context = torch.matmul(probs, value).permute(0, 2, 1, 3).contiguous()
        return context.view(context.size()[:-2] + (768,))


class BertSelfOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(768, 768)
        self.LayerNorm = nn.LayerNorm(768, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden)) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self):
        super().__init__()
        setattr(self, "self", BertSelfAttention())
        self.output = BertSelfOutput()

    def forward(self, hidden, mask):
        return self.output(getattr(self, "self")(hidden, mask), hidden)


class GELUActivation(nn.Module):  # transformers.activations.GELUActivation: exact erf GELU
    def forward(self, x):
        return nn.functional.gelu(x)


class BertIntermediate(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(768, 3072)
        self.intermediate_act_fn = GELUActivation()

    def forward(self, hidden):
        return self.intermediate_act_fn(self.dense(hidden))


class BertOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(3072, 768)
        self.LayerNorm = nn.LayerNorm(768, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden)) + input_tensor)


class BertLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = BertAttention()
        self.intermediate = BertIntermediate()
        self.output = BertOutput()

    def forward(self, hidden, mask):
        attention = self.attention(hidden, mask)
        return self.output(self.intermediate(attention), attention)


class BertEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.ModuleList(BertLayer() for _ in range(12))

    def forward(self, hidden, mask):
        for layer in self.layer:
            hidden = layer(hidden, mask)
        return hidden


class BertPooler(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(768, 768)
        self.activation = nn.Tanh()

    def forward(self, hidden):
        return self.activation(self.dense(hidden[:, 0]))


class BertModel(nn.Module):
    """transformers.BertModel(bert-base-uncased config), no attention mask given: all ones."""

    def __init__(self):
        super().__init__()
        self.embeddings = BertEmbeddings()
        self.encoder = BertEncoder()
        self.pooler = BertPooler()

    def forward(self, input_ids):
        dtype = torch.float32
        # get_extended_attention_mask of an all-ones mask: zeros, added to the scores
        mask = torch.ones(input_ids.shape)[:, None, None, :].to(dtype)
        mask = (1.0 - mask) * torch.finfo(dtype).min
        sequence = self.encoder(self.embeddings(input_ids), mask)
        return sequence, self.pooler(sequence)


class Conv1D(nn.Module):  # transformers.pytorch_utils.Conv1D: a linear with weight nx x nf
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(size_out)


class NewGELUActivation(nn.Module):  # transformers.activations.NewGELUActivation ("gelu_new")
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi)
                                           * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones((1024, 1024), dtype=torch.bool))
                             .view(1, 1, 1024, 1024))
        self.register_buffer("masked_bias", torch.tensor(-1e4))
        self.heads, self.head_dim = 12, 64
        self.c_attn = Conv1D(3 * 768, 768)
        self.c_proj = Conv1D(768, 768)
        self.attn_dropout = nn.Dropout(0.1)
        self.resid_dropout = nn.Dropout(0.1)

    def split(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.head_dim)).permute(0, 2, 1, 3)

    def forward(self, hidden):
        return self.attend(hidden)[0]

    def attend(self, hidden):
        """The output, and the key and value (views of c_attn's output) that transformers'
        GPT2Attention returns as its present with use_cache (tools/torch_kv_cache.py)."""
        query, key, value = self.c_attn(hidden).split(768, dim=2)
        query, key, value = self.split(query), self.split(key), self.split(value)
        weights = torch.matmul(query, key.transpose(-1, -2))
        weights = weights / torch.full([], value.size(-1) ** 0.5, dtype=weights.dtype)
        q, k = query.size(-2), key.size(-2)
        causal = self.bias[:, :, k - q:k, :k].to(torch.bool)
        mask_value = torch.full([], torch.finfo(weights.dtype).min, dtype=weights.dtype)
        weights = torch.where(causal, weights.to(weights.dtype), mask_value)
        weights = nn.functional.softmax(weights, dim=-1).type(value.dtype)
        weights = self.attn_dropout(weights)
        out = torch.matmul(weights, value).permute(0, 2, 1, 3).contiguous()
        out = out.view(out.size()[:-2] + (768,))
        return self.resid_dropout(self.c_proj(out)), key, value


class GPT2MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = Conv1D(3072, 768)
        self.c_proj = Conv1D(768, 3072)
        self.act = NewGELUActivation()
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden):
        return self.dropout(self.c_proj(self.act(self.c_fc(hidden))))


class GPT2Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(768, eps=1e-5)
        self.attn = GPT2Attention()
        self.ln_2 = nn.LayerNorm(768, eps=1e-5)
        self.mlp = GPT2MLP()

    def forward(self, hidden):
        hidden = self.attn(self.ln_1(hidden)) + hidden
        return hidden + self.mlp(self.ln_2(hidden))


class GPT2LMHeadModel(nn.Module):
    """transformers.GPT2LMHeadModel(gpt2 config), flattened to the zoo file's names (wte, h.N,
    ln_f, lm_head; the library nests the first three under `transformer`)."""

    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(50257, 768)
        self.wpe = nn.Embedding(1024, 768)
        self.drop = nn.Dropout(0.1)
        self.h = nn.ModuleList(GPT2Block() for _ in range(12))
        self.ln_f = nn.LayerNorm(768, eps=1e-5)
        self.lm_head = nn.Linear(768, 50257, bias=False)
        self.lm_head.weight = self.wte.weight  # tied

    def forward(self, input_ids):
        seq = input_ids.shape[-1]
        position_ids = torch.arange(0, seq, dtype=torch.long).unsqueeze(0).view(-1, seq)
        hidden = self.drop(self.wte(input_ids) + self.wpe(position_ids))
        for block in self.h:
            hidden = block(hidden)
        return self.lm_head(self.ln_f(hidden))


SEQUENCE = {"bert_base": (BertModel, 128, 30522), "gpt2": (GPT2LMHeadModel, 1024, 50257)}


def zoo_names():
    return list(ZOO) + ["vit_b_16"] + list(SEQUENCE)


# --hf: BERT and GPT-2 from the installed Hugging Face transformers, its default attention (SDPA
# on PyTorch 2.1.1 and later), instead of the written-out 4.25 eager code
HF = None


def build_hf(name):
    if name == "bert_base":
        return HF.BertModel._from_config(HF.BertConfig())  # bert-base-uncased's sizes
    return HF.GPT2LMHeadModel._from_config(HF.GPT2Config())  # gpt2's sizes


def build(name):
    torch.manual_seed(0)
    if name in SEQUENCE:
        return build_hf(name) if HF else SEQUENCE[name][0]()
    kwargs = ZOO[name][0] if name in ZOO else {}
    return getattr(torchvision.models, name)(weights=None, **kwargs)


def make_input(name, batch):
    gen = torch.Generator().manual_seed(1)
    if name in SEQUENCE:
        _, seq, vocab = SEQUENCE[name]
        return torch.randint(0, vocab, (batch, seq), generator=gen)
    return torch.randn(batch, 3, IMAGE, IMAGE, generator=gen)


# ---- recording --------------------------------------------------------------------------------

def storage_of(t):
    # untyped_storage() from PyTorch 2.0, where storage() warns that it is deprecated
    s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return s.data_ptr(), s.nbytes()


def tensors_in(obj):
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from tensors_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from tensors_in(o)


def shape_rel(shape, ref_in, ref_out):
    shape = list(shape)
    if ref_in is not None and shape == ref_in:
        return "=in"
    if ref_out is not None and shape == ref_out:
        return "=out"
    if ref_in is not None and len(ref_in) >= 2 and shape == [ref_in[1]]:
        return "[C]"  # one value per channel of the input
    return "x".join(str(d) for d in shape) if shape else "scalar"


class Recorder:
    """Packs every saved tensor and attributes it to the innermost module running."""

    def __init__(self, model, detail):
        self.names = {m: n for n, m in model.named_modules()}
        self.weights = {storage_of(t)[0] for t in list(model.parameters()) + list(model.buffers())}
        self.detail = detail
        self.stack = []     # [name, module, packed entries, input tensors]
        self.first = {}     # storage ptr -> (nbytes, dtype, module name that first saved it)
        self.keep = []      # the packed tensors, alive until the end (no pointer reuse)
        self.calls = []     # detail: (module type, name, signature)
        self.tensors = 0
        self.handles = []
        for m in model.modules():
            self.handles.append(m.register_forward_pre_hook(self.pre))
            self.handles.append(m.register_forward_hook(self.post))

    def pre(self, module, inputs):
        self.stack.append([self.names[module], module, [], list(tensors_in(inputs))])

    def post(self, module, inputs, output):
        name, mod, packed, ins = self.stack.pop()
        assert mod is module, "unbalanced module hooks"
        if not self.detail or not packed:
            return
        outs = list(tensors_in(output))
        in_ptrs = {storage_of(t)[0]: i for i, t in enumerate(ins)}
        out_ptrs = {storage_of(t)[0] for t in outs}
        ref_in = list(ins[0].shape) if ins else None
        ref_out = list(outs[0].shape) if outs else None
        sig = []
        for ptr, t, new in packed:
            if ptr in self.weights:
                role = "param"
            elif ptr in in_ptrs and ptr in out_ptrs:
                role = "input=output"
            elif ptr in in_ptrs:
                role = "input" if in_ptrs[ptr] == 0 else f"input{in_ptrs[ptr]}"
            elif ptr in out_ptrs:
                role = "output"
            else:
                role = "other"
            if role not in ("param",) and not new:
                role += "(seen)"  # this storage was saved before, by another op
            if role == "param":
                sig.append("param")  # a weight or buffer: not an activation
            else:
                sig.append(f"{role}:{str(t.dtype)[6:]}:{shape_rel(t.shape, ref_in, ref_out)}")
        self.calls.append((type(module).__name__, name, tuple(sig)))

    def pack(self, t):
        ptr, nbytes = storage_of(t)
        new = False
        if ptr not in self.weights:
            self.tensors += 1
            if ptr not in self.first:
                where = self.stack[-1][0] if self.stack else ""
                self.first[ptr] = (nbytes, str(t.dtype)[6:], where)
                new = True
        if self.stack:
            self.stack[-1][2].append((ptr, t, new))
        alias = t.detach()  # same storage; t itself would make a cycle (an output's grad_fn
        self.keep.append(alias)  # saves t) that outlives the graph: memory grows per model
        return alias

    def close(self):
        for h in self.handles:
            h.remove()


def saved(name, model, x, detail=False):
    rec = Recorder(model, detail)
    try:
        with torch.autograd.graph.saved_tensors_hooks(rec.pack, lambda t: t):
            out = model(x)
    finally:
        rec.close()
    del out
    by_dtype, per_module = {}, {}
    for nbytes, dtype, where in rec.first.values():
        by_dtype[dtype] = by_dtype.get(dtype, 0) + nbytes
        per_module[where or "(top)"] = per_module.get(where or "(top)", 0) + nbytes
    result = {"saved_bytes": sum(v[0] for v in rec.first.values()),
              "saved_tensors": rec.tensors, "storages": len(rec.first),
              "by_dtype": dict(sorted(by_dtype.items())),
              "input_bytes": x.numel() * x.element_size(),
              "input_saved": storage_of(x)[0] in rec.first}
    layers = {n or "(top)": [per_module[n or "(top)"], type(m).__name__]
              for n, m in model.named_modules() if (n or "(top)") in per_module}
    rec.keep.clear()
    return result, layers, rec.calls


def inference_peak(model, x):
    """Peak bytes held by the CPU allocator during an eval, no_grad forward pass, above what it
    held when the pass began (profiler allocation records carry the running total)."""
    from torch.profiler import ProfilerActivity, profile
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as p:
        model(x)
    events = []

    def walk(node):
        ef = node.extra_fields
        if type(ef).__name__.endswith("Allocation"):
            events.append((node.start_time_ns, ef.alloc_size))
        for c in node.children:
            walk(c)

    for node in p.profiler.kineto_results.experimental_event_tree():
        walk(node)
    live = peak = 0
    for _, size in sorted(events):
        live += size
        peak = max(peak, live)
    return peak


def by_type(names):
    """Module type -> {signature: (count, example module)} over the networks named."""
    table = {}
    for name in names:
        model = build(name).train()
        _, _, calls = saved(name, model, make_input(name, 1), detail=True)
        for kind, mod, sig in calls:
            row = table.setdefault(kind, {})
            count, example = row.get(sig, (0, f"{name}:{mod}"))
            row[sig] = (count + 1, example)
        print(f"by-type: {name} done", file=sys.stderr)
    return table


def print_by_type(table):
    for kind in sorted(table):
        print(f"{kind}")
        for sig, (count, example) in sorted(table[kind].items(), key=lambda kv: -kv[1][0]):
            print(f"  {count:5d}x  {', '.join(sig)}   e.g. {example}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default=os.path.join(here, "..", "tests", "data", "reference"),
                    help="output folder (default: tests/data/reference)")
    ap.add_argument("--batches", default=",".join(map(str, BATCHES)), help="batch sizes (1,2)")
    ap.add_argument("--by-type", action="store_true",
                    help="print the saved tensors of each module type instead of writing JSON")
    ap.add_argument("--no-peak", action="store_true", help="skip the inference peak")
    ap.add_argument("--hf", action="store_true",
                    help="bert_base and gpt2 from the installed transformers (its default "
                         "attention) instead of the written-out 4.25 eager code")
    ap.add_argument("models", nargs="*", help="zoo models (default: all)")
    args = ap.parse_args()
    known = zoo_names()
    for m in args.models:
        if m not in known:
            sys.exit(f"torch_saved_tensors.py: unknown model {m!r}; known: {', '.join(known)}")
    try:
        batches = [int(b) for b in args.batches.split(",")]
        assert batches and all(b > 0 for b in batches)
    except (ValueError, AssertionError):
        sys.exit(f"torch_saved_tensors.py: --batches {args.batches!r}: want positive integers "
                 f"separated by commas")
    wanted = args.models or known
    if args.hf:
        global HF
        try:
            import transformers
        except ImportError:
            sys.exit("torch_saved_tensors.py: --hf needs Hugging Face transformers "
                     "(pip install transformers)")
        HF = transformers
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    if args.by_type:
        print_by_type(by_type(wanted))
        return

    path = os.path.join(args.out, "saved_tensors.json")
    lpath = os.path.join(args.out, "saved_tensors_layers.json")
    kept, kept_layers = {}, {}
    if args.models and os.path.exists(path):  # regenerate some: keep the others as they are
        with open(path) as f:
            kept = json.load(f)["models"]
        if os.path.exists(lpath):
            with open(lpath) as f:
                kept_layers = json.load(f)["models"]
    for name in wanted:
        start = time.time()
        entry = {"input": ("token ids int64 x %d" % SEQUENCE[name][1]) if name in SEQUENCE
                 else "image float32 3x%dx%d" % (IMAGE, IMAGE), "batches": {}}
        model = build(name)  # one model for all batches: a forward pass changes no weight
        for b in batches:
            x = make_input(name, b)
            counts, layers, _ = saved(name, model.train(), x)
            if not args.no_peak:
                counts["inference_peak_bytes"] = inference_peak(model.eval(), x)
            entry["batches"][str(b)] = counts
            if b == batches[0]:
                kept_layers[name] = {"batch": b, "layers": layers}
        del model
        kept[name] = entry
        print(f"torch_saved_tensors.py: {name}: "
              + ", ".join(f"batch {b} {entry['batches'][str(b)]['saved_bytes']:,} B"
                          for b in batches) + f" ({time.time() - start:.0f} s)", file=sys.stderr)
    models = {n: kept[n] for n in known if n in kept}
    head = {"generator": "tools/torch_saved_tensors.py", "torch": torch.__version__,
            "torchvision": torchvision.__version__, "image": IMAGE, "batches": batches,
            "train_mode": True, "device": "cpu"}
    if HF:
        head["transformers"] = HF.__version__
    os.makedirs(args.out, exist_ok=True)
    with open(path, "w") as f:
        f.write(json.dumps(head)[:-1] + ', "models": {\n')
        f.write(",\n".join(
            f"{json.dumps(n)}: {{\"input\": {json.dumps(e['input'])}, \"batches\": {{\n"
            + ",\n".join(f"  {json.dumps(b)}: {json.dumps(c)}" for b, c in e["batches"].items())
            + "}}" for n, e in models.items()))
        f.write("}}\n")
    layers = {n: kept_layers[n] for n in known if n in kept_layers}
    with open(lpath, "w") as f:
        f.write(json.dumps(head)[:-1] + ', "models": {\n')
        f.write(",\n".join(
            f"{json.dumps(n)}: {{\"batch\": {e['batch']}, \"layers\": {{\n"
            + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in e["layers"].items())
            + "}}" for n, e in layers.items()))
        f.write("}}\n")


if __name__ == "__main__":
    main()
